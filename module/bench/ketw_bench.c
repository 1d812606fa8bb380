// SPDX-License-Identifier: GPL-2.0
/*
 * ketw_bench - the kernel half of "make bench": figures, not a test.
 *
 * Write a command to /sys/module/ketw_bench/parameters/run; the write
 * returns when the measurement is done, and
 * /sys/module/ketw_bench/parameters/result then holds one line of
 * key=value pairs. Times are in picoseconds so that integers keep the
 * precision; rates are in events per second.
 *
 *   disabled           no session may be running: a loop of ketw_write()
 *                      (its static branch off) against the same loop
 *                      calling an empty function with the same arguments,
 *                      and against the loop with the call compiled out;
 *                      runs of 10 x iters turns, the fastest of
 *                      3 x "reps" (at most 15) runs.
 *   write SIZE         ketw_write() of SIZE payload bytes into the running
 *                      session(s), on CPU "cpu"; "sessions" says how many
 *                      take each event (each stores a record of it).
 *   context SIZE       __ketw_write_bench() with the computation of the
 *                      execution context and without, the same function
 *                      (so the same code layout), runs interleaved: what
 *                      the context bits of every record cost.
 *   pairs SIZE...      up to BENCH_MAX_SIZES payload sizes, "reps" rounds:
 *                      in each, for every size, one mixed run of
 *                      ketw_write() of SIZE bytes, ftrace's write of SIZE
 *                      and of SIZE + 64 bytes (as many bytes as ketw
 *                      stores) and the reference loop, by turns in chunks
 *                      of about chunk_us each (a mixed run, below); the
 *                      sizes' order rotated and the kinds' order reversed
 *                      from one round to the next. The result holds every
 *                      run's figure, in round order: the reader takes
 *                      medians, spreads and each round's ratios.
 *   ref                the reference loop alone, "reps" runs: arithmetic
 *                      only (no memory, no clock, no call), so that what
 *                      varies between its runs is the machine, not the
 *                      code: how noisy a run is.
 *   ftrace SIZE        ring_buffer_lock_reserve(), a memcpy() of SIZE
 *                      bytes and ring_buffer_unlock_commit() on a private
 *                      overwriting ftrace ring buffer of buf_kb KiB per CPU.
 *   scale SIZE         events/s of ketw_write() with one writer (on "cpu")
 *                      and with one writer on every online CPU at once.
 *   ftrace-scale SIZE  the same on the ftrace ring buffer.
 *   cycles-scale SIZE  the same for a read of the cycle counter alone
 *                      (SIZE is ignored): how the clock itself scales.
 *   clock              ns per read of the clocks ketw and ftrace stamp with.
 *   fill N SIZE        log N events of SIZE bytes on every online CPU (for
 *                      the drain benchmark; not timed).
 *
 * Each writer is a kthread bound to its CPU. It writes in chunks of
 * BENCH_CHUNK events with preemption disabled, timed with local_clock(),
 * and reschedules between chunks; only the time inside chunks counts.
 * Single-CPU figures are the median of "reps" runs of "iters" events,
 * after a warm-up that wraps a buffer of warm_kb KiB once, so that both
 * ring buffers are measured overwriting, in steady state. ref warms up
 * before each timed run with iters / 8 events.
 *
 * context and pairs time mixed runs: one kthread runs the kinds compared
 * by turns, a chunk of each in every round, each chunk timed on its own,
 * sized from a short calibration so that it lasts about chunk_us: each
 * kind gets the same share of the run. What the host takes from the
 * guest meanwhile (the vCPU is a host thread among others), it takes
 * from each kind in proportion to its time, so the kinds' ratios hold on
 * a busy host, where their absolute figures do not. A timed run is
 * mix_rounds rounds, after a warm-up of mix_rounds / 8.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <ketw.h>

#define BENCH_NAME		"ketw-bench"
/* 6b657477-6265-6e63-6800-000000000001: "ketwbench" */
#define BENCH_GUID_BYTES	{ 0x6b, 0x65, 0x74, 0x77, 0x62, 0x65, 0x6e, 0x63, \
				  0x68, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }
#define BENCH_MAX_SIZE		1024
#define BENCH_CHUNK		1024U
#define BENCH_MAX_REPS		15
#define BENCH_MAX_SIZES		4
#define BENCH_MAX_ARGS		BENCH_MAX_SIZES
/* Kinds of one mixed run: ketw, ftrace, ftrace + 64 B, the reference. */
#define BENCH_MIX		4
/* Every run of a pairs command in decimal: within a sysfs page. */
#define BENCH_RESULT_LEN	3072
/* Turns of the reference loop's mixing step per counted "event". */
#define BENCH_REF_STEPS		256

static KETW_PROVIDER(bench_prov, BENCH_NAME, BENCH_GUID_BYTES);

static const struct ketw_event_descriptor bench_ev = {
	.id		= 1,
	.type		= KETW_TYPE_INFO,
	.level		= KETW_LEVEL_INFO,
	.version	= 1,
	.keyword	= 0x1,
	.name		= "bench",
};

static unsigned int iters = 200000;
module_param(iters, uint, 0644);
MODULE_PARM_DESC(iters, "events per timed run (default 200000)");

static unsigned int reps = 5;
module_param(reps, uint, 0644);
MODULE_PARM_DESC(reps, "timed runs per figure, the median is kept (1..15, default 5)");

static unsigned int bench_cpu;
module_param_named(cpu, bench_cpu, uint, 0644);
MODULE_PARM_DESC(cpu, "CPU of the single-writer runs (default 0)");

static unsigned int buf_kb = 4096;
module_param(buf_kb, uint, 0644);
MODULE_PARM_DESC(buf_kb, "ftrace ring buffer KiB per CPU (default 4096)");

static unsigned int warm_kb = 8192;
module_param(warm_kb, uint, 0644);
MODULE_PARM_DESC(warm_kb, "bytes of records written before timing, in KiB (default 8192)");

static unsigned int bench_sessions = 1;
module_param_named(sessions, bench_sessions, uint, 0644);
MODULE_PARM_DESC(sessions, "sessions that take each ketw event, each storing a record (default 1)");

static unsigned int chunk_us = 200;
module_param(chunk_us, uint, 0644);
MODULE_PARM_DESC(chunk_us, "mixed runs: about how long one chunk of each kind takes, in us (default 200)");

static unsigned int mix_rounds = 200;
module_param(mix_rounds, uint, 0644);
MODULE_PARM_DESC(mix_rounds, "mixed runs: rounds of chunks per timed run (default 200)");

static unsigned int scale_ms = 400;
module_param(scale_ms, uint, 0644);
MODULE_PARM_DESC(scale_ms, "length of one scaling run in ms (default 400)");

enum bench_kind {
	BENCH_KETW,		/* ketw_write(), a session running */
	BENCH_KETW_CTX,		/* __ketw_write_bench(), context bits on */
	BENCH_KETW_NOCTX,	/* the same function, context bits off */
	BENCH_FTRACE,		/* reserve, memcpy, commit on ftrace's buffer */
	BENCH_DIS_WRITE,	/* ketw_write(), no session running */
	BENCH_DIS_EMPTY,	/* an empty noinline function instead */
	BENCH_DIS_NONE,		/* no call at all */
	BENCH_CLK_MONO,		/* ketw_clock_mono_ns(): ketw's default */
	BENCH_CLK_LOCAL,	/* local_clock(): ketw's LOCAL clock */
	BENCH_CLK_TRACE,	/* trace_clock_local(): the ftrace buffer's */
	BENCH_CLK_CYCLES,	/* the CPU's cycle counter alone (get_cycles()) */
	BENCH_REF,		/* arithmetic only: the noise reference */
};

/* One measurement: the same work on one or more CPUs at once. */
struct bench_run {
	enum bench_kind kind;
	u32 size;
	u64 iters;		/* events per writer; 0: until @stop */
	/*
	 * A mixed run (nk > 0): iters rounds, in each a chunk of mix_n[k]
	 * events of each mix_kind[k] (of mix_size[k] bytes) in turn.
	 */
	unsigned int nk;
	enum bench_kind mix_kind[BENCH_MIX];
	u32 mix_size[BENCH_MIX];
	u32 mix_n[BENCH_MIX];
	bool stop;
	bool abort;
	struct trace_buffer *rb;
	struct completion go;
	struct completion done;
	atomic_t running;
};

struct bench_writer {
	struct bench_run *run;
	struct task_struct *task;
	u64 events;
	u64 ns;
	u64 stored;
	u64 mix_events[BENCH_MIX];
	u64 mix_ns[BENCH_MIX];
	u64 mix_stored[BENCH_MIX];
};

static u8 bench_payload[BENCH_MAX_SIZE] __aligned(8);
static u64 bench_sink;
static char bench_result[BENCH_RESULT_LEN];
/* One command at a time; also guards bench_result. */
static DEFINE_MUTEX(bench_mutex);
static struct lock_class_key bench_rb_key;

/* The stand-in for a call that does nothing: kept out of line, not cloned. */
static __noipa int bench_empty(struct ketw_provider *prov,
			       const struct ketw_event_descriptor *desc,
			       const void *data, size_t len)
{
	return 0;
}

/* @n events of @kind; returns how many records were stored. */
static u64 bench_chunk(enum bench_kind kind, u32 size, struct trace_buffer *rb,
		       u32 n)
{
	const void *data = bench_payload;
	struct ring_buffer_event *ev;
	size_t len = size;
	u64 stored = 0, t = 0;
	u32 i;

	/* Keep the compiler from assuming anything about the payload. */
	OPTIMIZER_HIDE_VAR(data);
	OPTIMIZER_HIDE_VAR(len);
	switch (kind) {
	case BENCH_KETW:
		for (i = 0; i < n; i++)
			stored += ketw_write(&bench_prov, &bench_ev, data, len);
		break;
	case BENCH_KETW_CTX:
	case BENCH_KETW_NOCTX:
		for (i = 0; i < n; i++)
			if (ketw_enabled(&bench_prov))
				stored += __ketw_write_bench(&bench_prov,
							     &bench_ev, data,
							     len,
							     kind == BENCH_KETW_CTX);
		break;
	case BENCH_FTRACE:
		for (i = 0; i < n; i++) {
			ev = ring_buffer_lock_reserve(rb, len);
			if (unlikely(!ev))
				continue;
			memcpy(ring_buffer_event_data(ev), data, len);
			ring_buffer_unlock_commit(rb, ev);
			stored++;
		}
		break;
	case BENCH_DIS_WRITE:
		for (i = 0; i < n; i++) {
			ketw_write(&bench_prov, &bench_ev, data, len);
			barrier();
		}
		break;
	case BENCH_DIS_EMPTY:
		for (i = 0; i < n; i++) {
			bench_empty(&bench_prov, &bench_ev, data, len);
			barrier();
		}
		break;
	case BENCH_DIS_NONE:
		for (i = 0; i < n; i++)
			barrier();
		break;
	case BENCH_CLK_MONO:
		for (i = 0; i < n; i++)
			t += ketw_clock_mono_ns();
		break;
	case BENCH_CLK_LOCAL:
		for (i = 0; i < n; i++)
			t += local_clock();
		break;
	case BENCH_CLK_TRACE:
		for (i = 0; i < n; i++)
			t += trace_clock_local();
		break;
	case BENCH_CLK_CYCLES:
		for (i = 0; i < n; i++)
			t += get_cycles();
		break;
	case BENCH_REF:
		/* A dependent chain of multiplies and shifts (an LCG, mixed). */
		t = n;
		for (i = 0; i < n * BENCH_REF_STEPS; i++) {
			t = t * 6364136223846793005ULL + 1442695040888963407ULL;
			t ^= t >> 29;
		}
		break;
	}
	WRITE_ONCE(bench_sink, t);
	return stored;
}

/* One round of a mixed run: a chunk of each kind in turn, each timed. */
static void bench_mix_round(struct bench_writer *w)
{
	struct bench_run *r = w->run;
	unsigned int k;
	u64 t0;

	for (k = 0; k < r->nk; k++) {
		preempt_disable();
		t0 = local_clock();
		w->mix_stored[k] += bench_chunk(r->mix_kind[k], r->mix_size[k],
						r->rb, r->mix_n[k]);
		w->mix_ns[k] += local_clock() - t0;
		preempt_enable();
		w->mix_events[k] += r->mix_n[k];
	}
}

static int bench_writer_fn(void *arg)
{
	struct bench_writer *w = arg;
	struct bench_run *r = w->run;
	u64 t0;
	u32 n;

	wait_for_completion(&r->go);
	while (!READ_ONCE(r->abort)) {
		if (r->nk) {
			if (w->events >= r->iters)
				break;
			bench_mix_round(w);
			w->events++;
			cond_resched();
			continue;
		}
		if (r->iters) {
			if (w->events >= r->iters)
				break;
			n = min_t(u64, r->iters - w->events, BENCH_CHUNK);
		} else {
			if (READ_ONCE(r->stop))
				break;
			n = BENCH_CHUNK;
		}
		preempt_disable();
		t0 = local_clock();
		w->stored += bench_chunk(r->kind, r->size, r->rb, n);
		w->ns += local_clock() - t0;
		preempt_enable();
		w->events += n;
		cond_resched();
	}
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

/*
 * Run @r with one writer on each CPU of @cpus, all started at once: for
 * r->iters events each, or for @ms milliseconds if r->iters is 0.
 * @w has room for one writer per CPU.
 */
static int bench_go(struct bench_run *r, const struct cpumask *cpus,
		    struct bench_writer *w, unsigned int *nr, unsigned int ms)
{
	struct task_struct *t;
	unsigned int c, i = 0, k;
	int err = 0;

	init_completion(&r->go);
	init_completion(&r->done);
	r->stop = false;
	r->abort = false;
	for_each_cpu(c, cpus) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].run = r;
		t = kthread_create(bench_writer_fn, &w[i], "ketw_bench/%u", c);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			break;
		}
		get_task_struct(t);
		kthread_bind(t, c);
		w[i].task = t;
		wake_up_process(t);
		i++;
	}
	*nr = i;
	if (!i)
		return err;
	atomic_set(&r->running, i);
	WRITE_ONCE(r->abort, err != 0);
	complete_all(&r->go);
	if (!r->iters && !err) {
		msleep(ms);
		WRITE_ONCE(r->stop, true);
	}
	wait_for_completion(&r->done);
	for (k = 0; k < i; k++) {
		kthread_stop(w[k].task);
		put_task_struct(w[k].task);
	}
	return err;
}

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 bench_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), bench_cmp_u64, NULL);
	return v[n / 2];
}

static unsigned int bench_reps(void)
{
	return clamp_t(unsigned int, reps, 1, BENCH_MAX_REPS);
}

/*
 * Every event of a write @kind stored: once in ftrace's buffer, by each of
 * the "sessions" sessions for ketw; -EIO if a record is missing.
 */
static int bench_check_stored(enum bench_kind kind, u64 stored, u64 events)
{
	u64 want = events;

	if (kind == BENCH_KETW || kind == BENCH_KETW_CTX ||
	    kind == BENCH_KETW_NOCTX)
		want *= max(bench_sessions, 1U);
	else if (kind != BENCH_FTRACE)
		return 0;
	if (stored == want)
		return 0;
	pr_err("ketw_bench: %lld of %llu records not stored\n",
	       (s64)(want - stored), want);
	return -EIO;
}

/*
 * One writer on the bench CPU: @n events of @kind; returns picoseconds per
 * event in *ps and fails with -EIO if an event was not stored.
 */
static int bench_single(enum bench_kind kind, u32 size, u64 n,
			struct trace_buffer *rb, u64 *ps)
{
	struct bench_run r = { .kind = kind, .size = size, .iters = n, .rb = rb };
	struct bench_writer w;
	unsigned int nr;
	int err;

	if (bench_cpu >= nr_cpu_ids || !cpu_online(bench_cpu))
		return -EINVAL;
	err = bench_go(&r, cpumask_of(bench_cpu), &w, &nr, 0);
	if (err)
		return err;
	*ps = div64_u64(w.ns * 1000, max_t(u64, w.events, 1));
	return bench_check_stored(kind, w.stored, w.events);
}

/*
 * The median of "reps" timed runs of @kind, after a warm-up of @warm
 * events; the fastest and slowest runs in @lo and @hi.
 */
static int bench_median_run(enum bench_kind kind, u32 size, u64 warm,
			    struct trace_buffer *rb, u64 *ps, u64 *lo, u64 *hi)
{
	u64 v[BENCH_MAX_REPS];
	unsigned int i, n = bench_reps();
	int err;

	if (warm) {
		err = bench_single(kind, size, warm, rb, &v[0]);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		err = bench_single(kind, size, iters, rb, &v[i]);
		if (err)
			return err;
	}
	*ps = bench_median(v, n);
	*lo = v[0];
	*hi = v[n - 1];
	return 0;
}

/*
 * One timed run of "iters" events after a warm-up of its own (iters / 8
 * events of the same kind and size): for runs of different kinds or sizes
 * interleaved, so that each starts with its code and data in the caches.
 */
static int bench_timed(enum bench_kind kind, u32 size, struct trace_buffer *rb,
		       u64 *ps)
{
	int err = bench_single(kind, size, max(iters / 8, 1U), rb, ps);

	return err ? err : bench_single(kind, size, iters, rb, ps);
}

/* @rounds rounds of the mixed run @r on the bench CPU: ps per event of each kind. */
static int bench_mixed(struct bench_run *r, u64 rounds, u64 *ps)
{
	struct bench_writer w;
	unsigned int k, nr;
	int err;

	if (bench_cpu >= nr_cpu_ids || !cpu_online(bench_cpu))
		return -EINVAL;
	r->iters = rounds;
	err = bench_go(r, cpumask_of(bench_cpu), &w, &nr, 0);
	for (k = 0; k < r->nk && !err; k++) {
		ps[k] = div64_u64(w.mix_ns[k] * 1000,
				  max_t(u64, w.mix_events[k], 1));
		err = bench_check_stored(r->mix_kind[k], w.mix_stored[k],
					 w.mix_events[k]);
	}
	return err;
}

/*
 * One timed mixed run: the kinds of @r take turns by chunks, each chunk
 * sized (from a short calibration) to last about chunk_us, so that every
 * kind gets the same share of the run's time; then a warm-up of
 * mix_rounds / 8 rounds and the timed mix_rounds. Whatever the host takes
 * from the guest meanwhile, it takes from each kind in proportion to its
 * time: the kinds' ratios hold on a busy machine.
 */
static int bench_mix_timed(struct bench_run *r, u64 *ps)
{
	unsigned int k;
	u64 n;
	int err;

	for (k = 0; k < r->nk; k++)
		r->mix_n[k] = 64;
	err = bench_mixed(r, 4, ps);
	for (k = 0; k < r->nk && !err; k++) {
		n = div64_u64((u64)chunk_us * 1000000, max_t(u64, ps[k], 1));
		r->mix_n[k] = clamp_t(u64, n, 1, 4 * BENCH_CHUNK);
	}
	if (!err)
		err = bench_mixed(r, max(mix_rounds / 8, 1U), ps);
	if (!err)
		err = bench_mixed(r, max(mix_rounds, 1U), ps);
	return err;
}

/* Append to bench_result, which holds @len bytes; -EOVERFLOW when full. */
static __printf(2, 3) int bench_out(size_t *len, const char *fmt, ...)
{
	size_t room = sizeof(bench_result) - *len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(bench_result + *len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= room)
		return -EOVERFLOW;
	*len += n;
	return 0;
}

/* " @key=v1,v2,...": the @n runs @v, in the order they ran. */
static int bench_out_runs(size_t *len, const char *key, const u64 *v,
			  unsigned int n)
{
	unsigned int i;
	int err = bench_out(len, " %s=", key);

	for (i = 0; i < n && !err; i++)
		err = bench_out(len, "%s%llu", i ? "," : "", v[i]);
	return err;
}

/* Events that fill warm_kb KiB with records of @span bytes. */
static u64 bench_warm_events(u32 span)
{
	return div_u64((u64)warm_kb << 10, span) + 1;
}

static struct trace_buffer *bench_rb_alloc(void)
{
	return __ring_buffer_alloc((unsigned long)buf_kb << 10, RB_FL_OVERWRITE,
				   &bench_rb_key);
}

static int bench_cmd_write(u32 size)
{
	u64 ps, lo, hi;
	int err;

	if (!ketw_enabled(&bench_prov))
		return -ENODATA;	/* no session running */
	err = bench_median_run(BENCH_KETW, size,
			       bench_warm_events(KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + size)),
			       NULL, &ps, &lo, &hi);
	if (!err)
		snprintf(bench_result, sizeof(bench_result),
			 "write size=%u ps=%llu min_ps=%llu max_ps=%llu iters=%u reps=%u cpu=%u",
			 size, ps, lo, hi, iters, bench_reps(), bench_cpu);
	return err;
}

/*
 * The write with and without the context bits, runs interleaved so that
 * drift hits both alike; medians, and the cost in ps and in thousandths
 * of the write.
 */
static int bench_cmd_context(u32 size)
{
	static const enum bench_kind kinds[] = { BENCH_KETW_CTX,
						 BENCH_KETW_NOCTX };
	u64 v[ARRAY_SIZE(kinds)][BENCH_MAX_REPS], med[ARRAY_SIZE(kinds)];
	u64 warm = bench_warm_events(KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE +
						      size));
	unsigned int i, k, n = min(3 * bench_reps(), BENCH_MAX_REPS);
	/* Two lists of BENCH_MAX_REPS figures: a quarter of the result. */
	static char runs[BENCH_RESULT_LEN / 2];
	struct bench_run r = { };
	u64 ps[BENCH_MIX];
	size_t len;
	s64 cost;
	int err;

	if (!ketw_enabled(&bench_prov))
		return -ENODATA;	/* no session running */
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		err = bench_single(kinds[k], size, warm, NULL, &v[k][0]);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		/* The two by turns, the first one first every other run. */
		r.nk = ARRAY_SIZE(kinds);
		for (k = 0; k < r.nk; k++) {
			r.mix_kind[k] = kinds[i & 1 ? r.nk - 1 - k : k];
			r.mix_size[k] = size;
		}
		err = bench_mix_timed(&r, ps);
		if (err)
			return err;
		for (k = 0; k < r.nk; k++)
			v[i & 1 ? r.nk - 1 - k : k][i] = ps[k];
	}
	/* The runs in their order first: bench_median() sorts. */
	len = 0;
	err = bench_out_runs(&len, "runs", v[0], n);
	if (!err)
		err = bench_out_runs(&len, "noctx_runs", v[1], n);
	if (!err && len >= sizeof(runs))
		err = -EOVERFLOW;
	if (err)
		return err;
	memcpy(runs, bench_result, len + 1);
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		med[k] = bench_median(v[k], n);
	cost = (s64)med[0] - (s64)med[1];
	snprintf(bench_result, sizeof(bench_result),
		 "context size=%u ps=%llu noctx_ps=%llu cost_ps=%lld cost_permille=%lld min_ps=%llu noctx_min_ps=%llu mix_rounds=%u chunk_us=%u reps=%u cpu=%u%s",
		 size, med[0], med[1], cost,
		 div64_s64(cost * 1000, max_t(s64, med[0], 1)), v[0][0],
		 v[1][0], mix_rounds, chunk_us, n, bench_cpu, runs);
	return 0;
}

/*
 * ketw against ftrace at each of @sizes: one mixed run per size and round
 * (ketw, ftrace, ftrace of 64 bytes more and the reference loop by turns,
 * see bench_mix_timed()), the sizes' order rotated and the kinds' order
 * reversed from one round to the next.
 */
enum {
	BENCH_P_KETW, BENCH_P_FTRACE, BENCH_P_FTRACE_HDR, BENCH_P_REF,
	BENCH_P_KINDS
};

static int bench_cmd_pairs(const u32 *sizes, unsigned int ns)
{
	static const char * const names[BENCH_P_KINDS] = {
		"ketw", "ftrace", "ftrace_hdr", "ref",
	};
	static const enum bench_kind kinds[BENCH_P_KINDS] = {
		BENCH_KETW, BENCH_FTRACE, BENCH_FTRACE, BENCH_REF,
	};
	u64 (*v)[BENCH_P_KINDS][BENCH_MAX_REPS], ps[BENCH_MIX];
	unsigned int i, j, k, kk, n = bench_reps();
	struct bench_run r = { .nk = BENCH_P_KINDS };
	char key[24];
	size_t len = 0;
	u32 big = 0, sz;
	int err;

	BUILD_BUG_ON(BENCH_P_KINDS > BENCH_MIX);
	for (j = 0; j < ns; j++) {
		/* ftrace's second write stores 64 bytes more. */
		if (sizes[j] > BENCH_MAX_SIZE - KETW_EVENT_HEADER_SIZE)
			return -EINVAL;
		big = max(big, sizes[j]);
	}
	if (!ketw_enabled(&bench_prov))
		return -ENODATA;	/* no session running */
	v = kcalloc(ns, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	r.rb = bench_rb_alloc();
	if (!r.rb) {
		kfree(v);
		return -ENOMEM;
	}
	/* Both buffers wrapped once: overwriting from the first timed run. */
	err = bench_single(BENCH_KETW, big,
			   bench_warm_events(KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + big)),
			   NULL, &ps[0]);
	/* ftrace's twice over whatever warm_kb is: it is the yardstick. */
	if (!err)
		err = bench_single(BENCH_FTRACE, big,
				   div_u64((u64)buf_kb << 11, ALIGN(big, 4) + 8) + 1,
				   r.rb, &ps[0]);
	for (i = 0; i < n && !err; i++) {
		for (j = 0; j < ns && !err; j++) {
			sz = (i + j) % ns;
			for (k = 0; k < BENCH_P_KINDS; k++) {
				kk = i & 1 ? BENCH_P_KINDS - 1 - k : k;
				r.mix_kind[k] = kinds[kk];
				r.mix_size[k] = kk == BENCH_P_REF ? 0 :
					sizes[sz] + (kk == BENCH_P_FTRACE_HDR ?
						     KETW_EVENT_HEADER_SIZE : 0);
			}
			err = bench_mix_timed(&r, ps);
			for (k = 0; k < BENCH_P_KINDS && !err; k++)
				v[sz][i & 1 ? BENCH_P_KINDS - 1 - k : k][i] = ps[k];
		}
	}
	ring_buffer_free(r.rb);
	if (!err)
		err = bench_out(&len, "pairs reps=%u mix_rounds=%u chunk_us=%u cpu=%u buf_kb=%u",
				n, mix_rounds, chunk_us, bench_cpu, buf_kb);
	for (j = 0; j < ns && !err; j++) {
		for (k = 0; k < BENCH_P_KINDS && !err; k++) {
			snprintf(key, sizeof(key), "%s_%u", names[k], sizes[j]);
			err = bench_out_runs(&len, key, v[j][k], n);
		}
	}
	kfree(v);
	if (err)
		bench_result[0] = '\0';
	return err;
}

/* The reference loop alone: how much the machine varies during a run. */
static int bench_cmd_ref(void)
{
	u64 v[BENCH_MAX_REPS];
	unsigned int i, n = bench_reps();
	size_t len = 0;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = bench_timed(BENCH_REF, 0, NULL, &v[i]);
	if (!err)
		err = bench_out(&len, "ref reps=%u iters=%u steps=%u cpu=%u",
				n, iters, BENCH_REF_STEPS, bench_cpu);
	if (!err)
		err = bench_out_runs(&len, "runs", v, n);
	if (!err)
		err = bench_out(&len, " ps=%llu", bench_median(v, n));
	if (err)
		bench_result[0] = '\0';
	return err;
}

static int bench_cmd_ftrace(u32 size)
{
	struct trace_buffer *rb = bench_rb_alloc();
	u64 ps, lo, hi;
	int err;

	if (!rb)
		return -ENOMEM;
	/* An event header is 4 bytes, 8 beyond 112 bytes of payload. */
	err = bench_median_run(BENCH_FTRACE, size,
			       bench_warm_events(ALIGN(size, 4) + 8), rb, &ps,
			       &lo, &hi);
	ring_buffer_free(rb);
	if (!err)
		snprintf(bench_result, sizeof(bench_result),
			 "ftrace size=%u ps=%llu min_ps=%llu max_ps=%llu iters=%u reps=%u cpu=%u buf_kb=%u",
			 size, ps, lo, hi, iters, bench_reps(), bench_cpu, buf_kb);
	return err;
}

/*
 * The three loops interleaved, so that drift hits them alike. A loop is
 * about a nanosecond per turn and noise only adds to it: the figures are
 * the fastest runs (the medians follow).
 */
static int bench_cmd_disabled(void)
{
	static const enum bench_kind kinds[] = {
		BENCH_DIS_WRITE, BENCH_DIS_EMPTY, BENCH_DIS_NONE,
	};
	u64 v[ARRAY_SIZE(kinds)][BENCH_MAX_REPS], med[ARRAY_SIZE(kinds)];
	unsigned int i, k, n = min(3 * bench_reps(), BENCH_MAX_REPS);
	u64 loops = (u64)iters * 10;
	int err;

	if (ketw_enabled(&bench_prov))
		return -EBUSY;	/* a session is running */
	for (i = 0; i < n; i++) {
		for (k = 0; k < ARRAY_SIZE(kinds); k++) {
			err = bench_single(kinds[k], 64, loops, NULL, &v[k][i]);
			if (err)
				return err;
		}
	}
	/* A session started meanwhile would void the figures. */
	if (ketw_enabled(&bench_prov))
		return -EBUSY;
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		med[k] = bench_median(v[k], n);	/* sorts v[k] */
	snprintf(bench_result, sizeof(bench_result),
		 "disabled write_ps=%llu empty_ps=%llu none_ps=%llu write_med_ps=%llu empty_med_ps=%llu none_med_ps=%llu loops=%llu reps=%u cpu=%u",
		 v[0][0], v[1][0], v[2][0], med[0], med[1], med[2], loops, n,
		 bench_cpu);
	return 0;
}

static int bench_cmd_clock(void)
{
	u64 mono, local, trace, cycles, lo, hi;
	int err;

	err = bench_median_run(BENCH_CLK_MONO, 0, 0, NULL, &mono, &lo, &hi);
	if (!err)
		err = bench_median_run(BENCH_CLK_LOCAL, 0, 0, NULL, &local,
				       &lo, &hi);
	if (!err)
		err = bench_median_run(BENCH_CLK_TRACE, 0, 0, NULL, &trace,
				       &lo, &hi);
	if (!err)
		err = bench_median_run(BENCH_CLK_CYCLES, 0, 0, NULL, &cycles,
				       &lo, &hi);
	if (!err)
		snprintf(bench_result, sizeof(bench_result),
			 "clock mono_ps=%llu local_ps=%llu trace_ps=%llu cycles_ps=%llu",
			 mono, local, trace, cycles);
	return err;
}

/* Sum of the writers' rates, events per second. */
static u64 bench_rate(const struct bench_writer *w, unsigned int nr)
{
	u64 eps = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		eps += div64_u64(w[i].events * NSEC_PER_SEC, max_t(u64, w[i].ns, 1));
	return eps;
}

/*
 * Scaling: alternately one writer alone and one writer per online CPU,
 * each for scale_ms, "reps" times; the medians and the best of the
 * summed rates. With every vCPU busy on a host with as many cores, any
 * host activity steals from the writers: the best runs are the least
 * disturbed ones.
 */
static int bench_cmd_scale(enum bench_kind kind, u32 size)
{
	u64 one[BENCH_MAX_REPS], all[BENCH_MAX_REPS], stored, events;
	u64 one_med, all_med;
	struct bench_run r = { .kind = kind, .size = size };
	unsigned int i, k, nr, ncpus, n = bench_reps();
	struct bench_writer *w;
	int err = 0;

	if (kind == BENCH_KETW && !ketw_enabled(&bench_prov))
		return -ENODATA;
	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	if (kind == BENCH_FTRACE) {
		r.rb = bench_rb_alloc();
		if (!r.rb) {
			kfree(w);
			return -ENOMEM;
		}
	}
	cpus_read_lock();
	ncpus = num_online_cpus();
	if (bench_cpu >= nr_cpu_ids || !cpu_online(bench_cpu))
		err = -EINVAL;
	/* Warm-up: every CPU's buffer wraps once. */
	if (!err) {
		r.iters = bench_warm_events(KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + size));
		err = bench_go(&r, cpu_online_mask, w, &nr, 0);
		r.iters = 0;
	}
	for (i = 0; i < n && !err; i++) {
		err = bench_go(&r, cpumask_of(bench_cpu), w, &nr, scale_ms);
		one[i] = bench_rate(w, nr);
		if (err)
			break;
		err = bench_go(&r, cpu_online_mask, w, &nr, scale_ms);
		all[i] = bench_rate(w, nr);
		if (err)
			break;
		stored = 0;
		events = 0;
		for (k = 0; k < nr; k++) {
			stored += w[k].stored;
			events += w[k].events;
		}
		err = bench_check_stored(kind, stored, events);
	}
	cpus_read_unlock();
	if (r.rb)
		ring_buffer_free(r.rb);
	kfree(w);
	if (!err) {
		/* bench_median() sorts: then the best runs are last. */
		one_med = bench_median(one, n);
		all_med = bench_median(all, n);
		snprintf(bench_result, sizeof(bench_result),
			 "%s size=%u one_eps=%llu all_eps=%llu one_best=%llu all_best=%llu ncpus=%u ms=%u reps=%u cpu=%u",
			 kind == BENCH_KETW ? "scale" :
			 kind == BENCH_FTRACE ? "ftrace-scale" : "cycles-scale", size,
			 one_med, all_med, one[n - 1], all[n - 1], ncpus,
			 scale_ms, n, bench_cpu);
	}
	return err;
}

/* @n events of @size bytes on every online CPU, for the drain benchmark. */
static int bench_cmd_fill(u32 n, u32 size)
{
	struct bench_run r = { .kind = BENCH_KETW, .size = size, .iters = n };
	struct bench_writer *w;
	u64 events = 0, stored = 0;
	unsigned int k, nr;
	int err;

	if (!n)
		return -EINVAL;
	if (!ketw_enabled(&bench_prov))
		return -ENODATA;
	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	cpus_read_lock();
	err = bench_go(&r, cpu_online_mask, w, &nr, 0);
	cpus_read_unlock();
	for (k = 0; k < nr; k++) {
		events += w[k].events;
		stored += w[k].stored;
	}
	kfree(w);
	if (!err)
		snprintf(bench_result, sizeof(bench_result),
			 "fill size=%u events=%llu stored=%llu ncpus=%u",
			 size, events, stored, nr);
	return err;
}

static int bench_run_set(const char *val, const struct kernel_param *kp)
{
	u32 arg[BENCH_MAX_ARGS] = { 0 };
	unsigned int i, nargs;
	char cmd[16];
	int n, err;

	n = sscanf(val, "%15s %u %u %u %u", cmd, &arg[0], &arg[1], &arg[2],
		   &arg[3]);
	if (n < 1)
		return -EINVAL;
	nargs = n - 1;
	/*
	 * Sizes: at least the 8 bytes a payload starts with. fill's first
	 * argument is a count.
	 */
	for (i = !strcmp(cmd, "fill"); i < nargs; i++)
		if (arg[i] < 8 || arg[i] > BENCH_MAX_SIZE)
			return -EINVAL;

	mutex_lock(&bench_mutex);
	bench_result[0] = '\0';
	if (!strcmp(cmd, "disabled") && nargs == 0)
		err = bench_cmd_disabled();
	else if (!strcmp(cmd, "clock") && nargs == 0)
		err = bench_cmd_clock();
	else if (!strcmp(cmd, "ref") && nargs == 0)
		err = bench_cmd_ref();
	else if (!strcmp(cmd, "write") && nargs == 1)
		err = bench_cmd_write(arg[0]);
	else if (!strcmp(cmd, "context") && nargs == 1)
		err = bench_cmd_context(arg[0]);
	else if (!strcmp(cmd, "pairs") && nargs >= 1)
		err = bench_cmd_pairs(arg, nargs);
	else if (!strcmp(cmd, "ftrace") && nargs == 1)
		err = bench_cmd_ftrace(arg[0]);
	else if (!strcmp(cmd, "scale") && nargs == 1)
		err = bench_cmd_scale(BENCH_KETW, arg[0]);
	else if (!strcmp(cmd, "ftrace-scale") && nargs == 1)
		err = bench_cmd_scale(BENCH_FTRACE, arg[0]);
	else if (!strcmp(cmd, "cycles-scale") && nargs == 1)
		err = bench_cmd_scale(BENCH_CLK_CYCLES, arg[0]);
	else if (!strcmp(cmd, "fill") && nargs == 2)
		err = bench_cmd_fill(arg[0], arg[1]);
	else
		err = -EINVAL;
	mutex_unlock(&bench_mutex);
	return err;
}

static const struct kernel_param_ops bench_run_ops = {
	.set = bench_run_set,
};
module_param_cb(run, &bench_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "a command: disabled, clock, ref, write SIZE, context SIZE, pairs SIZE..., ftrace SIZE, scale SIZE, ftrace-scale SIZE, cycles-scale SIZE, fill N SIZE");

/*
 * A report is read-only, but the kernel calls a parameter's setter at
 * load without checking that there is one: refuse, naming it.
 */
static int bench_read_only(const char *val, const struct kernel_param *kp)
{
	pr_err("ketw_bench: parameter %s is read-only\n", kp->name);
	return -EPERM;
}

static int bench_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&bench_mutex);
	n = sysfs_emit(buf, "%s\n", bench_result);
	mutex_unlock(&bench_mutex);
	return n;
}

static const struct kernel_param_ops bench_result_ops = {
	.set = bench_read_only,
	.get = bench_result_get,
};
module_param_cb(result, &bench_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "what the last command measured (key=value ...)");

static int __init bench_init(void)
{
	unsigned int i;

	for (i = 0; i < BENCH_MAX_SIZE; i++)
		bench_payload[i] = i * 7 + 1;
	return ketw_provider_register(&bench_prov);
}

static void __exit bench_exit(void)
{
	ketw_provider_unregister(&bench_prov);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("ketw benchmark: write cost against ftrace's ring buffer, disabled call sites, scaling");
MODULE_AUTHOR("The ketw developers");
MODULE_LICENSE("GPL");
