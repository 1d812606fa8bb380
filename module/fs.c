// SPDX-License-Identifier: GPL-2.0
/*
 * ketwfs: ketw's control filesystem, in the manner of tracefs.
 *
 *	mount -t ketwfs none /sys/kernel/ketw
 *
 * Nothing is kept in the dcache: every directory is generated on lookup
 * and readdir from the session list and the provider registry, so that
 * sessions made through /dev/ketw show up here and those made here
 * (mkdir) are the very objects the ioctls act on. Dentries are dropped
 * as soon as they are unused and revalidated on each lookup: a session
 * or a provider may have gone meanwhile. Files name their session, and
 * which one of that name it was (struct ketwfs_sid), and look it up on
 * each operation; only trace_pipe and trace_pipe_raw hold it while open,
 * as an attached reader, like a /dev/ketw file.
 *
 * Lock order: a directory's i_rwsem, then ketw_mutex; ketwfs_write_mutex,
 * then ketw_mutex; a pipe file's lock, then the session's read_mutex,
 * then ketw_mutex. Nothing here copies to or from
 * user space under ketw_mutex or read_mutex, except trace_pipe_raw,
 * which reads as /dev/ketw does.
 *
 * Documentation/ketw-fs.rst describes every file.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/uuid.h>

#include "ketw_internal.h"

#define KETWFS_MAGIC		0x6b657477	/* "ketw" */
#define KETWFS_MOUNT_POINT	"ketw"		/* under /sys/kernel */
#define KETWFS_WRITE_MAX	8192		/* bytes a control write may hold */
#define KETWFS_RECORD_MAX	KETW_RECORD_SPAN(U16_MAX)
/* Memory as large as a session's buffers, which the user sizes. */
#define KETWFS_GFP_BIG		(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | \
				 __GFP_RETRY_MAYFAIL)

/* What an inode is. */
enum ketwfs_kind {
	KFS_ROOT,
	KFS_HEADER_FORMAT,
	KFS_BUFFER_USED,	/* buffer_used_kb */
	KFS_MAX_BUFFER,		/* max_buffer_kb */
	KFS_ERROR_LOG,
	KFS_SESSIONS,		/* sessions/ */
	KFS_SESSION,		/* sessions/NAME/ */
	KFS_ENABLE,
	KFS_BUFFER_SIZE_KB,
	KFS_POLICY,
	KFS_MAX_DATA_SIZE,
	KFS_CLOCK,
	KFS_RUNDOWN,
	KFS_SESSION_PROVIDERS,
	KFS_EVENT_SET,
	KFS_STATUS,
	KFS_STATS,
	KFS_BUFFER_TOTAL,	/* buffer_total_size_kb */
	KFS_TRACE,
	KFS_TRACE_PIPE,
	KFS_PER_CPU,		/* sessions/NAME/per_cpu/ */
	KFS_CPU,		/* sessions/NAME/per_cpu/cpuN/ */
	KFS_CPU_RAW,
	KFS_CPU_STATS,
	KFS_PROVIDERS,		/* providers/ */
	KFS_PROVIDER,		/* providers/NAME/ */
	KFS_PROVIDER_GUID,
	KFS_EVENTS,		/* providers/NAME/events/ */
	KFS_EVENT,		/* providers/NAME/events/EVENT/ */
	KFS_EVENT_ID,
	KFS_EVENT_FORMAT,
};

/**
 * struct ketwfs_sid - which session of a name an inode stands for
 * @s:    the session when the inode was made; compared, never followed.
 * @time: its creation_time, should another session get its address.
 *
 * A name outlives its session: once "demo" is destroyed and made again,
 * a file opened (or a directory held) before must not act on the new
 * "demo". The pair tells them apart without holding the session.
 */
struct ketwfs_sid {
	const struct ketw_session *s;
	u64 time;
};

/**
 * struct ketwfs_inode - an inode and what it stands for
 * @kind:     KFS_*.
 * @cpu:      per_cpu/cpuN and below: N.
 * @sid:      sessions/NAME and below: which session named NAME.
 * @session:  sessions/NAME and below: NAME.
 * @provider: providers/NAME and below: NAME.
 * @event:    providers/NAME/events/EVENT and below: EVENT.
 * @vfs:      the inode.
 *
 * Children copy their parent's names: a file finds its session, provider
 * or event by name each time it is used (and its session only if it is
 * still the one of @sid).
 */
struct ketwfs_inode {
	u8 kind;
	int cpu;
	struct ketwfs_sid sid;
	char session[KETW_NAME_MAX];
	char provider[KETW_NAME_MAX];
	char event[KETW_NAME_MAX];
	struct inode vfs;
};

static struct kmem_cache *ketwfs_inode_cachep;

static inline struct ketwfs_inode *ketwfs_i(const struct inode *inode)
{
	return container_of(inode, struct ketwfs_inode, vfs);
}

/* A fixed child of a directory. */
struct ketwfs_entry {
	const char *name;
	u8 kind;
	umode_t mode;
};

static const struct ketwfs_entry ketwfs_root_entries[] = {
	{ "buffer_used_kb",	KFS_BUFFER_USED,	S_IFREG | 0400 },
	{ "error_log",		KFS_ERROR_LOG,		S_IFREG | 0600 },
	{ "header_format",	KFS_HEADER_FORMAT,	S_IFREG | 0400 },
	{ "max_buffer_kb",	KFS_MAX_BUFFER,		S_IFREG | 0600 },
	{ "providers",		KFS_PROVIDERS,		S_IFDIR | 0500 },
	{ "sessions",		KFS_SESSIONS,		S_IFDIR | 0700 },
};

static const struct ketwfs_entry ketwfs_session_entries[] = {
	{ "buffer_size_kb",	KFS_BUFFER_SIZE_KB,	S_IFREG | 0600 },
	{ "buffer_total_size_kb", KFS_BUFFER_TOTAL,	S_IFREG | 0400 },
	{ "clock",		KFS_CLOCK,		S_IFREG | 0600 },
	{ "enable",		KFS_ENABLE,		S_IFREG | 0600 },
	{ "event_set",		KFS_EVENT_SET,		S_IFREG | 0600 },
	{ "max_data_size",	KFS_MAX_DATA_SIZE,	S_IFREG | 0600 },
	{ "per_cpu",		KFS_PER_CPU,		S_IFDIR | 0500 },
	{ "policy",		KFS_POLICY,		S_IFREG | 0600 },
	{ "providers",		KFS_SESSION_PROVIDERS,	S_IFREG | 0600 },
	{ "rundown",		KFS_RUNDOWN,		S_IFREG | 0600 },
	{ "stats",		KFS_STATS,		S_IFREG | 0400 },
	{ "status",		KFS_STATUS,		S_IFREG | 0400 },
	{ "trace",		KFS_TRACE,		S_IFREG | 0400 },
	{ "trace_pipe",		KFS_TRACE_PIPE,		S_IFREG | 0400 },
};

static const struct ketwfs_entry ketwfs_cpu_entries[] = {
	{ "stats",		KFS_CPU_STATS,		S_IFREG | 0400 },
	/* Read-write: the meta page is mapped writable. */
	{ "trace_pipe_raw",	KFS_CPU_RAW,		S_IFREG | 0600 },
};

static const struct ketwfs_entry ketwfs_provider_entries[] = {
	{ "events",		KFS_EVENTS,		S_IFDIR | 0500 },
	{ "guid",		KFS_PROVIDER_GUID,	S_IFREG | 0400 },
};

static const struct ketwfs_entry ketwfs_event_entries[] = {
	{ "format",		KFS_EVENT_FORMAT,	S_IFREG | 0400 },
	{ "id",			KFS_EVENT_ID,		S_IFREG | 0400 },
};

/* The fixed children of @kind, or NULL for a generated directory. */
static const struct ketwfs_entry *ketwfs_entries(u8 kind, unsigned int *n)
{
	switch (kind) {
	case KFS_ROOT:
		*n = ARRAY_SIZE(ketwfs_root_entries);
		return ketwfs_root_entries;
	case KFS_SESSION:
		*n = ARRAY_SIZE(ketwfs_session_entries);
		return ketwfs_session_entries;
	case KFS_CPU:
		*n = ARRAY_SIZE(ketwfs_cpu_entries);
		return ketwfs_cpu_entries;
	case KFS_PROVIDER:
		*n = ARRAY_SIZE(ketwfs_provider_entries);
		return ketwfs_provider_entries;
	case KFS_EVENT:
		*n = ARRAY_SIZE(ketwfs_event_entries);
		return ketwfs_event_entries;
	default:
		*n = 0;
		return NULL;
	}
}

/* ---- the registry and the session list, by name (ketw_mutex held) ---- */

/* Can @name be a file name here? */
static bool ketwfs_name_ok(const char *name)
{
	size_t n = strnlen(name, KETW_NAME_MAX);

	return n && n < KETW_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

struct ketwfs_find {
	const char *name;	/* match the name, or if NULL ... */
	const u8 *guid;		/* ... the GUID ... */
	bool user;		/* ... of a user provider or a kernel one */
	struct ketw_provider *prov;
};

static int ketwfs_find_fn(struct ketw_provider *prov, void *arg)
{
	struct ketwfs_find *f = arg;

	if (f->name ? strncmp(prov->name, f->name, KETW_NAME_MAX) :
		      memcmp(prov->guid, f->guid, KETW_GUID_SIZE) ||
		      !(prov->flags & KETW_PROVIDER_USER) != !f->user)
		return 0;
	f->prov = prov;
	return 1;
}

/*
 * The provider named @name, or if it is NULL the one with @guid: a GUID
 * may be a kernel provider's and a user provider's at once (@user says
 * which), names never clash (Documentation/ketw-providers.rst).
 */
static struct ketw_provider *ketwfs_find_provider(const char *name,
						  const u8 *guid, bool user)
{
	struct ketwfs_find f = { .name = name, .guid = guid, .user = user };

	ketw_providers_for_each(ketwfs_find_fn, &f);
	return f.prov;
}

/*
 * The directory name of an event: its descriptor's name, or its id if
 * the name cannot be a file name.
 */
static void ketwfs_event_dname(const struct ketw_event_descriptor *d,
			       char *buf)
{
	if (d->name && ketwfs_name_ok(d->name))
		strscpy(buf, d->name, KETW_NAME_MAX);
	else
		snprintf(buf, KETW_NAME_MAX, "%u", d->id);
}

/* The first descriptor of @prov whose directory is @dname, or NULL. */
static const struct ketw_event_descriptor *
ketwfs_find_event(const struct ketw_provider *prov, const char *dname)
{
	char buf[KETW_NAME_MAX];
	u32 i;

	for (i = 0; i < prov->nr_events; i++) {
		ketwfs_event_dname(&prov->events[i], buf);
		if (!strcmp(buf, dname))
			return &prov->events[i];
	}
	return NULL;
}

static void ketwfs_sid_set(struct ketwfs_inode *ki, const struct ketw_session *s)
{
	ki->sid.s = s;
	ki->sid.time = s->attr.creation_time;
}

/*
 * The session @ki stands for, or NULL if it is gone (another of its
 * name does not count). Context: ketw_mutex held.
 */
static struct ketw_session *__ketwfs_session_find(const struct ketwfs_inode *ki)
{
	struct ketw_session *s = __ketw_session_find(ki->session);

	if (s && (s != ki->sid.s || s->attr.creation_time != ki->sid.time))
		return NULL;
	return s;
}

/* The session @ki stands for, with a reference, or NULL. */
static struct ketw_session *ketwfs_session_get(const struct ketwfs_inode *ki)
{
	struct ketw_session *s;

	mutex_lock(&ketw_mutex);
	s = __ketwfs_session_find(ki);
	if (s)
		kref_get(&s->kref);
	mutex_unlock(&ketw_mutex);
	return s;
}

/*
 * 0 if the session @ki stands for is there, else -ENODEV. Requests that
 * name the session (ketw_session_enable()) check first: they look it up
 * by name again, so a session made meanwhile under the name would still
 * be the one they change.
 */
static int ketwfs_session_check(const struct ketwfs_inode *ki)
{
	bool ok;

	mutex_lock(&ketw_mutex);
	ok = __ketwfs_session_find(ki);
	mutex_unlock(&ketw_mutex);
	return ok ? 0 : -ENODEV;
}

/* ---- inodes and dentries ---- */

static const struct inode_operations ketwfs_dir_iops;
static const struct inode_operations ketwfs_sessions_iops;
static const struct inode_operations ketwfs_file_iops;
static const struct file_operations ketwfs_dir_fops;
static const struct file_operations *ketwfs_fops_of(u8 kind);

/* Inode numbers are a hash of the parent's and the name: stable. */
static unsigned long ketwfs_ino(unsigned long parent, const char *name,
				unsigned int len)
{
	u32 ino = full_name_hash((const void *)parent, name, len);

	return ino < 2 ? ino + 2 : ino;		/* 1 is the root */
}

static struct inode *ketwfs_new_inode(struct super_block *sb,
				      const struct ketwfs_inode *parent,
				      u8 kind, umode_t mode, unsigned long ino)
{
	struct inode *inode = new_inode(sb);
	struct ketwfs_inode *ki;

	if (!inode)
		return NULL;
	ki = ketwfs_i(inode);
	if (parent) {
		ki->cpu = parent->cpu;
		ki->sid = parent->sid;
		memcpy(ki->session, parent->session, KETW_NAME_MAX);
		memcpy(ki->provider, parent->provider, KETW_NAME_MAX);
		memcpy(ki->event, parent->event, KETW_NAME_MAX);
	}
	ki->kind = kind;
	inode->i_ino = ino;
	inode->i_mode = mode;
	inode->i_atime = current_time(inode);
	inode->i_mtime = inode->i_atime;
	inode->i_ctime = inode->i_atime;
	if (S_ISDIR(mode)) {
		inode->i_op = kind == KFS_SESSIONS ? &ketwfs_sessions_iops :
						     &ketwfs_dir_iops;
		inode->i_fop = &ketwfs_dir_fops;
		/* Subdirectories come and go: "don't know" (1), as btrfs. */
		set_nlink(inode, 1);
	} else {
		inode->i_op = &ketwfs_file_iops;
		inode->i_fop = ketwfs_fops_of(kind);
	}
	return inode;
}

static struct dentry *ketwfs_lookup(struct inode *dir, struct dentry *dentry,
				    unsigned int flags)
{
	struct ketwfs_inode *pi = ketwfs_i(dir), *ki;
	const char *name = dentry->d_name.name;
	unsigned int len = dentry->d_name.len, n, i, cpu = 0;
	const struct ketwfs_entry *e;
	struct ketw_provider *prov;
	struct inode *inode = NULL;
	umode_t mode = S_IFDIR | 0500;
	struct ketwfs_sid sid = {};
	struct ketw_session *s;
	bool found = false;
	u8 kind = 0;

	if (len >= KETW_NAME_MAX)
		return d_splice_alias(NULL, dentry);
	switch (pi->kind) {
	case KFS_SESSIONS:
		mutex_lock(&ketw_mutex);
		s = __ketw_session_find(name);
		if (s) {
			sid.s = s;
			sid.time = s->attr.creation_time;
			found = true;
		}
		mutex_unlock(&ketw_mutex);
		kind = KFS_SESSION;
		mode = S_IFDIR | 0700;
		break;
	case KFS_PROVIDERS:
		mutex_lock(&ketw_mutex);
		found = ketwfs_find_provider(name, NULL, false);
		mutex_unlock(&ketw_mutex);
		kind = KFS_PROVIDER;
		break;
	case KFS_EVENTS:
		mutex_lock(&ketw_mutex);
		prov = ketwfs_find_provider(pi->provider, NULL, false);
		found = prov && ketwfs_find_event(prov, name);
		mutex_unlock(&ketw_mutex);
		kind = KFS_EVENT;
		break;
	case KFS_PER_CPU:
		found = !strncmp(name, "cpu", 3) &&
			!kstrtouint(name + 3, 10, &cpu) && cpu < nr_cpu_ids &&
			cpu_possible(cpu);
		/* One spelling only: "cpu01" is not "cpu1". */
		if (found) {
			char buf[16];

			snprintf(buf, sizeof(buf), "cpu%u", cpu);
			found = !strcmp(buf, name);
		}
		kind = KFS_CPU;
		break;
	default:
		e = ketwfs_entries(pi->kind, &n);
		for (i = 0; e && i < n; i++) {
			if (!strcmp(e[i].name, name)) {
				found = true;
				kind = e[i].kind;
				mode = e[i].mode;
				break;
			}
		}
		break;
	}
	if (!found)
		return d_splice_alias(NULL, dentry);

	inode = ketwfs_new_inode(dir->i_sb, pi, kind, mode,
				 ketwfs_ino(dir->i_ino, name, len));
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ki = ketwfs_i(inode);
	switch (kind) {
	case KFS_SESSION:
		strscpy(ki->session, name, KETW_NAME_MAX);
		ki->sid = sid;
		break;
	case KFS_PROVIDER:
		strscpy(ki->provider, name, KETW_NAME_MAX);
		break;
	case KFS_EVENT:
		strscpy(ki->event, name, KETW_NAME_MAX);
		break;
	case KFS_CPU:
		ki->cpu = cpu;
		break;
	}
	return d_splice_alias(inode, dentry);
}

/*
 * A session, provider or event directory is valid while what it names
 * exists (for a session: the very one it was made for); a negative
 * dentry is never trusted (the name may exist now).
 */
static int ketwfs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(dentry);
	struct ketw_provider *prov;
	struct ketwfs_inode *ki;
	bool ok;

	if (!inode)
		return flags & LOOKUP_RCU ? -ECHILD : 0;
	ki = ketwfs_i(inode);
	if (ki->kind != KFS_SESSION && ki->kind != KFS_PROVIDER &&
	    ki->kind != KFS_EVENT)
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD;
	mutex_lock(&ketw_mutex);
	if (ki->kind == KFS_SESSION) {
		ok = __ketwfs_session_find(ki);
	} else {
		prov = ketwfs_find_provider(ki->provider, NULL, false);
		ok = prov && (ki->kind == KFS_PROVIDER ||
			      ketwfs_find_event(prov, ki->event));
	}
	mutex_unlock(&ketw_mutex);
	return ok;
}

static const struct dentry_operations ketwfs_dops = {
	.d_revalidate	= ketwfs_d_revalidate,
	.d_delete	= always_delete_dentry,
};

/* Names of a generated directory, copied under ketw_mutex. */
struct ketwfs_names_list {
	unsigned int nr, cap;
	char (*names)[KETW_NAME_MAX];
};

/* Add @name, which is not in @l yet. */
static int ketwfs_list_push(struct ketwfs_names_list *l, const char *name)
{
	if (l->nr == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		void *p = krealloc_array(l->names, cap, sizeof(*l->names),
					 GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		l->names = p;
		l->cap = cap;
	}
	strscpy(l->names[l->nr++], name, KETW_NAME_MAX);
	return 0;
}

/* Add @name unless it is there: for event names, which may repeat. */
static int ketwfs_list_add(struct ketwfs_names_list *l, const char *name)
{
	unsigned int i;

	/* No name twice: lookup would only ever find the first. */
	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->names[i], name))
			return 0;
	return ketwfs_list_push(l, name);
}

/*
 * Provider names are unique in the registry, which user providers can
 * make as long as there are files to own them: no quadratic check.
 */
static int ketwfs_list_provider_fn(struct ketw_provider *prov, void *arg)
{
	if (!ketwfs_name_ok(prov->name))
		return 0;
	return ketwfs_list_push(arg, prov->name);
}

static int ketwfs_list_dir(struct ketwfs_inode *pi, struct ketwfs_names_list *l)
{
	char buf[KETW_NAME_MAX];
	struct ketw_provider *prov;
	struct ketw_session *s;
	int err = 0;
	u32 i;

	mutex_lock(&ketw_mutex);
	switch (pi->kind) {
	case KFS_SESSIONS:
		/* A session named "." or ".." has no directory. */
		list_for_each_entry(s, &ketw_sessions, node) {
			if (!ketwfs_name_ok(s->attr.name))
				continue;
			err = ketwfs_list_push(l, s->attr.name);
			if (err)
				break;
		}
		break;
	case KFS_PROVIDERS:
		err = ketw_providers_for_each(ketwfs_list_provider_fn, l);
		break;
	case KFS_EVENTS:
		prov = ketwfs_find_provider(pi->provider, NULL, false);
		for (i = 0; prov && !err && i < prov->nr_events; i++) {
			ketwfs_event_dname(&prov->events[i], buf);
			err = ketwfs_list_add(l, buf);
		}
		break;
	}
	mutex_unlock(&ketw_mutex);
	return err;
}

/*
 * ctx->pos: 0 and 1 are "." and "..", then the children in order. It is
 * a loff_t anyone can lseek() to: compare it as one.
 */
static int ketwfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct ketwfs_inode *pi = ketwfs_i(dir);
	struct ketwfs_names_list l = {};
	const struct ketwfs_entry *e;
	unsigned int i, n, cpu;
	char buf[16];
	int err;

	if (!dir_emit_dots(file, ctx))
		return 0;
	e = ketwfs_entries(pi->kind, &n);
	if (e) {
		for (; ctx->pos - 2 < n; ctx->pos++) {
			i = ctx->pos - 2;
			if (!dir_emit(ctx, e[i].name, strlen(e[i].name),
				      ketwfs_ino(dir->i_ino, e[i].name,
						 strlen(e[i].name)),
				      S_ISDIR(e[i].mode) ? DT_DIR : DT_REG))
				break;
		}
		return 0;
	}
	if (pi->kind == KFS_PER_CPU) {
		i = 0;
		for_each_possible_cpu(cpu) {
			if (i++ < ctx->pos - 2)
				continue;
			n = snprintf(buf, sizeof(buf), "cpu%u", cpu);
			if (!dir_emit(ctx, buf, n, ketwfs_ino(dir->i_ino, buf, n),
				      DT_DIR))
				break;
			ctx->pos++;
		}
		return 0;
	}
	err = ketwfs_list_dir(pi, &l);
	for (; !err && ctx->pos - 2 < l.nr; ctx->pos++) {
		i = ctx->pos - 2;
		n = strlen(l.names[i]);
		if (!dir_emit(ctx, l.names[i], n,
			      ketwfs_ino(dir->i_ino, l.names[i], n), DT_DIR))
			break;
	}
	kfree(l.names);
	return err;
}

static const struct file_operations ketwfs_dir_fops = {
	.owner		= THIS_MODULE,
	.read		= generic_read_dir,
	.iterate_shared	= ketwfs_readdir,
	.llseek		= generic_file_llseek,
};

/* mkdir sessions/NAME: a session with the defaults of KETW_IOC_CREATE. */
/*
 * A refusal for memory (ENOMEM, ENOBUFS) of session @name's buffers,
 * @need bytes, by @what (mkdir or a file): error_log says why in numbers.
 */
static void ketwfs_log_memory(const char *name, const char *what, u64 need,
			      int err)
{
	char why[160];

	ketw_mem_explain(why, sizeof(why), need, err);
	ketw_errlog_add("sessions/%.*s: %s: %s", KETW_NAME_MAX, name, what,
			why);
}

static int ketwfs_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
			struct dentry *dentry, umode_t mode)
{
	struct ketw_session_attr attr = { .size = sizeof(attr) };
	const struct qstr *q = &dentry->d_name;
	struct ketw_session *s;
	struct inode *inode;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (q->len >= KETW_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(attr.name, q->name, q->len);
	/*
	 * The inode first, so that nothing can fail once the session
	 * exists. No dentry is created below the new directory, so the
	 * parent's lock can stay held (tracefs drops it to create them).
	 */
	inode = ketwfs_new_inode(dir->i_sb, ketwfs_i(dir), KFS_SESSION,
				 S_IFDIR | 0700,
				 ketwfs_ino(dir->i_ino, q->name, q->len));
	if (!inode)
		return -ENOMEM;
	strscpy(ketwfs_i(inode)->session, attr.name, KETW_NAME_MAX);
	err = ketw_session_create(&attr, &s);
	if (err) {
		if (err == -ENOMEM || err == -ENOBUFS)
			ketwfs_log_memory(attr.name, "mkdir", attr.memory, err);
		iput(inode);
		return err;
	}
	ketwfs_sid_set(ketwfs_i(inode), s);
	ketw_session_put(s);		/* the session list keeps it */
	d_instantiate(dentry, inode);
	return 0;
}

/* rmdir sessions/NAME: KETW_IOC_DESTROY (EBUSY while a reader holds it). */
static int ketwfs_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct ketw_session *s;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* Not another session that took the name since the lookup. */
	s = ketwfs_session_get(ketwfs_i(inode));
	if (!s)
		return -ENOENT;
	err = ketw_session_destroy(s, NULL);
	ketw_session_put(s);
	if (!err)
		clear_nlink(inode);
	return err;
}

/* Modes and owners are fixed; truncation (echo >) and times are ignored. */
static int ketwfs_setattr(struct user_namespace *mnt_userns,
			  struct dentry *dentry, struct iattr *ia)
{
	if (ia->ia_valid & (ATTR_MODE | ATTR_UID | ATTR_GID))
		return -EPERM;
	return 0;
}

static const struct inode_operations ketwfs_dir_iops = {
	.lookup		= ketwfs_lookup,
	.setattr	= ketwfs_setattr,
};

static const struct inode_operations ketwfs_sessions_iops = {
	.lookup		= ketwfs_lookup,
	.mkdir		= ketwfs_mkdir,
	.rmdir		= ketwfs_rmdir,
	.setattr	= ketwfs_setattr,
};

static const struct inode_operations ketwfs_file_iops = {
	.setattr	= ketwfs_setattr,
};

/* ---- text ---- */

static const char *ketwfs_name(const char *const *names, size_t nr, u32 i)
{
	return i < nr && names[i] ? names[i] : "?";
}

/*
 * Can @name go in a line of text as it is? User providers and
 * KETW_IOC_ENABLE take any bytes for a name, a newline or a blank too,
 * which would let a name forge lines or fields.
 */
static bool ketwfs_name_plain(const char *name)
{
	for (; *name; name++)
		if (!isgraph((unsigned char)*name) || *name == '\\')
			return false;
	return true;
}

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

/* A small cache of provider names by GUID, for the record lines. */
#define KETWFS_NAMES	8

struct ketwfs_names {
	unsigned int nr, next;
	struct {
		u8 guid[KETW_GUID_SIZE];
		bool user;			/* KETW_RECORD_USER */
		char name[KETW_NAME_MAX];	/* "": show the GUID */
	} e[KETWFS_NAMES];
};

/* The name of the provider of a record with @guid, of a user one if @user. */
static const char *ketwfs_provider_name(struct ketwfs_names *c, const u8 *guid,
					bool user)
{
	static const u8 zero[KETW_GUID_SIZE];
	struct ketw_provider *prov;
	unsigned int i;

	if (!memcmp(guid, zero, KETW_GUID_SIZE))
		return KETW_SYSTEM_PROVIDER_NAME;
	for (i = 0; i < c->nr; i++)
		if (!memcmp(c->e[i].guid, guid, KETW_GUID_SIZE) &&
		    c->e[i].user == user)
			return c->e[i].name;
	i = c->nr < KETWFS_NAMES ? c->nr++ : c->next++ % KETWFS_NAMES;
	memcpy(c->e[i].guid, guid, KETW_GUID_SIZE);
	c->e[i].user = user;
	mutex_lock(&ketw_mutex);
	prov = ketwfs_find_provider(NULL, guid, user);
	strscpy(c->e[i].name, prov && ketwfs_name_plain(prov->name) ?
		prov->name : "", KETW_NAME_MAX);
	mutex_unlock(&ketw_mutex);
	return c->e[i].name;
}

/* Room ketwfs_format() needs for a record of @size bytes. */
#define KETWFS_LINE_HEAD	384

static size_t ketwfs_line_max(u32 size)
{
	size_t len = size > KETW_EVENT_HEADER_SIZE ?
		     size - KETW_EVENT_HEADER_SIZE : 0;

	return KETWFS_LINE_HEAD + 2 * len + len / 4 + 2;
}

/*
 * One line per record (Documentation/ketw-fs.rst): the header's fields,
 * then the payload in hex, four bytes to a group. @h is a whole record
 * (size at least the header: ketwfs_record_ok()) and @buf has
 * ketwfs_line_max(h->size) bytes.
 */
static size_t ketwfs_format(char *buf, size_t cap,
			    const struct ketw_event_header *h,
			    struct ketwfs_names *names)
{
	const u8 *data = (const u8 *)(h + 1);
	u32 len = h->size - KETW_EVENT_HEADER_SIZE, i, rem;
	bool user = h->flags & KETW_RECORD_USER;
	const char *prov = ketwfs_provider_name(names, h->provider_guid, user);
	u64 sec = div_u64_rem(h->timestamp, NSEC_PER_SEC, &rem);
	size_t n, room;
	char *p;

	n = scnprintf(buf, cap, "cpu=%u ts=%llu.%09u pid=%u tid=%u seq=%llu provider=",
		      h->cpu, sec, rem, h->process_id, h->thread_id,
		      h->sequence);
	if (*prov)
		n += scnprintf(buf + n, cap - n, "%s", prov);
	else
		n += scnprintf(buf + n, cap - n, "%s%pUb",
			       user ? KETW_USER_PREFIX : "", h->provider_guid);
	n += scnprintf(buf + n, cap - n, " id=%u", h->event_id);
	if (h->flags & KETW_RECORD_SYSTEM)
		n += scnprintf(buf + n, cap - n, " sys=%s",
			       ketw_sys_event_name(h->event_id));
	n += scnprintf(buf + n, cap - n,
		       " type=%u level=%u ver=%u kw=0x%llx flags=0x%x len=%u data=",
		       h->type, h->level, h->version, h->keyword, h->flags, len);
	/* Never past @cap, should the head take more than counted. */
	room = cap - n;
	if (2 * (size_t)len + len / 4 + 2 > room)
		len = room > 2 ? (room - 2) * 4 / 9 : 0;
	p = buf + n;
	for (i = 0; i < len; i += 4) {
		if (i)
			*p++ = ' ';
		p = bin2hex(p, data + i, min_t(u32, 4, len - i));
	}
	*p++ = '\n';
	return p - buf;
}

/*
 * Is the record of @span bytes at @h one to show? The ring checks spans
 * only; a reader scribbling on a meta page's consumed position can make
 * a payload read as a header, with a size below the header's.
 */
static bool ketwfs_record_ok(const struct ketw_event_header *h, u32 span)
{
	return h->size >= KETW_EVENT_HEADER_SIZE &&
	       KETW_RECORD_SPAN(h->size) == span;
}

/* ---- files that show text, and the control files ---- */

static int ketwfs_open_check(void)
{
	/* As /dev/ketw: the files see events from the whole kernel. */
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

static struct ketw_session *ketwfs_session(struct ketwfs_inode *ki)
{
	struct ketw_session *s = ketwfs_session_get(ki);

	return s ? s : ERR_PTR(-ENODEV);
}

static void ketwfs_show_filter(struct seq_file *m, u32 level, u64 match_any,
			       u64 match_all)
{
	seq_printf(m, " level=%u match_any=0x%llx match_all=0x%llx\n",
		   level, match_any, match_all);
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

static int ketwfs_show_session(struct seq_file *m, struct ketwfs_inode *ki)
{
	struct ketw_session_status st = {};
	struct ketw_cpu_stats cs, sum = {};
	struct ketw_session_attr a;
	struct ketw_session *s;
	unsigned int i;
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
	case KFS_SESSION_PROVIDERS:
		if (!s->explicit) {
			seq_puts(m, "*");
			ketwfs_show_filter(m, a.level, a.match_any, a.match_all);
		}
		for (i = 0; i < s->nr_enables; i++) {
			const struct ketw_session_enable *se = &s->enables[i];

			ketwfs_show_provider_id(m, se);
			ketwfs_show_filter(m, se->filter.level,
					   se->filter.match_any,
					   se->filter.match_all);
		}
		break;
	case KFS_EVENT_SET:
		for (i = 0; i < s->nr_enables; i++) {
			ketwfs_show_provider_id(m, &s->enables[i]);
			seq_puts(m, ":");
			ketwfs_show_ids(m, &s->enables[i].filter.filtered);
			seq_puts(m, "\n");
		}
		break;
	}
	mutex_unlock(&ketw_mutex);

	switch (ki->kind) {
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
		break;
	case KFS_STATS:
	case KFS_CPU_STATS:
		for_each_possible_cpu(cpu) {
			if (ki->kind == KFS_CPU_STATS && cpu != ki->cpu)
				continue;
			ketw_ring_stats_cpu(s->ring, cpu, &cs);
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
}

static const char *const ketwfs_field_types[] = {
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

static int ketwfs_show_provider(struct seq_file *m, struct ketwfs_inode *ki)
{
	const struct ketw_event_descriptor *d = NULL;
	const struct ketw_field *f;
	struct ketw_provider *prov;
	int err = 0;
	u32 i;

	mutex_lock(&ketw_mutex);
	prov = ketwfs_find_provider(ki->provider, NULL, false);
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
				   ketwfs_name(ketwfs_field_types,
					       ARRAY_SIZE(ketwfs_field_types),
					       f->type),
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
	case KFS_PROVIDER_GUID:
	case KFS_EVENT_ID:
	case KFS_EVENT_FORMAT:
		return ketwfs_show_provider(m, ki);
	default:
		return ketwfs_show_session(m, ki);
	}
}

static int ketwfs_show_open(struct inode *inode, struct file *file)
{
	int err = ketwfs_open_check();

	return err ? err : single_open(file, ketwfs_show, inode);
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

/* Is @se the entry @req names (as ketw_session_enable() matches it)? */
static bool ketwfs_entry_is(const struct ketw_session_enable *se,
			    const struct ketw_enable *req)
{
	if (req->provider[0])
		return !strncmp(se->name, req->provider, KETW_NAME_MAX);
	return !se->name[0] && !memcmp(se->guid, req->guid, KETW_GUID_SIZE) &&
	       se->user == !!(req->flags & KETW_ENABLE_USER);
}

/*
 * The filter of @ki's session's entry for @req's provider: 0; -ENOENT
 * if there is none; -ENODEV if the session is gone.
 */
static int ketwfs_get_entry(struct ketwfs_inode *ki, struct ketw_enable *req,
			    struct ketw_filter *f)
{
	struct ketw_session *s;
	int err = -ENOENT;
	unsigned int i;

	mutex_lock(&ketw_mutex);
	s = __ketwfs_session_find(ki);
	if (!s)
		err = -ENODEV;
	for (i = 0; s && i < s->nr_enables; i++) {
		if (ketwfs_entry_is(&s->enables[i], req)) {
			*f = s->enables[i].filter;
			err = 0;
			break;
		}
	}
	mutex_unlock(&ketw_mutex);
	return err;
}

/*
 * providers: "NAME-or-GUID [LEVEL [MATCH_ANY [MATCH_ALL]]]", the numbers
 * also as level=, match_any= (or keywords=) and match_all=; or "!NAME".
 * The entry's event set stays as it was.
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

	strscpy(req.session, ki->session, KETW_NAME_MAX);
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
		err = ketwfs_session_check(ki);
		return err ? err : ketw_session_enable(&req);
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
		else
			err = -EINVAL;
		if (err)
			return -EINVAL;
	}
	if (req.filter.level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	return ketw_session_enable(&req);
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

/*
 * event_set: "NAME-or-GUID: IDS" sets the ids filtered out of one enabled
 * provider; "IDS" alone, of every enabled provider. The levels and
 * keywords stay as they were.
 */
static int ketwfs_write_event_set(struct ketwfs_inode *ki, char *line)
{
	char *colon = strrchr(line, ':'), *ids = line;
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
		mutex_lock(&ketw_mutex);
		s = __ketwfs_session_find(ki);
		for (i = 0; s && i < s->nr_enables; i++) {
			const struct ketw_session_enable *se = &s->enables[i];

			if (se->name[0])
				strscpy(reqs[nr].provider, se->name,
					KETW_NAME_MAX);
			else
				memcpy(reqs[nr].guid, se->guid, KETW_GUID_SIZE);
			if (!se->name[0] && se->user)
				reqs[nr].flags = KETW_ENABLE_USER;
			nr++;
		}
		mutex_unlock(&ketw_mutex);
		if (!s) {
			err = -ENODEV;
			goto out;
		}
	}
	err = ketwfs_parse_ids(ids, &set);
	if (err)
		goto out;
	/* Check them all before changing any. */
	err = nr ? 0 : -ENOENT;
	for (i = 0; !err && i < nr; i++) {
		reqs[i].size = sizeof(reqs[i]);
		strscpy(reqs[i].session, ki->session, KETW_NAME_MAX);
		err = ketwfs_get_entry(ki, &reqs[i], &reqs[i].filter);
	}
	for (i = 0; !err && i < nr; i++) {
		reqs[i].filter.filtered = set;
		err = ketw_session_enable(&reqs[i]);
	}
out:
	kfree(reqs);
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

/* buffer_size_kb, policy, max_data_size, clock, rundown. */
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

static const struct file_operations ketwfs_ro_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_show_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct file_operations ketwfs_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_show_open,
	.read		= seq_read,
	.write		= ketwfs_ctl_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* ---- trace: a copy of the buffers, as text, oldest record first ---- */

struct ketwfs_snap {
	void *buf;		/* whole records, padding included */
	u32 len;
	u32 off;		/* the next record */
};

struct ketwfs_trace {
	struct ketwfs_names names;
	char session[KETW_NAME_MAX];
	u32 clock, policy;
	loff_t next;		/* the number of the record at the heads */
	int head;		/* the CPU whose record is next */
	struct ketwfs_snap *cpus;
	char *text;
	size_t text_cap;
};

/* The CPU whose next record is the oldest (padding skipped), or -1. */
static int ketwfs_trace_head(struct ketwfs_trace *t)
{
	const struct ketw_event_header *h, *best = NULL;
	struct ketwfs_snap *c;
	u32 span;
	int cpu;

	t->head = -1;
	for_each_possible_cpu(cpu) {
		c = &t->cpus[cpu];
		while (c->off < c->len) {
			h = c->buf + c->off;
			span = KETW_RECORD_SPAN(h->size);
			if (span < KETW_RECORD_ALIGN || span > c->len - c->off) {
				c->off = c->len;
				break;
			}
			if (h->flags & KETW_RECORD_PADDING) {
				c->off += span;
				continue;
			}
			if (!ketwfs_record_ok(h, span)) {
				c->off = c->len;
				break;
			}
			if (!best || h->timestamp < best->timestamp) {
				best = h;
				t->head = cpu;
			}
			break;
		}
	}
	return t->head;
}

static void ketwfs_trace_advance(struct ketwfs_trace *t)
{
	struct ketwfs_snap *c = &t->cpus[t->head];
	const struct ketw_event_header *h = c->buf + c->off;

	c->off += KETW_RECORD_SPAN(h->size);
	t->next++;
	ketwfs_trace_head(t);
}

static void ketwfs_trace_rewind(struct ketwfs_trace *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		t->cpus[cpu].off = 0;
	t->next = 1;
	ketwfs_trace_head(t);
}

static void *ketwfs_trace_current(struct ketwfs_trace *t)
{
	return t->head < 0 ? NULL : t->cpus[t->head].buf + t->cpus[t->head].off;
}

/* Position 0 is the header line, n the n-th record. */
static void *ketwfs_trace_start(struct seq_file *m, loff_t *pos)
{
	struct ketwfs_trace *t = m->private;

	if (!*pos || *pos < t->next)
		ketwfs_trace_rewind(t);
	if (!*pos)
		return SEQ_START_TOKEN;
	while (t->next < *pos && t->head >= 0)
		ketwfs_trace_advance(t);
	return ketwfs_trace_current(t);
}

static void *ketwfs_trace_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct ketwfs_trace *t = m->private;

	if (v != SEQ_START_TOKEN)
		ketwfs_trace_advance(t);
	++*pos;
	return ketwfs_trace_current(t);
}

static void ketwfs_trace_stop(struct seq_file *m, void *v)
{
}

static int ketwfs_trace_show(struct seq_file *m, void *v)
{
	struct ketwfs_trace *t = m->private;
	const struct ketw_event_header *h = v;
	size_t need;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, "# session %s clock=%s policy=%s: one line per record, oldest first\n",
			   t->session,
			   ketw_clock_name(t->clock),
			   ketw_policy_name(t->policy));
		return 0;
	}
	need = ketwfs_line_max(h->size);
	if (need > t->text_cap) {
		kvfree(t->text);
		t->text_cap = 0;
		t->text = kvmalloc(need, GFP_KERNEL);
		if (!t->text)
			return -ENOMEM;
		t->text_cap = need;
	}
	seq_write(m, t->text, ketwfs_format(t->text, t->text_cap, h,
					    &t->names));
	return 0;
}

static const struct seq_operations ketwfs_trace_ops = {
	.start	= ketwfs_trace_start,
	.next	= ketwfs_trace_next,
	.stop	= ketwfs_trace_stop,
	.show	= ketwfs_trace_show,
};

static void ketwfs_trace_free(struct ketwfs_trace *t)
{
	int cpu;

	if (t->cpus)
		for_each_possible_cpu(cpu)
			kvfree(t->cpus[cpu].buf);
	kfree(t->cpus);
	kvfree(t->text);
}

/* Copy each CPU's buffer now; the file reads that copy. */
static int ketwfs_trace_snapshot(struct ketwfs_trace *t, struct ketw_session *s)
{
	struct ketw_session_attr a;
	u64 copied, dropped;
	size_t size;
	void *bounce;
	int cpu, err = 0;

	mutex_lock(&ketw_mutex);
	ketw_session_fill_attr(s, &a);
	mutex_unlock(&ketw_mutex);
	strscpy(t->session, a.name, KETW_NAME_MAX);
	t->clock = a.clock;
	t->policy = a.policy;
	t->cpus = kcalloc(nr_cpu_ids, sizeof(*t->cpus), GFP_KERNEL);
	size = (size_t)a.buffer_kb * 1024;
	/* Up to 256 MiB, as the user chose: fail quietly, not the OOM way. */
	bounce = kvmalloc(size, KETWFS_GFP_BIG);
	if (!t->cpus || !bounce) {
		kvfree(bounce);
		return -ENOMEM;
	}
	/* No read() or trace_pipe consumes while we copy. */
	if (mutex_lock_interruptible(&s->read_mutex)) {
		kvfree(bounce);
		return -ERESTARTSYS;
	}
	for_each_possible_cpu(cpu) {
		err = ketw_ring_snapshot_cpu_kernel(s->ring, cpu, bounce, size,
						    &copied, &dropped);
		if (err || !copied)
			continue;
		/* Keep what is there, not a whole buffer per CPU. */
		t->cpus[cpu].buf = kvmalloc(copied, KETWFS_GFP_BIG);
		if (!t->cpus[cpu].buf) {
			err = -ENOMEM;
			break;
		}
		memcpy(t->cpus[cpu].buf, bounce, copied);
		t->cpus[cpu].len = copied;
	}
	mutex_unlock(&s->read_mutex);
	kvfree(bounce);
	return err;
}

static int ketwfs_trace_open(struct inode *inode, struct file *file)
{
	struct ketw_session *s;
	struct ketwfs_trace *t;
	int err;

	err = ketwfs_open_check();
	if (err)
		return err;
	s = ketwfs_session(ketwfs_i(inode));
	if (IS_ERR(s))
		return PTR_ERR(s);
	t = __seq_open_private(file, &ketwfs_trace_ops, sizeof(*t));
	if (!t) {
		ketw_session_put(s);
		return -ENOMEM;
	}
	err = ketwfs_trace_snapshot(t, s);
	ketw_session_put(s);
	if (err) {
		ketwfs_trace_free(t);
		seq_release_private(inode, file);
		return err;
	}
	ketwfs_trace_rewind(t);
	return 0;
}

static int ketwfs_trace_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	ketwfs_trace_free(m->private);
	return seq_release_private(inode, file);
}

static const struct file_operations ketwfs_trace_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_trace_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= ketwfs_trace_release,
};

/* ---- trace_pipe and trace_pipe_raw: consuming readers ---- */

/* A record peeked on one CPU, not consumed yet. */
struct ketwfs_head {
	void *rec;
	size_t cap;
	u32 pos, span;
	bool have;
};

/**
 * struct ketwfs_pipe - an open trace_pipe or trace_pipe_raw
 * @s:        the session, attached (as a /dev/ketw file after ATTACH).
 * @cpu:      trace_pipe_raw: its CPU.
 * @returned: records were returned since the open or the last end of
 *            file: the next stop ends the file.
 * @lock:     trace_pipe: serialises reads of this file.
 * @names:    trace_pipe: provider names.
 * @heads:    trace_pipe: per possible CPU, its next record.
 * @text:     trace_pipe: the line being returned ...
 * @text_cap: ... its buffer's size,
 * @text_len: ... its length,
 * @text_off: ... and what was returned of it.
 */
struct ketwfs_pipe {
	struct ketw_session *s;
	int cpu;
	bool returned;
	struct mutex lock;		/* trace_pipe: one read at a time */
	struct ketwfs_names names;
	struct ketwfs_head *heads;
	char *text;
	size_t text_cap, text_len, text_off;
};

/* A reader holds its session: rmdir and KETW_IOC_DESTROY fail (EBUSY). */
static int ketwfs_attach(struct ketwfs_inode *ki, struct ketw_session **out)
{
	struct ketw_session *s = ketwfs_session_get(ki);

	if (!s)
		return -ENODEV;
	if (ketw_session_attach(s, NULL)) {
		ketw_session_put(s);
		return -ENODEV;		/* destroyed since the lookup */
	}
	*out = s;
	return 0;
}

static void ketwfs_detach(struct ketw_session *s)
{
	ketw_session_attach(NULL, s);
	ketw_session_put(s);
}

static int ketwfs_pipe_open(struct inode *inode, struct file *file)
{
	struct ketwfs_inode *ki = ketwfs_i(inode);
	struct ketwfs_pipe *p;
	int err;

	err = ketwfs_open_check();
	if (err)
		return err;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_init(&p->lock);
	p->cpu = ki->cpu;
	if (ki->kind == KFS_TRACE_PIPE) {
		p->heads = kcalloc(nr_cpu_ids, sizeof(*p->heads), GFP_KERNEL);
		if (!p->heads) {
			kfree(p);
			return -ENOMEM;
		}
	}
	err = ketwfs_attach(ki, &p->s);
	if (err) {
		kfree(p->heads);
		kfree(p);
		return err;
	}
	file->private_data = p;
	return stream_open(inode, file);
}

static int ketwfs_pipe_release(struct inode *inode, struct file *file)
{
	struct ketwfs_pipe *p = file->private_data;
	int cpu;

	ketwfs_detach(p->s);
	if (p->heads)
		for_each_possible_cpu(cpu)
			kvfree(p->heads[cpu].rec);
	kfree(p->heads);
	kvfree(p->text);
	kfree(p);
	return 0;
}

/* Peek at @cpu's next record into its head; 0 or -errno. */
static int ketwfs_pipe_peek(struct ketwfs_pipe *p, int cpu)
{
	struct ketwfs_head *hd = &p->heads[cpu];
	ssize_t n;

	for (;;) {
		if (!hd->rec) {
			hd->cap = max_t(size_t, p->s->max_span, 2048);
			hd->rec = kvmalloc(hd->cap, GFP_KERNEL);
			if (!hd->rec)
				return -ENOMEM;
		}
		n = ketw_ring_peek_cpu(p->s->ring, cpu, hd->rec, hd->cap,
				       &hd->pos);
		if (n == -EMSGSIZE && hd->cap < KETWFS_RECORD_MAX) {
			/* A system record larger than max_data_size. */
			kvfree(hd->rec);
			hd->rec = NULL;
			hd->cap = KETWFS_RECORD_MAX;
			hd->rec = kvmalloc(hd->cap, GFP_KERNEL);
			if (!hd->rec)
				return -ENOMEM;
			continue;
		}
		if (n < 0)
			return n;
		hd->span = n;
		hd->have = n > 0;
		return 0;
	}
}

static u64 ketwfs_head_ts(const struct ketwfs_head *hd)
{
	return ((const struct ketw_event_header *)hd->rec)->timestamp;
}

/*
 * Consume the oldest record any CPU has and make it the text to return.
 * Each CPU's next record is peeked, and only the oldest one consumed, so
 * that records the reader did not return stay in the buffers.
 *
 * Return: 1 if there is a line; 0 if no CPU has a record; -errno.
 */
static int ketwfs_pipe_next(struct ketwfs_pipe *p)
{
	struct ketw_session *s = p->s;
	struct ketwfs_head *hd, *best;
	int cpu, best_cpu = -1, ret;
	size_t need;

	if (mutex_lock_interruptible(&s->read_mutex))
		return -ERESTARTSYS;
	for (;;) {
		/* Writers (or a scribbled meta page) may keep us looking. */
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			goto out;
		}
		cond_resched();
		best = NULL;
		for_each_possible_cpu(cpu) {
			hd = &p->heads[cpu];
			if (!hd->have) {
				ret = ketwfs_pipe_peek(p, cpu);
				if (ret)
					goto out;
			}
			if (hd->have &&
			    (!best || ketwfs_head_ts(hd) < ketwfs_head_ts(best))) {
				best = hd;
				best_cpu = cpu;
			}
		}
		ret = 0;
		if (!best)
			goto out;
		best->have = false;
		/*
		 * Fails if a LOOP writer took it meanwhile: look again. A
		 * record that is not one is consumed and dropped.
		 */
		if (ketw_ring_consume_cpu(s->ring, best_cpu, best->pos,
					  best->span) &&
		    ketwfs_record_ok(best->rec, best->span))
			break;
	}
	mutex_unlock(&s->read_mutex);

	/* The copy is ours now; the head is refilled by the next call. */
	need = ketwfs_line_max(((struct ketw_event_header *)best->rec)->size);
	if (need > p->text_cap) {
		kvfree(p->text);
		p->text_cap = 0;
		p->text = kvmalloc(need, GFP_KERNEL);
		if (!p->text)
			return -ENOMEM;
		p->text_cap = need;
	}
	p->text_len = ketwfs_format(p->text, p->text_cap, best->rec,
				    &p->names);
	p->text_off = 0;
	return 1;
out:
	mutex_unlock(&s->read_mutex);
	return ret;
}

/*
 * Both pipes block while there is nothing to read, and end the file (read
 * returns 0, once) when the session is stopped and drained after they
 * returned records: "cat trace_pipe" ends with the run it showed, and on
 * a session stopped and drained already it waits for the next run.
 * Under ketw_mutex, the state is seen after the STOP record the stopper
 * logged under it: a reader that finds nothing, then sees the session
 * stopped, looks once more and then knows it has everything.
 */
static bool ketwfs_stopped(struct ketw_session *s)
{
	bool stopped;

	mutex_lock(&ketw_mutex);
	stopped = s->state == KETW_STATE_SUSPENDED;
	mutex_unlock(&ketw_mutex);
	return stopped;
}

static ssize_t ketwfs_pipe_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ketwfs_pipe *p = file->private_data;
	struct ketw_session *s = p->s;
	bool stopped = false;
	size_t copied = 0, n;
	ssize_t ret = 0;
	int err;

	if (!count)
		return 0;
	if (mutex_lock_interruptible(&p->lock))
		return -ERESTARTSYS;
	/* An mmap consumer owns the positions while it maps a data area. */
	err = ketw_ring_read_begin(s->ring);
	if (err) {
		mutex_unlock(&p->lock);
		return err;
	}
	for (;;) {
		if (p->text_off < p->text_len) {
			n = min(count - copied, p->text_len - p->text_off);
			if (copy_to_user(ubuf + copied, p->text + p->text_off,
					 n)) {
				ret = -EFAULT;
				break;
			}
			copied += n;
			p->text_off += n;
			if (copied == count)
				break;
			continue;
		}
		err = ketwfs_pipe_next(p);
		if (err > 0) {
			p->returned = true;
			continue;
		}
		if (err < 0 || copied || stopped) {
			if (!err && !copied)
				p->returned = false;	/* the end, once */
			ret = err;
			break;
		}
		stopped = p->returned && ketwfs_stopped(s);
		if (stopped)
			continue;	/* once more, then the end */
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		err = ketw_ring_wait(s->ring, KETW_WAIT_ANY, HZ / 10);
		if (err) {
			ret = err;
			break;
		}
	}
	ketw_ring_read_end(s->ring);
	mutex_unlock(&p->lock);
	return copied ? copied : ret;
}

static bool ketwfs_pipe_pending(struct ketwfs_pipe *p)
{
	int cpu;

	if (READ_ONCE(p->text_off) < READ_ONCE(p->text_len))
		return true;
	for_each_possible_cpu(cpu)
		if (READ_ONCE(p->heads[cpu].have))
			return true;
	return !ketw_ring_empty(p->s->ring);
}

static __poll_t ketwfs_pipe_poll(struct file *file,
				 struct poll_table_struct *pt)
{
	struct ketwfs_pipe *p = file->private_data;

	ketw_ring_poll_wait_any(p->s->ring, file, pt);
	if (ketwfs_pipe_pending(p))
		return EPOLLIN | EPOLLRDNORM;
	return READ_ONCE(p->returned) &&
	       READ_ONCE(p->s->state) == KETW_STATE_SUSPENDED ? EPOLLHUP : 0;
}

static const struct file_operations ketwfs_pipe_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_pipe_open,
	.read		= ketwfs_pipe_read,
	.poll		= ketwfs_pipe_poll,
	.release	= ketwfs_pipe_release,
	.llseek		= no_llseek,
};

/* trace_pipe_raw: whole binary records of one CPU, as /dev/ketw reads. */
static ssize_t ketwfs_raw_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct ketwfs_pipe *p = file->private_data;
	struct ketw_session *s = p->s;
	bool stopped = false;
	ssize_t ret;
	int err;

	if (!count)
		return 0;
	err = ketw_ring_read_begin(s->ring);
	if (err)
		return err;
	if (mutex_lock_interruptible(&s->read_mutex)) {
		ketw_ring_read_end(s->ring);
		return -ERESTARTSYS;
	}
	for (;;) {
		ret = ketw_ring_read_cpu(s->ring, p->cpu, ubuf, count);
		if (ret == -EMSGSIZE)
			ret = -EINVAL;	/* the next record does not fit */
		if (ret > 0)
			p->returned = true;
		if (ret || stopped) {
			if (!ret)
				p->returned = false;	/* the end, once */
			break;
		}
		stopped = p->returned && ketwfs_stopped(s);
		if (stopped)
			continue;	/* once more, then the end */
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			break;
		mutex_unlock(&s->read_mutex);
		err = ketw_ring_wait_cpu(s->ring, p->cpu, HZ / 10);
		if (!err && mutex_lock_interruptible(&s->read_mutex))
			err = -ERESTARTSYS;
		if (err) {
			ketw_ring_read_end(s->ring);
			return err;
		}
	}
	mutex_unlock(&s->read_mutex);
	ketw_ring_read_end(s->ring);
	return ret;
}

static __poll_t ketwfs_raw_poll(struct file *file, struct poll_table_struct *pt)
{
	struct ketwfs_pipe *p = file->private_data;

	ketw_ring_poll_wait_any(p->s->ring, file, pt);
	if (!ketw_ring_cpu_empty(p->s->ring, p->cpu))
		return EPOLLIN | EPOLLRDNORM;
	return READ_ONCE(p->returned) &&
	       READ_ONCE(p->s->state) == KETW_STATE_SUSPENDED ? EPOLLHUP : 0;
}

/*
 * Offset 0: the CPU's meta page; PAGE_SIZE: its data area. The offsets of
 * /dev/ketw for this CPU (KETW_MMAP_CPU(cpu), and the meta page's
 * data_offset) work too.
 */
static int ketwfs_raw_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ketwfs_pipe *p = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (off == 0 || off == PAGE_SIZE)
		vma->vm_pgoff += KETW_MMAP_CPU(p->cpu) >> PAGE_SHIFT;
	else if (off >> KETW_MMAP_CPU_SHIFT != (u64)p->cpu)
		return -EINVAL;
	return ketw_session_mmap(p->s, vma);
}

static const struct file_operations ketwfs_raw_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_pipe_open,
	.read		= ketwfs_raw_read,
	.poll		= ketwfs_raw_poll,
	.mmap		= ketwfs_raw_mmap,
	.release	= ketwfs_pipe_release,
	.llseek		= no_llseek,
};

static const struct file_operations *ketwfs_fops_of(u8 kind)
{
	switch (kind) {
	case KFS_ENABLE:
	case KFS_BUFFER_SIZE_KB:
	case KFS_POLICY:
	case KFS_MAX_DATA_SIZE:
	case KFS_CLOCK:
	case KFS_RUNDOWN:
	case KFS_SESSION_PROVIDERS:
	case KFS_EVENT_SET:
	case KFS_MAX_BUFFER:
	case KFS_ERROR_LOG:
		return &ketwfs_ctl_fops;
	case KFS_TRACE:
		return &ketwfs_trace_fops;
	case KFS_TRACE_PIPE:
		return &ketwfs_pipe_fops;
	case KFS_CPU_RAW:
		return &ketwfs_raw_fops;
	default:
		return &ketwfs_ro_fops;
	}
}

/* ---- the filesystem ---- */

static struct inode *ketwfs_alloc_inode(struct super_block *sb)
{
	struct ketwfs_inode *ki;

	ki = alloc_inode_sb(sb, ketwfs_inode_cachep, GFP_KERNEL);
	if (!ki)
		return NULL;
	ki->kind = KFS_ROOT;
	ki->cpu = -1;
	ki->sid.s = NULL;
	ki->sid.time = 0;
	ki->session[0] = 0;
	ki->provider[0] = 0;
	ki->event[0] = 0;
	return &ki->vfs;
}

static void ketwfs_free_inode(struct inode *inode)
{
	kmem_cache_free(ketwfs_inode_cachep, ketwfs_i(inode));
}

static const struct super_operations ketwfs_super_ops = {
	.alloc_inode	= ketwfs_alloc_inode,
	.free_inode	= ketwfs_free_inode,
	.drop_inode	= generic_delete_inode,
	.statfs		= simple_statfs,
};

static int ketwfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *root;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = KETWFS_MAGIC;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_op = &ketwfs_super_ops;
	sb->s_d_op = &ketwfs_dops;
	sb->s_time_gran = 1;
	sb->s_iflags |= SB_I_NOEXEC | SB_I_NODEV;
	root = ketwfs_new_inode(sb, NULL, KFS_ROOT, S_IFDIR | 0700, 1);
	if (!root)
		return -ENOMEM;
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static int ketwfs_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, ketwfs_fill_super);
}

static const struct fs_context_operations ketwfs_context_ops = {
	.get_tree	= ketwfs_get_tree,
};

static int ketwfs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &ketwfs_context_ops;
	return 0;
}

/* Nothing is pinned in the dcache: no kill_litter_super(). */
static struct file_system_type ketwfs_type = {
	.owner			= THIS_MODULE,
	.name			= "ketwfs",
	.init_fs_context	= ketwfs_init_fs_context,
	.kill_sb		= kill_anon_super,
};
MODULE_ALIAS_FS("ketwfs");

static void ketwfs_inode_init_once(void *p)
{
	struct ketwfs_inode *ki = p;

	inode_init_once(&ki->vfs);
}

/**
 * ketwfs_init() - register ketwfs and make its mount point
 *
 * /sys/kernel/ketw is an empty directory until ketwfs is mounted there.
 *
 * Return: 0 or a negative errno.
 */
int ketwfs_init(void)
{
	int err;

	ketwfs_inode_cachep = kmem_cache_create("ketwfs_inode_cache",
						sizeof(struct ketwfs_inode), 0,
						SLAB_RECLAIM_ACCOUNT |
						SLAB_ACCOUNT,
						ketwfs_inode_init_once);
	if (!ketwfs_inode_cachep)
		return -ENOMEM;
	err = sysfs_create_mount_point(kernel_kobj, KETWFS_MOUNT_POINT);
	if (err)
		goto out_cache;
	err = register_filesystem(&ketwfs_type);
	if (err)
		goto out_mount_point;
	return 0;

out_mount_point:
	sysfs_remove_mount_point(kernel_kobj, KETWFS_MOUNT_POINT);
out_cache:
	kmem_cache_destroy(ketwfs_inode_cachep);
	return err;
}

/**
 * ketwfs_exit() - unregister ketwfs and remove its mount point
 *
 * A mounted ketwfs holds the module, so it is not mounted here.
 */
void ketwfs_exit(void)
{
	unregister_filesystem(&ketwfs_type);
	sysfs_remove_mount_point(kernel_kobj, KETWFS_MOUNT_POINT);
	/* Inodes are freed after a grace period (ketwfs_free_inode()). */
	rcu_barrier();
	kmem_cache_destroy(ketwfs_inode_cachep);
}
