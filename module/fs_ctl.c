// SPDX-License-Identifier: GPL-2.0
/*
 * ketwfs's control files: the files that show a setting, a provider or a
 * session's state as text, and those that change a setting when written
 * (Documentation/ketw-fs.rst).
 *
 * Lock order: ketwfs_write_mutex, then ketw_mutex. Nothing here copies to
 * or from user space under ketw_mutex.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uuid.h>

#include "fs.h"

#define KETWFS_WRITE_MAX	8192		/* bytes a control write may hold */

/* ---- text ---- */

/* @name in a line of text: blanks, controls and backslashes as \ooo. */
static void ketwfs_seq_name(struct seq_file *m, const char *name)
{
	unsigned char c;

	for (; *name; name++) {
		c = *name;
		if (isgraph(c) && c != '\\')
			seq_putc(m, c);
		else
			seq_printf(m, "\\%03o", c);
	}
}

/* ---- files that show text, and the control files ---- */

static void ketwfs_show_filter(struct seq_file *m, u32 level, u64 match_any,
			       u64 match_all, u32 items)
{
	seq_printf(m, " level=%u match_any=0x%llx match_all=0x%llx",
		   level, match_any, match_all);
	ketw_ext_items_show(m, items);
	seq_putc(m, '\n');
}

static void ketwfs_show_provider_id(struct seq_file *m,
				    const struct ketw_session_enable *se)
{
	if (se->name[0])
		ketwfs_seq_name(m, se->name);
	else if (se->user)
		seq_printf(m, KETW_USER_PREFIX "%pUb", se->guid);
	else
		seq_printf(m, "%pUb", se->guid);
}

static void ketwfs_show_ids(struct seq_file *m, const struct ketw_event_set *set)
{
	u32 id, end;

	for (id = 0; id < KETW_EVENT_SET_BITS; id = end + 1) {
		if (!(set->bits[id / 64] & BIT_ULL(id % 64))) {
			end = id;
			continue;
		}
		for (end = id; end + 1 < KETW_EVENT_SET_BITS &&
		     set->bits[(end + 1) / 64] & BIT_ULL((end + 1) % 64); end++)
			;
		if (end == id)
			seq_printf(m, " %u", id);
		else
			seq_printf(m, " %u-%u", id, end);
	}
}

/* A line of providers: the entry and its filter. */
static int ketwfs_show_entry(const struct ketw_session_enable *se, void *m)
{
	ketwfs_show_provider_id(m, se);
	ketwfs_show_filter(m, se->filter.level, se->filter.match_any,
			   se->filter.match_all, se->ext_items);
	return 0;
}

/* A line of event_set: the entry and the ids it filters out. */
static int ketwfs_show_entry_ids(const struct ketw_session_enable *se,
				 void *m)
{
	ketwfs_show_provider_id(m, se);
	seq_puts(m, ":");
	ketwfs_show_ids(m, &se->filter.filtered);
	seq_puts(m, "\n");
	return 0;
}

/*
 * pids: "none" without a filter, else its processes as the reader's pid
 * namespace sees them, then "inherit" if it has KETW_PIDS_INHERIT.
 */
static int ketwfs_show_pids(struct seq_file *m, struct ketw_session *s)
{
	u32 *ids, n, flags, i;
	int err;

	ids = kmalloc_array(KETW_PIDS_MAX, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	err = ketw_session_get_pids(s, ids, &n, &flags);
	if (err) {
		kfree(ids);
		return err == -ENOENT ? -ENODEV : err;
	}
	if (!(flags & KETW_PIDS_ACTIVE))
		seq_puts(m, "none");
	for (i = 0; i < n; i++)
		seq_printf(m, "%s%u", i ? " " : "", ids[i]);
	if (flags & KETW_PIDS_INHERIT)
		seq_printf(m, "%sinherit", n ? " " : "");
	seq_putc(m, '\n');
	kfree(ids);
	return 0;
}

static int ketwfs_show_session(struct seq_file *m, struct ketwfs_inode *ki)
{
	struct ketw_session_status st = {};
	struct ketw_cpu_stats cs, sum = {};
	struct ketw_session_attr a;
	struct ketw_session *s;
	int cpu, err = 0;

	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	mutex_lock(&ketw_mutex);
	ketw_session_fill_attr(s, &a);
	switch (ki->kind) {
	case KFS_ENABLE:
		seq_printf(m, "%d\n", a.state == KETW_STATE_RUNNING);
		break;
	case KFS_BUFFER_SIZE_KB:
		seq_printf(m, "%u\n", a.buffer_kb);
		break;
	case KFS_BUFFER_TOTAL:
		seq_printf(m, "%llu\n", a.memory / 1024);
		break;
	case KFS_POLICY:
		seq_printf(m, "%s\n", ketw_policy_name(a.policy));
		break;
	case KFS_MAX_DATA_SIZE:
		seq_printf(m, "%u\n", a.max_data_size);
		break;
	case KFS_CLOCK:
		seq_printf(m, "%s\n", ketw_clock_name(a.clock));
		break;
	case KFS_RUNDOWN:
		seq_printf(m, "%d\n", !(a.flags & KETW_SESSION_NO_RUNDOWN));
		break;
	case KFS_ITEMS:
		ketw_ext_items_list(m, a.ext_items);
		seq_putc(m, '\n');
		break;
	case KFS_SESSION_PROVIDERS:
		if (!s->explicit) {
			seq_puts(m, "*");
			ketwfs_show_filter(m, a.level, a.match_any, a.match_all,
					   a.ext_items);
		}
		ketw_session_enables_for_each(s, ketwfs_show_entry, m);
		break;
	case KFS_EVENT_SET:
		ketw_session_enables_for_each(s, ketwfs_show_entry_ids, m);
		break;
	case KFS_TRIGGER:
		ketw_triggers_show(m, s);
		break;
	}
	mutex_unlock(&ketw_mutex);

	switch (ki->kind) {
	case KFS_PIDS:
		err = ketwfs_show_pids(m, s);
		break;
	case KFS_STATUS:
		/* Resets the overrun status and flush error, as POSIX says. */
		err = ketw_session_status(s, &st);
		if (err)
			break;
		seq_printf(m, "state: %s\n",
			   ketw_state_name(st.state));
		seq_printf(m, "full: %s\n", st.full_status == KETW_FULL_FULL ?
			   "full" : "not-full");
		seq_printf(m, "overrun: %s\n",
			   st.overrun_status == KETW_OVERRUN_OVERRUN ?
			   "overrun" : "none");
		seq_printf(m, "flush: %s\n",
			   st.flush_status == KETW_FLUSH_FLUSHING ?
			   "flushing" : "not-flushing");
		seq_printf(m, "flush_error: %d\n", st.flush_error);
		seq_printf(m, "auto_stopped: %u\n", st.auto_stopped);
		seq_printf(m, "cpus: %u\n", st.nr_cpus);
		seq_printf(m, "written: %llu\n", st.written);
		seq_printf(m, "lost: %llu\n", st.lost);
		seq_printf(m, "overwritten: %llu\n", st.overwritten);
		seq_printf(m, "triggers_fired: %u\n", st.triggers_fired);
		seq_printf(m, "snapshots_ready: %u\n", st.snapshots_ready);
		seq_printf(m, "wakeups: %u\n", st.wakeups);
		seq_printf(m, "pids: %u\n", st.pids);
		seq_printf(m, "pids_dropped: %u\n", st.pids_dropped);
		break;
	case KFS_STATS:
	case KFS_CPU_STATS:
		for_each_possible_cpu(cpu) {
			if (ki->kind == KFS_CPU_STATS && cpu != ki->cpu)
				continue;
			ketw_session_stats_cpu(s, cpu, &cs);
			sum.written += cs.written;
			sum.lost_full += cs.lost_full;
			sum.overwritten += cs.overwritten;
			sum.lost_busy += cs.lost_busy;
			sum.lost_nested += cs.lost_nested;
			sum.truncated += cs.truncated;
			sum.read += cs.read;
		}
		seq_printf(m, "written: %llu\n", sum.written);
		seq_printf(m, "lost_full: %llu\n", sum.lost_full);
		seq_printf(m, "overwritten: %llu\n", sum.overwritten);
		seq_printf(m, "lost_busy: %llu\n", sum.lost_busy);
		seq_printf(m, "lost_nested: %llu\n", sum.lost_nested);
		seq_printf(m, "truncated: %llu\n", sum.truncated);
		seq_printf(m, "read: %llu\n", sum.read);
		if (ki->kind == KFS_CPU_STATS) {
			seq_printf(m, "sequence: %llu\n", cs.sequence);
			seq_printf(m, "produced: %llu\n", cs.produced);
			seq_printf(m, "consumed: %llu\n", cs.consumed);
		}
		break;
	}
	ketw_session_put(s);
	return err;
}

#define KETWFS_HDR_FIELD(type, field)					\
	{ #type " " #field, offsetof(struct ketw_event_header, field),	\
	  sizeof_field(struct ketw_event_header, field) }

static const struct {
	const char *decl;
	size_t offset, size;
} ketwfs_header_fields[] = {
	KETWFS_HDR_FIELD(u16, size),
	KETWFS_HDR_FIELD(u8, type),
	KETWFS_HDR_FIELD(u8, level),
	KETWFS_HDR_FIELD(u16, version),
	KETWFS_HDR_FIELD(u16, flags),
	KETWFS_HDR_FIELD(u32, event_id),
	KETWFS_HDR_FIELD(u32, cpu),
	KETWFS_HDR_FIELD(u32, thread_id),
	KETWFS_HDR_FIELD(u32, process_id),
	KETWFS_HDR_FIELD(u64, sequence),
	KETWFS_HDR_FIELD(u64, timestamp),
	KETWFS_HDR_FIELD(u64, keyword),
	{ "u8 provider_guid[16]",
	  offsetof(struct ketw_event_header, provider_guid),
	  sizeof_field(struct ketw_event_header, provider_guid) },
};

static void ketwfs_show_header_format(struct seq_file *m)
{
	unsigned int i;

	seq_printf(m, "# struct ketw_event_header, in front of every record (%u bytes, little-endian)\n",
		   KETW_EVENT_HEADER_SIZE);
	for (i = 0; i < ARRAY_SIZE(ketwfs_header_fields); i++)
		seq_printf(m, "\tfield:%s;\toffset:%zu;\tsize:%zu;\tsigned:0;\n",
			   ketwfs_header_fields[i].decl,
			   ketwfs_header_fields[i].offset,
			   ketwfs_header_fields[i].size);
	seq_printf(m, "record_align: %u\n", KETW_RECORD_ALIGN);
	seq_printf(m, "flags: system=0x%lx truncated=0x%lx padding=0x%lx user=0x%lx\n",
		   KETW_RECORD_SYSTEM, KETW_RECORD_TRUNCATED,
		   KETW_RECORD_PADDING, KETW_RECORD_USER);
	seq_printf(m, "context: ctx_mask=0x%x ctx_shift=%u irqs_off=0x%lx need_resched=0x%lx preempt_mask=0x%x preempt_shift=%u\n",
		   KETW_RECORD_CTX_MASK, KETW_RECORD_CTX_SHIFT,
		   KETW_RECORD_IRQS_OFF, KETW_RECORD_NEED_RESCHED,
		   KETW_RECORD_PREEMPT_MASK, KETW_RECORD_PREEMPT_SHIFT);
}

static int ketwfs_show_provider(struct seq_file *m, struct ketwfs_inode *ki)
{
	const struct ketw_event_descriptor *d = NULL;
	const struct ketw_field *f;
	struct ketw_provider *prov;
	int err = 0;
	u32 i;

	mutex_lock(&ketw_mutex);
	prov = ketw_provider_find(ki->provider, NULL, false);
	if (prov && ki->kind != KFS_PROVIDER_GUID)
		d = ketwfs_find_event(prov, ki->event);
	if (!prov || (ki->kind != KFS_PROVIDER_GUID && !d)) {
		err = -ENODEV;
		goto out;
	}
	switch (ki->kind) {
	case KFS_PROVIDER_GUID:
		seq_printf(m, "%pUb\n", prov->guid);
		break;
	case KFS_EVENT_ID:
		seq_printf(m, "%u\n", d->id);
		break;
	case KFS_EVENT_FORMAT:
		seq_printf(m, "name: %s\n", d->name ? d->name : "");
		seq_printf(m, "ID: %u\n", d->id);
		seq_puts(m, "provider: ");
		ketwfs_seq_name(m, prov->name);
		seq_putc(m, '\n');
		seq_printf(m, "guid: %pUb\n", prov->guid);
		seq_printf(m, "type: %u\nlevel: %u\nversion: %u\nkeyword: 0x%llx\n",
			   d->type, d->level, d->version, d->keyword);
		seq_puts(m, "format:\n");
		for (i = 0; d->fields && i < d->nr_fields; i++) {
			f = &d->fields[i];
			seq_printf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				   ketw_field_type_name(f->type),
				   f->name ? f->name : "",
				   KETW_EVENT_HEADER_SIZE + f->offset, f->size,
				   f->type >= KETW_FIELD_S8 &&
				   f->type <= KETW_FIELD_S64);
		}
		break;
	}
out:
	mutex_unlock(&ketw_mutex);
	return err;
}

static int ketwfs_show(struct seq_file *m, void *v)
{
	struct ketwfs_inode *ki = ketwfs_i(m->private);

	switch (ki->kind) {
	case KFS_HEADER_FORMAT:
		ketwfs_show_header_format(m);
		return 0;
	case KFS_BUFFER_USED:
		seq_printf(m, "%llu\n", ketw_mem_used_bytes() / 1024);
		return 0;
	case KFS_MAX_BUFFER:
		seq_printf(m, "%llu\n", ketw_mem_cap() / 1024);
		return 0;
	case KFS_ERROR_LOG:
		ketw_errlog_show(m);
		return 0;
	case KFS_BRIDGE_ITEMS:
		ketw_ext_items_list(m, ketw_bridge_items_get());
		seq_putc(m, '\n');
		return 0;
	case KFS_PROVIDER_GUID:
	case KFS_EVENT_ID:
	case KFS_EVENT_FORMAT:
		return ketwfs_show_provider(m, ki);
	default:
		return ketwfs_show_session(m, ki);
	}
}

static int ketwfs_trigger_del(struct ketwfs_inode *ki, u32 id);

static int ketwfs_show_open(struct inode *inode, struct file *file)
{
	int err = ketwfs_open_check();

	if (err)
		return err;
	/* trigger, as set_ftrace_filter: ">" starts from none, ">>" adds. */
	if (ketwfs_i(inode)->kind == KFS_TRIGGER &&
	    (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		err = ketwfs_trigger_del(ketwfs_i(inode), 0);
		if (err)
			return err;
	}
	return single_open(file, ketwfs_show, inode);
}

/* The next word of *@p (split at blanks and @seps), or NULL. */
static char *ketwfs_token(char **p, const char *seps)
{
	char *t;

	do {
		t = strsep(p, seps);
	} while (t && !*t);
	return t;
}

/*
 * A provider named by GUID (36 characters), by "user." and a GUID (a user
 * provider's: too long to be a name) or by name, into @req.
 */
static int ketwfs_parse_provider(const char *s, struct ketw_enable *req)
{
	const size_t pre = strlen(KETW_USER_PREFIX);
	size_t n = strlen(s);
	bool user = false;
	uuid_t u;

	if (n == pre + UUID_STRING_LEN && !strncmp(s, KETW_USER_PREFIX, pre)) {
		s += pre;
		n -= pre;
		user = true;
	}
	if (n == UUID_STRING_LEN && !uuid_parse(s, &u)) {
		if (uuid_is_null(&u))
			return -EINVAL;
		memcpy(req->guid, u.b, KETW_GUID_SIZE);
		if (user)
			req->flags |= KETW_ENABLE_USER;
		return 0;
	}
	if (!n || n >= KETW_NAME_MAX)
		return -EINVAL;
	strscpy(req->provider, s, KETW_NAME_MAX);
	return 0;
}

/*
 * The filter of @ki's session's entry for @req's provider, the entry as
 * @req names it: 0; -ENOENT if there is none; -ENODEV if the session is
 * gone.
 */
static int ketwfs_get_entry(struct ketwfs_inode *ki, struct ketw_enable *req,
			    struct ketw_filter *f)
{
	const struct ketw_session_enable *se;
	struct ketw_session *s;
	int err = -ENODEV;

	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	mutex_lock(&ketw_mutex);
	if (!s->destroyed) {
		se = ketw_session_enable_find(s, req->provider, req->guid,
					      req->flags & KETW_ENABLE_USER,
					      NULL);
		if (se)
			*f = se->filter;
		err = se ? 0 : -ENOENT;
	}
	mutex_unlock(&ketw_mutex);
	ketw_session_put(s);
	return err;
}

/* ketw_session_enable() on @ki's session: -ENODEV if it is gone. */
static int ketwfs_enable(struct ketwfs_inode *ki, const struct ketw_enable *req)
{
	struct ketw_session *s;
	int err;

	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = ketw_session_enable(s, req);
	ketw_session_put(s);
	return err;
}

/*
 * providers: "NAME-or-GUID [LEVEL [MATCH_ANY [MATCH_ALL]]]", the numbers
 * also as level=, match_any= (or keywords=) and match_all=, and the
 * extended data items as items=stack,cputime,...; or "!NAME". The
 * entry's event set stays as it was; what the line leaves out is 0.
 */
static int ketwfs_write_providers(struct ketwfs_inode *ki, char *line)
{
	static const char *const positional[] = {
		"level", "match_any", "match_all",
	};
	struct ketw_enable req = { .size = sizeof(req) };
	char *p = line, *tok, *val;
	unsigned int npos = 0;
	const char *key;
	bool disable;
	int err;

	tok = ketwfs_token(&p, " \t");
	if (!tok)
		return -EINVAL;
	disable = *tok == '!';
	err = ketwfs_parse_provider(tok + disable, &req);
	if (err)
		return err;
	if (disable) {
		if (ketwfs_token(&p, " \t"))
			return -EINVAL;
		req.flags |= KETW_ENABLE_DISABLE;
		return ketwfs_enable(ki, &req);
	}
	err = ketwfs_get_entry(ki, &req, &req.filter);
	if (err == -ENODEV)
		return err;
	if (err)
		memset(&req.filter, 0, sizeof(req.filter));
	req.filter.level = 0;
	req.filter.match_any = 0;
	req.filter.match_all = 0;
	while ((tok = ketwfs_token(&p, " \t"))) {
		val = strchr(tok, '=');
		if (val) {
			*val++ = 0;
			key = tok;
		} else if (npos < ARRAY_SIZE(positional)) {
			val = tok;
			key = positional[npos++];
		} else {
			return -EINVAL;
		}
		if (!strcmp(key, "level"))
			err = kstrtou32(val, 10, &req.filter.level);
		else if (!strcmp(key, "match_any") || !strcmp(key, "keywords"))
			err = kstrtou64(val, 16, &req.filter.match_any);
		else if (!strcmp(key, "match_all"))
			err = kstrtou64(val, 16, &req.filter.match_all);
		else if (!strcmp(key, "items"))
			err = ketw_ext_items_parse(val, &req.ext_items);
		else
			err = -EINVAL;
		if (err)
			return -EINVAL;
	}
	if (req.filter.level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	return ketwfs_enable(ki, &req);
}

/* "ID ID-ID ...", blanks or commas between, ids below KETW_EVENT_SET_BITS. */
static int ketwfs_parse_ids(char *p, struct ketw_event_set *set)
{
	u32 from, to, id;
	char *tok, *dash;

	memset(set, 0, sizeof(*set));
	while ((tok = ketwfs_token(&p, " \t,"))) {
		dash = strchr(tok, '-');
		if (dash)
			*dash++ = 0;
		if (kstrtou32(tok, 10, &from))
			return -EINVAL;
		to = from;
		if (dash && kstrtou32(dash, 10, &to))
			return -EINVAL;
		if (from > to || to >= KETW_EVENT_SET_BITS)
			return -EINVAL;
		for (id = from; id <= to; id++)
			set->bits[id / 64] |= BIT_ULL(id % 64);
	}
	return 0;
}

/* The enable entries of a session, as requests that name them. */
struct ketwfs_enable_list {
	struct ketw_enable *reqs;
	unsigned int nr;
};

static int ketwfs_name_entry(const struct ketw_session_enable *se, void *arg)
{
	struct ketwfs_enable_list *l = arg;
	struct ketw_enable *req = &l->reqs[l->nr++];

	if (se->name[0])
		strscpy(req->provider, se->name, KETW_NAME_MAX);
	else
		memcpy(req->guid, se->guid, KETW_GUID_SIZE);
	if (!se->name[0] && se->user)
		req->flags = KETW_ENABLE_USER;
	return 0;
}

/*
 * event_set: "NAME-or-GUID: IDS" sets the ids filtered out of one enabled
 * provider; "IDS" alone, of every enabled provider. The levels and
 * keywords stay as they were.
 */
static int ketwfs_write_event_set(struct ketwfs_inode *ki, char *line)
{
	char *colon = strrchr(line, ':'), *ids = line;
	struct ketwfs_enable_list list = {};
	struct ketw_enable *reqs = NULL;
	struct ketw_event_set set;
	struct ketw_session *s;
	unsigned int i, nr = 0;
	int err;

	reqs = kcalloc(KETW_MAX_ENABLES, sizeof(*reqs), GFP_KERNEL);
	if (!reqs)
		return -ENOMEM;
	if (colon) {
		*colon = 0;
		ids = colon + 1;
		err = ketwfs_parse_provider(strim(line), &reqs[0]);
		if (err)
			goto out;
		nr = 1;
	} else {
		/* Every provider the session enables, as it names them. */
		s = ketwfs_session(ki);
		if (IS_ERR(s)) {
			err = PTR_ERR(s);
			goto out;
		}
		list.reqs = reqs;
		mutex_lock(&ketw_mutex);
		err = s->destroyed ? -ENODEV : 0;
		if (!err)
			ketw_session_enables_for_each(s, ketwfs_name_entry,
						      &list);
		mutex_unlock(&ketw_mutex);
		ketw_session_put(s);
		nr = list.nr;
		if (err)
			goto out;
	}
	err = ketwfs_parse_ids(ids, &set);
	if (err)
		goto out;
	/* Check them all before changing any. */
	err = nr ? 0 : -ENOENT;
	for (i = 0; !err && i < nr; i++) {
		reqs[i].size = sizeof(reqs[i]);
		err = ketwfs_get_entry(ki, &reqs[i], &reqs[i].filter);
	}
	for (i = 0; !err && i < nr; i++) {
		reqs[i].filter.filtered = set;
		err = ketwfs_enable(ki, &reqs[i]);
	}
out:
	kfree(reqs);
	return err;
}

/* KETW_IOC_TRIGGER_DEL on @ki's session: -ENODEV if it is gone. */
static int ketwfs_trigger_del(struct ketwfs_inode *ki, u32 id)
{
	struct ketw_session *s;
	int err;

	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = ketw_session_trigger_del(s, id);
	ketw_session_put(s);
	return err;
}

/*
 * trigger: "PROVIDER:ID[:LEVEL] [FIELD=VALUE] [action=stop|snapshot|wake]
 * [post=MS] [interval=MS]" arms one (action snapshot unless said);
 * "!ID" removes one, "!" or an empty line all of them.
 */
static int ketwfs_write_trigger(struct ketwfs_inode *ki, char *line)
{
	struct ketw_trigger req = { .size = sizeof(req),
				    .action = KETW_TRIGGER_SNAPSHOT };
	struct ketw_enable prov = {};
	char *p = line, *tok, *val, *id, *level;
	struct ketw_session *s;
	bool neg;
	u64 v;
	int err, i;

	tok = ketwfs_token(&p, " \t");
	if (!tok)
		return ketwfs_trigger_del(ki, 0);
	if (*tok == '!') {
		if (ketwfs_token(&p, " \t"))
			return -EINVAL;
		if (!tok[1])
			return ketwfs_trigger_del(ki, 0);
		if (kstrtou32(tok + 1, 10, &req.id) || !req.id)
			return -EINVAL;
		return ketwfs_trigger_del(ki, req.id);
	}
	/* PROVIDER:ID[:LEVEL]; a GUID has no colon. */
	id = strchr(tok, ':');
	if (!id)
		return -EINVAL;
	*id++ = 0;
	level = strchr(id, ':');
	if (level)
		*level++ = 0;
	err = ketwfs_parse_provider(tok, &prov);
	if (err)
		return err;
	memcpy(req.provider, prov.provider, sizeof(req.provider));
	memcpy(req.guid, prov.guid, sizeof(req.guid));
	if (prov.flags & KETW_ENABLE_USER)
		req.flags |= KETW_TRIGGER_USER;
	if (kstrtou32(id, 10, &req.event_id) ||
	    (level && kstrtou32(level, 10, &req.level)))
		return -EINVAL;
	while ((tok = ketwfs_token(&p, " \t"))) {
		val = strchr(tok, '=');
		if (!val || val == tok)
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(tok, "action")) {
			i = ketw_trigger_action_parse(val);
			if (i < 0)
				return -EINVAL;
			req.action = i;
		} else if (!strcmp(tok, "post")) {
			if (kstrtou32(val, 10, &req.post_ms))
				return -EINVAL;
		} else if (!strcmp(tok, "interval")) {
			if (kstrtou32(val, 10, &req.min_interval_ms))
				return -EINVAL;
		} else {
			/* The payload field; one only. */
			if (req.flags & KETW_TRIGGER_FIELD ||
			    strlen(tok) >= KETW_FIELD_NAME_MAX)
				return -EINVAL;
			neg = *val == '-';
			if (kstrtou64(val + neg, 0, &v))
				return -EINVAL;
			req.value = neg ? -v : v;
			req.flags |= KETW_TRIGGER_FIELD;
			strscpy(req.field, tok, sizeof(req.field));
		}
	}
	err = ketw_trigger_check(&req);
	if (err)
		return err;
	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = ketw_session_trigger_add(s, &req);
	ketw_session_put(s);
	return err;
}

/*
 * pids: "PID PID ... [inherit]" (blanks or commas between) sets the
 * session's process filter, in the writer's pid namespace; "none" or
 * an empty line clears it.
 */
static int ketwfs_write_pids(struct ketwfs_inode *ki, char *line)
{
	u32 count = 0, flags = 0;
	struct ketw_session *s;
	char *p = line, *tok;
	bool none = false;
	s32 *pids;
	int err = 0;

	pids = kmalloc_array(KETW_PIDS_MAX, sizeof(*pids), GFP_KERNEL);
	if (!pids)
		return -ENOMEM;
	while (!err && (tok = ketwfs_token(&p, " \t,"))) {
		if (!strcmp(tok, "inherit"))
			flags |= KETW_PIDS_INHERIT;
		else if (!strcmp(tok, "none"))
			none = true;
		else if (count == KETW_PIDS_MAX ||
			 kstrtos32(tok, 10, &pids[count++]))
			err = -EINVAL;
	}
	/* "none" alone: nothing else goes with it. */
	if (!err && none && (count || flags))
		err = -EINVAL;
	if (!err) {
		s = ketwfs_session(ki);
		if (IS_ERR(s)) {
			err = PTR_ERR(s);
		} else {
			err = ketw_session_set_pids(s, pids, count, flags);
			ketw_session_put(s);
			if (err == -ENOENT)
				err = -ENODEV;
		}
	}
	kfree(pids);
	return err;
}

/* A 0 or 1. */
static int ketwfs_parse_bool(const char *s, bool *v)
{
	if (!strcmp(s, "0"))
		*v = false;
	else if (!strcmp(s, "1"))
		*v = true;
	else
		return -EINVAL;
	return 0;
}

static int ketwfs_write_enable(struct ketwfs_inode *ki, const char *val)
{
	struct ketw_session *s;
	bool on;
	int err;

	err = ketwfs_parse_bool(val, &on);
	if (err)
		return err;
	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (on) {
		err = ketw_session_start(s);
		if (err == -EBUSY)		/* running already */
			err = 0;
	} else {
		err = ketw_session_stop(s);
		if (err == -EALREADY)		/* not running */
			err = 0;
	}
	ketw_session_put(s);
	return err;
}

/* buffer_size_kb, policy, max_data_size, clock, items, rundown. */
static int ketwfs_write_attr(struct ketwfs_inode *ki, const char *val,
			     const char *file)
{
	struct ketw_session_attr a;
	struct ketw_session *s;
	bool rundown = false;
	int err = 0, i;
	u32 v = 0;

	switch (ki->kind) {
	case KFS_BUFFER_SIZE_KB:
		if (kstrtou32(val, 10, &v) || !v)
			return -EINVAL;
		break;
	case KFS_MAX_DATA_SIZE:
		if (kstrtou32(val, 10, &v))
			return -EINVAL;
		break;
	case KFS_POLICY:
		i = ketw_policy_parse(val);
		if (i < 0)
			return -EINVAL;
		v = i;
		break;
	case KFS_CLOCK:
		i = ketw_clock_parse(val);
		if (i < 0)
			return -EINVAL;
		v = i;
		break;
	case KFS_ITEMS:
		if (ketw_ext_items_parse(val, &v))
			return -EINVAL;
		break;
	case KFS_RUNDOWN:
		err = ketwfs_parse_bool(val, &rundown);
		if (err)
			return err;
		break;
	}

	s = ketwfs_session(ki);
	if (IS_ERR(s))
		return PTR_ERR(s);
	mutex_lock(&ketw_mutex);
	ketw_session_fill_attr(s, &a);
	mutex_unlock(&ketw_mutex);
	switch (ki->kind) {
	case KFS_BUFFER_SIZE_KB:
		/* A max_data_size left at its default follows the size. */
		if (a.max_data_size == ketw_default_max_data(a.buffer_kb))
			a.max_data_size = 0;
		a.buffer_kb = v;
		break;
	case KFS_MAX_DATA_SIZE:
		a.max_data_size = v;
		break;
	case KFS_POLICY:
		a.policy = v;
		break;
	case KFS_CLOCK:
		a.clock = v;
		break;
	case KFS_ITEMS:
		a.ext_items = v;
		break;
	case KFS_RUNDOWN:
		if (rundown)
			a.flags &= ~KETW_SESSION_NO_RUNDOWN;
		else
			a.flags |= KETW_SESSION_NO_RUNDOWN;
		break;
	}
	err = ketw_session_set_attr(s, &a);
	if (err == -ENOMEM || err == -ENOBUFS)
		ketwfs_log_memory(ki->session, file, a.memory, err);
	ketw_session_put(s);
	return err;
}

/* bridge_items: the item words, or "none". */
static int ketwfs_write_bridge_items(const char *val)
{
	u32 mask;

	if (ketw_ext_items_parse(val, &mask))
		return -EINVAL;
	return ketw_bridge_items_set(mask);
}

/*
 * Control writes but enable read the session's settings, change one and
 * write them back (providers keeps an entry's event set, event_set its
 * level and keywords, an attribute the other attributes): one at a
 * time, or a writer would put back what another one just changed.
 */
static DEFINE_MUTEX(ketwfs_write_mutex);

/* One command per write; the value stays as it was if it is refused. */
static ssize_t ketwfs_ctl_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ketwfs_inode *ki = ketwfs_i(file_inode(file));
	char *buf, *val;
	size_t len;
	int err;

	if (!count)
		return 0;
	if (count > KETWFS_WRITE_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/*
	 * A NUL ends the command only if nothing but NULs follows (a C
	 * string written with its terminator): "1\0junk" is not "1".
	 */
	len = strlen(buf);
	if (memchr_inv(buf + len, 0, count - len)) {
		err = -EINVAL;
		goto out;
	}
	val = strim(buf);
	if (strchr(val, '\n')) {
		err = -EINVAL;		/* more than one line */
		goto out;
	}
	if (ki->kind == KFS_ENABLE) {
		err = ketwfs_write_enable(ki, val);
		goto out;
	}
	if (ki->kind == KFS_MAX_BUFFER) {
		err = ketw_mem_set_cap(val);
		goto out;
	}
	if (ki->kind == KFS_ERROR_LOG) {
		ketw_errlog_clear();	/* any write, as tracefs's */
		goto out;
	}
	if (ki->kind == KFS_BRIDGE_ITEMS) {
		err = ketwfs_write_bridge_items(val);
		goto out;
	}
	if (mutex_lock_interruptible(&ketwfs_write_mutex)) {
		err = -ERESTARTSYS;
		goto out;
	}
	switch (ki->kind) {
	case KFS_SESSION_PROVIDERS:
		err = ketwfs_write_providers(ki, val);
		break;
	case KFS_EVENT_SET:
		err = ketwfs_write_event_set(ki, val);
		break;
	case KFS_TRIGGER:
		err = ketwfs_write_trigger(ki, val);
		break;
	case KFS_PIDS:
		err = ketwfs_write_pids(ki, val);
		break;
	default:
		err = ketwfs_write_attr(ki, val,
					file->f_path.dentry->d_name.name);
		break;
	}
	mutex_unlock(&ketwfs_write_mutex);
out:
	kfree(buf);
	return err ? err : count;
}

const struct file_operations ketwfs_ro_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_show_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

const struct file_operations ketwfs_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_show_open,
	.read		= seq_read,
	.write		= ketwfs_ctl_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};
