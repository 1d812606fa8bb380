// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ketw: the control surface (ioctl) and the read()/poll()/mmap()
 * drain; /dev/ketw_user: user-space providers only.
 *
 * Opening /dev/ketw needs CAP_SYS_ADMIN (and the node is 0600): a session
 * reads events from the whole kernel. A file is attached to at most one
 * session (by CREATE or ATTACH); read(), poll() and mmap() drain that
 * session. A file may own one session it created with KETW_SESSION_OWNED
 * and one user provider (USER_REGISTER); both go away with it.
 * /dev/ketw_user (0666) takes only USER_REGISTER and USER_WRITE, and
 * opening it needs CAP_SYS_ADMIN or the group user_gid.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
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
static_assert(offsetofend(struct ketw_user_provider, name) ==
	      KETW_USER_PROVIDER_SIZE_VER0);
static_assert(offsetofend(struct ketw_user_provider, reserved) ==
	      KETW_USER_PROVIDER_SIZE_VER1);
static_assert(offsetofend(struct ketw_user_event, reserved1) ==
	      KETW_USER_EVENT_SIZE_VER0);
static_assert(offsetofend(struct ketw_session_attr, memory) ==
	      KETW_SESSION_ATTR_SIZE_VER0);
static_assert(offsetofend(struct ketw_cpu_stats, consumed) ==
	      KETW_CPU_STATS_SIZE_VER0);
static_assert(offsetofend(struct ketw_session_status, overwritten) ==
	      KETW_SESSION_STATUS_SIZE_VER0);
static_assert(offsetofend(struct ketw_snapshot, dropped) ==
	      KETW_SNAPSHOT_SIZE_VER0);

int ketw_user_gid = -1;
module_param_named(user_gid, ketw_user_gid, int, 0644);
MODULE_PARM_DESC(user_gid, "group that may open /dev/ketw_user and log user events (-1: root only)");

/*
 * An open /dev/ketw or /dev/ketw_user. The rules for @session are in
 * Documentation/ketw-lifetimes.rst: it changes under @attach_lock and is
 * published under @session_lock, under which read(), poll() and mmap()
 * take their own reference. @owned, the session this file created with
 * KETW_SESSION_OWNED, changes under @attach_lock; release() destroys it.
 */
struct ketw_file {
	struct mutex attach_lock;	/* one change of @session at a time */
	spinlock_t session_lock;	/* publishes @session */
	struct ketw_session *session;	/* attached (a reference), or NULL */
	struct ketw_session *owned;	/* created here, OWNED (a reference) */
	wait_queue_head_t wait;		/* read() and poll() sleep here */
	wait_queue_entry_t ring_wait;	/* on @session's ring: wakes @wait */
	unsigned int cursor;		/* the CPU read() starts from */
	bool user_only;			/* opened through /dev/ketw_user */
	bool limited;			/* ... without CAP_SYS_ADMIN */
	struct mutex lock;		/* user_prov */
	struct ketw_provider *user_prov; /* registered on this file, or NULL */
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
	if (kf->user_prov)
		ketw_user_provider_unregister(kf->user_prov);
	kfree(kf);
	return 0;
}

/*
 * Copy an extensible struct whose first field is its __u32 size. Sizes
 * below @min are EINVAL, above a page E2BIG, and a longer struct's unknown
 * tail must be zero (E2BIG otherwise).
 */
static int ketw_copy_sized(void *dst, size_t ksize, size_t min,
			   const void __user *src, u32 *usize)
{
	int err;

	if (get_user(*usize, (const u32 __user *)src))
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
			       u32 usize)
{
	*(u32 *)src = ksize;
	if (copy_to_user(dst, src, min_t(size_t, usize, ksize)))
		return -EFAULT;
	return 0;
}

static long ketw_ioctl_create(struct ketw_file *kf, void __user *uarg)
{
	struct ketw_session *s, *old = NULL;
	struct ketw_session_attr attr;
	bool owned;
	u32 usize;
	int err;

	err = ketw_copy_sized(&attr, sizeof(attr), KETW_SESSION_ATTR_SIZE_VER0,
			      uarg, &usize);
	if (err)
		return err;
	owned = attr.flags & KETW_SESSION_OWNED;
	mutex_lock(&kf->attach_lock);
	/* One owned session per file; a destroyed one makes room. */
	if (owned && kf->owned && !ketw_session_destroyed(kf->owned)) {
		mutex_unlock(&kf->attach_lock);
		return -EBUSY;
	}
	err = ketw_session_create(&attr, &s);
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
	if (err)
		return err;	/* destroyed by another file already */
	/* On EFAULT the session exists all the same: the caller may GET it. */
	return ketw_copy_sized_out(uarg, &attr, sizeof(attr), usize);
}

static long ketw_ioctl_get_attr(void __user *uarg)
{
	struct ketw_session_attr attr;
	struct ketw_session *s;
	u32 usize;
	int err;

	err = ketw_copy_sized(&attr, sizeof(attr), KETW_SESSION_ATTR_SIZE_VER0,
			      uarg, &usize);
	if (err)
		return err;
	s = ketw_session_get(attr.name);
	if (IS_ERR(s))
		return PTR_ERR(s);
	mutex_lock(&ketw_mutex);
	ketw_session_fill_attr(s, &attr);
	mutex_unlock(&ketw_mutex);
	ketw_session_put(s);
	return ketw_copy_sized_out(uarg, &attr, sizeof(attr), usize);
}

static long ketw_ioctl_cpu_stats(void __user *uarg)
{
	struct ketw_cpu_stats st;
	struct ketw_session *s;
	u32 usize, cpu;
	int err;

	err = ketw_copy_sized(&st, sizeof(st), KETW_CPU_STATS_SIZE_VER0, uarg,
			      &usize);
	if (err)
		return err;
	cpu = st.cpu;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	s = ketw_session_get(st.name);
	if (IS_ERR(s))
		return PTR_ERR(s);
	ketw_session_stats_cpu(s, cpu, &st);
	ketw_session_put(s);
	return ketw_copy_sized_out(uarg, &st, sizeof(st), usize);
}

static long ketw_ioctl_status(void __user *uarg)
{
	struct ketw_session_status st;
	struct ketw_session *s;
	u32 usize;
	int err;

	err = ketw_copy_sized(&st, sizeof(st), KETW_SESSION_STATUS_SIZE_VER0,
			      uarg, &usize);
	if (err)
		return err;
	if (st.reserved0)
		return -EINVAL;
	s = ketw_session_get(st.name);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = ketw_session_status(s, &st);
	ketw_session_put(s);
	if (err)
		return err;
	return ketw_copy_sized_out(uarg, &st, sizeof(st), usize);
}

static long ketw_ioctl_snapshot(void __user *uarg)
{
	struct ketw_snapshot snap;
	struct ketw_session *s;
	u32 usize;
	int err;

	err = ketw_copy_sized(&snap, sizeof(snap), KETW_SNAPSHOT_SIZE_VER0, uarg,
			      &usize);
	if (err)
		return err;
	if (snap.cpu >= nr_cpu_ids || !cpu_possible(snap.cpu))
		return -EINVAL;
	s = ketw_session_get(snap.name);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = ketw_session_snapshot_cpu_user(s, snap.cpu,
					     u64_to_user_ptr(snap.buf),
					     min_t(u64, snap.buf_len, SIZE_MAX),
					     &snap.len, &snap.dropped);
	ketw_session_put(s);
	if (err)
		return err;
	return ketw_copy_sized_out(uarg, &snap, sizeof(snap), usize);
}

static long ketw_ioctl_enable(unsigned int cmd, void __user *uarg)
{
	struct ketw_enable req;
	struct ketw_session *s;
	u32 usize;
	int err;

	err = ketw_copy_sized(&req, sizeof(req), KETW_ENABLE_SIZE_VER0, uarg,
			      &usize);
	if (err)
		return err;
	/* A bad request is -EINVAL, whether its session exists or not. */
	err = ketw_enable_check(&req, cmd == KETW_IOC_ENABLE);
	if (err)
		return err;
	s = ketw_session_get(req.session);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (cmd == KETW_IOC_ENABLE)
		err = ketw_session_enable(s, &req);
	else
		err = ketw_session_get_filter(s, &req);
	ketw_session_put(s);
	if (err || cmd == KETW_IOC_ENABLE)
		return err;
	return ketw_copy_sized_out(uarg, &req, sizeof(req), usize);
}

static long ketw_ioctl_list(unsigned int cmd, void __user *uarg)
{
	struct ketw_list l;
	u32 usize;
	int err;

	err = ketw_copy_sized(&l, sizeof(l), KETW_LIST_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (l.reserved)
		return -EINVAL;
	err = cmd == KETW_IOC_PROVIDERS ? ketw_providers_list(&l) :
					  ketw_events_list(&l);
	if (err)
		return err;
	return ketw_copy_sized_out(uarg, &l, sizeof(l), usize);
}

static long ketw_ioctl_user_register(struct ketw_file *kf, void __user *uarg)
{
	struct ketw_user_provider up;
	struct ketw_provider *prov;
	u32 usize;
	int err;

	err = ketw_copy_sized(&up, sizeof(up), KETW_USER_PROVIDER_SIZE_VER0,
			      uarg, &usize);
	if (err)
		return err;
	mutex_lock(&kf->lock);
	if (kf->user_prov) {
		err = -EBUSY;		/* one provider per file */
	} else {
		prov = ketw_user_provider_register(&up, kf->limited);
		if (IS_ERR(prov))
			err = PTR_ERR(prov);
		else	/* mmap() reads it without the lock */
			smp_store_release(&kf->user_prov, prov);
	}
	mutex_unlock(&kf->lock);
	return err;
}

/* Payloads up to this size are copied on the stack. */
#define KETW_USER_STACK_DATA	256

static long ketw_ioctl_user_write(struct ketw_file *kf, void __user *uarg)
{
	struct ketw_event_descriptor desc = {};
	u8 stack[KETW_USER_STACK_DATA];
	struct ketw_user_event ue;
	void *data = stack;
	u32 usize;
	long ret;

	ret = ketw_copy_sized(&ue, sizeof(ue), KETW_USER_EVENT_SIZE_VER0,
			      uarg, &usize);
	if (ret)
		return ret;
	if (ue.reserved || ue.reserved1 || ue.len > KETW_MAX_DATA_SIZE ||
	    ue.level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	if (ue.len > sizeof(stack)) {
		data = kvmalloc(ue.len, GFP_KERNEL);
		if (!data)
			return -ENOMEM;
	}
	if (copy_from_user(data, u64_to_user_ptr(ue.data), ue.len)) {
		ret = -EFAULT;
		goto out;
	}
	desc.id = ue.id;
	desc.type = ue.type;
	desc.level = ue.level;
	desc.version = ue.version;
	desc.keyword = ue.keyword;
	mutex_lock(&kf->lock);
	if (!kf->user_prov)
		ret = -EINVAL;		/* no provider registered on this file */
	else
		ret = ketw_user_write(kf->user_prov, &desc, data, ue.len);
	mutex_unlock(&kf->lock);
out:
	if (data != stack)
		kvfree(data);
	return ret;
}

/* START, STOP, DESTROY, ATTACH, FLUSH: a session named by struct ketw_session_ref. */
static long ketw_ioctl_ref(struct ketw_file *kf, unsigned int cmd,
			   void __user *uarg)
{
	struct ketw_session_ref ref;
	struct ketw_session *s;
	long err;

	if (copy_from_user(&ref, uarg, sizeof(ref)))
		return -EFAULT;
	s = ketw_session_get(ref.name);
	if (IS_ERR(s))
		return PTR_ERR(s);
	switch (cmd) {
	case KETW_IOC_START:
		err = ketw_session_start(s);
		break;
	case KETW_IOC_STOP:
		err = ketw_session_stop(s);
		break;
	case KETW_IOC_DESTROY:
		mutex_lock(&kf->attach_lock);
		err = ketw_session_destroy(s, kf->session);
		if (!err && kf->session == s)
			ketw_file_set(kf, NULL);
		if (!err && kf->owned == s) {
			kf->owned = NULL;	/* its memory need not wait */
			ketw_session_put(s);	/* the owner's; ours is below */
		}
		mutex_unlock(&kf->attach_lock);
		break;
	case KETW_IOC_ATTACH:
		mutex_lock(&kf->attach_lock);
		err = ketw_file_set(kf, s);
		mutex_unlock(&kf->attach_lock);
		return err;	/* the file keeps the reference */
	case KETW_IOC_FLUSH:
		err = ketw_session_flush(s);
		break;
	case KETW_IOC_RUNDOWN:
		err = ketw_session_rundown(s);
		break;
	}
	ketw_session_put(s);
	return err;
}

static long ketw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ketw_file *kf = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (kf->user_only && cmd != KETW_IOC_USER_REGISTER &&
	    cmd != KETW_IOC_USER_WRITE)
		return -ENOTTY;
	switch (cmd) {
	case KETW_IOC_USER_REGISTER:
		return ketw_ioctl_user_register(kf, uarg);
	case KETW_IOC_USER_WRITE:
		return ketw_ioctl_user_write(kf, uarg);
	case KETW_IOC_ENABLE:
	case KETW_IOC_GET_FILTER:
		return ketw_ioctl_enable(cmd, uarg);
	case KETW_IOC_PROVIDERS:
	case KETW_IOC_EVENTS:
		return ketw_ioctl_list(cmd, uarg);
	case KETW_IOC_CREATE:
		return ketw_ioctl_create(kf, uarg);
	case KETW_IOC_GET_ATTR:
		return ketw_ioctl_get_attr(uarg);
	case KETW_IOC_CPU_STATS:
		return ketw_ioctl_cpu_stats(uarg);
	case KETW_IOC_STATUS:
		return ketw_ioctl_status(uarg);
	case KETW_IOC_SNAPSHOT:
		return ketw_ioctl_snapshot(uarg);
	case KETW_IOC_FLUSH:
	case KETW_IOC_RUNDOWN:
	case KETW_IOC_START:
	case KETW_IOC_STOP:
	case KETW_IOC_DESTROY:
	case KETW_IOC_ATTACH:
		return ketw_ioctl_ref(kf, cmd, uarg);
	default:
		return -ENOTTY;
	}
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
 * readable while records are left and hung up once it is drained. The
 * poll table entry is on the file's own wait queue, which outlives any
 * session the file is attached to.
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
	struct ketw_provider *prov;
	struct ketw_session *s;
	int err;

	/*
	 * /dev/ketw_user: the provider's enable page. Set once, the
	 * provider stays until release(), which waits for the mapping.
	 */
	if (kf->user_only) {
		/* Pairs with the store in ketw_ioctl_user_register(). */
		prov = smp_load_acquire(&kf->user_prov);
		return prov ? ketw_user_mmap(prov, vma) : -ENODEV;
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
}
