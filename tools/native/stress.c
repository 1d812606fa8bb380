// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer core under stress, natively: module/ring.c, unchanged, on
 * the shim (shim/), with writer threads as CPUs, signal handlers and
 * injected calls as the interrupts that nest in them, and one reader
 * draining the ring meanwhile, as selftests/ketw/stress_test.c does in
 * the guest with real contexts.
 *
 *   stress                         every variant, each in its own process
 *   stress --variant NAME          one variant, in this process
 *   options: --seed N (1)  --seconds S (2)  --cpus N (3)  --list  -v
 *            --known LIST: checks (time,sequence,gap,resume,record,count)
 *            whose failures are reported, not failed: bugs with an issue
 *   STRESS_NO_BENIGN=1: LOOP data areas not marked racy for TSan (it then
 *            reports the reader's speculative copies, by design)
 *
 * Writers: each "CPU" thread logs in a loop from task context (level 0);
 * a kicker thread sends SIGUSR1 (hardirq, level 2) and SIGUSR2 (NMI,
 * level 3) to random writers, whose handlers log on that CPU; and before
 * about one marked access in INJECT_GAP the shim calls a nested writer
 * right there (NATIVE_INJECT, levels 1 to 3), so that interrupts arrive
 * between any two atomic steps of a write, which signals under
 * ThreadSanitizer (delivered only at its safe points) would rarely do.
 * Nested writers sometimes call ketw_ring_lose(), as the provider's
 * recursion guard would.
 *
 * Payloads encode (cpu, context, counter, length) and a checksum of their
 * fill. The reader checks every record (whole, its own CPU, sequence and
 * per-context counter increasing, time non-decreasing, OVERFLOW followed
 * by RESUME reporting the gap in front of it), and at the end, per CPU:
 *
 *   sequence  == written + lost_full + lost_busy + lost_nested
 *   written   == delivered + overwritten          (nothing left unread)
 *   gaps seen == lost + overwritten
 *   written   == stored by writers + OVERFLOW/RESUME pairs
 *   sequence  == writer calls + OVERFLOW/RESUME records
 *   not LOOP: nothing overwritten, every stored record delivered (per
 *             context, with a hash of the counters), RESUMEs + the tail
 *             gap == lost
 *
 * The result line of each variant names its seed; on a failure it also
 * prints the command that runs that variant again.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <native/native.h>
#include <ketw.h>
#include "ring.h"

extern char **environ;

#define MAX_CPUS	16
#define U(x)		((unsigned long long)(x))
#define INJECT_GAP	48	/* marked accesses between injected interrupts */
#define LOSE_ONE_IN	32	/* nested writers that call ketw_ring_lose() */

/* ---- variants ---- */

enum reader_mode { READ_CPU, PEEK_CONSUME };

struct variant {
	const char *name;
	u32 policy;
	enum reader_mode mode;
	u32 size;		/* per-CPU data area */
	u32 clock;
	unsigned int wait_how;	/* how the reader sleeps when it found nothing */
	u32 watermark;
	u32 max_fill;		/* largest payload fill */
	unsigned int big_one_in; /* one record in this many is large */
	const char *what;
};

static const struct variant variants[] = {
	{ "loop_read", KETW_POLICY_LOOP, READ_CPU, 16384, KETW_CLOCK_MONO,
	  KETW_WAIT_ANY, 0, 600, 16, "LOOP, read()" },
	{ "loop_peek", KETW_POLICY_LOOP, PEEK_CONSUME, 16384, KETW_CLOCK_LOCAL,
	  KETW_WAIT_ANY, 0, 600, 16, "LOOP, peek/consume" },
	{ "loop_tiny", KETW_POLICY_LOOP, READ_CPU, 4096, KETW_CLOCK_MONO,
	  KETW_WAIT_ANY, 0, 900, 3, "LOOP, one page, big records: lost_busy" },
	{ "flush_read", KETW_POLICY_FLUSH, READ_CPU, 16384, KETW_CLOCK_MONO,
	  KETW_WAIT_ANY, 0, 600, 16, "FLUSH, read()" },
	{ "flush_peek", KETW_POLICY_FLUSH, PEEK_CONSUME, 8192, KETW_CLOCK_BOOT,
	  KETW_WAIT_WATERMARK, 2048, 600, 16, "FLUSH, peek/consume, watermark" },
	{ "until_full_read", KETW_POLICY_UNTIL_FULL, READ_CPU, 16384,
	  KETW_CLOCK_MONO, KETW_WAIT_WATERMARK, 8192, 600, 16,
	  "UNTIL_FULL, read(), stop when full and start again" },
	{ "until_full_peek", KETW_POLICY_UNTIL_FULL, PEEK_CONSUME, 8192,
	  KETW_CLOCK_MONO, KETW_WAIT_ANY, 0, 600, 16,
	  "UNTIL_FULL, peek/consume, stop when full and start again" },
};

/* ---- options ---- */

static const struct variant *var;
static u64 opt_seed = 1;
static double opt_seconds = 2;
static unsigned int opt_cpus = 3;
static int opt_verbose;
static const char *opt_known = "";

/* ---- random numbers: splitmix64, the same everywhere ---- */

static u64 mix64(u64 z)
{
	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static u64 rnd(u64 *s)
{
	*s += 0x9E3779B97F4A7C15ULL;
	return mix64(*s);
}

/* ---- the payload ---- */

struct stress_ev {
	u32 cpu;
	u8 ctx;
	u8 flags;
	u16 fill;		/* bytes of fill after this struct */
	u64 counter;
	u64 csum;
};

static const u8 stress_guid[KETW_GUID_SIZE] = {
	0x6b, 0x65, 0x74, 0x77, 0x2d, 0x6e, 0x61, 0x74,
	0x69, 0x76, 0x65, 0x2d, 0x73, 0x74, 0x72, 0x73,
};

static const struct ketw_event_descriptor stress_desc[NATIVE_NR_CTX] = {
	{ .id = 0, .type = KETW_TYPE_INFO, .level = 4, .version = 1, .keyword = 0x1 },
	{ .id = 1, .type = KETW_TYPE_START, .level = 4, .version = 2, .keyword = 0x2 },
	{ .id = 2, .type = KETW_TYPE_END, .level = 3, .version = 3, .keyword = 0x4 },
	{ .id = 3, .type = KETW_TYPE_INFO, .level = 1, .version = 4, .keyword = 0x8 },
};

/* Everything about event @counter of (@cpu, @ctx) follows from this. */
static u64 ev_key(u32 cpu, u32 ctx, u64 counter)
{
	return mix64(opt_seed ^ ((u64)cpu << 56) ^ ((u64)ctx << 48) ^ counter);
}

static u32 ev_fill_len(u64 key)
{
	u32 max = var->max_fill;

	if (key % var->big_one_in == 0)
		return (u32)((key >> 8) % (max + 1));
	return (u32)((key >> 8) % (max < 64 ? max + 1 : 64));
}

static u8 ev_fill_byte(u64 key, u32 k)
{
	return (u8)((key >> ((k & 7) * 8)) ^ (k * 131));
}

static u64 ev_csum(const struct stress_ev *ev, const u8 *fill)
{
	u64 h = 0xcbf29ce484222325ULL ^ ev->counter ^ ((u64)ev->cpu << 40) ^
		((u64)ev->ctx << 32) ^ ((u64)ev->fill << 16) ^ ev->flags;
	u32 k;

	for (k = 0; k < ev->fill; k++)
		h = (h ^ fill[k]) * 0x100000001b3ULL;
	return h;
}

/* ---- shared state ---- */

enum { PH_IDLE, PH_RUN, PH_STOP, PH_EXIT };

static struct ketw_ring *ring;
static int phase;			/* PH_* */
static int round_no;			/* writers start a round when it grows */
static int parked;			/* writers done with the round */
static int drain_req, drained;		/* rounds the reader must drain, has drained */
static int full_requested;		/* UNTIL_FULL's on_full ran */
static int full_calls;
static int kicker_stop, reader_stop;

/* Per CPU, written by that CPU's contexts only (each level its own slot). */
struct writer {
	pthread_t thread;
	pid_t tid;
	u64 counter[NATIVE_NR_CTX];	/* events (write or lose) per level */
	u64 calls[NATIVE_NR_CTX];	/* ketw_ring_write() + ketw_ring_lose() */
	u64 stored[NATIVE_NR_CTX];	/* ketw_ring_write() returned true */
	u64 stored_hash[NATIVE_NR_CTX];
	u64 loses[NATIVE_NR_CTX];	/* ketw_ring_lose() */
	u64 truncated;			/* stored with KETW_RECORD_TRUNCATED */
	u64 signals[NATIVE_NR_CTX];	/* nested writers run by a signal */
	u64 masked;			/* signals that found a higher level running */
	u64 injected;
	int accepting;			/* this thread's signal handlers may log */
} __attribute__((aligned(128)));

static struct writer writers[MAX_CPUS];

/* Per CPU, the reader's. */
struct check {
	int started;
	u64 next_seq;
	u64 last_ts;
	u64 gaps;
	u64 delivered;			/* all records */
	u64 delivered_sys;
	u64 per_ctx[NATIVE_NR_CTX];
	u64 per_ctx_hash[NATIVE_NR_CTX];
	u64 next_counter[NATIVE_NR_CTX];
	int ctx_started[NATIVE_NR_CTX];
	u64 resume_lost;		/* sum of RESUME.lost */
	u64 overflows, resumes;
	int after_overflow;		/* the last record was an OVERFLOW ... */
	u64 overflow_gap;		/* ... with this gap in front of it */
	int after_resume;		/* the last record was a RESUME ... */
	u16 resume_ctx;			/* ... with these context bits */
	u64 bad;
	u64 retries;			/* LOOP: copies void, the record was taken */
	u64 snapshots, snap_records;
};

static struct check checks[MAX_CPUS];

/*
 * The context bits a writer of level @ctx passes, as provider.c computes
 * them: its context, interrupts off above task, a depth by level. The
 * OVERFLOW and RESUME in front of its record must carry the same.
 */
static u16 ctx_bits(int ctx)
{
	return (u16)((unsigned int)ctx << KETW_RECORD_CTX_SHIFT |
		     (ctx >= NATIVE_CTX_HARDIRQ ? KETW_RECORD_IRQS_OFF : 0) |
		     (unsigned int)ctx << KETW_RECORD_PREEMPT_SHIFT);
}

/* What a stop's ketw_ring_report_lost() passes: no writer's bits. */
#define REPORT_CTX_BITS	(KETW_RECORD_NEED_RESCHED | KETW_RECORD_PREEMPT_MASK)

/* What a failure breaks, for --known and the summary (as nest.c's). */
enum check_kind {
	CK_TIME,		/* time not in buffer order */
	CK_SEQ,			/* sequence or a context's counter not increasing */
	CK_GAP,			/* a gap not before an OVERFLOW (not LOOP) */
	CK_RESUME,		/* RESUME.lost not the losses before it */
	CK_RECORD,		/* a record not as written: torn, foreign, ... */
	CK_COUNT,		/* counters do not add up */
	NR_CHECKS
};
static const char *const check_names[NR_CHECKS] = {
	"time", "sequence", "gap", "resume", "record", "count",
};
static unsigned int known;		/* bit per check_kind: reported, not failed */
static u64 failures[NR_CHECKS];
static int shown[NR_CHECKS];

static void bad(struct check *c, int cpu, enum check_kind ck,
		const char *fmt, ...)
	__attribute__((__format__(__printf__, 4, 5)));

static void bad(struct check *c, int cpu, enum check_kind ck,
		const char *fmt, ...)
{
	va_list ap;

	c->bad++;
	failures[ck]++;
	if (shown[ck]++ >= (opt_verbose ? 20 : 1))
		return;
	fprintf(stderr, "%s: cpu%d: %s%s: ", var->name, cpu,
		known & (1u << ck) ? "known bug, " : "", check_names[ck]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- writers ---- */

static void emit(int ctx)
{
	struct writer *w = &writers[native_cpu];
	u32 cpu = (u32)native_cpu;
	u64 n = w->counter[ctx]++;
	u64 key = ev_key(cpu, (u32)ctx, n);
	struct {
		struct stress_ev ev;
		u8 fill[2048];
	} p;
	u32 k, flags = 0;
	bool ok;

	w->calls[ctx]++;
	if (ctx && (key >> 40) % LOSE_ONE_IN == 0) {
		/* What provider.c does for a writer inside a writer. */
		ketw_ring_lose(ring, KETW_LOSS_NESTED);
		w->loses[ctx]++;
		return;
	}
	p.ev.cpu = cpu;
	p.ev.ctx = (u8)ctx;
	p.ev.fill = (u16)ev_fill_len(key);
	if ((key >> 32) % 97 == 0)
		flags |= KETW_RECORD_TRUNCATED;
	if (var->policy == KETW_POLICY_UNTIL_FULL && (key >> 24) % 61 == 0)
		flags |= KETW_RING_USE_RESERVE;
	p.ev.flags = (u8)flags;
	flags |= ctx_bits(ctx);
	p.ev.counter = n;
	for (k = 0; k < p.ev.fill; k++)
		p.fill[k] = ev_fill_byte(key, k);
	p.ev.csum = ev_csum(&p.ev, p.fill);
	/*
	 * Half the events through the shared-event path that N sessions
	 * take, half of those as if for many rings (no scan), and half
	 * through ketw_ring_store_ext()'s entry (no items).
	 */
	if (n & 1) {
		struct ketw_ring_event sev;

		ketw_ring_event_init(&sev, stress_guid, &stress_desc[ctx],
				     n & 2 ? KETW_RING_SCAN_RINGS + 1 : 2);
		if (n & 4)
			ok = ketw_ring_store_ext(ring, &sev, NULL, 0, &p,
						 sizeof(p.ev) + p.ev.fill,
						 flags, NULL);
		else
			ok = ketw_ring_store(ring, &sev, &p,
					     sizeof(p.ev) + p.ev.fill, flags);
	} else {
		ok = ketw_ring_write(ring, stress_guid, &stress_desc[ctx], &p,
				     sizeof(p.ev) + p.ev.fill, flags);
	}
	if (ok) {
		w->stored[ctx]++;
		w->stored_hash[ctx] += mix64(n);
		if (flags & KETW_RECORD_TRUNCATED)
			w->truncated++;
	}
}

static void inject(int level)
{
	emit(level);
}

static void on_signal(int sig)
{
	int level = sig == SIGUSR2 ? NATIVE_CTX_NMI : NATIVE_CTX_HARDIRQ;
	int saved_errno = errno;
	struct native_irq_state saved;
	struct writer *w;

	if (native_cpu < 0)
		return;
	w = &writers[native_cpu];
	if (!w->accepting) {
		/* Parked: its CPU's session is stopped. */
	} else if (native_irq_depth >= level) {
		w->masked++;	/* the kernel would have it masked */
	} else {
		saved = native_irq_enter(level);
		w->signals[level]++;
		emit(level);
		native_irq_exit(saved);
	}
	errno = saved_errno;
}

static void block_signals(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(how, &set, NULL);
}

static void *writer_main(void *arg)
{
	int cpu = (int)(intptr_t)arg, my_round = 0, ph;
	struct writer *w = &writers[cpu];

	native_set_cpu(cpu);
	__atomic_store_n(&w->tid, task_pid_nr(current), __ATOMIC_RELEASE);
	for (;;) {
		/* A new round, however short: every writer parks once in it. */
		while ((ph = __atomic_load_n(&phase, __ATOMIC_ACQUIRE)) != PH_EXIT &&
		       __atomic_load_n(&round_no, __ATOMIC_ACQUIRE) == my_round)
			usleep(100);
		if (ph == PH_EXIT)
			break;
		my_round = __atomic_load_n(&round_no, __ATOMIC_ACQUIRE);
		native_inject(inject, INJECT_GAP,
			      opt_seed * 1000003 + (u64)cpu * 7919 + (u64)my_round,
			      NATIVE_CTX_NMI);
		w->accepting = 1;
		block_signals(SIG_UNBLOCK);
		while (__atomic_load_n(&phase, __ATOMIC_RELAXED) == PH_RUN)
			emit(NATIVE_CTX_TASK);
		block_signals(SIG_BLOCK);
		w->accepting = 0;
		w->injected += native_injected();
		native_inject(NULL, 0, 0, 0);
		/* As a session's stop does on each CPU. */
		ketw_ring_report_lost(ring, REPORT_CTX_BITS);
		__atomic_fetch_add(&parked, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *kicker_main(void *arg)
{
	u64 s = opt_seed ^ 0x6b69636b;
	struct timespec ts = { 0, 0 };
	u64 r;

	(void)arg;
	while (!__atomic_load_n(&kicker_stop, __ATOMIC_ACQUIRE)) {
		r = rnd(&s);
		pthread_kill(writers[r % opt_cpus].thread,
			     (r >> 32) % 4 ? SIGUSR1 : SIGUSR2);
		ts.tv_nsec = 20000 + (long)((r >> 40) % 60000);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- reader ---- */

static void check_system(struct check *c, int cpu,
			 const struct ketw_event_header *h, u64 gap)
{
	bool loop = var->policy == KETW_POLICY_LOOP;
	const void *pl = h + 1;

	c->delivered_sys++;
	if (h->event_id == KETW_SYS_OVERFLOW) {
		const struct ketw_sys_overflow *o = pl;

		if (h->size != KETW_EVENT_HEADER_SIZE + sizeof(*o))
			bad(c, cpu, CK_RECORD, "OVERFLOW of size %u", h->size);
		else if (o->first_lost_timestamp > h->timestamp)
			bad(c, cpu, CK_TIME, "OVERFLOW: first loss at %llu after its time %llu",
			    (unsigned long long)o->first_lost_timestamp,
			    (unsigned long long)h->timestamp);
		c->overflows++;
		c->after_overflow = 1;
		c->overflow_gap = gap;
		return;
	}
	if (h->event_id == KETW_SYS_RESUME) {
		const struct ketw_sys_resume *r = pl;
		int pair = c->after_overflow;

		c->after_overflow = 0;
		c->after_resume = 1;
		c->resume_ctx = h->flags & KETW_RECORD_CONTEXT_BITS;
		c->resumes++;
		if (h->size != KETW_EVENT_HEADER_SIZE + sizeof(*r)) {
			bad(c, cpu, CK_RECORD, "RESUME of size %u", h->size);
			return;
		}
		c->resume_lost += r->lost;
		if (r->lost == 0)
			bad(c, cpu, CK_RESUME, "RESUME reports no loss");
		if (pair && gap == 0) {
			/* The pair: the gap before OVERFLOW holds the losses. */
			if (loop ? c->overflow_gap < r->lost :
				   c->overflow_gap != r->lost)
				bad(c, cpu, CK_RESUME, "RESUME reports %llu lost, the gap before OVERFLOW is %llu",
				    (unsigned long long)r->lost,
				    (unsigned long long)c->overflow_gap);
		} else if (!loop) {
			bad(c, cpu, CK_RESUME, "RESUME without its OVERFLOW");
		} else if (gap < r->lost + 1) {
			bad(c, cpu, CK_RESUME, "RESUME reports %llu lost, gap %llu without OVERFLOW",
			    (unsigned long long)r->lost, (unsigned long long)gap);
		}
		return;
	}
	bad(c, cpu, CK_RECORD, "system event %u", h->event_id);
}

static void check_record(int cpu, const struct ketw_event_header *h)
{
	struct check *c = &checks[cpu];
	const struct stress_ev *ev = (const void *)(h + 1);
	const u8 *fill = (const u8 *)(ev + 1);
	bool loop = var->policy == KETW_POLICY_LOOP;
	u32 k, expect_flags;
	u64 gap = 0, key;
	int ctx;

	if (h->cpu != (u32)cpu)
		bad(c, cpu, CK_RECORD, "record of cpu %u", h->cpu);
	if (c->started && h->sequence < c->next_seq) {
		bad(c, cpu, CK_SEQ, "sequence %llu after %llu",
		    (unsigned long long)h->sequence,
		    (unsigned long long)c->next_seq - 1);
	} else {
		gap = h->sequence - c->next_seq;
		c->gaps += gap;
		c->next_seq = h->sequence + 1;
	}
	if (!c->started)
		c->started = 1;
	if (h->timestamp < c->last_ts)
		bad(c, cpu, CK_TIME, "time %llu after %llu (sequence %llu)",
		    (unsigned long long)h->timestamp,
		    (unsigned long long)c->last_ts,
		    (unsigned long long)h->sequence);
	c->last_ts = h->timestamp;
	c->delivered++;
	if (!loop && gap && !(h->flags & KETW_RECORD_SYSTEM &&
			      h->event_id == KETW_SYS_OVERFLOW))
		bad(c, cpu, CK_GAP, "gap of %llu before sequence %llu, not an OVERFLOW",
		    (unsigned long long)gap, (unsigned long long)h->sequence);

	if (h->flags & KETW_RECORD_SYSTEM) {
		if (h->flags & ~(u32)(KETW_RECORD_SYSTEM |
				      KETW_RECORD_CONTEXT_BITS))
			bad(c, cpu, CK_RECORD, "system record flags %#x", h->flags);
		c->after_resume = 0;
		check_system(c, cpu, h, gap);
		return;
	}
	c->after_overflow = 0;
	/* The pair in front of a record is logged with its context bits. */
	if (c->after_resume && !gap && c->resume_ctx != REPORT_CTX_BITS &&
	    c->resume_ctx != (h->flags & KETW_RECORD_CONTEXT_BITS))
		bad(c, cpu, CK_RECORD, "RESUME's context bits %#x, the record's after it %#x",
		    c->resume_ctx,
		    (unsigned int)(h->flags & KETW_RECORD_CONTEXT_BITS));
	c->after_resume = 0;
	if (h->size < KETW_EVENT_HEADER_SIZE + sizeof(*ev) ||
	    memcmp(h->provider_guid, stress_guid, KETW_GUID_SIZE)) {
		bad(c, cpu, CK_RECORD, "foreign record: size %u", h->size);
		return;
	}
	ctx = ev->ctx;
	if (ctx >= NATIVE_NR_CTX || ev->cpu != (u32)cpu ||
	    h->size != KETW_EVENT_HEADER_SIZE + sizeof(*ev) + ev->fill ||
	    ev_csum(ev, fill) != ev->csum) {
		bad(c, cpu, CK_RECORD, "torn record: size %u ctx %u cpu %u fill %u sequence %llu",
		    h->size, ev->ctx, ev->cpu, ev->fill,
		    (unsigned long long)h->sequence);
		return;
	}
	/* The header's descriptor words, from either write path. */
	if (h->event_id != stress_desc[ctx].id ||
	    h->type != stress_desc[ctx].type ||
	    h->level != stress_desc[ctx].level ||
	    h->version != stress_desc[ctx].version ||
	    h->keyword != stress_desc[ctx].keyword)
		bad(c, cpu, CK_RECORD, "descriptor of ctx %u: id %u type %u level %u version %u keyword %#llx",
		    ctx, h->event_id, h->type, h->level, h->version,
		    (unsigned long long)h->keyword);
	key = ev_key((u32)cpu, (u32)ctx, ev->counter);
	if (ev->fill != ev_fill_len(key))
		bad(c, cpu, CK_RECORD, "fill %u for counter %llu", ev->fill,
		    (unsigned long long)ev->counter);
	for (k = 0; k < ev->fill; k++)
		if (fill[k] != ev_fill_byte(key, k)) {
			bad(c, cpu, CK_RECORD, "fill byte %u of counter %llu", k,
			    (unsigned long long)ev->counter);
			break;
		}
	expect_flags = (ev->flags & KETW_RECORD_TRUNCATED) | ctx_bits(ctx);
	if (h->flags != expect_flags || h->event_id != stress_desc[ctx].id ||
	    h->type != stress_desc[ctx].type ||
	    h->level != stress_desc[ctx].level ||
	    h->version != stress_desc[ctx].version ||
	    h->keyword != stress_desc[ctx].keyword)
		bad(c, cpu, CK_RECORD, "header of counter %llu ctx %d: flags %#x id %u type %u level %u version %u",
		    (unsigned long long)ev->counter, ctx, h->flags, h->event_id,
		    h->type, h->level, h->version);
	if (ctx == NATIVE_CTX_TASK ?
	    (h->thread_id != (u32)writers[cpu].tid ||
	     h->process_id != (u32)getpid()) :
	    (h->thread_id || h->process_id))
		bad(c, cpu, CK_RECORD, "ctx %d: thread %u process %u", ctx, h->thread_id,
		    h->process_id);
	/* Per context, counters only go up: no record twice, none reordered. */
	if (c->ctx_started[ctx] && ev->counter < c->next_counter[ctx])
		bad(c, cpu, CK_SEQ, "ctx %d: counter %llu after %llu", ctx,
		    (unsigned long long)ev->counter,
		    (unsigned long long)c->next_counter[ctx] - 1);
	c->ctx_started[ctx] = 1;
	c->next_counter[ctx] = ev->counter + 1;
	c->per_ctx[ctx]++;
	c->per_ctx_hash[ctx] += mix64(ev->counter);
}

static u8 rbuf[1 << 16] __attribute__((aligned(8)));

/* Walk @len bytes of whole records from ketw_ring_read_cpu(). */
static void check_buffer(int cpu, const u8 *buf, size_t len)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	u32 span;

	while (off < len) {
		h = (const void *)(buf + off);
		span = KETW_RECORD_SPAN(h->size);
		if (len - off < KETW_EVENT_HEADER_SIZE || h->size < KETW_EVENT_HEADER_SIZE ||
		    span > len - off || (h->flags & KETW_RECORD_PADDING)) {
			bad(&checks[cpu], cpu, CK_RECORD, "read() gave a broken record at %zu of %zu",
			    off, len);
			return;
		}
		check_record(cpu, h);
		off += span;
	}
}

/* Drain some of one CPU; returns the records taken. */
static u64 drain_cpu(int cpu, u64 *s)
{
	struct check *c = &checks[cpu];
	u64 before = c->delivered;
	size_t len;
	ssize_t n;
	u32 pos;
	int k;

	if (var->mode == READ_CPU) {
		for (k = 0; k < 4; k++) {
			/* Now and then too small a buffer: -EMSGSIZE. */
			len = rnd(s) % 8 ? sizeof(rbuf) : (size_t)(rnd(s) % 512);
			n = ketw_ring_read_cpu(ring, cpu, (char *)rbuf, len);
			if (n == -EMSGSIZE)
				continue;
			if (n < 0) {
				bad(c, cpu, CK_RECORD, "read_cpu: %zd", n);
				break;
			}
			if (n == 0)
				break;
			check_buffer(cpu, rbuf, (size_t)n);
		}
	} else {
		for (k = 0; k < 512; k++) {
			n = ketw_ring_peek_cpu(ring, cpu, rbuf, sizeof(rbuf), &pos);
			if (n <= 0) {
				if (n < 0)
					bad(c, cpu, CK_RECORD, "peek_cpu: %zd", n);
				break;
			}
			if (ketw_ring_consume_cpu(ring, cpu, pos, (u32)n))
				check_record(cpu, (const void *)rbuf);
			else
				c->retries++;
		}
	}
	return c->delivered - before;
}

static u8 sbuf[1 << 16] __attribute__((aligned(8)));

/* A snapshot takes nothing: check that every record in it is whole. */
static void snapshot_cpu(int cpu)
{
	struct check *c = &checks[cpu];
	const struct ketw_event_header *h;
	u64 copied, dropped, off, prev_seq = 0;
	const struct stress_ev *ev;
	int first = 1;
	u32 span;

	if (ketw_ring_snapshot_cpu_kernel(ring, cpu, sbuf, sizeof(sbuf),
					  &copied, &dropped)) {
		bad(c, cpu, CK_RECORD, "snapshot failed");
		return;
	}
	c->snapshots++;
	for (off = 0; off < copied; off += span) {
		h = (const void *)(sbuf + off);
		span = KETW_RECORD_SPAN(h->size);
		if (span < KETW_RECORD_ALIGN || span > copied - off) {
			bad(c, cpu, CK_RECORD, "snapshot: broken record at %llu of %llu",
			    (unsigned long long)off, (unsigned long long)copied);
			return;
		}
		if (h->flags & KETW_RECORD_PADDING)
			continue;
		ev = (const void *)(h + 1);
		if (h->cpu != (u32)cpu || (!first && h->sequence <= prev_seq) ||
		    (!(h->flags & KETW_RECORD_SYSTEM) &&
		     (h->size != KETW_EVENT_HEADER_SIZE + sizeof(*ev) + ev->fill ||
		      ev_csum(ev, (const u8 *)(ev + 1)) != ev->csum))) {
			bad(c, cpu, CK_RECORD, "snapshot: torn record at %llu (sequence %llu)",
			    (unsigned long long)off,
			    (unsigned long long)h->sequence);
			return;
		}
		first = 0;
		prev_seq = h->sequence;
		c->snap_records++;
	}
}

static void *reader_main(void *arg)
{
	struct ketw_cpu_stats st, prev[MAX_CPUS];
	u64 s = opt_seed ^ 0x72656164, got, pass = 0;
	u32 commits[MAX_CPUS];
	unsigned int cpu;
	int req, noted = 0;

	(void)arg;
	memset(prev, 0, sizeof(prev));
	while (!__atomic_load_n(&reader_stop, __ATOMIC_ACQUIRE)) {
		got = 0;
		for (cpu = 0; cpu < opt_cpus; cpu++)
			got += drain_cpu((int)cpu, &s);
		pass++;
		if (pass % 64 == 0) {
			cpu = (unsigned int)(rnd(&s) % opt_cpus);
			snapshot_cpu((int)cpu);
			/* Counters only go up, and stats read them live. */
			ketw_ring_stats_cpu(ring, (int)cpu, &st);
			if (st.written < prev[cpu].written ||
			    st.sequence < prev[cpu].sequence ||
			    st.overwritten < prev[cpu].overwritten)
				bad(&checks[cpu], (int)cpu, CK_COUNT, "stats went back");
			prev[cpu] = st;
		}
		if (pass % 64 == 32) {
			/* What FLUSH and poll() ask, live; checked when drained. */
			ketw_ring_commits(ring, commits);
			noted = 1;
			(void)ketw_ring_above_watermark(ring);
			(void)ketw_ring_full(ring, KETW_RECORD_SPAN(
				KETW_EVENT_HEADER_SIZE + sizeof(struct stress_ev) +
				var->max_fill));
		}
		req = __atomic_load_n(&drain_req, __ATOMIC_ACQUIRE);
		if (got)
			continue;
		if (req != __atomic_load_n(&drained, __ATOMIC_RELAXED)) {
			/* Writers are parked: once empty, it stays so. */
			if (ketw_ring_empty(ring)) {
				/* Everything committed before is consumed now. */
				if (noted && !ketw_ring_consumed_all(ring, commits))
					bad(&checks[0], 0, CK_COUNT,
					    "drained, but not consumed up to noted commits");
				__atomic_store_n(&drained, req, __ATOMIC_RELEASE);
			}
			continue;
		}
		/* Nothing: sleep until a writer's irq_work wakes us, or 2 ms. */
		ketw_ring_wait(ring, var->wait_how, 2);
	}
	return NULL;
}

/* UNTIL_FULL: from the irq_work, as the session's auto-stop. */
static void on_full(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&full_calls, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&full_requested, 1, __ATOMIC_RELEASE);
}

/* ---- one variant ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check_cpu(int cpu)
{
	struct writer *w = &writers[cpu];
	struct check *c = &checks[cpu];
	bool loop = var->policy == KETW_POLICY_LOOP;
	u64 lost, calls = 0, stored = 0, loses = 0, sys_written, tail;
	struct ketw_cpu_stats st;
	int k;

#define EXPECT(ck, cond, fmt, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "%s: cpu%d: %s%s: %s: " fmt "\n",	\
			var->name, cpu,					\
			known & (1u << (ck)) ? "known bug, " : "FAIL ",	\
			check_names[ck], #cond, ##__VA_ARGS__);		\
		failures[ck]++;						\
	}								\
} while (0)

	ketw_ring_stats_cpu(ring, cpu, &st);
	for (k = 0; k < NATIVE_NR_CTX; k++) {
		calls += w->calls[k];
		stored += w->stored[k];
		loses += w->loses[k];
	}
	lost = st.lost_full + st.lost_busy + st.lost_nested;
	sys_written = st.written - stored;
	tail = st.sequence - c->next_seq;
	if (opt_verbose)
		printf("  cpu%d: calls %llu stored %llu (task %llu softirq %llu hardirq %llu nmi %llu; by signal %llu+%llu, injected %llu, masked %llu) delivered %llu (%llu system) written %llu lost %llu/%llu/%llu overwritten %llu sequence %llu, OVERFLOW %llu RESUME %llu, retries %llu, snapshots %llu (%llu records)\n",
		       cpu, U(calls), U(stored), U(w->stored[0]), U(w->stored[1]),
		       U(w->stored[2]), U(w->stored[3]), U(w->signals[2]),
		       U(w->signals[3]), U(w->injected), U(w->masked),
		       U(c->delivered), U(c->delivered_sys), U(st.written),
		       U(st.lost_full), U(st.lost_busy), U(st.lost_nested),
		       U(st.overwritten), U(st.sequence), U(c->overflows),
		       U(c->resumes), U(c->retries), U(c->snapshots),
		       U(c->snap_records));

	/* Every accepted event took one sequence number ... */
	EXPECT(CK_COUNT, st.sequence == st.written + lost, "sequence %llu written %llu lost %llu",
	       U(st.sequence), U(st.written), U(lost));
	/* ... every record stored was read or overwritten, none is left ... */
	EXPECT(CK_COUNT, ketw_ring_cpu_empty(ring, cpu), "records left");
	EXPECT(CK_COUNT, st.consumed == st.produced, "consumed %llu produced %llu",
	       U(st.consumed), U(st.produced));
	EXPECT(CK_COUNT, st.written == c->delivered + st.overwritten,
	       "written %llu delivered %llu overwritten %llu", U(st.written),
	       U(c->delivered), U(st.overwritten));
	/* ... and each gap the reader saw is a counted loss. */
	EXPECT(CK_COUNT, c->gaps + tail == lost + st.overwritten,
	       "gaps %llu tail %llu lost %llu overwritten %llu", U(c->gaps),
	       U(tail), U(lost), U(st.overwritten));
	/* The writers' side: every call took a number, every loss is one. */
	EXPECT(CK_COUNT, st.written >= stored && sys_written % 2 == 0,
	       "written %llu stored %llu", U(st.written), U(stored));
	EXPECT(CK_COUNT, st.sequence == calls + sys_written,
	       "sequence %llu calls %llu OVERFLOW/RESUME %llu", U(st.sequence),
	       U(calls), U(sys_written));
	EXPECT(CK_COUNT, st.lost_nested == loses, "lost_nested %llu lose() %llu",
	       U(st.lost_nested), U(loses));
	EXPECT(CK_COUNT, st.lost_full + st.lost_busy == calls - loses - stored,
	       "lost_full %llu lost_busy %llu failed writes %llu",
	       U(st.lost_full), U(st.lost_busy), U(calls - loses - stored));
	EXPECT(CK_COUNT, st.truncated == w->truncated, "truncated %llu, stored so %llu",
	       U(st.truncated), U(w->truncated));
	EXPECT(CK_COUNT, c->delivered_sys <= sys_written, "system records %llu of %llu",
	       U(c->delivered_sys), U(sys_written));
	EXPECT(CK_RESUME, c->resume_lost <= lost, "RESUMEs report %llu of %llu lost",
	       U(c->resume_lost), U(lost));
	if (!loop) {
		EXPECT(CK_COUNT, st.overwritten == 0 && st.lost_busy == 0,
		       "overwritten %llu lost_busy %llu", U(st.overwritten),
		       U(st.lost_busy));
		EXPECT(CK_COUNT, c->delivered_sys == sys_written,
		       "system records %llu of %llu", U(c->delivered_sys),
		       U(sys_written));
		EXPECT(CK_RESUME, c->resume_lost + tail == lost,
		       "RESUMEs %llu tail %llu lost %llu", U(c->resume_lost),
		       U(tail), U(lost));
		for (k = 0; k < NATIVE_NR_CTX; k++)
			EXPECT(CK_COUNT, c->per_ctx[k] == w->stored[k] &&
			       c->per_ctx_hash[k] == w->stored_hash[k],
			       "ctx %d: delivered %llu of %llu stored", k,
			       U(c->per_ctx[k]), U(w->stored[k]));
	} else {
		for (k = 0; k < NATIVE_NR_CTX; k++)
			EXPECT(CK_COUNT, c->per_ctx[k] <= w->stored[k],
			       "ctx %d: delivered %llu of %llu stored", k,
			       U(c->per_ctx[k]), U(w->stored[k]));
	}
#undef EXPECT
}

static int run_variant(void)
{
	struct ketw_ring_config cfg = {
		.size = var->size, .policy = var->policy, .clock = var->clock,
		.watermark = var->watermark ? var->watermark : var->size / 2,
		.on_full = on_full,
	};
	pthread_t reader, kicker;
	struct sigaction sa;
	double end, t0 = now_s();
	u64 total_stored = 0, nested = 0, signals = 0, lost = 0, ovw = 0;
	unsigned int cpu;
	int rounds = 0, fails = 0, k;

	native_init(opt_cpus, 64UL << 20);
	native_benign_data_areas(var->policy == KETW_POLICY_LOOP && !getenv("STRESS_NO_BENIGN"));
	ring = ketw_ring_alloc(&cfg);
	if (IS_ERR(ring)) {
		fprintf(stderr, "%s: ketw_ring_alloc: %ld\n", var->name, PTR_ERR(ring));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);	/* hardirq: NMI may come in */
	sigaction(SIGUSR2, &sa, NULL);	/* NMI */
	/* Threads start with both blocked; writers open them in a round. */
	block_signals(SIG_BLOCK);

	for (cpu = 0; cpu < opt_cpus; cpu++) {
		writers[cpu].tid = 0;
		pthread_create(&writers[cpu].thread, NULL, writer_main,
			       (void *)(intptr_t)cpu);
	}
	pthread_create(&reader, NULL, reader_main, NULL);
	pthread_create(&kicker, NULL, kicker_main, NULL);
	for (cpu = 0; cpu < opt_cpus; cpu++)
		while (!__atomic_load_n(&writers[cpu].tid, __ATOMIC_ACQUIRE))
			usleep(100);

	end = t0 + opt_seconds;
	do {
		/* A round: writers log until the time is up or UNTIL_FULL is full. */
		rounds++;
		if (rounds > 1)
			ketw_ring_rearm(ring);	/* a session starting again */
		__atomic_store_n(&full_requested, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&parked, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&phase, PH_RUN, __ATOMIC_RELEASE);
		__atomic_store_n(&round_no, rounds, __ATOMIC_RELEASE);
		while (now_s() < end &&
		       !__atomic_load_n(&full_requested, __ATOMIC_ACQUIRE))
			usleep(1000);
		/* Stop: no writer is in the ring once all are parked. */
		__atomic_store_n(&phase, PH_STOP, __ATOMIC_RELEASE);
		while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) != (int)opt_cpus)
			usleep(200);
		/* The reader empties the ring before it starts again. */
		__atomic_store_n(&drain_req, rounds, __ATOMIC_RELEASE);
		while (__atomic_load_n(&drained, __ATOMIC_ACQUIRE) != rounds)
			usleep(200);
	} while (now_s() < end);

	__atomic_store_n(&kicker_stop, 1, __ATOMIC_RELEASE);
	pthread_join(kicker, NULL);
	__atomic_store_n(&phase, PH_EXIT, __ATOMIC_RELEASE);
	for (cpu = 0; cpu < opt_cpus; cpu++)
		pthread_join(writers[cpu].thread, NULL);
	__atomic_store_n(&reader_stop, 1, __ATOMIC_RELEASE);
	ketw_ring_wake(ring);
	pthread_join(reader, NULL);

	for (cpu = 0; cpu < opt_cpus; cpu++) {
		struct ketw_cpu_stats st;

		check_cpu((int)cpu);
		ketw_ring_stats_cpu(ring, (int)cpu, &st);
		lost += st.lost_full + st.lost_busy + st.lost_nested;
		ovw += st.overwritten;
		for (k = 0; k < NATIVE_NR_CTX; k++) {
			total_stored += writers[cpu].stored[k];
			if (k)
				nested += writers[cpu].stored[k];
			signals += writers[cpu].signals[k];
		}
	}
	/* Coverage: nothing here is a property of the ring, but a run that
	 * never nested or never lost proves little. */
	if (!total_stored || !nested || !signals) {
		fprintf(stderr, "%s: FAIL coverage: stored %llu nested %llu by signal %llu\n",
			var->name, U(total_stored), U(nested), U(signals));
		fails++;
	}
	if (native_warnings()) {
		fprintf(stderr, "%s: FAIL %lu kernel warnings (see above)\n",
			var->name, native_warnings());
		fails++;
	}
	for (k = 0; k < NR_CHECKS; k++) {
		if (!failures[k])
			continue;
		if (known & (1u << k)) {
			printf("%s: known bug: %llu %s failure%s (not counted)\n",
			       var->name, U(failures[k]), check_names[k],
			       failures[k] == 1 ? "" : "s");
		} else {
			printf("%s: %llu %s failure%s\n", var->name,
			       U(failures[k]), check_names[k],
			       failures[k] == 1 ? "" : "s");
			fails++;
		}
	}
	printf("%s %s: %s in %.1f s, %d round%s (on_full %d), %llu events stored, %llu nested, %llu by signal, %llu lost, %llu overwritten [seed %llu]\n",
	       fails ? "FAIL" : "ok  ", var->name, var->what, now_s() - t0,
	       rounds, rounds == 1 ? "" : "s",
	       __atomic_load_n(&full_calls, __ATOMIC_RELAXED), U(total_stored),
	       U(nested), U(signals), U(lost), U(ovw), U(opt_seed));
	ketw_ring_free(ring);
	native_exit();
	return fails ? 1 : 0;
}

/* ---- every variant, each in a child process ---- */

static int run_all(const char *self)
{
	int passed = 0, failed = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		char seed[32], secs[32], cpus[32];
		char *argv[] = { (char *)self, "--variant", (char *)variants[i].name,
				 "--seed", seed, "--seconds", secs, "--cpus", cpus,
				 "--known", (char *)opt_known,
				 opt_verbose ? "-v" : NULL, NULL };
		pid_t pid;
		int status;

		snprintf(seed, sizeof(seed), "%llu", U(opt_seed));
		snprintf(secs, sizeof(secs), "%g", opt_seconds);
		snprintf(cpus, sizeof(cpus), "%u", opt_cpus);
		fflush(stdout);
		if (posix_spawn(&pid, self, NULL, NULL, argv, environ)) {
			perror("posix_spawn");
			return 1;
		}
		if (waitpid(pid, &status, 0) < 0) {
			perror("waitpid");
			return 1;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			passed++;
		} else {
			failed++;
			if (WIFSIGNALED(status))
				printf("FAIL %s: killed by signal %d\n",
				       variants[i].name, WTERMSIG(status));
			else if (WEXITSTATUS(status) != 1)
				printf("FAIL %s: exit status %d (66: ThreadSanitizer report)\n",
				       variants[i].name, WEXITSTATUS(status));
			printf("  reproduce: %s --variant %s --seed %llu --seconds %g --cpus %u%s%s\n",
			       self, variants[i].name, U(opt_seed), opt_seconds,
			       opt_cpus, *opt_known ? " --known " : "", opt_known);
		}
	}
	printf("native stress: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: stress [--variant NAME] [--seed N] [--seconds S] [--cpus N] [--known LIST] [-v] [--list]\n");
	for (i = 0; i < ARRAY_SIZE(variants); i++)
		fprintf(f, "  %-16s %s\n", variants[i].name, variants[i].what);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", required_argument, NULL, 'V' },
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "known", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	size_t i;
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (o) {
		case 'V':
			name = optarg;
			break;
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			opt_seconds = atof(optarg);
			break;
		case 'c':
			opt_cpus = (unsigned int)atoi(optarg);
			break;
		case 'l':
			usage(stdout);
			return 0;
		case 'v':
			opt_verbose = 1;
			break;
		case 'k':
			opt_known = optarg;
			for (i = 0; i < NR_CHECKS; i++)
				if (strstr(optarg, check_names[i]))
					known |= 1u << i;
			break;
		default:
			usage(o == 'h' ? stdout : stderr);
			return o == 'h' ? 0 : 2;
		}
	}
	if (opt_cpus < 1 || opt_cpus > MAX_CPUS) {
		fprintf(stderr, "--cpus: 1 to %d\n", MAX_CPUS);
		return 2;
	}
	if (!name)
		return run_all(argv[0]);
	for (i = 0; i < ARRAY_SIZE(variants); i++)
		if (!strcmp(variants[i].name, name))
			var = &variants[i];
	if (!var) {
		usage(stderr);
		return 2;
	}
	return run_variant();
}
