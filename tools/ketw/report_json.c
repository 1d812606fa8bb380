// SPDX-License-Identifier: GPL-2.0
/*
 * ketw report --json: a record as one JSON object on a line (JSON Lines),
 * its payload decoded field by field with the rundown's layouts.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report_items.h"
#include "report_json.h"

/* One field's value: numbers, strings, GUIDs, hex strings; null if missing. */
static void json_field(struct cli_json *j, const struct ketw_field_info *fi,
		       const unsigned char *data, size_t len, bool swapped)
{
	unsigned int w = ketw_field_width(fi->type);
	size_t off = fi->offset, n;
	char guid[KETW_GUID_STR_LEN];
	uint64_t v;

	/* As the text decoder: missing, untrusted sizes in hex. */
	if (off > len || (w && off + w > len)) {
		cli_json_null(j);
		return;
	}
	if (w && fi->size && fi->size != w) {
		n = fi->size < len - off ? fi->size : len - off;
		cli_json_hex(j, data + off, n);
		return;
	}
	if (fi->type == KETW_FIELD_GUID) {
		cli_json_string_or_null(j, ketw_guid_format(data + off, guid));
		return;
	}
	if (w) {
		v = ketw_field_int(fi, data + off, swapped);
		switch (fi->type) {
		case KETW_FIELD_S8: case KETW_FIELD_S16:
		case KETW_FIELD_S32: case KETW_FIELD_S64:
			cli_json_s64(j, (int64_t)v);
			return;
		case KETW_FIELD_HEX32: case KETW_FIELD_HEX64:
			cli_json_stringf(j, "0x%llx", (unsigned long long)v);
			return;
		default:
			cli_json_u64(j, v);
			return;
		}
	}
	n = len - off;
	if (fi->size && fi->size < n)
		n = fi->size;
	if (fi->type == KETW_FIELD_STRING)
		cli_json_string(j, (const char *)data + off, n);
	else
		cli_json_hex(j, data + off, n);	/* binary, odd sizes, unknown */
}

void cli_report_json_fields(struct cli_json *j,
			    const struct ketw_event_info *ev,
			    const struct ketw_record *rec, bool swapped)
{
	char fname[KETW_FIELD_NAME_MAX + 1];
	unsigned int i, nr;

	nr = ev->nr_fields < KETW_MAX_FIELDS ? ev->nr_fields : KETW_MAX_FIELDS;
	for (i = 0; i < nr; i++) {
		const struct ketw_field_info *fi = &ev->fields[i];

		memcpy(fname, fi->name, sizeof(fi->name));
		fname[sizeof(fi->name)] = '\0';
		cli_json_key(j, fname);
		json_field(j, fi, rec->data, rec->data_len, swapped);
	}
}

/* A TRIGGER record's payload (byte order already the host's). */
static void json_trigger(struct cli_json *j, const struct ketw_record *rec,
			 const struct ketw_registry *reg)
{
	struct ketw_sys_trigger t;
	char guid[KETW_GUID_STR_LEN];
	const char *pname;

	if (rec->data_len < sizeof(t))
		return;
	memcpy(&t, rec->data, sizeof(t));
	cli_json_key(j, "trigger");
	cli_json_object(j, false);
	cli_json_key(j, "id");
	cli_json_u64(j, t.trigger_id);
	cli_json_key(j, "guid");
	cli_json_string_or_null(j, ketw_guid_format(t.provider_guid, guid));
	pname = ketw_registry_provider_name(reg, t.provider_guid);
	if (pname) {
		cli_json_key(j, "provider");
		cli_json_string(j, pname, KETW_NAME_MAX);
	}
	cli_json_key(j, "event_id");
	cli_json_u64(j, t.event_id);
	cli_json_key(j, "cpu");
	cli_json_u64(j, t.cpu);
	cli_json_key(j, "seq");
	cli_json_u64(j, t.sequence);
	cli_json_key(j, "fired");
	cli_json_u64(j, t.fired);
	cli_json_key(j, "suppressed");
	cli_json_u64(j, t.suppressed);
	cli_json_key(j, "action");
	cli_json_string_or_null(j, ketw_trigger_action_name(t.action));
	cli_json_end(j);
}

void cli_report_json_record(const struct ketw_record *rec,
			    const struct ketw_registry *reg, bool swapped,
			    bool payload, struct cli_syms *syms,
			    const char *host)
{
	const struct ketw_event_header *h = rec->hdr;
	bool sys = h->flags & KETW_RECORD_SYSTEM;
	const struct ketw_event_info *ev = NULL;
	char guid[KETW_GUID_STR_LEN];
	const char *pname, *lname;
	struct cli_json j;

	if (!sys)
		ev = ketw_registry_record_event(reg, h);
	pname = ketw_registry_record_provider(reg, h);
	if (!pname && sys && ketw_guid_is_zero(h->provider_guid))
		pname = KETW_SYSTEM_PROVIDER_NAME;
	cli_json_init(&j, stdout, false);
	cli_json_object(&j, false);
	if (host) {
		cli_json_key(&j, "host");
		cli_json_string(&j, host, KETW_FILE_HOST_LEN);
	}
	cli_json_key(&j, "cpu");
	cli_json_u64(&j, rec->cpu);
	cli_json_key(&j, "ts");
	cli_json_stringf(&j, "%llu.%09llu",
			 (unsigned long long)(h->timestamp / 1000000000ull),
			 (unsigned long long)(h->timestamp % 1000000000ull));
	cli_json_key(&j, "timestamp");
	cli_json_u64(&j, h->timestamp);
	cli_json_key(&j, "pid");
	cli_json_u64(&j, h->process_id);
	cli_json_key(&j, "tid");
	cli_json_u64(&j, h->thread_id);
	cli_json_key(&j, "seq");
	cli_json_u64(&j, h->sequence);
	cli_json_key(&j, "guid");
	cli_json_string_or_null(&j, ketw_guid_format(h->provider_guid, guid));
	if (pname) {
		cli_json_key(&j, "provider");
		cli_json_string(&j, pname, KETW_NAME_MAX);
	}
	cli_json_key(&j, "type");
	cli_json_u64(&j, h->type);
	cli_json_key(&j, "level");
	cli_json_u64(&j, h->level);
	lname = ketw_level_name(h->level);
	if (lname && h->level) {
		cli_json_key(&j, "level_name");
		cli_json_string_or_null(&j, lname);
	}
	cli_json_key(&j, "version");
	cli_json_u64(&j, h->version);
	cli_json_key(&j, "id");
	cli_json_u64(&j, h->event_id);
	if (sys && ketw_sys_event_name(h->event_id)) {
		cli_json_key(&j, "event");
		cli_json_string_or_null(&j, ketw_sys_event_name(h->event_id));
	} else if (ev) {
		cli_json_key(&j, "event");
		cli_json_string(&j, ev->name, sizeof(ev->name));
	}
	cli_json_key(&j, "keyword");
	cli_json_u64(&j, h->keyword);
	cli_json_key(&j, "flags");
	cli_json_u64(&j, h->flags);
	cli_json_key(&j, "system");
	cli_json_bool(&j, sys);
	cli_json_key(&j, "truncated");
	cli_json_bool(&j, h->flags & KETW_RECORD_TRUNCATED);
	if (rec->context) {
		cli_json_key(&j, "context");
		cli_json_string_or_null(&j,
			ketw_context_name(KETW_RECORD_CTX(h->flags)));
		cli_json_key(&j, "irqs_off");
		cli_json_bool(&j, h->flags & KETW_RECORD_IRQS_OFF);
		cli_json_key(&j, "need_resched");
		cli_json_bool(&j, h->flags & KETW_RECORD_NEED_RESCHED);
		cli_json_key(&j, "preempt");
		cli_json_u64(&j, KETW_RECORD_PREEMPT_DEPTH(h->flags));
	}
	cli_report_items_json(&j, rec, syms);
	cli_json_key(&j, "len");
	cli_json_u64(&j, rec->data_len);
	if (ev && payload) {
		cli_json_key(&j, "fields");
		cli_json_object(&j, false);
		cli_report_json_fields(&j, ev, rec, swapped);
		cli_json_end(&j);
	} else if (payload) {
		cli_json_key(&j, "payload");
		cli_json_hex(&j, rec->data, rec->data_len);
	}
	if (sys && h->event_id == KETW_SYS_TRIGGER)
		json_trigger(&j, rec, reg);
	cli_json_end(&j);
}
