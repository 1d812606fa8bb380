// SPDX-License-Identifier: GPL-2.0
/*
 * Every way two interrupts can nest into a write, deterministically.
 *
 * One CPU, one thread, a fake clock (each read one tick later) and the
 * shim's hook before every marked access of module/ring.c (READ_ONCE,
 * local_*, cmpxchg, ...). A scenario is an operation in task context and
 * two more that interrupt it, injected before its i-th marked access,
 * either one after the other (both at softirq level) or the second
 * inside the first (before the first's j-th marked access, at hardirq
 * level). An operation is a write, a loss (ketw_ring_lose(), as the
 * recursion guard calls it) or a read: the reader of another CPU
 * running right there. Each (policy, start state, three operations,
 * shape, i, j) is run on one ring, and the records checked: time in
 * buffer order, sequence numbers increasing, a gap only before an
 * OVERFLOW (except what LOOP overwrote) and RESUME reporting exactly that
 * gap; at the end the counters add up exactly.
 *
 *   nest [-v] [--known LIST]
 *
 * A failure names the scenario and where each interrupt came (function,
 * file and line, through addr2line). --known names checks whose
 * failures are reported but do not fail the run (bugs with an issue).
 */
#include <dlfcn.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <native/native.h>
#include <ketw.h>
#include "context.h"
#include "ring.h"

#define U(x)		((unsigned long long)(x))
#define MAX_HOOKS	64	/* marked accesses of one operation we try */

enum op { OP_WRITE, OP_LOSE, OP_READ, NR_OPS };
static const char *const op_names[NR_OPS] = { "write", "lose", "read" };

enum shape { SEQUENTIAL, NESTED };

/* The checks, for --known and the summary. */
enum check {
	CK_TIME,		/* time not in buffer order */
	CK_SEQ,			/* sequence not increasing */
	CK_GAP,			/* a gap not before an OVERFLOW (not LOOP) */
	CK_RESUME,		/* RESUME.lost != the gap before its OVERFLOW */
	CK_RECORD,		/* a record not as written */
	CK_COUNT,		/* counters do not add up */
	CK_COPY,		/* ketw_ring_copy() not memcpy() */
	CK_CONTEXT,		/* ketw_record_context() wrong */
	NR_CHECKS
};
static const char *const check_names[NR_CHECKS] = {
	"time", "sequence", "gap", "resume", "record", "count", "copy",
	"context",
};

static const u8 guid[KETW_GUID_SIZE] = { 'n', 'e', 's', 't' };
static const struct ketw_event_descriptor desc = { .id = 7, .level = 4 };

static struct ketw_ring *ring;
static u32 policy;
static int verbose;
static unsigned int known;		/* bit per check */

/* ---- the scenario being run ---- */

static struct {
	enum op op[3];
	enum shape shape;
	int i, j;
	int done[3];		/* each operation ran */
	int hooks[2];		/* marked accesses seen, task and first interrupt */
	const void *pc[3];	/* where interrupts 1 and 2 came */
	int level;		/* the running injected operation's level */
} sc;

static u64 op_counter;		/* a number per operation, in its payload */
static u64 stored, loses, write_calls;

/* ---- the checker, over every record ever read from the ring ---- */

static struct {
	int started;
	u64 next_seq, last_ts, gaps, delivered, sys;
	int after_overflow;
	u64 overflow_gap;
} rd;

static u64 failures[NR_CHECKS];
static int shown[NR_CHECKS];
static u8 rbuf[1 << 16] __attribute__((aligned(8)));

static void where(const void *pc, char *out, size_t len)
{
	char cmd[512], line[256], fn[256] = "?";
	Dl_info info;
	FILE *p;

	snprintf(out, len, "%p", pc);
	if (!pc || !dladdr(pc, &info) || !info.dli_fname)
		return;
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' %#lx 2>/dev/null",
		 info.dli_fname,
		 (unsigned long)((const char *)pc - (const char *)info.dli_fbase) - 1);
	p = popen(cmd, "r");
	if (!p)
		return;
	/*
	 * Innermost inlined frame first, each a function and a line in it:
	 * the first in module/ is the access ring.c (or clock.h) makes.
	 */
	while (fgets(fn, sizeof(fn), p) && fgets(line, sizeof(line), p)) {
		fn[strcspn(fn, "\n")] = 0;
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "/module/")) {
			snprintf(out, len, "%s (%s)", fn, strrchr(line, '/') + 1);
			break;
		}
	}
	pclose(p);
}

static const char *policy_name(u32 p)
{
	return p == KETW_POLICY_LOOP ? "LOOP" :
	       p == KETW_POLICY_FLUSH ? "FLUSH" : "UNTIL_FULL";
}

static void describe(char *out, size_t len)
{
	char w1[300], w2[300];

	where(sc.pc[1], w1, sizeof(w1));
	where(sc.pc[2], w2, sizeof(w2));
	snprintf(out, len,
		 "%s: task %s; softirq %s before marked access %d of the task's, at %s; %s %s before marked access %d of the %s, at %s",
		 policy_name(policy), op_names[sc.op[0]], op_names[sc.op[1]],
		 sc.i, w1, sc.shape == NESTED ? "hardirq" : "softirq",
		 op_names[sc.op[2]], sc.j,
		 sc.shape == NESTED ? "softirq's" : "task's", w2);
}

static void fail(enum check ck, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));

static void fail(enum check ck, const char *fmt, ...)
{
	char d[1024];
	va_list ap;

	failures[ck]++;
	if (shown[ck] >= (verbose ? 20 : 1))
		return;
	shown[ck]++;
	printf("%s%s: ", known & (1u << ck) ? "known bug, " : "",
	       check_names[ck]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (ck == CK_COUNT || ck == CK_COPY || ck == CK_CONTEXT) {
		printf("\n");
		return;
	}
	describe(d, sizeof(d));
	printf("\n    in %s\n", d);
}

static void check_record(const struct ketw_event_header *h)
{
	bool loop = policy == KETW_POLICY_LOOP;
	const u64 *pl = (const void *)(h + 1);
	u64 gap = 0;

	if (rd.started && h->sequence < rd.next_seq) {
		fail(CK_SEQ, "sequence %llu after %llu", U(h->sequence),
		     U(rd.next_seq - 1));
	} else {
		gap = h->sequence - rd.next_seq;
		rd.gaps += gap;
		rd.next_seq = h->sequence + 1;
	}
	rd.started = 1;
	if (h->timestamp < rd.last_ts)
		fail(CK_TIME, "record %llu has time %llu, after one with %llu",
		     U(h->sequence), U(h->timestamp), U(rd.last_ts));
	rd.last_ts = h->timestamp;
	rd.delivered++;
	if (gap && !loop && !((h->flags & KETW_RECORD_SYSTEM) &&
			      h->event_id == KETW_SYS_OVERFLOW))
		fail(CK_GAP, "gap of %llu before record %llu", U(gap),
		     U(h->sequence));
	if (h->flags & KETW_RECORD_SYSTEM) {
		rd.sys++;
		if (h->event_id == KETW_SYS_OVERFLOW) {
			rd.after_overflow = 1;
			rd.overflow_gap = gap;
			return;
		}
		if (h->event_id == KETW_SYS_RESUME) {
			const struct ketw_sys_resume *r = (const void *)pl;

			if (rd.after_overflow && !gap &&
			    (loop ? r->lost > rd.overflow_gap :
				    r->lost != rd.overflow_gap))
				fail(CK_RESUME, "RESUME %llu reports %llu lost, the gap before its OVERFLOW is %llu",
				     U(h->sequence), U(r->lost),
				     U(rd.overflow_gap));
			else if (!loop && (!rd.after_overflow || gap))
				fail(CK_RESUME, "RESUME %llu without its OVERFLOW",
				     U(h->sequence));
			rd.after_overflow = 0;
			return;
		}
		fail(CK_RECORD, "system event %u", h->event_id);
		return;
	}
	rd.after_overflow = 0;
	if (h->size != KETW_EVENT_HEADER_SIZE + 16 || pl[0] != ~pl[1] ||
	    memcmp(h->provider_guid, guid, KETW_GUID_SIZE) || h->event_id != 7)
		fail(CK_RECORD, "record %llu: size %u", U(h->sequence), h->size);
}

/* Read everything committed; the reader of another CPU, right now. */
static void read_all(void)
{
	const struct ketw_event_header *h;
	ssize_t n;
	size_t off;

	while ((n = ketw_ring_read_cpu(ring, 0, (char *)rbuf, sizeof(rbuf))) > 0)
		for (off = 0; off < (size_t)n; off += KETW_RECORD_SPAN(h->size)) {
			h = (const void *)(rbuf + off);
			check_record(h);
		}
}

static void run_op(enum op op)
{
	u64 pl[2];

	switch (op) {
	case OP_WRITE:
		pl[0] = ++op_counter;
		pl[1] = ~pl[0];
		write_calls++;
		if (op_counter & 1) {
			struct ketw_ring_event ev;

			/*
			 * The shared-event path that N sessions take; every
			 * other time as if for many, without the scan.
			 */
			ketw_ring_event_init(&ev, guid, &desc,
					     op_counter & 2 ?
					     KETW_RING_SCAN_RINGS + 1 : 2);
			stored += ketw_ring_store(ring, &ev, pl, sizeof(pl),
						  0);
		} else {
			stored += ketw_ring_write(ring, guid, &desc, pl,
						  sizeof(pl), 0);
		}
		break;
	case OP_LOSE:
		loses++;
		ketw_ring_lose(ring, KETW_LOSS_NESTED);
		break;
	case OP_READ:
		read_all();
		break;
	default:
		break;
	}
}

/*
 * Called before every marked access of the running operations, at the
 * level above the current one: count the access, and run the next
 * operation there if the scenario says so.
 */
static void on_hook(int level)
{
	int parent = level - 1, k;

	if (parent > 1)
		return;
	k = ++sc.hooks[parent];
	if (!sc.done[1] && parent == 0 && k == sc.i) {
		k = 1;
	} else if (!sc.done[2] && sc.done[1] &&
		   ((sc.shape == SEQUENTIAL && parent == 0 && k == sc.j) ||
		    (sc.shape == NESTED && parent == 1 && sc.level == 1 &&
		     k == sc.j))) {
		k = 2;
	} else {
		return;
	}
	sc.pc[k] = native_hook_pc();
	sc.done[k] = 1;
	if (k == 1)
		sc.hooks[1] = 0;
	sc.level = level;
	run_op(sc.op[k]);
	sc.level = 0;
}

/* One scenario; returns whether all three operations ran. */
static bool run_scenario(void)
{
	sc.done[0] = 1;
	sc.done[1] = sc.done[2] = 0;
	sc.hooks[0] = sc.hooks[1] = 0;
	sc.pc[1] = sc.pc[2] = NULL;
	native_inject(on_hook, 0, 0, sc.shape == NESTED ? 2 : 1);
	run_op(sc.op[0]);
	native_inject(NULL, 0, 0, 0);
	/* A last write takes any OVERFLOW/RESUME out; then read all. */
	run_op(OP_WRITE);
	read_all();
	return sc.done[1] && sc.done[2];
}

/*
 * ketw_ring_copy() against memcpy(), every length it copies itself and a
 * few beyond, from every source alignment, into an 8-aligned record: the
 * bytes after the payload (the record's tail, zeroed before) stay as
 * they were. One scenario per length.
 */
static u64 check_copy(void)
{
	static u8 src[KETW_RING_COPY_WORDS_MAX + 64];
	static u8 dst[KETW_RING_COPY_WORDS_MAX + 64] __attribute__((aligned(8)));
	u32 len, off, i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (u8)(i * 37 + 11);
	for (len = 0; len <= KETW_RING_COPY_WORDS_MAX + 16; len++) {
		for (off = 0; off < 8; off++) {
			memset(dst, 0xa5, sizeof(dst));
			ketw_ring_copy(dst, src + off, len);
			if (memcmp(dst, src + off, len)) {
				fail(CK_COPY, "%u bytes from offset %u: not the source's",
				     len, off);
				break;
			}
			for (i = len; i < sizeof(dst) && dst[i] == 0xa5; i++)
				;
			if (i < sizeof(dst)) {
				fail(CK_COPY, "%u bytes from offset %u: byte %u written",
				     len, off, i);
				break;
			}
		}
	}
	return len;
}

/*
 * ketw_record_context()'s context and depth against their definition,
 * for preemption counts of every kind: NMI and hardirq levels, softirq
 * served or only disabled, preemption depths around the saturation,
 * and the levels the write path adds itself. One scenario per count.
 */
static u64 check_context(void)
{
	static const unsigned int nmis[] = { 0, 1, 2 };
	static const unsigned int hards[] = { 0, 1, 3 };
	static const unsigned int softs[] = { 0, 1, 2, 3 };	/* x SOFTIRQ_OFFSET */
	unsigned int a, b, c, depth, own, pc, want, got, d;
	u64 n = 0;

	for (a = 0; a < ARRAY_SIZE(nmis); a++)
	for (b = 0; b < ARRAY_SIZE(hards); b++)
	for (c = 0; c < ARRAY_SIZE(softs); c++)
	for (depth = 0; depth < 24; depth++)
	for (own = 0; own < 3; own++, n++) {
		pc = nmis[a] * NMI_OFFSET + hards[b] * HARDIRQ_OFFSET +
		     softs[c] * SOFTIRQ_OFFSET + depth;
		want = nmis[a] ? KETW_CTX_NMI : hards[b] ? KETW_CTX_HARDIRQ :
		       (softs[c] & 1) ? KETW_CTX_SOFTIRQ : KETW_CTX_TASK;
		d = depth > own ? depth - own : 0;
		want = want << KETW_RECORD_CTX_SHIFT |
		       (d < KETW_RECORD_PREEMPT_MAX ? d : KETW_RECORD_PREEMPT_MAX)
		       << KETW_RECORD_PREEMPT_SHIFT;
		got = ketw_record_context(pc, own) &
		      (KETW_RECORD_CTX_MASK | KETW_RECORD_PREEMPT_MASK);
		if (got != want)
			fail(CK_CONTEXT, "preempt_count %#x, own %u: %#x, not %#x",
			     pc, own, got, want);
	}
	return n;
}

static u64 run_policy(u32 pol)
{
	struct ketw_ring_config cfg = {
		.size = 8192, .policy = pol, .clock = KETW_CLOCK_LOCAL,
		.watermark = 4096,
	};
	struct ketw_cpu_stats st;
	u64 runs = 0, lost, tail;
	int a, b, c, shape;

	policy = pol;
	memset(&rd, 0, sizeof(rd));
	stored = loses = write_calls = 0;
	ring = ketw_ring_alloc(&cfg);
	if (IS_ERR(ring)) {
		fprintf(stderr, "ketw_ring_alloc failed\n");
		exit(1);
	}
	for (a = 0; a < NR_OPS; a++)
	for (b = 0; b < NR_OPS; b++)
	for (c = 0; c < NR_OPS; c++)
	for (shape = SEQUENTIAL; shape <= NESTED; shape++) {
		if (a == OP_READ)
			continue;	/* the task is this CPU's writer */
		if (shape == NESTED && b == OP_READ && c == OP_READ)
			continue;	/* one reader at a time */
		sc.op[0] = a;
		sc.op[1] = b;
		sc.op[2] = c;
		sc.shape = shape;
		for (sc.i = 1; sc.i <= MAX_HOOKS; sc.i++) {
			/* Sequential: the second after the first. */
			for (sc.j = shape == SEQUENTIAL ? sc.i + 1 : 1;
			     sc.j <= MAX_HOOKS; sc.j++) {
				if (!run_scenario()) {
					/* Too few marked accesses: past the end. */
					if (!sc.done[1])
						goto next_shape;
					break;
				}
				runs++;
			}
		}
next_shape:
		;
	}
	/* LOOP keeps what it overwrites: nothing. The rest add up exactly. */
	ketw_ring_stats_cpu(ring, 0, &st);
	lost = st.lost_full + st.lost_busy + st.lost_nested;
	tail = st.sequence - rd.next_seq;
	if (st.sequence != st.written + lost ||
	    st.written != rd.delivered + st.overwritten ||
	    rd.gaps + tail != lost + st.overwritten ||
	    st.lost_nested != loses ||
	    st.sequence != write_calls + loses + (st.written - stored) ||
	    (pol != KETW_POLICY_LOOP && rd.sys != st.written - stored)) {
		sc.pc[1] = sc.pc[2] = NULL;
		fail(CK_COUNT, "%s: sequence %llu written %llu lost %llu/%llu/%llu overwritten %llu delivered %llu (%llu system) gaps %llu tail %llu; writes %llu stored %llu loses %llu",
		     policy_name(pol), U(st.sequence), U(st.written),
		     U(st.lost_full), U(st.lost_busy), U(st.lost_nested),
		     U(st.overwritten), U(rd.delivered), U(rd.sys), U(rd.gaps),
		     U(tail), U(write_calls), U(stored), U(loses));
	}
	if (verbose)
		printf("%s: %llu scenarios, %llu records, %llu overwritten, %llu lost\n",
		       policy_name(pol), U(runs), U(rd.delivered),
		       U(st.overwritten), U(lost));
	ketw_ring_free(ring);
	return runs;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "known", required_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	u64 runs = 0, bad = 0, known_bad = 0;
	char *list, *tok;
	int o, k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (o) {
		case 'k':
			list = strdup(optarg);
			for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
				for (k = 0; k < NR_CHECKS; k++)
					if (!strcmp(tok, check_names[k]))
						known |= 1u << k;
			}
			free(list);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: nest [-v] [--known time,resume,...]\n");
			return 2;
		}
	}
	native_init(1, 16UL << 20);
	native_set_cpu(0);
	native_fake_local_clock(true);
	runs += check_copy();
	runs += check_context();
	runs += run_policy(KETW_POLICY_FLUSH);
	runs += run_policy(KETW_POLICY_UNTIL_FULL);
	runs += run_policy(KETW_POLICY_LOOP);
	native_exit();

	for (k = 0; k < NR_CHECKS; k++) {
		if (!failures[k])
			continue;
		printf("  %-8s %llu scenario%s failed%s\n", check_names[k],
		       U(failures[k]), failures[k] == 1 ? "" : "s",
		       known & (1u << k) ? " (known bug)" : "");
		if (known & (1u << k))
			known_bad += failures[k];
		else
			bad += failures[k];
	}
	for (k = 0; k < NR_CHECKS; k++)
		if ((known & (1u << k)) && !failures[k])
			printf("  %-8s listed as a known bug but passed: take it off the list\n",
			       check_names[k]);
	printf("nest: %llu scenarios, %s\n", U(runs),
	       bad ? "FAIL" : known_bad ? "ok but for known bugs" : "ok");
	return bad ? 1 : 0;
}
