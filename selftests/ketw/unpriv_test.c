// SPDX-License-Identifier: GPL-2.0
/*
 * What a user without CAP_SYS_ADMIN (uid 1000) can do: nothing with
 * /dev/ketw or ketwfs; through /dev/ketw_user, once the user_gid group
 * lets it in, only what Documentation/ketw-providers.rst allows (one
 * provider per file, user_max_providers per user, user_max_events events
 * and user_max_bytes bytes per second that sessions take); root of its
 * own user namespace is no more; the ids records carry are the initial
 * pid namespace's; and nothing it can read shows a kernel address.
 */
#include "ketw_test.h"
#include <dirent.h>
#include <grp.h>
#include <regex.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include "kselftest_harness.h"

#define UID	1000
#define GID	1000
#define UID2	1001
#define PARAM(n)	"/sys/module/ketw/parameters/" n
#define SESSION	"unpriv_test"
#define KFS	"/tmp/unpriv_ketwfs"

static const uint8_t guid_base[16] = { 0x75, 0x6e, 0x70, 0x72, 0x69, 0x76 };

/* Become @uid (group @gid only); 0 or -errno. */
static int become(uid_t uid, gid_t gid)
{
	if (setgroups(1, &gid) || setgid(gid) || setuid(uid))
		return -errno;
	return 0;
}

static int user_register(int fd, const char *name, int n)
{
	struct ketw_user_provider up;

	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	memcpy(up.guid, guid_base, 16);
	up.guid[15] = (uint8_t)n;
	up.guid[14] = (uint8_t)(n >> 8);
	snprintf(up.name, sizeof(up.name), "%s-%d", name, n);
	return ioctl(fd, KETW_IOC_USER_REGISTER, &up) ? -errno : 0;
}

static int user_write(int fd, const void *data, uint32_t len)
{
	struct ketw_user_event ue;
	int ret;

	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.id = 1;
	ue.level = KETW_LEVEL_INFO;
	ue.data = (uintptr_t)data;
	ue.len = len;
	ret = ioctl(fd, KETW_IOC_USER_WRITE, &ue);
	return ret < 0 ? -errno : ret;
}

/* Run @fn as @uid in a child; its exit status (0: passed). */
static int as_user(uid_t uid, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(become(uid, GID) ? 100 : fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(unpriv) {
	char saved_gid[32], saved_prov[32], saved_ev[32], saved_by[32];
};

static void save(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

FIXTURE_SETUP(unpriv)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	save(PARAM("user_gid"), self->saved_gid, sizeof(self->saved_gid));
	save(PARAM("user_max_providers"), self->saved_prov, sizeof(self->saved_prov));
	save(PARAM("user_max_events"), self->saved_ev, sizeof(self->saved_ev));
	save(PARAM("user_max_bytes"), self->saved_by, sizeof(self->saved_by));
	ASSERT_NE('\0', self->saved_prov[0]) TH_LOG("no user_max_providers parameter");
	ketw_cleanup(SESSION);
}

FIXTURE_TEARDOWN(unpriv)
{
	write_str(PARAM("user_gid"), self->saved_gid);
	write_str(PARAM("user_max_providers"), self->saved_prov);
	write_str(PARAM("user_max_events"), self->saved_ev);
	write_str(PARAM("user_max_bytes"), self->saved_by);
	ketw_cleanup(SESSION);
	umount(KFS);
	rmdir(KFS);
	/* user_cannot_squat_a_driver reloads it: never leave it out. */
	if (access("/sys/module/ketw_sample", F_OK))
		ASSERT_EQ(0, system("insmod /ketw/ketw_sample.ko"));
}

static int try_control(void *arg)
{
	(void)arg;
	/* The node is 0600: the open itself is refused. */
	if (open(KETW_DEVICE, O_RDWR) >= 0 || errno != EACCES)
		return 1;
	/* Not in user_gid (-1): /dev/ketw_user (0666) refuses at open. */
	if (open(KETW_USER_DEVICE, O_RDWR) >= 0 || errno != EPERM)
		return 2;
	return 0;
}

TEST_F(unpriv, control_refused)
{
	ASSERT_EQ(0, write_str(PARAM("user_gid"), "-1"));
	EXPECT_EQ(0, as_user(UID, try_control, NULL));
}

/* Every path under @dir: opening, listing, writing and mkdir refused. */
static int try_ketwfs(void *arg)
{
	static const char *const paths[] = {
		KFS "/sessions", KFS "/providers", KFS "/sessions/" SESSION,
		KFS "/sessions/" SESSION "/enable", KFS "/sessions/" SESSION "/trace",
		KFS "/sessions/" SESSION "/trace_pipe",
	};
	unsigned int i;
	int fd;

	(void)arg;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		fd = open(paths[i], O_RDONLY);
		if (fd >= 0 || errno != EACCES)
			return 10 + i;
	}
	if (mkdir(KFS "/sessions/mine", 0700) == 0 || errno != EACCES)
		return 2;
	if (opendir(KFS) != NULL)
		return 3;
	return 0;
}

TEST_F(unpriv, ketwfs_refused)
{
	mkdir(KFS, 0755);
	ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, mkdir(KFS "/sessions/" SESSION, 0700));
	EXPECT_EQ(0, as_user(UID, try_ketwfs, NULL));
	EXPECT_EQ(0, rmdir(KFS "/sessions/" SESSION));
}

/* Register up to the limit on separate files; one more is ENOSPC. */
static int fill_providers(void *arg)
{
	int limit = *(int *)arg, fds[64], i, fd, err;

	for (i = 0; i < limit; i++) {
		fds[i] = open(KETW_USER_DEVICE, O_RDWR);
		if (fds[i] < 0 || user_register(fds[i], "up", getuid() * 100 + i))
			return 10;
	}
	/* One provider per file. */
	if (user_register(fds[0], "up-second", getuid() * 100 + 99) != -EBUSY)
		return 11;
	fd = open(KETW_USER_DEVICE, O_RDWR);
	err = user_register(fd, "up", getuid() * 100 + limit);
	if (err != -ENOSPC)
		return 12;
	/* Closing one gives its place back. */
	close(fds[0]);
	if (user_register(fd, "up", getuid() * 100 + limit))
		return 13;
	/* Control ioctls are not for this node. */
	if (ketw_ref(fd, KETW_IOC_START, SESSION) != -1 || errno != ENOTTY)
		return 14;
	/* Nothing to read here. */
	if (read(fd, &err, sizeof(err)) != -1 || errno != EINVAL)
		return 15;
	return 0;
}

TEST_F(unpriv, providers_per_user)
{
	int limit = 4, fd, i;

	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	ASSERT_EQ(0, write_str(PARAM("user_max_providers"), "4"));
	EXPECT_EQ(0, as_user(UID, fill_providers, &limit));
	/* Another user has a quota of its own (its processes are gone). */
	EXPECT_EQ(0, as_user(UID2, fill_providers, &limit));
	/* Root is not limited. */
	for (i = 0; i < 6; i++) {
		fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, user_register(fd, "root", 500 + i));
		/* leaked on purpose until exit: all held at once */
	}
}

struct rate {
	int sent, stored, again, other;
	uint32_t len;
	int tries;
};

/*
 * Log @tries events as fast as possible; the session (enabled by root
 * for "user.rate-<uid*100>") must get exactly the ones that were not EAGAIN.
 */
static int log_fast(void *arg)
{
	struct rate *r = arg;
	static char payload[KETW_MAX_DATA_SIZE + 1];
	int fd = open(KETW_USER_DEVICE, O_RDWR), i, ret;

	if (fd < 0 || user_register(fd, "rate", getuid() * 100))
		return 20;
	if (user_write(fd, payload, KETW_MAX_DATA_SIZE + 1) != -EINVAL)
		return 21;
	/* The parent enables us by name once registered: wait for it. */
	for (i = 0; i < 500 && user_write(fd, payload, 0) == 0; i++)
		usleep(10000);
	if (i == 500)
		return 22;
	for (i = 0; i < r->tries; i++) {
		ret = user_write(fd, payload, r->len);
		if (ret == 1)
			r->stored++;
		else if (ret == -EAGAIN)
			r->again++;
		else
			r->other++;
	}
	/* Report through the exit status: stored count, capped. */
	return r->other ? 23 : (r->stored > 120 ? 120 : r->stored) + 0;
}

/* Count the user records of session SESSION (stopped) on @fd. */
static int count_user_records(int fd)
{
	struct drained d = { 0 };
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	if (drain(fd, &d))
		return -1;
	while ((h = next_record(&d, &off, &bad)))
		n += !!(h->flags & KETW_RECORD_USER);
	free(d.buf);
	return bad ? -1 : n;
}

/*
 * The rates: user_max_events events per second. The child logs 400
 * events as fast as it can (well under a second's worth of refill at
 * 20/s); what it could store is the bucket (20) plus what refilled.
 */
static void rate_case(struct __test_metadata *_metadata, const char *ev,
		      const char *by, uint32_t len, int lo, int hi)
{
	struct rate r = { .len = len, .tries = 400 };
	struct ketw_session_attr a;
	int fd, status, stored;
	char name[32];
	uint64_t t0;
	pid_t pid;

	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	ASSERT_EQ(0, write_str(PARAM("user_max_events"), ev));
	ASSERT_EQ(0, write_str(PARAM("user_max_bytes"), by));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 256;
	a.policy = KETW_POLICY_UNTIL_FULL;
	ASSERT_EQ(0, session_start(fd, &a));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(become(UID, GID) ? 100 : log_fast(&r));
	snprintf(name, sizeof(name), KETW_USER_PREFIX "rate-%d", UID * 100);
	t0 = mono_ns();
	while (ketw_enable(fd, SESSION, name, NULL, 0, 0, 0, NULL, 0, 0) &&
	       mono_ns() - t0 < 5000000000ull)
		usleep(5000);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_GE(120, WEXITSTATUS(status)) TH_LOG("child step %d failed", WEXITSTATUS(status));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, SESSION));
	stored = count_user_records(fd);
	/* The probes that waited for the enable count too (len 0, 1 each). */
	EXPECT_LE(lo, stored);
	EXPECT_GE(hi, stored);
	EXPECT_GE(stored, WEXITSTATUS(status));
	ketw_ref(fd, KETW_IOC_DESTROY, SESSION);
	close(fd);
}

TEST_F_TIMEOUT(unpriv, events_per_second, 60)
{
	/* 20 in the bucket; 400 tries take well under a second here. */
	rate_case(_metadata, "20", "1000000", 8, 20, 60);
}

TEST_F_TIMEOUT(unpriv, bytes_per_second, 60)
{
	/* 4000 bytes: at most 4000 / 1000 + refill of 1000-byte events. */
	rate_case(_metadata, "100000", "4000", 1000, 3, 12);
}

static int user_write_ev(int fd, uint32_t id, uint8_t level, uint64_t kw)
{
	struct ketw_user_event ue;
	int ret;

	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.id = id;
	ue.level = level;
	ue.keyword = kw;
	ue.data = (uintptr_t)"filtered";
	ue.len = 8;
	ret = ioctl(fd, KETW_IOC_USER_WRITE, &ue);
	return ret < 0 ? -errno : ret;
}

/* What one run of FILTER_TRIES writes got. */
struct filt_run {
	int stored, again, other;
};

/* Level 1 and keyword 0x1 taken, event id 5 filtered out (see below). */
static const struct {
	const char *what;
	uint32_t id;
	uint8_t level;
	uint64_t keyword;
} filt_runs[] = {
	{ "filtered out by level", 1, KETW_LEVEL_VERBOSE, 0x1 },
	{ "filtered out by keyword", 1, KETW_LEVEL_CRITICAL, 0x2 },
	{ "filtered out by the event set", 5, KETW_LEVEL_CRITICAL, 0x1 },
	{ "taken", 1, KETW_LEVEL_CRITICAL, 0x1 },
};

#define FILTER_TRIES	15000
#define NR_FILT_RUNS	(sizeof(filt_runs) / sizeof(filt_runs[0]))

/*
 * As the user: register "user.filt-<uid*100>", say so on @pipes[1], wait
 * for the parent's go on @pipes[0], then make each run of filt_runs[]
 * with raw USER_WRITEs (the enable page would skip most of them) and
 * send back what they got.
 */
static int log_filtered(void *arg)
{
	int *pipes = arg, fd = open(KETW_USER_DEVICE, O_RDWR), ret;
	struct filt_run runs[NR_FILT_RUNS];
	unsigned int r, i;
	char c = 1;

	if (fd < 0 || user_register(fd, "filt", getuid() * 100))
		return 40;
	if (write(pipes[1], &c, 1) != 1 || read(pipes[0], &c, 1) != 1)
		return 41;
	memset(runs, 0, sizeof(runs));
	for (r = 0; r < NR_FILT_RUNS; r++) {
		for (i = 0; i < FILTER_TRIES; i++) {
			ret = user_write_ev(fd, filt_runs[r].id,
					    filt_runs[r].level,
					    filt_runs[r].keyword);
			if (ret == 1)
				runs[r].stored++;
			else if (ret == -EAGAIN)
				runs[r].again++;
			else if (ret)
				runs[r].other++;
		}
	}
	if (write(pipes[1], runs, sizeof(runs)) != sizeof(runs))
		return 42;
	return 0;
}

/*
 * Issue 22: the rates charged events that no session takes. With a
 * session taking level <= 1, keyword 0x1 and not event id 5, 15,000
 * events of each filtered-out kind cost nothing (no EAGAIN at 100
 * events/s), while taken ones still meet the limit: what was stored is
 * exactly what was not refused, and the session holds it all.
 */
TEST_F_TIMEOUT(unpriv, rate_charges_only_taken_events, 120)
{
	static const uint32_t filtered_id = 5;
	int to_child[2], from_child[2], pipes[2], fd, status, stored;
	struct filt_run runs[NR_FILT_RUNS];
	struct ketw_session_status st;
	struct ketw_session_attr a;
	unsigned int r;
	char name[32], c;
	pid_t pid;

	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	ASSERT_EQ(0, write_str(PARAM("user_max_events"), "100"));
	ASSERT_EQ(0, write_str(PARAM("user_max_bytes"), "1000000"));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(to_child[1]);
		close(from_child[0]);
		pipes[0] = to_child[0];
		pipes[1] = from_child[1];
		_exit(become(UID, GID) ? 100 : log_filtered(pipes));
	}
	close(to_child[0]);
	close(from_child[1]);
	ASSERT_EQ(1, read(from_child[0], &c, 1)) TH_LOG("the user could not register");
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 1024;
	a.policy = KETW_POLICY_UNTIL_FULL;
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	snprintf(name, sizeof(name), KETW_USER_PREFIX "filt-%d", UID * 100);
	ASSERT_EQ(0, ketw_enable(fd, SESSION, name, NULL, KETW_LEVEL_CRITICAL,
				 0x1, 0, &filtered_id, 1, 0));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_START, SESSION));
	c = 1;
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(sizeof(runs), read(from_child[0], runs, sizeof(runs)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("child step %d failed", WEXITSTATUS(status));
	for (r = 0; r < NR_FILT_RUNS; r++) {
		TH_LOG("%s: %d stored, %d EAGAIN of %d", filt_runs[r].what,
		       runs[r].stored, runs[r].again, FILTER_TRIES);
		EXPECT_EQ(0, runs[r].other);
		if (r + 1 < NR_FILT_RUNS) {
			EXPECT_EQ(0, runs[r].stored) TH_LOG("%s", filt_runs[r].what);
			EXPECT_EQ(0, runs[r].again) TH_LOG("%s", filt_runs[r].what);
		}
	}
	/* Taken: the bucket (100) and its refill, then EAGAIN. */
	r = NR_FILT_RUNS - 1;
	EXPECT_LE(100, runs[r].stored);
	EXPECT_LT(0, runs[r].again);
	EXPECT_EQ(FILTER_TRIES, runs[r].stored + runs[r].again);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, SESSION));
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	snprintf(st.name, sizeof(st.name), "%s", SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_STATUS, &st));
	EXPECT_EQ(0, st.lost);
	stored = count_user_records(fd);
	EXPECT_EQ(runs[r].stored, stored);
	close(from_child[0]);
	close(to_child[1]);
	ketw_ref(fd, KETW_IOC_DESTROY, SESSION);
	close(fd);
}

/*
 * A user takes the sample driver's name and GUID while the driver is not
 * loaded, then waits for @ready to be written to its pipe and holds on
 * until its stdin (a pipe) closes.
 */
static const uint8_t sample_guid_bytes[KETW_GUID_SIZE] = KETW_SAMPLE_GUID_BYTES;

static int squat(void *arg)
{
	int *pipes = arg, fd = open(KETW_USER_DEVICE, O_RDWR);
	struct ketw_user_provider up;
	char c = 1;

	if (fd < 0)
		return 30;
	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	memcpy(up.guid, sample_guid_bytes, KETW_GUID_SIZE);
	snprintf(up.name, sizeof(up.name), "%s", KETW_SAMPLE_NAME);
	if (ioctl(fd, KETW_IOC_USER_REGISTER, &up))
		return 31;
	if (write(pipes[1], &c, 1) != 1)
		return 32;
	/* Log while it is there: no session that took the driver gets it. */
	while (read(pipes[0], &c, 1) == 1)
		if (user_write(fd, "squatter", 8) < 0)
			return 33;
	return 0;
}

static int provider_flags(int fd, const char *name, uint32_t *uid)
{
	struct ketw_provider_info pi[64];
	struct ketw_list l;
	unsigned int i;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 64;
	l.entries = (uintptr_t)pi;
	if (ioctl(fd, KETW_IOC_PROVIDERS, &l))
		return -1;
	for (i = 0; i < l.count && i < 64; i++)
		if (!strcmp(pi[i].name, name)) {
			*uid = pi[i].uid;
			return (int)pi[i].flags;
		}
	return -1;
}

/*
 * Issue 17: a user registered "ketw-sample" before the driver loaded and
 * the driver's insmod failed with EEXIST. Now the user's provider is
 * "user.ketw-sample"; the driver loads; a session that names the driver
 * (by name or GUID) gets the driver's events only, flagged as a kernel
 * provider's, and the user's only reach a session that names them.
 */
TEST_F(unpriv, user_cannot_squat_a_driver)
{
	int to_child[2], from_child[2], pipes[2], fd, status, n = 0, user = 0;
	struct ketw_session_attr a;
	const struct ketw_event_header *h;
	struct drained d = { 0 };
	size_t off = 0;
	uint32_t uid = 0;
	pid_t pid;
	char c;
	int bad = 0;

	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	ASSERT_EQ(0, system("rmmod ketw_sample"));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(to_child[1]);
		close(from_child[0]);
		pipes[0] = to_child[0];
		pipes[1] = from_child[1];
		_exit(become(UID, GID) ? 100 : squat(pipes));
	}
	close(to_child[0]);
	close(from_child[1]);
	ASSERT_EQ(1, read(from_child[0], &c, 1)) TH_LOG("the user could not register");
	/* The driver loads all the same. */
	EXPECT_EQ(0, system("insmod /ketw/ketw_sample.ko"));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, provider_flags(fd, KETW_SAMPLE_NAME, &uid));
	EXPECT_EQ(KETW_PROVIDER_USER,
		  provider_flags(fd, KETW_USER_PREFIX KETW_SAMPLE_NAME, &uid));
	EXPECT_EQ(UID, uid);
	/* By GUID, as a consumer that knows the driver would. */
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(fd, SESSION, NULL, sample_guid_bytes, 0, 0, 0,
				 NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, sample_emit(5));
	c = 1;
	EXPECT_EQ(1, write(to_child[1], &c, 1));	/* the user logs now */
	EXPECT_EQ(1, write(to_child[1], &c, 1));
	close(to_child[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child step %d", WEXITSTATUS(status));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad))) {
		n += is_sample(h) && !(h->flags & KETW_RECORD_USER);
		user += !!(h->flags & KETW_RECORD_USER);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(5, n);
	EXPECT_EQ(0, user);
	free(d.buf);
	close(fd);
	close(from_child[0]);
	(void)pipes;
}

/*
 * In a new pid namespace, where it is pid 1: register "user.nsid-1", say
 * so, wait for the go, log one event and end (0 if it was pid 1).
 */
static int nsid_logger(int rfd, int wfd)
{
	int fd = open(KETW_USER_DEVICE, O_RDWR);
	char c = 1;

	if (fd < 0 || user_register(fd, "nsid", 1))
		return 50;
	if (write(wfd, &c, 1) != 1 || read(rfd, &c, 1) != 1)
		return 51;
	if (user_write(fd, "ns", 2) != 1)
		return 52;
	return getpid() == 1 ? 0 : 53;
}

/*
 * Issue 22: process_id, thread_id and the rundown's TASK records carry
 * the initial pid namespace's ids. A process that is pid 1 in its own
 * namespace logs an event: the record and its TASK record say its
 * host pid.
 */
TEST_F(unpriv, ids_of_the_initial_pid_namespace)
{
	int to_child[2], from_child[2], pid_pipe[2], fd, status, n = 0;
	int tasks = 0, bad = 0;
	const struct ketw_event_header *h;
	struct ketw_session_attr a;
	struct drained d = { 0 };
	size_t off = 0;
	pid_t mid, host_pid = 0;
	char c;

	KETW_REQUIRE_PATH("/proc/self/ns/pid", F_OK, "pid namespaces, CONFIG_PID_NS");
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	ASSERT_EQ(0, pipe(pid_pipe));
	mid = fork();
	ASSERT_LE(0, mid);
	if (!mid) {
		pid_t pid;

		if (unshare(CLONE_NEWPID))
			_exit(60);
		pid = fork();	/* pid 1 of the new namespace */
		if (!pid)
			_exit(nsid_logger(to_child[0], from_child[1]));
		/* This one is outside: fork() said the host's pid. */
		if (pid < 0 || write(pid_pipe[1], &pid, sizeof(pid)) != sizeof(pid) ||
		    waitpid(pid, &status, 0) != pid)
			_exit(61);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 62);
	}
	close(to_child[0]);
	close(from_child[1]);
	close(pid_pipe[1]);
	ASSERT_EQ(sizeof(host_pid), read(pid_pipe[0], &host_pid, sizeof(host_pid)));
	close(pid_pipe[0]);
	ASSERT_EQ(1, read(from_child[0], &c, 1)) TH_LOG("the logger could not register");
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(fd, SESSION, KETW_USER_PREFIX "nsid-1", NULL, 0,
				 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_RUNDOWN, SESSION));
	c = 1;
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(mid, waitpid(mid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("namespace child: status %#x", status);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad))) {
		if (is_system(h, KETW_SYS_TASK)) {
			const struct ketw_sys_task *t = (const void *)(h + 1);

			tasks += (pid_t)t->process_id == host_pid &&
				 (pid_t)t->thread_id == host_pid;
		} else if (h->flags & KETW_RECORD_USER) {
			EXPECT_EQ(host_pid, (pid_t)h->process_id);
			EXPECT_EQ(host_pid, (pid_t)h->thread_id);
			n++;
		}
	}
	EXPECT_EQ(0, bad);
	EXPECT_NE(1, host_pid);
	EXPECT_EQ(1, n);
	EXPECT_EQ(1, tasks);
	free(d.buf);
	close(fd);
	close(to_child[1]);
	close(from_child[0]);
}

/* CAP_SYS_ADMIN in the calling process's own user namespace? */
static int has_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return !!(data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)));
}

/*
 * As uid 1000, root of a user namespace of its own with every
 * capability there: still nothing of ketw's but what user_gid gives, and
 * limited like the user it is.
 */
static int try_as_ns_root(void *arg)
{
	int fd, fd2, map;
	char line[32];

	(void)arg;
	/* setuid() left it undumpable: /proc/self/uid_map would be root's. */
	if (prctl(PR_SET_DUMPABLE, 1) || unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 70;
	map = open("/proc/self/uid_map", O_WRONLY);
	snprintf(line, sizeof(line), "0 %d 1", UID);
	if (map < 0 || write(map, line, strlen(line)) < 0)
		return 71;
	close(map);
	if (getuid() != 0 || !has_sys_admin())
		return 72;
	if (open(KETW_DEVICE, O_RDWR) >= 0)
		return 73;
	if (mount("none", KFS, "ketwfs", 0, NULL) == 0 || errno != EPERM)
		return 74;
	/* user_gid is 1000: in, as a user (user_max_providers 1). */
	fd = open(KETW_USER_DEVICE, O_RDWR);
	fd2 = open(KETW_USER_DEVICE, O_RDWR);
	if (fd < 0 || fd2 < 0)
		return 75;
	if (user_register(fd, "nsroot", 1))
		return 76;
	if (user_register(fd2, "nsroot", 2) != -ENOSPC)
		return 77;
	if (ketw_ref(fd, KETW_IOC_START, SESSION) != -1 || errno != ENOTTY)
		return 78;
	return 0;
}

static int try_as_ns_root_outside(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWUSER))
		return 80;
	/* Not in user_gid (-1): capable() is the initial namespace's. */
	if (open(KETW_USER_DEVICE, O_RDWR) >= 0 || errno != EPERM)
		return 81;
	return 0;
}

/*
 * Issue 22: only CAP_SYS_ADMIN in the initial user namespace controls
 * sessions (capable(), not ns_capable()).
 */
TEST_F(unpriv, root_of_a_user_namespace_is_a_user)
{
	KETW_REQUIRE_PATH("/proc/self/ns/user", F_OK, "user namespaces, CONFIG_USER_NS");
	ASSERT_EQ(0, write_str(PARAM("user_gid"), "-1"));
	EXPECT_EQ(0, as_user(UID, try_as_ns_root_outside, NULL));
	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	ASSERT_EQ(0, write_str(PARAM("user_max_providers"), "1"));
	mkdir(KFS, 0755);
	EXPECT_EQ(0, as_user(UID, try_as_ns_root, NULL));
}

/* Anything that looks like a kernel address (not a small number). */
static int has_kernel_address(const char *s)
{
	regex_t re;
	int found;

	if (regcomp(&re, "(0x)?ffff[0-9a-f]{12}", REG_EXTENDED | REG_ICASE))
		return -1;
	found = !regexec(&re, s, 0, NULL, 0);
	regfree(&re);
	return found;
}

static int scan_dir(const char *dir, int *files)
{
	char path[512], buf[4096];
	struct dirent *e;
	ssize_t n;
	DIR *d;
	int fd;

	d = opendir(dir);
	if (!d)
		return 0;	/* not readable: nothing shown */
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			if (scan_dir(path, files))
				return 1;
			continue;
		}
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		(*files)++;
		if (has_kernel_address(buf)) {
			fprintf(stderr, "# %s shows a kernel address\n", path);
			return 1;
		}
	}
	closedir(d);
	return 0;
}

static int scan_readable(void *arg)
{
	int files = 0;

	(void)arg;
	if (scan_dir("/sys/module/ketw", &files) ||
	    scan_dir("/sys/module/ketw_sample", &files) ||
	    scan_dir(KFS, &files))
		return 1;
	/* The parameters at least are readable, so the scan saw files. */
	return files >= 4 ? 0 : 2;
}

TEST_F(unpriv, no_kernel_address_readable)
{
	mkdir(KFS, 0755);
	ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL));
	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	EXPECT_EQ(1, has_kernel_address("at ffff888003a1c000"));	/* the check works */
	EXPECT_EQ(0, as_user(UID, scan_readable, NULL));
}

TEST_HARNESS_MAIN
