// SPDX-License-Identifier: GPL-2.0
/*
 * ketwfs: ketw's control filesystem, in the manner of tracefs; this file
 * is the filesystem itself (mount, inodes, directories, sessions/ mkdir
 * and rmdir), fs_ctl.c its control files, fs_trace.c its trace readers.
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
 * Lock order: a directory's i_rwsem, then ketw_mutex (fs_ctl.c and
 * fs_trace.c give theirs). Nothing here copies to or from user space
 * under ketw_mutex.
 *
 * Documentation/ketw-fs.rst describes every file.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/sysfs.h>

#include "fs.h"

#define KETWFS_MAGIC		0x6b657477	/* "ketw" */
#define KETWFS_MOUNT_POINT	"ketw"		/* under /sys/kernel */

static struct kmem_cache *ketwfs_inode_cachep;

/* A fixed child of a directory. */
struct ketwfs_entry {
	const char *name;
	u8 kind;
	umode_t mode;
};

static const struct ketwfs_entry ketwfs_root_entries[] = {
	{ "bridge_items",	KFS_BRIDGE_ITEMS,	S_IFREG | 0600 },
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
	{ "items",		KFS_ITEMS,		S_IFREG | 0600 },
	{ "max_data_size",	KFS_MAX_DATA_SIZE,	S_IFREG | 0600 },
	{ "per_cpu",		KFS_PER_CPU,		S_IFDIR | 0500 },
	{ "pids",		KFS_PIDS,		S_IFREG | 0600 },
	{ "policy",		KFS_POLICY,		S_IFREG | 0600 },
	{ "providers",		KFS_SESSION_PROVIDERS,	S_IFREG | 0600 },
	{ "rundown",		KFS_RUNDOWN,		S_IFREG | 0600 },
	{ "stats",		KFS_STATS,		S_IFREG | 0400 },
	{ "status",		KFS_STATUS,		S_IFREG | 0400 },
	{ "trace",		KFS_TRACE,		S_IFREG | 0400 },
	{ "trace_pipe",		KFS_TRACE_PIPE,		S_IFREG | 0400 },
	{ "trigger",		KFS_TRIGGER,		S_IFREG | 0600 },
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
const struct ketw_event_descriptor *
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

/* Which session @s is, for a directory made for it. */
static struct ketwfs_sid ketwfs_sid_of(const struct ketw_session *s)
{
	struct ketwfs_sid sid = { .s = s };

	mutex_lock(&ketw_mutex);
	sid.time = s->attr.creation_time;
	mutex_unlock(&ketw_mutex);
	return sid;
}

/*
 * The session @ki stands for, with a reference, or NULL if it is gone
 * (another of its name does not count).
 */
struct ketw_session *ketwfs_session_get(const struct ketwfs_inode *ki)
{
	struct ketw_session *s = ketw_session_get(ki->session);
	struct ketwfs_sid sid;

	if (IS_ERR(s))
		return NULL;
	sid = ketwfs_sid_of(s);
	if (s != ki->sid.s || sid.time != ki->sid.time) {
		ketw_session_put(s);
		return NULL;
	}
	return s;
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
		s = ketw_session_get(name);
		if (!IS_ERR(s)) {
			sid = ketwfs_sid_of(s);
			ketw_session_put(s);
			found = true;
		}
		kind = KFS_SESSION;
		mode = S_IFDIR | 0700;
		break;
	case KFS_PROVIDERS:
		mutex_lock(&ketw_mutex);
		found = ketw_provider_find(name, NULL, false);
		mutex_unlock(&ketw_mutex);
		kind = KFS_PROVIDER;
		break;
	case KFS_EVENTS:
		mutex_lock(&ketw_mutex);
		prov = ketw_provider_find(pi->provider, NULL, false);
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
	struct ketw_session *s;
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
	if (ki->kind == KFS_SESSION) {
		s = ketwfs_session_get(ki);
		if (s)
			ketw_session_put(s);
		return !!s;
	}
	mutex_lock(&ketw_mutex);
	prov = ketw_provider_find(ki->provider, NULL, false);
	ok = prov && (ki->kind == KFS_PROVIDER ||
		      ketwfs_find_event(prov, ki->event));
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

/* Session names are unique too; one named "." or ".." has no directory. */
static int ketwfs_list_session_fn(struct ketw_session *s, void *arg)
{
	if (!ketwfs_name_ok(s->attr.name))
		return 0;
	return ketwfs_list_push(arg, s->attr.name);
}

static int ketwfs_list_dir(struct ketwfs_inode *pi, struct ketwfs_names_list *l)
{
	char buf[KETW_NAME_MAX];
	struct ketw_provider *prov;
	int err = 0;
	u32 i;

	mutex_lock(&ketw_mutex);
	switch (pi->kind) {
	case KFS_SESSIONS:
		err = ketw_sessions_for_each(ketwfs_list_session_fn, l);
		break;
	case KFS_PROVIDERS:
		err = ketw_providers_for_each(ketwfs_list_provider_fn, l);
		break;
	case KFS_EVENTS:
		prov = ketw_provider_find(pi->provider, NULL, false);
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
void ketwfs_log_memory(const char *name, const char *what, u64 need, int err)
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

/* ---- shared by the files ---- */

int ketwfs_open_check(void)
{
	/* As /dev/ketw: the files see events from the whole kernel. */
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

struct ketw_session *ketwfs_session(struct ketwfs_inode *ki)
{
	struct ketw_session *s = ketwfs_session_get(ki);

	return s ? s : ERR_PTR(-ENODEV);
}

static const struct file_operations *ketwfs_fops_of(u8 kind)
{
	switch (kind) {
	case KFS_ENABLE:
	case KFS_BUFFER_SIZE_KB:
	case KFS_POLICY:
	case KFS_MAX_DATA_SIZE:
	case KFS_CLOCK:
	case KFS_ITEMS:
	case KFS_RUNDOWN:
	case KFS_SESSION_PROVIDERS:
	case KFS_EVENT_SET:
	case KFS_TRIGGER:
	case KFS_PIDS:
	case KFS_MAX_BUFFER:
	case KFS_ERROR_LOG:
	case KFS_BRIDGE_ITEMS:
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
