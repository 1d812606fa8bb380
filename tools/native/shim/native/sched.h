/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: CPUs, per-CPU memory, tasks, contexts, wait queues,
 * irq_work and clocks.
 *
 * A "CPU" is a thread that called native_set_cpu(): its writes go to
 * that CPU's buffers, and only it (and its signal handlers, the
 * interrupts of that CPU) writes there, as preemption-disabled kernel
 * code on one CPU. smp_processor_id() is a thread-local number.
 * Per-CPU memory is laid out as the kernel's: one unit per CPU at a fixed
 * distance, so this_cpu_ptr() is one thread-local load and an add, as
 * the kernel's %gs-relative one.
 *
 * A nested writer (a signal handler, or one the stress test injects)
 * brackets itself with native_irq_enter()/native_irq_exit(): in_task() is
 * false inside, as in softirq, hardirq or NMI context.
 */
#ifndef _NATIVE_SCHED_H
#define _NATIVE_SCHED_H

#include "atomic.h"
#include "list.h"
#include <pthread.h>

/* ---- CPUs and per-CPU memory ---- */

#define NATIVE_NR_CPUS		64
#define NATIVE_PERCPU_UNIT	(1UL << 20)	/* bytes of per-CPU memory per CPU */

extern unsigned int nr_cpu_ids;
extern __thread int native_cpu;		/* -1: not a CPU (a reader) */
extern __thread unsigned long native_this_cpu_off;
extern unsigned long __per_cpu_offset[NATIVE_NR_CPUS];

#define smp_processor_id()	native_cpu
#define raw_smp_processor_id()	native_cpu
#define cpu_possible(cpu)	((unsigned long)(cpu) < nr_cpu_ids)
#define cpu_to_node(cpu)	0
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < (__typeof__(cpu))nr_cpu_ids; (cpu)++)

void *native_alloc_percpu(size_t size, size_t align);
#define alloc_percpu(type) \
	((type __percpu *)native_alloc_percpu(sizeof(type), __alignof__(type)))
void free_percpu(void __percpu *p);
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((char *)(ptr) + __per_cpu_offset[(cpu)]))
#define this_cpu_ptr(ptr) \
	((__typeof__(ptr))((char *)(ptr) + native_this_cpu_off))
#define raw_cpu_ptr(ptr)	this_cpu_ptr(ptr)

/* ---- tasks and contexts ---- */

struct task_struct {
	pid_t pid;
	pid_t tgid;
	int state;		/* TASK_* */
	pthread_mutex_t lock;	/* state and the sleep */
	pthread_cond_t wake;
	unsigned long thread_flags;	/* TIF_*: thread_info's flags */
};

#define TASK_RUNNING		0
#define TASK_INTERRUPTIBLE	1
#define TASK_UNINTERRUPTIBLE	2

/* One thread-local load, as the kernel's %gs-relative one. */
extern __thread struct task_struct *native_task;
struct task_struct *native_task_init(void);
static __always_inline struct task_struct *native_current(void)
{
	struct task_struct *t = native_task;

	return likely(t) ? t : native_task_init();
}
#define current			native_current()

/* 0 in a task; the nesting depth of interrupt writers otherwise. */
extern __thread int native_irq_depth;
#define in_task()		(native_irq_depth == 0)
#define in_interrupt()		(native_irq_depth != 0)

static inline pid_t task_pid_nr(struct task_struct *t) { return t->pid; }
static inline pid_t task_tgid_nr(struct task_struct *t) { return t->tgid; }
/* No signal ever interrupts a shim sleep. */
static inline int signal_pending(struct task_struct *t) { (void)t; return 0; }

#define preempt_disable()	barrier()
#define preempt_enable()	barrier()

/* ---- time ---- */

#define HZ			1000
#define NSEC_PER_SEC		1000000000L
#define NSEC_PER_MSEC		1000000L
#define MAX_SCHEDULE_TIMEOUT	((long)(~0UL >> 1))
long schedule_timeout(long timeout);

u64 ktime_get_mono_fast_ns(void);
u64 ktime_get_boot_fast_ns(void);
u64 local_clock(void);

/* ---- wait queues ---- */

struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry,
				 unsigned int mode, int flags, void *key);

struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};

typedef struct wait_queue_head {
	pthread_mutex_t lock;
	struct list_head head;
} wait_queue_head_t;

int autoremove_wake_function(struct wait_queue_entry *wq_entry,
			     unsigned int mode, int sync, void *key);
int default_wake_function(struct wait_queue_entry *wq_entry,
			  unsigned int mode, int sync, void *key);

#define DEFINE_WAIT_FUNC(name, function)				\
	struct wait_queue_entry name = {				\
		.private = current,					\
		.func = function,					\
		.entry = LIST_HEAD_INIT((name).entry),			\
	}
#define DEFINE_WAIT(name)	DEFINE_WAIT_FUNC(name, autoremove_wake_function)

void init_waitqueue_head(wait_queue_head_t *wq);
void init_waitqueue_func_entry(struct wait_queue_entry *e, wait_queue_func_t f);
void prepare_to_wait(wait_queue_head_t *wq, struct wait_queue_entry *e, int state);
void finish_wait(wait_queue_head_t *wq, struct wait_queue_entry *e);
void add_wait_queue(wait_queue_head_t *wq, struct wait_queue_entry *e);
void remove_wait_queue(wait_queue_head_t *wq, struct wait_queue_entry *e);
void __wake_up(wait_queue_head_t *wq, unsigned int mode, int nr, void *key);
#define wake_up_interruptible_all(wq)	__wake_up(wq, TASK_INTERRUPTIBLE, 0, NULL)
#define wake_up_all(wq)			__wake_up(wq, TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE, 0, NULL)

/* ---- irq_work ---- */

/*
 * Queued from any context (a signal handler too: no lock, one sem_post),
 * run later by the shim's irq_work thread: as if the self-IPI were taken
 * by another CPU. The kernel's claim protocol: PENDING while queued, BUSY
 * until the callback has returned; irq_work_sync() waits for !BUSY.
 */
struct irq_work {
	int flags;
	struct irq_work *next;
	void (*func)(struct irq_work *);
};

#define IRQ_WORK_PENDING	1
#define IRQ_WORK_BUSY		2

void init_irq_work(struct irq_work *work, void (*func)(struct irq_work *));
bool irq_work_queue(struct irq_work *work);
void irq_work_sync(struct irq_work *work);

#endif /* _NATIVE_SCHED_H */
