// SPDX-License-Identifier: GPL-2.0
/*
 * ketw extended data items (struct ketw_ext_header in uapi/linux/ketw.h):
 * capturing them where an event is logged, in any context, into a
 * per-CPU, per-context scratch area, cutting a session's subset out of
 * them, and the MODULE rundown that lets a decoder place the addresses
 * they hold.
 */
#include <linux/compat.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "ketw_internal.h"

/* Frames of ketw itself the kernel stack may start with, at most. */
#define KETW_EXT_OWN_FRAMES	16

#define KETW_EXT_WORDS_MAX	(KETW_EXT_MAX_SIZE / 8)

/*
 * One context's scratch: the items of the event being logged (@blob), a
 * session's subset of them (@sub) and the raw kernel stack (@stack).
 */
struct ketw_ext_scratch {
	u64 blob[KETW_EXT_WORDS_MAX];
	u64 sub[KETW_EXT_WORDS_MAX];
	unsigned long stack[KETW_EXT_STACK_MAX + KETW_EXT_OWN_FRAMES];
};

/*
 * Task, softirq, hardirq, NMI: a writer never nests in its own context
 * (the write path's recursion guard counts such an event lost before it
 * gets here), so each context has a scratch of its own, with no lock.
 */
#define KETW_EXT_NR_CTX	4

struct ketw_ext_cpu {
	struct ketw_ext_scratch ctx[KETW_EXT_NR_CTX];
};

static struct ketw_ext_cpu __percpu *ketw_ext_cpus;

static_assert(sizeof(struct ketw_ext_header) == 8);
static_assert(sizeof(struct ketw_ext_item) == 8);
static_assert(KETW_EXT_MAX_SIZE % 8 == 0);
static_assert(KETW_EXT_MAX_SIZE <= KETW_SYSTEM_RESERVE);

/**
 * ketw_ext_init() - allocate the scratch areas
 *
 * Return: 0; -ENOMEM.
 */
int ketw_ext_init(void)
{
	ketw_ext_cpus = alloc_percpu(struct ketw_ext_cpu);
	return ketw_ext_cpus ? 0 : -ENOMEM;
}

/** ketw_ext_exit() - free them; no writer may be left. */
void ketw_ext_exit(void)
{
	free_percpu(ketw_ext_cpus);
}

static unsigned int ketw_ext_ctx(void)
{
	unsigned long pc = preempt_count();

	if (pc & NMI_MASK)
		return 3;
	if (pc & HARDIRQ_MASK)
		return 2;
	return pc & SOFTIRQ_OFFSET ? 1 : 0;
}

/* Append an item of @size bytes at @p; returns where its data goes. */
static void *ketw_ext_put(struct ketw_ext_header *eh, u16 type, u32 size)
{
	struct ketw_ext_item *it = (void *)eh + eh->size;
	u32 span = KETW_EXT_ITEM_SPAN(size);

	it->type = type;
	it->size = size;
	it->reserved = 0;
	/* Zero the padding: the last word, before the data covers it. */
	if (size & 7)
		*(u64 *)((void *)it + span - 8) = 0;
	eh->size += span;
	eh->count++;
	return it + 1;
}

/* The kernel stack where the event is logged, ketw's own frames left out. */
static void ketw_ext_kstack(struct ketw_ext_header *eh,
			    struct ketw_ext_scratch *sc)
{
	unsigned int n, i = 0, k;
	u64 *out;

	n = stack_trace_save(sc->stack, ARRAY_SIZE(sc->stack), 0);
	while (i < n && within_module(sc->stack[i], THIS_MODULE))
		i++;
	n = min_t(unsigned int, n - i, KETW_EXT_STACK_MAX);
	out = ketw_ext_put(eh, KETW_EXT_KSTACK, n * 8);
	for (k = 0; k < n; k++)
		out[k] = sc->stack[i + k];
}

/*
 * The user stack of the current task, through frame pointers, as
 * perf's user callchains: from the registers it entered the kernel with,
 * reading its memory with page faults off (a frame not present ends the
 * walk). Task context only.
 */
static unsigned int ketw_ext_ustack_walk(u64 *out, unsigned int max)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long fp, frame[2];
	unsigned int n = 0;

	if (!user_mode(regs))
		return 0;
	out[n++] = instruction_pointer(regs);
	if (IS_ENABLED(CONFIG_COMPAT) && in_compat_syscall())
		return n;
	fp = frame_pointer(regs);
	pagefault_disable();
	while (n < max) {
		if (!fp || fp & (sizeof(long) - 1) ||
		    !access_ok((void __user *)fp, sizeof(frame)) ||
		    __copy_from_user_inatomic(frame, (void __user *)fp,
					      sizeof(frame)))
			break;
		if (!frame[1])
			break;
		out[n++] = frame[1];
		/* Frames go up the stack: anything else ends the walk. */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	pagefault_enable();
	return n;
}

static void ketw_ext_ustack(struct ketw_ext_header *eh)
{
	u64 *out = (void *)eh + eh->size + sizeof(struct ketw_ext_item);
	unsigned int n = ketw_ext_ustack_walk(out, KETW_EXT_STACK_MAX);

	ketw_ext_put(eh, KETW_EXT_USTACK, n * 8);
}

static void ketw_ext_cpu_time(struct ketw_ext_header *eh)
{
	struct ketw_ext_cpu_time *t;

	t = ketw_ext_put(eh, KETW_EXT_CPU_TIME, sizeof(*t));
	/* The current task's own counters: only its ticks change them. */
	t->kernel_ns = READ_ONCE(current->stime);
	t->user_ns = READ_ONCE(current->utime);
	t->runtime_ns = READ_ONCE(current->se.sum_exec_runtime);
}

static void ketw_ext_pid_ns(struct ketw_ext_header *eh)
{
	struct ketw_ext_pid_ns *p;
	struct pid_namespace *ns;

	p = ketw_ext_put(eh, KETW_EXT_PID_NS, sizeof(*p));
	rcu_read_lock();
	ns = task_active_pid_ns(current);
	p->vpid = task_tgid_vnr(current);
	p->vtid = task_pid_vnr(current);
	p->pid_ns_inum = ns ? ns->ns.inum : 0;
	rcu_read_unlock();
}

/**
 * ketw_ext_capture() - the items of the event being logged
 * @mask: the items wanted, KETW_EXT_BIT()s, within what
 *        ketw_ext_possible() allows where the event is logged.
 * @src:  what the caller knows: program address, activity.
 * @x:    out: the items (@x->mask: those present).
 *
 * Context: any, NMI included, with preemption disabled, from the write
 * path (once per event, in a context no other writer on this CPU is in).
 */
void ketw_ext_capture(u32 mask, const struct ketw_ext_src *src,
		      struct ketw_ext_blob *x)
{
	struct ketw_ext_scratch *sc;
	struct ketw_ext_header *eh;

	sc = &this_cpu_ptr(ketw_ext_cpus)->ctx[ketw_ext_ctx()];
	eh = (void *)sc->blob;
	eh->size = sizeof(*eh);
	eh->count = 0;
	eh->reserved = 0;
	x->mask = 0;
	x->sub = sc->sub;
	if (mask & KETW_EXT_BIT(KETW_EXT_KSTACK))
		ketw_ext_kstack(eh, sc);
	if (mask & KETW_EXT_BIT(KETW_EXT_USTACK))
		ketw_ext_ustack(eh);
	if (mask & KETW_EXT_BIT(KETW_EXT_CPU_TIME))
		ketw_ext_cpu_time(eh);
	if (mask & KETW_EXT_BIT(KETW_EXT_PROG_ADDR))
		*(u64 *)ketw_ext_put(eh, KETW_EXT_PROG_ADDR, 8) =
			src->prog_addr;
	if (mask & KETW_EXT_BIT(KETW_EXT_PID_NS))
		ketw_ext_pid_ns(eh);
	if (mask & KETW_EXT_BIT(KETW_EXT_ACTIVITY)) {
		struct ketw_ext_activity *a;

		a = ketw_ext_put(eh, KETW_EXT_ACTIVITY, sizeof(*a));
		memcpy(a->activity, src->activity, sizeof(a->activity));
		if (src->related)
			memcpy(a->related, src->related, sizeof(a->related));
		else
			memset(a->related, 0, sizeof(a->related));
	}
	x->blob = sc->blob;
	x->len = eh->size;
	/* The types present: the blob's items, read back. */
	if (eh->count) {
		const struct ketw_ext_item *it = (void *)eh + sizeof(*eh);
		unsigned int i;

		for (i = 0; i < eh->count; i++) {
			x->mask |= KETW_EXT_BIT(it->type);
			it = (void *)it + KETW_EXT_ITEM_SPAN(it->size);
		}
	} else {
		x->len = 0;
	}
}

/**
 * ketw_ext_subset() - the items a session takes out of an event's
 * @x:    from ketw_ext_capture().
 * @want: the session's KETW_EXT_BIT()s.
 * @out:  out: where its items area starts (NULL if it has none).
 *
 * Context: as ketw_ext_capture(), after it.
 *
 * Return: the area's length in bytes, 0 for none.
 */
u32 ketw_ext_subset(const struct ketw_ext_blob *x, u32 want, const void **out)
{
	const struct ketw_ext_header *eh = x->blob;
	const struct ketw_ext_item *it = (const void *)(eh + 1);
	struct ketw_ext_header *sh = x->sub;
	unsigned int i;
	u32 span;

	want &= x->mask;
	*out = NULL;
	if (!want)
		return 0;
	if (want == x->mask) {
		*out = x->blob;
		return x->len;
	}
	sh->size = sizeof(*sh);
	sh->count = 0;
	sh->reserved = 0;
	for (i = 0; i < eh->count; i++) {
		span = KETW_EXT_ITEM_SPAN(it->size);
		if (want & KETW_EXT_BIT(it->type)) {
			memcpy((void *)sh + sh->size, it, span);
			sh->size += span;
			sh->count++;
		}
		it = (const void *)it + span;
	}
	*out = sh;
	return sh->size;
}

/* ---- the MODULE rundown ---- */

#define KETW_EXT_MODULES_MAX	4096	/* a bound for the walk */

#ifdef CONFIG_X86_64
static bool ketw_in_modules(unsigned long addr)
{
	return addr >= MODULES_VADDR && addr < MODULES_END;
}

/* Where the kernel image lies (its offset there is random). */
#define KETW_KERNEL_BASE	__START_KERNEL_map
#define KETW_KERNEL_SIZE	(MODULES_VADDR - __START_KERNEL_map)
#else
static bool ketw_in_modules(unsigned long addr)
{
	return false;
}

#define KETW_KERNEL_BASE	0
#define KETW_KERNEL_SIZE	0
#endif

static void ketw_module_entry(struct ketw_sys_module *m, const char *name,
			      unsigned long base, unsigned long size)
{
	memset(m, 0, sizeof(*m));
	strscpy(m->name, name, sizeof(m->name));
	m->base = base;
	m->size = size;
}

/*
 * The loaded modules, found from ketw's own entry in the kernel's list
 * (whose head, in vmlinux, is not exported): every other entry is a
 * struct module in module memory, the head is not.
 */
static unsigned int ketw_modules_collect(struct ketw_sys_module *ms,
					 unsigned int max)
{
	struct module *mod;
	unsigned int n = 0;

	if (!IS_ENABLED(CONFIG_X86_64))
		return 0;
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
		if (n == max)
			break;
		if (!ketw_in_modules((unsigned long)mod))
			continue;	/* the list's head */
		if (mod->state == MODULE_STATE_UNFORMED)
			continue;
		/* The 6.1 layout (6.4 has mod->mem[MOD_TEXT] instead). */
		ketw_module_entry(&ms[n++], mod->name,
				  (unsigned long)mod->core_layout.base,
				  mod->core_layout.text_size);
	}
	rcu_read_unlock();
	return n;
}

/**
 * ketw_modules_rundown() - log a MODULE record for vmlinux and each module
 * @s: the session.
 *
 * Context: process; ketw_mutex held.
 */
void ketw_modules_rundown(struct ketw_session *s)
{
	struct ketw_sys_module *ms;
	unsigned int n, i;

	ms = kvmalloc_array(KETW_EXT_MODULES_MAX, sizeof(*ms), GFP_KERNEL);
	if (!ms)
		return;
	ketw_module_entry(&ms[0], "vmlinux", KETW_KERNEL_BASE,
			  KETW_KERNEL_SIZE);
	n = 1 + ketw_modules_collect(ms + 1, KETW_EXT_MODULES_MAX - 1);
	for (i = 0; i < n; i++)
		ketw_session_log_system(s, KETW_SYS_MODULE, KETW_TYPE_DC_START,
					&ms[i], sizeof(ms[i]));
	kvfree(ms);
}
