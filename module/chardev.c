// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ketw: the control surface (ioctl) and the read()/poll()/mmap()
 * drain; /dev/ketw_user: user-space providers only.
 *
 * Opening /dev/ketw needs CAP_SYS_ADMIN (and the node is 0600): a session
 * reads events from the whole kernel. A file is attached to at most one
 * session (by CREATE or ATTACH); read(), poll() and mmap() drain that
 * session. A file may own one session it created with KETW_SESSION_OWNED
 * and hold one user provider registration (USER_REGISTER); both go away
 * with it. /dev/ketw_user (0666) takes only USER_REGISTER, USER_WRITE,
 * USER_WRITEV and USER_CONFLICT, and opening it needs CAP_SYS_ADMIN or
 * the group user_gid. CAP_SYS_ADMIN is the initial user namespace's
 * (capable(), never ns_capable()): root in a container's user namespace
 * controls no session.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ketw_internal.h"

/*
 * Each extensible struct's first size is where its last field of that
 * version ends (as clone_args' CLONE_ARGS_SIZE_VER0): a struct that grows
 * keeps these, and a new field needs a new SIZE_VER.
 */
static_assert(offsetofend(struct ketw_list, entries) == KETW_LIST_SIZE_VER0);
static_assert(offsetofend(struct ketw_enable, filter) == KETW_ENABLE_SIZE_VER0);
static_assert(offsetofend(struct ketw_enable, reserved) ==
	      KETW_ENABLE_SIZE_VER1);
static_assert(offsetofend(struct ketw_user_provider, name) ==
	      KETW_USER_PROVIDER_SIZE_VER0);
static_assert(offsetofend(struct ketw_user_provider, reserved) ==
	      KETW_USER_PROVIDER_SIZE_VER1);
static_assert(offsetofend(struct ketw_user_event, reserved1) ==
	      KETW_USER_EVENT_SIZE_VER0);
static_assert(offsetofend(struct ketw_user_event, related) ==
	      KETW_USER_EVENT_SIZE_VER1);
static_assert(offsetofend(struct ketw_session_attr, memory) ==
	      KETW_SESSION_ATTR_SIZE_VER0);
static_assert(offsetofend(struct ketw_cpu_stats, consumed) ==
	      KETW_CPU_STATS_SIZE_VER0);
static_assert(offsetofend(struct ketw_session_status, overwritten) ==
	      KETW_SESSION_STATUS_SIZE_VER0);
static_assert(offsetofend(struct ketw_session_status, reserved2) ==
	      KETW_SESSION_STATUS_SIZE_VER1);
static_assert(offsetofend(struct ketw_session_status, pids_dropped) ==
	      KETW_SESSION_STATUS_SIZE_VER2);
static_assert(offsetofend(struct ketw_pid_filter, pids) ==
	      KETW_PID_FILTER_SIZE_VER0);
static_assert(offsetofend(struct ketw_trigger, value) ==
	      KETW_TRIGGER_SIZE_VER0);
static_assert(offsetofend(struct ketw_snapshot, dropped) ==
	      KETW_SNAPSHOT_SIZE_VER0);
static_assert(offsetofend(struct ketw_session_info, memory) ==
	      KETW_SESSION_INFO_SIZE_VER0);
static_assert(offsetofend(struct ketw_session_list, entries) ==
	      KETW_SESSION_LIST_SIZE_VER0);
static_assert(offsetofend(struct ketw_user_conflict, reason) ==
	      KETW_USER_CONFLICT_SIZE_VER0);

int ketw_user_gid = -1;
module_param_cb(user_gid, &ketw_param_ops_int, &ketw_user_gid, 0644);
__MODULE_PARM_TYPE(user_gid, "int");
MODULE_PARM_DESC(user_gid, "group that may open /dev/ketw_user and log user events (-1: root only)");

/*
 * An open /dev/ketw or /dev/ketw_user. The rules for @session are in
 * Documentation/ketw-lifetimes.rst: it changes under @attach_lock and is
 * published under @session_lock, under which read(), poll() and mmap()
 * take their own reference. @owned, the session this file created with
 * KETW_SESSION_OWNED, changes under @attach_lock; release() destroys it.
 *
 * @user_reg is set once, by the file's one successful USER_REGISTER
 * (under @lock, published with smp_store_release()), never changed after,
 * and freed only by release(), which runs once no system call holds the
 * file (an ioctl, mmap() holds a reference or runs in the one thread of
 * the file table). So the writers (USER_WRITE, USER_WRITEV) and mmap()
 * read it with smp_load_acquire() and no lock: NULL, or the registration
 * for as long as the system call runs.
 */
struct ketw_file {
	struct mutex attach_lock;	/* one change of @session at a time */
	spinlock_t session_lock;	/* publishes @session */
	struct ketw_session *session;	/* attached (a reference), or NULL */
	struct ketw_session *owned;	/* created here, OWNED (a reference) */
	wait_queue_head_t wait;		/* read() and poll() sleep here */
	wait_queue_entry_t ring_wait;	/* on @session's ring: wakes @wait */
	unsigned int cursor;		/* the CPU read() starts from */
	u32 ack_snapshots;		/* snapshots_ready as STATUS last said */
	u32 ack_wakeups;		/* wakeups as STATUS last said */
	bool user_only;			/* opened through /dev/ketw_user */
	bool limited;			/* ... without CAP_SYS_ADMIN */
	struct mutex lock;		/* user_reg, conflict */
	struct ketw_user_reg *user_reg;	/* registered on this file, or NULL */
	u32 conflict;			/* of the last USER_REGISTER */
};

static struct miscdevice ketw_user_misc;

/* The attached session's ring woke its waiters: wake the file's. */
static int ketw_file_ring_wake(struct wait_queue_entry *wq, unsigned int mode,
			       int sync, void *key)
{
	struct ketw_file *kf = container_of(wq, struct ketw_file, ring_wait);

	wake_up_interruptible_all(&kf->wait);
	return 0;
}

static int ketw_open(struct inode *inode, struct file *file)
{
	bool user_only = file->private_data == &ketw_user_misc;
	bool admin = capable(CAP_SYS_ADMIN);
	struct ketw_file *kf;
	int gid = READ_ONCE(ketw_user_gid);

	if (!admin &&
	    !(user_only && gid >= 0 &&
	      in_group_p(make_kgid(&init_user_ns, gid))))
		return -EPERM;
	kf = kzalloc(sizeof(*kf), GFP_KERNEL);
	if (!kf)
		return -ENOMEM;
	kf->user_only = user_only;
	kf->limited = !admin;
	mutex_init(&kf->attach_lock);
	spin_lock_init(&kf->session_lock);
	init_waitqueue_head(&kf->wait);
	init_waitqueue_func_entry(&kf->ring_wait, ketw_file_ring_wake);
	mutex_init(&kf->lock);
	file->private_data = kf;
	return 0;
}

/* The session @kf is attached to, with a reference; or NULL. */
static struct ketw_session *ketw_file_session(struct ketw_file *kf)
{
	struct ketw_session *s;

	spin_lock(&kf->session_lock);
	s = kf->session;
	if (s)
		kref_get(&s->kref);
	spin_unlock(&kf->session_lock);
	return s;
}

/*
 * Attach @kf to @s, taking over the caller's reference, or detach it (@s
 * NULL). Sleepers in read() and poll() are woken to look again.
 *
 * Return: 0; -ENOENT if @s was destroyed meanwhile (the reference is
 * dropped and the file stays as it was).
 */
static int ketw_file_set(struct ketw_file *kf, struct ketw_session *s)
{
	struct ketw_session *old = kf->session;
	int err;

	lockdep_assert_held(&kf->attach_lock);
	if (old == s) {
		if (s)
			ketw_session_put(s);	/* attached already */
		return 0;
	}
	err = ketw_session_attach(s, old);
	if (err) {
		ketw_session_put(s);
		return err;
	}
	if (old)
		ketw_session_unwatch(old, &kf->ring_wait);
	if (s)
		ketw_session_watch(s, &kf->ring_wait);
	spin_lock(&kf->session_lock);
	kf->session = s;
	/* A new session: what its triggers made ready is news. */
	WRITE_ONCE(kf->ack_snapshots, 0);
	WRITE_ONCE(kf->ack_wakeups, 0);
	spin_unlock(&kf->session_lock);
	wake_up_interruptible_all(&kf->wait);
	if (old)
		ketw_session_put(old);
	return 0;
}

/*
 * Release runs at the last close of the file (dup() and fork() copies
 * included): the session it owns goes, whoever else is attached to it.
 */
static int ketw_release(struct inode *inode, struct file *file)
{
	struct ketw_file *kf = file->private_data;
	struct ketw_session *owned;

	mutex_lock(&kf->attach_lock);
	ketw_file_set(kf, NULL);
	owned = kf->owned;
	kf->owned = NULL;
	if (owned)
		ketw_session_destroy_owned(owned);
	mutex_unlock(&kf->attach_lock);
	if (owned)
		ketw_session_put(owned);
	if (kf->user_reg)
		ketw_user_provider_unregister(kf->user_reg);
	kfree(kf);
	return 0;
}

/*
 * Copy an extensible struct whose __u32 size is at @size_off (first,
 * but in struct ketw_pid_filter; @min leaves room for it). Sizes below
 * @min are EINVAL, above a page E2BIG, and a longer struct's unknown tail
 * must be zero (E2BIG otherwise).
 */
static int ketw_copy_sized(void *dst, size_t ksize, size_t min,
			   const void __user *src, size_t size_off, u32 *usize)
{
	int err;

	if (get_user(*usize, (const u32 __user *)(src + size_off)))
		return -EFAULT;
	if (*usize < min)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(dst, ksize, src, *usize);
	return err;
}

/*
 * Copy an extensible struct back: its size field says the kernel's size,
 * and the caller gets as much as it knows of.
 */
static int ketw_copy_sized_out(void __user *dst, void *src, size_t ksize,
			       size_t size_off, u32 usize)
{
	*(u32 *)(src + size_off) = ksize;
	if (copy_to_user(dst, src, min_t(size_t, usize, ksize)))
		return -EFAULT;
	return 0;
}

/*
 * The ioctls, table-driven. Every request has one shape: its struct is
 * copied in (an extensible one by ketw_copy_sized(), a fixed one whole),
 * checked, the session it names is looked up, the handler acts, and the
 * struct is copied back (ketw_copy_sized_out()) if the request returns
 * one. A handler sees the copy and, for a request that names a session,
 * the session with a reference that the dispatcher drops.
 */
union ketw_ioctl_arg {
	struct ketw_session_attr attr;
	struct ketw_session_ref ref;
	struct ketw_cpu_stats cpu_stats;
	struct ketw_session_status status;
	struct ketw_snapshot snapshot;
	struct ketw_enable enable;
	struct ketw_list list;
	struct ketw_session_list sessions;
	struct ketw_user_provider user_provider;
	struct ketw_user_event user_event;
	struct ketw_user_conflict user_conflict;
	struct ketw_trigger trigger;
	struct ketw_pid_filter pids;
};

/* struct ketw_ioctl_desc flags. */
#define KETW_IOCF_USER		BIT(0)	/* also on /dev/ketw_user */
#define KETW_IOCF_SESSION	BIT(1)	/* names a session at @name_off */
#define KETW_IOCF_OUT		BIT(2)	/* copied back on success */

/**
 * struct ketw_ioctl_desc - how one ioctl is carried out
 * @cmd:      the command, size and direction included.
 * @ver0:     for an extensible struct (a __u32 size first), the smallest
 *            size accepted; 0 for a fixed one, copied whole.
 * @flags:    KETW_IOCF_*.
 * @name_off: with KETW_IOCF_SESSION: where the session's name is.
 * @size_off: for an extensible struct, where its __u32 size is.
 * @check:    optional: refuses a bad request before the session is looked
 *            up, so that it fails alike whether the session exists or not.
 * @fn:       acts on the request; @s is the named session, or NULL.
 */
struct ketw_ioctl_desc {
	unsigned int cmd;
	unsigned int ver0;
	unsigned int flags;
	unsigned int name_off;
	unsigned int size_off;
	int (*check)(unsigned int cmd, union ketw_ioctl_arg *a);
	long (*fn)(struct ketw_file *kf, struct ketw_session *s,
		   unsigned int cmd, union ketw_ioctl_arg *a);
};

static long ketw_ioctl_create(struct ketw_file *kf, struct ketw_session *unused,
			      unsigned int cmd, union ketw_ioctl_arg *a)
{
	bool owned = a->attr.flags & KETW_SESSION_OWNED;
	struct ketw_session *s, *old = NULL;
	int err;

	mutex_lock(&kf->attach_lock);
	/* One owned session per file; a destroyed one makes room. */
	if (owned && kf->owned && !ketw_session_destroyed(kf->owned)) {
		mutex_unlock(&kf->attach_lock);
		return -EBUSY;
	}
	err = ketw_session_create(&a->attr, &s);
	if (err) {
		mutex_unlock(&kf->attach_lock);
		return err;
	}
	if (owned) {
		old = kf->owned;
		kref_get(&s->kref);
		kf->owned = s;
	}
	err = ketw_file_set(kf, s);
	mutex_unlock(&kf->attach_lock);
	if (old)
		ketw_session_put(old);
	/*
	 * -ENOENT: destroyed by another file already. On a later EFAULT the
	 * session exists all the same: the caller may GET it.
	 */
	return err;
}

static long ketw_ioctl_get_attr(struct ketw_file *kf, struct ketw_session *s,
				unsigned int cmd, union ketw_ioctl_arg *a)
{
	mutex_lock(&ketw_mutex);
	ketw_session_fill_attr(s, &a->attr);
	mutex_unlock(&ketw_mutex);
	return 0;
}

static int ketw_check_cpu(u32 cpu)
{
	return cpu < nr_cpu_ids && cpu_possible(cpu) ? 0 : -EINVAL;
}

static int ketw_check_cpu_stats(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_check_cpu(a->cpu_stats.cpu);
}

static long ketw_ioctl_cpu_stats(struct ketw_file *kf, struct ketw_session *s,
				 unsigned int cmd, union ketw_ioctl_arg *a)
{
	ketw_session_stats_cpu(s, a->cpu_stats.cpu, &a->cpu_stats);
	return 0;
}

static int ketw_check_status(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return a->status.reserved0 ? -EINVAL : 0;
}

/*
 * Reading the status of the session this file is attached to
 * acknowledges the snapshots and wake-ups it reports: poll() reports
 * EPOLLPRI only for later ones.
 */
static long ketw_ioctl_status(struct ketw_file *kf, struct ketw_session *s,
			      unsigned int cmd, union ketw_ioctl_arg *a)
{
	int err = ketw_session_status(s, &a->status);

	if (!err && READ_ONCE(kf->session) == s) {
		WRITE_ONCE(kf->ack_snapshots, a->status.snapshots_ready);
		WRITE_ONCE(kf->ack_wakeups, a->status.wakeups);
	}
	return err;
}

static int ketw_check_trigger(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return cmd == KETW_IOC_TRIGGER_ADD ? ketw_trigger_check(&a->trigger) :
					     0;
}

static long ketw_ioctl_trigger(struct ketw_file *kf, struct ketw_session *s,
			       unsigned int cmd, union ketw_ioctl_arg *a)
{
	return cmd == KETW_IOC_TRIGGER_ADD ?
	       ketw_session_trigger_add(s, &a->trigger) :
	       ketw_session_trigger_del(s, a->trigger.id);
}

static int ketw_check_snapshot(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_check_cpu(a->snapshot.cpu);
}

static long ketw_ioctl_snapshot(struct ketw_file *kf, struct ketw_session *s,
				unsigned int cmd, union ketw_ioctl_arg *a)
{
	struct ketw_snapshot *snap = &a->snapshot;

	return ketw_session_snapshot_cpu_user(s, snap->cpu,
					      u64_to_user_ptr(snap->buf),
					      min_t(u64, snap->buf_len, SIZE_MAX),
					      &snap->len, &snap->dropped);
}

/* A bad request is -EINVAL, whether its session exists or not. */
static int ketw_check_enable(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_enable_check(&a->enable, cmd == KETW_IOC_ENABLE);
}

static long ketw_ioctl_enable(struct ketw_file *kf, struct ketw_session *s,
			      unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_session_enable(s, &a->enable);
}

static long ketw_ioctl_get_filter(struct ketw_file *kf, struct ketw_session *s,
				  unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_session_get_filter(s, &a->enable);
}

static int ketw_check_list(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return a->list.reserved ? -EINVAL : 0;
}

static long ketw_ioctl_list(struct ketw_file *kf, struct ketw_session *unused,
			    unsigned int cmd, union ketw_ioctl_arg *a)
{
	return cmd == KETW_IOC_PROVIDERS ? ketw_providers_list(&a->list) :
					   ketw_events_list(&a->list);
}

static long ketw_ioctl_sessions(struct ketw_file *kf,
				struct ketw_session *unused, unsigned int cmd,
				union ketw_ioctl_arg *a)
{
	return ketw_sessions_list(&a->sessions);
}

static long ketw_ioctl_user_register(struct ketw_file *kf,
				     struct ketw_session *unused,
				     unsigned int cmd, union ketw_ioctl_arg *a)
{
	u32 conflict = KETW_USER_CONFLICT_NONE;
	struct ketw_user_reg *reg;
	int err = 0;

	mutex_lock(&kf->lock);
	if (kf->user_reg) {
		err = -EBUSY;		/* one registration per file */
	} else {
		reg = ketw_user_provider_register(&a->user_provider,
						  kf->limited, &conflict);
		if (IS_ERR(reg))
			err = PTR_ERR(reg);
		else	/* read without the lock: see struct ketw_file */
			smp_store_release(&kf->user_reg, reg);
	}
	kf->conflict = conflict;
	mutex_unlock(&kf->lock);
	return err;
}

/* Why this file's last USER_REGISTER was EEXIST (struct ketw_user_conflict). */
static long ketw_ioctl_user_conflict(struct ketw_file *kf,
				     struct ketw_session *unused,
				     unsigned int cmd, union ketw_ioctl_arg *a)
{
	mutex_lock(&kf->lock);
	a->user_conflict.reason = kf->conflict;
	mutex_unlock(&kf->lock);
	return 0;
}

/* Payloads up to this size are copied on the stack. */
#define KETW_USER_STACK_DATA	256

static int ketw_check_user_write(unsigned int cmd, union ketw_ioctl_arg *a)
{
	const struct ketw_user_event *ue = &a->user_event;

	if (ue->reserved || ue->reserved1 || ue->len > KETW_MAX_DATA_SIZE ||
	    ue->level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	return 0;
}

static long ketw_ioctl_user_write(struct ketw_file *kf,
				  struct ketw_session *unused,
				  unsigned int cmd, union ketw_ioctl_arg *a)
{
	const struct ketw_user_event *ue = &a->user_event;
	struct ketw_ext_src src = { .prog_addr = ue->prog_addr };
	struct ketw_event_descriptor desc = {};
	u8 stack[KETW_USER_STACK_DATA] __uninitialized;	/* copied over */
	struct ketw_user_reg *reg;
	void *data = stack;
	long ret;

	if (ue->len > sizeof(stack)) {
		data = kvmalloc(ue->len, GFP_KERNEL);
		if (!data)
			return -ENOMEM;
	}
	if (copy_from_user(data, u64_to_user_ptr(ue->data), ue->len)) {
		ret = -EFAULT;
		goto out;
	}
	desc.id = ue->id;
	desc.type = ue->type;
	desc.level = ue->level;
	desc.version = ue->version;
	desc.keyword = ue->keyword;
	if (memchr_inv(ue->activity, 0, sizeof(ue->activity))) {
		src.activity = ue->activity;
		src.related = ue->related;
	}
	/* Pairs with the store in ketw_ioctl_user_register(). */
	reg = smp_load_acquire(&kf->user_reg);
	if (!reg)
		ret = -EINVAL;		/* no provider registered on this file */
	else
		ret = ketw_user_write(reg, &desc, data, ue->len, &src);
out:
	if (data != stack)
		kvfree(data);
	return ret;
}

/* USER_WRITEV: no lock, no copy of the request (see struct ketw_file). */
static long ketw_ioctl_user_writev(struct ketw_file *kf, void __user *uarg)
{
	/* Pairs with the store in ketw_ioctl_user_register(). */
	struct ketw_user_reg *reg = smp_load_acquire(&kf->user_reg);

	if (!reg)
		return -ENODEV;	/* no provider registered on this file */
	return ketw_user_writev(reg, uarg);
}

static long ketw_ioctl_start(struct ketw_file *kf, struct ketw_session *s,
			     unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_session_start(s);
}

static long ketw_ioctl_stop(struct ketw_file *kf, struct ketw_session *s,
			    unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_session_stop(s);
}

static long ketw_ioctl_destroy(struct ketw_file *kf, struct ketw_session *s,
			       unsigned int cmd, union ketw_ioctl_arg *a)
{
	int err;

	mutex_lock(&kf->attach_lock);
	err = ketw_session_destroy(s, kf->session);
	if (!err && kf->session == s)
		ketw_file_set(kf, NULL);
	if (!err && kf->owned == s) {
		kf->owned = NULL;	/* its memory need not wait */
		ketw_session_put(s);	/* the owner's; the request's is put after */
	}
	mutex_unlock(&kf->attach_lock);
	return err;
}

static long ketw_ioctl_attach(struct ketw_file *kf, struct ketw_session *s,
			      unsigned int cmd, union ketw_ioctl_arg *a)
{
	int err;

	kref_get(&s->kref);	/* the file's, besides the request's */
	mutex_lock(&kf->attach_lock);
	err = ketw_file_set(kf, s);
	mutex_unlock(&kf->attach_lock);
	return err;
}

static long ketw_ioctl_flush(struct ketw_file *kf, struct ketw_session *s,
			     unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_session_flush(s);
}

static long ketw_ioctl_rundown(struct ketw_file *kf, struct ketw_session *s,
			       unsigned int cmd, union ketw_ioctl_arg *a)
{
	return ketw_session_rundown(s);
}

static int ketw_check_pids(unsigned int cmd, union ketw_ioctl_arg *a)
{
	return cmd == KETW_IOC_SET_PIDS ?
	       ketw_pids_check(a->pids.count, a->pids.flags) : 0;
}

/* SET_PIDS: the pids are copied in whole, at most KETW_PIDS_MAX of them. */
static long ketw_ioctl_set_pids(struct ketw_file *kf, struct ketw_session *s,
				unsigned int cmd, union ketw_ioctl_arg *a)
{
	const struct ketw_pid_filter *pf = &a->pids;
	s32 *pids = NULL;
	long err;

	if (pf->count) {
		pids = memdup_user(u64_to_user_ptr(pf->pids),
				   array_size(pf->count, sizeof(*pids)));
		if (IS_ERR(pids))
			return PTR_ERR(pids);
	}
	err = ketw_session_set_pids(s, pids, pf->count, pf->flags);
	kfree(pids);
	return err;
}

/* GET_PIDS: as many as @capacity holds; @count says how many there are. */
static long ketw_ioctl_get_pids(struct ketw_file *kf, struct ketw_session *s,
				unsigned int cmd, union ketw_ioctl_arg *a)
{
	struct ketw_pid_filter *pf = &a->pids;
	u32 *ids, n, flags;
	long err;

	ids = kmalloc_array(KETW_PIDS_MAX, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	err = ketw_session_get_pids(s, ids, &n, &flags);
	if (!err && copy_to_user(u64_to_user_ptr(pf->pids), ids,
				 array_size(min(n, pf->capacity),
					    sizeof(*ids))))
		err = -EFAULT;
	kfree(ids);
	pf->count = n;
	pf->flags = flags;
	return err;
}

#define KETW_IOCTL(c, v, f, nm, chk, handler)				\
	[_IOC_NR(c)] = { .cmd = (c), .ver0 = (v), .flags = (f),		\
			 .name_off = (nm), .check = (chk), .fn = (handler) }
/* A request on the session its struct names in @member. */
#define KETW_IOCTL_S(c, v, f, type, member, chk, handler)		\
	KETW_IOCTL(c, v, (f) | KETW_IOCF_SESSION,			\
		   offsetof(union ketw_ioctl_arg, type.member), chk, handler)
/* The same, the struct's size not first. */
#define KETW_IOCTL_SO(c, v, f, type, member, chk, handler)		\
	[_IOC_NR(c)] = { .cmd = (c), .ver0 = (v),			\
			 .flags = (f) | KETW_IOCF_SESSION,		\
			 .name_off = offsetof(union ketw_ioctl_arg,	\
					      type.member),		\
			 .size_off = offsetof(union ketw_ioctl_arg,	\
					      type.size),		\
			 .check = (chk), .fn = (handler) }

static const struct ketw_ioctl_desc ketw_ioctls[] = {
	KETW_IOCTL(KETW_IOC_CREATE, KETW_SESSION_ATTR_SIZE_VER0, KETW_IOCF_OUT,
		   0, NULL, ketw_ioctl_create),
	KETW_IOCTL_S(KETW_IOC_START, 0, 0, ref, name, NULL, ketw_ioctl_start),
	KETW_IOCTL_S(KETW_IOC_STOP, 0, 0, ref, name, NULL, ketw_ioctl_stop),
	KETW_IOCTL_S(KETW_IOC_DESTROY, 0, 0, ref, name, NULL,
		     ketw_ioctl_destroy),
	KETW_IOCTL_S(KETW_IOC_ATTACH, 0, 0, ref, name, NULL, ketw_ioctl_attach),
	KETW_IOCTL_S(KETW_IOC_GET_ATTR, KETW_SESSION_ATTR_SIZE_VER0,
		     KETW_IOCF_OUT, attr, name, NULL, ketw_ioctl_get_attr),
	KETW_IOCTL_S(KETW_IOC_CPU_STATS, KETW_CPU_STATS_SIZE_VER0,
		     KETW_IOCF_OUT, cpu_stats, name, ketw_check_cpu_stats,
		     ketw_ioctl_cpu_stats),
	KETW_IOCTL_S(KETW_IOC_STATUS, KETW_SESSION_STATUS_SIZE_VER0,
		     KETW_IOCF_OUT, status, name, ketw_check_status,
		     ketw_ioctl_status),
	KETW_IOCTL_S(KETW_IOC_SNAPSHOT, KETW_SNAPSHOT_SIZE_VER0, KETW_IOCF_OUT,
		     snapshot, name, ketw_check_snapshot, ketw_ioctl_snapshot),
	KETW_IOCTL_S(KETW_IOC_FLUSH, 0, 0, ref, name, NULL, ketw_ioctl_flush),
	KETW_IOCTL_S(KETW_IOC_ENABLE, KETW_ENABLE_SIZE_VER0, 0, enable, session,
		     ketw_check_enable, ketw_ioctl_enable),
	KETW_IOCTL_S(KETW_IOC_GET_FILTER, KETW_ENABLE_SIZE_VER0, KETW_IOCF_OUT,
		     enable, session, ketw_check_enable, ketw_ioctl_get_filter),
	KETW_IOCTL(KETW_IOC_PROVIDERS, KETW_LIST_SIZE_VER0, KETW_IOCF_OUT, 0,
		   ketw_check_list, ketw_ioctl_list),
	KETW_IOCTL(KETW_IOC_EVENTS, KETW_LIST_SIZE_VER0, KETW_IOCF_OUT, 0,
		   ketw_check_list, ketw_ioctl_list),
	KETW_IOCTL_S(KETW_IOC_RUNDOWN, 0, 0, ref, name, NULL,
		     ketw_ioctl_rundown),
	KETW_IOCTL(KETW_IOC_USER_REGISTER, KETW_USER_PROVIDER_SIZE_VER0,
		   KETW_IOCF_USER, 0, NULL, ketw_ioctl_user_register),
	KETW_IOCTL(KETW_IOC_USER_WRITE, KETW_USER_EVENT_SIZE_VER0,
		   KETW_IOCF_USER, 0, ketw_check_user_write,
		   ketw_ioctl_user_write),
	KETW_IOCTL(KETW_IOC_SESSIONS, KETW_SESSION_LIST_SIZE_VER0,
		   KETW_IOCF_OUT, 0, NULL, ketw_ioctl_sessions),
	KETW_IOCTL(KETW_IOC_USER_CONFLICT, KETW_USER_CONFLICT_SIZE_VER0,
		   KETW_IOCF_USER | KETW_IOCF_OUT, 0, NULL,
		   ketw_ioctl_user_conflict),
	KETW_IOCTL_S(KETW_IOC_TRIGGER_ADD, KETW_TRIGGER_SIZE_VER0,
		     KETW_IOCF_OUT, trigger, session, ketw_check_trigger,
		     ketw_ioctl_trigger),
	KETW_IOCTL_S(KETW_IOC_TRIGGER_DEL, KETW_TRIGGER_SIZE_VER0, 0, trigger,
		     session, ketw_check_trigger, ketw_ioctl_trigger),
	KETW_IOCTL_SO(KETW_IOC_SET_PIDS, KETW_PID_FILTER_SIZE_VER0, 0, pids,
		      session, ketw_check_pids, ketw_ioctl_set_pids),
	KETW_IOCTL_SO(KETW_IOC_GET_PIDS, KETW_PID_FILTER_SIZE_VER0,
		      KETW_IOCF_OUT, pids, session, ketw_check_pids,
		      ketw_ioctl_get_pids),
};

/* Every request but USER_WRITEV: see union ketw_ioctl_arg. */
static noinline long ketw_ioctl_table(struct file *file, unsigned int cmd,
				      unsigned long arg)
{
	struct ketw_file *kf = file->private_data;
	void __user *uarg = (void __user *)arg;
	const struct ketw_ioctl_desc *d;
	struct ketw_session *s = NULL;
	union ketw_ioctl_arg a;
	size_t ksize = _IOC_SIZE(cmd);
	unsigned int nr = _IOC_NR(cmd);
	u32 usize = 0;
	long err;

	if (_IOC_TYPE(cmd) != KETW_IOC_MAGIC || nr >= ARRAY_SIZE(ketw_ioctls))
		return -ENOTTY;
	nr = array_index_nospec(nr, ARRAY_SIZE(ketw_ioctls));
	d = &ketw_ioctls[nr];
	/* The whole command: another size or direction is another ioctl. */
	if (!d->fn || d->cmd != cmd || ksize > sizeof(a))
		return -ENOTTY;
	if (kf->user_only && !(d->flags & KETW_IOCF_USER))
		return -ENOTTY;
	if (d->ver0) {
		err = ketw_copy_sized(&a, ksize, d->ver0, uarg, d->size_off,
				      &usize);
		if (err)
			return err;
	} else if (copy_from_user(&a, uarg, ksize)) {
		return -EFAULT;
	}
	if (d->check) {
		err = d->check(cmd, &a);
		if (err)
			return err;
	}
	if (d->flags & KETW_IOCF_SESSION) {
		s = ketw_session_get((const char *)&a + d->name_off);
		if (IS_ERR(s))
			return PTR_ERR(s);
	}
	err = d->fn(kf, s, cmd, &a);
	if (s)
		ketw_session_put(s);
	if (!err && (d->flags & KETW_IOCF_OUT))
		err = ketw_copy_sized_out(uarg, &a, ksize, d->size_off, usize);
	return err;
}

/*
 * The lean write, on either node, is not in the table: it copies no
 * struct whole (user_write.c reads its fields), and needs no union,
 * which the kernel may zero on every call (CONFIG_INIT_STACK_ALL_ZERO).
 */
static long ketw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd == KETW_IOC_USER_WRITEV)
		return ketw_ioctl_user_writev(file->private_data,
					      (void __user *)arg);
	return ketw_ioctl_table(file, cmd, arg);
}

/*
 * Drain the attached session; sleep while it runs with nothing to read.
 * A sleeper follows its file: re-attached, it goes on with the new
 * session; detached, it returns what it has, or 0 (end of file).
 */
static ssize_t ketw_read(struct file *file, char __user *buf, size_t len,
			 loff_t *ppos)
{
	struct ketw_file *kf = file->private_data;
	struct ketw_session *s;
	ssize_t ret;

	if (kf->user_only)
		return -EINVAL;
	s = ketw_file_session(kf);
	if (!s)
		return -EINVAL;
	for (ret = 0; len; ) {
		ret = ketw_session_read(s, &kf->cursor, buf, len);
		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			break;
		ret = ketw_session_wait(s, &kf->wait, &kf->session);
		if (ret)
			break;
		cond_resched();	/* records left that a retry did not get */
		if (READ_ONCE(kf->session) != s) {
			ketw_session_put(s);
			s = ketw_file_session(kf);
			if (!s)
				return 0;
		}
	}
	ketw_session_put(s);
	return ret;
}

/*
 * Readable at the session's watermark; when the session is not running,
 * readable while records are left and hung up once it is drained; EPOLLPRI
 * while a trigger made a snapshot ready, or woke the readers, since the
 * file last read the session's status. The poll table entry is on the
 * file's own wait queue, which outlives any session the file is attached
 * to.
 */
static __poll_t ketw_poll(struct file *file, struct poll_table_struct *pt)
{
	struct ketw_file *kf = file->private_data;
	struct ketw_session *s;
	__poll_t mask;

	if (kf->user_only)
		return EPOLLERR;
	poll_wait(file, &kf->wait, pt);
	s = ketw_file_session(kf);
	if (!s)
		return EPOLLERR;
	mask = ketw_session_poll(s);
	if (atomic_read(&s->trig.snapshots_ready) !=
	    READ_ONCE(kf->ack_snapshots) ||
	    atomic_read(&s->trig.wakeups) != READ_ONCE(kf->ack_wakeups))
		mask |= EPOLLPRI;
	ketw_session_put(s);
	return mask;
}

/*
 * See KETW_MMAP_CPU() in the uapi header for the layout. A data area is
 * mapped by one consumer at a time, and not while a read() runs (EBUSY):
 * two consumers would corrupt each other's position. The mapping holds
 * the session, whatever the file does later.
 */
static int ketw_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ketw_file *kf = file->private_data;
	struct ketw_user_reg *reg;
	struct ketw_session *s;
	int err;

	/*
	 * /dev/ketw_user: the provider's enable page. Set once, the
	 * registration stays until release(), which waits for the mapping.
	 */
	if (kf->user_only) {
		/* Pairs with the store in ketw_ioctl_user_register(). */
		reg = smp_load_acquire(&kf->user_reg);
		return reg ? ketw_user_mmap(reg, vma) : -ENODEV;
	}
	s = ketw_file_session(kf);
	if (!s)
		return -EINVAL;
	err = ketw_session_mmap(s, vma);
	ketw_session_put(s);
	return err;
}

static const struct file_operations ketw_fops = {
	.owner		= THIS_MODULE,
	.open		= ketw_open,
	.release	= ketw_release,
	.read		= ketw_read,
	.poll		= ketw_poll,
	.mmap		= ketw_mmap,
	.unlocked_ioctl	= ketw_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice ketw_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ketw",
	.fops	= &ketw_fops,
	.mode	= 0600,
};

static struct miscdevice ketw_user_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ketw_user",
	.fops	= &ketw_fops,
	.mode	= 0666,
};

int ketw_dev_init(void)
{
	int err;

	err = misc_register(&ketw_misc);
	if (err)
		return err;
	err = misc_register(&ketw_user_misc);
	if (err)
		misc_deregister(&ketw_misc);
	return err;
}

void ketw_dev_exit(void)
{
	misc_deregister(&ketw_user_misc);
	misc_deregister(&ketw_misc);
	/* No file is open: the files hold the module. */
	ketw_user_writev_exit();
}
