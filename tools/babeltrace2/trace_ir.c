// SPDX-License-Identifier: GPL-2.0
/*
 * A .ketw file as babeltrace2 trace IR (Documentation/ketw-viewers.rst):
 *
 *   clock class    the file's clock (mono, boot, local), 1 GHz, its offset
 *                  from the header's clock reference: absolute times
 *   stream class   one; a stream per CPU, packets (context: cpu_id) and
 *                  discarded events, both with clock snapshots
 *   common context the record header: tid, pid, cpu, level, keyword,
 *                  type, version, provider_guid, flags, sequence, id
 *   event classes  one per system event (ketw:START, ketw:OVERFLOW, ...)
 *                  and one per provider event (PROVIDER:EVENT), payloads
 *                  typed by the rundown's descriptors, a byte array when
 *                  none is known; the extended data items a class's
 *                  records carry as members "ext_WORD" after the payload's
 *                  (babeltrace2 2.0's CTF reader cannot read back the
 *                  arrays they need from an event's specific context)
 *
 * The file is read through libketw's reader: once for the rundown, once
 * more for the event classes its records need; msg_iter.c then walks each
 * CPU's records.
 */
#include <byteswap.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketw_bt.h"

/* ---- the members of the system events' payloads ------------------------ */

#define M(n, k, type, f, hx) \
	{ n, k, offsetof(type, f), sizeof(((type *)0)->f), \
	  sizeof(((type *)0)->f), hx }

static const struct ktbt_member sys_start[] = {
	M("level", KTBT_UINT, struct ketw_sys_start, level, false),
	M("match_any", KTBT_UINT, struct ketw_sys_start, match_any, true),
	M("match_all", KTBT_UINT, struct ketw_sys_start, match_all, true),
};
static const struct ktbt_member sys_stop[] = {
	M("auto_stop", KTBT_UINT, struct ketw_sys_stop, auto_stop, false),
};
static const struct ktbt_member sys_filter[] = {
	M("provider_guid", KTBT_GUID, struct ketw_sys_filter, provider_guid,
	  false),
	M("old_enabled", KTBT_UINT, struct ketw_sys_filter, old_filter.enabled,
	  false),
	M("old_level", KTBT_UINT, struct ketw_sys_filter, old_filter.level,
	  false),
	M("old_match_any", KTBT_UINT, struct ketw_sys_filter,
	  old_filter.match_any, true),
	M("old_match_all", KTBT_UINT, struct ketw_sys_filter,
	  old_filter.match_all, true),
	M("new_enabled", KTBT_UINT, struct ketw_sys_filter, new_filter.enabled,
	  false),
	M("new_level", KTBT_UINT, struct ketw_sys_filter, new_filter.level,
	  false),
	M("new_match_any", KTBT_UINT, struct ketw_sys_filter,
	  new_filter.match_any, true),
	M("new_match_all", KTBT_UINT, struct ketw_sys_filter,
	  new_filter.match_all, true),
};
static const struct ktbt_member sys_overflow[] = {
	M("first_lost_timestamp", KTBT_UINT, struct ketw_sys_overflow,
	  first_lost_timestamp, false),
};
static const struct ktbt_member sys_resume[] = {
	M("lost", KTBT_UINT, struct ketw_sys_resume, lost, false),
};
static const struct ktbt_member sys_error[] = {
	M("error", KTBT_SINT, struct ketw_sys_error, error, false),
};
static const struct ktbt_member sys_trigger[] = {
	M("trigger_id", KTBT_UINT, struct ketw_sys_trigger, trigger_id, false),
	M("event_id", KTBT_UINT, struct ketw_sys_trigger, event_id, false),
	M("provider_guid", KTBT_GUID, struct ketw_sys_trigger, provider_guid,
	  false),
	M("sequence", KTBT_UINT, struct ketw_sys_trigger, sequence, false),
	M("cpu", KTBT_UINT, struct ketw_sys_trigger, cpu, false),
	M("fired", KTBT_UINT, struct ketw_sys_trigger, fired, false),
	M("suppressed", KTBT_UINT, struct ketw_sys_trigger, suppressed, false),
	M("action", KTBT_UINT, struct ketw_sys_trigger, action, false),
};
static const struct ktbt_member sys_provider[] = {
	M("provider_guid", KTBT_GUID, struct ketw_sys_provider, provider_guid,
	  false),
	M("name", KTBT_STRING, struct ketw_sys_provider, name, false),
	M("nr_events", KTBT_UINT, struct ketw_sys_provider, nr_events, false),
	M("flags", KTBT_UINT, struct ketw_sys_provider, flags, true),
};
static const struct ktbt_member sys_event_desc[] = {
	M("provider_guid", KTBT_GUID, struct ketw_event_info, provider_guid,
	  false),
	M("id", KTBT_UINT, struct ketw_event_info, id, false),
	M("type", KTBT_UINT, struct ketw_event_info, type, false),
	M("level", KTBT_UINT, struct ketw_event_info, level, false),
	M("version", KTBT_UINT, struct ketw_event_info, version, false),
	M("keyword", KTBT_UINT, struct ketw_event_info, keyword, true),
	M("name", KTBT_STRING, struct ketw_event_info, name, false),
	M("nr_fields", KTBT_UINT, struct ketw_event_info, nr_fields, false),
	M("flags", KTBT_UINT, struct ketw_event_info, flags, true),
};
static const struct ktbt_member sys_task[] = {
	M("pid", KTBT_UINT, struct ketw_sys_task, process_id, false),
	M("tid", KTBT_UINT, struct ketw_sys_task, thread_id, false),
	M("comm", KTBT_STRING, struct ketw_sys_task, comm, false),
};
static const struct ktbt_member sys_module[] = {
	M("name", KTBT_STRING, struct ketw_sys_module, name, false),
	M("base", KTBT_UINT, struct ketw_sys_module, base, true),
	M("size", KTBT_UINT, struct ketw_sys_module, size, false),
};
static const struct ktbt_member sys_unknown[] = {
	{ "data", KTBT_BYTES, 0, 0, 0, false },
};

#undef M

struct sys_layout {
	const struct ktbt_member *m;
	unsigned int n;
};

#define L(a) { a, sizeof(a) / sizeof(a[0]) }

static struct sys_layout sys_layout(uint32_t id)
{
	static const struct sys_layout none = { NULL, 0 };

	switch (id) {
	case KETW_SYS_START:	return (struct sys_layout)L(sys_start);
	case KETW_SYS_STOP:	return (struct sys_layout)L(sys_stop);
	case KETW_SYS_FILTER:	return (struct sys_layout)L(sys_filter);
	case KETW_SYS_OVERFLOW:	return (struct sys_layout)L(sys_overflow);
	case KETW_SYS_RESUME:	return (struct sys_layout)L(sys_resume);
	case KETW_SYS_FLUSH_START:
	case KETW_SYS_FLUSH_STOP: return none;
	case KETW_SYS_ERROR:	return (struct sys_layout)L(sys_error);
	case KETW_SYS_TRIGGER:	return (struct sys_layout)L(sys_trigger);
	case KETW_SYS_PROVIDER:	return (struct sys_layout)L(sys_provider);
	case KETW_SYS_EVENT_DESC: return (struct sys_layout)L(sys_event_desc);
	case KETW_SYS_TASK:	return (struct sys_layout)L(sys_task);
	case KETW_SYS_MODULE:	return (struct sys_layout)L(sys_module);
	default:		return (struct sys_layout)L(sys_unknown);
	}
}

#undef L

/* ---- classes by key ------------------------------------------------------ */

static uint32_t class_hash(bool sys, bool user, const uint8_t *guid,
			   uint32_t id, uint16_t version)
{
	uint32_t h = 2166136261u;
	unsigned int i;

	h = (h ^ (uint32_t)(sys | user << 1)) * 16777619u;
	for (i = 0; i < KETW_GUID_SIZE; i++)
		h = (h ^ guid[i]) * 16777619u;
	for (i = 0; i < 4; i++)
		h = (h ^ ((id >> (8 * i)) & 0xff)) * 16777619u;
	h = (h ^ (version & 0xff)) * 16777619u;
	h = (h ^ (version >> 8)) * 16777619u;
	return h;
}

/* The key of @rec's class: system events by id alone. */
static void record_key(const struct ketw_record *rec, bool *sys, bool *user,
		       const uint8_t **guid, uint32_t *id, uint16_t *version)
{
	static const uint8_t zero[KETW_GUID_SIZE];
	const struct ketw_event_header *h = rec->hdr;

	*sys = h->flags & KETW_RECORD_SYSTEM;
	*id = h->event_id;
	*user = !*sys && (h->flags & KETW_RECORD_USER);
	*guid = *sys ? zero : h->provider_guid;
	*version = *sys ? 0 : h->version;
}

static bool class_is(const struct ktbt_class *c, bool sys, bool user,
		     const uint8_t *guid, uint32_t id, uint16_t version)
{
	return c->sys == sys && c->user == user && c->id == id &&
	       c->version == version &&
	       !memcmp(c->guid, guid, KETW_GUID_SIZE);
}

static unsigned int class_find(const struct ktbt_trace *t, bool sys,
			       bool user, const uint8_t *guid, uint32_t id,
			       uint16_t version, unsigned int *slot)
{
	unsigned int mask = t->index_size - 1, i, n;

	i = class_hash(sys, user, guid, id, version) & mask;
	for (;; i = (i + 1) & mask) {
		n = t->index[i];
		if (!n || class_is(&t->classes[n - 1], sys, user, guid, id,
				   version)) {
			*slot = i;
			return n;
		}
	}
}

static int index_grow(struct ktbt_trace *t)
{
	unsigned int size = t->index_size ? 2 * t->index_size : 64, i, slot;
	unsigned int *old = t->index, old_size = t->index_size;
	struct ktbt_class *c;

	t->index = calloc(size, sizeof(*t->index));
	if (!t->index) {
		t->index = old;
		return -ENOMEM;
	}
	t->index_size = size;
	for (i = 0; i < t->nr_classes; i++) {
		c = &t->classes[i];
		class_find(t, c->sys, c->user, c->guid, c->id, c->version,
			   &slot);
		t->index[slot] = i + 1;
	}
	free(old);
	(void)old_size;
	return 0;
}

/* The class of @rec, added if new; NULL: no memory. */
static struct ktbt_class *class_get(struct ktbt_trace *t,
				    const struct ketw_record *rec)
{
	const uint8_t *guid;
	struct ktbt_class *c;
	unsigned int n, slot;
	uint16_t version;
	bool sys, user;
	uint32_t id;

	record_key(rec, &sys, &user, &guid, &id, &version);
	if (4 * (t->nr_classes + 1) > 3 * t->index_size && index_grow(t))
		return NULL;
	n = class_find(t, sys, user, guid, id, version, &slot);
	if (n)
		return &t->classes[n - 1];
	if (t->nr_classes == t->cap_classes) {
		unsigned int cap = t->cap_classes ? 2 * t->cap_classes : 32;
		void *p = realloc(t->classes, cap * sizeof(*t->classes));

		if (!p)
			return NULL;
		t->classes = p;
		t->cap_classes = cap;
	}
	c = &t->classes[t->nr_classes++];
	memset(c, 0, sizeof(*c));
	c->sys = sys;
	c->user = user;
	memcpy(c->guid, guid, KETW_GUID_SIZE);
	c->id = id;
	c->version = version;
	t->index[slot] = t->nr_classes;
	return c;
}

const struct ktbt_class *ktbt_class_of(const struct ktbt_trace *t,
				       const struct ketw_record *rec)
{
	const uint8_t *guid;
	unsigned int n, slot;
	uint16_t version;
	bool sys, user;
	uint32_t id;

	record_key(rec, &sys, &user, &guid, &id, &version);
	n = class_find(t, sys, user, guid, id, version, &slot);
	return n ? &t->classes[n - 1] : NULL;
}

/* ---- payload members of a provider event --------------------------------- */

/* A C identifier made of @s (CTF wants them), unique among @m[0..n). */
static void member_name(struct ktbt_member *m, unsigned int n, const char *s,
			size_t max, unsigned int idx)
{
	char *d = m[n].name;
	size_t i, len = strnlen(s, max);
	unsigned int k, dup = 1;

	if (len >= sizeof(m[n].name) - 8)
		len = sizeof(m[n].name) - 8;
	for (i = 0; i < len; i++) {
		char ch = s[i];

		d[i] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		       (ch >= '0' && ch <= '9') || ch == '_' ? ch : '_';
	}
	d[len] = '\0';
	if (!len)
		snprintf(d, sizeof(m[n].name), "field%u", idx);
	else if ((d[0] >= '0' && d[0] <= '9') || !strncmp(d, "ext_", 4)) {
		/* Not a C identifier, or an item's name (fc_items()). */
		memmove(d + 1, d, len + 1);
		d[0] = '_';
	}
	for (k = 0; k < n; k++)
		if (!strcmp(m[k].name, d)) {
			size_t l = strlen(d);

			snprintf(d + l, sizeof(m[n].name) - l, "_%u", ++dup);
			k = (unsigned int)-1;	/* check again from the start */
		}
}

/*
 * The members of a descriptor's fields: integers by size and sign, hex
 * ones shown in hex, strings, GUIDs; an integer whose size is not its
 * type's width, BINARY and unknown types as bytes.
 */
static int members_of_desc(struct ktbt_class *c, const struct ketw_event_info *ev)
{
	unsigned int i, nr = ev->nr_fields < KETW_MAX_FIELDS ?
			     ev->nr_fields : KETW_MAX_FIELDS;
	struct ktbt_member *m;

	c->members = calloc(nr ? nr : 1, sizeof(*c->members));
	if (!c->members)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct ketw_field_info *fi = &ev->fields[i];
		unsigned int w = ketw_field_width(fi->type);

		m = &c->members[i];
		member_name(c->members, i, fi->name, sizeof(fi->name), i);
		m->off = fi->offset;
		m->size = fi->size;
		if (fi->type == KETW_FIELD_GUID && (!fi->size || fi->size == 16)) {
			m->kind = KTBT_GUID;
			m->width = 16;
		} else if (w && w != 16 && (!fi->size || fi->size == w)) {
			m->width = w;
			switch (fi->type) {
			case KETW_FIELD_S8: case KETW_FIELD_S16:
			case KETW_FIELD_S32: case KETW_FIELD_S64:
				m->kind = KTBT_SINT;
				break;
			case KETW_FIELD_HEX32: case KETW_FIELD_HEX64:
				m->hex = true;
				/* fall through */
			default:
				m->kind = KTBT_UINT;
			}
		} else if (fi->type == KETW_FIELD_STRING) {
			m->kind = KTBT_STRING;
		} else {
			m->kind = KTBT_BYTES;
		}
	}
	c->nr_members = nr;
	return 0;
}

static int members_copy(struct ktbt_class *c, const struct ktbt_member *m,
			unsigned int n)
{
	c->members = calloc(n ? n : 1, sizeof(*m));
	if (!c->members)
		return -ENOMEM;
	if (n)
		memcpy(c->members, m, n * sizeof(*m));
	c->nr_members = n;
	return 0;
}

/* ---- field classes ------------------------------------------------------- */

static bt_field_class *fc_uint(bt_trace_class *tc, unsigned int bits, bool hex)
{
	bt_field_class *fc = bt_field_class_integer_unsigned_create(tc);

	if (!fc)
		return NULL;
	bt_field_class_integer_set_field_value_range(fc, bits);
	if (hex)
		bt_field_class_integer_set_preferred_display_base(fc,
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	return fc;
}

static bt_field_class *fc_sint(bt_trace_class *tc, unsigned int bits)
{
	bt_field_class *fc = bt_field_class_integer_signed_create(tc);

	if (fc)
		bt_field_class_integer_set_field_value_range(fc, bits);
	return fc;
}

/* A byte array, or an array of @elem (taken). */
static bt_field_class *fc_dyn_array(bt_trace_class *tc, bt_field_class *elem)
{
	bt_field_class *fc;

	if (!elem)
		return NULL;
	fc = bt_field_class_array_dynamic_create(tc, elem, NULL);
	bt_field_class_put_ref(elem);
	return fc;
}

/* Append @fc (taken) as @name to @st; false on failure. */
static bool fc_append(bt_field_class *st, const char *name, bt_field_class *fc)
{
	bool ok = fc && bt_field_class_structure_append_member(st, name, fc) ==
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(fc);
	return ok;
}

static bt_field_class *fc_of_member(bt_trace_class *tc,
				    const struct ktbt_member *m)
{
	switch (m->kind) {
	case KTBT_UINT:
		return fc_uint(tc, 8 * m->width, m->hex);
	case KTBT_SINT:
		return fc_sint(tc, 8 * m->width);
	case KTBT_STRING:
	case KTBT_GUID:
		return bt_field_class_string_create(tc);
	case KTBT_BYTES:
	default:
		return fc_dyn_array(tc, fc_uint(tc, 8, true));
	}
}

/* The record header, every event's common context. */
static const char *const common_names[] = {
	"tid", "pid", "cpu", "level", "keyword", "type", "version",
	"provider_guid", "flags", "sequence", "id",
};

static bt_field_class *fc_common_context(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);

	if (!st)
		return NULL;
	if (!fc_append(st, "tid", fc_uint(tc, 32, false)) ||
	    !fc_append(st, "pid", fc_uint(tc, 32, false)) ||
	    !fc_append(st, "cpu", fc_uint(tc, 32, false)) ||
	    !fc_append(st, "level", fc_uint(tc, 8, false)) ||
	    !fc_append(st, "keyword", fc_uint(tc, 64, true)) ||
	    !fc_append(st, "type", fc_uint(tc, 8, false)) ||
	    !fc_append(st, "version", fc_uint(tc, 16, false)) ||
	    !fc_append(st, "provider_guid", bt_field_class_string_create(tc)) ||
	    !fc_append(st, "flags", fc_uint(tc, 16, true)) ||
	    !fc_append(st, "sequence", fc_uint(tc, 64, false)) ||
	    !fc_append(st, "id", fc_uint(tc, 32, false))) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	(void)common_names;
	return st;
}

/* A structure of u64 members named @names (NULL-terminated). */
static bt_field_class *fc_u64_struct(bt_trace_class *tc,
				     const char *const *names)
{
	bt_field_class *st = bt_field_class_structure_create(tc);

	for (; st && *names; names++)
		if (!fc_append(st, *names, fc_uint(tc, 64, false))) {
			bt_field_class_put_ref(st);
			return NULL;
		}
	return st;
}

static const char *const cputime_names[] = {
	"kernel_ns", "user_ns", "runtime_ns", NULL,
};
static const char *const pidns_names[] = { "vpid", "vtid", "pid_ns", NULL };

/*
 * The extended data items a class's records carry, appended to its
 * payload structure @st: a member "ext_WORD" per item type seen, an array
 * that is empty in a record without that item (stacks: the addresses;
 * the others: 0 or 1 element).
 */
static bool fc_items(bt_trace_class *tc, bt_field_class *st, uint32_t items)
{
	bt_field_class *a;
	unsigned int type;
	char name[32];
	bool ok = true;

	for (type = 1; ok && type <= KETW_EXT_MAX_TYPE; type++) {
		if (!(items & KETW_EXT_BIT(type)))
			continue;
		switch (type) {
		case KETW_EXT_CPU_TIME:
			a = fc_dyn_array(tc, fc_u64_struct(tc, cputime_names));
			break;
		case KETW_EXT_PID_NS:
			a = fc_dyn_array(tc, fc_u64_struct(tc, pidns_names));
			break;
		case KETW_EXT_ACTIVITY: {
			bt_field_class *s = bt_field_class_structure_create(tc);

			if (s && (!fc_append(s, "id",
					bt_field_class_string_create(tc)) ||
				  !fc_append(s, "related",
					bt_field_class_string_create(tc)))) {
				bt_field_class_put_ref(s);
				s = NULL;
			}
			a = fc_dyn_array(tc, s);
			break;
		}
		default:	/* stacks and the program address */
			a = fc_dyn_array(tc, fc_uint(tc, 64, true));
			break;
		}
		snprintf(name, sizeof(name), "ext_%s", ketw_ext_type_name(type));
		ok = fc_append(st, name, a);
	}
	return ok;
}

static bt_event_class_log_level log_level(unsigned int level)
{
	switch (level) {
	case KETW_LEVEL_CRITICAL:	return BT_EVENT_CLASS_LOG_LEVEL_CRITICAL;
	case KETW_LEVEL_ERROR:		return BT_EVENT_CLASS_LOG_LEVEL_ERROR;
	case KETW_LEVEL_WARNING:	return BT_EVENT_CLASS_LOG_LEVEL_WARNING;
	case KETW_LEVEL_INFO:		return BT_EVENT_CLASS_LOG_LEVEL_INFO;
	default:			return BT_EVENT_CLASS_LOG_LEVEL_DEBUG;
	}
}

/* Is an event class named @name already there? */
static bool name_taken(const struct ktbt_trace *t, unsigned int upto,
		       const char *name)
{
	unsigned int i;

	for (i = 0; i < upto; i++) {
		const char *n = bt_event_class_get_name(t->classes[i].ec);

		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/*
 * Class @i's event class: its name ("ketw:START", "PROVIDER:EVENT",
 * "PROVIDER:idN" without a descriptor; "@vN" added when the name is
 * taken by another version), members and field classes.
 */
static int event_class_make(struct ktbt_trace *t, unsigned int i)
{
	struct ktbt_class *c = &t->classes[i];
	const struct ketw_event_info *ev = NULL;
	char name[128], guid[KETW_GUID_STR_LEN];
	bt_field_class *st, *fc;
	const char *pname;
	unsigned int k;
	int err;

	if (c->sys) {
		struct sys_layout l = sys_layout(c->id);
		const char *sname = ketw_sys_event_name(c->id);

		if (sname)
			snprintf(name, sizeof(name), "%s:%s",
				 KETW_SYSTEM_PROVIDER_NAME, sname);
		else
			snprintf(name, sizeof(name), "%s:sys%u",
				 KETW_SYSTEM_PROVIDER_NAME, c->id);
		err = members_copy(c, l.m, l.n);
	} else {
		struct ketw_event_header h = {
			.event_id = c->id, .version = c->version,
			.flags = c->user ? KETW_RECORD_USER : 0,
		};

		memcpy(h.provider_guid, c->guid, KETW_GUID_SIZE);
		ev = ketw_registry_record_event(t->reg, &h);
		pname = ketw_registry_record_provider(t->reg, &h);
		if (!pname)
			pname = ketw_guid_format(c->guid, guid);
		if (ev)
			snprintf(name, sizeof(name), "%s:%.*s", pname,
				 (int)sizeof(ev->name), ev->name);
		else
			snprintf(name, sizeof(name), "%s:id%u", pname, c->id);
		c->swap = ketw_input_swapped(t->in);
		err = ev ? members_of_desc(c, ev) :
			   members_copy(c, sys_unknown, 1);
		if (!ev)
			strcpy(c->members[0].name, "payload");
	}
	if (err)
		return err;
	if (name_taken(t, i, name)) {
		size_t l = strlen(name);

		snprintf(name + l, sizeof(name) - l, "@v%u", c->version);
	}

	c->ec = bt_event_class_create(t->sc);
	if (!c->ec)
		return -ENOMEM;
	bt_event_class_put_ref(c->ec);	/* the stream class keeps it */
	if (bt_event_class_set_name(c->ec, name))
		return -ENOMEM;
	if (ev)
		bt_event_class_set_log_level(c->ec, log_level(ev->level));
	st = bt_field_class_structure_create(t->tc);
	if (!st)
		return -ENOMEM;
	for (k = 0; k < c->nr_members; k++) {
		fc = fc_of_member(t->tc, &c->members[k]);
		if (!fc_append(st, c->members[k].name, fc)) {
			bt_field_class_put_ref(st);
			return -ENOMEM;
		}
	}
	if (c->items && !fc_items(t->tc, st, c->items)) {
		bt_field_class_put_ref(st);
		return -ENOMEM;
	}
	err = bt_event_class_set_payload_field_class(c->ec, st) ? -ENOMEM : 0;
	bt_field_class_put_ref(st);
	return err;
}

/* ---- the trace --------------------------------------------------------- */

static const char *clock_class_name(unsigned int clock)
{
	switch (clock) {
	case KETW_CLOCK_BOOT:	return "boottime";
	case KETW_CLOCK_LOCAL:	return "local";
	default:		return "monotonic";
	}
}

/*
 * 1 GHz from the clock's origin. With the header's clock reference the
 * origin is the Unix epoch and the offset realtime_ref - clock_ref, so
 * that times are absolute and merge with other traces of the machine
 * (LTTng's monotonic clock class is made alike). Without one (an older
 * file, a local clock) the origin is unknown: a UUID made of the host,
 * kernel and clock names lets traces of the same boot merge by their
 * raw times.
 */
static int clock_class_make(struct ktbt_trace *t, bt_self_component *self)
{
	const struct ketw_file_header *h = ketw_input_header(t->in);
	char desc[160];

	t->cc = bt_clock_class_create(self);
	if (!t->cc)
		return -ENOMEM;
	bt_clock_class_set_frequency(t->cc, 1000000000ull);
	if (bt_clock_class_set_name(t->cc, clock_class_name(h->clock)))
		return -ENOMEM;
	snprintf(desc, sizeof(desc), "ketw %s clock of %s",
		 ketw_clock_name(h->clock) ? ketw_clock_name(h->clock) : "?",
		 h->hostname);
	if (bt_clock_class_set_description(t->cc, desc))
		return -ENOMEM;
	if (h->session.clock_resolution)
		bt_clock_class_set_precision(t->cc, h->session.clock_resolution);
	if (h->realtime_ref) {
		int64_t off = (int64_t)(h->realtime_ref - h->clock_ref);
		int64_t s = off / 1000000000ll, ns = off % 1000000000ll;

		if (ns < 0) {
			ns += 1000000000ll;
			s--;
		}
		bt_clock_class_set_offset(t->cc, s, (uint64_t)ns);
		bt_clock_class_set_origin_is_unix_epoch(t->cc, BT_TRUE);
	} else {
		uint8_t uuid[16] = { 0 };
		uint64_t a = 1469598103934665603ull, b = 1099511628211ull;
		const char *parts[] = { h->hostname, h->release,
					clock_class_name(h->clock) };
		unsigned int i;
		const char *p;

		for (i = 0; i < 3; i++)
			for (p = parts[i]; ; p++) {
				a = (a ^ (unsigned char)*p) * 1099511628211ull;
				b = (b ^ (unsigned char)*p) * 14695981039346656037ull;
				if (!*p)
					break;
			}
		memcpy(uuid, &a, 8);
		memcpy(uuid + 8, &b, 8);
		uuid[6] = (uuid[6] & 0x0f) | 0x50;	/* name-based */
		uuid[8] = (uuid[8] & 0x3f) | 0x80;
		bt_clock_class_set_origin_is_unix_epoch(t->cc, BT_FALSE);
		bt_clock_class_set_uuid(t->cc, uuid);
	}
	return 0;
}

static int stream_class_make(struct ktbt_trace *t)
{
	bt_field_class *st;
	int err;

	t->sc = bt_stream_class_create(t->tc);
	if (!t->sc)
		return -ENOMEM;
	bt_stream_class_put_ref(t->sc);		/* the trace class keeps it */
	if (bt_stream_class_set_name(t->sc, "ketw") ||
	    bt_stream_class_set_default_clock_class(t->sc, t->cc))
		return -ENOMEM;
	bt_stream_class_set_assigns_automatic_stream_id(t->sc, BT_FALSE);
	bt_stream_class_set_supports_packets(t->sc, BT_TRUE, BT_TRUE, BT_TRUE);
	bt_stream_class_set_supports_discarded_events(t->sc, BT_TRUE, BT_TRUE);

	st = bt_field_class_structure_create(t->tc);
	if (!st || !fc_append(st, "cpu_id", fc_uint(t->tc, 32, false))) {
		bt_field_class_put_ref(st);
		return -ENOMEM;
	}
	err = bt_stream_class_set_packet_context_field_class(t->sc, st);
	bt_field_class_put_ref(st);
	if (err)
		return -ENOMEM;
	st = fc_common_context(t->tc);
	if (!st)
		return -ENOMEM;
	err = bt_stream_class_set_event_common_context_field_class(t->sc, st);
	bt_field_class_put_ref(st);
	return err ? -ENOMEM : 0;
}

/* The trace: named after the file, the machine and session in its environment. */
static int trace_make(struct ktbt_trace *t)
{
	const struct ketw_file_header *h = ketw_input_header(t->in);
	const char *base = strrchr(t->path, '/');
	char name[256], ver[16];
	unsigned int cpu;
	size_t l;

	t->trace = bt_trace_create(t->tc);
	if (!t->trace)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%s", base ? base + 1 : t->path);
	l = strlen(name);
	if (l > 5 && !strcmp(name + l - 5, ".ketw"))
		name[l - 5] = '\0';
	snprintf(ver, sizeof(ver), "%u.%u", h->version_major,
		 h->version_minor);
	if (bt_trace_set_name(t->trace, name) ||
	    bt_trace_set_environment_entry_string(t->trace, "tracer_name",
						  "ketw") ||
	    bt_trace_set_environment_entry_string(t->trace, "hostname",
						  h->hostname) ||
	    bt_trace_set_environment_entry_string(t->trace, "kernel_release",
						  h->release) ||
	    bt_trace_set_environment_entry_string(t->trace, "machine",
						  h->machine) ||
	    bt_trace_set_environment_entry_string(t->trace, "ketw_session",
						  h->session.name) ||
	    bt_trace_set_environment_entry_string(t->trace, "ketw_clock",
		ketw_clock_name(h->clock) ? ketw_clock_name(h->clock) : "?") ||
	    bt_trace_set_environment_entry_string(t->trace, "ketw_policy",
		ketw_policy_name(h->session.policy) ?
		ketw_policy_name(h->session.policy) : "?") ||
	    bt_trace_set_environment_entry_integer(t->trace, "ketw_buffer_kb",
						   h->session.buffer_kb) ||
	    bt_trace_set_environment_entry_string(t->trace, "ketw_format", ver))
		return -ENOMEM;

	t->streams = calloc(h->nr_cpus, sizeof(*t->streams));
	if (!t->streams)
		return -ENOMEM;
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		if (!ketw_input_cpu_records(t->in, cpu))
			continue;
		t->streams[cpu] = bt_stream_create_with_id(t->sc, t->trace, cpu);
		snprintf(name, sizeof(name), "cpu%u", cpu);
		if (!t->streams[cpu] || bt_stream_set_name(t->streams[cpu], name))
			return -ENOMEM;
	}
	return 0;
}

/* The rundown first (names and layouts), then the classes records need. */
static int trace_scan(struct ktbt_trace *t)
{
	struct ketw_record rec;
	struct ketw_ext_iter x;
	struct ketw_ext_view v;
	struct ktbt_class *c;
	int err;

	t->reg = ketw_registry_new();
	if (!t->reg)
		return -ENOMEM;
	while (ketw_input_next(t->in, &rec) > 0) {
		err = ketw_registry_add_record(t->reg, &rec);
		if (err < 0)
			return err;
	}
	ketw_input_rewind(t->in);
	while (ketw_input_next(t->in, &rec) > 0) {
		c = class_get(t, &rec);
		if (!c)
			return -ENOMEM;
		if (ketw_record_items(&rec, &x) <= 0)
			continue;
		while (ketw_ext_next(&x, &v) > 0)
			if (v.type >= 1 && v.type <= KETW_EXT_MAX_TYPE)
				c->items |= KETW_EXT_BIT(v.type);
	}
	ketw_input_rewind(t->in);
	return 0;
}

int ktbt_trace_open(struct ktbt_trace *t, const char *path,
		    bt_self_component *self)
{
	unsigned int i;
	int err;

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	/* A file cut short reads up to its last complete section. */
	err = ketw_input_open_flags(path, KETW_INPUT_PARTIAL, &t->in, t->err,
				    sizeof(t->err));
	if (err)
		return err;
	err = trace_scan(t);
	if (!err) {
		t->tc = bt_trace_class_create(self);
		err = t->tc ? clock_class_make(t, self) : -ENOMEM;
	}
	if (!err)
		err = stream_class_make(t);
	for (i = 0; !err && i < t->nr_classes; i++)
		err = event_class_make(t, i);
	if (!err)
		err = trace_make(t);
	if (err)
		snprintf(t->err, sizeof(t->err), "%s", strerror(-err));
	return err;
}

void ktbt_trace_close(struct ktbt_trace *t)
{
	unsigned int i;

	if (t->streams && t->in)
		for (i = 0; i < ketw_input_nr_cpus(t->in); i++)
			bt_stream_put_ref(t->streams[i]);
	free(t->streams);
	bt_trace_put_ref(t->trace);
	bt_clock_class_put_ref(t->cc);
	bt_trace_class_put_ref(t->tc);
	for (i = 0; i < t->nr_classes; i++)
		free(t->classes[i].members);
	free(t->classes);
	free(t->index);
	ketw_registry_free(t->reg);
	ketw_input_close(t->in);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* ---- one event's fields ------------------------------------------------- */

static uint64_t read_uint(const unsigned char *p, unsigned int width,
			  bool swap)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (width) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return swap ? bswap_16(v16) : v16;
	case 4:
		memcpy(&v32, p, 4);
		return swap ? bswap_32(v32) : v32;
	default:
		memcpy(&v64, p, 8);
		return swap ? bswap_64(v64) : v64;
	}
}

static int64_t sign_extend(uint64_t v, unsigned int width)
{
	unsigned int shift = 64 - 8 * width;

	return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

static int set_bytes(bt_field *f, const unsigned char *p, size_t n)
{
	size_t i;

	if (bt_field_array_dynamic_set_length(f, n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		bt_field_integer_unsigned_set_value(
			bt_field_array_borrow_element_field_by_index(f, i),
			p[i]);
	return 0;
}

static int set_string(bt_field *f, const char *s, size_t max)
{
	bt_field_string_clear(f);
	return bt_field_string_append_with_length(f, s, strnlen(s, max)) ?
	       -ENOMEM : 0;
}

/*
 * One member from @data (@len bytes): a member past the end reads as 0,
 * "" or an empty array (ketw report --json says null), strings and
 * arrays stop at the end.
 */
static int member_fill(bt_field *f, const struct ktbt_member *m,
		       const unsigned char *data, size_t len, bool swap)
{
	char g[KETW_GUID_STR_LEN];
	size_t n;
	uint64_t v;

	switch (m->kind) {
	case KTBT_UINT:
	case KTBT_SINT:
		v = m->off + m->width <= len ?
		    read_uint(data + m->off, m->width, swap) : 0;
		if (m->kind == KTBT_SINT)
			bt_field_integer_signed_set_value(f,
					sign_extend(v, m->width));
		else
			bt_field_integer_unsigned_set_value(f, v);
		return 0;
	case KTBT_GUID:
		if (m->off + 16 > len)
			return set_string(f, "", 0);
		return set_string(f, ketw_guid_format(data + m->off, g),
				  sizeof(g));
	case KTBT_STRING:
		n = m->off < len ? len - m->off : 0;
		if (m->size && m->size < n)
			n = m->size;
		return set_string(f, (const char *)data + m->off, n);
	case KTBT_BYTES:
	default:
		n = m->off < len ? len - m->off : 0;
		if (m->size && m->size < n)
			n = m->size;
		return set_bytes(f, data + m->off, n);
	}
}

static int item_fill(bt_field *f, const struct ketw_record *rec,
		     unsigned int type)
{
	char g[KETW_GUID_STR_LEN];
	const unsigned char *p;
	struct ketw_ext_activity a;
	struct ketw_ext_cpu_time ct;
	struct ketw_ext_pid_ns ns;
	uint64_t u[3];
	bt_field *e;
	size_t size, i, n;

	p = ketw_record_item(rec, type, &size);
	switch (type) {
	case KETW_EXT_CPU_TIME:
		n = p && !ketw_record_cpu_time(rec, &ct);
		u[0] = n ? ct.kernel_ns : 0;
		u[1] = n ? ct.user_ns : 0;
		u[2] = n ? ct.runtime_ns : 0;
		break;
	case KETW_EXT_PID_NS:
		n = p && !ketw_record_pid_ns(rec, &ns);
		u[0] = n ? ns.vpid : 0;
		u[1] = n ? ns.vtid : 0;
		u[2] = n ? ns.pid_ns_inum : 0;
		break;
	case KETW_EXT_ACTIVITY:
		n = p && !ketw_record_activity(rec, &a);
		if (bt_field_array_dynamic_set_length(f, n))
			return -ENOMEM;
		if (!n)
			return 0;
		e = bt_field_array_borrow_element_field_by_index(f, 0);
		if (set_string(bt_field_structure_borrow_member_field_by_index(e, 0),
			       ketw_guid_format(a.activity, g), sizeof(g)) ||
		    set_string(bt_field_structure_borrow_member_field_by_index(e, 1),
			       ketw_guid_format(a.related, g), sizeof(g)))
			return -ENOMEM;
		return 0;
	default:	/* addresses */
		n = p ? size / 8 : 0;
		if (bt_field_array_dynamic_set_length(f, n))
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			memcpy(&u[0], p + 8 * i, 8);
			bt_field_integer_unsigned_set_value(
				bt_field_array_borrow_element_field_by_index(f, i),
				u[0]);
		}
		return 0;
	}
	if (bt_field_array_dynamic_set_length(f, n))
		return -ENOMEM;
	if (!n)
		return 0;
	e = bt_field_array_borrow_element_field_by_index(f, 0);
	for (i = 0; i < 3; i++)
		bt_field_integer_unsigned_set_value(
			bt_field_structure_borrow_member_field_by_index(e, i),
			u[i]);
	return 0;
}

int ktbt_event_fill(const struct ktbt_trace *t, const struct ktbt_class *c,
		    bt_event *ev, const struct ketw_record *rec)
{
	const struct ketw_event_header *h = rec->hdr;
	char g[KETW_GUID_STR_LEN];
	bt_field *st;
	unsigned int i, k, type;

	(void)t;
	st = bt_event_borrow_common_context_field(ev);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 0),
		h->thread_id);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 1),
		h->process_id);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 2),
		rec->cpu);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 3),
		h->level);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 4),
		h->keyword);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 5),
		h->type);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 6),
		h->version);
	if (set_string(bt_field_structure_borrow_member_field_by_index(st, 7),
		       ketw_guid_format(h->provider_guid, g), sizeof(g)))
		return -ENOMEM;
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 8),
		h->flags);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 9),
		h->sequence);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(st, 10),
		h->event_id);

	st = bt_event_borrow_payload_field(ev);
	for (i = 0; i < c->nr_members; i++)
		if (member_fill(bt_field_structure_borrow_member_field_by_index(st, i),
				&c->members[i], rec->data, rec->data_len,
				c->swap))
			return -ENOMEM;
	if (!c->items)
		return 0;
	for (k = c->nr_members, type = 1; type <= KETW_EXT_MAX_TYPE; type++) {
		if (!(c->items & KETW_EXT_BIT(type)))
			continue;
		if (item_fill(bt_field_structure_borrow_member_field_by_index(st, k++),
			      rec, type))
			return -ENOMEM;
	}
	return 0;
}
