// SPDX-License-Identifier: GPL-2.0
/*
 * kfuzz_fs: ketwfs under hostile, concurrent use.
 *
 * Worker threads, each with its own PRNG derived from the seed:
 *
 *   ctl (3)   write hostile strings to every file of the tree (pids
 *             included: process filters come and go under the others;
 *             found by
 *             walking it, and by name for sessions that may not exist),
 *             whole, split, at odd offsets, from bad pointers; read
 *             them back; keep some files open across rmdir and mkdir
 *   dir       mkdir and rmdir sessions (and names that must be
 *             refused), hold directory fds across them, seek
 *             directories, mount and unmount (lazily too) a second
 *             instance while files are open
 *   read (2)  open, read, poll and close trace, trace_pipe and
 *             trace_pipe_raw, blocking (a per-thread timer interrupts
 *             the read) or not; map trace_pipe_raw and scribble on its
 *             meta page
 *   ioctl     create, attach, start, stop, destroy sessions of the same
 *             names through /dev/ketw; read them; register user
 *             providers whose payloads look like record headers
 *   emit      makes ketw_sample log events, which the ftrace events
 *             ketw:ketw_event and ketw:ketw_items (on for the run, if
 *             tracefs is there) bridge with the items that the
 *             workers write to bridge_items
 *
 * A watchdog fails the test when a system call does not return within
 * KFZ_STUCK_S seconds, and prints what it was and the thread's kernel
 * stack. Afterwards every session must go (rmdir, KETW_IOC_DESTROY),
 * a fresh session must deliver exactly the events ketw_sample logs
 * through trace_pipe, and ketw's module count must be what it was.
 *
 * Environment: KETW_FUZZ_SEED (default KFZ_SEED_DEFAULT),
 * KETW_FUZZ_SECONDS (default KFZ_SECONDS_DEFAULT), KETW_FUZZ_META=0 to
 * leave meta pages alone. "# seed=N" is printed first; a failing seed
 * reproduces as far as thread interleaving allows.
 */
#include "ketw_test.h"
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include "kselftest_harness.h"

#define KFS			"/sys/kernel/ketw"
/* Under a read-only tmpfs: nothing can be made there while unmounted. */
#define KFS2_RO			"/tmp/kfuzz_fs"
#define KFS2			KFS2_RO "/mnt"
#define KETWFS_MAGIC		0x6b657477
#define KFZ_SEED_DEFAULT	0x6b657477ull
#define KFZ_SECONDS_DEFAULT	30
#define KFZ_STUCK_S		20	/* a system call this long is a hang */
#define KFZ_WRITE_MAX		8192	/* fs.c's KETWFS_WRITE_MAX */
#define KFZ_BUF			(1 << 20)
#define KFZ_NFDS		6
#define KFZ_NMAPS		2
#define KFZ_MAX_FILES		4096
#define KFZ_MAX_FAILS		20
#define KFZ_CHECK_EVENTS	100
#define KFZ_CHECK		"kfzchk"
#define KFZ_KEEPER		"kfzkeep"	/* holds the sample's branch on */
#define KETW_MAX_BUFFER		"/sys/module/ketw/parameters/max_buffer_kb"
#define KFZ_TRACE_EVENTS	"/sys/kernel/tracing/events/ketw/enable"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Session names the threads fight over; the last is 31 characters. */
static const char *const pool[] = {
	"kfz0", "kfz1", "kfz2", "kfz.3", "kfz-4",
	"kfz_5_0123456789012345678901234",
};
#define NPOOL	(sizeof(pool) / sizeof(pool[0]))

/* Files of a session, some of them not there. */
static const char *const sfiles[] = {
	"enable", "buffer_size_kb", "policy", "max_data_size", "clock",
	"items", "rundown", "providers", "event_set", "status", "stats", "trace",
	"trace_pipe", "trigger", "pids", "per_cpu/cpu0/trace_pipe_raw",
	"per_cpu/cpu1/trace_pipe_raw", "per_cpu/cpu0/stats",
	"per_cpu/cpu1/stats", "per_cpu/cpu99/stats", "per_cpu/cpu01/stats",
	"nonexistent", "per_cpu", ".",
};
#define NSFILES	(sizeof(sfiles) / sizeof(sfiles[0]))

enum role { R_CTL, R_DIR, R_READ, R_IOCTL, R_EMIT };

static const enum role roles[] = {
	R_CTL, R_CTL, R_CTL, R_DIR, R_READ, R_READ, R_IOCTL, R_EMIT,
};
#define NWORKERS (sizeof(roles) / sizeof(roles[0]))
static const char *const role_names[] = { "ctl", "dir", "read", "ioctl", "emit" };

/* A file a reader keeps open. */
struct rfile {
	int fd;
	int kind;		/* 0 trace, 1 trace_pipe, 2 trace_pipe_raw */
	int nonblock;
	char line[8];		/* trace_pipe: the start of the current line */
	unsigned int line_len;
	char path[160];
};

struct rmap {
	void *meta;
	void *data;
	size_t size;
};

struct worker {
	unsigned int idx;
	enum role role;
	uint64_t rng;
	pthread_t thr;
	_Atomic pid_t tid;
	_Atomic uint64_t op_since;	/* when the current call began, or 0 */
	char op[192];			/* what it is */
	int reported;
	timer_t timer;
	long ops, fails;
	char *buf;			/* KFZ_BUF */
	char **files;			/* ctl: the tree as last walked */
	unsigned int nfiles;
	int fds[KFZ_NFDS];		/* ctl, dir: files kept open */
	struct rfile rf[KFZ_NFDS];	/* read */
	struct rmap maps[KFZ_NMAPS];	/* read */
	int devfd[2];			/* ioctl */
	int userfd;			/* ioctl: owns a user provider */
};

static struct {
	atomic_int stop;
	atomic_int failed;
	atomic_int nfails;
	atomic_int second_mounted;	/* dir: KFS2 is mounted */
	atomic_int payload_scribbles;	/* consumed moved into a payload */
	atomic_int payload_small;	/* one that reads as a short header */
	int mounted_here;
	int keeper;		/* /dev/ketw attached to KFZ_KEEPER */
	char max_buffer[32];	/* max_buffer_kb before the fuzz */
	int second_ok;			/* KFS2 can be mounted */
	int meta;			/* scribble on meta pages */
	int traced;			/* ketw's ftrace events are on */
	uint64_t seed;
	unsigned int seconds;
	long ncpu;
	struct worker w[NWORKERS];
} F;

/* ---- PRNG (splitmix64), one per thread ---- */

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int rn(struct worker *w, unsigned int n)
{
	return n ? rnd(&w->rng) % n : 0;
}

static int chance(struct worker *w, unsigned int pct)
{
	return rn(w, 100) < pct;
}

#define PICK(w, arr)	((arr)[rn(w, sizeof(arr) / sizeof((arr)[0]))])

/* ---- bookkeeping ---- */

static void fuzz_fail(struct worker *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	atomic_store(&F.failed, 1);
	if (w)
		w->fails++;
	if (atomic_fetch_add(&F.nfails, 1) < KFZ_MAX_FAILS)
		fprintf(stderr, "# FAIL %s%u: %s\n",
			w ? role_names[w->role] : "main", w ? w->idx : 0, msg);
}

static void op_begin(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->op, sizeof(w->op), fmt, ap);
	va_end(ap);
	atomic_store(&w->op_since, mono_ns());
}

static void op_end(struct worker *w)
{
	atomic_store(&w->op_since, 0);
	w->ops++;
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* Interrupt this thread's next blocking call after @ms (0: disarm). */
static void arm(struct worker *w, unsigned int ms)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000l;
	timer_settime(w->timer, 0, &its, NULL);
}

static const char *root(struct worker *w)
{
	return atomic_load(&F.second_mounted) && chance(w, 25) ? KFS2 : KFS;
}

/* Is @fd on ketwfs? (A path into KFS2 may meet the bare mount point.) */
static int on_ketwfs(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == KETWFS_MAGIC;
}

/* ---- what to write ---- */

struct spec {
	const char *name;
	const char *const *good;
	const char *const *bad;		/* never accepted */
};

static const char *const good_enable[] = { "0", "1", "1\n", " 0 ", "\t1", NULL };
static const char *const bad_enable[] = {
	"2", "-1", "01x", "1 1", "on", "1\n0", "0x1", " ", "10", NULL,
};
static const char *const good_bsk[] = {
	"4", "8", "16", "64", "100", "1024", "4096", "+16", "0016", NULL,
};
static const char *const bad_bsk[] = {
	"0", "3", "-4", "262145", "4294967296", "99999999999999999999999",
	"0x400", "1k", "4 4", " ", "-0", NULL,
};
static const char *const good_policy[] = {
	"loop", "until-full", "until_full", "flush", "flush\n", NULL,
};
static const char *const bad_policy[] = {
	"LOOP", "loopy", "until", "until full", " ", "1", "flush flush", NULL,
};
static const char *const good_clock[] = { "mono", "boot", "local", NULL };
static const char *const bad_clock[] = {
	"MONO", "monotonic", "realtime", "3", " ", "mono\nboot", NULL,
};
static const char *const good_rundown[] = { "0", "1", NULL };
static const char *const bad_rundown[] = { "2", "yes", "-0", "00", " ", NULL };
static const char *const good_mds[] = {
	"0", "1", "100", "4096", "8000", "65464", NULL,
};
static const char *const bad_mds[] = {
	"-1", "65465", "70000", "4294967296", "x", " ", "12 12", NULL,
};
static const char *const good_providers[] = {
	"ketw-sample", "ketw-sample 5", "ketw-sample 5 0x3",
	"ketw-sample level=4 match_any=0x1 match_all=0x0",
	"6b657477-7361-6d70-6c65-000000000001 3 ff 1", "!ketw-sample",
	"no-such-prov 2", "ketw-sample keywords=0x2", "kfz-up0 1",
	"!6b657477-7361-6d70-6c65-000000000001", "* level=0", NULL,
};
static const char *const bad_providers[] = {
	"ketw-sample 6", "ketw-sample level=9", "ketw-sample 1 2 3 4",
	"ketw-sample level=", "ketw-sample =5", "ketw-sample foo=1", "!",
	"!ketw-sample 1", "00000000-0000-0000-0000-000000000000",
	"ketw-sample 0x5", "ketw-sample 1 0xg", "ketw-sample 1 -1",
	"ketw-sample 99999999999", "ketw-sample 1 fffffffffffffffff",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", " ", NULL,
};
static const char *const good_event_set[] = {
	"ketw-sample: 1", "ketw-sample: 1 3-5 7", "1,2,3", "ketw-sample:",
	"6b657477-7361-6d70-6c65-000000000001: 2", "0-1023", "1023", NULL,
};
static const char *const bad_event_set[] = {
	"ketw-sample: 1024", "ketw-sample: 5-3", "ketw-sample: x",
	"ketw-sample: -1", "ketw-sample: 1-", ": 1", "a:b:c",
	"ketw-sample: 1 2 99999999999", "1-2-3", NULL,
};

/* items and bridge_items: the same words. */
static const char *const good_items[] = {
	"none", "stack", "stack,cputime", "pidns,progaddr", "activity\n",
	"stack,ustack,cputime,progaddr,pidns,activity", "ustack,stack", NULL,
};
static const char *const bad_items[] = {
	"stak", "STACK", "stack,", ",stack", "stack,,pidns", "stack pidns",
	"stack, pidns", "none,stack", "all", "0x2", "2", " ",
	"stackstackstackstack", "items=stack", NULL,
};

static const char *const good_trigger[] = {
	"ketw-sample:1", "ketw-sample:2:3 code=5 action=stop post=10",
	"ketw-sample:1 index=2 action=wake interval=1", "!1", "!",
	"6b657477-7361-6d70-6c65-000000000001:1 action=snapshot post=5",
	NULL,
};
static const char *const bad_trigger[] = {
	"ketw-sample", "ketw-sample:x", "ketw-sample:1 action=boom",
	"ketw-sample:1 post=60001", "ketw-sample:1:9", ":1",
	"ketw-sample:1 a=1 b=2", "!x", "!0", "! 1", "ketw-sample:1 =1",
	"ketw-sample:2 text=1", "ketw-sample:1 action=wake post=1", NULL,
};

/* Pid 1 (the guest's init) is there; 4194303 (PID_MAX_LIMIT - 1) is not. */
static const char *const good_pids[] = {
	"1", "1 inherit", "inherit 1", "1,1", "none", "none\n", "\t1 ",
	"1 inherit inherit", NULL,
};
static const char *const bad_pids[] = {
	"0", "-1", "x", "inherit", "none 1", "1 none", "4194303",
	"2147483648", "1-2", "1 2x", "+", "1 inheritx", NULL,
};

static const struct spec specs[] = {
	{ "enable", good_enable, bad_enable },
	{ "buffer_size_kb", good_bsk, bad_bsk },
	{ "policy", good_policy, bad_policy },
	{ "clock", good_clock, bad_clock },
	{ "rundown", good_rundown, bad_rundown },
	{ "max_data_size", good_mds, bad_mds },
	{ "providers", good_providers, bad_providers },
	{ "event_set", good_event_set, bad_event_set },
	{ "trigger", good_trigger, bad_trigger },
	{ "items", good_items, bad_items },
	{ "bridge_items", good_items, bad_items },
	{ "pids", good_pids, bad_pids },
};

static const char *const nums[] = {
	"0", "1", "-1", "2", "3", "4", "5", "6", "7", "8", "16", "31", "32",
	"64", "100", "255", "256", "1023", "1024", "4096", "4097", "8192",
	"65464", "65465", "65535", "65536", "262144", "262145", "2147483647",
	"2147483648", "4294967295", "4294967296", "9223372036854775807",
	"9223372036854775808", "18446744073709551615",
	"18446744073709551616", "99999999999999999999999999", "-0", "+1",
	"+0", "0x10", "0x", "0X1f", "1e3", "007", "0b1", " 42", "42 ", "4 2",
	"-9223372036854775808", "++1", "1-", "--1",
};

static const char *const words[] = {
	"ketw-sample", "6b657477-7361-6d70-6c65-000000000001",
	"6b657477-7361-6d70-6c65-0000000000aa", "level=", "match_any=",
	"match_all=", "keywords=", "!", ":", "-", ",", "=", "0x", "ffffffff",
	"5", "1023", "1024", "kfz-up0", "*", "\t", " ", "no-such",
	"items=", "stack", "pidns", "none",
};

static const struct spec *spec_of(const char *base)
{
	unsigned int i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (!strcmp(specs[i].name, base))
			return &specs[i];
	return NULL;
}

static const char *pick_list(struct worker *w, const char *const *l)
{
	unsigned int n = 0;

	while (l[n])
		n++;
	return l[rn(w, n)];
}

static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (at + n > cap)
		n = cap - at;
	memcpy(buf + at, s, n);
	return at + n;
}

/*
 * A buffer size the guest can afford: decimal values between 8 MiB and
 * the maximum would take up to 512 MiB of a 1 GiB guest.
 */
static size_t tame_buffer_size(char *buf, size_t len)
{
	char tmp[64], *end;
	unsigned long long v;

	if (len >= sizeof(tmp) || memchr(buf, 0, len))
		return len;
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	errno = 0;
	v = strtoull(tmp, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (errno || *end || end == tmp || v <= 8192 || v > 262144 ||
	    strchr(tmp, '-'))
		return len;
	memcpy(buf, "8192", 4);
	return 4;
}

/*
 * A string for file @base into @buf (up to @cap); *must_fail is set if
 * no write of it may ever succeed.
 */
static size_t gen(struct worker *w, const char *base, char *buf, size_t cap,
		  int *must_fail)
{
	const struct spec *sp = spec_of(base);
	size_t n = 0, len, i;
	const char *s;

	*must_fail = 0;
	switch (rn(w, 14)) {
	case 0:
	case 1:
	case 2:
		n = put_str(buf, 0, cap, sp ? pick_list(w, sp->good) :
					      PICK(w, nums));
		break;
	case 3:
	case 4:
		if (!sp)
			goto number;
		n = put_str(buf, 0, cap, pick_list(w, sp->bad));
		*must_fail = 1;
		break;
	case 5:
number:
		if (chance(w, 70)) {
			n = put_str(buf, 0, cap, PICK(w, nums));
		} else {
			len = 1 + rn(w, 25);
			if (chance(w, 20))
				buf[n++] = '-';
			for (i = 0; i < len; i++)
				buf[n++] = '0' + rn(w, 10);
		}
		break;
	case 6:
		len = 1 + rn(w, 64);
		for (i = 0; i < len; i++)
			buf[n++] = 32 + rn(w, 95);
		break;
	case 7:
		len = 1 + rn(w, 64);
		for (i = 0; i < len; i++)
			buf[n++] = rn(w, 256);
		break;
	case 8:
		/* Long: past a name, a line, a page, the write limit. */
		len = PICK(w, ((const size_t[]){ 31, 32, 33, 36, 37, 4095,
						 4096, 8191, 8192, 8193,
						 10000 }));
		len = len < cap ? len : cap;
		s = chance(w, 50) ? "a" : PICK(w, words);
		while (n < len)
			n = put_str(buf, n, len, s);
		if (n > KFZ_WRITE_MAX)
			*must_fail = 1;
		break;
	case 9:
		/* A good value, a NUL, then more: never one command. */
		n = put_str(buf, 0, cap, sp ? pick_list(w, sp->good) : "1");
		buf[n++] = 0;
		buf[n++] = 'x' + rn(w, 3);
		*must_fail = !!sp;
		break;
	case 10:
		/* Two lines. */
		s = sp ? pick_list(w, sp->good) : "1";
		n = put_str(buf, 0, cap, s);
		while (n && buf[n - 1] == '\n')
			n--;
		n = put_str(buf, n, cap, "\n");
		n = put_str(buf, n, cap, sp ? pick_list(w, sp->good) : "1");
		*must_fail = 1;
		break;
	case 11:
		n = put_str(buf, 0, cap, PICK(w, ((const char *const[]){
			" ", "\n", "\t \n", "\r", "\n\n", "\v" })));
		break;
	case 12:
		/* Token soup, for providers and event_set. */
		len = 1 + rn(w, 8);
		for (i = 0; i < len; i++) {
			n = put_str(buf, n, cap, PICK(w, words));
			if (chance(w, 40))
				n = put_str(buf, n, cap, PICK(w, nums));
			if (chance(w, 50))
				n = put_str(buf, n, cap, " ");
		}
		break;
	default:
		/* A C string written with its NUL, or two. */
		n = put_str(buf, 0, cap, sp ? pick_list(w, sp->good) :
					      PICK(w, nums));
		buf[n++] = 0;
		if (chance(w, 50))
			buf[n++] = 0;
		break;
	}
	if (!strcmp(base, "buffer_size_kb") && !*must_fail)
		n = tame_buffer_size(buf, n);
	return n;
}

/* The text of a small file, NUL-terminated and without its newline. */
static ssize_t read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n;
}

/* ---- the tree ---- */

static void walk(const char *dir, int depth, char ***files, unsigned int *n)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	if (depth > 6 || *n >= KFZ_MAX_FILES)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && *n < KFZ_MAX_FILES) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* The keeper's files are not the fuzzer's to touch. */
		if (!strcmp(de->d_name, KFZ_KEEPER))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			walk(path, depth + 1, files, n);
		} else {
			*files = realloc(*files, (*n + 1) * sizeof(**files));
			if (!*files)
				abort();
			(*files)[(*n)++] = strdup(path);
		}
	}
	closedir(d);
}

static void files_free(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nfiles; i++)
		free(w->files[i]);
	free(w->files);
	w->files = NULL;
	w->nfiles = 0;
}

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A path to try: from the last walk, or a session's file by name. */
static void pick_path(struct worker *w, char *path, size_t len)
{
	if (w->nfiles && chance(w, 50)) {
		snprintf(path, len, "%s", w->files[rn(w, w->nfiles)]);
		return;
	}
	switch (rn(w, 10)) {
	case 0:
		snprintf(path, len, "%s/%s", root(w),
			 PICK(w, ((const char *const[]){ "header_format",
				"bridge_items" })));
		break;
	case 1:
		snprintf(path, len, "%s/providers/ketw-sample/%s", root(w),
			 PICK(w, ((const char *const[]){ "guid", "events/tick/id",
				"events/warn/format", "events/tick", "nope" })));
		break;
	default:
		snprintf(path, len, "%s/sessions/%s/%s", root(w),
			 PICK(w, pool), PICK(w, sfiles));
		break;
	}
}

/* ---- checks of what reads return ---- */

static int is_uint(const char *s, unsigned long long lo, unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	return !errno && end != s && !strcmp(end, "\n") && v >= lo && v <= hi;
}

static int one_of(const char *s, const char *const *l)
{
	char tmp[32];

	for (; *l; l++) {
		snprintf(tmp, sizeof(tmp), "%s\n", *l);
		if (!strcmp(s, tmp))
			return 1;
	}
	return 0;
}

/* "none", or item words, each once, in the order of their types. */
static int items_ok(const char *s)
{
	static const char *const w[] = {
		"stack", "ustack", "cputime", "progaddr", "pidns", "activity",
	};
	unsigned int i, next = 0;
	size_t n;

	if (!strcmp(s, "none\n"))
		return 1;
	for (;;) {
		for (i = next; i < sizeof(w) / sizeof(w[0]); i++) {
			n = strlen(w[i]);
			if (!strncmp(s, w[i], n) && (s[n] == ',' || s[n] == '\n'))
				break;
		}
		if (i == sizeof(w) / sizeof(w[0]))
			return 0;
		s += strlen(w[i]);
		if (!strcmp(s, "\n"))
			return 1;
		s++;
		next = i + 1;
	}
}

/*
 * pids: one line, "none", or pids between single blanks then maybe
 * "inherit" (a filter whose processes all ended: empty, or "inherit").
 */
static int pids_ok(const char *s)
{
	if (!strcmp(s, "none\n"))
		return 1;
	while (*s >= '1' && *s <= '9') {
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s != ' ')
			return !strcmp(s, "\n");
		s++;
	}
	return !strcmp(s, "\n") || !strcmp(s, "inherit\n");
}

/* What a whole control file must read. */
static int ctl_content_ok(const char *base, const char *s)
{
	static const char *const policies[] = { "loop", "until-full", "flush", NULL };
	static const char *const clocks[] = { "mono", "boot", "local", NULL };
	static const char *const bools[] = { "0", "1", NULL };

	if (!strcmp(base, "enable") || !strcmp(base, "rundown"))
		return one_of(s, bools);
	if (!strcmp(base, "policy"))
		return one_of(s, policies);
	if (!strcmp(base, "clock"))
		return one_of(s, clocks);
	if (!strcmp(base, "buffer_size_kb"))
		return is_uint(s, 4, 262144);
	if (!strcmp(base, "max_data_size"))
		return is_uint(s, 1, 65464);
	if (!strcmp(base, "items") || !strcmp(base, "bridge_items"))
		return items_ok(s);
	if (!strcmp(base, "pids"))
		return pids_ok(s);
	return 1;
}

/* ---- ctl: hostile writes to every file ---- */

static int ctl_open(struct worker *w, const char *path)
{
	static const int modes[] = {
		O_WRONLY, O_RDWR, O_WRONLY | O_TRUNC, O_WRONLY | O_APPEND,
		O_RDONLY, O_RDWR | O_NONBLOCK, O_WRONLY | O_CREAT,
	};
	int fd, flags = PICK(w, modes);

	op_begin(w, "open %s flags %#x", path, flags);
	arm(w, 500);
	fd = open(path, flags | O_CLOEXEC, 0600);
	arm(w, 0);
	op_end(w);
	return fd;
}

/* One hostile write to @fd, a file named @base. */
static void ctl_write(struct worker *w, int fd, const char *path)
{
	const char *base = basename_of(path);
	char *buf = w->buf, *p;
	int must_fail, how = rn(w, 10);
	size_t n, cut;
	ssize_t r = 0, r2;
	struct iovec iov[3];

	n = gen(w, base, buf, KFZ_BUF / 2, &must_fail);
	op_begin(w, "write %zu bytes (how %d) to %s", n, how, path);
	arm(w, 1000);
	switch (how) {
	case 0:
		/* Split in two writes: each one is a command of its own. */
		cut = n ? rn(w, n) : 0;
		r = write(fd, buf, cut);
		r2 = write(fd, buf + cut, n - cut);
		if (r >= 0 && r2 >= 0 && ((size_t)r != cut ||
					  (size_t)r2 != n - cut))
			fuzz_fail(w, "split write to %s returned %zd+%zd of %zu+%zu",
				  path, r, r2, cut, n - cut);
		must_fail = 0;
		r = -1;
		break;
	case 1:
		r = pwrite(fd, buf, n, PICK(w, ((const off_t[]){ 1, 3, 4095,
					4096, 1ll << 40, 7 })));
		break;
	case 2:
		cut = n ? rn(w, n) : 0;
		iov[0].iov_base = buf;
		iov[0].iov_len = cut;
		iov[1].iov_base = buf + cut;
		iov[1].iov_len = n - cut;
		iov[2].iov_base = buf;
		iov[2].iov_len = 0;
		/* One command per segment, as for the split write. */
		r = writev(fd, iov, 3);
		must_fail = 0;
		break;
	case 3:
		/* A bad pointer, or a buffer that runs into nothing. */
		if (chance(w, 50)) {
			r = syscall(SYS_write, fd, (void *)16, n ? n : 1);
		} else {
			/*
			 * A PROT_NONE guard, not a hole another thread's
			 * mmap() could fill before the write reads it.
			 */
			p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				break;
			mprotect(p + 4096, 4096, PROT_NONE);
			cut = n < 4096 ? n : 4096;
			memcpy(p + 4096 - cut, buf, cut);
			r = write(fd, p + 4096 - cut, cut + 1 + rn(w, 64));
			munmap(p, 8192);
		}
		must_fail = 1;
		break;
	case 4:
		r = write(fd, buf, 0);
		if (r > 0)
			fuzz_fail(w, "write of 0 bytes to %s returned %zd", path, r);
		must_fail = 0;
		break;
	case 5:
		/* Past the limit, from a readable buffer. */
		r = write(fd, buf, KFZ_WRITE_MAX + 1 + rn(w, KFZ_BUF / 2));
		must_fail = 1;
		break;
	default:
		r = write(fd, buf, n);
		break;
	}
	arm(w, 0);
	op_end(w);
	if (!on_ketwfs(fd))
		return;
	/* writev() may stop after a segment: each is a command of its own. */
	if (r >= 0 && (how == 1 || how > 5) && (size_t)r != n)
		fuzz_fail(w, "write (how %d) of %zu bytes to %s returned %zd",
			  how, n, path, r);
	if (r >= 0 && must_fail) {
		char shown[80];
		size_t i, m = n < 30 ? n : 30;

		for (i = 0; i < m; i++)
			snprintf(shown + 2 * i, 3, "%02x", (unsigned char)buf[i]);
		fuzz_fail(w, "write (how %d) of %zu bytes %s... to %s succeeded",
			  how, n, m ? shown : "", path);
	}
}

static void ctl_read(struct worker *w, int fd, const char *path)
{
	const char *base = basename_of(path);
	char *buf = w->buf;
	size_t got = 0, chunk = PICK(w, ((const size_t[]){ 1, 3, 16, 4096,
							   65536 }));
	ssize_t r;
	int i;

	op_begin(w, "read %s", path);
	arm(w, 300);
	if (chance(w, 30))
		lseek(fd, PICK(w, ((const off_t[]){ 0, 1, 5, 4096, 1ll << 40 })),
		      PICK(w, ((const int[]){ SEEK_SET, SEEK_CUR, SEEK_END })));
	if (chance(w, 20)) {
		r = pread(fd, buf, 4096, rn(w, 64));
		goto out;
	}
	for (i = 0; i < 64 && got + chunk < KFZ_BUF / 2; i++) {
		r = read(fd, buf + got, chunk);
		if (r <= 0)
			break;
		got += r;
	}
	buf[got] = 0;
	/* From offset 0 to the end: the whole file. */
	if (got && r == 0 && lseek(fd, 0, SEEK_CUR) == (off_t)got &&
	    on_ketwfs(fd) && !ctl_content_ok(base, buf))
		fuzz_fail(w, "%s reads \"%.40s\"", path, buf);
out:
	arm(w, 0);
	op_end(w);
}

static void ctl_fd_close(struct worker *w, unsigned int i)
{
	if (w->fds[i] >= 0) {
		op_begin(w, "close fd %d", w->fds[i]);
		close(w->fds[i]);
		op_end(w);
	}
	w->fds[i] = -1;
}

static char fdpaths[NWORKERS][KFZ_NFDS][192];

static void ctl_step(struct worker *w)
{
	char path[192];
	unsigned int i = rn(w, KFZ_NFDS);
	int fd;

	if (!w->nfiles || chance(w, 1)) {
		files_free(w);
		op_begin(w, "walk %s", KFS);
		walk(chance(w, 50) ? KFS : root(w), 0, &w->files, &w->nfiles);
		op_end(w);
	}
	/* A file kept open, maybe across rmdir and mkdir of its session. */
	if (w->fds[i] >= 0 && chance(w, 60)) {
		if (chance(w, 70))
			ctl_write(w, w->fds[i], fdpaths[w->idx][i]);
		else
			ctl_read(w, w->fds[i], fdpaths[w->idx][i]);
		if (chance(w, 10))
			ctl_fd_close(w, i);
		return;
	}
	pick_path(w, path, sizeof(path));
	fd = ctl_open(w, path);
	if (fd < 0)
		return;
	if (chance(w, 70))
		ctl_write(w, fd, path);
	else
		ctl_read(w, fd, path);
	if (chance(w, 20)) {
		ctl_fd_close(w, i);
		w->fds[i] = fd;
		snprintf(fdpaths[w->idx][i], sizeof(fdpaths[0][0]), "%s", path);
		return;
	}
	op_begin(w, "close %s", path);
	close(fd);
	op_end(w);
}

/* ---- dir: mkdir, rmdir, odd names, held directories, mounts ---- */

static void dir_step(struct worker *w)
{
	static const char *const bad_names[] = {
		"kfz_6_01234567890123456789012345", "a b", "x*", "\x01", "é",
		"kfz\t", "kfz:", NULL,
	};
	char path[256], path2[256];
	const char *name = PICK(w, pool);
	unsigned int i = rn(w, KFZ_NFDS);
	char dents[4096];
	int r, fd;

	switch (rn(w, 16)) {
	case 0:
	case 1:
	case 2:
		snprintf(path, sizeof(path), "%s/sessions/%s", root(w), name);
		op_begin(w, "mkdir %s", path);
		mkdir(path, 0700);
		op_end(w);
		break;
	case 3:
	case 4:
	case 5:
		snprintf(path, sizeof(path), "%s/sessions/%s", root(w), name);
		op_begin(w, "rmdir %s", path);
		rmdir(path);
		op_end(w);
		break;
	case 6:
		name = pick_list(w, bad_names);
		snprintf(path, sizeof(path), "%s/sessions/%s", KFS, name);
		op_begin(w, "mkdir %s", path);
		r = mkdir(path, 0700);
		op_end(w);
		if (!r) {
			fuzz_fail(w, "mkdir of the bad name \"%s\" succeeded", name);
			rmdir(path);
		}
		break;
	case 7:
		/* Nothing but sessions/ makes or takes directories. */
		snprintf(path, sizeof(path), "%s/%s", KFS,
			 PICK(w, ((const char *const[]){
				"x", "providers/x", "sessions/kfz0/x",
				"sessions/kfz0/per_cpu/cpu5",
				"providers/ketw-sample/events/x" })));
		op_begin(w, "mkdir %s", path);
		r = mkdir(path, 0700);
		op_end(w);
		if (!r)
			fuzz_fail(w, "mkdir %s succeeded", path);
		snprintf(path, sizeof(path), "%s/%s", root(w),
			 PICK(w, ((const char *const[]){
				"providers", "sessions", "sessions/kfz0/per_cpu",
				"providers/ketw-sample",
				"sessions/kfz1/per_cpu/cpu0" })));
		op_begin(w, "rmdir %s", path);
		r = rmdir(path);
		op_end(w);
		if (!r)
			fuzz_fail(w, "rmdir %s succeeded", path);
		break;
	case 8:
		/* rename, link, mknod, unlink, chmod: all refused. */
		snprintf(path, sizeof(path), "%s/sessions/%s", root(w), name);
		snprintf(path2, sizeof(path2), "%s/sessions/%s", root(w),
			 PICK(w, pool));
		op_begin(w, "rename %s %s", path, path2);
		r = rename(path, path2);
		op_end(w);
		if (!r && strcmp(path, path2))
			fuzz_fail(w, "rename %s %s succeeded", path, path2);
		snprintf(path2, sizeof(path2), "%s/sessions/%s/enable", root(w),
			 name);
		op_begin(w, "unlink %s", path2);
		r = unlink(path2);
		op_end(w);
		if (!r)
			fuzz_fail(w, "unlink %s succeeded", path2);
		snprintf(path2, sizeof(path2), "%s/sessions/%s/newfile", root(w),
			 name);
		op_begin(w, "creat %s", path2);
		fd = open(path2, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		op_end(w);
		if (fd >= 0) {
			fuzz_fail(w, "creat %s succeeded", path2);
			close(fd);
		}
		op_begin(w, "chmod %s", path);
		r = chmod(path, 0777);
		op_end(w);
		if (!r)
			fuzz_fail(w, "chmod %s succeeded", path);
		op_begin(w, "symlink %s", path2);
		r = symlink("/", path2);
		op_end(w);
		if (!r)
			fuzz_fail(w, "symlink %s succeeded", path2);
		break;
	case 9:
	case 10:
		/* Hold a directory of a session; use it after it is gone. */
		if (w->fds[i] < 0 || chance(w, 30)) {
			if (w->fds[i] >= 0)
				close(w->fds[i]);
			snprintf(path, sizeof(path), "%s/sessions/%s%s", root(w),
				 name, chance(w, 30) ? "/per_cpu" : "");
			op_begin(w, "open dir %s", path);
			w->fds[i] = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			op_end(w);
			break;
		}
		op_begin(w, "openat held dir %d", i);
		arm(w, 500);
		fd = openat(w->fds[i], PICK(w, ((const char *const[]){
				"enable", "status", "cpu0/stats", "trace",
				"providers", "per_cpu/cpu1/stats", "..",
				"../kfz0/enable" })),
			    O_RDWR | O_CLOEXEC);
		arm(w, 0);
		op_end(w);
		if (fd >= 0) {
			op_begin(w, "write held dir %d", i);
			arm(w, 500);
			if (write(fd, "1", 1) < 0 && chance(w, 50))
				r = read(fd, dents, sizeof(dents));
			arm(w, 0);
			close(fd);
			op_end(w);
		}
		break;
	case 11:
		/* Directory offsets from far away. */
		snprintf(path, sizeof(path), "%s/%s", root(w),
			 PICK(w, ((const char *const[]){ "sessions", "",
				"providers", "sessions/kfz0",
				"sessions/kfz0/per_cpu",
				"providers/ketw-sample/events" })));
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		op_begin(w, "getdents %s", path);
		lseek(fd, PICK(w, ((const off_t[]){ 0, 1, 2, 3, 5, 64,
					(1ll << 32) + 2, (1ll << 32) + 3,
					(1ll << 62) })), SEEK_SET);
		for (r = 0; r < 4; r++)
			if (syscall(SYS_getdents64, fd, dents, sizeof(dents)) <= 0)
				break;
		close(fd);
		op_end(w);
		break;
	case 12:
		/* A second mount of the one instance, gone lazily or not. */
		if (!F.mounted_here || !F.second_ok)
			break;
		if (!atomic_load(&F.second_mounted)) {
			op_begin(w, "mount %s", KFS2);
			if (!mount("none", KFS2, "ketwfs", 0, NULL))
				atomic_store(&F.second_mounted, 1);
			op_end(w);
		} else if (chance(w, 30)) {
			op_begin(w, "umount %s", KFS2);
			atomic_store(&F.second_mounted, 0);
			if (umount2(KFS2, chance(w, 50) ? MNT_DETACH : 0))
				atomic_store(&F.second_mounted, 1);
			op_end(w);
		}
		break;
	default:
		snprintf(path, sizeof(path), "%s/sessions", root(w));
		op_begin(w, "list %s", path);
		{
			char **files = NULL;
			unsigned int n = 0, k;

			walk(path, 0, &files, &n);
			for (k = 0; k < n; k++)
				free(files[k]);
			free(files);
		}
		op_end(w);
		break;
	}
}

/* ---- read: trace, trace_pipe, trace_pipe_raw ---- */

static void rf_close(struct worker *w, struct rfile *f)
{
	if (f->fd < 0)
		return;
	op_begin(w, "close %s", f->path);
	close(f->fd);
	op_end(w);
	f->fd = -1;
}

static void rf_open(struct worker *w, struct rfile *f)
{
	int flags;

	f->kind = rn(w, 3);
	f->nonblock = chance(w, 50);
	f->line_len = 0;
	if (f->kind == 2)
		snprintf(f->path, sizeof(f->path),
			 "%s/sessions/%s/per_cpu/cpu%u/trace_pipe_raw", root(w),
			 PICK(w, pool), rn(w, F.ncpu + 1));
	else
		snprintf(f->path, sizeof(f->path), "%s/sessions/%s/%s",
			 root(w), PICK(w, pool), f->kind ? "trace_pipe" : "trace");
	flags = (f->kind == 2 && chance(w, 60) ? O_RDWR : O_RDONLY) |
		(f->nonblock ? O_NONBLOCK : 0) | O_CLOEXEC;
	op_begin(w, "open %s", f->path);
	arm(w, 1000);
	f->fd = open(f->path, flags);
	arm(w, 0);
	op_end(w);
}

/* Whole records only, each at least a header. */
static void check_raw(struct worker *w, struct rfile *f, const char *buf,
		      size_t n)
{
	const struct ketw_event_header *h;
	size_t off = 0;

	while (off < n) {
		h = (const void *)(buf + off);
		/*
		 * Scribbled meta pages make the kernel return garbage, but
		 * never a record cut short.
		 */
		if (n - off < KETW_RECORD_ALIGN ||
		    KETW_RECORD_SPAN(h->size) < KETW_RECORD_ALIGN ||
		    KETW_RECORD_SPAN(h->size) > n - off ||
		    (!F.meta && h->size < KETW_EVENT_HEADER_SIZE)) {
			fuzz_fail(w, "%s: a read of %zu bytes has no whole record at %zu",
				  f->path, n, off);
			return;
		}
		off += KETW_RECORD_SPAN(h->size);
	}
}

/* Every line of trace_pipe starts with "cpu=". */
static void check_text(struct worker *w, struct rfile *f, const char *buf,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (f->line_len < 4)
			f->line[f->line_len++] = buf[i];
		if (f->line_len == 4 && memcmp(f->line, "cpu=", 4)) {
			fuzz_fail(w, "%s: a line starts with \"%.4s\"", f->path,
				  f->line);
			f->line_len = 5;	/* once */
		}
		if (buf[i] == '\n')
			f->line_len = 0;
	}
}

static void rmap_drop(struct worker *w, struct rmap *m)
{
	op_begin(w, "munmap");
	if (m->data)
		munmap(m->data, m->size);
	if (m->meta)
		munmap(m->meta, 4096);
	op_end(w);
	memset(m, 0, sizeof(*m));
}

/*
 * Move consumed to the payload of a record that has one, then unmap the
 * data area so that readers may read from there.
 */
static void into_payload(struct worker *w, struct rmap *m, const char *raw)
{
	struct ketw_meta_page *meta = m->meta;
	const struct ketw_event_header *h;
	uint32_t c = meta->consumed, p = meta->commit, span, pick = 0;
	unsigned int n = 0, nsmall = 0, i;
	uint32_t cand[64], small[64];
	char path[192], *cut;
	int fd;

	for (i = 0; i < 4096 && c != p && p - c <= m->size; i++) {
		h = (const void *)((char *)m->data + (c & (m->size - 1)));
		span = KETW_RECORD_SPAN(h->size);
		if (span < KETW_RECORD_ALIGN || span > p - c)
			break;
		/*
		 * A payload of at least 8 bytes; one whose first bytes read
		 * as a size below a header's whose span is a header's
		 * (ketw_sample's warn event 57..63, a user provider's fake)
		 * is the better bet: the ring checks spans.
		 */
		if (h->size >= KETW_EVENT_HEADER_SIZE + 8 && n < 64) {
			const uint16_t *sz = (const void *)(h + 1);

			cand[n++] = c + KETW_EVENT_HEADER_SIZE;
			if (*sz < KETW_EVENT_HEADER_SIZE &&
			    KETW_RECORD_SPAN(*sz) == KETW_EVENT_HEADER_SIZE &&
			    nsmall < 64)
				small[nsmall++] = c + KETW_EVENT_HEADER_SIZE;
		}
		c += span;
	}
	if (nsmall && chance(w, 80)) {
		pick = small[rn(w, nsmall)];
		atomic_fetch_add(&F.payload_small, 1);
	}
	else if (n)
		pick = cand[rn(w, n)];
	op_begin(w, "munmap data");
	munmap(m->data, m->size);
	op_end(w);
	m->data = NULL;
	if (!n)
		return;
	meta->consumed = pick;
	atomic_fetch_add(&F.payload_scribbles, 1);
	/* Read the session's text from there, before anyone moves on. */
	snprintf(path, sizeof(path), "%s", raw);
	cut = strstr(path, "/per_cpu/");
	if (!cut)
		return;
	for (i = 0; i < 2; i++) {
		snprintf(cut, sizeof(path) - (cut - path), "/%s",
			 i ? "trace_pipe" : "trace");
		op_begin(w, "open %s after a payload scribble", path);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		op_end(w);
		if (fd < 0)
			continue;
		op_begin(w, "read %s after a payload scribble", path);
		arm(w, 300);
		while (read(fd, w->buf, 65536) > 0)
			;
		arm(w, 0);
		close(fd);
		op_end(w);
	}
}

/* Map a trace_pipe_raw's meta page and data; scribble on the meta page. */
static void rf_map(struct worker *w, struct rfile *f)
{
	struct rmap *m = &w->maps[rn(w, KFZ_NMAPS)];
	struct ketw_meta_page *meta;
	uint32_t size;
	ssize_t r;

	if (m->meta)
		rmap_drop(w, m);
	op_begin(w, "mmap %s", f->path);
	m->meta = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	op_end(w);
	if (m->meta == MAP_FAILED) {
		m->meta = NULL;
		return;
	}
	meta = m->meta;
	size = meta->data_size;
	if (size >= 4096 && size <= (16u << 20) && !(size & (size - 1))) {
		op_begin(w, "mmap data %s", f->path);
		m->data = mmap(NULL, size, PROT_READ, MAP_SHARED, f->fd,
			       chance(w, 50) ? 4096 : (off_t)meta->data_offset);
		op_end(w);
		if (m->data == MAP_FAILED) {
			m->data = NULL;
		} else {
			m->size = size;
			/* One consumer: read() stays out. */
			op_begin(w, "read mapped %s", f->path);
			r = read(f->fd, w->buf, 65536);
			op_end(w);
			if (r >= 0 || errno != EBUSY)
				fuzz_fail(w, "read of %s with its data mapped: %zd (%s)",
					  f->path, r, strerror(errno));
		}
	}
	if (!F.meta)
		return;
	switch (rn(w, 5)) {
	case 4:
		/* Into a payload, where a user provider may fake a header. */
		if (m->data && meta->policy != KETW_POLICY_LOOP) {
			into_payload(w, m, f->path);
			break;
		}
		/* fall through */
	case 0:
		meta->consumed = (uint32_t)rnd(&w->rng);
		break;
	case 1:
		meta->consumed = meta->commit + PICK(w, ((const uint32_t[]){
				8, 60, 4096, 0x80000000u, 0xfffffff8u }));
		break;
	case 2:
		meta->consumed = meta->commit;
		break;
	default:
		meta->consumed += 8 * (1 + rn(w, 16));
		break;
	}
}

static void rf_use(struct worker *w, struct rfile *f)
{
	size_t len = PICK(w, ((const size_t[]){ 1, 7, 63, 64, 200, 4096, 65536,
						KFZ_BUF }));
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	ssize_t r;

	switch (rn(w, 8)) {
	case 0:
		op_begin(w, "poll %s", f->path);
		poll(&pfd, 1, rn(w, 100));
		op_end(w);
		return;
	case 1:
		if (f->kind == 0) {
			op_begin(w, "lseek %s", f->path);
			lseek(f->fd, PICK(w, ((const off_t[]){ 0, 1, 100, 4096,
						1ll << 20, 1ll << 40 })),
			      PICK(w, ((const int[]){ SEEK_SET, SEEK_CUR,
						      SEEK_END })));
			op_end(w);
			return;
		}
		if (f->kind == 2) {
			rf_map(w, f);
			return;
		}
		break;
	case 2:
		/* Close while mapped: the mapping holds the session. */
		if (f->kind == 2 && chance(w, 50))
			rf_map(w, f);
		rf_close(w, f);
		return;
	default:
		break;
	}
	op_begin(w, "read %zu bytes of %s%s", len, f->path,
		 f->nonblock ? " (nonblocking)" : "");
	arm(w, 20 + rn(w, 300));
	r = read(f->fd, w->buf, len);
	arm(w, 0);
	op_end(w);
	if (r < 0 || f->kind == 0)
		return;
	if ((size_t)r > len)
		fuzz_fail(w, "read of %zu bytes of %s returned %zd", len,
			  f->path, r);
	else if (f->kind == 2)
		check_raw(w, f, w->buf, r);
	else
		check_text(w, f, w->buf, r);
}

static void read_step(struct worker *w)
{
	struct rfile *f = &w->rf[rn(w, KFZ_NFDS)];

	if (f->fd < 0) {
		rf_open(w, f);
		return;
	}
	rf_use(w, f);
	if (f->fd >= 0 && chance(w, 5))
		rf_close(w, f);
	if (chance(w, 2))
		rmap_drop(w, &w->maps[rn(w, KFZ_NMAPS)]);
}

/* ---- ioctl: the same names through /dev/ketw ---- */

static void user_provider(struct worker *w)
{
	static const char *const names[] = {
		"kfz-up0", "kfz-up1", "a/b", ".", "..", "kfz\nup", "tick",
	};
	struct ketw_user_provider up;
	struct ketw_user_event ev;
	struct ketw_event_header fake;
	unsigned char data[256];
	unsigned int i;

	if (w->userfd >= 0 && chance(w, 20)) {
		op_begin(w, "close user provider");
		close(w->userfd);
		op_end(w);
		w->userfd = -1;
		return;
	}
	if (w->userfd < 0) {
		w->userfd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
		if (w->userfd < 0)
			return;
		memset(&up, 0, sizeof(up));
		up.size = sizeof(up);
		up.guid[0] = 0x6b;
		up.guid[15] = 0xf0 + rn(w, 4);
		snprintf(up.name, sizeof(up.name), "%s", PICK(w, names));
		op_begin(w, "user register %s", up.name);
		ioctl(w->userfd, KETW_IOC_USER_REGISTER, &up);
		op_end(w);
		return;
	}
	/* Payloads that look like record headers, for scribbled readers. */
	memset(&fake, 0, sizeof(fake));
	fake.size = PICK(w, ((const uint16_t[]){ 8, 56, 57, 60, 63, 60, 64,
						 65, 4096, 65535 }));
	fake.flags = PICK(w, ((const uint16_t[]){ 0, 0, 1, 4, 0xffff }));
	fake.event_id = rnd(&w->rng);
	for (i = 0; i < sizeof(data); i += sizeof(fake))
		memcpy(data + i, &fake, sizeof(fake));
	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	ev.id = rn(w, 2000);
	ev.level = rn(w, 6);
	ev.data = (uintptr_t)data;
	ev.len = chance(w, 50) ? sizeof(fake) : rn(w, sizeof(data) + 1);
	op_begin(w, "user write");
	ioctl(w->userfd, KETW_IOC_USER_WRITE, &ev);
	op_end(w);
}

static void ioctl_step(struct worker *w)
{
	static const unsigned long refs[] = {
		KETW_IOC_START, KETW_IOC_STOP, KETW_IOC_DESTROY,
		KETW_IOC_ATTACH, KETW_IOC_RUNDOWN,
	};
	static const uint32_t sizes[] = { 0, 4, 8, 16, 64, 256, 1024, 4096 };
	struct ketw_session_attr a;
	struct ketw_session_status st;
	const char *name = PICK(w, pool);
	int *fd = &w->devfd[rn(w, 2)];
	unsigned long cmd;
	int r;

	if (*fd < 0) {
		*fd = ketw_open();
		return;
	}
	switch (rn(w, 16)) {
	case 14:
	case 15:
		user_provider(w);
		break;
	case 0:
	case 1:
		ketw_attr_init(&a, name);
		a.flags = chance(w, 50) ? KETW_SESSION_NO_RUNDOWN : 0;
		a.buffer_kb = PICK(w, sizes);
		a.policy = rn(w, 4);
		a.clock = rn(w, 4);
		a.level = rn(w, 6);
		op_begin(w, "CREATE %s", name);
		ioctl(*fd, KETW_IOC_CREATE, &a);
		op_end(w);
		break;
	case 2:
		/* Attributes that are never right. */
		ketw_attr_init(&a, name);
		switch (rn(w, 4)) {
		case 0:
			a.buffer_kb = 262145;
			break;
		case 1:
			a.policy = 4;
			break;
		case 2:
			a.flags = 0x80;
			break;
		default:
			memcpy(a.name, "kfz 6", 6);
			break;
		}
		op_begin(w, "CREATE bad %s", name);
		r = ioctl(*fd, KETW_IOC_CREATE, &a);
		op_end(w);
		if (!r)
			fuzz_fail(w, "CREATE with bad attributes succeeded");
		break;
	case 3:
	case 4:
	case 5:
	case 6:
		cmd = PICK(w, refs);
		op_begin(w, "ioctl %#lx %s", cmd, name);
		ketw_ref(*fd, cmd, name);
		op_end(w);
		break;
	case 7:
		op_begin(w, "ENABLE %s", name);
		ketw_enable(*fd, name, chance(w, 80) ? KETW_SAMPLE_NAME : "kfz-up0",
			    NULL, rn(w, 6), rn(w, 4), 0, NULL, 0,
			    chance(w, 20) ? KETW_ENABLE_DISABLE : 0);
		op_end(w);
		break;
	case 8:
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		snprintf(st.name, sizeof(st.name), "%s", name);
		op_begin(w, "STATUS %s", name);
		ioctl(*fd, KETW_IOC_STATUS, &st);
		op_end(w);
		break;
	case 9:
	case 10:
		/* Whatever the file is attached to; blocking, interrupted. */
		fcntl(*fd, F_SETFL, chance(w, 50) ? O_NONBLOCK : 0);
		op_begin(w, "read /dev/ketw");
		arm(w, 20 + rn(w, 200));
		r = read(*fd, w->buf, PICK(w, ((const size_t[]){ 64, 4096,
							       KFZ_BUF })));
		arm(w, 0);
		op_end(w);
		break;
	case 11:
		op_begin(w, "FLUSH %s", name);
		arm(w, 50 + rn(w, 300));
		ketw_ref(*fd, KETW_IOC_FLUSH, name);
		arm(w, 0);
		op_end(w);
		break;
	case 12:
		user_provider(w);
		break;
	default:
		op_begin(w, "close /dev/ketw");
		close(*fd);
		op_end(w);
		*fd = -1;
		break;
	}
}

static void emit_step(struct worker *w)
{
	char n[16];

	snprintf(n, sizeof(n), "%u", 1 + rn(w, 80));
	op_begin(w, "emit %s", n);
	write_str(chance(w, 80) ? SAMPLE_PARAM("emit") : SAMPLE_PARAM("emit_warn"),
		  n);
	op_end(w);
	usleep(1000 + rn(w, 4000));
}

/* ---- threads ---- */

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sigevent sev;
	unsigned int i;

	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev.sigev_notify_thread_id = atomic_load(&w->tid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &w->timer)) {
		fuzz_fail(w, "timer_create: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&F.stop)) {
		switch (w->role) {
		case R_CTL:
			ctl_step(w);
			break;
		case R_DIR:
			dir_step(w);
			break;
		case R_READ:
			read_step(w);
			break;
		case R_IOCTL:
			ioctl_step(w);
			break;
		case R_EMIT:
			emit_step(w);
			break;
		}
	}
	arm(w, 0);
	for (i = 0; i < KFZ_NFDS; i++) {
		if (w->fds[i] >= 0)
			close(w->fds[i]);
		rf_close(w, &w->rf[i]);
	}
	for (i = 0; i < KFZ_NMAPS; i++)
		rmap_drop(w, &w->maps[i]);
	for (i = 0; i < 2; i++)
		if (w->devfd[i] >= 0)
			close(w->devfd[i]);
	if (w->userfd >= 0)
		close(w->userfd);
	files_free(w);
	timer_delete(w->timer);
	return NULL;
}

static void dump_stack_of(pid_t tid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "#   %s", line);
	fclose(f);
}

/*
 * Fail on a call that does not return, and on threads that do not stop:
 * print what they do and where in the kernel, then exit, since a thread
 * stuck in the kernel would keep the harness waiting.
 */
static void *watchdog_main(void *arg)
{
	uint64_t deadline = *(uint64_t *)arg, now, since, stuck_at = 0;
	unsigned int i;

	for (;;) {
		usleep(200000);
		now = mono_ns();
		for (i = 0; i < NWORKERS; i++) {
			struct worker *w = &F.w[i];

			/* A call may have begun since @now was read. */
			since = atomic_load(&w->op_since);
			if (!since || since > now || w->reported ||
			    now - since < KFZ_STUCK_S * 1000000000ull)
				continue;
			w->reported = 1;
			fuzz_fail(w, "stuck for %llu s in: %s",
				  (unsigned long long)(now - since) / 1000000000ull,
				  w->op);
			dump_stack_of(atomic_load(&w->tid));
			if (!stuck_at)
				stuck_at = now;
			atomic_store(&F.stop, 1);
		}
		if (atomic_load(&F.stop) == 2)
			return NULL;	/* every worker joined */
		if (!stuck_at && now > deadline) {
			fuzz_fail(NULL, "the workers did not stop in time");
			for (i = 0; i < NWORKERS; i++)
				if (atomic_load(&F.w[i].op_since))
					fprintf(stderr, "#   %s%u: %s\n",
						role_names[F.w[i].role], i,
						F.w[i].op);
			stuck_at = now;
		}
		if (stuck_at && now - stuck_at > 10 * 1000000000ull) {
			fprintf(stderr, "# giving up: seed=%llu\n",
				(unsigned long long)F.seed);
			fflush(stderr);
			_exit(1);
		}
	}
}

/* ---- the test ---- */

static int kfs_mounted(void)
{
	struct statfs sf;

	return !statfs(KFS, &sf) && sf.f_type == KETWFS_MAGIC;
}

static long module_refcnt(void)
{
	return read_ll("/sys/module/ketw/refcnt");
}

static unsigned long long env_ull(const char *name, unsigned long long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static int session_listed(const char *name)
{
	struct dirent *de;
	DIR *d = opendir(KFS "/sessions");
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		found |= !strcmp(de->d_name, name);
	closedir(d);
	return found;
}

static int put(const char *path, const char *val)
{
	return write_str(path, val);
}

FIXTURE(kfuzz) {
	long refcnt;
};

FIXTURE_SETUP(kfuzz)
{
	unsigned int i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	self->refcnt = module_refcnt();
	ASSERT_LT(0, self->refcnt) TH_LOG("ketw is not loaded");
	if (!kfs_mounted()) {
		ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL))
			TH_LOG("mount -t ketwfs: %s", strerror(errno));
		F.mounted_here = 1;
	}
	mkdir(KFS2_RO, 0700);
	F.second_ok = !mount("tmpfs", KFS2_RO, "tmpfs", 0, "size=64k") &&
		      !mkdir(KFS2, 0700) &&
		      !mount(NULL, KFS2_RO, NULL, MS_REMOUNT | MS_RDONLY, NULL);
	for (i = 0; i < NPOOL; i++) {
		ketw_cleanup(pool[i]);
		ASSERT_EQ(strlen(pool[i]) < KETW_NAME_MAX, 1);
	}
	ketw_cleanup(KFZ_CHECK);
}

FIXTURE_TEARDOWN(kfuzz)
{
	unsigned int i;

	for (i = 0; i < NPOOL; i++)
		ketw_cleanup(pool[i]);
	ketw_cleanup(KFZ_CHECK);
	if (F.max_buffer[0])
		write_str(KETW_MAX_BUFFER, F.max_buffer);
	if (F.traced)
		write_str(KFZ_TRACE_EVENTS, "0");
	if (kfs_mounted())
		write_str(KFS "/bridge_items", "none");
	if (F.keeper > 0) {
		ketw_ref(F.keeper, KETW_IOC_DESTROY, KFZ_KEEPER);
		close(F.keeper);
	}
	ketw_cleanup(KFZ_KEEPER);
	umount2(KFS2, MNT_DETACH);
	umount2(KFS2_RO, MNT_DETACH);
	rmdir(KFS2_RO);
	if (F.mounted_here)
		umount2(KFS, MNT_DETACH);
}

TEST_F_TIMEOUT(kfuzz, fuzz, 24 * 3600)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	char path[256], *text;
	uint64_t deadline;
	pthread_t wd;
	unsigned int i;
	size_t got = 0;
	ssize_t n = -1;
	int fd, ticks, starts, stops;

	F.seed = env_ull("KETW_FUZZ_SEED", KFZ_SEED_DEFAULT);
	F.seconds = env_ull("KETW_FUZZ_SECONDS", KFZ_SECONDS_DEFAULT);
	F.meta = env_ull("KETW_FUZZ_META", 1);
	F.ncpu = sysconf(_SC_NPROCESSORS_CONF);
	printf("# seed=%llu\n", (unsigned long long)F.seed);
	printf("# seconds=%u meta=%d workers=%zu\n", F.seconds, F.meta,
	       NWORKERS);
	fflush(stdout);

	/*
	 * A keeper session holds ketw-sample's static branch on (it takes
	 * level 1 only: the sample logs at 4). Without it, sessions that
	 * start and stop patch the emitter's call site while it runs through
	 * it millions of times a second: under TCG that wedged the guest in
	 * int3 at an already patched site (stress_test's keeper says more),
	 * once here in a full run, with RCU stalls on the emitter's CPU.
	 * Live patching itself is covered by policy_test and provider_test.
	 */
	/* The workers write every file, the cap on buffer memory too. */
	ASSERT_LT(0, read_str(KETW_MAX_BUFFER, F.max_buffer,
			      sizeof(F.max_buffer)));
	F.keeper = ketw_open();
	ASSERT_LE(0, F.keeper);
	{
		struct ketw_session_attr a;

		ketw_attr_init(&a, KFZ_KEEPER);
		a.buffer_kb = 8;
		ASSERT_EQ(0, ioctl(F.keeper, KETW_IOC_CREATE, &a));
		ASSERT_EQ(0, ketw_enable(F.keeper, KFZ_KEEPER, KETW_SAMPLE_NAME,
					 NULL, 1, 0, 0, NULL, 0, 0));
		ASSERT_EQ(0, ketw_ref(F.keeper, KETW_IOC_START, KFZ_KEEPER));
	}

	/* The bridge too, so that what bridge_items says is used. */
	F.traced = !write_str(KFZ_TRACE_EVENTS, "1");
	printf("# ftrace events ketw:*: %s\n", F.traced ? "on" : "not there");

	/* No SA_RESTART: the timers interrupt blocking calls. */
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	for (i = 0; i < NWORKERS; i++) {
		struct worker *w = &F.w[i];
		unsigned int k;

		w->idx = i;
		w->role = roles[i];
		w->rng = F.seed ^ (0x9e3779b97f4a7c15ull * (i + 1));
		w->buf = malloc(KFZ_BUF + 1);
		ASSERT_TRUE(w->buf != NULL);
		for (k = 0; k < KFZ_NFDS; k++) {
			w->fds[k] = -1;
			w->rf[k].fd = -1;
		}
		w->devfd[0] = w->devfd[1] = w->userfd = -1;
	}
	deadline = mono_ns() + (F.seconds + 60) * 1000000000ull;
	ASSERT_EQ(0, pthread_create(&wd, NULL, watchdog_main, &deadline));
	for (i = 0; i < NWORKERS; i++)
		ASSERT_EQ(0, pthread_create(&F.w[i].thr, NULL, worker_main,
					    &F.w[i]));
	for (i = 0; i < F.seconds * 10 && !atomic_load(&F.stop); i++)
		usleep(100000);
	atomic_store(&F.stop, 1);
	for (i = 0; i < NWORKERS; i++)
		pthread_join(F.w[i].thr, NULL);
	atomic_store(&F.stop, 2);
	pthread_join(wd, NULL);
	for (i = 0; i < NWORKERS; i++) {
		printf("# %s%u: %ld calls\n", role_names[F.w[i].role], i,
		       F.w[i].ops);
		free(F.w[i].buf);
	}
	printf("# consumed moved into a payload %d times, %d to a short header\n",
	       atomic_load(&F.payload_scribbles), atomic_load(&F.payload_small));
	if (atomic_load(&F.second_mounted))
		EXPECT_EQ(0, umount(KFS2));
	EXPECT_EQ(0, atomic_load(&F.failed))
		TH_LOG("reproduce: KETW_FUZZ_SEED=%llu KETW_FUZZ_SECONDS=%u",
		       (unsigned long long)F.seed, F.seconds);

	if (F.traced) {
		EXPECT_EQ(0, write_str(KFZ_TRACE_EVENTS, "0"));
		F.traced = 0;
	}
	/* bridge_items still takes and shows words; none is the default. */
	EXPECT_EQ(0, write_str(KFS "/bridge_items", "stack,pidns"));
	EXPECT_EQ(0, read_str(KFS "/bridge_items", path, sizeof(path)) < 0);
	EXPECT_STREQ("stack,pidns", path);
	EXPECT_EQ(0, write_str(KFS "/bridge_items", "none"));

	/* What the workers wrote to max_buffer_kb goes (the rest may need it). */
	EXPECT_EQ(0, write_str(KETW_MAX_BUFFER, F.max_buffer));
	EXPECT_EQ(strtoll(F.max_buffer, NULL, 10), read_ll(KETW_MAX_BUFFER));
	/* The keeper goes first: the workers are done with the emitter. */
	EXPECT_EQ(0, ketw_ref(F.keeper, KETW_IOC_DESTROY, KFZ_KEEPER));
	close(F.keeper);
	F.keeper = -1;

	/* Nothing holds a session now: every one goes. */
	for (i = 0; i < NPOOL; i++) {
		snprintf(path, sizeof(path), KFS "/sessions/%s", pool[i]);
		if (!rmdir(path))
			continue;
		EXPECT_EQ(ENOENT, errno) TH_LOG("rmdir %s: %s", path,
						strerror(errno));
		fd = ketw_open();
		ASSERT_LE(0, fd);
		EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_DESTROY, pool[i]));
		EXPECT_EQ(ENOENT, errno);
		close(fd);
	}
	for (i = 0; i < NPOOL; i++)
		EXPECT_EQ(0, session_listed(pool[i])) TH_LOG("%s", pool[i]);

	/* The filesystem still works, to the event. */
	ASSERT_EQ(0, mkdir(KFS "/sessions/" KFZ_CHECK, 0700));
	ASSERT_EQ(0, put(KFS "/sessions/" KFZ_CHECK "/rundown", "0"));
	ASSERT_EQ(0, put(KFS "/sessions/" KFZ_CHECK "/buffer_size_kb", "256"));
	ASSERT_EQ(0, put(KFS "/sessions/" KFZ_CHECK "/providers",
			 KETW_SAMPLE_NAME));
	ASSERT_EQ(0, put(KFS "/sessions/" KFZ_CHECK "/enable", "1"));
	ASSERT_EQ(0, sample_emit(KFZ_CHECK_EVENTS));
	ASSERT_EQ(0, put(KFS "/sessions/" KFZ_CHECK "/enable", "0"));
	/* Non-blocking: the end of the run is the end of the file. */
	fd = open(KFS "/sessions/" KFZ_CHECK "/trace_pipe",
		  O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, fd);
	text = malloc(KFZ_BUF + 1);
	ASSERT_TRUE(text != NULL);
	deadline = mono_ns() + 30 * 1000000000ull;
	while (got < KFZ_BUF && mono_ns() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		n = read(fd, text + got, KFZ_BUF - got);
		if (n == 0)
			break;
		if (n > 0)
			got += n;
		else if (errno == EAGAIN)
			poll(&pfd, 1, 100);
		else
			break;
	}
	EXPECT_EQ(0, n) TH_LOG("trace_pipe did not end: %s", strerror(errno));
	text[got] = 0;
	close(fd);
	ticks = text_lines_with(text, " provider=" KETW_SAMPLE_NAME " id=1 ");
	starts = text_lines_with(text, " sys=START ");
	stops = text_lines_with(text, " sys=STOP ");
	EXPECT_EQ(KFZ_CHECK_EVENTS, ticks) TH_LOG("trace_pipe:\n%.2000s", text);
	EXPECT_EQ(1, starts);
	EXPECT_EQ(1, stops);
	free(text);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" KFZ_CHECK));
	EXPECT_EQ(0, session_listed(KFZ_CHECK));

	if (F.mounted_here) {
		EXPECT_EQ(0, umount(KFS)) TH_LOG("umount: %s", strerror(errno));
		F.mounted_here = 0;
		/* Sessions and mounts hold the module: nothing is left. */
		EXPECT_EQ(self->refcnt, module_refcnt());
	}
}

TEST_HARNESS_MAIN
