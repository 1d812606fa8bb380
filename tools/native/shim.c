// SPDX-License-Identifier: GPL-2.0
/*
 * Native shim: the out-of-line kernel primitives module/ring.c calls, in
 * user space (see the headers in shim/native/ for what each stands for).
 */
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef __x86_64__
#include <cpuid.h>
#endif

#include <native/native.h>
#include "clock.h"

static void native_die(const char *what)
{
	fprintf(stderr, "native shim: %s: %s\n", what, strerror(errno));
	abort();
}

/* ---- printk, WARN ---- */

static unsigned long warnings;

#define NATIVE_PRINT_MAX	20

void native_printk(const char *level, const char *fmt, ...)
{
	unsigned long n = __atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (n >= NATIVE_PRINT_MAX)
		return;
	fprintf(stderr, "[%s] ", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void native_warn(const char *file, int line, const char *cond)
{
	unsigned long n = __atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);

	if (n < NATIVE_PRINT_MAX)
		fprintf(stderr, "WARNING: %s:%d: %s\n", file, line, cond);
}

unsigned long native_warnings(void)
{
	return __atomic_load_n(&warnings, __ATOMIC_RELAXED);
}

/* ---- CPUs, contexts, injected interrupts ---- */

unsigned int nr_cpu_ids = 1;
unsigned long __per_cpu_offset[NATIVE_NR_CPUS];
__thread int native_cpu = -1;
__thread unsigned long native_this_cpu_off;
__thread int native_irq_depth;
__thread unsigned int native_preempt_count;
#if NATIVE_TSAN
__thread int native_release_pending;
#endif

void native_set_cpu(int cpu)
{
	if (cpu >= (int)nr_cpu_ids) {
		fprintf(stderr, "native shim: cpu %d of %u\n", cpu, nr_cpu_ids);
		abort();
	}
	native_cpu = cpu;
	native_this_cpu_off = cpu < 0 ? 0 : __per_cpu_offset[cpu];
}

struct native_irq_state native_irq_enter(int level)
{
	struct native_irq_state saved = { .depth = native_irq_depth };

#if NATIVE_TSAN
	saved.release_pending = native_release_pending;
	native_release_pending = 0;
#endif
	native_irq_depth = level;
	return saved;
}

void native_irq_exit(struct native_irq_state saved)
{
	native_irq_depth = saved.depth;
#if NATIVE_TSAN
	native_release_pending = saved.release_pending;
#endif
}

__thread int native_hook_countdown = INT_MAX;
static __thread const void *hook_pc;
static __thread struct {
	native_inject_fn fn;
	unsigned int mean_gap;
	int max_level;
	u64 rng;
	u64 injected;
} inj;

static u64 inj_rand(void)
{
	/* xorshift64*: small, and the same on every machine */
	inj.rng ^= inj.rng >> 12;
	inj.rng ^= inj.rng << 25;
	inj.rng ^= inj.rng >> 27;
	return inj.rng * 0x2545F4914F6CDD1DULL;
}

void native_inject(native_inject_fn fn, unsigned int mean_gap, u64 seed,
		   int max_level)
{
	inj.fn = NULL;
	inj.mean_gap = mean_gap;
	inj.max_level = max_level;
	inj.rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	inj.injected = 0;
	native_hook_countdown = !fn ? INT_MAX : !mean_gap ? 1 :
				1 + (int)(inj_rand() % (2 * inj.mean_gap));
	inj.fn = fn;
}

u64 native_injected(void)
{
	return inj.injected;
}

const void *native_hook_pc(void)
{
	return hook_pc;
}

void native_hook_slow(void)
{
	struct native_irq_state saved;
	const void *pc = __builtin_return_address(0);
	int level;

	if (!inj.fn) {
		native_hook_countdown = INT_MAX;
		return;
	}
	if (!inj.mean_gap) {
		native_hook_countdown = 1;
		if (native_irq_depth >= inj.max_level)
			return;
		level = native_irq_depth + 1;
	} else {
		native_hook_countdown = 1 + (int)(inj_rand() % (2 * inj.mean_gap));
		if (native_irq_depth >= inj.max_level)
			return;
		level = native_irq_depth + 1 +
			(int)(inj_rand() % (u64)(inj.max_level - native_irq_depth));
	}
	inj.injected++;
	saved = native_irq_enter(level);
	hook_pc = pc;
	inj.fn(level);
	native_irq_exit(saved);
}

/* ---- per-CPU memory ---- */

/*
 * One unit per CPU, NATIVE_PERCPU_UNIT apart: CPU n's copy of an object
 * is at p + __per_cpu_offset[n]. Allocations are carved from the units
 * in step and zeroed, as alloc_percpu()'s; a freed block is reused by an
 * allocation of the same size (a ring's struct rb_cpu).
 */
#define PERCPU_MAX_BLOCKS	256

static pthread_mutex_t percpu_lock = PTHREAD_MUTEX_INITIALIZER;
static char *percpu_base;
static size_t percpu_used;
static struct { size_t off, size; bool live; } percpu_blocks[PERCPU_MAX_BLOCKS];
static unsigned int percpu_nr_blocks;

static void percpu_init(void)
{
	unsigned int cpu;

	percpu_base = mmap(NULL, NATIVE_NR_CPUS * NATIVE_PERCPU_UNIT,
			   PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (percpu_base == MAP_FAILED)
		native_die("per-CPU area");
	for (cpu = 0; cpu < NATIVE_NR_CPUS; cpu++)
		__per_cpu_offset[cpu] = cpu * NATIVE_PERCPU_UNIT;
}

void *native_alloc_percpu(size_t size, size_t align)
{
	unsigned int i, cpu;
	size_t off;

	/* Cache-line aligned: no false sharing between objects. */
	size = (size + 63) & ~(size_t)63;
	if (align < 64)
		align = 64;
	pthread_mutex_lock(&percpu_lock);
	for (i = 0; i < percpu_nr_blocks; i++)
		if (!percpu_blocks[i].live && percpu_blocks[i].size == size &&
		    !(percpu_blocks[i].off & (align - 1)))
			break;
	if (i == percpu_nr_blocks) {
		off = (percpu_used + align - 1) & ~(align - 1);
		if (off + size > NATIVE_PERCPU_UNIT ||
		    percpu_nr_blocks == PERCPU_MAX_BLOCKS) {
			pthread_mutex_unlock(&percpu_lock);
			return NULL;
		}
		percpu_used = off + size;
		percpu_blocks[i].off = off;
		percpu_blocks[i].size = size;
		percpu_nr_blocks++;
	}
	percpu_blocks[i].live = true;
	off = percpu_blocks[i].off;
	pthread_mutex_unlock(&percpu_lock);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		memset(percpu_base + __per_cpu_offset[cpu] + off, 0, size);
	return percpu_base + off;
}

void free_percpu(void __percpu *p)
{
	size_t off = (char *)p - percpu_base;
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&percpu_lock);
	for (i = 0; i < percpu_nr_blocks; i++)
		if (percpu_blocks[i].live && percpu_blocks[i].off == off)
			percpu_blocks[i].live = false;
	pthread_mutex_unlock(&percpu_lock);
}

/* ---- pages and vmap ---- */

static pthread_mutex_t page_lock = PTHREAD_MUTEX_INITIALIZER;
static int page_fd = -1;
static char *page_map;		/* the direct map of the whole pool */
static struct page *page_structs;
static unsigned long page_nr, page_next;
static unsigned long *page_free;
static unsigned long page_nr_free;
static bool benign_areas;

static void pages_init(size_t bytes)
{
	page_nr = (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
	page_fd = memfd_create("ketw-native-pages", MFD_CLOEXEC);
	if (page_fd < 0)
		native_die("memfd_create");
	if (ftruncate(page_fd, (off_t)(page_nr << PAGE_SHIFT)))
		native_die("ftruncate");
	page_map = mmap(NULL, page_nr << PAGE_SHIFT, PROT_READ | PROT_WRITE,
			MAP_SHARED, page_fd, 0);
	if (page_map == MAP_FAILED)
		native_die("page pool");
	page_structs = calloc(page_nr, sizeof(*page_structs));
	page_free = calloc(page_nr, sizeof(*page_free));
	if (!page_structs || !page_free)
		native_die("page pool");
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	unsigned long pfn;
	struct page *pg;

	(void)nid;
	if (order)
		return NULL;	/* ring.c allocates single pages */
	pthread_mutex_lock(&page_lock);
	if (page_nr_free) {
		pfn = page_free[--page_nr_free];
	} else if (page_next < page_nr) {
		pfn = page_next++;
	} else {
		pthread_mutex_unlock(&page_lock);
		return NULL;
	}
	pthread_mutex_unlock(&page_lock);
	pg = &page_structs[pfn];
	pg->pfn = pfn;
	if (gfp & __GFP_ZERO)
		memset(page_address(pg), 0, PAGE_SIZE);
	return pg;
}

void __free_page(struct page *page)
{
	pthread_mutex_lock(&page_lock);
	page_free[page_nr_free++] = page->pfn;
	pthread_mutex_unlock(&page_lock);
}

void *page_address(const struct page *page)
{
	return page_map + (page->pfn << PAGE_SHIFT);
}

#if NATIVE_TSAN
void AnnotateBenignRaceSized(const char *file, int line,
			     const volatile void *mem, unsigned long size,
			     const char *description);
#endif

void native_benign_data_areas(bool on)
{
	benign_areas = on;
}

static pthread_mutex_t vmap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vmap_area {
	struct vmap_area *next;
	void *addr;
	size_t len;
} *vmap_areas;

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   int prot)
{
	size_t len = (size_t)count << PAGE_SHIFT;
	struct vmap_area *va;
	unsigned int i, j;
	char *addr;

	(void)flags;
	(void)prot;
	va = malloc(sizeof(*va));
	if (!va)
		return NULL;
	/* Reserve the range, then map each run of consecutive pages over it. */
	addr = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (addr == MAP_FAILED) {
		free(va);
		return NULL;
	}
	for (i = 0; i < count; i = j) {
		for (j = i + 1; j < count && pages[j]->pfn == pages[j - 1]->pfn + 1; j++)
			;
		if (mmap(addr + ((size_t)i << PAGE_SHIFT), (size_t)(j - i) << PAGE_SHIFT,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, page_fd,
			 (off_t)(pages[i]->pfn << PAGE_SHIFT)) == MAP_FAILED)
			native_die("vmap");
	}
#if NATIVE_TSAN
	if (benign_areas)
		AnnotateBenignRaceSized(__FILE__, __LINE__, addr, len,
					"LOOP data area: speculative reader copies");
#endif
	va->addr = addr;
	va->len = len;
	pthread_mutex_lock(&vmap_lock);
	va->next = vmap_areas;
	vmap_areas = va;
	pthread_mutex_unlock(&vmap_lock);
	return addr;
}

void vunmap(const void *addr)
{
	struct vmap_area **pp, *va = NULL;

	pthread_mutex_lock(&vmap_lock);
	for (pp = &vmap_areas; *pp; pp = &(*pp)->next) {
		if ((*pp)->addr == addr) {
			va = *pp;
			*pp = va->next;
			break;
		}
	}
	pthread_mutex_unlock(&vmap_lock);
	if (!va) {
		native_warn(__FILE__, __LINE__, "vunmap of an unknown area");
		return;
	}
#if NATIVE_TSAN
	/*
	 * A benign range stays registered with TSan: never hand its
	 * addresses to another mapping (each variant runs in its own
	 * process anyway).
	 */
	if (benign_areas) {
		free(va);
		return;
	}
#endif
	munmap(va->addr, va->len);
	free(va);
}

int vm_insert_page(struct vm_area_struct *vma, unsigned long addr,
		   struct page *page)
{
	(void)vma;
	(void)addr;
	(void)page;
	return -EOPNOTSUPP;	/* mapping to user space is not covered */
}

/* ---- tasks ---- */

__thread struct task_struct *native_task;

struct task_struct *native_task_init(void)
{
	struct task_struct *t;
	pthread_condattr_t ca;

	t = calloc(1, sizeof(*t));
	if (!t)
		native_die("task");
	t->pid = (pid_t)syscall(SYS_gettid);
	t->tgid = getpid();
	t->state = TASK_RUNNING;
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);
	native_task = t;
	return t;
}

static void set_current_state(int state)
{
	struct task_struct *t = current;

	pthread_mutex_lock(&t->lock);
	t->state = state;
	pthread_mutex_unlock(&t->lock);
}

static u64 mono_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + (u64)ts.tv_nsec;
}

/* Sleep until woken or @timeout jiffies (HZ 1000) have passed. */
long schedule_timeout(long timeout)
{
	struct task_struct *t = current;
	u64 now = mono_ns(CLOCK_MONOTONIC), end;
	struct timespec dl;

	if (timeout < 0)
		timeout = 0;
	end = timeout == MAX_SCHEDULE_TIMEOUT ? UINT64_MAX / 2 :
	      now + (u64)timeout * (NSEC_PER_SEC / HZ);
	dl.tv_sec = (time_t)(end / NSEC_PER_SEC);
	dl.tv_nsec = (long)(end % NSEC_PER_SEC);
	pthread_mutex_lock(&t->lock);
	while (t->state != TASK_RUNNING)
		if (pthread_cond_timedwait(&t->wake, &t->lock, &dl) == ETIMEDOUT)
			break;
	t->state = TASK_RUNNING;
	pthread_mutex_unlock(&t->lock);
	now = mono_ns(CLOCK_MONOTONIC);
	return now >= end ? 0 : (long)((end - now) / (NSEC_PER_SEC / HZ));
}

/* ---- wait queues ---- */

void init_waitqueue_head(wait_queue_head_t *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	INIT_LIST_HEAD(&wq->head);
}

void init_waitqueue_func_entry(struct wait_queue_entry *e, wait_queue_func_t f)
{
	e->flags = 0;
	e->private = NULL;
	e->func = f;
	INIT_LIST_HEAD(&e->entry);
}

int default_wake_function(struct wait_queue_entry *e, unsigned int mode,
			  int sync, void *key)
{
	struct task_struct *t = e->private;
	int woken = 0;

	(void)sync;
	(void)key;
	pthread_mutex_lock(&t->lock);
	if (t->state & (int)mode) {
		t->state = TASK_RUNNING;
		pthread_cond_signal(&t->wake);
		woken = 1;
	}
	pthread_mutex_unlock(&t->lock);
	return woken;
}

int autoremove_wake_function(struct wait_queue_entry *e, unsigned int mode,
			     int sync, void *key)
{
	int ret = default_wake_function(e, mode, sync, key);

	if (ret)
		list_del_init(&e->entry);	/* under the queue's lock */
	return ret;
}

void prepare_to_wait(wait_queue_head_t *wq, struct wait_queue_entry *e,
		     int state)
{
	pthread_mutex_lock(&wq->lock);
	if (list_empty(&e->entry))
		list_add(&e->entry, &wq->head);
	set_current_state(state);
	pthread_mutex_unlock(&wq->lock);
}

void finish_wait(wait_queue_head_t *wq, struct wait_queue_entry *e)
{
	set_current_state(TASK_RUNNING);
	pthread_mutex_lock(&wq->lock);
	if (!list_empty(&e->entry))
		list_del_init(&e->entry);
	pthread_mutex_unlock(&wq->lock);
}

void add_wait_queue(wait_queue_head_t *wq, struct wait_queue_entry *e)
{
	pthread_mutex_lock(&wq->lock);
	list_add(&e->entry, &wq->head);
	pthread_mutex_unlock(&wq->lock);
}

void remove_wait_queue(wait_queue_head_t *wq, struct wait_queue_entry *e)
{
	pthread_mutex_lock(&wq->lock);
	list_del_init(&e->entry);
	pthread_mutex_unlock(&wq->lock);
}

void __wake_up(wait_queue_head_t *wq, unsigned int mode, int nr, void *key)
{
	struct wait_queue_entry *e, *n;

	(void)nr;
	pthread_mutex_lock(&wq->lock);
	list_for_each_entry_safe(e, n, &wq->head, entry)
		e->func(e, mode, 0, key);
	pthread_mutex_unlock(&wq->lock);
}

/* ---- irq_work ---- */

static struct irq_work *irq_list;	/* a lock-free stack, as llist */
static sem_t irq_sem;
static pthread_t irq_thread;
static int irq_stop;

void init_irq_work(struct irq_work *work, void (*func)(struct irq_work *))
{
	work->flags = 0;
	work->next = NULL;
	work->func = func;
}

/* Any context, a signal handler included: no lock, one sem_post(). */
bool irq_work_queue(struct irq_work *work)
{
	struct irq_work *first;
	int old;

	/* Claim it, fully ordered (the kernel's atomic_fetch_or()). */
	old = __atomic_fetch_or(&work->flags, IRQ_WORK_PENDING | IRQ_WORK_BUSY,
				__ATOMIC_SEQ_CST);
	if (old & IRQ_WORK_PENDING)
		return false;
	first = __atomic_load_n(&irq_list, __ATOMIC_RELAXED);
	do {
		work->next = first;
	} while (!__atomic_compare_exchange_n(&irq_list, &first, work, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	sem_post(&irq_sem);
	return true;
}

static void *irq_work_thread(void *arg)
{
	struct irq_work *w, *next;
	int flags;

	(void)arg;
	for (;;) {
		while (sem_wait(&irq_sem) && errno == EINTR)
			;
		w = __atomic_exchange_n(&irq_list, NULL, __ATOMIC_ACQUIRE);
		for (; w; w = next) {
			next = w->next;	/* before PENDING clears: requeueing rewrites it */
			flags = __atomic_and_fetch(&w->flags, ~IRQ_WORK_PENDING,
						   __ATOMIC_SEQ_CST);
			w->func(w);
			/* Done, unless queued again meanwhile (then still BUSY). */
			__atomic_compare_exchange_n(&w->flags, &flags,
						    flags & ~IRQ_WORK_BUSY, false,
						    __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
		}
		if (__atomic_load_n(&irq_stop, __ATOMIC_ACQUIRE))
			return NULL;
	}
}

void irq_work_sync(struct irq_work *work)
{
	while (__atomic_load_n(&work->flags, __ATOMIC_ACQUIRE) & IRQ_WORK_BUSY)
		sched_yield();
}

/* ---- clocks ---- */

struct ketw_clock ketw_clock_mono_data;
int native_has_rdtscp;
static u64 tsc_hz;

u64 ktime_get_mono_fast_ns(void)
{
	return mono_ns(CLOCK_MONOTONIC);
}

u64 ktime_get_boot_fast_ns(void)
{
	return mono_ns(CLOCK_BOOTTIME);
}

static u64 fake_clock;
static bool fake_clock_on;

void native_fake_local_clock(bool on)
{
	__atomic_store_n(&fake_clock, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fake_clock_on, on, __ATOMIC_RELAXED);
}

/* The kernel's is sched_clock(); any per-CPU monotonic clock will do. */
u64 local_clock(void)
{
	if (__atomic_load_n(&fake_clock_on, __ATOMIC_RELAXED))
		return __atomic_add_fetch(&fake_clock, 1, __ATOMIC_RELAXED);
	return mono_ns(CLOCK_MONOTONIC_RAW);
}

u64 native_tsc_hz(void)
{
	return tsc_hz;
}

/* kernel/time/clocksource.c: clocks_calc_mult_shift() */
static void calc_mult_shift(u32 *mult, u32 *shift, u64 from, u64 to,
			    u32 maxsec)
{
	u32 sft, sftacc = 32;
	u64 tmp;

	tmp = ((u64)maxsec * from) >> 32;
	while (tmp) {
		tmp >>= 1;
		sftacc--;
	}
	for (sft = 32; sft > 0; sft--) {
		tmp = (u64)to << sft;
		tmp += from / 2;
		tmp /= from;
		if ((tmp >> sftacc) == 0)
			break;
	}
	*mult = (u32)tmp;
	*shift = sft;
}

/*
 * module/clock.h computes CLOCK_MONOTONIC from the TSC and a copy of the
 * timekeeper's base, which clock.c's notifier keeps. Here the base is
 * taken once, from a TSC frequency measured against CLOCK_MONOTONIC over
 * 20 ms: the read-out path is the kernel's, the drift over a run is a
 * few microseconds. Without a TSC (not x86) mult stays 0 and clock.h
 * calls ktime_get_mono_fast_ns().
 */
static void clock_init(void)
{
#ifdef CONFIG_X86
	struct ketw_clock_base *b = &ketw_clock_mono_data.base[0];
	unsigned int a, bx, c, d;
	u64 t0, n0, t1, n1;
	struct timespec pause = { 0, 20 * NSEC_PER_MSEC };

	if (__get_cpuid(0x80000001, &a, &bx, &c, &d))
		native_has_rdtscp = !!(d & (1u << 27));
	n0 = mono_ns(CLOCK_MONOTONIC);
	t0 = rdtsc_ordered();
	nanosleep(&pause, NULL);
	n1 = mono_ns(CLOCK_MONOTONIC);
	t1 = rdtsc_ordered();
	if (n1 <= n0 || t1 <= t0)
		return;
	tsc_hz = (t1 - t0) * (u64)NSEC_PER_SEC / (n1 - n0);
	calc_mult_shift(&b->mult, &b->shift, tsc_hz, NSEC_PER_SEC, 600);
	b->cycle_last = t1;
	b->xtime_nsec = 0;
	b->base_ns = n1;
	ketw_clock_mono_data.base[1] = *b;
#endif
}

/* ---- start and stop ---- */

void native_init(unsigned int nr_cpus, size_t pool_bytes)
{
	if (!nr_cpus || nr_cpus > NATIVE_NR_CPUS) {
		fprintf(stderr, "native shim: %u CPUs (1..%d)\n", nr_cpus,
			NATIVE_NR_CPUS);
		abort();
	}
	nr_cpu_ids = nr_cpus;
	percpu_init();
	pages_init(pool_bytes);
	clock_init();
	if (sem_init(&irq_sem, 0, 0))
		native_die("sem_init");
	if (pthread_create(&irq_thread, NULL, irq_work_thread, NULL))
		native_die("irq_work thread");
}

void native_exit(void)
{
	__atomic_store_n(&irq_stop, 1, __ATOMIC_RELEASE);
	sem_post(&irq_sem);
	pthread_join(irq_thread, NULL);
}
