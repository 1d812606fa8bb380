/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the in-guest kernel fuzzers (kfuzz_*.c) share: the seed and time
 * budget from the environment, a PRNG per thread, values and user
 * pointers that find bugs, a trail of each thread's last calls, a
 * watchdog for calls the kernel never returns from, and a watch on the
 * kernel log that prints the trails when the kernel complains.
 *
 * Environment (make fuzz-kernel sets the first two through the guest's
 * kernel command line, see scripts/guest/init):
 *   KETW_FUZZ_SEED     the seed (default 1); thread i draws from its own
 *                      stream of it, so a seed replays each thread's
 *                      choices (not the threads' interleaving)
 *   KETW_FUZZ_SECONDS  how long the random phase runs (default: the
 *                      fuzzer's, a few seconds for make check)
 *   KETW_FUZZ_THREADS  threads of the random phase (default 4)
 *   KETW_FUZZ_STALL    seconds one call may take before the watchdog
 *                      calls it a hang (default 10: before the kernel
 *                      reports a soft lockup or an RCU stall, 20 s)
 *   KETW_FUZZ_AVOID    comma-separated patterns to leave out (the
 *                      fuzzer lists its own), to look past a known bug
 *   KETW_FUZZ_TRACE=1  print every call as it is made
 */
#ifndef _KFUZZ_H
#define _KFUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The generated tables (ioctl_table.awk). */
enum kfuzz_kind {
	KFUZZ_F_INT,	/* a number */
	KFUZZ_F_SIZE,	/* the __u32 size of an extensible struct */
	KFUZZ_F_NAME,	/* char[KETW_NAME_MAX] */
	KFUZZ_F_UPTR,	/* __u64 user address */
	KFUZZ_F_BYTES,	/* anything else */
};

struct kfuzz_field {
	const char *name;
	size_t off;
	size_t len;
	int kind;
};

struct kfuzz_struct {
	const char *name;
	size_t size;
	size_t ver0;	/* oldest size the kernel takes; 0 if not extensible */
	int sized;	/* extensible: has a __u32 size (see kfuzz_size_field()) */
	const struct kfuzz_field *fields;
	size_t nr_fields;
};

/* An extensible struct's size field: first, or after a session name. */
static inline const struct kfuzz_field *
kfuzz_size_field(const struct kfuzz_struct *st)
{
	for (size_t i = 0; i < st->nr_fields; i++)
		if (st->fields[i].kind == KFUZZ_F_SIZE)
			return &st->fields[i];
	return &st->fields[0];
}

struct kfuzz_ioctl {
	const char *name;
	unsigned long cmd;
	const struct kfuzz_struct *st;	/* NULL: no argument struct */
};

struct kfuzz_const {
	const char *name;
	unsigned long long value;
};

/* ---- environment ------------------------------------------------------ */

static inline unsigned long long kfuzz_env(const char *name,
					   unsigned long long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	return errno || *end ? def : v;
}

/* Is @word in the comma-separated KETW_FUZZ_AVOID? */
static inline int kfuzz_avoid(const char *word)
{
	const char *s = getenv("KETW_FUZZ_AVOID");
	size_t n = strlen(word);

	while (s && *s) {
		if (!strncmp(s, word, n) && (s[n] == ',' || !s[n]))
			return 1;
		s = strchr(s, ',');
		if (s)
			s++;
	}
	return 0;
}

static inline uint64_t kfuzz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- PRNG: splitmix64, one stream per thread ---------------------------- */

struct kfuzz_rng {
	uint64_t s;
};

static inline uint64_t kfuzz_rand(struct kfuzz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void kfuzz_rng_init(struct kfuzz_rng *r, uint64_t seed,
				  uint64_t stream)
{
	r->s = seed;
	kfuzz_rand(r);
	r->s ^= stream * 0xd1b54a32d192ed03ull;
	kfuzz_rand(r);
}

/* Uniform in [0, n); 0 if n is 0. */
static inline uint64_t kfuzz_below(struct kfuzz_rng *r, uint64_t n)
{
	return n ? kfuzz_rand(r) % n : 0;
}

static inline int kfuzz_pct(struct kfuzz_rng *r, unsigned int pct)
{
	return kfuzz_below(r, 100) < pct;
}

#define KFUZZ_PICK(r, arr) ((arr)[kfuzz_below(r, sizeof(arr) / sizeof((arr)[0]))])

/*
 * A number where bugs live: small ones, edges of the integer types,
 * powers of two and their neighbours, and the header's limits (@consts)
 * and their neighbours. @width in bytes bounds nothing: callers store
 * what fits.
 */
static inline uint64_t kfuzz_interesting(struct kfuzz_rng *r,
					 const struct kfuzz_const *consts,
					 size_t nr_consts)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 7, 8, 63, 64, 65, 255, 256, 4095, 4096, 4097,
		0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
		0x8000000000000000ull, ~0ull, ~0ull - 1,
	};
	uint64_t v;

	switch (kfuzz_below(r, 4)) {
	case 0:
		return KFUZZ_PICK(r, edges);
	case 1:
		v = 1ull << kfuzz_below(r, 64);
		return v + kfuzz_below(r, 3) - 1;
	case 2:
		if (nr_consts) {
			v = consts[kfuzz_below(r, nr_consts)].value;
			return v + kfuzz_below(r, 3) - 1;
		}
		/* fall through */
	default:
		return kfuzz_rand(r) >> kfuzz_below(r, 64);
	}
}

/* ---- hostile user pointers ---------------------------------------------- */

/*
 * Addresses a copy from or to user space must refuse: NULL and near it,
 * the kernel's direct map and text, non-canonical, the last page.
 */
static inline void *kfuzz_bad_addr(struct kfuzz_rng *r)
{
	static const uint64_t bad[] = {
		0, 8, 4096 - 1, 0xffff888000000000ull, 0xffffffff81000000ull,
		0xffffffffff600000ull /* vsyscall */, 0x8000000000000000ull,
		0x0000800000000000ull, ~0ull - 4095, ~0ull,
	};

	return (void *)(uintptr_t)KFUZZ_PICK(r, bad);
}

/*
 * A scratch area of @len bytes, read-write, followed by a PROT_NONE
 * guard page and then a read-only page: whatever is placed to end near
 * kfuzz_area_end() runs into the guard.
 */
struct kfuzz_area {
	unsigned char *base;
	size_t len;
	unsigned char *ro;	/* a read-only page after the guard */
	size_t page;
};

static inline int kfuzz_area_init(struct kfuzz_area *a, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned char *p;

	len = (len + page - 1) & ~(page - 1);
	p = mmap(NULL, len + 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (mprotect(p + len, page, PROT_NONE) ||
	    mprotect(p + len + page, page, PROT_READ))
		return -errno;
	a->base = p;
	a->len = len;
	a->ro = p + len + page;
	a->page = page;
	return 0;
}

static inline unsigned char *kfuzz_area_end(const struct kfuzz_area *a)
{
	return a->base + a->len;
}

/* ---- threads, their trails and the watchdog ----------------------------- */

#define KFUZZ_TRAIL	48
#define KFUZZ_CUR	160
#define KFUZZ_LINE	(KFUZZ_CUR + 64)

/*
 * One per thread, in memory shared with forked children: a child writes
 * its calls to its parent thread's trail (which waits for it meanwhile),
 * so the watchdog sees its hangs and a report shows its last calls.
 */
struct kfuzz_thread {
	int id;
	pid_t tid;
	struct kfuzz_rng rng;
	uint64_t ops;
	_Atomic uint64_t op_start;	/* ms; 0 when not in a call */
	char cur[KFUZZ_CUR];
	char trail[KFUZZ_TRAIL][KFUZZ_LINE];
	unsigned int trail_pos;
	timer_t timer;			/* interrupts blocking calls */
	int has_timer;
	void *priv;			/* the fuzzer's per-thread state */
};

struct kfuzz {
	uint64_t seed;
	unsigned int seconds;
	unsigned int nr_threads;
	unsigned int stall_s;
	int trace;
	_Atomic int stop;
	_Atomic int failures;
	int kmsg_fd;
	int kmsg_reported;
	uint64_t deadline;		/* ms */
	struct kfuzz_thread *threads;	/* shared memory, nr_threads + 1 */
	pthread_mutex_t print_lock;
};

static inline void kfuzz_vlog(struct kfuzz *k, const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	pthread_mutex_lock(&k->print_lock);
	printf("# %s\n", line);
	fflush(stdout);
	pthread_mutex_unlock(&k->print_lock);
}

static inline void __attribute__((format(printf, 2, 3)))
kfuzz_log(struct kfuzz *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kfuzz_vlog(k, fmt, ap);
	va_end(ap);
}

/* Start a call: what it is, for the trail and the watchdog. */
static inline void __attribute__((format(printf, 3, 4)))
kfuzz_begin(struct kfuzz *k, struct kfuzz_thread *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(t->cur, sizeof(t->cur), "t%d#%" PRIu64 " ", t->id, t->ops);
	va_start(ap, fmt);
	vsnprintf(t->cur + n, sizeof(t->cur) - n, fmt, ap);
	va_end(ap);
	t->ops++;
	if (k->trace)
		kfuzz_log(k, "> %s", t->cur);
	atomic_store(&t->op_start, kfuzz_now_ms());
}

/* End it with its result (ret, and errno if ret < 0). */
static inline void kfuzz_end(struct kfuzz *k, struct kfuzz_thread *t,
			     long ret, int err)
{
	char *line = t->trail[t->trail_pos++ % KFUZZ_TRAIL];
	uint64_t ms = kfuzz_now_ms() - atomic_load(&t->op_start);
	char took[32] = "";

	atomic_store(&t->op_start, 0);
	if (ms >= 50)	/* slow calls say so */
		snprintf(took, sizeof(took), " (%u ms)", (unsigned int)(ms % 10000000));
	if (ret < 0)
		snprintf(line, KFUZZ_LINE, "%s = %ld %s%s", t->cur, ret,
			 strerrorname_np(err) ?: "?", took);
	else
		snprintf(line, KFUZZ_LINE, "%s = %ld%s", t->cur, ret, took);
	if (k->trace)
		kfuzz_log(k, "< %s", line);
}

static inline void kfuzz_dump_trails(struct kfuzz *k)
{
	unsigned int i, j, n;

	for (i = 0; i <= k->nr_threads; i++) {
		struct kfuzz_thread *t = &k->threads[i];

		if (!t->ops)
			continue;
		n = t->trail_pos < KFUZZ_TRAIL ? t->trail_pos : KFUZZ_TRAIL;
		kfuzz_log(k, "thread %d (tid %d, seed stream %d): last %u calls, oldest first",
			  t->id, t->tid, t->id, n);
		for (j = t->trail_pos - n; j != t->trail_pos; j++)
			kfuzz_log(k, "  %s", t->trail[j % KFUZZ_TRAIL]);
		if (atomic_load(&t->op_start))
			kfuzz_log(k, "  %s   <- in the kernel for %" PRIu64 " ms",
				  t->cur, kfuzz_now_ms() - atomic_load(&t->op_start));
	}
}

/* A failure the fuzzer saw itself (a broken contract); the test fails. */
static inline void __attribute__((format(printf, 3, 4)))
kfuzz_fail(struct kfuzz *k, struct kfuzz_thread *t, const char *fmt, ...)
{
	va_list ap;
	int first = atomic_fetch_add(&k->failures, 1) == 0;

	va_start(ap, fmt);
	kfuzz_vlog(k, fmt, ap);
	va_end(ap);
	if (t)
		kfuzz_log(k, "  in %s", t->cur);
	if (first)
		kfuzz_dump_trails(k);
}

/* ---- interrupting blocking calls ---------------------------------------- */

static void kfuzz_sig_nop(int sig)
{
	(void)sig;
}

/* SIGUSR2 without SA_RESTART: a blocking call returns EINTR. */
static inline int kfuzz_signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kfuzz_sig_nop;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* A per-thread timer that signals this thread only. */
static inline int kfuzz_timer_init(struct kfuzz_thread *t)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR2;
	sev._sigev_un._tid = gettid();
	t->tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &t->timer))
		return -errno;
	t->has_timer = 1;
	return 0;
}

/* Interrupt whatever this thread is blocked in after @ms, then every 50 ms. */
static inline void kfuzz_arm(struct kfuzz_thread *t, unsigned int ms)
{
	struct itimerspec its = {
		.it_value = { ms / 1000, (ms % 1000) * 1000000L },
		.it_interval = { 0, 50 * 1000000L },
	};

	if (t->has_timer)
		timer_settime(t->timer, 0, &its, NULL);
}

static inline void kfuzz_disarm(struct kfuzz_thread *t)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (t->has_timer)
		timer_settime(t->timer, 0, &its, NULL);
}

/*
 * The fuzzer's own crash (a mapping it thought it had, ...): say where and
 * what each thread did, without the print lock, and fail.
 */
static struct kfuzz *kfuzz_crash_ctx;

static void kfuzz_crash(int sig, siginfo_t *si, void *uc)
{
	struct kfuzz *k = kfuzz_crash_ctx;
	unsigned int i, j, n;
	pid_t tid = gettid();

	(void)uc;
	dprintf(1, "# fuzzer: signal %d (code %d) at address %p in tid %d\n", sig,
		si->si_code, si->si_addr, tid);
	for (i = 0; k && i <= k->nr_threads; i++) {
		struct kfuzz_thread *t = &k->threads[i];

		n = t->trail_pos < KFUZZ_TRAIL ? t->trail_pos : KFUZZ_TRAIL;
		dprintf(1, "# thread %d (tid %d)%s: last %u calls\n", t->id, t->tid,
			t->tid == tid ? ", the one that crashed" : "", n);
		for (j = t->trail_pos - n; j != t->trail_pos; j++)
			dprintf(1, "#   %s\n", t->trail[j % KFUZZ_TRAIL]);
		if (atomic_load(&t->op_start))
			dprintf(1, "#   %s   <- under way\n", t->cur);
	}
	_exit(1);
}

/* Report SIGSEGV and SIGBUS of the fuzzer itself with the trails. */
static inline void kfuzz_crash_init(struct kfuzz *k)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = kfuzz_crash;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	kfuzz_crash_ctx = k;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* ---- the kernel log ----------------------------------------------------- */

/* What the harness (scripts/run-vm.sh, DMESG_BAD) fails a run for. */
static inline int kfuzz_bad_kernel_line(const char *s)
{
	static const char *const bad[] = {
		"BUG:", "kernel BUG", "Oops", "WARNING:", "general protection",
		"KASAN", "UBSAN", "Call Trace", "Kernel panic", "soft lockup",
		"hard LOCKUP", "rcu_sched detected stall", "rcu_preempt detected stall",
		"blocked for more than", "refcount_t:", "list_add corruption",
		"list_del corruption", "stack-protector", "slab-out-of-bounds",
		"use-after-free", "double free", "sleeping function called",
		"Poison overwritten", "Redzone", "Object padding",
		"Bad page", "bad pagetable",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(s, bad[i]))
			return 1;
	return 0;
}

/* Watch the kernel log from now on; -errno if it cannot be read. */
static inline int kfuzz_kmsg_open(struct kfuzz *k)
{
	k->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->kmsg_fd < 0)
		return -errno;
	lseek(k->kmsg_fd, 0, SEEK_END);
	return 0;
}

/*
 * Read what the kernel logged since the last call; on the first bad
 * line, print it with the trails of every thread and stop the fuzzing:
 * the calls that just ran are the reproduction. Returns 1 if bad.
 */
static inline int kfuzz_kmsg_check(struct kfuzz *k)
{
	char rec[1024], *msg;
	ssize_t n;
	int bad = 0;

	if (k->kmsg_fd < 0)
		return 0;
	for (;;) {
		n = read(k->kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten under us: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		/* From the first bad line on, the report (the console may not show it). */
		if (!k->kmsg_reported && !kfuzz_bad_kernel_line(msg))
			continue;
		bad = 1;
		if (k->kmsg_reported++ < 120)
			kfuzz_log(k, "kernel: %.*s", (int)strcspn(msg, "\n"), msg);
		if (k->kmsg_reported == 1) {
			atomic_store(&k->stop, 1);
			kfuzz_fail(k, NULL, "the kernel complained (seed %" PRIu64
				   "); the calls that led there:", k->seed);
		}
	}
	return bad;
}

/*
 * One round of the watchdog: a call in the kernel for longer than the
 * stall limit is a hang. Returns 1 once it reported one.
 */
static inline int kfuzz_watchdog(struct kfuzz *k)
{
	uint64_t now = kfuzz_now_ms(), start;
	unsigned int i;

	for (i = 0; i <= k->nr_threads; i++) {
		start = atomic_load(&k->threads[i].op_start);
		/* A call may have begun since now was read. */
		if (start && now > start && now - start > k->stall_s * 1000ull) {
			atomic_store(&k->stop, 1);
			kfuzz_fail(k, &k->threads[i],
				   "watchdog: thread %d has not come back from the kernel for %" PRIu64
				   " s (seed %" PRIu64 ")", i, (now - start) / 1000, k->seed);
			return 1;
		}
	}
	return 0;
}

/*
 * Set up @k from the environment: @def_seconds is the random phase's
 * default length. Threads' records live in shared memory (see struct
 * kfuzz_thread); [nr_threads] is the main thread's.
 */
static inline int kfuzz_init(struct kfuzz *k, unsigned int def_seconds)
{
	size_t sz;
	unsigned int i;

	memset(k, 0, sizeof(*k));
	pthread_mutex_init(&k->print_lock, NULL);
	k->seed = kfuzz_env("KETW_FUZZ_SEED", 1);
	k->seconds = kfuzz_env("KETW_FUZZ_SECONDS", def_seconds);
	k->nr_threads = kfuzz_env("KETW_FUZZ_THREADS", 4);
	if (k->nr_threads < 1 || k->nr_threads > 64)
		k->nr_threads = 4;
	k->stall_s = kfuzz_env("KETW_FUZZ_STALL", 10);
	k->trace = kfuzz_env("KETW_FUZZ_TRACE", 0) != 0;
	k->kmsg_fd = -1;
	sz = (k->nr_threads + 1) * sizeof(*k->threads);
	k->threads = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (k->threads == MAP_FAILED)
		return -errno;
	for (i = 0; i <= k->nr_threads; i++) {
		k->threads[i].id = i;
		kfuzz_rng_init(&k->threads[i].rng, k->seed, i);
	}
	return 0;
}

#endif /* _KFUZZ_H */
