// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: provider events decoded with the registry (registry.c):
 * payloads field by field instead of in hex, and record lines with the
 * provider's and the event's names.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

unsigned int ketw_field_width(unsigned int type)
{
	switch (type) {
	case KETW_FIELD_U8:
	case KETW_FIELD_S8:
		return 1;
	case KETW_FIELD_U16:
	case KETW_FIELD_S16:
		return 2;
	case KETW_FIELD_U32:
	case KETW_FIELD_S32:
	case KETW_FIELD_HEX32:
		return 4;
	case KETW_FIELD_U64:
	case KETW_FIELD_S64:
	case KETW_FIELD_HEX64:
		return 8;
	case KETW_FIELD_GUID:
		return KETW_GUID_SIZE;
	default:
		return 0;	/* STRING, BINARY: their size or the rest */
	}
}

/* An integer of @w bytes at @p, in the payload's byte order. */
static uint64_t ketw_field_uint(const unsigned char *p, unsigned int w,
				bool swapped)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (w) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return swapped ? bswap_16(u16) : u16;
	case 4:
		memcpy(&u32, p, 4);
		return swapped ? bswap_32(u32) : u32;
	default:
		memcpy(&u64, p, 8);
		return swapped ? bswap_64(u64) : u64;
	}
}

uint64_t ketw_field_int(const struct ketw_field_info *fi, const void *p,
			bool swapped)
{
	unsigned int w = ketw_field_width(fi->type), shift = 64 - 8 * w;
	uint64_t v = ketw_field_uint(p, w, swapped);

	switch (fi->type) {
	case KETW_FIELD_S8:
	case KETW_FIELD_S16:
	case KETW_FIELD_S32:
	case KETW_FIELD_S64:
		return (uint64_t)((int64_t)(v << shift) >> shift);
	default:
		return v;
	}
}

/* Binary bytes: "{00 01 02}", at most KETW_PAYLOAD_BINARY_MAX shown. */
static void ketw_fmt_binary(struct ketw_fmt *f, const unsigned char *p,
			    size_t n, bool cut)
{
	size_t i, shown = n < KETW_PAYLOAD_BINARY_MAX ? n :
			  KETW_PAYLOAD_BINARY_MAX;

	ketw_fmt(f, "{");
	for (i = 0; i < shown; i++)
		ketw_fmt(f, "%s%02x", i ? " " : "", p[i]);
	if (shown < n)
		ketw_fmt(f, " ...+%zu", n - shown);
	if (cut)
		ketw_fmt(f, "%s<cut>", n ? " " : "");
	ketw_fmt(f, "}");
}

/* A string, quoted, with C escapes for what is not printable ASCII. */
static void ketw_fmt_string(struct ketw_fmt *f, const unsigned char *p,
			    size_t n)
{
	size_t i;

	ketw_fmt(f, "\"");
	for (i = 0; i < n && p[i]; i++) {
		unsigned char c = p[i];

		switch (c) {
		case '"':
			ketw_fmt(f, "\\\"");
			break;
		case '\\':
			ketw_fmt(f, "\\\\");
			break;
		case '\n':
			ketw_fmt(f, "\\n");
			break;
		case '\t':
			ketw_fmt(f, "\\t");
			break;
		case '\r':
			ketw_fmt(f, "\\r");
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				ketw_fmt(f, "%c", c);
			else
				ketw_fmt(f, "\\x%02x", c);
		}
	}
	ketw_fmt(f, "\"");
}

static void ketw_fmt_field(struct ketw_fmt *f, const struct ketw_field_info *fi,
			   const unsigned char *data, size_t len, bool swapped)
{
	unsigned int w = ketw_field_width(fi->type);
	size_t off = fi->offset, n;
	char guid[KETW_GUID_STR_LEN];

	if (off > len || (w && off + w > len)) {
		ketw_fmt(f, "<missing>");
		return;
	}
	if (w && fi->size && fi->size != w) {
		/* A layout this reader cannot trust: show the bytes. */
		n = fi->size;
		ketw_fmt_binary(f, data + off, n < len - off ? n : len - off,
				n > len - off);
		return;
	}
	switch (fi->type) {
	case KETW_FIELD_U8:
	case KETW_FIELD_U16:
	case KETW_FIELD_U32:
	case KETW_FIELD_U64:
		ketw_fmt(f, "%llu", (unsigned long long)
			 ketw_field_int(fi, data + off, swapped));
		break;
	case KETW_FIELD_S8:
	case KETW_FIELD_S16:
	case KETW_FIELD_S32:
	case KETW_FIELD_S64:
		ketw_fmt(f, "%lld", (long long)
			 ketw_field_int(fi, data + off, swapped));
		break;
	case KETW_FIELD_HEX32:
	case KETW_FIELD_HEX64:
		ketw_fmt(f, "0x%llx", (unsigned long long)
			 ketw_field_int(fi, data + off, swapped));
		break;
	case KETW_FIELD_GUID:
		ketw_fmt(f, "%s", ketw_guid_format(data + off, guid));
		break;
	case KETW_FIELD_STRING:
		n = len - off;
		if (fi->size && fi->size < n)
			n = fi->size;
		ketw_fmt_string(f, data + off, n);
		break;
	case KETW_FIELD_BINARY:
	default:
		/* Unknown types too: their size, or the rest. */
		if (fi->type != KETW_FIELD_BINARY)
			ketw_fmt(f, "(type %u)", fi->type);
		n = fi->size ? fi->size : len - off;
		ketw_fmt_binary(f, data + off, n < len - off ? n : len - off,
				n > len - off);
		break;
	}
}

int ketw_payload_format(const struct ketw_event_info *ev, const void *data,
			size_t len, bool swapped, char *buf, size_t buflen)
{
	struct ketw_fmt f = { buf, buflen, 0 };
	char name[KETW_FIELD_NAME_MAX + 1];
	unsigned int i, nr = ev->nr_fields;

	if (buflen)
		buf[0] = '\0';
	if (nr > KETW_MAX_FIELDS)
		nr = KETW_MAX_FIELDS;
	for (i = 0; i < nr; i++) {
		const struct ketw_field_info *fi = &ev->fields[i];

		ketw_fmt(&f, "%s%s=", i ? " " : "",
			 ketw_fixed(fi->name, sizeof(fi->name), name));
		ketw_fmt_field(&f, fi, data, len, swapped);
	}
	return f.n;
}

static int ketw_rundown_line(const struct ketw_record *rec,
			     const struct ketw_registry *reg, char *buf,
			     size_t len)
{
	const struct ketw_event_header *h = rec->hdr;
	struct ketw_fmt f = { buf, len, 0 };
	char guid[KETW_GUID_STR_LEN], name[KETW_NAME_MAX + 1];
	char flags[64];
	struct ketw_event_header eh = { 0 };
	struct ketw_sys_provider p;
	struct ketw_event_info ev;
	struct ketw_sys_task task;
	struct ketw_sys_module mod;
	char mname[KETW_MODULE_NAME_MAX + 1];
	const char *pname;

	ketw_fmt(&f, "cpu=%u ts=%llu.%09llu seq=%llu %s", rec->cpu,
		 (unsigned long long)(h->timestamp / 1000000000ull),
		 (unsigned long long)(h->timestamp % 1000000000ull),
		 (unsigned long long)h->sequence,
		 ketw_sys_event_name(h->event_id));
	switch (h->event_id) {
	case KETW_SYS_PROVIDER:
		if (rec->data_len < sizeof(p))
			break;
		memcpy(&p, rec->data, sizeof(p));
		ketw_fmt(&f, " %s %s events=%u",
			 ketw_fixed(p.name, sizeof(p.name), name),
			 ketw_guid_format(p.provider_guid, guid), p.nr_events);
		if (p.flags & KETW_PROVIDER_USER)
			ketw_fmt(&f, " USER");
		if (p.flags & ~KETW_PROVIDER_USER)
			ketw_fmt(&f, " flags=0x%x", p.flags);
		return f.n;
	case KETW_SYS_EVENT_DESC:
		if (rec->data_len < sizeof(ev))
			break;
		memcpy(&ev, rec->data, sizeof(ev));
		/* The provider of the descriptor's own namespace first. */
		eh.flags = ev.flags & KETW_PROVIDER_USER ? KETW_RECORD_USER : 0;
		memcpy(eh.provider_guid, ev.provider_guid, KETW_GUID_SIZE);
		pname = ketw_registry_record_provider(reg, &eh);
		if (!pname)
			pname = ketw_registry_provider_name(reg, ev.provider_guid);
		ketw_fmt(&f, " %s id=%u %s ver=%u fields=%u",
			 pname ? pname : ketw_guid_format(ev.provider_guid, guid),
			 ev.id, ketw_fixed(ev.name, sizeof(ev.name), name),
			 ev.version, ev.nr_fields);
		return f.n;
	case KETW_SYS_TASK:
		if (rec->data_len < sizeof(task))
			break;
		memcpy(&task, rec->data, sizeof(task));
		ketw_fmt(&f, " pid=%u tid=%u comm=%s", task.process_id,
			 task.thread_id,
			 ketw_fixed(task.comm, sizeof(task.comm), name));
		return f.n;
	case KETW_SYS_MODULE:
		if (rec->data_len < sizeof(mod))
			break;
		memcpy(&mod, rec->data, sizeof(mod));
		ketw_fmt(&f, " module=%s base=0x%llx size=0x%llx",
			 ketw_fixed(mod.name, sizeof(mod.name), mname),
			 (unsigned long long)mod.base,
			 (unsigned long long)mod.size);
		return f.n;
	}
	/* Too short to decode: say so. */
	ketw_fmt(&f, " len=%zu (too short)", rec->data_len);
	if (h->flags & ~KETW_RECORD_SYSTEM)
		ketw_fmt(&f, " flags=%s",
			 ketw_flags_format(h->flags, flags, sizeof(flags)));
	return f.n;
}

int ketw_record_format_named(const struct ketw_record *rec,
			     const struct ketw_registry *reg, char *buf,
			     size_t len)
{
	const struct ketw_event_header *h = rec->hdr;
	const struct ketw_event_info *ev = NULL;
	const char *pname;

	if (ketw_record_is_rundown(rec))
		return ketw_rundown_line(rec, reg, buf, len);
	if (!(h->flags & KETW_RECORD_SYSTEM))
		ev = ketw_registry_record_event(reg, h);
	pname = ketw_registry_record_provider(reg, h);
	if (!pname && (h->flags & KETW_RECORD_SYSTEM) &&
	    ketw_guid_is_zero(h->provider_guid))
		pname = KETW_SYSTEM_PROVIDER_NAME;
	return ketw_record_format_as(rec, pname, ev ? ev->name : NULL, buf,
				     len);
}

int ketw_record_payload_format(const struct ketw_record *rec,
			       const struct ketw_registry *reg, bool swapped,
			       char *buf, size_t len)
{
	const struct ketw_event_header *h = rec->hdr;
	const struct ketw_event_info *ev;

	if (h->flags & KETW_RECORD_SYSTEM)
		return -ENOENT;
	ev = ketw_registry_record_event(reg, h);
	if (!ev)
		return -ENOENT;
	return ketw_payload_format(ev, rec->data, rec->data_len, swapped,
				   buf, len);
}
