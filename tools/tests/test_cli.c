// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: the ketw command line, run as a program (--ketw PATH).
 * Nothing here needs /dev/ketw; KETW_DEVICE points elsewhere.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#define ARGS(...) ((const char *const []){ __VA_ARGS__, NULL })
#define ENV(...) ARGS(__VA_ARGS__)

#define NO_DEV	ENV("KETW_DEVICE=/nonexistent/ketw")

/* Run, check the exit code, and that stderr contains @msg (if any). */
static bool run_expect(const char *const *env, const char *const *argv, int code,
		       const char *msg)
{
	char *out = NULL, *err = NULL;
	bool ok;
	int rc;

	rc = test_run_ketw(env, argv, &out, &err);
	ok = CHECK_EQ(rc, code);
	if (msg)
		ok = CHECK_CONTAINS(err, msg) && ok;
	if (!ok)
		printf("    ketw %s ...: stdout \"%s\" stderr \"%s\"\n",
		       argv[0] ? argv[0] : "", out ? out : "", err ? err : "");
	free(out);
	free(err);
	return ok;
}



TEST(cli_usage_errors)
{
	run_expect(NULL, ARGS(NULL), 2, "no command given");
	run_expect(NULL, ARGS("frob"), 2, "unknown command 'frob'");
	run_expect(NO_DEV, ARGS("start", "-b", "12x"), 2,
		   "ketw: -b: '12x' is not a number of KiB");
	run_expect(NO_DEV, ARGS("start", "-b", "-4"), 2, "is not a number");
	run_expect(NO_DEV, ARGS("start", "-b", "2"), 2, "out of range");
	run_expect(NO_DEV, ARGS("start", "-b", "99999999999999999999999"), 2,
		   "out of range");
	run_expect(NO_DEV, ARGS("start", "-b", ""), 2, "is not a number");
	run_expect(NO_DEV, ARGS("start", "-m", "0"), 2, "-m: 0 is out of range");
	run_expect(NO_DEV, ARGS("start", "-k", "0x1g"), 2,
		   "-k: '0x1g' is not a keyword mask");
	run_expect(NO_DEV, ARGS("start", "-K", "18446744073709551616"), 2,
		   "out of range");
	run_expect(NO_DEV, ARGS("start", "-l", "loud"), 2,
		   "-l: 'loud' is not a level");
	run_expect(NO_DEV, ARGS("start", "-P", "sometimes"), 2,
		   "-P: 'sometimes' is not a policy");
	run_expect(NO_DEV, ARGS("start", "-C", "tai"), 2,
		   "-C: 'tai' is not a clock");
	run_expect(NO_DEV, ARGS("start", "-s", "bad name"), 2,
		   "is not a session name");
	run_expect(NO_DEV, ARGS("start", "-s",
				"a23456789012345678901234567890123"), 2,
		   "is not a session name");
	run_expect(NO_DEV, ARGS("start", "-s"), 2,
		   "option -s needs an argument");
	run_expect(NO_DEV, ARGS("start", "-z"), 2, "unknown option -z");
	run_expect(NO_DEV, ARGS("start", "--frob"), 2, "unknown option --frob");
	run_expect(NO_DEV, ARGS("start", "extra"), 2,
		   "unexpected argument 'extra'");
	run_expect(NO_DEV, ARGS("stop", "-s", "x", "y"), 2,
		   "unexpected argument 'y'");
	run_expect(NO_DEV, ARGS("reset", "-b", "4"), 2, "unknown option -b");
	run_expect(NO_DEV, ARGS("extract", "-o"), 2, "needs an argument");
	run_expect(NO_DEV, ARGS("extract", "-o", ""), 2, "empty file name");
	run_expect(NULL, ARGS("listen"), 2, "-o DIR: where the files go");
	run_expect(NULL, ARGS("stream", "-s", "x"), 2,
		   "where to: -o FILE|-, --to HOST:PORT or --serial DEV");
	run_expect(NULL, ARGS("stream", "-o", "-", "--to", "h:1"), 2,
		   "one of -o, --to and --serial");
	run_expect(NULL, ARGS("stream", "--attach", "-p", "x", "-o", "-"), 2,
		   "--attach streams a session as it is");
	run_expect(NULL, ARGS("record", "--rotate-size", "1K"), 2,
		   "--rotate-size: '1K' is not a size of at least 64K");
	run_expect(NULL, ARGS("listen", "-o", "/", "--rotate-time", "0"), 2,
		   "--rotate-time: '0' is not a time");
	run_expect(NULL, ARGS("help", "frob"), 2, "unknown command 'frob'");
	run_expect(NO_DEV, ARGS("start", "-w", "0"), 2, "-w: 0 is out of range");
	run_expect(NO_DEV, ARGS("start", "-w", "101"), 2, "out of range");
	run_expect(NO_DEV, ARGS("start", "-w", "half"), 2,
		   "-w: 'half' is not a percentage");
	run_expect(NO_DEV, ARGS("extract", "--frob"), 2, "unknown option --frob");
	run_expect(NO_DEV, ARGS("extract", "--read=1"), 2, "unknown option");
	run_expect(NO_DEV, ARGS("status", "--json", "x"), 2,
		   "unexpected argument 'x'");
	run_expect(NO_DEV, ARGS("status", "-o", "x"), 2, "unknown option -o");
	run_expect(NO_DEV, ARGS("snapshot"), 2, "-o FILE is required");
	run_expect(NO_DEV, ARGS("snapshot", "-o", ""), 2, "empty file name");
	run_expect(NO_DEV, ARGS("flush", "-s", "a b"), 2,
		   "is not a session name");
	run_expect(NO_DEV, ARGS("flush", "now"), 2, "unexpected argument 'now'");
	/* Usage errors say where to look. */
	run_expect(NO_DEV, ARGS("start", "-b", "x"), 2,
		   "Try 'ketw start --help'.");
}

TEST(cli_help)
{
	const char *const cmds[] = {
		"start", "stop", "extract", "report", "show", "reset", "help",
		"status", "snapshot", "flush", "record", "convert", "plot",
	};
	char *out = NULL, *err = NULL;
	unsigned int i;

	CHECK_EQ(test_run_ketw(NULL, ARGS("help"), &out, &err), 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		CHECK_CONTAINS(out, cmds[i]);
	CHECK_CONTAINS(out, "usage: ketw COMMAND");
	free(out);
	free(err);
	CHECK_EQ(test_run_ketw(NULL, ARGS("--help"), &out, &err), 0);
	CHECK_CONTAINS(out, "usage: ketw COMMAND");
	free(out);
	free(err);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "usage: ketw %s", cmds[i]);
		CHECK_EQ(test_run_ketw(NO_DEV, ARGS(cmds[i], "--help"), &out,
				       &err), 0);
		CHECK_CONTAINS(out, want);
		free(out);
		free(err);
		CHECK_EQ(test_run_ketw(NO_DEV, ARGS("help", cmds[i]), &out,
				       &err), 0);
		CHECK_CONTAINS(out, want);
		free(out);
		free(err);
	}
	CHECK_EQ(test_run_ketw(NO_DEV, ARGS("start", "-h"), &out, &err), 0);
	CHECK_CONTAINS(out, "-b KB");
	CHECK_CONTAINS(out, "until-full");
	free(out);
	free(err);
}

TEST(cli_no_device)
{
	/* The real default path, when this machine has no ketw module. */
	if (access("/dev/ketw", F_OK))
		run_expect(NULL, ARGS("start"), 1,
			   "ketw: cannot open /dev/ketw: No such file or directory (is the ketw module loaded?)");
	run_expect(NO_DEV, ARGS("start", "-s", "demo", "-b", "64"), 1,
		   "cannot open /nonexistent/ketw: No such file or directory (is the ketw module loaded?)");
	run_expect(NO_DEV, ARGS("stop", "-s", "demo"), 1,
		   "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("reset"), 1, "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("show"), 1, "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("extract", "-o", test_path("x.ketw")), 1,
		   "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("status"), 1, "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("snapshot", "-o", test_path("x.ketw")), 1,
		   "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("flush"), 1, "is the ketw module loaded?");
	CHECK(access(test_path("x.ketw"), F_OK) != 0);
	/* Something that is not a ketw device. */
	run_expect(ENV("KETW_DEVICE=/dev/null"), ARGS("start"), 1,
		   "cannot create session 'ketw': Inappropriate ioctl for device (is /dev/null a ketw device?)");
}

TEST(cli_report)
{
	struct ketw_output_info info;
	struct ketw_output *out;
	struct ketw_sys_start st = { .level = 4 };
	uint64_t recs[64];
	struct ketw_cpu_stats stats[2] = {
		{ .cpu = 0, .written = 2, .overwritten = 3 },
		{ .cpu = 1, .written = 1, .lost_full = 7 },
	};
	const char *path = test_path("report.ketw");
	char *o = NULL, *e = NULL;
	size_t n = 0;

	test_info(&info, 2);
	ASSERT_EQ(ketw_output_create(path, &info, &out), 0);
	n += test_record((char *)recs + n, 0, 0, 11000000000ull,
			 KETW_RECORD_SYSTEM, KETW_SYS_START, &st, sizeof(st));
	n += test_record((char *)recs + n, 0, 5, 12000345678ull, 0, 1,
			 "ABCDEFGHIJKLMNOPQRSTUVWX", 24);
	ASSERT_EQ(ketw_output_add_records(out, 0, recs, n), 0);
	/* From a hard interrupt, interrupts off, depth 1. */
	n = test_record(recs, 1, 0, 11500000000ull, KETW_RECORD_TRUNCATED |
			KETW_CTX_HARDIRQ << KETW_RECORD_CTX_SHIFT |
			KETW_RECORD_IRQS_OFF | 1 << KETW_RECORD_PREEMPT_SHIFT,
			3, NULL, 2);
	ASSERT_EQ(ketw_output_add_records(out, 1, recs, n), 0);
	ASSERT_EQ(ketw_output_add_stats(out, stats, NULL, 2), 0);
	ASSERT_EQ(ketw_output_close(out), 0);

	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", path), &o, &e), 0);
	CHECK_CONTAINS(o, "session:  unit (suspended when extracted)");
	CHECK_CONTAINS(o, "host:     testhost, kernel 6.1.0-test, x86_64");
	CHECK_CONTAINS(o, "cpus:     2");
	CHECK_CONTAINS(o, "policy until-full");
	CHECK_CONTAINS(o, "clock:    boot");
	/* cpu 0: 2 records, 2 written, 3 overwritten, 4 missing by seq. */
	CHECK_CONTAINS(o, "    0          2          2          0            3          0            0          0          4\n");
	CHECK_CONTAINS(o, "    1          1          1          7            0");
	CHECK_CONTAINS(o, "  cpu=0 ctx=.... ts=11.000000000 pid=1000 tid=1000 seq=0 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=START kw=0x1 len=24 flags=SYSTEM\n"
			  "    START: filter: level=4 match_any=0x0 match_all=0x0\n");
	CHECK_CONTAINS(o, "  cpu=0 ctx=.... ts=12.000345678 pid=1000 tid=1000 seq=5 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=1 kw=0x1 len=24\n"
			  "    0000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|\n"
			  "    0010  51 52 53 54 55 56 57 58");
	/* Merged by timestamp: cpu 1's record sits between cpu 0's. */
	{
		const char *a = strstr(o, "ts=11.000000000");
		const char *b = strstr(o, "ts=11.500000000");
		const char *c = strstr(o, "ts=12.000345678");

		CHECK(a && b && c && a < b && b < c);
		CHECK_CONTAINS(b, "len=2 flags=TRUNCATED");
		CHECK_CONTAINS(o, "  cpu=1 ctx=d.h1 ts=11.500000000 ");
	}
	free(o);
	free(e);

	/* -N: no payloads; -H: the summary only. */
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-N", path), &o, &e), 0);
	CHECK_CONTAINS(o, "ts=12.000345678");
	CHECK(!strstr(o, "|ABCDEFGHIJKLMNOP|"));
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-H", path), &o, &e), 0);
	CHECK_CONTAINS(o, "session:");
	CHECK(!strstr(o, "ts="));
	free(o);
	free(e);
}

TEST(cli_report_bad_files)
{
	const char *path = test_path("bad.ketw");

	run_expect(NULL, ARGS("report", test_path("missing.ketw")), 1,
		   "cannot open");
	ASSERT_EQ(test_spit(path, "hello, world, this is not a trace", 33), 0);
	run_expect(NULL, ARGS("report", path), 1, "not a ketw trace file");
	ASSERT_EQ(test_spit(path, "WTEK", 4), 0);
	run_expect(NULL, ARGS("report", path), 1, "truncated");
}

/* ---- end to end, against the LD_PRELOAD stand-in for /dev/ketw ---- */

static const char *fake_env[8];

/* Set up the environment for the fake device; false if unusable. */
static bool fake_setup(const char *state)
{
	static char preload[4200], fdev[300], dev[300], st[300];
	char *o = NULL, *e = NULL;
	bool ok;

	if (!test_fake_path)
		return false;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", test_fake_path);
	snprintf(fdev, sizeof(fdev), "KETW_FAKE_DEV=%s", test_path("fakedev"));
	snprintf(dev, sizeof(dev), "KETW_DEVICE=%s", test_path("fakedev"));
	snprintf(st, sizeof(st), "KETW_FAKE_STATE=%s", test_path(state));
	fake_env[0] = preload;
	fake_env[1] = fdev;
	fake_env[2] = dev;
	fake_env[3] = st;
	fake_env[4] = NULL;
	fake_env[5] = NULL;
	/* A static ketw ignores LD_PRELOAD: then it cannot find the device. */
	test_run_ketw(fake_env, ARGS("show", "-s", "probe"), &o, &e);
	ok = e && strstr(e, "session 'probe' does not exist");
	free(o);
	free(e);
	return ok;
}

TEST(cli_session_flow)
{
	const char *f1 = test_path("flow1.ketw"), *f2 = test_path("flow2.ketw");
	char *o = NULL, *e = NULL;
	const char *p;
	unsigned int n;

	if (!fake_setup("flow.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");

	ASSERT_EQ(test_run_ketw(fake_env, ARGS("start", "-s", "t1", "-b", "64",
					       "-P", "until-full", "-l", "info",
					       "-k", "0x3", "--no-rundown"),
				&o, &e), 0);
	CHECK_CONTAINS(o, "session t1: running (policy until-full, 64 KiB x 2 cpus, clock mono, max data 4096, level INFO, match_any 0x3, match_all 0x0, watermark 50%, no rundown)\n");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("start", "-s", "t1", "-b", "64"), 1,
		   "session 't1' already exists (remove it with 'ketw reset -s t1'");
	run_expect(fake_env, ARGS("start", "-s", "t1"), 1,
		   "session 't1' is already running");

	ASSERT_EQ(test_run_ketw(fake_env, ARGS("show", "-s", "t1"), &o, &e), 0);
	CHECK_CONTAINS(o, "session:  t1 (running)");
	CHECK_CONTAINS(o, "filter:   level INFO, match_any 0x3, match_all 0x0");
	free(o);
	free(e);

	/* While running: START and the 10 events; the session goes on. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "t1", "-o", f1),
				&o, &e), 0);
	CHECK_CONTAINS(o, "session t1: 11 records");
	CHECK_CONTAINS(o, "from 2 cpus written to");
	CHECK(!strstr(o, "lost or overwritten"));
	free(o);
	free(e);

	run_expect(fake_env, ARGS("stop", "-s", "t1"), 0, NULL);
	run_expect(fake_env, ARGS("stop", "-s", "t1"), 0,
		   "session 't1' is not running");
	/* What is left: STOP. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "t1", "-o", f2),
				&o, &e), 0);
	CHECK_CONTAINS(o, "session t1: 1 records (72 bytes)");
	free(o);
	free(e);

	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", f1), &o, &e), 0);
	CHECK_CONTAINS(o, "session:  t1 (running when extracted)");
	CHECK_CONTAINS(o, "policy until-full");
	CHECK_CONTAINS(o, "cpus:     2");
	CHECK_CONTAINS(o, "    0          6          6          0");
	CHECK_CONTAINS(o, "    1          5          5          0");
	CHECK_CONTAINS(o, "  all         11         11          0");
	CHECK_CONTAINS(o, "id=START kw=0x0 len=24 flags=SYSTEM\n"
			  "    START: filter: level=4 match_any=0x3 match_all=0x0\n");
	CHECK_CONTAINS(o, "  cpu=1 ctx=.... ts=1.000002000 pid=4242 tid=4242 seq=0 guid=6b657477-7361-6d70-6c65-000000000001 type=10 level=INFO ver=2 id=1 kw=0x1 len=17\n"
			  "    0000  01 00 00 00 77 74 65 6b  04 00 00 00 00 00 00 00  |....wtek........|\n"
			  "    0010  01 ");
	/* Records in timestamp order. */
	for (n = 0, p = o; (p = strstr(p, "  cpu=")); p++, n++) {
		char want[32];

		snprintf(want, sizeof(want), "ts=1.%09u ", n * 1000);
		if (!CHECK(!strncmp(strstr(p, "ts="), want, strlen(want))))
			break;
	}
	CHECK_EQ(n, 11);
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", f2), &o, &e), 0);
	CHECK_CONTAINS(o, "id=STOP kw=0x0 len=8 flags=SYSTEM\n"
			  "    STOP: explicit stop\n");
	CHECK_CONTAINS(o, "(suspended when extracted)");
	free(o);
	free(e);

	/* Stopped: 'start -s' alone starts it again; a new shape is refused. */
	run_expect(fake_env, ARGS("start", "-s", "t1", "-P", "loop"), 1,
		   "session 't1' exists (stopped): 'ketw start -s t1' alone starts it again");
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("start", "-s", "t1"), &o, &e),
		  0);
	CHECK_CONTAINS(o, "session t1: running again (it was stopped; its buffers keep the records they held");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("show", "-s", "t1"), &o, &e), 0);
	CHECK_CONTAINS(o, "session:  t1 (running)");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("start", "-s", "t1", "--inherit"), 2,
		   "--inherit needs the processes given with --pid");
	run_expect(fake_env, ARGS("start", "-s", "t1", "--pid", "1,x"), 2,
		   "--pid: '1,x' is not a list of process ids");
	run_expect(fake_env, ARGS("start", "-s", "t1", "--pid", "0"), 2,
		   "--pid: '0' is not a list of process ids");
	run_expect(fake_env, ARGS("stop", "-s", "t1"), 0, NULL);

	run_expect(fake_env, ARGS("reset", "-s", "t1"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "t1"), 1,
		   "ketw: session 't1' does not exist");
	run_expect(fake_env, ARGS("stop", "-s", "nope"), 1,
		   "ketw: session 'nope' does not exist");
	run_expect(fake_env, ARGS("extract", "-s", "nope", "-o", f2), 1,
		   "ketw: session 'nope' does not exist");
	run_expect(fake_env, ARGS("show", "-s", "nope"), 1,
		   "ketw: session 'nope' does not exist");
	/* A file that cannot be created: nothing is left behind. */
	run_expect(fake_env, ARGS("start", "-s", "t2"), 0, NULL);
	run_expect(fake_env, ARGS("extract", "-s", "t2", "-o",
				  "/nonexistent-dir/t.ketw"), 1,
		   "cannot create /nonexistent-dir/t.ketw: No such file or directory");
	run_expect(fake_env, ARGS("reset", "-s", "t2"), 0, NULL);
}

/* fake_env plus @extra ("NAME=value"), in static storage. */
static const char *const *fake_env_plus(const char *extra)
{
	static const char *env[8];

	memcpy(env, fake_env, sizeof(env));
	env[4] = extra;
	env[5] = NULL;
	return env;
}

/* The record bytes of @cpu's sections in a trace file, concatenated. */
static size_t file_cpu_records(const char *path, unsigned int cpu,
			       unsigned char *dst, size_t cap)
{
	const struct ketw_file_header *h;
	unsigned char *img;
	size_t len, off, n = 0;

	img = test_slurp(path, &len);
	if (!img)
		return 0;
	h = (const void *)img;
	for (off = h->header_size; off + sizeof(struct ketw_file_section) <= len;) {
		const struct ketw_file_section *sec = (const void *)(img + off);
		const unsigned char *body = (const unsigned char *)(sec + 1);

		if (sec->type == KETW_SECTION_CPU_RECORDS &&
		    ((const struct ketw_file_cpu_records *)body)->cpu == cpu &&
		    n + sec->length - 8 <= cap) {
			memcpy(dst + n, body + 8, sec->length - 8);
			n += sec->length - 8;
		}
		if (sec->type == KETW_SECTION_END)
			break;
		off += sizeof(*sec) + ((sec->length + 7) & ~7ull);
	}
	free(img);
	return n;
}

/* Records of a CPU in a file: no padding, whole, in sequence order. */
static unsigned int check_cpu_records(const unsigned char *p, size_t len)
{
	struct ketw_record_iter it;
	struct ketw_record rec;
	uint64_t last = 0;
	unsigned int n = 0;

	ketw_record_iter_init(&it, p, len);
	while (ketw_record_iter_next(&it, &rec) > 0) {
		CHECK(!(rec.hdr->flags & KETW_RECORD_PADDING));
		if (n)
			CHECK(rec.hdr->sequence > last);
		last = rec.hdr->sequence;
		n++;
	}
	CHECK_EQ(it.off, len);
	return n;
}

/*
 * Two sessions with the same options log the same records: drain one
 * through mmap, the other with read(); the files hold the same records.
 */
static void same_file_both_ways(const char *tag, const char *events,
				const char *const *opts, unsigned int *nrec)
{
	static unsigned char a[1 << 20], b[1 << 20];
	char sa[32], sb[32], fa[64], fb[64];
	const char *argv[16];
	char *o = NULL, *e = NULL;
	unsigned int i, k, cpu;
	size_t la, lb;

	snprintf(sa, sizeof(sa), "%s-mmap", tag);
	snprintf(sb, sizeof(sb), "%s-read", tag);
	snprintf(fa, sizeof(fa), "%s.mmap.ketw", tag);
	snprintf(fb, sizeof(fb), "%s.read.ketw", tag);
	for (k = 0; k < 2; k++) {
		i = 0;
		argv[i++] = "start";
		argv[i++] = "-s";
		argv[i++] = k ? sb : sa;
		for (; *opts && opts[i - 3]; i++)
			argv[i] = opts[i - 3];
		argv[i] = NULL;
		run_expect(fake_env_plus(events), argv, 0, NULL);
	}
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", sa, "-o",
					       test_path(fa)), &o, &e), 0);
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "--read", "-s", sb,
					       "-o", test_path(fb)), &o, &e), 0);
	free(o);
	free(e);
	*nrec = 0;
	for (cpu = 0; cpu < 2; cpu++) {
		la = file_cpu_records(test_path(fa), cpu, a, sizeof(a));
		lb = file_cpu_records(test_path(fb), cpu, b, sizeof(b));
		CHECK_EQ(la, lb);
		CHECK(la == lb && !memcmp(a, b, la));
		*nrec += check_cpu_records(a, la);
	}
	/* Both consumed what they took: nothing left the second time. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", sa, "-o",
					       test_path(fa)), &o, &e), 0);
	CHECK_CONTAINS(o, ": 0 records (0 bytes)");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "--read", "-s", sb,
					       "-o", test_path(fb)), &o, &e), 0);
	CHECK_CONTAINS(o, ": 0 records (0 bytes)");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", sa), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", sb), 0, NULL);
}

TEST(cli_extract_mmap_same_as_read)
{
	unsigned int n;

	if (!fake_setup("same.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	/* Running, small: START and 10 events. */
	same_file_both_ways("run", "KETW_FAKE_EVENTS=10",
			    ARGS("-b", "64", "--no-rundown"), &n);
	CHECK_EQ(n, 11);
	/* LOOP in a page: wraps, padding, overwritten records; stopped. */
	same_file_both_ways("loop", "KETW_FAKE_EVENTS=300",
			    ARGS("-b", "4", "-P", "loop"), &n);
	CHECK(n > 40 && n < 150);
	/* UNTIL_FULL: losses, auto-stop with OVERFLOW, RESUME and STOP. */
	same_file_both_ways("full", "KETW_FAKE_EVENTS=300",
			    ARGS("-b", "4", "-P", "until-full"), &n);
	CHECK(n > 20 && n < 100);
	/* FLUSH, bigger: several wraps of nothing, one of everything. */
	same_file_both_ways("flush", "KETW_FAKE_EVENTS=2000",
			    ARGS("-b", "256", "-P", "flush", "--no-rundown"), &n);
	CHECK_EQ(n, 2001);
}

TEST(cli_extract_losses_reported)
{
	const char *f = test_path("full.ketw");
	char *o = NULL, *e = NULL;

	if (!fake_setup("losses.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env_plus("KETW_FAKE_EVENTS=300"),
		   ARGS("start", "-s", "full", "-b", "4", "-P", "until-full"),
		   0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "full", "-o", f),
				&o, &e), 0);
	CHECK_CONTAINS(o, "events lost or overwritten in the kernel");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-N", f), &o, &e), 0);
	CHECK_CONTAINS(o, "(suspended when extracted)");
	CHECK_CONTAINS(o, "    OVERFLOW: first lost event at ts=1.");
	CHECK_CONTAINS(o, " events lost on this cpu\n");
	CHECK_CONTAINS(o, "    STOP: stopped by the full policy\n");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "full"), 0, NULL);
}

/* Lines of @s that start with @prefix. */
static unsigned int count_lines(const char *s, const char *prefix)
{
	unsigned int n = 0;
	size_t len = strlen(prefix);

	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : "")
		if (!strncmp(s, prefix, len))
			n++;
	return n;
}

/*
 * ketw report on a file cut at every byte (a recorder killed, a copy cut
 * short): up to its last complete section it prints the records and says
 * on stderr that it is truncated and what it read, exit status 3; cut
 * inside the header it is a clear error (1); never a crash.
 */
TEST(cli_report_truncated_every_length)
{
	const char *full = test_path("stream-full.ketw");
	const char *cut_path = test_path("stream-cut.ketw");
	char want[256], errbuf[256], *o = NULL, *e = NULL;
	struct ketw_input *in;
	unsigned char *img;
	size_t len, cut;
	int rc;

	ASSERT_EQ(test_write_stream(full), 0);
	img = test_slurp(full, &len);
	ASSERT(img != NULL);
	for (cut = 0; cut <= len; cut++) {
		ASSERT_EQ(test_spit(cut_path, img, cut), 0);
		rc = test_run_ketw(NULL, ARGS("report", "-N", cut_path), &o, &e);
		if (!CHECK(rc == 0 || rc == 1 || rc == 3)) {
			printf("    cut at %zu: exit %d: %s\n", cut, rc, e);
			free(o);
			free(e);
			break;
		}
		if (cut < sizeof(struct ketw_file_header)) {
			CHECK_EQ(rc, 1);
			CHECK_CONTAINS(e, "cannot read ");
		} else {
			ASSERT_EQ(ketw_input_open_mem_flags(img, cut,
					KETW_INPUT_PARTIAL, &in, errbuf,
					sizeof(errbuf)), 0);
			if (ketw_input_truncated(in)) {
				CHECK_EQ(rc, 3);
				snprintf(want, sizeof(want),
					 "ketw: %s: truncated at byte %zu: read %llu complete sections, %llu records",
					 cut_path, cut,
					 (unsigned long long)ketw_input_nr_sections(in),
					 (unsigned long long)ketw_input_nr_records(in));
				CHECK_CONTAINS(e, want);
				CHECK_CONTAINS(o, "note:     truncated at byte ");
			} else {
				CHECK_EQ(rc, 0);
			}
			CHECK_EQ(count_lines(o, "  cpu="),
				 ketw_input_nr_records(in));
			ketw_input_close(in);
		}
		free(o);
		free(e);
		o = e = NULL;
	}
	/* --json says it too, and prints what it read. */
	ASSERT_EQ(test_spit(cut_path, img, len - 40), 0);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "--json", cut_path), &o,
				&e), 3);
	CHECK_CONTAINS(e, "truncated at byte ");
	CHECK_EQ(count_lines(o, "{"), 18);
	free(o);
	free(e);
	free(img);
}

TEST(cli_record)
{
	const char *f = test_path("record.ketw"), *g = test_path("record2.ketw");
	char *o = NULL, *e = NULL;

	/* Bad options: exit 2, before any device is opened. */
	run_expect(NO_DEV, ARGS("record", "-d", "0"), 2, "-d: 0 is out of range");
	run_expect(NO_DEV, ARGS("record", "-n", "x"), 2, "-n: 'x' is not");
	run_expect(NO_DEV, ARGS("record", "-P", "never"), 2, "is not a policy");
	run_expect(NO_DEV, ARGS("record", "-o", ""), 2, "-o: empty file name");
	run_expect(NO_DEV, ARGS("record", "-q"), 2, "unknown option -q");
	run_expect(NO_DEV, ARGS("record", "extra"), 2, "unexpected argument");
	run_expect(NO_DEV, ARGS("record", "-x", "ketw-sample:1"), 2,
		   "-x needs its provider enabled with -p");
	run_expect(NO_DEV, ARGS("record", "-n", "5"), 1, NULL);

	if (!fake_setup("record.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	/* -n: START, the rundown, 10 ticks and the STOP; then removed. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("record", "-s", "r", "-n", "5",
					       "-o", f), &o, &e), 0);
	CHECK_CONTAINS(o, "session r: running (policy loop");
	CHECK_CONTAINS(o, "session r: 18 records (2752 bytes) from 2 cpus written to ");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("show", "-s", "r"), 1, "does not exist");
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", f), &o, &e), 0);
	CHECK_CONTAINS(o, "event=tick");
	CHECK_CONTAINS(o, "STOP: explicit stop");
	free(o);
	free(e);
	/* -d with read(), a filter and no rundown. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("record", "-s", "r2", "-d", "1",
					       "--read", "--no-rundown",
					       "-l", "error", "-o", g),
				&o, &e), 0);
	CHECK_CONTAINS(o, "session r2: 2 records");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "r2"), 1, "does not exist");
	/* On a terminal: a progress line, erased at the end. */
	ASSERT_EQ(test_run_ketw_tty(fake_env, ARGS("record", "-s", "r3", "-d",
						   "2", "-o", g), &o, &e), 0);
	CHECK_CONTAINS(e, "\r\033[Krecord: ");
	CHECK_CONTAINS(e, "KiB, 17 records");
	CHECK(e && strlen(e) >= 4 && !strcmp(e + strlen(e) - 4, "\r\033[K"));
	CHECK_CONTAINS(o, "session r3: 18 records");
	free(o);
	free(e);
}

TEST(cli_extract_errors)
{
	if (!fake_setup("exerr.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("start", "-s", "x"), 0, NULL);
	run_expect(fake_env_plus("KETW_FAKE_NO_MMAP=1"),
		   ARGS("extract", "-s", "x", "-o", test_path("x.ketw")), 1,
		   "cannot map the buffer of cpu 0 of session 'x': No such device (try --read)");
	CHECK(access(test_path("x.ketw"), F_OK) != 0);
	run_expect(fake_env_plus("KETW_FAKE_NO_MMAP=1"),
		   ARGS("extract", "-s", "x", "--read", "-o",
			test_path("x.ketw")), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "x"), 0, NULL);
}

/* On a terminal, a long extract shows its progress, then erases it. */
TEST(cli_extract_progress)
{
	char *o = NULL, *e = NULL;
	int rc;

	if (!fake_setup("progress.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("start", "-s", "p", "--no-rundown"), 0, NULL);
	rc = test_run_ketw_tty(fake_env_plus("KETW_FAKE_SLOW_MS=700"),
			       ARGS("extract", "-s", "p", "-o",
				    test_path("p.ketw")), &o, &e);
	CHECK_EQ(rc, 0);
	CHECK_CONTAINS(e, "\r\033[Kextract: ");
	CHECK_CONTAINS(e, " records");
	/* The line is erased at the end: the last thing on the terminal. */
	CHECK(e && strlen(e) >= 4 && !strcmp(e + strlen(e) - 4, "\r\033[K"));
	CHECK_CONTAINS(o, "session p: 11 records");
	free(o);
	free(e);
	/* Not a terminal: nothing. */
	ASSERT_EQ(test_run_ketw(fake_env_plus("KETW_FAKE_SLOW_MS=700"),
				ARGS("extract", "-s", "p", "-o",
				     test_path("p.ketw")), &o, &e), 0);
	CHECK_STR(e, "");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "p"), 0, NULL);
}

TEST(cli_status)
{
	char *o = NULL, *e = NULL;

	if (!fake_setup("status.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("status", "-s", "nope"), 1,
		   "session 'nope' does not exist");
	run_expect(fake_env, ARGS("start", "-s", "ok", "-w", "25",
				  "--no-rundown"), 0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("show", "-s", "ok"), &o, &e), 0);
	CHECK_CONTAINS(o, "policy loop, max data 4096 bytes, watermark 25%");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("status", "-s", "ok"), &o, &e), 0);
	CHECK_CONTAINS(o, "session:  ok (running)\n"
			  "full:     no\n"
			  "overrun:  no, nothing lost since the last status\n"
			  "flush:    not flushing, error 0\n"
			  "totals:   11 written, 0 lost, 0 overwritten (2 cpus)\n"
			  "memory:   ");
	/* What the kernel (here the fake) says the buffers take. */
	CHECK_CONTAINS(o, " KiB of buffers");
	CHECK_CONTAINS(o, "  cpu    written  lost_full");
	CHECK_CONTAINS(o, "    0          6          0            0");
	CHECK_CONTAINS(o, "    1          5          0            0");
	free(o);
	free(e);

	/* Filled up: full, overrun (once), stopped by the policy. */
	run_expect(fake_env_plus("KETW_FAKE_EVENTS=300"),
		   ARGS("start", "-s", "full", "-b", "4", "-P", "until-full"),
		   0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("status", "-s", "full"), &o,
				&e), 0);
	CHECK_CONTAINS(o, "session:  full (suspended, stopped by the full policy)\n"
			  "full:     yes\n"
			  "overrun:  yes, events were lost or overwritten since the last status\n");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("status", "-s", "full",
					       "--json"), &o, &e), 0);
	CHECK_CONTAINS(o, "{\n  \"session\": \"full\",\n  \"state\": \"suspended\",\n"
			  "  \"full\": true,\n  \"overrun\": false,\n"
			  "  \"flushing\": false,\n  \"flush_error\": 0,\n"
			  "  \"flush_error_name\": null,\n  \"auto_stopped\": true,\n"
			  "  \"nr_cpus\": 2,\n  \"written\": ");
	/* 4 KiB a cpu: data, meta and pointer pages, and one more. */
	CHECK_CONTAINS(o, "  \"memory\": 28672,\n  \"cpus\": [\n    {\"cpu\": 0, \"written\": ");
	CHECK_CONTAINS(o, "\"pending\": ");
	CHECK_CONTAINS(o, "},\n    {\"cpu\": 1, ");
	CHECK(o && strlen(o) > 8 && !strcmp(o + strlen(o) - 8, "}\n  ]\n}\n"));
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "full"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "ok"), 0, NULL);
}

/* A refusal for memory says what the buffers need and what there is. */
TEST(cli_start_memory_refused)
{
	if (!fake_setup("memory.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	/* 1 MiB a cpu, 2 cpus in the fake but as many as this host here. */
	run_expect(fake_env_plus("KETW_FAKE_CREATE_ERRNO=12"),
		   ARGS("start", "-s", "big", "-b", "1024"), 1,
		   "cannot create session 'big': its buffers need ");
	run_expect(fake_env_plus("KETW_FAKE_CREATE_ERRNO=12"),
		   ARGS("record", "-s", "big", "-b", "1024", "-d", "1"), 1,
		   "MiB available (MemAvailable less a margin of ");
	run_expect(fake_env_plus("KETW_FAKE_CREATE_ERRNO=105"),
		   ARGS("start", "-s", "big", "-b", "1024"), 1,
		   "over ketw's cap: ");
}

TEST(cli_flush)
{
	const char *f = test_path("flush.ketw");
	char *o = NULL, *e = NULL;

	if (!fake_setup("flush.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("flush", "-s", "nope"), 1,
		   "session 'nope' does not exist");
	run_expect(fake_env, ARGS("start", "-s", "fl", "-P", "flush"), 0, NULL);
	/* Nobody reads it. */
	run_expect(fake_env, ARGS("flush", "-s", "fl"), 1,
		   "ketw: flush of session 'fl' timed out: no reader drained the session in time");
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("status", "-s", "fl", "--json"),
				&o, &e), 0);
	CHECK_CONTAINS(o, "  \"flush_error\": -110,\n  \"flush_error_name\": \"ETIMEDOUT\",\n");
	free(o);
	free(e);
	/* Reading the status reset the error. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("status", "-s", "fl"), &o, &e), 0);
	CHECK_CONTAINS(o, "flush:    not flushing, error 0\n");
	free(o);
	free(e);
	/* A reader drains it. */
	ASSERT_EQ(test_run_ketw(fake_env_plus("KETW_FAKE_FLUSH_READER=1"),
				ARGS("flush", "-s", "fl"), &o, &e), 0);
	CHECK_CONTAINS(o, "session fl: flushed");
	free(o);
	free(e);
	/* The trace tells the story. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "fl", "-o", f),
				&o, &e), 0);
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-N", f), &o, &e), 0);
	CHECK_CONTAINS(o, "id=FLUSH_STOP");	/* the second flush's */
	free(o);
	free(e);
	run_expect(fake_env, ARGS("stop", "-s", "fl"), 0, NULL);
	run_expect(fake_env, ARGS("flush", "-s", "fl"), 1,
		   "cannot flush session 'fl': it is not running");
	run_expect(fake_env, ARGS("reset", "-s", "fl"), 0, NULL);

	/* The first flush's records, decoded. */
	run_expect(fake_env, ARGS("start", "-s", "fl2", "-P", "flush"), 0, NULL);
	run_expect(fake_env, ARGS("flush", "-s", "fl2"), 1, "timed out");
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "fl2", "-o", f),
				&o, &e), 0);
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-N", f), &o, &e), 0);
	CHECK_CONTAINS(o, "id=FLUSH_START kw=0x0 len=0 flags=SYSTEM\n");
	CHECK_CONTAINS(o, "id=ERROR kw=0x0 len=8 flags=SYSTEM\n"
			  "    ERROR: error -110 ETIMEDOUT (Connection timed out)\n");
	CHECK_CONTAINS(o, "id=FLUSH_STOP kw=0x0 len=0 flags=SYSTEM\n");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "fl2"), 0, NULL);
}

TEST(cli_snapshot)
{
	static unsigned char a[1 << 16], b[1 << 16];
	const char *fs = test_path("snap.ketw"), *fx = test_path("after.ketw");
	char *o = NULL, *e = NULL;
	unsigned int cpu, n = 0;
	size_t la, lb;

	if (!fake_setup("snap.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("snapshot", "-s", "nope", "-o", fs), 1,
		   "session 'nope' does not exist");
	CHECK(access(fs, F_OK) != 0);
	/* A flight recorder that went round a few times. */
	run_expect(fake_env_plus("KETW_FAKE_EVENTS=300"),
		   ARGS("start", "-s", "fr", "-b", "4"), 0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("snapshot", "-s", "fr", "-o", fs),
				&o, &e), 0);
	CHECK_CONTAINS(o, "session fr: snapshot of ");
	CHECK_CONTAINS(o, "from 2 cpus written to");
	CHECK(!strstr(o, "overwritten while"));
	free(o);
	free(e);
	/* Nothing was consumed: extract finds the same records. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "fr", "-o", fx),
				&o, &e), 0);
	free(o);
	free(e);
	for (cpu = 0; cpu < 2; cpu++) {
		la = file_cpu_records(fs, cpu, a, sizeof(a));
		lb = file_cpu_records(fx, cpu, b, sizeof(b));
		CHECK(la > 0);
		CHECK(la == lb && !memcmp(a, b, la));
		n += check_cpu_records(a, la);	/* and no padding */
	}
	CHECK(n > 40);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-H", fs), &o, &e), 0);
	CHECK_CONTAINS(o, "(running when extracted)");
	free(o);
	free(e);

	/*
	 * Writers overwrite records while the kernel copies them: it drops
	 * their bytes from the front of the copy and says how many.
	 */
	run_expect(fake_env_plus("KETW_FAKE_EVENTS=300"),
		   ARGS("start", "-s", "fr2", "-b", "4"), 0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env_plus("KETW_FAKE_SNAPSHOT_WRITES=5"),
				ARGS("snapshot", "-s", "fr2", "-o", fs), &o, &e),
		  0);
	CHECK_CONTAINS(o, " bytes of the oldest records were overwritten while the kernel copied them and are not in the snapshot (the overwritten counters grew by ");
	CHECK_CONTAINS(o, " records meanwhile)\n");
	free(o);
	free(e);
	/* The copy is still whole records only. */
	for (cpu = 0; cpu < 2; cpu++) {
		la = file_cpu_records(fs, cpu, a, sizeof(a));
		CHECK(la > 0);
		check_cpu_records(a, la);
	}
	/* No writers this time: nothing dropped. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("snapshot", "-s", "fr2", "-o",
					       fs), &o, &e), 0);
	CHECK(!strstr(o, "overwritten while"));
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "fr"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "fr2"), 0, NULL);
}

/* ---- providers: list, start -p/-x, enable, disable, rundown ----------- */

TEST(cli_provider_usage_errors)
{
	run_expect(NO_DEV, ARGS("start", "-p", ""), 2,
		   "ketw: -p: no provider given\nTry 'ketw start --help'.");
	run_expect(NO_DEV, ARGS("start", "-p", "ketw-sample:loud"), 2,
		   "-p: 'loud' is not a level (critical, error, warning, info, verbose, all, or 0..5)");
	run_expect(NO_DEV, ARGS("start", "-p",
				"6b657477-7361-6d70-6c65-00000000000x:3"), 2,
		   "-p: '6b657477-7361-6d70-6c65-00000000000x' is not a GUID (8-4-4-4-12 hex digits");
	run_expect(NO_DEV, ARGS("start", "-p", "ketw-sample:3:0x1q"), 2,
		   "-p: '0x1q' is not a keyword mask");
	run_expect(NO_DEV, ARGS("start", "-p", "a:1:2:3"), 2,
		   "-p: too many ':' in 'a:1:2:3'");
	run_expect(NO_DEV, ARGS("start", "-p", "ketw-sample",
				"--provider", "ketw-sample:info"), 2,
		   "-p: provider 'ketw-sample' given twice ('ketw-sample' and 'ketw-sample:info')");
	run_expect(NO_DEV, ARGS("start", "-p",
				"a2345678901234567890123456789012"), 2,
		   "is too long (at most 31 characters)");
	run_expect(NO_DEV, ARGS("start", "-x", "ketw-sample:1"), 2,
		   "-x needs its provider enabled with -p");
	run_expect(NO_DEV, ARGS("start", "-p", "ketw-sample", "-x",
				"ketw-sample"), 2,
		   "-x: 'ketw-sample' has no event ids (PROVIDER:ID[,ID...])");
	run_expect(NO_DEV, ARGS("start", "-p", "ketw-sample",
				"--filter-out", "ketw-sample:1024"), 2,
		   "-x: event id 1024 cannot be filtered out (only ids 0..1023 can)");
	run_expect(NO_DEV, ARGS("start", "-p"), 2,
		   "option -p needs an argument");
	run_expect(NO_DEV, ARGS("start", "--no-rundown=1"), 2,
		   "unknown option");
	run_expect(NO_DEV, ARGS("enable", "-s", "x"), 2,
		   "no provider given (-p PROVIDER)");
	run_expect(NO_DEV, ARGS("enable", "-p", "p:9"), 2,
		   "-p: '9' is not a level");
	run_expect(NO_DEV, ARGS("disable", "-p", "ketw-sample:3"), 2,
		   "-p: 'ketw-sample:3': disable takes a provider only, without a level or keywords");
	run_expect(NO_DEV, ARGS("disable", "-x", "ketw-sample:3"), 2,
		   "unknown option -x");
	run_expect(NO_DEV, ARGS("disable"), 2, "no provider given");
	run_expect(NO_DEV, ARGS("rundown", "now"), 2,
		   "unexpected argument 'now'");
	run_expect(NO_DEV, ARGS("rundown", "-s", "a b"), 2,
		   "is not a session name");
	run_expect(NO_DEV, ARGS("list", "-p", "ketw-sample:3"), 2,
		   "list takes a provider's name or GUID only");
	run_expect(NO_DEV, ARGS("list", "extra"), 2,
		   "unexpected argument 'extra'");
	run_expect(NO_DEV, ARGS("report", "-t"), 2,
		   "option -t needs an argument");
	/* Valid command lines get as far as the device. */
	run_expect(NO_DEV, ARGS("start", "-p", "ketw-sample:warning:0x3/0x1",
				"-p", "6b657477-7361-6d70-6c65-000000000002",
				"-x", "ketw-sample:1,3-5"), 1,
		   "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("list"), 1, "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("enable", "-p", "x"), 1,
		   "is the ketw module loaded?");
	run_expect(NO_DEV, ARGS("rundown"), 1, "is the ketw module loaded?");
	run_expect(ENV("KETW_DEVICE=/dev/null"), ARGS("list"), 1,
		   "cannot list the providers: Inappropriate ioctl for device (is /dev/null a ketw device");
}

TEST(cli_help_providers)
{
	const char *const cmds[] = { "list", "enable", "disable", "rundown" };
	char *out = NULL, *err = NULL;
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "usage: ketw %s", cmds[i]);
		CHECK_EQ(test_run_ketw(NO_DEV, ARGS(cmds[i], "--help"), &out,
				       &err), 0);
		CHECK_CONTAINS(out, want);
		free(out);
		free(err);
	}
	CHECK_EQ(test_run_ketw(NO_DEV, ARGS("start", "--help"), &out, &err), 0);
	CHECK_CONTAINS(out, "-p, --provider PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]]");
	CHECK_CONTAINS(out, "-x, --filter-out PROVIDER:ID[,ID...]");
	CHECK_CONTAINS(out, "--no-rundown");
	free(out);
	free(err);
	CHECK_EQ(test_run_ketw(NO_DEV, ARGS("help"), &out, &err), 0);
	CHECK_CONTAINS(out, "  list      list the providers and their events\n");
	CHECK_CONTAINS(out, "  rundown   ");
	free(out);
	free(err);
}

TEST(cli_list)
{
	char *o = NULL, *e = NULL;
	unsigned int n;
	const char *p;

	if (!fake_setup("list.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("list"), &o, &e), 0);
	CHECK_CONTAINS(o, "2 providers registered\n"
			  "  GUID                                  NAME                            EVENTS SESSIONS  FLAGS\n"
			  "  6b657477-7361-6d70-6c65-000000000001  ketw-sample                          2        0  -\n"
			  "  6b657477-7573-6572-0000-000000000002  user.fake                            0        0  USER uid=1000\n");
	CHECK_CONTAINS(o, "\nketw-sample (6b657477-7361-6d70-6c65-000000000001): 2 events\n"
			  "      ID  NAME                     TYPE       LEVEL    KEYWORD            VERSION\n"
			  "       1  tick                     10         INFO     0x1                      2\n"
			  "          field index                    u32     offset 0     size 4\n"
			  "          field magic                    hex32   offset 4     size 4\n"
			  "          field value                    u64     offset 8     size 8\n"
			  "          field tail                     binary  offset 16    size 0 (to the payload's end)\n"
			  "       2  warn                     INFO       WARNING  0x2                      1\n");
	CHECK_CONTAINS(o, "          field text                     string  offset 8     size 16\n");
	CHECK_CONTAINS(o, "\nuser.fake (6b657477-7573-6572-0000-000000000002): no event descriptors (a user-space provider: its payloads stay in hex)\n");
	free(o);
	free(e);

	/* One provider, by name or GUID; a session that takes it. */
	run_expect(fake_env, ARGS("start", "-s", "l1", "-p", "ketw-sample"), 0,
		   NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("list", "-p",
				"6B657477-7361-6D70-6C65-000000000001"), &o, &e), 0);
	CHECK(!strstr(o, "registered"));
	CHECK_CONTAINS(o, "  6b657477-7361-6d70-6c65-000000000001  ketw-sample                          2        1  -\n");
	CHECK(!strstr(o, "user.fake"));
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "l1"), 0, NULL);
	run_expect(fake_env, ARGS("list", "-p", "nope"), 1,
		   "no provider 'nope' is registered ('ketw list' shows those that are)");

	/* JSON. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("list", "--json", "-p",
					       "ketw-sample"), &o, &e), 0);
	CHECK_STR(o, "{\n  \"providers\": [\n"
		     "    {\"guid\": \"6b657477-7361-6d70-6c65-000000000001\", \"name\": \"ketw-sample\", \"nr_events\": 2, \"flags\": [], \"user\": false, \"sessions\": 0, \"events\": [\n"
		     "      {\"id\": 1, \"name\": \"tick\", \"type\": 10, \"type_name\": null, \"level\": 4, \"level_name\": \"INFO\", \"keyword\": \"0x1\", \"version\": 2, \"fields\": [{\"name\": \"index\", \"type\": \"u32\", \"offset\": 0, \"size\": 4}, {\"name\": \"magic\", \"type\": \"hex32\", \"offset\": 4, \"size\": 4}, {\"name\": \"value\", \"type\": \"u64\", \"offset\": 8, \"size\": 8}, {\"name\": \"tail\", \"type\": \"binary\", \"offset\": 16, \"size\": 0}]},\n"
		     "      {\"id\": 2, \"name\": \"warn\", \"type\": 0, \"type_name\": \"INFO\", \"level\": 3, \"level_name\": \"WARNING\", \"keyword\": \"0x2\", \"version\": 1, \"fields\": [{\"name\": \"index\", \"type\": \"u32\", \"offset\": 0, \"size\": 4}, {\"name\": \"code\", \"type\": \"u32\", \"offset\": 4, \"size\": 4}, {\"name\": \"text\", \"type\": \"string\", \"offset\": 8, \"size\": 16}]}\n"
		     "    ]}\n  ]\n}\n");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("list", "--json"), &o, &e), 0);
	CHECK_CONTAINS(o, "\"name\": \"user.fake\", \"nr_events\": 0, \"flags\": [\"USER\"], \"user\": true, \"uid\": 1000, \"sessions\": 0, \"events\": []}\n  ]\n}\n");
	free(o);
	free(e);

	/* More than the first arrays hold: every one of them. */
	ASSERT_EQ(test_run_ketw(fake_env_plus("KETW_FAKE_PROVIDERS=40"),
				ARGS("list"), &o, &e), 0);
	CHECK_CONTAINS(o, "42 providers registered\n");
	CHECK_CONTAINS(o, "  fake-39 ");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env_plus("KETW_FAKE_SAMPLE_EVENTS=40"),
				ARGS("list", "-p", "ketw-sample"), &o, &e), 0);
	CHECK_CONTAINS(o, "(6b657477-7361-6d70-6c65-000000000001): 42 events\n");
	for (n = 0, p = o; (p = strstr(p, "  extra-")); p++)
		n++;
	CHECK_EQ(n, 40);
	CHECK_CONTAINS(o, "     139  extra-41 ");
	free(o);
	free(e);
	/* A registry that grows meanwhile: asked again. */
	ASSERT_EQ(test_run_ketw(fake_env_plus("KETW_FAKE_GROW=2"),
				ARGS("list"), &o, &e), 0);
	CHECK_CONTAINS(o, "42 providers registered\n");
	free(o);
	free(e);
	run_expect(fake_env_plus("KETW_FAKE_GROW=100"), ARGS("list"), 1,
		   "cannot list the providers: Resource temporarily unavailable");
}

/* Count @needle in @hay. */
static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while (hay && (hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

/* Extract session @s into @file and return its report (-R), or NULL. */
static char *report_of(const char *s, const char *file, const char *opt)
{
	char *o = NULL, *e = NULL;

	if (!CHECK_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", s, "-o",
						   test_path(file)), &o, &e),
		      0)) {
		free(o);
		free(e);
		return NULL;
	}
	free(o);
	free(e);
	if (!CHECK_EQ(test_run_ketw(NULL, ARGS("report", opt, test_path(file)),
				    &o, &e), 0)) {
		free(o);
		o = NULL;
	}
	free(e);
	return o;
}

/* The demo's two sessions: the same events, different filters. */
TEST(cli_two_sessions_filters)
{
	static const char *env[8];
	char *o = NULL, *e = NULL;

	if (!fake_setup("two.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	memcpy(env, fake_env_plus("KETW_FAKE_WARNS=5"), sizeof(env));
	ASSERT_EQ(test_run_ketw(env, ARGS("start", "-s", "warn", "-p",
					  "ketw-sample:warning"), &o, &e), 0);
	CHECK_STR(o, "session warn: running (policy loop, 1024 KiB x 2 cpus, clock mono, max data 4096, watermark 50%), taking only these providers:\n"
		     "  provider ketw-sample: level WARNING, match_any 0x0, match_all 0x0\n"
		     "    takes warn(2); leaves out tick(1)\n");
	CHECK_STR(e, "");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(env, ARGS("start", "-s", "all", "-p",
					  "ketw-sample:verbose:0x1"), &o, &e), 0);
	CHECK_CONTAINS(o, "  provider ketw-sample: level VERBOSE, match_any 0x1, match_all 0x0\n"
			  "    takes tick(1); leaves out warn(2)\n");
	free(o);
	free(e);
	/* The event set, and match_all, by GUID and event names. */
	ASSERT_EQ(test_run_ketw(env, ARGS("start", "-s", "x", "-p",
					  "6b657477-7361-6d70-6c65-000000000001",
					  "-x", "6b657477-7361-6d70-6c65-000000000001:tick,7"),
				&o, &e), 0);
	CHECK_CONTAINS(o, "  provider 6b657477-7361-6d70-6c65-000000000001: level all, match_any 0x0, match_all 0x0, ids filtered out 1,7\n"
			  "    takes warn(2); leaves out tick(1)\n");
	free(o);
	free(e);
	run_expect(env, ARGS("start", "-s", "y", "-k", "0x3", "-p",
			     "ketw-sample::/0x2"), 0, NULL);
	/* -x by name resolves against -p by GUID; -l gives -p its level. */
	ASSERT_EQ(test_run_ketw(env, ARGS("start", "-s", "z", "-l", "error",
					  "-p", "ketw-sample", "-x",
					  "ketw-sample:2"), &o, &e), 0);
	CHECK_CONTAINS(o, "level ERROR, match_any 0x0, match_all 0x0, ids filtered out 2\n"
			  "    takes none of its 2 events; leaves out tick(1) warn(2)\n");
	free(o);
	free(e);

	run_expect(fake_env, ARGS("stop", "-s", "warn"), 0, NULL);
	run_expect(fake_env, ARGS("stop", "-s", "all"), 0, NULL);
	o = report_of("warn", "warn.ketw", "-R");
	CHECK_EQ(count_of(o, " event=warn "), 5);
	CHECK_EQ(count_of(o, " event=tick "), 0);
	CHECK_CONTAINS(o, "    index=4 code=20 text=\"warning\"\n");
	free(o);
	o = report_of("all", "all.ketw", "-R");
	CHECK_EQ(count_of(o, " event=warn "), 0);
	CHECK_EQ(count_of(o, " event=tick "), 10);
	CHECK_CONTAINS(o, "    index=9 magic=0x6b657477 value=28 tail={09 0a 0b 0c 0d 0e 0f 10 11}\n");
	free(o);
	o = report_of("x", "x.ketw", "-R");
	CHECK_EQ(count_of(o, " event=warn "), 5);
	CHECK_EQ(count_of(o, " event=tick "), 0);
	free(o);
	o = report_of("y", "y.ketw", "-R");
	CHECK_EQ(count_of(o, " event=warn "), 5);
	CHECK_EQ(count_of(o, " event=tick "), 0);
	free(o);
	o = report_of("z", "z.ketw", "-R");
	CHECK_EQ(count_of(o, " event="), 0);
	free(o);
	/* The rundown is there, one short line a record. */
	o = report_of("warn", "warn2.ketw", "-N");
	free(o);
	run_expect(fake_env, ARGS("reset", "-s", "warn"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "all"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "x"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "y"), 0, NULL);
	run_expect(fake_env, ARGS("reset", "-s", "z"), 0, NULL);

	/* With the rundown: PROVIDER, EVENT_DESC, TASK lines. */
	run_expect(env, ARGS("start", "-s", "rd", "-p", "ketw-sample:3"), 0,
		   NULL);
	o = report_of("rd", "rd.ketw", "-N");
	CHECK_CONTAINS(o, "rundown:  2 providers, 2 event layouts, 2 tasks (payloads decoded by their layouts)\n");
	CHECK_CONTAINS(o, "  cpu=0 ts=1.000000001 seq=1 PROVIDER ketw-sample 6b657477-7361-6d70-6c65-000000000001 events=2\n"
			  "  cpu=0 ts=1.000000002 seq=2 EVENT_DESC ketw-sample id=1 tick ver=2 fields=4\n"
			  "  cpu=0 ts=1.000000003 seq=3 EVENT_DESC ketw-sample id=2 warn ver=1 fields=3\n"
			  "  cpu=0 ts=1.000000004 seq=4 PROVIDER user.fake 6b657477-7573-6572-0000-000000000002 events=0 USER\n"
			  "  cpu=0 ts=1.000000005 seq=5 TASK pid=1 tid=1 comm=init\n");
	free(o);
	run_expect(fake_env, ARGS("reset", "-s", "rd"), 0, NULL);
	/* --no-rundown: none, and the payloads stay in hex. */
	run_expect(env, ARGS("start", "-s", "nr", "--no-rundown", "-p",
			     "ketw-sample:3"), 0, NULL);
	o = report_of("nr", "nr.ketw", "-H");
	CHECK_CONTAINS(o, "rundown:  none (payloads in hex)\n");
	free(o);
	run_expect(fake_env, ARGS("reset", "-s", "nr"), 0, NULL);
}

TEST(cli_start_provider_errors)
{
	if (!fake_setup("perr.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("start", "-s", "d", "-p", "ketw-sample:3",
				  "-p", "6b657477-7361-6d70-6c65-000000000001"),
		   2, "-p: 'ketw-sample:3' and '6b657477-7361-6d70-6c65-000000000001' name the same provider (ketw-sample 6b657477-7361-6d70-6c65-000000000001)");
	run_expect(fake_env, ARGS("start", "-s", "d", "-p", "ketw-sample",
				  "-x", "user.fake:1"), 2,
		   "-x: provider 'user.fake' is not enabled with -p (its filter comes with it: add -p user.fake)");
	run_expect(fake_env, ARGS("start", "-s", "d", "-p", "ketw-sample",
				  "-x", "ketw-sample:tock"), 2,
		   "-x: 'tock' is not an event id, nor the name of an event of ketw-sample");
	/* Nothing was left behind. */
	run_expect(fake_env, ARGS("show", "-s", "d"), 1,
		   "session 'd' does not exist");
	/* A provider that is not registered: a note, and it works. */
	run_expect(fake_env, ARGS("start", "-s", "d", "-p", "later:info"), 0,
		   "ketw: note: provider 'later' is not registered now; session 'd' takes its events once it registers\n");
	run_expect(fake_env, ARGS("start", "-s", "d", "-p", "ketw-sample"), 1,
		   "session 'd' already exists");
	run_expect(fake_env, ARGS("reset", "-s", "d"), 0, NULL);
}

TEST(cli_enable_disable_rundown)
{
	const char *f = test_path("en.ketw");
	char *o = NULL, *e = NULL;

	if (!fake_setup("enable.state"))
		SKIP("the fake /dev/ketw cannot be preloaded (static ketw, or no --fake)");
	run_expect(fake_env, ARGS("enable", "-s", "nope", "-p", "ketw-sample"),
		   1, "session 'nope' does not exist");
	run_expect(fake_env, ARGS("rundown", "-s", "nope"), 1,
		   "session 'nope' does not exist");
	run_expect(fake_env, ARGS("start", "-s", "en", "--no-rundown"), 0,
		   NULL);
	/* Every provider by default; then only the one enabled. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("show", "-s", "en"), &o, &e), 0);
	CHECK_CONTAINS(o, "providers: the filter applied to each registered one now\n"
			  "  ketw-sample                     level all, match_any 0x0, match_all 0x0\n"
			  "  user.fake                       level all, match_any 0x0, match_all 0x0\n");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("enable", "-s", "en", "-p",
					       "ketw-sample:warning:0x6/0x2",
					       "-x", "ketw-sample:5-6"), &o, &e),
		  0);
	CHECK_STR(o, "session en (running): enabled 1 provider (the kernel logged a FILTER event for each change)\n"
		     "  provider ketw-sample: level WARNING, match_any 0x6, match_all 0x2, ids filtered out 5-6\n"
		     "    takes warn(2); leaves out tick(1)\n");
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("show", "-s", "en"), &o, &e), 0);
	CHECK_CONTAINS(o, "  ketw-sample                     level WARNING, match_any 0x6, match_all 0x2, ids filtered out 5-6\n"
			  "  user.fake                       not taken\n");
	free(o);
	free(e);
	/* By GUID; disabled by name (the kernel keeps the GUID). */
	run_expect(fake_env, ARGS("enable", "-s", "en", "-p",
				  "6b657477-7573-6572-0000-000000000002:2"),
		   0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("disable", "-s", "en", "-p",
					       "user.fake"), &o, &e), 0);
	CHECK_STR(o, "session en (running): disabled 1 provider (the kernel logged a FILTER event for each change)\n"
		     "  provider user.fake: disabled\n");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("disable", "-s", "en", "-p", "user.fake"), 1,
		   "session 'en' does not enable provider 'user.fake' (nothing to disable)");
	run_expect(fake_env, ARGS("rundown", "-s", "en"), 0, NULL);
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("disable", "-s", "en", "-p",
					       "ketw-sample"), &o, &e), 0);
	CHECK_CONTAINS(o, "session en now takes no registered provider (enable one with 'ketw enable -s en -p PROVIDER')\n");
	free(o);
	free(e);
	run_expect(fake_env, ARGS("stop", "-s", "en"), 0, NULL);
	run_expect(fake_env, ARGS("rundown", "-s", "en"), 1,
		   "session 'en' is not running (a rundown goes into a running session)");
	/* On a stopped session: no FILTER, and it says so. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("enable", "-s", "en", "-p",
					       "ketw-sample"), &o, &e), 0);
	CHECK_CONTAINS(o, "session en (suspended): enabled 1 provider\n");
	free(o);
	free(e);

	/* The trace: FILTER records by name, the rundown of 'ketw rundown'. */
	ASSERT_EQ(test_run_ketw(fake_env, ARGS("extract", "-s", "en", "-o", f),
				&o, &e), 0);
	free(o);
	free(e);
	ASSERT_EQ(test_run_ketw(NULL, ARGS("report", "-N", f), &o, &e), 0);
	CHECK_CONTAINS(o, "    FILTER: provider ketw-sample: level=0 match_any=0x0 match_all=0x0 filtered=0 -> level=3 match_any=0x6 match_all=0x2 filtered=2\n");
	CHECK_CONTAINS(o, "    FILTER: provider user.fake: level=0 match_any=0x0 match_all=0x0 filtered=0 -> off\n");
	CHECK_CONTAINS(o, "    FILTER: provider user.fake: off -> level=2 match_any=0x0 match_all=0x0 filtered=0\n");
	CHECK_CONTAINS(o, "    FILTER: provider ketw-sample: level=3 match_any=0x6 match_all=0x2 filtered=2 -> off\n");
	CHECK_EQ(count_of(o, " FILTER: "), 5);
	CHECK_EQ(count_of(o, " PROVIDER ketw-sample "), 1);
	CHECK_EQ(count_of(o, " TASK pid="), 2);
	free(o);
	free(e);
	run_expect(fake_env, ARGS("reset", "-s", "en"), 0, NULL);
}

/*
 * ketw convert and ketw plot from the command line: their usage errors,
 * and a file of each kind written (make viewers-test checks them field
 * by field, and in babeltrace2 and Chromium).
 */
TEST(cli_convert_plot)
{
	const char *golden = test_golden_path("v1.0.ketw");
	char json[512], svg[512], html[512];
	unsigned char *p;
	size_t len;

	snprintf(json, sizeof(json), "%s", test_path("conv.json"));
	snprintf(svg, sizeof(svg), "%s", test_path("plot.svg"));
	snprintf(html, sizeof(html), "%s", test_path("plot.html"));
	run_expect(NO_DEV, ARGS("convert", golden, "-o", json), 2,
		   "--to chrome or --to ctf is needed");
	run_expect(NO_DEV, ARGS("convert", golden, "--to", "xml", "-o", json), 2,
		   "--to: 'xml' is not chrome or ctf");
	run_expect(NO_DEV, ARGS("convert", golden, "--to", "chrome"), 2,
		   "-o OUT is needed");
	run_expect(NO_DEV, ARGS("convert", test_path("missing.ketw"), "--to",
				"chrome", "-o", json), 1, "cannot read ");
	run_expect(NO_DEV, ARGS("plot", golden), 2, "-o FILE.svg or FILE.html");
	run_expect(NO_DEV, ARGS("plot", golden, "-o", "x.png"), 2,
		   "neither .svg nor .html");
	run_expect(NO_DEV, ARGS("plot", golden, "-o", svg, "--width", "10"), 2,
		   "--width: '10' is not 400..20000 pixels");
	run_expect(NO_DEV, ARGS("plot", golden, "-o", svg, "--from", "1.x"), 2,
		   "--from: '1.x' is not SECONDS[.FRACTION]");
	run_expect(NO_DEV, ARGS("plot", golden, "-o", svg, "--from", "2",
				"--to", "1"), 2, "--to is before --from");

	ASSERT(run_expect(NO_DEV, ARGS("convert", golden, "--to", "chrome",
				       "-o", json), 0, NULL));
	p = test_slurp(json, &len);
	ASSERT(p != NULL);
	CHECK(len > 100 && p[0] == '{');
	CHECK(memmem(p, len, "\"traceEvents\": [", strlen("\"traceEvents\": [")) != NULL);
	/* The golden file's tick at 1.000001000 s: us with ns decimals. */
	CHECK(memmem(p, len, "\"ts\": 1000001.000,", strlen("\"ts\": 1000001.000,")) != NULL);
	CHECK(memmem(p, len, "\"displayTimeUnit\": \"ns\"", strlen("\"displayTimeUnit\": \"ns\"")) != NULL);
	free(p);
	ASSERT(run_expect(NO_DEV, ARGS("plot", golden, "-o", svg), 0, NULL));
	p = test_slurp(svg, &len);
	ASSERT(p != NULL);
	CHECK(memmem(p, len, "<svg xmlns=", strlen("<svg xmlns=")) != NULL);
	CHECK(memmem(p, len, "id=\"lane-cpu0\"", strlen("id=\"lane-cpu0\"")) != NULL);
	CHECK(memmem(p, len, "id=\"lane-cpu1\"", strlen("id=\"lane-cpu1\"")) != NULL);
	CHECK(memmem(p, len, "data-provider=\"ketw-sample\"", strlen("data-provider=\"ketw-sample\"")) != NULL);
	CHECK(memmem(p, len, "</svg>", strlen("</svg>")) != NULL);
	free(p);
	ASSERT(run_expect(NO_DEV, ARGS("plot", golden, "-o", html), 0, NULL));
	p = test_slurp(html, &len);
	ASSERT(p != NULL);
	CHECK(len > 15 && !memcmp(p, "<!DOCTYPE html>", 15));
	CHECK(memmem(p, len, "</html>", strlen("</html>")) != NULL);
	free(p);
}
