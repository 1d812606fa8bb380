// SPDX-License-Identifier: GPL-2.0
/*
 * ns per event of ketw_ring_write() on this machine's CPU, natively:
 * module/ring.c built with the kernel's x86-64 primitives (non-LOCKed
 * local_t operations, LOCK CMPXCHG for cmpxchg()), -O2, one writer, LOOP,
 * a 4 MiB area per CPU that wraps all the time, KETW_CLOCK_MONO (clock.h's
 * inline TSC read). Beside it, in the same process and interleaved run
 * by run, two references that write the same records (same header with
 * its fields read from the same places, same clock, same sequence
 * numbers, the same LOOP bookkeeping: oldest moved
 * over whole records, overwritten counted, commit published):
 *
 *   spinlock   the same ring under a spinlock (LOCK CMPXCHG to take it,
 *              a release store to drop it). In the kernel it would be a
 *              raw_spin_lock_irqsave(), which also saves, disables and
 *              restores interrupts: not counted here.
 *   no sync    the same ring with no lock and no atomic at all: what the
 *              record costs by itself (clock, header, copy, bookkeeping),
 *              a floor no writer safe against interrupts can reach.
 *
 * All three copy the payload with ring.h's ketw_ring_copy(), the copy a
 * kernel ring can use: the C library's memcpy() here moves 64 bytes at a
 * time through AVX-512 registers, which kernel code does not touch, and
 * the kernel's own memcpy() is a REP MOVSB, slower than either at these
 * sizes.
 *
 * And the execution context every record carries (module/context.h,
 * the very function the write path calls): ketw_ring_write() with the
 * flags ketw_record_context() computes, against the same write with
 * constant flags, both after the preempt_count() read the write path
 * makes anyway. PUSHF and the task's flags read natively here cost what
 * they cost in the kernel; under QEMU's TCG PUSHF is emulated (EFLAGS
 * rebuilt from lazily kept condition codes), which inflates the guest's
 * figure. The ratio is against ketw_ring_write() alone, not the whole
 * ketw_write() (enable set, filters): an upper bound of the share.
 *
 *   bench [--events N (200000)] [--runs R (21)] [--kb KB (4096)] [--out FILE]
 *   bench --loop SIZE [--seconds S (5)]   ketw_ring_write() of SIZE bytes
 *                                          alone, for a profiler (profile.sh)
 *   bench --count SIZE [--events N]       N writes of SIZE bytes by each of
 *                                          the three, after a wrap, for an
 *                                          instruction counter (count.sh)
 *
 * Each figure is the median of R timed runs of N events (the fastest in
 * brackets); the machine is shared, so a single run means little.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <native/native.h>
#include <ketw.h>
#include "clock.h"
#include "context.h"
#include "ring.h"

#define U(x)		((unsigned long long)(x))
#define MAX_RUNS	64

static unsigned int opt_events = 200000;
static unsigned int opt_runs = 21;
static unsigned int opt_kb = 4096;
static const char *opt_out;
static unsigned int opt_loop, opt_seconds = 5, opt_count;

static const u8 guid[KETW_GUID_SIZE] = { 'b', 'e', 'n', 'c', 'h' };
static const struct ketw_event_descriptor desc = {
	.id = 1, .type = KETW_TYPE_INFO, .level = 4, .keyword = 1,
};
/* Larger than the largest size timed: gcc then sees memcpy() is in bounds. */
static u8 payload[1024] __attribute__((aligned(8)));

/* ---- the references: one ring, with or without a spinlock ---- */

struct ref_ring {
	int lock;
	u32 reserve;		/* next record's position */
	u32 commit;		/* what a reader may read */
	u32 oldest;		/* first record not overwritten */
	u32 mask;
	u64 seq;
	u64 last_ts;
	u64 written, overwritten;
	void *data;
} __attribute__((aligned(64)));

static __always_inline void ref_lock(int *l)
{
	int zero = 0;

	while (!__atomic_compare_exchange_n(l, &zero, 1, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		zero = 0;
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
	}
}

static __always_inline void ref_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static __always_inline bool ref_write(struct ref_ring *r, bool locked,
				      const u8 *g,
				      const struct ketw_event_descriptor *d,
				      const void *data, u32 len)
{
	u32 size = KETW_EVENT_HEADER_SIZE + len, span = KETW_RECORD_SPAN(size);
	u32 area = r->mask + 1, pos, start, end;
	struct ketw_event_header *h;
	u64 ts = ketw_clock_mono();

	if (locked)
		ref_lock(&r->lock);
	pos = r->reserve;
	start = pos;
	if ((pos & r->mask) + span > area)
		start = pos + area - (pos & r->mask);
	end = start + span;
	/* LOOP: release whole records until [end - area, end) is free. */
	while ((s32)(r->oldest - (end - area)) < 0) {
		h = r->data + (r->oldest & r->mask);
		r->overwritten += !(h->flags & KETW_RECORD_PADDING);
		r->oldest += KETW_RECORD_SPAN(h->size);
	}
	if (start != pos) {
		h = r->data + (pos & r->mask);
		h->size = start - pos;
		h->flags = KETW_RECORD_PADDING;
	}
	if (ts < r->last_ts)
		ts = r->last_ts;
	r->last_ts = ts;
	h = r->data + (start & r->mask);
	*(u64 *)((u8 *)h + span - sizeof(u64)) = 0;
	h->size = size;
	h->type = d->type;
	h->level = d->level;
	h->version = d->version;
	h->flags = 0;
	h->event_id = d->id;
	/* The same values the kernel's writer stores, read the same way. */
	h->cpu = smp_processor_id();
	h->thread_id = in_task() ? task_pid_nr(current) : 0;
	h->process_id = in_task() ? task_tgid_nr(current) : 0;
	h->sequence = r->seq++;
	h->timestamp = ts;
	h->keyword = d->keyword;
	memcpy(h->provider_guid, g, KETW_GUID_SIZE);
	ketw_ring_copy(h + 1, data, len);
	r->written++;
	r->reserve = end;
	__atomic_store_n(&r->commit, end, __ATOMIC_RELEASE);
	if (locked)
		ref_unlock(&r->lock);
	return true;
}

static noinline bool spin_write(struct ref_ring *r, const u8 *g,
						 const struct ketw_event_descriptor *d,
						 const void *data, u32 len)
{
	return ref_write(r, true, g, d, data, len);
}

static noinline bool nosync_write(struct ref_ring *r, const u8 *g,
						   const struct ketw_event_descriptor *d,
						   const void *data, u32 len)
{
	return ref_write(r, false, g, d, data, len);
}

/* ---- timing ---- */

enum impl { KETW, SPIN, NOSYNC, KETW_CTX, NR_IMPLS };
static const char *const impl_names[NR_IMPLS] = {
	"ketw_ring_write", "spinlock ring", "no-sync ring", "+ context bits",
};

static struct ketw_ring *kring;
static struct ref_ring refs[NR_IMPLS];

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static void run(enum impl im, u32 len, unsigned int n)
{
	unsigned int i;

	switch (im) {
	case KETW:
		/* preempt_count() is read either way, as the write path does. */
		for (i = 0; i < n; i++)
			ketw_ring_write(kring, guid, &desc, payload, len,
					preempt_count() & 0);
		break;
	case KETW_CTX:
		for (i = 0; i < n; i++)
			ketw_ring_write(kring, guid, &desc, payload, len,
					ketw_record_context(preempt_count() + 1, 1));
		break;
	case SPIN:
		for (i = 0; i < n; i++)
			spin_write(&refs[SPIN], guid, &desc, payload, len);
		break;
	default:
		for (i = 0; i < n; i++)
			nosync_write(&refs[NOSYNC], guid, &desc, payload, len);
		break;
	}
}

/* Writes of @len bytes that wrap an area of @size bytes twice. */
static unsigned int wrap_writes(u32 size, u32 len)
{
	return 2 * size / KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + len) + 1;
}

/* The writes count.sh counts: callgrind collects inside this only. */
static noinline void counted(enum impl im, u32 len, unsigned int n)
{
	run(im, len, n);
}

static double timed(enum impl im, u32 len, unsigned int n)
{
	u64 t0 = now_ns();

	run(im, len, n);
	return (double)(now_ns() - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- one event, N rings: ketw_ring_event_init() once, a store each ---- */

#define NR_MULTI	64
#define MULTI_KB	256
static struct ketw_ring *multi[NR_MULTI];

static double timed_multi(unsigned int nr, u32 len, unsigned int n)
{
	struct ketw_ring_event ev;
	unsigned int i, r;
	u64 t0 = now_ns();

	for (i = 0; i < n; i++) {
		ketw_ring_event_init(&ev, guid, &desc, nr);
		for (r = 0; r < nr; r++)
			ketw_ring_store(multi[r], &ev, payload, len, 0);
	}
	return (double)(now_ns() - t0) / n;
}

static double clock_ns(void)
{
	double v[11];
	unsigned int r, i;
	u64 sum = 0, t0;

	for (r = 0; r < 11; r++) {
		t0 = now_ns();
		for (i = 0; i < 1000000; i++)
			sum += ketw_clock_mono();
		v[r] = (double)(now_ns() - t0) / 1e6;
	}
	__asm__ __volatile__("" :: "r"(sum));
	qsort(v, 11, sizeof(v[0]), cmp_double);
	return v[5];
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "kb", required_argument, NULL, 'k' },
		{ "out", required_argument, NULL, 'o' },
		{ "loop", required_argument, NULL, 'l' },
		{ "seconds", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const u32 sizes[] = { 8, 64, 256 };
	double t[NR_IMPLS][MAX_RUNS], med[3][NR_IMPLS], best[3][NR_IMPLS];
	struct ketw_ring_config cfg = { .policy = KETW_POLICY_LOOP,
					.clock = KETW_CLOCK_MONO };
	struct ketw_cpu_stats st;
	unsigned int s, r, warm;
	char line[4096];
	size_t off = 0;
	cpu_set_t set;
	FILE *out;
	int o, im;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			opt_events = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			opt_runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'k':
			opt_kb = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			opt_out = optarg;
			break;
		case 'l':
			opt_loop = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt_seconds = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			opt_count = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: bench [--events N] [--runs R] [--kb KB] [--out FILE]\n"
				"       bench --loop SIZE [--seconds S]\n"
				"       bench --count SIZE [--events N]\n");
			return 2;
		}
	}
	if (!opt_events || !opt_runs || opt_kb < 4 || (opt_kb & (opt_kb - 1))) {
		fprintf(stderr, "bench: --events, --runs > 0; --kb a power of two >= 4\n");
		return 2;
	}
	/* Stay on the CPU we start on: no migration inside a run. */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);

	native_init(1, ((size_t)opt_kb << 10) * (NR_IMPLS + 1) +
		    ((size_t)NR_MULTI * MULTI_KB << 10) * 2 + (8UL << 20));
	native_set_cpu(0);
	cfg.size = opt_kb << 10;
	cfg.watermark = cfg.size / 2;
	kring = ketw_ring_alloc(&cfg);
	if (IS_ERR(kring)) {
		fprintf(stderr, "bench: ketw_ring_alloc failed\n");
		return 1;
	}
	for (im = SPIN; im <= NOSYNC; im++) {
		refs[im].mask = cfg.size - 1;
		refs[im].data = aligned_alloc(PAGE_SIZE, cfg.size);
		if (!refs[im].data)
			return 1;
		memset(refs[im].data, 0, cfg.size);
	}
	for (s = 0; s < sizeof(payload); s++)
		payload[s] = (u8)(s * 7 + 1);

	if (opt_count) {
		/*
		 * For an instruction counter (count.sh): each ring wrapped,
		 * then --events writes of each, one after the other.
		 */
		if (opt_count > sizeof(payload)) {
			fprintf(stderr, "bench: --count SIZE up to %zu\n",
				sizeof(payload));
			return 2;
		}
		for (im = KETW; im < KETW_CTX; im++) {
			run(im, opt_count, wrap_writes(cfg.size, opt_count));
			counted(im, opt_count, opt_events);
		}
		ketw_ring_free(kring);
		native_exit();
		return 0;
	}
	if (opt_loop) {
		u64 stop, n = 0;

		if (opt_loop > sizeof(payload) || !opt_seconds) {
			fprintf(stderr, "bench: --loop SIZE up to %zu, --seconds > 0\n",
				sizeof(payload));
			return 2;
		}
		stop = now_ns() + (u64)opt_seconds * 1000000000ULL;
		run(KETW, opt_loop, wrap_writes(cfg.size, opt_loop));
		while (now_ns() < stop) {
			run(KETW, opt_loop, opt_events);
			n += opt_events;
		}
		printf("bench: %llu writes of %u B, %.2f GHz TSC\n", U(n), opt_loop,
		       native_tsc_hz() / 1e9);
		ketw_ring_free(kring);
		native_exit();
		return 0;
	}
	if (opt_runs > MAX_RUNS)
		opt_runs = MAX_RUNS;
	for (s = 0; s < 3; s++) {
		/* Wrap each ring twice before timing: LOOP overwrites from then on. */
		warm = wrap_writes(cfg.size, sizes[s]);
		for (im = 0; im < NR_IMPLS; im++)
			run(im, sizes[s], warm);
		/* Interleaved: each run of each, in turn, shares the noise. */
		for (r = 0; r < opt_runs; r++)
			for (im = 0; im < NR_IMPLS; im++)
				t[im][r] = timed(im, sizes[s], opt_events);
		for (im = 0; im < NR_IMPLS; im++) {
			qsort(t[im], opt_runs, sizeof(double), cmp_double);
			med[s][im] = t[im][opt_runs / 2];
			best[s][im] = t[im][0];
		}
	}

	{
		static const unsigned int ns[] = { 1, 4, 16, NR_MULTI };
		struct ketw_ring_config mc = cfg;
		double m[4][MAX_RUNS], mm[4];
		unsigned int k;

		mc.size = MULTI_KB << 10;
		mc.watermark = mc.size / 2;
		for (k = 0; k < NR_MULTI; k++) {
			multi[k] = ketw_ring_alloc(&mc);
			if (IS_ERR(multi[k]))
				return 1;
		}
		/* Wrap every ring twice, then runs of each N in turn. */
		timed_multi(NR_MULTI, 64, 2 * mc.size / 128 + 1);
		for (r = 0; r < opt_runs; r++)
			for (k = 0; k < 4; k++)
				m[k][r] = timed_multi(ns[k], 64,
						      opt_events / ns[k] + 1);
		for (k = 0; k < 4; k++) {
			qsort(m[k], opt_runs, sizeof(double), cmp_double);
			mm[k] = m[k][opt_runs / 2];
		}
		off += snprintf(line + off, sizeof(line) - off,
				"\none 64 B event, N LOOP rings of %u KiB (ketw_ring_event_init() once, ketw_ring_store() each):\n",
				MULTI_KB);
		for (k = 0; k < 4; k++)
			off += snprintf(line + off, sizeof(line) - off,
					"  N=%-3u %7.1f ns/event, each ring after the first %5.1f ns = %.2f of one\n",
					ns[k], mm[k],
					k ? (mm[k] - mm[0]) / (ns[k] - 1) : 0.0,
					k ? (mm[k] - mm[0]) / (ns[k] - 1) / mm[0] : 0.0);
		for (k = 0; k < NR_MULTI; k++)
			ketw_ring_free(multi[k]);
	}
	ketw_ring_stats_cpu(kring, 0, &st);
	off += snprintf(line + off, sizeof(line) - off,
			"native ns/event: one writer, LOOP, %u KiB per CPU wrapping, clock %s (%.2f ns a read)\n"
			"median of %u interleaved runs of %u events, the fastest in brackets\n\n"
			"%-8s %-18s %-18s %-7s %-18s %s\n",
			opt_kb, native_tsc_hz() ? "ketw_clock_mono (TSC)" : "ktime_get_mono_fast_ns",
			clock_ns(), opt_runs, opt_events, "payload", impl_names[KETW],
			impl_names[SPIN], "ratio", impl_names[NOSYNC], "ratio");
	for (s = 0; s < 3; s++) {
		char a[32], b[32], c[32];

		snprintf(a, sizeof(a), "%.1f (%.1f)", med[s][KETW], best[s][KETW]);
		snprintf(b, sizeof(b), "%.1f (%.1f)", med[s][SPIN], best[s][SPIN]);
		snprintf(c, sizeof(c), "%.1f (%.1f)", med[s][NOSYNC], best[s][NOSYNC]);
		off += snprintf(line + off, sizeof(line) - off,
				"%3u B    %-18s %-18s %-7.2f %-18s %.2f\n", sizes[s], a,
				b, med[s][KETW] / med[s][SPIN], c,
				med[s][KETW] / med[s][NOSYNC]);
	}
	off += snprintf(line + off, sizeof(line) - off,
			"\nthe context bits (ketw_record_context()), run interleaved with the above:\n");
	for (s = 0; s < 3; s++)
		off += snprintf(line + off, sizeof(line) - off,
				"%3u B    %.1f (%.1f) vs %.1f (%.1f): %+.2f ns, %+.1f %% of the write (fastest: %+.1f %%)\n",
				sizes[s], med[s][KETW_CTX], best[s][KETW_CTX],
				med[s][KETW], best[s][KETW],
				med[s][KETW_CTX] - med[s][KETW],
				100.0 * (med[s][KETW_CTX] / med[s][KETW] - 1),
				100.0 * (best[s][KETW_CTX] / best[s][KETW] - 1));
	off += snprintf(line + off, sizeof(line) - off,
			"\nratio: ketw_ring_write's median over the reference's (below 1: ketw is faster).\n"
			"ketw ring: %llu written, %llu overwritten, %llu lost.\n",
			U(st.written), U(st.overwritten),
			U(st.lost_full + st.lost_busy + st.lost_nested));
	fputs(line, stdout);
	if (opt_out) {
		out = fopen(opt_out, "w");
		if (out) {
			fputs(line, out);
			fclose(out);
		}
	}
	ketw_ring_free(kring);
	native_exit();
	return 0;
}
