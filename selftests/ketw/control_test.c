// SPDX-License-Identifier: GPL-2.0
/*
 * ketw control: the /dev/ketw ioctls, their errors, and who may use them.
 */
#include "ketw_test.h"
#include <sys/mman.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define SESSION "ctl_test"

FIXTURE(dev) {
	int fd;
	struct ketw_session_attr attr;
};

FIXTURE_SETUP(dev)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KETW_DEVICE, strerror(errno));
	ketw_attr_init(&self->attr, SESSION);
}

FIXTURE_TEARDOWN(dev)
{
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
}

/* Zeros become the documented defaults; the state follows the calls. */
TEST_F(dev, create_defaults_and_states)
{
	struct ketw_session_attr got;
	struct timespec now;

	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	clock_gettime(CLOCK_REALTIME, &now);
	EXPECT_EQ(sizeof(self->attr), self->attr.size);
	EXPECT_EQ(KETW_BUFFER_KB_DEFAULT, self->attr.buffer_kb);
	EXPECT_EQ(KETW_POLICY_DEFAULT, self->attr.policy);
	EXPECT_EQ(KETW_CLOCK_DEFAULT, self->attr.clock);
	EXPECT_EQ(KETW_MAX_DATA_DEFAULT, self->attr.max_data_size);
	EXPECT_EQ((uint32_t)sysconf(_SC_NPROCESSORS_CONF), self->attr.nr_cpus);
	EXPECT_LE(1, self->attr.clock_resolution);
	EXPECT_EQ(KETW_STATE_CREATED, self->attr.state);
	EXPECT_GE((uint64_t)now.tv_sec * 1000000000ull + now.tv_nsec,
		  self->attr.creation_time);
	EXPECT_LE((uint64_t)(now.tv_sec - 60) * 1000000000ull,
		  self->attr.creation_time);

	ketw_attr_init(&got, SESSION);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_ATTR, &got));
	EXPECT_EQ(KETW_STATE_RUNNING, got.state);
	EXPECT_EQ(self->attr.creation_time, got.creation_time);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_ATTR, &got));
	EXPECT_EQ(KETW_STATE_SUSPENDED, got.state);
	/* A stopped session can run again. */
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION));
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_GET_ATTR, &got));
	EXPECT_EQ(ENOENT, errno);
}

/* Buffer sizes round up to a power of two pages. */
TEST_F(dev, buffer_size_rounds_up)
{
	self->attr.buffer_kb = 5;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(8, self->attr.buffer_kb);
	/*
	 * The largest record, with room for an OVERFLOW and RESUME pair,
	 * fits in half a buffer.
	 */
	EXPECT_EQ(4096 - KETW_SYSTEM_RESERVE - KETW_EVENT_HEADER_SIZE,
		  self->attr.max_data_size);
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	char buf[256] = { 0 };

	EXPECT_EQ(-1, ioctl(self->fd, _IO(KETW_IOC_MAGIC, 99)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW('x', 1, struct ketw_session_ref), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* A known number with another direction or size is another command. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(KETW_IOC_MAGIC, 2, struct ketw_session_ref), buf));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, bad_struct_size)
{
	struct {
		struct ketw_session_attr a;
		uint64_t tail;
	} big;

	self->attr.size = 8;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(EINVAL, errno);
	self->attr.size = KETW_SESSION_ATTR_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(EINVAL, errno);
	self->attr.size = 1 << 20;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(E2BIG, errno);

	/* A newer, longer struct: accepted if its tail is zero. */
	memset(&big, 0, sizeof(big));
	ketw_attr_init(&big.a, SESSION);
	big.a.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &big));
	EXPECT_EQ(E2BIG, errno);
	big.tail = 0;
	EXPECT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &big));
	EXPECT_EQ(sizeof(big.a), big.a.size);
}

TEST_F(dev, bad_pointer_is_efault)
{
	void *bad;

	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_START, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CPU_STATS, (void *)-4096L));
	EXPECT_EQ(EFAULT, errno);
	/* Read into a page that is not mapped any more. */
	bad = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bad);
	ASSERT_EQ(0, munmap(bad, 4096));
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	EXPECT_EQ(-1, read(self->fd, bad, 4096));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, bad_attributes_are_einval)
{
	static const char *const names[] = {
		"", "has space", "slash/", ".", "..",
		"0123456789012345678901234567890x",
	};
	struct ketw_session_ref ref;
	struct ketw_session_attr a;
	unsigned int i;

#define EXPECT_CREATE_FAILS(err, field, value) do {			\
		ketw_attr_init(&a, SESSION);				\
		a.field = value;					\
		EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &a))	\
			TH_LOG(#field " = " #value " was accepted");	\
		EXPECT_EQ(err, errno);					\
	} while (0)

	EXPECT_CREATE_FAILS(EINVAL, flags, KETW_SESSION_FLAGS + 1);
	EXPECT_CREATE_FAILS(EINVAL, ext_items, 1);
	EXPECT_CREATE_FAILS(EINVAL, ext_items, 1u << (KETW_EXT_MAX_TYPE + 1));
	EXPECT_CREATE_FAILS(EINVAL, policy, 4);
	EXPECT_CREATE_FAILS(EINVAL, clock, 99);
	EXPECT_CREATE_FAILS(EINVAL, level, 6);
	EXPECT_CREATE_FAILS(EINVAL, buffer_kb, 1);
	EXPECT_CREATE_FAILS(EINVAL, buffer_kb, KETW_BUFFER_KB_MAX + 1);
	EXPECT_CREATE_FAILS(EINVAL, buffer_kb, 0xffffffffu);
	EXPECT_CREATE_FAILS(EINVAL, max_data_size, KETW_MAX_DATA_SIZE + 1);
	/* Larger than half the (default 1 MiB) buffer is fine; half of 4 KiB is not. */
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 4;
	a.max_data_size = 4000;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &a));
	EXPECT_EQ(EINVAL, errno);

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* The last one fills all 32 bytes: no terminating NUL. */
		ketw_attr_init(&a, "x");
		memset(a.name, 0, sizeof(a.name));
		memcpy(a.name, names[i], strnlen(names[i], KETW_NAME_MAX));
		EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &a))
			TH_LOG("name '%s' was accepted", names[i]);
		EXPECT_EQ(EINVAL, errno);
	}
	/* An unterminated name in a session reference. */
	memset(&ref, 'a', sizeof(ref));
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_START, &ref));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was created by any of that. */
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(ENOENT, errno);
#undef EXPECT_CREATE_FAILS
}

TEST_F(dev, state_errors)
{
	struct ketw_session_attr dup;

	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_EQ(EALREADY, errno);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(EBUSY, errno);
	ketw_attr_init(&dup, SESSION);
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &dup));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_STOP, "no_such_session"));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_ATTACH, "no_such_session"));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(dev, cpu_stats_bad_cpu)
{
	struct ketw_cpu_stats st;

	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	EXPECT_EQ(-EINVAL, cpu_stats(self->fd, SESSION, self->attr.nr_cpus, &st));
	EXPECT_EQ(-EINVAL, cpu_stats(self->fd, SESSION, 0xffffffffu, &st));
	EXPECT_EQ(-ENOENT, cpu_stats(self->fd, "no_such_session", 0, &st));
	EXPECT_EQ(0, cpu_stats(self->fd, SESSION, 0, &st));
}

/* Destroy waits for other readers; the session's own file may destroy it. */
TEST_F(dev, destroy_busy_while_attached)
{
	int fd2 = ketw_open();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_ref(fd2, KETW_IOC_ATTACH, SESSION));
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION));
	EXPECT_EQ(EBUSY, errno);
	close(fd2);
	EXPECT_EQ(0, ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION));
}

/* Up to 64 sessions at once; the 65th is refused. */
TEST_F(dev, sixty_four_sessions)
{
	struct ketw_session_attr a;
	char name[KETW_NAME_MAX];
	int i, made = 0;
	long long before;

	for (i = 0; i < 65; i++) {
		snprintf(name, sizeof(name), "many.%d", i);
		ketw_cleanup(name);
	}
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "many.%d", i);
		ketw_attr_init(&a, name);
		a.buffer_kb = 4;
		if (!ioctl(self->fd, KETW_IOC_CREATE, &a) &&
		    !ketw_ref(self->fd, KETW_IOC_START, name))
			made++;
	}
	/* Another test's session may linger only if that test failed. */
	EXPECT_EQ(64, made);
	ketw_attr_init(&a, "many.64");
	a.buffer_kb = 4;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_CREATE, &a));
	EXPECT_EQ(ENOSPC, errno);
	/* All 64 receive the same event. */
	before = read_ll(SAMPLE_PARAM("stored"));
	ASSERT_EQ(0, sample_emit(1));
	EXPECT_EQ(64, read_ll(SAMPLE_PARAM("stored")) - before);
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "many.%d", i);
		EXPECT_EQ(0, ketw_ref(self->fd, KETW_IOC_DESTROY, name));
	}
}

/* Only root with CAP_SYS_ADMIN: the node is 0600, and open checks the cap. */
TEST(unprivileged_refused)
{
	struct stat st;
	pid_t pid;
	int status;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	ASSERT_EQ(0, stat(KETW_DEVICE, &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	EXPECT_EQ(0, st.st_uid);

	/* Open the node to everybody for a moment: the capability still holds. */
	ASSERT_EQ(0, chmod(KETW_DEVICE, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd, err;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = open(KETW_DEVICE, O_RDWR);
		err = fd < 0 ? errno : 0;
		_exit(err == EPERM ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, chmod(KETW_DEVICE, 0600));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("unprivileged open was not EPERM");

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = open(KETW_DEVICE, O_RDWR);
		_exit(fd < 0 && errno == EACCES ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("mode 0600 did not refuse");
}

/* @name's entry in a KETW_IOC_SESSIONS list of @n entries at @stride. */
static const struct ketw_session_info *
list_find(const void *arr, size_t stride, uint32_t n, const char *name)
{
	const struct ketw_session_info *e;
	uint32_t i;

	for (i = 0; i < n; i++) {
		e = (const void *)((const char *)arr + i * stride);
		if (!strncmp(e->name, name, KETW_NAME_MAX))
			return e;
	}
	return NULL;
}

/*
 * KETW_IOC_SESSIONS lists every session with its attributes, state,
 * providers, readers and totals, resets nothing, and checks its sizes.
 */
TEST_F(dev, sessions_list)
{
	static const char *const names[] = { "ls_loop", "ls_full", "ls_flush" };
	static const uint32_t policies[] = { KETW_POLICY_LOOP,
		KETW_POLICY_UNTIL_FULL, KETW_POLICY_FLUSH };
	static const uint32_t kbs[] = { 8, 16, 32 };
	static const uint32_t levels[] = { 3, 0, 5 };	/* ls_full takes all */
	const size_t stride = sizeof(struct ketw_session_info) + 16;
	const struct ketw_session_info *e;
	struct ketw_session_status st;
	struct ketw_session_list l;
	struct ketw_session_attr a;
	unsigned char *arr, *tail;
	int fds[3], reader, i, j;

	arr = malloc(64 * stride);
	ASSERT_NE(NULL, arr);
	for (i = 0; i < 3; i++) {
		ketw_cleanup(names[i]);
		fds[i] = ketw_open();
		ASSERT_LE(0, fds[i]);
		ketw_attr_init(&a, names[i]);
		a.policy = policies[i];
		a.buffer_kb = kbs[i];
		a.clock = KETW_CLOCK_BOOT;
		a.level = levels[i];
		ASSERT_EQ(0, ioctl(fds[i], KETW_IOC_CREATE, &a)) TH_LOG("%s", names[i]);
	}
	/* ls_loop runs and takes the sample provider only; ls_full has a second reader. */
	ASSERT_EQ(0, ketw_enable(fds[0], names[0], "ketw-sample", NULL, 0, 0, 0,
				 NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(fds[0], KETW_IOC_START, names[0]));
	ASSERT_EQ(0, sample_emit(20));
	reader = ketw_open();
	ASSERT_LE(0, reader);
	ASSERT_EQ(0, ketw_ref(reader, KETW_IOC_ATTACH, names[1]));

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 64;
	l.entry_size = stride;
	l.entries = (uintptr_t)arr;
	memset(arr, 0xa5, 64 * stride);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
	EXPECT_EQ(sizeof(l), l.size);
	EXPECT_LE(3, l.count);
	for (i = 0; i < 3; i++) {
		e = list_find(arr, stride, l.count, names[i]);
		ASSERT_NE(NULL, e) TH_LOG("%s not listed", names[i]);
		EXPECT_EQ(policies[i], e->policy);
		EXPECT_EQ(kbs[i], e->buffer_kb);
		EXPECT_EQ(KETW_CLOCK_BOOT, e->clock);
		EXPECT_EQ(levels[i], e->level);
		EXPECT_EQ((uint32_t)sysconf(_SC_NPROCESSORS_CONF), e->nr_cpus);
		EXPECT_EQ(i ? KETW_STATE_CREATED : KETW_STATE_RUNNING, e->state);
		EXPECT_EQ(i == 1 ? 2u : 1u, e->readers);
		EXPECT_EQ(i ? KETW_SESSION_INFO_ALL_PROVIDERS : 0u, e->info_flags);
		EXPECT_EQ(i ? 0u : 1u, e->nr_providers);
		EXPECT_LT(0, e->memory);
		EXPECT_LT(0, e->creation_time);
		/* The tail the kernel does not know is zeroed. */
		tail = (unsigned char *)e + sizeof(*e);
		for (j = 0; j < 16; j++)
			EXPECT_EQ(0, tail[j]);
	}
	e = list_find(arr, stride, l.count, names[0]);
	ASSERT_NE(NULL, e);
	/* START, the rundown and 20 sample events. */
	EXPECT_LE(21, e->written);
	EXPECT_EQ(0, e->lost);

	/* Capacity 0: the count, nothing written. */
	memset(arr, 0xa5, stride);
	l.capacity = 0;
	l.count = 0;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
	EXPECT_LE(3, l.count);
	EXPECT_EQ(0xa5, arr[0]);
	/* Entry sizes: below version 0, above a page; a bad address. */
	l.capacity = 64;
	l.entry_size = KETW_SESSION_INFO_SIZE_VER0 - 1;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
	EXPECT_EQ(EINVAL, errno);
	l.entry_size = getpagesize() + 1;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
	EXPECT_EQ(E2BIG, errno);
	l.entry_size = stride;
	l.entries = 8;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
	EXPECT_EQ(EFAULT, errno);
	l.entries = (uintptr_t)arr;
	/* A struct with a non-zero unknown tail. */
	{
		unsigned char big[sizeof(l) + 8] = { 0 };

		memcpy(big, &l, sizeof(l));
		((struct ketw_session_list *)big)->size = sizeof(big);
		big[sizeof(l)] = 1;
		EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_SESSIONS, big));
		EXPECT_EQ(E2BIG, errno);
	}

	/*
	 * ls_full overflows; listing it twice counts the loss and leaves the
	 * POSIX overrun status for STATUS, which alone resets it.
	 */
	ASSERT_EQ(0, ketw_ref(fds[1], KETW_IOC_START, names[1]));
	ASSERT_EQ(0, sample_emit(2000));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
		e = list_find(arr, stride, l.count, names[1]);
		ASSERT_NE(NULL, e);
		EXPECT_LT(0, e->lost);
	}
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	snprintf(st.name, sizeof(st.name), "%s", names[1]);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_STATUS, &st));
	EXPECT_EQ(KETW_OVERRUN_OVERRUN, st.overrun_status);
	EXPECT_EQ(e->lost, st.lost);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_STATUS, &st));
	EXPECT_EQ(KETW_OVERRUN_NONE, st.overrun_status);

	close(reader);
	for (i = 0; i < 3; i++) {
		ketw_ref(fds[i], KETW_IOC_DESTROY, names[i]);
		close(fds[i]);
	}
	/* Gone from the list. */
	l.entries = (uintptr_t)arr;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_SESSIONS, &l));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(NULL, list_find(arr, stride, l.count, names[i]));
	free(arr);
}

/* After all that bad input, a whole session still works. */
TEST_F(dev, still_works_after_bad_input)
{
	struct drained d = { 0 };
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	ioctl(self->fd, KETW_IOC_CREATE, (void *)8);
	ioctl(self->fd, _IO(KETW_IOC_MAGIC, 99));
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, sample_emit(50));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &d));
	while ((h = next_record(&d, &off, &bad)))
		n += is_sample(h);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(50, n);
	free(d.buf);
}

TEST_HARNESS_MAIN
