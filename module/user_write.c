// SPDX-License-Identifier: GPL-2.0
/*
 * ketw user-space providers: the lean write, KETW_IOC_USER_WRITEV. The
 * request is read a field at a time, its iovecs a few at a time, and the
 * payload gathered into a bounce buffer that ketw_user_write() stores:
 * the stack's for a short payload, a per-CPU one for a long one, so that
 * no write allocates (Documentation/ketw-providers.rst, "The user write
 * path").
 */
#include <linux/compat.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <asm/unaligned.h>

#include "ketw_internal.h"

/* Payloads up to this size are gathered on the stack. */
#define KETW_UW_STACK_DATA	256
/* Iovecs read from user space at a time, onto the stack. */
#define KETW_UW_IOV_WINDOW	UIO_FASTIOV
/* Segments up to this size are copied by 8-byte loads. */
#define KETW_UW_WORDS_MAX	512
/* Times a long payload is faulted in and gathered again. */
#define KETW_UW_FAULT_TRIES	8

static_assert(KETW_USER_IOV_MAX <= UIO_MAXIOV);

/*
 * Each CPU's bounce buffer for payloads longer than KETW_UW_STACK_DATA,
 * KETW_MAX_DATA_SIZE bytes, allocated the first time one is written on
 * that CPU and freed at module exit. Used with preemption off.
 */
static DEFINE_PER_CPU(void *, ketw_uw_bounce);

/* The request, as read from user space. */
struct ketw_uw {
	struct ketw_event_descriptor desc;
	struct ketw_ext_src src;
	u8 ids[2][KETW_ACTIVITY_ID_SIZE];	/* activity, related */
	const void __user *uvec;		/* struct iovec, or compat_iovec */
	u32 iovcnt;
	u32 flags;
	bool compat;			/* a 32-bit caller's iovecs */
};

/*
 * Inside a user access section: copy @n bytes from @src by 8-byte loads
 * (a string instruction's start-up dominates a short copy, and an
 * emulator runs it a byte at a time). False on a fault.
 */
static __always_inline bool ketw_uw_words(u8 *d, const void __user *src,
					  size_t n)
{
	u64 v;
	u8 b;

	for (; n >= sizeof(v); n -= sizeof(v), src += sizeof(v),
	     d += sizeof(v)) {
		unsafe_get_user(v, (const u64 __user *)src, fault);
		put_unaligned(v, (u64 *)d);
	}
	for (; n; n--, src++, d++) {
		unsafe_get_user(b, (const u8 __user *)src, fault);
		*d = b;
	}
	return true;
fault:
	return false;
}

/* Bytes of one of @w's iovecs in user space. */
static size_t ketw_uw_iov_size(const struct ketw_uw *w)
{
#ifdef CONFIG_COMPAT
	if (w->compat)
		return sizeof(struct compat_iovec);
#endif
	return sizeof(struct iovec);
}

/*
 * Iovecs @first to @first + @n - 1 of @w into @kv. Inline, as is
 * ketw_uw_copy(): the common event's write calls neither.
 */
static __always_inline int ketw_uw_iovecs(const struct ketw_uw *w,
					  u32 first, u32 n, struct iovec *kv)
{
	size_t sz = ketw_uw_iov_size(w);
	const void __user *uv = w->uvec + first * sz;
	u32 i;

	if (!user_access_begin(uv, array_size(n, sz)))
		return -EFAULT;
#ifdef CONFIG_COMPAT
	if (w->compat) {
		const struct compat_iovec __user *cv = uv;
		compat_uptr_t base;
		compat_size_t len;

		for (i = 0; i < n; i++) {
			unsafe_get_user(base, &cv[i].iov_base, efault);
			unsafe_get_user(len, &cv[i].iov_len, efault);
			kv[i].iov_base = compat_ptr(base);
			kv[i].iov_len = len;
		}
		user_access_end();
		return 0;
	}
#endif
	for (i = 0; i < n; i++) {
		const struct iovec __user *v = uv;

		unsafe_get_user(kv[i].iov_base, &v[i].iov_base, efault);
		unsafe_get_user(kv[i].iov_len, &v[i].iov_len, efault);
	}
	user_access_end();
	return 0;

efault:
	user_access_end();
	return -EFAULT;
}

/*
 * The payload's length: the sum of @w's iovecs, read a window at a time
 * into @kv (which keeps the last window). -EINVAL above
 * KETW_MAX_DATA_SIZE, -EFAULT.
 */
static int ketw_uw_total(const struct ketw_uw *w, struct iovec *kv,
			 size_t *total)
{
	size_t sum = 0;
	u32 i, j, n;
	int err;

	for (i = 0; i < w->iovcnt; i += n) {
		n = min_t(u32, w->iovcnt - i, KETW_UW_IOV_WINDOW);
		err = ketw_uw_iovecs(w, i, n, kv);
		if (err)
			return err;
		for (j = 0; j < n; j++) {
			if (kv[j].iov_len > KETW_MAX_DATA_SIZE - sum)
				return -EINVAL;
			sum += kv[j].iov_len;
		}
	}
	*total = sum;
	return 0;
}

/*
 * Copy @n bytes from @src: a short segment by ketw_uw_words(). With page
 * faults disabled, a page that is not there fails the copy (-EFAULT)
 * instead of being read in.
 */
static __always_inline int ketw_uw_copy(void *dst, const void __user *src,
					size_t n)
{
	bool ok;

	if (!IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) ||
	    n > KETW_UW_WORDS_MAX)
		return copy_from_user(dst, src, n) ? -EFAULT : 0;
	if (!user_access_begin(src, n))
		return -EFAULT;
	ok = ketw_uw_words(dst, src, n);
	user_access_end();
	return ok ? 0 : -EFAULT;
}

/*
 * Read @u's fields into @w, one load each, in one user access section.
 * The common event, a few native iovecs holding at most
 * KETW_UW_STACK_DATA bytes, is then gathered into @buf: the iovecs and
 * each segment in a section of their own (nothing is called inside one,
 * access_ok() included, which objtool checks), and *@len is its length
 * and the result 1. Otherwise the result is 0, and the caller reads the
 * iovecs again.
 */
static int ketw_uw_read(struct ketw_uw *w,
			const struct ketw_user_writev __user *u,
			struct iovec *kv, u8 *buf, size_t *len)
{
	u64 keyword, iov, prog_addr, id[4];
	size_t total = 0;
	unsigned int i;
	u16 version;
	u8 type, level;
	u32 evid;

	w->compat = in_compat_syscall();
	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	unsafe_get_user(evid, &u->id, efault);
	unsafe_get_user(type, &u->type, efault);
	unsafe_get_user(level, &u->level, efault);
	unsafe_get_user(version, &u->version, efault);
	unsafe_get_user(keyword, &u->keyword, efault);
	unsafe_get_user(iov, &u->iov, efault);
	unsafe_get_user(w->iovcnt, &u->iovcnt, efault);
	unsafe_get_user(w->flags, &u->flags, efault);
	unsafe_get_user(prog_addr, &u->prog_addr, efault);
	if (w->flags & KETW_USER_WRITEV_ACTIVITY) {
		const u64 __user *a = (const u64 __user *)u->activity;

		/* Constant indices: no bounds check (a call) in the section. */
		static_assert(sizeof(u->activity) + sizeof(u->related) ==
			      sizeof(id) && ARRAY_SIZE(id) == 4);
		unsafe_get_user(id[0], a, efault);
		unsafe_get_user(id[1], a + 1, efault);
		unsafe_get_user(id[2], a + 2, efault);
		unsafe_get_user(id[3], a + 3, efault);
	}
	user_access_end();

	memset(&w->desc, 0, sizeof(w->desc));
	w->desc.id = evid;
	w->desc.type = type;
	w->desc.level = level;
	w->desc.version = version;
	w->desc.keyword = keyword;
	w->uvec = u64_to_user_ptr(iov);
	w->src.prog_addr = prog_addr;
	w->src.activity = NULL;
	w->src.related = NULL;
	w->src.held = 0;
	if (w->flags & KETW_USER_WRITEV_ACTIVITY) {
		memcpy(w->ids, id, sizeof(id));
		/* All zero: none, as struct ketw_user_event's. */
		if (memchr_inv(w->ids[0], 0, sizeof(w->ids[0]))) {
			w->src.activity = w->ids[0];
			w->src.related = w->ids[1];
		}
	}

	if (!IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) ||
	    w->compat || w->iovcnt > KETW_UW_IOV_WINDOW ||
	    !access_ok(w->uvec, w->iovcnt * sizeof(struct iovec)))
		return 0;
	if (ketw_uw_iovecs(w, 0, w->iovcnt, kv))
		return -EFAULT;
	for (i = 0; i < w->iovcnt; total += kv[i++].iov_len)
		if (kv[i].iov_len > KETW_UW_STACK_DATA - total)
			return 0;	/* a long one */
	for (i = 0, total = 0; i < w->iovcnt; total += kv[i++].iov_len)
		if (ketw_uw_copy(buf + total, kv[i].iov_base, kv[i].iov_len))
			return -EFAULT;
	*len = total;
	return 1;

efault:
	user_access_end();
	return -EFAULT;
}

/*
 * Gather at most @cap bytes of @w's payload into @buf; @kv holds the
 * iovecs if they fit one window, else they are read again. The length is
 * what the iovecs hold now, at most @cap (user space may change them
 * meanwhile). On -EFAULT, *@bad is what failed: a segment, or iovecs.
 */
static int ketw_uw_gather(const struct ketw_uw *w, struct iovec *kv,
			  void *buf, size_t cap, size_t *len,
			  struct iovec *bad)
{
	size_t done = 0, n;
	u32 i, j, nv;
	int err;

	for (i = 0; i < w->iovcnt && done < cap; i += nv) {
		nv = min_t(u32, w->iovcnt - i, KETW_UW_IOV_WINDOW);
		if (w->iovcnt > KETW_UW_IOV_WINDOW) {
			err = ketw_uw_iovecs(w, i, nv, kv);
			if (err) {
				bad->iov_base = (void __user *)w->uvec +
						i * ketw_uw_iov_size(w);
				bad->iov_len = nv * ketw_uw_iov_size(w);
				return err;
			}
		}
		for (j = 0; j < nv && done < cap; j++) {
			n = min(kv[j].iov_len, cap - done);
			if (!n)
				continue;
			if (ketw_uw_copy(buf + done, kv[j].iov_base, n)) {
				bad->iov_base = kv[j].iov_base;
				bad->iov_len = n;
				return -EFAULT;
			}
			done += n;
		}
	}
	*len = done;
	return 0;
}

/*
 * This CPU's bounce buffer, with preemption off; NULL (preemption on) if
 * it could not be allocated.
 */
static void *ketw_uw_bounce_get(void)
{
	void *buf, *fresh;

	for (;;) {
		preempt_disable();
		buf = this_cpu_read(ketw_uw_bounce);
		if (buf)
			return buf;
		preempt_enable();
		fresh = kvmalloc(KETW_MAX_DATA_SIZE, GFP_KERNEL);
		if (!fresh)
			return NULL;
		preempt_disable();
		if (!this_cpu_read(ketw_uw_bounce)) {
			this_cpu_write(ketw_uw_bounce, fresh);
			fresh = NULL;
		}
		preempt_enable();
		kvfree(fresh);	/* another task filled this CPU's first */
	}
}

/*
 * A long payload: gathered into this CPU's buffer with preemption off,
 * so without taking page faults; a page that is not there is faulted in
 * with preemption on, and the payload gathered again.
 */
static int ketw_uw_write_long(struct ketw_user_reg *reg,
			      const struct ketw_uw *w, struct iovec *kv,
			      size_t total)
{
	struct ketw_ext_src src = w->src;
	struct iovec bad;
	unsigned int tries;
	size_t len;
	void *buf;
	int ret;

	/* The buffer's preemption off is ours, not the caller's. */
	src.held = 1;

	for (tries = 0; tries < KETW_UW_FAULT_TRIES; tries++) {
		buf = ketw_uw_bounce_get();
		if (!buf)
			return -ENOMEM;
		pagefault_disable();
		ret = ketw_uw_gather(w, kv, buf, total, &len, &bad);
		pagefault_enable();
		if (!ret) {
			ret = ketw_user_write(reg, &w->desc, buf, len, &src);
			preempt_enable();
			return ret;
		}
		preempt_enable();
		/* Not there (read it in, and again), or not readable. */
		if (ret != -EFAULT ||
		    fault_in_readable(bad.iov_base, bad.iov_len))
			return ret;
	}
	return -EFAULT;
}

/**
 * ketw_user_writev() - carry out KETW_IOC_USER_WRITEV
 * @reg: the file's registration.
 * @u:   the request, in user space.
 *
 * Takes no lock of its own: @reg is the file's for as long as the file
 * is (see struct ketw_file). While no session takes the provider,
 * nothing is read: the result is 0, as for an event no session takes.
 *
 * Context: process; may sleep (page faults).
 *
 * Return: the number of sessions that stored the event; -EFAULT;
 * -EINVAL for a bad level, flag, iovec count or payload length; -EAGAIN
 * past the user's rates; -ENOMEM if the CPU's bounce buffer could not be
 * allocated (a payload over KETW_UW_STACK_DATA bytes, the first on that
 * CPU).
 */
int ketw_user_writev(struct ketw_user_reg *reg,
		     const struct ketw_user_writev __user *u)
{
	/*
	 * Not zeroed on entry (CONFIG_INIT_STACK_ALL_ZERO): only what was
	 * read into them is used, and zeroing is no small part of the time
	 * a short event takes.
	 */
	struct iovec kv[KETW_UW_IOV_WINDOW] __uninitialized;
	u8 stack[KETW_UW_STACK_DATA] __uninitialized;
	struct ketw_uw w __uninitialized;
	struct iovec bad;
	size_t total, len;
	int err;

	if (!ketw_user_enabled(reg))
		return 0;
	err = ketw_uw_read(&w, u, kv, stack, &len);
	if (err < 0)
		return err;
	if (w.desc.level > KETW_LEVEL_VERBOSE ||
	    (w.flags & ~KETW_USER_WRITEV_FLAGS) ||
	    w.iovcnt > KETW_USER_IOV_MAX)
		return -EINVAL;
	if (err)	/* gathered */
		return ketw_user_write(reg, &w.desc, stack, len, &w.src);
	err = ketw_uw_total(&w, kv, &total);
	if (err)
		return err;
	if (total > sizeof(stack))
		return ketw_uw_write_long(reg, &w, kv, total);
	err = ketw_uw_gather(&w, kv, stack, total, &len, &bad);
	if (err)
		return err;
	return ketw_user_write(reg, &w.desc, stack, len, &w.src);
}

/* Module exit: free the CPUs' bounce buffers. */
void ketw_user_writev_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(ketw_uw_bounce, cpu));
		per_cpu(ketw_uw_bounce, cpu) = NULL;
	}
}
