// SPDX-License-Identifier: GPL-2.0
/*
 * ketwfs: the control filesystem on /sys/kernel/ketw. A whole session
 * with nothing but open, read and write (what echo and cat do), every
 * control file's validation, trace_pipe blocking and waking, and the
 * filesystem and the ioctls acting on the same sessions.
 *
 * Mounts ketwfs if it is not mounted, and unmounts it after each test:
 * a mounted ketwfs holds the module, which the harness unloads at the
 * end.
 */
#include "ketw_test.h"
#include <dirent.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include "kselftest_harness.h"

#define KFS		"/sys/kernel/ketw"
#define KETWFS_MAGIC	0x6b657477
#define SESSION		"fs_test"
#define SESSION2	"fs_test2"
#define BIG		(1 << 20)

static const char sample_guid_text[] = "6b657477-7361-6d70-6c65-000000000001";

static int kfs_mounted(void)
{
	struct statfs sf;

	return !statfs(KFS, &sf) && sf.f_type == KETWFS_MAGIC;
}

static const char *spath(char *buf, const char *session, const char *file)
{
	snprintf(buf, 256, KFS "/sessions/%s/%s", session, file);
	return buf;
}

/* echo VALUE > PATH: 0 or -errno. */
static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* cat PATH into @buf (NUL-terminated): bytes read or -errno. */
static ssize_t get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		got += n;
	}
	buf[got] = 0;
	close(fd);
	return got;
}

static int sput(const char *session, const char *file, const char *val)
{
	char p[256];

	return put(spath(p, session, file), val);
}

static ssize_t sget(const char *session, const char *file, char *buf,
		    size_t len)
{
	char p[256];

	return get(spath(p, session, file), buf, len);
}

static int dir_has(const char *dir, const char *name)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		found |= !strcmp(de->d_name, name);
	closedir(d);
	return found;
}

static void kfs_cleanup(void)
{
	char p[256];

	ketw_cleanup(SESSION);
	ketw_cleanup(SESSION2);
	snprintf(p, sizeof(p), KFS "/sessions/%s", SESSION);
	rmdir(p);
}

FIXTURE(kfs) {
	int mounted_here;
	char *buf;
	char *buf2;
};

FIXTURE_SETUP(kfs)
{
	struct stat st;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, stat(KFS, &st)) TH_LOG("no %s: ketw.ko makes it", KFS);
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	if (!kfs_mounted()) {
		ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL))
			TH_LOG("mount -t ketwfs: %s", strerror(errno));
		self->mounted_here = 1;
	}
	ASSERT_TRUE(kfs_mounted());
	kfs_cleanup();
	self->buf = malloc(BIG);
	self->buf2 = malloc(BIG);
	ASSERT_TRUE(self->buf && self->buf2);
	ASSERT_EQ(0, pin_cpu(0));
}

FIXTURE_TEARDOWN(kfs)
{
	kfs_cleanup();
	/* user_provider_namespace reloads it: never leave it out. */
	if (access("/sys/module/ketw_sample", F_OK) &&
	    system("insmod /ketw/ketw_sample.ko"))
		TH_LOG("ketw_sample could not be loaded again");
	free(self->buf);
	free(self->buf2);
	/* Lazily: a reader thread of a failed test may still hold a file. */
	if (self->mounted_here)
		umount2(KFS, MNT_DETACH);
}

/* The fixed part of the tree, the registry and the record header. */
TEST_F(kfs, tree_providers_and_header)
{
	char *b = self->buf;
	struct stat st;

	ASSERT_EQ(0, stat(KFS, &st));
	EXPECT_EQ(0700, st.st_mode & 0777);
	EXPECT_TRUE(dir_has(KFS, "sessions"));
	EXPECT_TRUE(dir_has(KFS, "providers"));
	EXPECT_TRUE(dir_has(KFS, "header_format"));
	EXPECT_TRUE(dir_has(KFS "/providers", KETW_SAMPLE_NAME));

	ASSERT_LT(0, get(KFS "/providers/" KETW_SAMPLE_NAME "/guid", b, BIG));
	EXPECT_EQ(0, strncmp(b, sample_guid_text, strlen(sample_guid_text)));
	EXPECT_TRUE(dir_has(KFS "/providers/" KETW_SAMPLE_NAME "/events", "tick"));
	EXPECT_TRUE(dir_has(KFS "/providers/" KETW_SAMPLE_NAME "/events", "warn"));
	ASSERT_LT(0, get(KFS "/providers/" KETW_SAMPLE_NAME "/events/tick/id",
			 b, BIG));
	EXPECT_STREQ("1\n", b);
	ASSERT_LT(0, get(KFS "/providers/" KETW_SAMPLE_NAME "/events/warn/format",
			 b, BIG));
	EXPECT_TRUE(strstr(b, "ID: 2\n"));
	EXPECT_TRUE(strstr(b, "level: 3\n"));
	EXPECT_TRUE(strstr(b, "\tfield:u32 code;\toffset:68;\tsize:4;\tsigned:0;\n"))
		TH_LOG("format: %s", b);
	EXPECT_TRUE(strstr(b, "\tfield:string text;\toffset:72;\tsize:16;"));

	ASSERT_LT(0, get(KFS "/header_format", b, BIG));
	EXPECT_TRUE(strstr(b, "\tfield:u64 timestamp;\toffset:32;\tsize:8;\tsigned:0;\n"))
		TH_LOG("header_format: %s", b);
	EXPECT_TRUE(strstr(b, "\tfield:u8 provider_guid[16];\toffset:48;\tsize:16;"));
	EXPECT_TRUE(strstr(b, "record_align: 8\n"));

	/* One instance, wherever it is mounted; no options. */
	mkdir("/tmp/ketwfs2", 0700);
	EXPECT_EQ(-1, mount("none", "/tmp/ketwfs2", "ketwfs", 0, "mode=0777"));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mount("none", "/tmp/ketwfs2", "ketwfs", 0, NULL));
	EXPECT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	EXPECT_TRUE(dir_has("/tmp/ketwfs2/sessions", SESSION));
	EXPECT_EQ(0, rmdir("/tmp/ketwfs2/sessions/" SESSION));
	EXPECT_EQ(0, umount("/tmp/ketwfs2"));
	rmdir("/tmp/ketwfs2");

	EXPECT_EQ(-1, stat(KFS "/providers/no-such-provider", &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, stat(KFS "/sessions/" SESSION, &st));
	EXPECT_EQ(ENOENT, errno);
	/* Only sessions/ makes directories. */
	EXPECT_EQ(-1, mkdir(KFS "/providers/x", 0700));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, mkdir(KFS "/x", 0700));
	EXPECT_EQ(EPERM, errno);
}

/* One session, from mkdir to rmdir, with echo and cat only. */
TEST_F(kfs, lifecycle_echo_cat)
{
	char *b = self->buf, *b2 = self->buf2, p[256];
	const struct ketw_event_header *h;
	struct drained d = { 0 };
	int bad = 0, ticks = 0, nrec = 0, fd, cpu;
	size_t off = 0;
	ssize_t n;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	EXPECT_TRUE(dir_has(KFS "/sessions", SESSION));
	/* The defaults of KETW_IOC_CREATE. */
	ASSERT_LT(0, sget(SESSION, "enable", b, BIG));
	EXPECT_STREQ("0\n", b);
	sget(SESSION, "buffer_size_kb", b, BIG);
	EXPECT_STREQ("1024\n", b);
	sget(SESSION, "policy", b, BIG);
	EXPECT_STREQ("loop\n", b);
	sget(SESSION, "max_data_size", b, BIG);
	EXPECT_STREQ("4096\n", b);
	sget(SESSION, "clock", b, BIG);
	EXPECT_STREQ("mono\n", b);
	sget(SESSION, "rundown", b, BIG);
	EXPECT_STREQ("1\n", b);
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ("* level=0 match_any=0x0 match_all=0x0\n", b);
	sget(SESSION, "event_set", b, BIG);
	EXPECT_STREQ("", b);
	sget(SESSION, "status", b, BIG);
	EXPECT_TRUE(strstr(b, "state: created\n")) TH_LOG("status: %s", b);

	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "64"));
	ASSERT_EQ(0, sput(SESSION, "policy", "flush"));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "providers", KETW_SAMPLE_NAME " 5"));
	sget(SESSION, "buffer_size_kb", b, BIG);
	EXPECT_STREQ("64\n", b);
	sget(SESSION, "policy", b, BIG);
	EXPECT_STREQ("flush\n", b);
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME " level=5 match_any=0x0 match_all=0x0\n", b);

	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	sget(SESSION, "enable", b, BIG);
	EXPECT_STREQ("1\n", b);
	ASSERT_EQ(0, sample_emit(10));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	sget(SESSION, "status", b, BIG);
	EXPECT_TRUE(strstr(b, "state: suspended\n"));
	EXPECT_TRUE(strstr(b, "written: 12\n")) TH_LOG("status: %s", b);
	EXPECT_TRUE(strstr(b, "lost: 0\n"));

	/* trace: the same twice, START, the ten ticks, STOP. */
	ASSERT_LT(0, sget(SESSION, "trace", b, BIG));
	ASSERT_LT(0, sget(SESSION, "trace", b2, BIG));
	EXPECT_STREQ(b, b2);
	EXPECT_EQ(1, text_lines_with(b, "# session " SESSION " clock=mono policy=flush"));
	EXPECT_EQ(10, text_lines_with(b, " provider=" KETW_SAMPLE_NAME " id=1 type=10 level=4 ver=2 kw=0x1 "))
		TH_LOG("trace:\n%s", b);
	EXPECT_EQ(1, text_lines_with(b, " provider=ketw id=1 sys=START "));
	EXPECT_EQ(1, text_lines_with(b, " provider=ketw id=2 sys=STOP "));
	/* Tick 1: index 1, the magic, value 4, one tail byte. */
	EXPECT_EQ(1, text_lines_with(b, "len=17 data=01000000 7774656b 04000000 00000000 01"));
	/* From the writing task: "...." ('N' if it was due to reschedule). */
	EXPECT_EQ(12, text_lines_with(b, "cpu=0 ctx=.... ts=") +
		      text_lines_with(b, "cpu=0 ctx=.N.. ts="));

	/* trace_pipe consumes them, and ends: the session is stopped. */
	ASSERT_LT(0, sget(SESSION, "trace_pipe", b2, BIG));
	EXPECT_EQ(12, text_lines_with(b2, "cpu=0 ctx="));
	EXPECT_EQ(10, text_lines_with(b2, " provider=" KETW_SAMPLE_NAME " id=1 "));
	/* Nothing left: a new reader would wait for the next run. */
	fd = open(spath(p, SESSION, "trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, b2, BIG));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
	ASSERT_LT(0, sget(SESSION, "trace", b, BIG));
	EXPECT_EQ(0, text_lines_with(b, "cpu="));
	sget(SESSION, "stats", b, BIG);
	EXPECT_TRUE(strstr(b, "written: 12\n"));
	EXPECT_TRUE(strstr(b, "read: 12\n")) TH_LOG("stats: %s", b);

	/* Again, drained as binary records from CPU 0. */
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(5));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	fd = open(spath(p, SESSION, "per_cpu/cpu0/trace_pipe_raw"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, b, KETW_EVENT_HEADER_SIZE - 8));
	EXPECT_EQ(EINVAL, errno);
	d.buf = (unsigned char *)b;
	d.cap = BIG;
	while ((n = read(fd, b + d.len, BIG - d.len)) > 0)
		d.len += n;
	EXPECT_EQ(0, n);
	close(fd);
	while ((h = next_record(&d, &off, &bad))) {
		EXPECT_EQ(0, h->cpu);
		ticks += is_sample(h);
		nrec++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(5, ticks);
	EXPECT_EQ(7, nrec);		/* START, the ticks, STOP */
	sget(SESSION, "per_cpu/cpu0/stats", b, BIG);
	EXPECT_TRUE(strstr(b, "read: 19\n")) TH_LOG("cpu0 stats: %s", b);
	for (cpu = 0; cpu < 4; cpu++) {
		snprintf(p, sizeof(p), "cpu%d", cpu);
		EXPECT_EQ(cpu < sysconf(_SC_NPROCESSORS_CONF),
			  dir_has(KFS "/sessions/" SESSION "/per_cpu", p));
	}

	ASSERT_EQ(0, rmdir(KFS "/sessions/" SESSION));
	EXPECT_FALSE(dir_has(KFS "/sessions", SESSION));
	EXPECT_EQ(-ENOENT, sget(SESSION, "enable", b, BIG));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_ATTACH, SESSION));
	EXPECT_EQ(ENOENT, errno);
	close(fd);
}

/* A refused write leaves the value as it was. */
#define EXPECT_REFUSED(file, val, err, keep) do {			\
	EXPECT_EQ(-(err), sput(SESSION, file, val))			\
		TH_LOG("%s < \"%s\"", file, val);			\
	sget(SESSION, file, self->buf, BIG);				\
	EXPECT_STREQ(keep, self->buf);					\
} while (0)

TEST_F(kfs, control_file_validation)
{
	char *b = self->buf;
	int fd;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));

	EXPECT_REFUSED("enable", "2", EINVAL, "0\n");
	EXPECT_REFUSED("enable", "yes", EINVAL, "0\n");
	EXPECT_REFUSED("enable", "1 1", EINVAL, "0\n");
	EXPECT_REFUSED("enable", "1\n0\n", EINVAL, "0\n");

	EXPECT_REFUSED("buffer_size_kb", "0", EINVAL, "1024\n");
	EXPECT_REFUSED("buffer_size_kb", "3", EINVAL, "1024\n");
	EXPECT_REFUSED("buffer_size_kb", "262145", EINVAL, "1024\n");
	EXPECT_REFUSED("buffer_size_kb", "-1", EINVAL, "1024\n");
	EXPECT_REFUSED("buffer_size_kb", "12x", EINVAL, "1024\n");
	EXPECT_REFUSED("buffer_size_kb", "0x10", EINVAL, "1024\n");
	/* Rounded up to a power of two; max_data_size follows its default. */
	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "5"));
	sget(SESSION, "buffer_size_kb", b, BIG);
	EXPECT_STREQ("8\n", b);
	sget(SESSION, "max_data_size", b, BIG);
	EXPECT_STREQ("3008\n", b);

	EXPECT_REFUSED("max_data_size", "3009", EINVAL, "3008\n");
	EXPECT_REFUSED("max_data_size", "65465", EINVAL, "3008\n");
	EXPECT_REFUSED("max_data_size", "x", EINVAL, "3008\n");
	ASSERT_EQ(0, sput(SESSION, "max_data_size", "2000"));
	/* Set by hand, it no longer follows the buffer size ... */
	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "1024"));
	sget(SESSION, "max_data_size", b, BIG);
	EXPECT_STREQ("2000\n", b);
	/* ... and a buffer must hold it. */
	EXPECT_REFUSED("buffer_size_kb", "4", EINVAL, "1024\n");
	ASSERT_EQ(0, sput(SESSION, "max_data_size", "0"));	/* the default */
	sget(SESSION, "max_data_size", b, BIG);
	EXPECT_STREQ("4096\n", b);

	EXPECT_REFUSED("policy", "LOOP", EINVAL, "loop\n");
	EXPECT_REFUSED("policy", "ring", EINVAL, "loop\n");
	EXPECT_REFUSED("policy", "loop flush", EINVAL, "loop\n");
	ASSERT_EQ(0, sput(SESSION, "policy", "until_full"));
	sget(SESSION, "policy", b, BIG);
	EXPECT_STREQ("until-full\n", b);

	EXPECT_REFUSED("clock", "tsc", EINVAL, "mono\n");
	EXPECT_REFUSED("clock", "\n", EINVAL, "mono\n");
	ASSERT_EQ(0, sput(SESSION, "clock", "local\n"));
	sget(SESSION, "clock", b, BIG);
	EXPECT_STREQ("local\n", b);

	EXPECT_REFUSED("rundown", "2", EINVAL, "1\n");

	/* providers */
#define ALL "* level=0 match_any=0x0 match_all=0x0\n"
	EXPECT_REFUSED("providers", " ", EINVAL, ALL);
	EXPECT_REFUSED("providers", KETW_SAMPLE_NAME " 6", EINVAL, ALL);
	EXPECT_REFUSED("providers", KETW_SAMPLE_NAME " 1 xyz", EINVAL, ALL);
	EXPECT_REFUSED("providers", KETW_SAMPLE_NAME " 1 1 1 1", EINVAL, ALL);
	EXPECT_REFUSED("providers", KETW_SAMPLE_NAME " colour=1", EINVAL, ALL);
	EXPECT_REFUSED("providers", "a-name-that-is-far-too-long-for-ketw", EINVAL, ALL);
	EXPECT_REFUSED("providers", "00000000-0000-0000-0000-000000000000", EINVAL, ALL);
	EXPECT_REFUSED("providers", "!" KETW_SAMPLE_NAME " 1", EINVAL, ALL);
	EXPECT_REFUSED("providers", "!never-enabled", ENOENT, ALL);
	EXPECT_REFUSED("event_set", "1", ENOENT, "");

	ASSERT_EQ(0, sput(SESSION, "providers", KETW_SAMPLE_NAME " 3 0x2"));
#define ONE KETW_SAMPLE_NAME " level=3 match_any=0x2 match_all=0x0\n"
	EXPECT_REFUSED("providers", KETW_SAMPLE_NAME " 9", EINVAL, ONE);
	/* By GUID, with the key=value spelling. */
	ASSERT_EQ(0, sput(SESSION, "providers",
			  "6b657477-7361-6d70-6c65-0000000000aa level=4 keywords=ff match_all=1"));
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ(ONE "6b657477-7361-6d70-6c65-0000000000aa level=4 match_any=0xff match_all=0x1\n", b);
	ASSERT_EQ(0, sput(SESSION, "providers", "!6b657477-7361-6d70-6c65-0000000000aa"));

	/* event_set */
	EXPECT_REFUSED("event_set", "1024", EINVAL, KETW_SAMPLE_NAME ":\n");
	EXPECT_REFUSED("event_set", "5-3", EINVAL, KETW_SAMPLE_NAME ":\n");
	EXPECT_REFUSED("event_set", "x", EINVAL, KETW_SAMPLE_NAME ":\n");
	EXPECT_REFUSED("event_set", "no-such: 1", ENOENT, KETW_SAMPLE_NAME ":\n");
	ASSERT_EQ(0, sput(SESSION, "event_set", KETW_SAMPLE_NAME ": 1 3-5,7"));
	sget(SESSION, "event_set", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME ": 1 3-5 7\n", b);
	EXPECT_REFUSED("event_set", KETW_SAMPLE_NAME ": 1-1024", EINVAL,
		       KETW_SAMPLE_NAME ": 1 3-5 7\n");
	/* Changing the level keeps the set, and the other way round. */
	ASSERT_EQ(0, sput(SESSION, "providers", KETW_SAMPLE_NAME " 2"));
	sget(SESSION, "event_set", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME ": 1 3-5 7\n", b);
	ASSERT_EQ(0, sput(SESSION, "event_set", "2"));
	sget(SESSION, "event_set", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME ": 2\n", b);
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME " level=2 match_any=0x0 match_all=0x0\n", b);

	/* While running, the buffers stay as they are. */
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));	/* running already */
	EXPECT_REFUSED("buffer_size_kb", "64", EBUSY, "1024\n");
	EXPECT_REFUSED("policy", "loop", EBUSY, "until-full\n");
	ASSERT_EQ(0, sput(SESSION, "policy", "until-full"));	/* no change */
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));	/* stopped already */
	ASSERT_EQ(0, sput(SESSION, "policy", "loop"));

	/* Read-only files take no writes; root may open them for writing. */
	fd = open(spath(b, SESSION, "status"), O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "1", 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_EQ(-1, chmod(spath(b, SESSION, "enable"), 0666));
	EXPECT_EQ(EPERM, errno);

	/* Names */
	EXPECT_EQ(-1, mkdir(KFS "/sessions/" SESSION, 0700));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, mkdir(KFS "/sessions/bad name", 0700));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mkdir(KFS "/sessions/a-name-that-is-far-too-long-for-ketw", 0700));
	EXPECT_EQ(ENAMETOOLONG, errno);
	EXPECT_EQ(-1, rmdir(KFS "/sessions/" SESSION2));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/* Drain CPU 0's records of @session through trace_pipe_raw into @d. */
static int drain_cpu0(const char *session, struct drained *d)
{
	char p[256];
	ssize_t n;
	int fd;

	fd = open(spath(p, session, "per_cpu/cpu0/trace_pipe_raw"), O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, d->buf + d->len, d->cap - d->len)) > 0)
		d->len += n;
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * The ticks in @d: each with exactly the items @want (logged by this
 * thread, pinned to CPU 0), their values right. Returns how many.
 */
static int check_tick_items(struct __test_metadata *_metadata,
			    const struct drained *d, uint32_t want)
{
	const struct ketw_event_header *h;
	struct ketw_sample_tick tick;
	int bad = 0, ticks = 0;
	struct items it;
	struct stat ns;
	size_t off = 0;

	EXPECT_EQ(0, stat("/proc/self/ns/pid", &ns));
	while ((h = next_record(d, &off, &bad))) {
		if (!is_sample(h))
			continue;
		ticks++;
		parse_items(h, &it);
		EXPECT_EQ(0, it.bad);
		EXPECT_EQ(!!want, !!(h->flags & KETW_RECORD_EXT));
		EXPECT_EQ(want, it.mask) TH_LOG("tick %d", ticks);
		EXPECT_EQ(__builtin_popcount(want), it.count);
		memcpy(&tick, it.payload, sizeof(tick));
		EXPECT_EQ(KETW_SAMPLE_MAGIC, tick.magic);
		EXPECT_EQ(sizeof(tick) + tick.index % KETW_SAMPLE_TAIL_MOD,
			  it.payload_len);
		if (want & KETW_EXT_BIT(KETW_EXT_PID_NS)) {
			EXPECT_EQ((uint32_t)getpid(), it.ns.vpid);
			EXPECT_EQ((uint32_t)gettid(), it.ns.vtid);
			EXPECT_EQ((uint64_t)ns.st_ino, it.ns.pid_ns_inum);
		}
		if (want & KETW_EXT_BIT(KETW_EXT_KSTACK)) {
			EXPECT_LE(2, it.nk);
			/* The first frame is the call site: the prog address. */
			if (want & KETW_EXT_BIT(KETW_EXT_PROG_ADDR))
				EXPECT_EQ(it.prog_addr, it.kstack[0]);
		}
	}
	EXPECT_EQ(0, bad);
	return ticks;
}

/*
 * items: the session's default extended data items (KETW_IOC_CREATE's
 * ext_items), for the providers it takes without an entry in providers.
 * Words in any order read back in the order of their types; a refused
 * write changes nothing; while the session runs only the same value
 * passes, as for the ioctl; the records carry exactly those items.
 */
TEST_F(kfs, session_items)
{
	const uint32_t want = KETW_EXT_BIT(KETW_EXT_KSTACK) |
			      KETW_EXT_BIT(KETW_EXT_PROG_ADDR) |
			      KETW_EXT_BIT(KETW_EXT_PID_NS);
	static const char *const bad[] = {
		"stak", "STACK", "stack,", ",stack", "stack,,pidns",
		"stack pidns", "stack, pidns", "none,stack", "stack,none", "all",
		"0x22", "34", "stack\npidns", "stackstackstackstack",
		"progaddr\001",
	};
#define ITEMS "stack,progaddr,pidns\n"
	struct drained d = { .buf = (unsigned char *)self->buf2, .cap = BIG };
	char *b = self->buf, p[256];
	struct ketw_session_attr a;
	struct stat st;
	unsigned int i;
	int fd;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, stat(spath(p, SESSION, "items"), &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	sget(SESSION, "items", b, BIG);
	EXPECT_STREQ("none\n", b);
	ASSERT_EQ(0, sput(SESSION, "items", "pidns,stack,progaddr\n"));
	sget(SESSION, "items", b, BIG);
	EXPECT_STREQ(ITEMS, b);
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ("* level=0 match_any=0x0 match_all=0x0 items=" ITEMS, b);
	/* The attribute the ioctls see. */
	fd = ketw_open();
	ASSERT_LE(0, fd);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	strcpy(a.name, SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_GET_ATTR, &a));
	EXPECT_EQ(want, a.ext_items);
	close(fd);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_REFUSED("items", bad[i], EINVAL, ITEMS);

	/* Running: a change is EBUSY, the same value passes. */
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	EXPECT_REFUSED("items", "cputime", EBUSY, ITEMS);
	EXPECT_REFUSED("items", "none", EBUSY, ITEMS);
	EXPECT_EQ(0, sput(SESSION, "items", "progaddr,pidns,stack"));
	ASSERT_EQ(0, sample_emit(5));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	ASSERT_EQ(0, drain_cpu0(SESSION, &d));
	EXPECT_EQ(5, check_tick_items(_metadata, &d, want));

	/* Another set, then none: the records follow. */
	ASSERT_EQ(0, sput(SESSION, "items", "cputime"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	d.len = 0;
	ASSERT_EQ(0, drain_cpu0(SESSION, &d));
	EXPECT_EQ(3, check_tick_items(_metadata, &d,
				      KETW_EXT_BIT(KETW_EXT_CPU_TIME)));
	ASSERT_EQ(0, sput(SESSION, "items", "none"));
	sget(SESSION, "items", b, BIG);
	EXPECT_STREQ("none\n", b);
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ("* level=0 match_any=0x0 match_all=0x0\n", b);
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	d.len = 0;
	ASSERT_EQ(0, drain_cpu0(SESSION, &d));
	EXPECT_EQ(2, check_tick_items(_metadata, &d, 0));

	/*
	 * Once providers names one, its entry's items count, not the
	 * session's (which stay as they are).
	 */
	ASSERT_EQ(0, sput(SESSION, "items", "stack"));
	ASSERT_EQ(0, sput(SESSION, "providers", KETW_SAMPLE_NAME " items=pidns"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	sget(SESSION, "items", b, BIG);
	EXPECT_STREQ("stack\n", b);
	d.len = 0;
	ASSERT_EQ(0, drain_cpu0(SESSION, &d));
	EXPECT_EQ(2, check_tick_items(_metadata, &d,
				      KETW_EXT_BIT(KETW_EXT_PID_NS)));
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
#undef ITEMS
}

/* A NUL ends a command only at its end: "1\0junk" is not "1". */
TEST_F(kfs, control_write_nul)
{
	char *b = self->buf, p[256];
	int fd;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	fd = open(spath(p, SESSION, "enable"), O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "1\0junk", 6));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, "1\0\n", 3));
	EXPECT_EQ(EINVAL, errno);
	sget(SESSION, "enable", b, BIG);
	EXPECT_STREQ("0\n", b);
	/* A C string with its terminator, or a few. */
	EXPECT_EQ(2, write(fd, "1", 2));
	sget(SESSION, "enable", b, BIG);
	EXPECT_STREQ("1\n", b);
	EXPECT_EQ(3, write(fd, "0\0", 3));
	sget(SESSION, "enable", b, BIG);
	EXPECT_STREQ("0\n", b);
	close(fd);

	fd = open(spath(p, SESSION, "policy"), O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, "flush\0loop", 10));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	sget(SESSION, "policy", b, BIG);
	EXPECT_STREQ("loop\n", b);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

struct pipe_reader {
	int fd;
	char buf[4096];
	ssize_t n;
	int done;
};

static void *pipe_read_thread(void *arg)
{
	struct pipe_reader *r = arg;

	r->n = read(r->fd, r->buf, sizeof(r->buf) - 1);
	if (r->n >= 0)
		r->buf[r->n] = 0;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int wait_done(struct pipe_reader *r, int ms)
{
	while (ms-- > 0 && !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
		usleep(1000);
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* A reader of trace_pipe sleeps until an event comes, and ends at stop. */
TEST_F(kfs, trace_pipe_blocks_and_wakes)
{
	struct pipe_reader r = { 0 };
	char p[256], tmp[4096];
	pthread_t t;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "policy", "flush"));
	/* Not started yet: a reader waits, it does not see an end. */
	r.fd = open(spath(p, SESSION, "trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, r.fd);
	EXPECT_EQ(-1, read(r.fd, tmp, sizeof(tmp)));
	EXPECT_EQ(EAGAIN, errno);
	close(r.fd);

	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	r.fd = open(spath(p, SESSION, "trace_pipe"), O_RDONLY);
	ASSERT_LE(0, r.fd);
	/* Take START first. */
	ASSERT_LT(0, read(r.fd, tmp, sizeof(tmp) - 1));

	ASSERT_EQ(0, pthread_create(&t, NULL, pipe_read_thread, &r));
	EXPECT_FALSE(wait_done(&r, 300)) TH_LOG("read did not block");
	ASSERT_EQ(0, sample_emit(1));
	EXPECT_TRUE(wait_done(&r, 5000)) TH_LOG("read did not wake");
	pthread_join(t, NULL);
	EXPECT_LT(0, r.n);
	EXPECT_EQ(1, text_lines_with(r.buf, " provider=" KETW_SAMPLE_NAME " id=1 "))
		TH_LOG("read: %s", r.buf);
	/* A reader holds the session. */
	EXPECT_EQ(-1, rmdir(KFS "/sessions/" SESSION));
	EXPECT_EQ(EBUSY, errno);

	/* Stopping wakes a sleeping reader: STOP, then the end. */
	r.done = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, pipe_read_thread, &r));
	EXPECT_FALSE(wait_done(&r, 200));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	EXPECT_TRUE(wait_done(&r, 5000));
	pthread_join(t, NULL);
	EXPECT_EQ(1, text_lines_with(r.buf, " sys=STOP "));
	EXPECT_EQ(0, read(r.fd, tmp, sizeof(tmp)));

	/* The end came once: the next read waits for the next run. */
	r.done = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, pipe_read_thread, &r));
	EXPECT_FALSE(wait_done(&r, 300)) TH_LOG("read of a drained session did not wait");
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	EXPECT_TRUE(wait_done(&r, 5000));
	pthread_join(t, NULL);
	EXPECT_EQ(1, text_lines_with(r.buf, " sys=START "));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	ASSERT_LT(0, read(r.fd, tmp, sizeof(tmp) - 1));
	EXPECT_EQ(0, read(r.fd, tmp, sizeof(tmp)));
	close(r.fd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/* Reading a line in small pieces loses nothing. */
TEST_F(kfs, trace_pipe_small_reads)
{
	char p[256], c;
	size_t len = 0;
	int fd;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	ASSERT_LT(0, sget(SESSION, "trace", self->buf2, BIG));
	fd = open(spath(p, SESSION, "trace_pipe"), O_RDONLY);
	ASSERT_LE(0, fd);
	while (read(fd, &c, 1) == 1 && len < BIG - 1)
		self->buf[len++] = c;
	self->buf[len] = 0;
	close(fd);
	/* trace has a comment line first; the records are the same. */
	EXPECT_STREQ(strchr(self->buf2, '\n') + 1, self->buf);
	EXPECT_EQ(5, text_lines_with(self->buf, "cpu="));
}

/*
 * Each line's ctx= column is the record's context (ketw_sample's
 * emit_ctx logs tick N from a chosen context): interrupts off 'd', 's'
 * softirq, 'h' hardirq, 'z' NMI, the preemption depth.
 */
TEST_F(kfs, context_column)
{
	static const struct {
		const char *word;
		const char *ctx;	/* the column, less 'N' and the depth */
		const char *depth;	/* NULL: any */
		const char *data;	/* the tick's index, in hex */
	} c[] = {
		{ "task", "..", ".", "e8030000" },
		{ "preempt", "..", "1", "e9030000" },
		{ "irqsoff", "d.", ".", "eb030000" },
		{ "softirq", ".s", NULL, "ec030000" },
		{ "hardirq", "dh", NULL, "ed030000" },
		{ "nmi", "dz", NULL, "ee030000" },
	};
	char *b = self->buf, *line, *end, want[64];
	unsigned int i, found;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	for (i = 0; i < ARRAY_SIZE(c); i++)
		ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), c[i].word))
			TH_LOG("emit_ctx %s: %s", c[i].word, strerror(errno));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	ASSERT_LT(0, sget(SESSION, "trace", b, BIG));
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		snprintf(want, sizeof(want), " data=%s ", c[i].data);
		found = 0;
		for (line = b; (end = strchr(line, '\n')); line = end + 1) {
			char *ctx = strstr(line, " ctx=");

			*end = '\0';
			if (strstr(line, want) && ctx && ctx < end) {
				found++;
				EXPECT_EQ(c[i].ctx[0], ctx[5]) TH_LOG("%s", line);
				EXPECT_EQ(c[i].ctx[1], ctx[7]) TH_LOG("%s", line);
				if (c[i].depth)
					EXPECT_EQ(c[i].depth[0], ctx[8])
						TH_LOG("%s", line);
				EXPECT_EQ(' ', ctx[9]);
			}
			*end = '\n';
		}
		EXPECT_EQ(1, found) TH_LOG("%s: no line with%s in\n%s",
					  c[i].word, want, b);
	}
}

/* One session, two ways in: each sees what the other does. */
TEST_F(kfs, fs_and_ioctl_share_sessions)
{
	char *b = self->buf, p[256];
	struct ketw_session_attr a;
	struct drained d = { 0 };
	const struct ketw_event_header *h;
	int fd, fd2, bad = 0, ticks = 0;
	size_t off = 0;

	/* Made by ioctl: the directory is there, control by echo. */
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 128;
	a.policy = KETW_POLICY_FLUSH;
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	EXPECT_TRUE(dir_has(KFS "/sessions", SESSION));
	sget(SESSION, "buffer_size_kb", b, BIG);
	EXPECT_STREQ("128\n", b);
	sget(SESSION, "rundown", b, BIG);
	EXPECT_STREQ("0\n", b);
	/* The attached file holds the buffers and the session. */
	EXPECT_EQ(-EBUSY, sput(SESSION, "buffer_size_kb", "256"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_GET_ATTR, &a));
	EXPECT_EQ(KETW_STATE_RUNNING, a.state);
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad)))
		ticks += is_sample(h);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(3, ticks);
	EXPECT_EQ(-1, rmdir(KFS "/sessions/" SESSION));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_ATTACH, SESSION));
	EXPECT_EQ(ENOENT, errno);

	/* Made by mkdir: the ioctls act on it, the files show it. */
	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION2, 0700));
	ketw_attr_init(&a, SESSION2);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_GET_ATTR, &a));
	EXPECT_EQ(KETW_BUFFER_KB_DEFAULT, a.buffer_kb);
	EXPECT_EQ(KETW_STATE_CREATED, a.state);
	ASSERT_EQ(0, sput(SESSION2, "buffer_size_kb", "16"));
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_GET_ATTR, &a));
	EXPECT_EQ(16, a.buffer_kb);
	ASSERT_EQ(0, ketw_enable(fd, SESSION2, KETW_SAMPLE_NAME, NULL, 4, 1, 0,
				 (const uint32_t[]){ 2 }, 1, 0));
	sget(SESSION2, "providers", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME " level=4 match_any=0x1 match_all=0x0\n", b);
	sget(SESSION2, "event_set", b, BIG);
	EXPECT_STREQ(KETW_SAMPLE_NAME ": 2\n", b);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_START, SESSION2));
	sget(SESSION2, "enable", b, BIG);
	EXPECT_STREQ("1\n", b);
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, SESSION2));
	sget(SESSION2, "enable", b, BIG);
	EXPECT_STREQ("0\n", b);
	ASSERT_LT(0, sget(SESSION2, "trace", b, BIG));
	EXPECT_EQ(2, text_lines_with(b, " provider=" KETW_SAMPLE_NAME " id=1 "));

	/* A reader of the files holds it against KETW_IOC_DESTROY too. */
	fd2 = open(spath(p, SESSION2, "trace_pipe"), O_RDONLY);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_DESTROY, SESSION2));
	EXPECT_EQ(EBUSY, errno);
	close(fd2);
	fd2 = open(spath(p, SESSION2, "enable"), O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, SESSION2));
	EXPECT_FALSE(dir_has(KFS "/sessions", SESSION2));
	EXPECT_EQ(-ENOENT, sget(SESSION2, "enable", b, BIG));
	/* A file opened before: the session is gone. */
	EXPECT_EQ(-1, read(fd2, b, 16));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, write(fd2, "1", 1));
	EXPECT_EQ(ENODEV, errno);
	close(fd2);
	close(fd);
	free(d.buf);
}

/*
 * A file or directory opened before its session went stands for that
 * session, not for another one made since under the same name.
 */
TEST_F(kfs, stale_files_after_recreate)
{
	struct ketw_session_attr a;
	char *b = self->buf, p[256];
	int fd, ctl, prov, dir, f;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ctl = open(spath(p, SESSION, "enable"), O_RDWR);
	ASSERT_LE(0, ctl);
	prov = open(spath(p, SESSION, "providers"), O_RDWR);
	ASSERT_LE(0, prov);
	dir = open(KFS "/sessions/" SESSION, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);

	/* Destroyed and made again through /dev/ketw. */
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, SESSION));
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 16;
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	close(fd);		/* detach: rmdir may take it below */

	EXPECT_EQ(-1, write(ctl, "1", 1));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, read(ctl, b, 16));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, write(prov, KETW_SAMPLE_NAME, strlen(KETW_SAMPLE_NAME)));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, write(prov, "!" KETW_SAMPLE_NAME, strlen(KETW_SAMPLE_NAME) + 1));
	EXPECT_EQ(ENODEV, errno);
	/* The held directory still leads to the old session only. */
	f = openat(dir, "trace_pipe", O_RDONLY | O_NONBLOCK);
	EXPECT_EQ(-1, f);
	EXPECT_EQ(ENODEV, errno);
	f = openat(dir, "event_set", O_WRONLY);
	ASSERT_LE(0, f);
	EXPECT_EQ(-1, write(f, "1", 1));
	EXPECT_EQ(ENODEV, errno);
	close(f);
	f = openat(dir, "buffer_size_kb", O_RDONLY);
	ASSERT_LE(0, f);
	EXPECT_EQ(-1, read(f, b, 16));
	EXPECT_EQ(ENODEV, errno);
	close(f);

	/* The path finds the new one, untouched by the old files. */
	sget(SESSION, "enable", b, BIG);
	EXPECT_STREQ("0\n", b);
	sget(SESSION, "buffer_size_kb", b, BIG);
	EXPECT_STREQ("16\n", b);
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ("* level=0 match_any=0x0 match_all=0x0\n", b);

	/* rmdir and mkdir: the same. */
	ASSERT_EQ(0, rmdir(KFS "/sessions/" SESSION));
	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	EXPECT_EQ(-1, write(ctl, "1", 1));
	EXPECT_EQ(ENODEV, errno);
	sget(SESSION, "enable", b, BIG);
	EXPECT_STREQ("0\n", b);
	close(ctl);
	close(prov);
	close(dir);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/* per_cpu/cpuN/trace_pipe_raw maps like /dev/ketw: meta page, then data. */
TEST_F(kfs, trace_pipe_raw_mmap)
{
	struct ketw_meta_page *meta;
	const unsigned char *data;
	char p[256];
	uint32_t c, e, span;
	int fd, ticks = 0;
	size_t size;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "policy", "until-full"));
	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "32"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(20));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));

	fd = open(spath(p, SESSION, "per_cpu/cpu0/trace_pipe_raw"), O_RDWR);
	ASSERT_LE(0, fd);
	meta = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, meta);
	EXPECT_EQ(KETW_META_VERSION, meta->version);
	EXPECT_EQ(0, meta->cpu);
	EXPECT_EQ(32 * 1024, meta->data_size);
	EXPECT_EQ(KETW_POLICY_UNTIL_FULL, meta->policy);
	size = meta->data_size;
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 4096);
	ASSERT_NE(MAP_FAILED, data);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 4096));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   3 * 4096));
	/* One consumer: read() stays out while the data is mapped. */
	EXPECT_EQ(-1, read(fd, p, sizeof(p)));
	EXPECT_EQ(EBUSY, errno);
	/* The mapping holds the session, not the file: rmdir still waits. */
	EXPECT_EQ(-1, rmdir(KFS "/sessions/" SESSION));
	EXPECT_EQ(EBUSY, errno);

	c = meta->consumed;
	e = __atomic_load_n(&meta->commit, __ATOMIC_ACQUIRE);
	while (c != e) {
		const struct ketw_event_header *h =
			(const void *)(data + (c & (size - 1)));

		span = KETW_RECORD_SPAN(h->size);
		ASSERT_LE(KETW_RECORD_ALIGN, span);
		ticks += is_sample(h);
		c += span;
	}
	__atomic_store_n(&meta->consumed, c, __ATOMIC_RELEASE);
	EXPECT_EQ(20, ticks);
	munmap((void *)data, size);
	munmap(meta, 4096);
	close(fd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/*
 * A meta page's consumed position moved into a payload makes the payload
 * read as a header; one whose size is below a header's must not reach
 * the text of trace or trace_pipe (it asked for gigabytes, with a
 * warning, and failed with ENOMEM).
 */
TEST_F(kfs, scribbled_consumed)
{
	static const uint8_t guid[KETW_GUID_SIZE] = { 0x6b, 0x66, 0x7a, 1 };
	struct ketw_event_header fake = { .size = KETW_EVENT_HEADER_SIZE - 4 };
	struct ketw_user_provider up = { .size = sizeof(up) };
	struct ketw_user_event ev = { .size = sizeof(ev) };
	struct ketw_meta_page *meta;
	const unsigned char *data;
	uint32_t c, e, pos = 0;
	char *b = self->buf, p[256];
	int ufd, fd, tp, found = 0;
	ssize_t n;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "policy", "flush"));
	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "16"));
	ASSERT_EQ(0, sput(SESSION, "providers", KETW_USER_PREFIX "kfs-fake"));
	ufd = open(KETW_USER_DEVICE, O_RDWR);
	ASSERT_LE(0, ufd);
	memcpy(up.guid, guid, sizeof(guid));
	strcpy(up.name, "kfs-fake");
	ASSERT_EQ(0, ioctl(ufd, KETW_IOC_USER_REGISTER, &up));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ev.id = 1;
	ev.data = (uintptr_t)&fake;
	ev.len = sizeof(fake);
	ASSERT_EQ(1, ioctl(ufd, KETW_IOC_USER_WRITE, &ev));	/* on CPU 0 */
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	close(ufd);

	/* Where the payload is. */
	fd = open(spath(p, SESSION, "per_cpu/cpu0/trace_pipe_raw"), O_RDWR);
	ASSERT_LE(0, fd);
	meta = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, meta);
	data = mmap(NULL, meta->data_size, PROT_READ, MAP_SHARED, fd, 4096);
	ASSERT_NE(MAP_FAILED, data);
	c = meta->consumed;
	e = meta->commit;
	while (c != e && !found) {
		const struct ketw_event_header *h =
			(const void *)(data + (c & (meta->data_size - 1)));

		ASSERT_LE(KETW_RECORD_ALIGN, KETW_RECORD_SPAN(h->size));
		found = !memcmp(h->provider_guid, guid, sizeof(guid));
		pos = c;
		c += KETW_RECORD_SPAN(h->size);
	}
	ASSERT_TRUE(found);
	munmap((void *)data, meta->data_size);
	meta->consumed = pos + KETW_EVENT_HEADER_SIZE;

	/* trace copies from there, trace_pipe reads from there. */
	n = sget(SESSION, "trace", b, BIG);
	EXPECT_LT(0, n) TH_LOG("trace: %s", strerror(-n));
	EXPECT_EQ(0, text_lines_with(b, " len=")) TH_LOG("trace: %s", b);
	/*
	 * trace_pipe: no record starts there (its size is below a header's),
	 * so the reader goes on from the commit position and counts a
	 * resynchronisation (ring.c); nothing is left to read.
	 */
	tp = open(spath(p, SESSION, "trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, tp);
	n = read(tp, b, BIG);
	EXPECT_EQ(-1, n) TH_LOG("trace_pipe gave %zd bytes", n);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(1, meta->resyncs);
	EXPECT_EQ(meta->commit, meta->consumed);
	close(tp);
	munmap(meta, 4096);
	close(fd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/* Entries of the directory @path from offset @pos, with getdents64. */
static int dents_from(const char *path, off_t pos, const char *name)
{
	char buf[4096];
	int fd, n, off, count = 0;
	long got;

	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	if (lseek(fd, pos, SEEK_SET) != pos) {
		close(fd);
		return -errno;
	}
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < got; off += n) {
			struct dirent64 *de = (void *)(buf + off);

			n = de->d_reclen;
			count += !name || !strcmp(de->d_name, name);
		}
	}
	close(fd);
	return count;
}

/*
 * Directory offsets are 64-bit: one past 2^32 is not the start again.
 * A session named "." or ".." (KETW_IOC_CREATE takes them) is not listed
 * as a second "." or "..".
 */
TEST_F(kfs, readdir_offsets_and_dot_names)
{
	struct ketw_session_attr a;
	int fd;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	EXPECT_EQ(3, dents_from(KFS "/sessions", 0, NULL));
	EXPECT_EQ(1, dents_from(KFS "/sessions", 2, NULL));
	EXPECT_EQ(0, dents_from(KFS "/sessions", (1ll << 32) + 2, NULL));
	EXPECT_EQ(0, dents_from(KFS, (1ll << 32) + 2, NULL));
	EXPECT_EQ(0, dents_from(KFS "/sessions/" SESSION "/per_cpu",
				(1ll << 32) + 2, NULL));
	EXPECT_EQ(0, dents_from(KFS "/providers", (1ll << 32) + 2, NULL));
	EXPECT_EQ(0, dents_from(KFS "/sessions", 1ll << 62, NULL));

	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, ".");
	a.buffer_kb = 4;
	if (!ioctl(fd, KETW_IOC_CREATE, &a)) {
		EXPECT_EQ(1, dents_from(KFS "/sessions", 0, "."));
		EXPECT_EQ(1, dents_from(KFS "/sessions", 0, ".."));
		EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, "."));
	}
	close(fd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/*
 * A name with a newline or blanks must not forge a line or a field of
 * trace_pipe, providers or format: a provider cannot be registered with
 * one, and a name a session enables (any bytes) is shown escaped.
 */
TEST_F(kfs, provider_names_in_text)
{
	static const uint8_t guid[KETW_GUID_SIZE] = { 0x6b, 0x66, 0x7a, 2 };
	struct ketw_user_provider up = { .size = sizeof(up) };
	char *b = self->buf;
	int ufd, fd;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "16"));
	ufd = open(KETW_USER_DEVICE, O_RDWR);
	ASSERT_LE(0, ufd);
	memcpy(up.guid, guid, sizeof(guid));
	/* The kernel refuses to register such a name (provider.c). */
	strcpy(up.name, "f\ncpu=9 ts=0 x");
	EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_REGISTER, &up));
	EXPECT_EQ(EINVAL, errno);

	/* Enabled by such a name: one line, the name in octal escapes. */
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_enable(fd, SESSION, "a b\nc", NULL, 1, 0, 0, NULL, 0, 0));
	close(fd);
	ASSERT_LT(0, sget(SESSION, "providers", b, BIG));
	EXPECT_STREQ("a\\040b\\012c level=1 match_any=0x0 match_all=0x0\n", b);
	ASSERT_LT(0, sget(SESSION, "event_set", b, BIG));
	EXPECT_STREQ("a\\040b\\012c:\n", b);
	close(ufd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/*
 * A user provider may hold a kernel provider's GUID (it registered first):
 * record lines name each by its own namespace, and providers and
 * event_set take "user." and a GUID for the user one.
 */
TEST_F(kfs, user_provider_namespace)
{
	struct ketw_user_provider up = { .size = sizeof(up) };
	struct ketw_user_event ev = { .size = sizeof(ev) };
	char *b = self->buf, p[256];
	int ufd, tp;
	ssize_t n;

	ufd = open(KETW_USER_DEVICE, O_RDWR);
	ASSERT_LE(0, ufd);
	ASSERT_EQ(0, system("rmmod ketw_sample"));
	memcpy(up.guid, sample_guid, KETW_GUID_SIZE);
	strcpy(up.name, "sampler");
	EXPECT_EQ(0, ioctl(ufd, KETW_IOC_USER_REGISTER, &up));
	ASSERT_EQ(0, system("insmod /ketw/ketw_sample.ko"));

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "rundown", "0"));
	ASSERT_EQ(0, sput(SESSION, "buffer_size_kb", "64"));
	ASSERT_EQ(0, sput(SESSION, "enable", "1"));
	ASSERT_EQ(0, sample_emit(2));
	ev.id = 9;
	EXPECT_EQ(1, ioctl(ufd, KETW_IOC_USER_WRITE, &ev));
	ASSERT_EQ(0, sput(SESSION, "enable", "0"));
	tp = open(spath(p, SESSION, "trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, tp);
	n = read(tp, b, BIG - 1);
	ASSERT_LT(0, n);
	b[n] = 0;
	close(tp);
	EXPECT_EQ(2, text_lines_with(b, " provider=" KETW_SAMPLE_NAME " id=1 "))
		TH_LOG("trace_pipe:\n%s", b);
	EXPECT_EQ(1, text_lines_with(b, " provider=" KETW_USER_PREFIX "sampler id=9 "));

	/* "user." and a GUID names the user provider's GUID. */
	ASSERT_EQ(0, sput(SESSION, "providers", KETW_USER_PREFIX "6b657477-7361-6d70-6c65-000000000001 3"));
	ASSERT_EQ(0, sput(SESSION, "providers", "6b657477-7361-6d70-6c65-000000000001 2"));
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ(KETW_USER_PREFIX "6b657477-7361-6d70-6c65-000000000001 level=3 match_any=0x0 match_all=0x0\n"
		     "6b657477-7361-6d70-6c65-000000000001 level=2 match_any=0x0 match_all=0x0\n", b);
	ASSERT_EQ(0, sput(SESSION, "event_set", KETW_USER_PREFIX "6b657477-7361-6d70-6c65-000000000001: 4"));
	sget(SESSION, "event_set", b, BIG);
	EXPECT_STREQ(KETW_USER_PREFIX "6b657477-7361-6d70-6c65-000000000001: 4\n"
		     "6b657477-7361-6d70-6c65-000000000001:\n", b);
	ASSERT_EQ(0, sput(SESSION, "providers", "!" KETW_USER_PREFIX "6b657477-7361-6d70-6c65-000000000001"));
	sget(SESSION, "providers", b, BIG);
	EXPECT_STREQ("6b657477-7361-6d70-6c65-000000000001 level=2 match_any=0x0 match_all=0x0\n", b);
	EXPECT_EQ(-EINVAL, sput(SESSION, "providers", KETW_USER_PREFIX "00000000-0000-0000-0000-000000000000"));
	close(ufd);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

struct filter_writer {
	volatile int stop;
	long writes;
};

/* Change the level of the sample provider, over and over. */
static void *level_writer(void *arg)
{
	struct filter_writer *fw = arg;
	char line[64];
	unsigned int n = 0;

	while (!fw->stop) {
		snprintf(line, sizeof(line), KETW_SAMPLE_NAME " %u", 1 + n++ % 5);
		if (!sput(SESSION, "providers", line))
			fw->writes++;
	}
	return NULL;
}

/*
 * providers keeps an entry's event set and event_set its level: each
 * reads the entry and writes it back. Two writers at once must not put
 * back what the other one just changed.
 */
TEST_F(kfs, providers_and_event_set_writers)
{
	struct filter_writer fw = { 0 };
	char *b = self->buf, want[64];
	unsigned int i, lost = 0;
	uint64_t end;
	pthread_t t;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	ASSERT_EQ(0, sput(SESSION, "providers", KETW_SAMPLE_NAME));
	ASSERT_EQ(0, pthread_create(&t, NULL, level_writer, &fw));
	end = mono_ns() + 3000000000ull;
	for (i = 0; mono_ns() < end; i++) {
		snprintf(want, sizeof(want), "%u", i % 1000);
		ASSERT_EQ(0, sput(SESSION, "event_set", want));
		sget(SESSION, "event_set", b, BIG);
		snprintf(want, sizeof(want), KETW_SAMPLE_NAME ": %u\n", i % 1000);
		lost += !!strcmp(b, want);
	}
	fw.stop = 1;
	pthread_join(t, NULL);
	TH_LOG("%u event_set writes, %ld providers writes", i, fw.writes);
	EXPECT_LT(0, fw.writes);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

struct churn {
	volatile int stop;
	long ops[4];
};

/* mkdir and rmdir one session. */
static void *churn_mkdir(void *arg)
{
	struct churn *c = arg;

	while (!c->stop) {
		if (!mkdir(KFS "/sessions/" SESSION, 0700))
			c->ops[0]++;
		rmdir(KFS "/sessions/" SESSION);
	}
	return NULL;
}

/* Create and destroy another through /dev/ketw. */
static void *churn_ioctl(void *arg)
{
	struct ketw_session_attr a;
	struct churn *c = arg;
	int fd = ketw_open();

	while (fd >= 0 && !c->stop) {
		ketw_attr_init(&a, SESSION2);
		a.buffer_kb = 8;
		if (!ioctl(fd, KETW_IOC_CREATE, &a))
			c->ops[1]++;
		ketw_ref(fd, KETW_IOC_START, SESSION2);
		ketw_ref(fd, KETW_IOC_DESTROY, SESSION2);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* List the sessions and read their files, whatever comes and goes. */
static void *churn_read(void *arg)
{
	static const char *const files[] = {
		"status", "stats", "trace", "providers", "enable",
		"per_cpu/cpu0/stats",
	};
	char buf[4096], p[256], name[KETW_NAME_MAX];
	struct churn *c = arg;
	struct dirent *de;
	unsigned int i;
	DIR *d;

	while (!c->stop) {
		d = opendir(KFS "/sessions");
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(name, sizeof(name), "%.31s", de->d_name);
			for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
				if (get(spath(p, name, files[i]), buf,
					sizeof(buf)) >= 0)
					c->ops[2]++;
		}
		closedir(d);
	}
	return NULL;
}

/* Change the buffers of both, start and stop them. */
static void *churn_write(void *arg)
{
	struct churn *c = arg;
	unsigned int n = 0;

	while (!c->stop) {
		const char *name = n & 1 ? SESSION : SESSION2;

		if (!sput(name, "buffer_size_kb", n & 2 ? "4" : "16"))
			c->ops[3]++;
		sput(name, "enable", "1");
		sput(name, "providers", KETW_SAMPLE_NAME);
		sput(name, "enable", "0");
		n++;
	}
	return NULL;
}

/* Sessions come and go under readers and writers: nothing breaks. */
TEST_F(kfs, churn)
{
	void *(*fn[])(void *) = {
		churn_mkdir, churn_ioctl, churn_read, churn_write,
	};
	struct churn c = { 0 };
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, fn[i], &c));
	sleep(3);
	c.stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	TH_LOG("mkdir %ld, create %ld, reads %ld, resizes %ld",
	       c.ops[0], c.ops[1], c.ops[2], c.ops[3]);
	EXPECT_LT(0, c.ops[0]);
	EXPECT_LT(0, c.ops[1]);
	EXPECT_LT(0, c.ops[2]);
	EXPECT_LT(0, c.ops[3]);
}

/* Without CAP_SYS_ADMIN nothing opens; without root nothing is seen. */
TEST_F(kfs, unprivileged_refused)
{
	pid_t pid;
	int status;

	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct cap[2];
		int fd;

		/* Root without CAP_SYS_ADMIN. */
		if (syscall(SYS_capget, &hdr, cap))
			_exit(10);
		cap[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
		if (syscall(SYS_capset, &hdr, cap))
			_exit(11);
		fd = open(KFS "/sessions/" SESSION "/status", O_RDONLY);
		if (fd >= 0 || errno != EPERM)
			_exit(12);
		if (!mkdir(KFS "/sessions/" SESSION2, 0700) || errno != EPERM)
			_exit(13);
		if (!rmdir(KFS "/sessions/" SESSION) || errno != EPERM)
			_exit(14);
		/* Nobody: the directories are root's, 0700. */
		if (setgid(65534) || setuid(65534))
			_exit(15);
		fd = open(KFS "/sessions/" SESSION "/status", O_RDONLY);
		_exit(fd < 0 && errno == EACCES ? 0 : 16);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(dir_has(KFS "/sessions", SESSION));
}

TEST_HARNESS_MAIN
