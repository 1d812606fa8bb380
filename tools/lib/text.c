// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: records and attributes as text; parsing of arguments.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const ketw_type_names[] = {
	[KETW_TYPE_INFO]	= "INFO",
	[KETW_TYPE_START]	= "START",
	[KETW_TYPE_END]		= "END",
	[KETW_TYPE_DC_START]	= "DC_START",
	[KETW_TYPE_DC_END]	= "DC_END",
	[KETW_TYPE_EXTENSION]	= "EXTENSION",
	[KETW_TYPE_REPLY]	= "REPLY",
	[KETW_TYPE_DEQUEUE]	= "DEQUEUE",
	[KETW_TYPE_CHECKPOINT]	= "CHECKPOINT",
};

static const char *const ketw_level_names[] = {
	[KETW_LEVEL_CRITICAL]	= "CRITICAL",
	[KETW_LEVEL_ERROR]	= "ERROR",
	[KETW_LEVEL_WARNING]	= "WARNING",
	[KETW_LEVEL_INFO]	= "INFO",
	[KETW_LEVEL_VERBOSE]	= "VERBOSE",
};

static const char *const ketw_sys_names[] = {
	[KETW_SYS_START]	= "START",
	[KETW_SYS_STOP]		= "STOP",
	[KETW_SYS_FILTER]	= "FILTER",
	[KETW_SYS_OVERFLOW]	= "OVERFLOW",
	[KETW_SYS_RESUME]	= "RESUME",
	[KETW_SYS_FLUSH_START]	= "FLUSH_START",
	[KETW_SYS_FLUSH_STOP]	= "FLUSH_STOP",
	[KETW_SYS_ERROR]	= "ERROR",
	[KETW_SYS_PROVIDER]	= "PROVIDER",
	[KETW_SYS_EVENT_DESC]	= "EVENT_DESC",
	[KETW_SYS_TASK]		= "TASK",
};

static const char *const ketw_field_names[] = {
	[KETW_FIELD_U8]		= "u8",
	[KETW_FIELD_U16]	= "u16",
	[KETW_FIELD_U32]	= "u32",
	[KETW_FIELD_U64]	= "u64",
	[KETW_FIELD_S8]		= "s8",
	[KETW_FIELD_S16]	= "s16",
	[KETW_FIELD_S32]	= "s32",
	[KETW_FIELD_S64]	= "s64",
	[KETW_FIELD_HEX32]	= "hex32",
	[KETW_FIELD_HEX64]	= "hex64",
	[KETW_FIELD_STRING]	= "string",
	[KETW_FIELD_BINARY]	= "binary",
	[KETW_FIELD_GUID]	= "guid",
};

static const char *const ketw_policy_names[] = {
	[KETW_POLICY_LOOP]	 = "loop",
	[KETW_POLICY_UNTIL_FULL] = "until-full",
	[KETW_POLICY_FLUSH]	 = "flush",
};

static const char *const ketw_clock_names[] = {
	[KETW_CLOCK_MONO]	= "mono",
	[KETW_CLOCK_BOOT]	= "boot",
	[KETW_CLOCK_LOCAL]	= "local",
};

static const char *const ketw_state_names[] = {
	[KETW_STATE_CREATED]	= "created",
	[KETW_STATE_RUNNING]	= "running",
	[KETW_STATE_SUSPENDED]	= "suspended",
};

static const char *ketw_name_of(const char *const *names, size_t n,
				unsigned int v)
{
	return v < n ? names[v] : NULL;
}

const char *ketw_type_name(unsigned int type)
{
	return ketw_name_of(ketw_type_names, ARRAY_SIZE(ketw_type_names), type);
}

const char *ketw_level_name(unsigned int level)
{
	return ketw_name_of(ketw_level_names, ARRAY_SIZE(ketw_level_names),
			    level);
}

const char *ketw_sys_event_name(unsigned int id)
{
	return ketw_name_of(ketw_sys_names, ARRAY_SIZE(ketw_sys_names), id);
}

const char *ketw_field_type_name(unsigned int type)
{
	return ketw_name_of(ketw_field_names, ARRAY_SIZE(ketw_field_names),
			    type);
}

const char *ketw_policy_name(unsigned int policy)
{
	return ketw_name_of(ketw_policy_names, ARRAY_SIZE(ketw_policy_names),
			    policy);
}

const char *ketw_clock_name(unsigned int clock)
{
	return ketw_name_of(ketw_clock_names, ARRAY_SIZE(ketw_clock_names),
			    clock);
}

const char *ketw_state_name(unsigned int state)
{
	return ketw_name_of(ketw_state_names, ARRAY_SIZE(ketw_state_names),
			    state);
}

char *ketw_guid_format(const uint8_t g[KETW_GUID_SIZE],
		       char buf[KETW_GUID_STR_LEN])
{
	snprintf(buf, KETW_GUID_STR_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
		 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
	return buf;
}

const char *ketw_errno_name(int err)
{
#define E(x) [x] = #x
	static const char *const names[] = {
		E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO),
		E(E2BIG), E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN),
		E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
		E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL),
		E(ENFILE), E(EMFILE), E(ENOTTY), E(EFBIG), E(ENOSPC),
		E(ESPIPE), E(EROFS), E(EPIPE), E(EDOM), E(ERANGE),
		E(EDEADLK), E(ENAMETOOLONG), E(ENOSYS), E(ENODATA),
		E(ETIME), E(EPROTO), E(EBADMSG), E(EOVERFLOW),
		E(EMSGSIZE), E(EPROTONOSUPPORT), E(EOPNOTSUPP),
		E(ETIMEDOUT), E(EALREADY), E(EINPROGRESS), E(ECANCELED),
		E(ESHUTDOWN), E(ECONNRESET), E(ENOBUFS),
	};
#undef E
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;

	/* ERESTARTSYS and friends only leak out of the kernel by mistake. */
	switch (e) {
	case 512: return "ERESTARTSYS";
	case 513: return "ERESTARTNOINTR";
	case 514: return "ERESTARTNOHAND";
	case 516: return "ERESTART_RESTARTBLOCK";
	}
	return e < ARRAY_SIZE(names) ? names[e] : NULL;
}

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
	};
	size_t i, n = 0;
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
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
	char type[12], level[12], id[12];
	const char *idname = NULL;
	int n;

	if (h->flags & KETW_RECORD_SYSTEM)
		idname = ketw_sys_event_name(h->event_id);
	n = snprintf(buf, len,
		     "cpu=%u ts=%llu.%09llu pid=%u tid=%u seq=%llu %s=%s type=%s level=%s ver=%u id=%s%s%s kw=0x%llx len=%zu",
		     rec->cpu,
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
	if (n < 0 || !h->flags)
		return n;
	ketw_flags_format(h->flags, flags, sizeof(flags));
	return n + snprintf(len > (size_t)n ? buf + n : NULL,
			    len > (size_t)n ? len - n : 0, " flags=%s", flags);
}

int ketw_record_format(const struct ketw_record *rec, char *buf, size_t len)
{
	return ketw_record_format_as(rec, NULL, NULL, buf, len);
}

void ketw_fmt(struct ketw_fmt *f, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(f->n < f->len ? f->buf + f->n : NULL,
		      f->n < f->len ? f->len - f->n : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		f->n += w;
}

/* A fixed-size name field as a string: up to its size, NUL or not. */
const char *ketw_fixed(const char *s, size_t size, char *tmp)
{
	size_t n = strnlen(s, size);

	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return tmp;
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
	unsigned int i;

	if (len)
		buf[0] = '\0';
	switch (h->event_id) {
	case KETW_SYS_FILTER:
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
				stop.auto_stop ? "stopped by the full policy" :
						 "explicit stop");
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

/* ---- parsing ------------------------------------------------------- */

int ketw_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	const char *p = s;
	char *end;
	int base = 10;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;	/* also no sign, no blanks */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		p = s + 2;
		base = 16;
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(p, &end, base);
	if (end == p || *end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int ketw_parse_name(const char *s, const char *const *names,
			   size_t n, unsigned int *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcasecmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

int ketw_parse_level(const char *s, unsigned int *level)
{
	uint64_t v;
	int err;

	if (!strcasecmp(s, "all")) {
		*level = KETW_LEVEL_ALL;
		return 0;
	}
	if (!strcasecmp(s, "information")) {
		*level = KETW_LEVEL_INFO;
		return 0;
	}
	if (!ketw_parse_name(s, ketw_level_names, ARRAY_SIZE(ketw_level_names),
			     level))
		return 0;
	err = ketw_parse_u64(s, KETW_LEVEL_VERBOSE, &v);
	if (err)
		return err;
	*level = v;
	return 0;
}

int ketw_parse_policy(const char *s, unsigned int *policy)
{
	if (!strcasecmp(s, "until_full")) {
		*policy = KETW_POLICY_UNTIL_FULL;
		return 0;
	}
	return ketw_parse_name(s, ketw_policy_names,
			       ARRAY_SIZE(ketw_policy_names), policy);
}

int ketw_parse_clock(const char *s, unsigned int *clock)
{
	if (!strcasecmp(s, "monotonic")) {
		*clock = KETW_CLOCK_MONO;
		return 0;
	}
	if (!strcasecmp(s, "boottime")) {
		*clock = KETW_CLOCK_BOOT;
		return 0;
	}
	return ketw_parse_name(s, ketw_clock_names,
			       ARRAY_SIZE(ketw_clock_names), clock);
}
