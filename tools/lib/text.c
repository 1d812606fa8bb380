// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: records as text: a record's line, its flags, system events'
 * payloads, hex dumps.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

char *ketw_flags_format(unsigned int flags, char *buf, size_t len)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ KETW_RECORD_SYSTEM,	 "SYSTEM" },
		{ KETW_RECORD_TRUNCATED, "TRUNCATED" },
		{ KETW_RECORD_PADDING,	 "PADDING" },
		{ KETW_RECORD_USER,	 "USER" },
		{ KETW_RECORD_EXT,	 "EXT" },
	};
	size_t i, n = 0;
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
	flags &= ~(unsigned int)KETW_RECORD_CONTEXT_BITS;
	if (!flags) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(flags & names[i].bit))
			continue;
		flags &= ~names[i].bit;
		w = snprintf(buf + n, len - n, "%s%s", n ? "|" : "",
			     names[i].name);
		if (w < 0 || (size_t)w >= len - n)
			return buf;
		n += w;
	}
	if (flags)
		snprintf(buf + n, len - n, "%s0x%x", n ? "|" : "", flags);
	return buf;
}

char *ketw_context_format(unsigned int flags, char *buf, size_t len)
{
	unsigned int depth = KETW_RECORD_PREEMPT_DEPTH(flags);

	if (len < KETW_CONTEXT_STR_LEN) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	buf[0] = flags & KETW_RECORD_IRQS_OFF ? 'd' : '.';
	buf[1] = flags & KETW_RECORD_NEED_RESCHED ? 'N' : '.';
	buf[2] = ".shz"[KETW_RECORD_CTX(flags)];
	buf[3] = depth ? "0123456789abcdef"[depth] : '.';
	buf[4] = '\0';
	return buf;
}

/* A name, or the number in @tmp. */
static const char *ketw_name_or_num(const char *name, unsigned int v,
				    char *tmp, size_t len)
{
	if (name)
		return name;
	snprintf(tmp, len, "%u", v);
	return tmp;
}

int ketw_record_format_as(const struct ketw_record *rec, const char *provider,
			  const char *event, char *buf, size_t len)
{
	const struct ketw_event_header *h = rec->hdr;
	char guid[KETW_GUID_STR_LEN], flags[64];
	char type[12], level[12], id[12], ctx[16] = "";
	char lat[KETW_CONTEXT_STR_LEN];
	const char *idname = NULL;
	unsigned int f;
	int n;

	if (h->flags & KETW_RECORD_SYSTEM)
		idname = ketw_sys_event_name(h->event_id);
	if (rec->context)
		snprintf(ctx, sizeof(ctx), " ctx=%s",
			 ketw_context_format(h->flags, lat, sizeof(lat)));
	n = snprintf(buf, len,
		     "cpu=%u%s ts=%llu.%09llu pid=%u tid=%u seq=%llu %s=%s type=%s level=%s ver=%u id=%s%s%s kw=0x%llx len=%zu",
		     rec->cpu, ctx,
		     (unsigned long long)(h->timestamp / 1000000000ull),
		     (unsigned long long)(h->timestamp % 1000000000ull),
		     h->process_id, h->thread_id,
		     (unsigned long long)h->sequence,
		     provider ? "provider" : "guid",
		     provider ? provider : ketw_guid_format(h->provider_guid, guid),
		     ketw_name_or_num(ketw_type_name(h->type), h->type,
				      type, sizeof(type)),
		     ketw_name_or_num(ketw_level_name(h->level), h->level,
				      level, sizeof(level)),
		     h->version,
		     ketw_name_or_num(idname, h->event_id, id, sizeof(id)),
		     event ? " event=" : "", event ? event : "",
		     (unsigned long long)h->keyword, rec->data_len);
	f = h->flags & ~(unsigned int)KETW_RECORD_CONTEXT_BITS;
	if (n < 0 || !f)
		return n;
	ketw_flags_format(f, flags, sizeof(flags));
	return n + snprintf(len > (size_t)n ? buf + n : NULL,
			    len > (size_t)n ? len - n : 0, " flags=%s", flags);
}

int ketw_record_format(const struct ketw_record *rec, char *buf, size_t len)
{
	return ketw_record_format_as(rec, NULL, NULL, buf, len);
}

static void ketw_filter_format(struct ketw_fmt *f, const struct ketw_filter *x)
{
	if (!x->enabled) {
		ketw_fmt(f, "off");
		return;
	}
	ketw_fmt(f, "level=%u match_any=0x%llx match_all=0x%llx filtered=%u",
		 x->level, (unsigned long long)x->match_any,
		 (unsigned long long)x->match_all,
		 ketw_eventset_count(&x->filtered));
}

/*
 * A process filter's FILTER (version KETW_SYS_FILTER_PIDS):
 * "pids: all -> 101 102 inherit", "pids: 2 inherit -> all"; the ids of
 * the initial pid namespace, "+N" for those the record leaves out.
 */
static int ketw_sys_filter_pids_format(const struct ketw_record *rec,
				       char *buf, size_t len)
{
	struct ketw_fmt f = { buf, len, 0 };
	struct ketw_sys_filter_pids p;
	uint32_t i, id, nr;

	if (len)
		buf[0] = '\0';
	if (rec->data_len < sizeof(p))
		return 0;
	memcpy(&p, rec->data, sizeof(p));
	nr = p.nr;
	if ((rec->data_len - sizeof(p)) / 4 < nr)
		nr = (rec->data_len - sizeof(p)) / 4;
	ketw_fmt(&f, "pids: ");
	if (p.old_flags & KETW_PIDS_ACTIVE)
		ketw_fmt(&f, "%u%s", p.old_count,
			 p.old_flags & KETW_PIDS_INHERIT ? " inherit" : "");
	else
		ketw_fmt(&f, "all");
	ketw_fmt(&f, " ->");
	if (!(p.new_flags & KETW_PIDS_ACTIVE))
		ketw_fmt(&f, " all");
	for (i = 0; p.new_flags & KETW_PIDS_ACTIVE && i < nr; i++) {
		memcpy(&id, (const unsigned char *)rec->data + sizeof(p) + 4 * i,
		       4);
		ketw_fmt(&f, " %u", id);
	}
	if ((p.new_flags & KETW_PIDS_ACTIVE) && p.new_count > nr)
		ketw_fmt(&f, " +%u", p.new_count - nr);
	if ((p.new_flags & KETW_PIDS_ACTIVE) && !p.new_count)
		ketw_fmt(&f, " none");
	if (p.new_flags & KETW_PIDS_INHERIT)
		ketw_fmt(&f, " inherit");
	return f.n;
}

static int ketw_sys_rundown_format(const struct ketw_record *rec,
				   const struct ketw_registry *reg, char *buf,
				   size_t len)
{
	const char *pname;
	const struct ketw_event_header *h = rec->hdr;
	struct ketw_fmt f = { buf, len, 0 };
	char guid[KETW_GUID_STR_LEN], name[KETW_NAME_MAX + 1];
	struct ketw_sys_filter flt;
	struct ketw_sys_provider prov;
	struct ketw_event_info ev;
	struct ketw_sys_task task;
	struct ketw_sys_module mod;
	char mname[KETW_MODULE_NAME_MAX + 1];
	unsigned int i;

	if (len)
		buf[0] = '\0';
	switch (h->event_id) {
	case KETW_SYS_FILTER:
		if (h->version == KETW_SYS_FILTER_PIDS)
			return ketw_sys_filter_pids_format(rec, buf, len);
		if (rec->data_len < sizeof(flt))
			return 0;
		memcpy(&flt, rec->data, sizeof(flt));
		pname = reg ? ketw_registry_provider_name(reg, flt.provider_guid) :
			      NULL;
		ketw_fmt(&f, "provider %s: ", pname ? pname :
			 ketw_guid_format(flt.provider_guid, guid));
		ketw_filter_format(&f, &flt.old_filter);
		ketw_fmt(&f, " -> ");
		ketw_filter_format(&f, &flt.new_filter);
		break;
	case KETW_SYS_PROVIDER:
		if (rec->data_len < sizeof(prov))
			return 0;
		memcpy(&prov, rec->data, sizeof(prov));
		ketw_fmt(&f, "provider %s %s, %u events%s",
			 ketw_fixed(prov.name, sizeof(prov.name), name),
			 ketw_guid_format(prov.provider_guid, guid),
			 prov.nr_events,
			 prov.flags & KETW_PROVIDER_USER ? ", user space" : "");
		break;
	case KETW_SYS_EVENT_DESC:
		if (rec->data_len < sizeof(ev))
			return 0;
		memcpy(&ev, rec->data, sizeof(ev));
		ketw_fmt(&f, "event %u %s of %s: type=%u level=%u ver=%u kw=0x%llx",
			 ev.id, ketw_fixed(ev.name, sizeof(ev.name), name),
			 ketw_guid_format(ev.provider_guid, guid), ev.type,
			 ev.level, ev.version, (unsigned long long)ev.keyword);
		for (i = 0; i < ev.nr_fields && i < KETW_MAX_FIELDS; i++) {
			const struct ketw_field_info *fi = &ev.fields[i];
			const char *t = ketw_field_type_name(fi->type);

			ketw_fmt(&f, "%s%s:", i ? " " : " fields ",
				 ketw_fixed(fi->name, sizeof(fi->name), name));
			if (t)
				ketw_fmt(&f, "%s", t);
			else
				ketw_fmt(&f, "type%u", fi->type);
			ketw_fmt(&f, "@%u", fi->offset);
			if (fi->size)
				ketw_fmt(&f, "/%u", fi->size);
		}
		break;
	case KETW_SYS_TASK:
		if (rec->data_len < sizeof(task))
			return 0;
		memcpy(&task, rec->data, sizeof(task));
		ketw_fmt(&f, "task pid=%u tid=%u comm=%s", task.process_id,
			 task.thread_id,
			 ketw_fixed(task.comm, sizeof(task.comm), name));
		break;
	case KETW_SYS_MODULE:
		if (rec->data_len < sizeof(mod))
			return 0;
		memcpy(&mod, rec->data, sizeof(mod));
		ketw_fmt(&f, "module %s base=0x%llx size=0x%llx",
			 ketw_fixed(mod.name, sizeof(mod.name), mname),
			 (unsigned long long)mod.base,
			 (unsigned long long)mod.size);
		break;
	default:
		return 0;
	}
	return f.n;
}

int ketw_sys_payload_format(const struct ketw_record *rec, char *buf,
			    size_t len)
{
	return ketw_sys_payload_format_named(rec, NULL, buf, len);
}

int ketw_sys_payload_format_named(const struct ketw_record *rec,
				  const struct ketw_registry *reg, char *buf,
				  size_t len)
{
	const struct ketw_event_header *h = rec->hdr;
	struct ketw_sys_start start;
	struct ketw_sys_stop stop;
	struct ketw_sys_overflow ovf;
	struct ketw_sys_resume res;
	struct ketw_sys_error error;
	struct ketw_sys_trigger trig;
	char gbuf[KETW_GUID_STR_LEN];
	const char *pname;

	if (!(h->flags & KETW_RECORD_SYSTEM))
		return 0;
	switch (h->event_id) {
	case KETW_SYS_START:
		if (rec->data_len < sizeof(start))
			return 0;
		memcpy(&start, rec->data, sizeof(start));
		return snprintf(buf, len,
				"filter: level=%u match_any=0x%llx match_all=0x%llx",
				start.level,
				(unsigned long long)start.match_any,
				(unsigned long long)start.match_all);
	case KETW_SYS_STOP:
		if (rec->data_len < sizeof(stop))
			return 0;
		memcpy(&stop, rec->data, sizeof(stop));
		return snprintf(buf, len, "%s",
				stop.auto_stop == KETW_STOP_EXPLICIT ?
				"explicit stop" :
				stop.auto_stop == KETW_STOP_TRIGGER ?
				"stopped by a trigger" :
				"stopped by the full policy");
	case KETW_SYS_TRIGGER:
		if (rec->data_len < sizeof(trig))
			return 0;
		memcpy(&trig, rec->data, sizeof(trig));
		pname = reg ? ketw_registry_provider_name(reg,
							  trig.provider_guid) :
			      NULL;
		return snprintf(buf, len,
				"trigger %u fired (%u times, %u suppressed before) by %s event %u, cpu %u seq %llu: %s",
				trig.trigger_id, trig.fired, trig.suppressed,
				pname ? pname :
				ketw_guid_format(trig.provider_guid, gbuf),
				trig.event_id, trig.cpu,
				(unsigned long long)trig.sequence,
				ketw_trigger_action_name(trig.action) ?
				ketw_trigger_action_name(trig.action) : "?");
	case KETW_SYS_OVERFLOW:
		if (rec->data_len < sizeof(ovf))
			return 0;
		memcpy(&ovf, rec->data, sizeof(ovf));
		return snprintf(buf, len, "first lost event at ts=%llu.%09llu",
				(unsigned long long)(ovf.first_lost_timestamp /
						     1000000000ull),
				(unsigned long long)(ovf.first_lost_timestamp %
						     1000000000ull));
	case KETW_SYS_RESUME:
		if (rec->data_len < sizeof(res))
			return 0;
		memcpy(&res, rec->data, sizeof(res));
		return snprintf(buf, len, "%llu events lost on this cpu",
				(unsigned long long)res.lost);
	case KETW_SYS_ERROR:
		if (rec->data_len < sizeof(error))
			return 0;
		memcpy(&error, rec->data, sizeof(error));
		if (error.error >= 0 || !ketw_errno_name(error.error))
			return snprintf(buf, len, "error %d (%s)", error.error,
					error.error < 0 ? "unknown errno" :
							  "not an errno");
		return snprintf(buf, len, "error %d %s (%s)", error.error,
				ketw_errno_name(error.error),
				strerror(-error.error));
	default:
		return ketw_sys_rundown_format(rec, reg, buf, len);
	}
}

int ketw_hexdump(FILE *f, const char *indent, const void *data, size_t len)
{
	const unsigned char *p = data;
	char line[96];
	size_t off, i, n;

	for (off = 0; off < len; off += 16) {
		n = 0;
		n += sprintf(line + n, "%04zx ", off);
		for (i = 0; i < 16; i++) {
			if (i == 8)
				line[n++] = ' ';
			if (off + i < len)
				n += sprintf(line + n, " %02x", p[off + i]);
			else
				n += sprintf(line + n, "   ");
		}
		n += sprintf(line + n, "  |");
		for (i = 0; i < 16 && off + i < len; i++) {
			unsigned char c = p[off + i];

			line[n++] = c >= 0x20 && c < 0x7f ? c : '.';
		}
		line[n++] = '|';
		line[n] = '\0';
		if (fprintf(f, "%s%s\n", indent ? indent : "", line) < 0)
			return -EIO;
	}
	return 0;
}
