// SPDX-License-Identifier: GPL-2.0
/*
 * Process filters (KETW_IOC_SET_PIDS, KETW_IOC_GET_PIDS, ketwfs's pids,
 * ketw start --pid) and starting a stopped session again:
 *
 *   - a filter to one process: a user provider (libketw) written by two
 *     processes, and the sample kernel provider from two processes, in
 *     task and NMI context: only the filtered process's events land;
 *   - KETW_PIDS_INHERIT: a child forked after the set and its own child
 *     are traced; without it they are not;
 *   - a process that ends leaves the filter (GET no longer lists it); a
 *     filter whose processes all ended takes nothing;
 *   - a full filter: KETW_PIDS_MAX processes, the children beyond are
 *     counted (pids_dropped) and not traced, and room again when they
 *     end; churn: thousands of children joining and leaving (the
 *     table's compaction), lookups exact throughout;
 *   - a pid namespace: a process in a new one sets a filter with that
 *     namespace's pids and reads them back so, the host sees the host's
 *     pids and the right process traced, and the namespace does not see
 *     the host's processes;
 *   - errors: ESRCH, EINVAL, ENOENT, EPERM (no CAP_SYS_ADMIN), EFAULT,
 *     ENOTTY on /dev/ketw_user;
 *   - the FILTER record a SET logs on a running session;
 *   - ketwfs's pids file, the CLI;
 *   - a race: threads set and clear filters, stop, start, destroy and
 *     create sessions while processes write, fork and exit;
 *   - resume: STOP then START keeps the records, and START comes between;
 *     an UNTIL_FULL session still full is not resumed (ENOSPC).
 */
#include "ketw_test.h"
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "ketw_provider.h"
#include "kselftest_harness.h"

#define SESSION		"pids_test"
#define SESSION2	"pids_test2"
#define TOOL		"/ketw/ketw"
#define KFS		"/tmp/pids_test_kfs"
#define KFS_PIDS	KFS "/sessions/" SESSION "/pids"
#define KFS_STATUS	KFS "/sessions/" SESSION "/status"
#define NO_PID		4194303		/* PID_MAX_LIMIT - 1: never used here */
#define FULL_KIDS	(KETW_PIDS_MAX + 76)	/* P and its children: 77 too many */
#define RACE_SECONDS	8

/* A user provider, registered by the test and shared by its children. */
static const struct ketw_event_descriptor uevents[] = {
	{ .id = 3, .type = KETW_TYPE_INFO, .level = KETW_LEVEL_INFO,
	  .keyword = 0x1, .name = "ping" },
};

#define UGUID { 0x70, 0x69, 0x64, 0x73, 0x2d, 0x74, 0x65, 0x73, \
		0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }
static const uint8_t uguid[KETW_GUID_SIZE] = UGUID;
static KETW_PROVIDER_EVENTS(uprov, "pids-test", uevents, UGUID);

/* ---- the requests ---------------------------------------------------- */

static void pf_init(struct ketw_pid_filter *pf, const char *session)
{
	memset(pf, 0, sizeof(*pf));
	snprintf(pf->session, sizeof(pf->session), "%s", session);
	pf->size = sizeof(*pf);
}

static int set_pids_on(int fd, const char *session, const int32_t *pids,
		       uint32_t n, uint32_t flags)
{
	struct ketw_pid_filter pf;

	pf_init(&pf, session);
	pf.flags = flags;
	pf.count = n;
	pf.pids = (uintptr_t)pids;
	return ioctl(fd, KETW_IOC_SET_PIDS, &pf) ? -errno : 0;
}

static int set_pids(int fd, const int32_t *pids, uint32_t n, uint32_t flags)
{
	return set_pids_on(fd, SESSION, pids, n, flags);
}

/* GET_PIDS of SESSION into @pids (room for KETW_PIDS_MAX); -errno. */
static int get_pids(int fd, int32_t *pids, uint32_t *count, uint32_t *flags)
{
	struct ketw_pid_filter pf;

	pf_init(&pf, SESSION);
	pf.capacity = KETW_PIDS_MAX;
	pf.pids = (uintptr_t)pids;
	if (ioctl(fd, KETW_IOC_GET_PIDS, &pf))
		return -errno;
	*count = pf.count;
	*flags = pf.flags;
	return 0;
}

static int has_pid(const int32_t *pids, uint32_t n, int32_t pid)
{
	for (uint32_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

/* ---- processes -------------------------------------------------------- */

/*
 * A process that runs @fn once it reads a byte from its @go pipe; @fn
 * may read more bytes from it (proc_go() again) for its later steps.
 * Descendants report numbers on the result pipe.
 */
struct proc {
	pid_t pid;
	int go;		/* the write end, ours */
	int gr;		/* the read end, the process's */
};

static int res[2] = { -1, -1 };	/* descendants -> the test */

static void report(int32_t v)
{
	if (write(res[1], &v, sizeof(v)) != sizeof(v))
		_exit(97);
}

/* The next number a descendant reported, or -1 after 30 s. */
static int32_t result(void)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	int32_t v;
	ssize_t n;

	for (int i = 0; i < 3000; i++) {
		n = read(res[0], &v, sizeof(v));
		if (n == sizeof(v))
			return v;
		nanosleep(&ts, NULL);
	}
	return -1;
}

static int proc_start(struct proc *p, void (*fn)(struct proc *, void *),
		      void *arg)
{
	int fds[2];
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (!p->pid) {
		close(fds[1]);
		p->gr = fds[0];
		/* Ended before it was let go (proc_end()'s 'q'): nothing. */
		if (read(p->gr, &c, 1) != 1 || c == 'q')
			_exit(0);
		fn(p, arg);
		_exit(0);
	}
	close(fds[0]);
	p->go = fds[1];
	return 0;
}

static void proc_go(struct proc *p)
{
	if (write(p->go, "g", 1) != 1)
		perror("proc_go");
}

/* In the process: wait for the next proc_go(). */
static void proc_step(struct proc *p)
{
	char c;

	if (read(p->gr, &c, 1) != 1)
		_exit(91);
}

/*
 * Let it finish and reap it: its exit status. A 'q', not only the close:
 * the processes started after it hold its pipe too.
 */
static int proc_end(struct proc *p)
{
	int st;

	/* EPIPE: it ended already (SIGPIPE is ignored). */
	if (write(p->go, "q", 1) != 1 && errno != EPIPE)
		perror("proc_end");
	close(p->go);
	if (waitpid(p->pid, &st, 0) != p->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void fn_emit(struct proc *p, void *arg)
{
	(void)p;
	if (sample_emit((uintptr_t)arg))
		_exit(92);
	report(getpid());
}

static void fn_user(struct proc *p, void *arg)
{
	(void)p;
	for (uintptr_t i = 0; i < (uintptr_t)arg; i++)
		if (ketw_write(&uprov, &uevents[0], &i, sizeof(i)) < 0)
			_exit(93);
	report(getpid());
}

/* Tick events from the task and from an NMI it takes. */
static void fn_ctx(struct proc *p, void *arg)
{
	(void)p;
	(void)arg;
	if (write_str(SAMPLE_PARAM("emit_ctx"), "task") ||
	    write_str(SAMPLE_PARAM("emit_ctx"), "irqsoff") ||
	    write_str(SAMPLE_PARAM("emit_ctx"), "nmi"))
		_exit(94);
	report(getpid());
}

/* P emits, forks C which emits and forks G which emits; each reports. */
static void fn_tree(struct proc *p, void *arg)
{
	pid_t c, g;

	(void)p;
	(void)arg;
	c = fork();
	if (!c) {
		g = fork();
		if (!g) {
			sample_emit(3);
			report(getpid());
			_exit(0);
		}
		waitpid(g, NULL, 0);
		sample_emit(3);
		report(getpid());
		_exit(0);
	}
	waitpid(c, NULL, 0);
	sample_emit(3);
	report(getpid());
}

/* Wait for proc_go() or proc_end(); nothing else. */
static void fn_idle(struct proc *p, void *arg)
{
	char c;

	(void)arg;
	if (read(p->gr, &c, 1) < 0)
		_exit(90);
}

/* ---- records ---------------------------------------------------------- */

/* Sample ticks (any context) from process @pid (0: interrupt context). */
static int ticks_of(const struct drained *d, int32_t pid, int index)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	while ((h = next_record(d, &off, &bad)))
		if (is_sample(h) && h->event_id == KETW_SAMPLE_EV_TICK &&
		    (int32_t)h->process_id == pid &&
		    (index < 0 || *(const uint32_t *)(h + 1) == (uint32_t)index))
			n++;
	return bad ? -1 : n;
}

static int user_events_of(const struct drained *d, int32_t pid)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, n = 0;

	while ((h = next_record(d, &off, &bad)))
		if ((h->flags & KETW_RECORD_USER) &&
		    !memcmp(h->provider_guid, uguid, KETW_GUID_SIZE) &&
		    (int32_t)h->process_id == pid)
			n++;
	return bad ? -1 : n;
}

/* ---- the fixture: a running LOOP session attached to self->fd -------- */

FIXTURE(pids) {
	int fd;
	struct drained d;
};

static void session_make(struct __test_metadata *_metadata, int fd,
			 const char *name, uint32_t policy, uint32_t kb)
{
	struct ketw_session_attr a;

	ketw_attr_init(&a, name);
	a.policy = policy;
	a.buffer_kb = kb;
	ASSERT_EQ(0, session_start(fd, &a));
}

FIXTURE_SETUP(pids)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	/* proc_end()'s 'q' to a process that is gone already. */
	signal(SIGPIPE, SIG_IGN);
	ketw_cleanup(SESSION);
	ketw_cleanup(SESSION2);
	memset(&self->d, 0, sizeof(self->d));
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	session_make(_metadata, self->fd, SESSION, KETW_POLICY_LOOP, 1024);
	ASSERT_EQ(0, pipe2(res, O_CLOEXEC | O_NONBLOCK));
}

FIXTURE_TEARDOWN(pids)
{
	if (self->fd >= 0) {
		ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
		close(self->fd);
	}
	ketw_cleanup(SESSION2);
	close(res[0]);
	close(res[1]);
	free(self->d.buf);
}

/* Stop the fixture's session and drain it into self->d. */
static int stop_drain(int fd, struct drained *d)
{
	if (ketw_ref(fd, KETW_IOC_STOP, SESSION))
		return -errno;
	return drain(fd, d);
}

/* ---- filtering -------------------------------------------------------- */

TEST_F(pids, user_provider_one_process)
{
	struct proc a, b;
	int32_t pa, pb, pid;

	ASSERT_EQ(0, ketw_provider_register(&uprov));
	ASSERT_EQ(0, proc_start(&a, fn_user, (void *)5));
	ASSERT_EQ(0, proc_start(&b, fn_user, (void *)5));
	pid = a.pid;
	ASSERT_EQ(0, set_pids(self->fd, &pid, 1, 0));
	proc_go(&a);
	proc_go(&b);
	pa = result();
	pb = result();
	EXPECT_EQ(0, proc_end(&a));
	EXPECT_EQ(0, proc_end(&b));
	EXPECT_TRUE((pa == a.pid && pb == b.pid) || (pa == b.pid && pb == a.pid));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(5, user_events_of(&self->d, a.pid));
	EXPECT_EQ(0, user_events_of(&self->d, b.pid));
	ketw_provider_unregister(&uprov);
}

TEST_F(pids, kernel_provider_one_process)
{
	struct proc a, b;

	ASSERT_EQ(0, proc_start(&a, fn_emit, (void *)4));
	ASSERT_EQ(0, proc_start(&b, fn_emit, (void *)4));
	ASSERT_EQ(0, set_pids(self->fd, &a.pid, 1, 0));
	proc_go(&a);
	proc_go(&b);
	EXPECT_LT(0, result());
	EXPECT_LT(0, result());
	EXPECT_EQ(0, proc_end(&a));
	EXPECT_EQ(0, proc_end(&b));
	/* Our own ticks are not taken either. */
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(4, ticks_of(&self->d, a.pid, -1));
	EXPECT_EQ(0, ticks_of(&self->d, b.pid, -1));
	EXPECT_EQ(0, ticks_of(&self->d, getpid(), -1));
}

/*
 * "Whatever the context": an NMI counts for the task it interrupted (its
 * record says process 0, interrupt context), irqs off too.
 */
TEST_F(pids, contexts_of_the_filtered_task)
{
	struct proc a, b;

	ASSERT_EQ(0, proc_start(&a, fn_ctx, NULL));
	ASSERT_EQ(0, proc_start(&b, fn_ctx, NULL));
	ASSERT_EQ(0, set_pids(self->fd, &a.pid, 1, 0));
	proc_go(&a);
	EXPECT_EQ(a.pid, result());
	EXPECT_EQ(0, proc_end(&a));
	proc_go(&b);
	EXPECT_EQ(b.pid, result());
	EXPECT_EQ(0, proc_end(&b));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(1, ticks_of(&self->d, a.pid, KETW_SAMPLE_CTX_TASK));
	EXPECT_EQ(1, ticks_of(&self->d, a.pid, KETW_SAMPLE_CTX_IRQSOFF));
	EXPECT_EQ(0, ticks_of(&self->d, b.pid, -1));
	/* Only a's NMI: b's was filtered out. */
	EXPECT_EQ(1, ticks_of(&self->d, 0, KETW_SAMPLE_CTX_NMI));
}

/* Clearing the filter: every process again. */
TEST_F(pids, clear_traces_everyone)
{
	int32_t me = getpid(), pids[4];
	uint32_t n = 9, fl = 9;
	struct proc a;

	ASSERT_EQ(0, proc_start(&a, fn_emit, (void *)2));
	ASSERT_EQ(0, set_pids(self->fd, &me, 1, 0));
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(1, n);
	EXPECT_EQ(me, pids[0]);
	EXPECT_EQ(KETW_PIDS_ACTIVE, fl);
	ASSERT_EQ(0, set_pids(self->fd, NULL, 0, 0));
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, fl);
	proc_go(&a);
	EXPECT_EQ(a.pid, result());
	EXPECT_EQ(0, proc_end(&a));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(2, ticks_of(&self->d, a.pid, -1));
}

static void tree_case(struct __test_metadata *_metadata, FIXTURE_DATA(pids) *self,
		      uint32_t flags)
{
	int32_t got[3], p_pid;
	struct proc p;
	int i;

	ASSERT_EQ(0, proc_start(&p, fn_tree, NULL));
	p_pid = p.pid;
	ASSERT_EQ(0, set_pids(self->fd, &p_pid, 1, flags));
	proc_go(&p);
	for (i = 0; i < 3; i++)
		got[i] = result();
	EXPECT_EQ(0, proc_end(&p));
	/* Reported in order: G, C, P. */
	ASSERT_LT(0, got[0]);
	ASSERT_LT(0, got[1]);
	EXPECT_EQ(p.pid, got[2]);
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(3, ticks_of(&self->d, p.pid, -1));
	EXPECT_EQ(flags ? 3 : 0, ticks_of(&self->d, got[1], -1));
	EXPECT_EQ(flags ? 3 : 0, ticks_of(&self->d, got[0], -1));
}

TEST_F(pids, inherit_child_and_grandchild)
{
	tree_case(_metadata, self, KETW_PIDS_INHERIT);
}

TEST_F(pids, no_inherit_no_children)
{
	tree_case(_metadata, self, 0);
}

/* A child forked before the set is not added by inherit. */
static void fn_early_child(struct proc *p, void *arg)
{
	pid_t c;
	int fds[2];
	char x;

	(void)arg;
	if (pipe(fds))
		_exit(95);
	c = fork();
	if (!c) {
		close(fds[1]);
		if (read(fds[0], &x, 1) < 0)
			_exit(96);
		sample_emit(2);
		report(getpid());
		_exit(0);
	}
	report(c);
	proc_step(p);		/* the set comes now */
	close(fds[1]);		/* the child emits */
	waitpid(c, NULL, 0);
}

TEST_F(pids, inherit_only_after_the_set)
{
	int32_t c, pid;
	struct proc p;

	ASSERT_EQ(0, proc_start(&p, fn_early_child, NULL));
	proc_go(&p);
	c = result();
	ASSERT_LT(0, c);
	pid = p.pid;
	ASSERT_EQ(0, set_pids(self->fd, &pid, 1, KETW_PIDS_INHERIT));
	proc_go(&p);
	EXPECT_EQ(c, result());
	EXPECT_EQ(0, proc_end(&p));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(0, ticks_of(&self->d, c, -1));
}

/* ---- processes leave ---------------------------------------------------- */

TEST_F(pids, ended_process_leaves)
{
	int32_t set[2], pids[KETW_PIDS_MAX];
	struct ketw_session_status st;
	uint32_t n = 0, fl = 0;
	struct proc a, b, c;

	ASSERT_EQ(0, proc_start(&a, fn_idle, NULL));
	ASSERT_EQ(0, proc_start(&b, fn_idle, NULL));
	ASSERT_EQ(0, proc_start(&c, fn_emit, (void *)3));
	set[0] = b.pid;
	set[1] = a.pid;
	ASSERT_EQ(0, set_pids(self->fd, set, 2, 0));
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	ASSERT_EQ(2, n);
	/* Smallest first. */
	EXPECT_EQ(a.pid < b.pid ? a.pid : b.pid, pids[0]);
	EXPECT_EQ(a.pid < b.pid ? b.pid : a.pid, pids[1]);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(2, st.pids);

	EXPECT_EQ(0, proc_end(&a));
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	ASSERT_EQ(1, n);
	EXPECT_EQ(b.pid, pids[0]);
	EXPECT_EQ(KETW_PIDS_ACTIVE, fl);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(1, st.pids);

	/* All gone: the filter stays, empty, and takes nothing. */
	EXPECT_EQ(0, proc_end(&b));
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(0, n);
	EXPECT_EQ(KETW_PIDS_ACTIVE, fl);
	proc_go(&c);
	EXPECT_EQ(c.pid, result());
	EXPECT_EQ(0, proc_end(&c));
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(0, ticks_of(&self->d, c.pid, -1));
	EXPECT_EQ(0, ticks_of(&self->d, getpid(), -1));
}

/* ---- a full filter ------------------------------------------------------ */

/*
 * P forks FULL_KIDS children that wait; kid 0 (taken) and the last
 * (dropped) emit once when released. Then, after they all ended, P forks
 * one more, which emits.
 */
static void fn_full(struct proc *p, void *arg)
{
	static pid_t kids[FULL_KIDS];
	int rel[2], i;
	char x;

	(void)arg;
	if (pipe(rel))
		_exit(95);
	for (i = 0; i < FULL_KIDS; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			_exit(96);
		if (!kids[i]) {
			close(rel[1]);
			if (read(rel[0], &x, 1) < 0)
				_exit(1);
			if (i == 0 || i == FULL_KIDS - 1)
				sample_emit(1);
			_exit(0);
		}
	}
	close(rel[0]);
	report(kids[0]);
	report(kids[FULL_KIDS - 1]);
	proc_step(p);
	close(rel[1]);
	for (i = 0; i < FULL_KIDS; i++)
		waitpid(kids[i], NULL, 0);
	report(0);
	proc_step(p);
	kids[0] = fork();
	if (!kids[0]) {
		sample_emit(1);
		_exit(0);
	}
	waitpid(kids[0], NULL, 0);
	report(kids[0]);
}

TEST_F_TIMEOUT(pids, full_filter, 240)
{
	static int32_t pids[KETW_PIDS_MAX];
	struct ketw_session_status st;
	int32_t first, last, late, p_pid;
	uint32_t n = 0, fl = 0;
	struct proc p;

	ASSERT_EQ(0, proc_start(&p, fn_full, NULL));
	p_pid = p.pid;
	ASSERT_EQ(0, set_pids(self->fd, &p_pid, 1, KETW_PIDS_INHERIT));
	proc_go(&p);
	/* Forking them all takes a while under TCG. */
	for (int i = 0; i < 12 && (first = result()) < 0; i++)
		;
	last = result();
	ASSERT_LT(0, first);
	ASSERT_LT(0, last);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(KETW_PIDS_MAX, st.pids);
	EXPECT_EQ(FULL_KIDS - (KETW_PIDS_MAX - 1), st.pids_dropped);
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(KETW_PIDS_MAX, n);
	EXPECT_EQ(KETW_PIDS_ACTIVE | KETW_PIDS_INHERIT, fl);
	EXPECT_TRUE(has_pid(pids, n, p.pid));
	EXPECT_TRUE(has_pid(pids, n, first));
	EXPECT_FALSE(has_pid(pids, n, last));

	/* They end: out of the filter. */
	proc_go(&p);
	for (int i = 0; i < 12 && (late = result()) < 0; i++)
		;
	EXPECT_EQ(0, late);
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(1, n);
	EXPECT_EQ(p.pid, pids[0]);
	/* Room again: a new child joins and is traced. */
	proc_go(&p);
	late = result();
	ASSERT_LT(0, late);
	EXPECT_EQ(0, proc_end(&p));
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(0, st.pids);
	EXPECT_EQ(FULL_KIDS - (KETW_PIDS_MAX - 1), st.pids_dropped);
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(1, ticks_of(&self->d, first, -1));
	EXPECT_EQ(0, ticks_of(&self->d, last, -1));
	EXPECT_EQ(1, ticks_of(&self->d, late, -1));
}

/*
 * Churn: an inherit filter's process forks CHURN children one after the
 * other, each ending at once; each joins and leaves, so removed slots
 * pile up past three quarters of the table and the compaction replaces
 * it (under KASAN: while lookups and probes use the old one). Lookups
 * stay exact: the last child and P are traced, a stranger is not.
 */
#define CHURN	4000	/* about 2850 make the first compaction */

static void fn_churn(struct proc *p, void *arg)
{
	pid_t c;

	(void)p;
	(void)arg;
	for (int i = 0; i < CHURN; i++) {
		c = fork();
		if (!c)
			_exit(0);
		if (c < 0 || waitpid(c, NULL, 0) != c)
			_exit(95);
	}
	c = fork();
	if (!c) {
		sample_emit(1);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	report(c);
	sample_emit(1);
	report(getpid());
	proc_step(p);
}

TEST_F_TIMEOUT(pids, inherit_churn, 240)
{
	int32_t pids[KETW_PIDS_MAX], last, p_pid;
	struct ketw_session_status st;
	uint32_t n = 0, fl = 0;
	struct proc p, b;

	ASSERT_EQ(0, proc_start(&p, fn_churn, NULL));
	ASSERT_EQ(0, proc_start(&b, fn_emit, (void *)1));
	p_pid = p.pid;
	ASSERT_EQ(0, set_pids(self->fd, &p_pid, 1, KETW_PIDS_INHERIT));
	proc_go(&p);
	for (int i = 0; i < 8 && (last = result()) < 0; i++)
		;
	ASSERT_LT(0, last);
	EXPECT_EQ(p.pid, result());
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(1, n);
	EXPECT_EQ(p.pid, pids[0]);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(1, st.pids);
	EXPECT_EQ(0, st.pids_dropped);
	proc_go(&b);
	EXPECT_EQ(b.pid, result());
	EXPECT_EQ(0, proc_end(&b));
	proc_go(&p);
	EXPECT_EQ(0, proc_end(&p));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(1, ticks_of(&self->d, last, -1));
	EXPECT_EQ(1, ticks_of(&self->d, p.pid, -1));
	EXPECT_EQ(0, ticks_of(&self->d, b.pid, -1));
}

/* ---- pid namespaces ----------------------------------------------------- */

/*
 * In C: a new pid namespace; its first process N (pid 1 there) forks X
 * (pid 2), sets the filter to X by that pid, reads it back, reports;
 * then, on the next byte from the test (on @ctl), reads it again (the
 * host set it meanwhile) and lets X emit; N emits too.
 */
static int ctl[2] = { -1, -1 };		/* the test -> N */

static void ctl_wait(void)
{
	char c;

	if (read(ctl[0], &c, 1) != 1)
		_exit(91);
}

static void ns_first(void)
{
	int32_t pids[KETW_PIDS_MAX], vx;
	uint32_t n = 0, fl = 0;
	int fd, xgo[2];
	pid_t x;
	char c;

	if (pipe(xgo))
		_exit(80);
	x = fork();
	if (!x) {
		close(xgo[1]);
		if (read(xgo[0], &c, 1) < 0)
			_exit(81);
		sample_emit(2);
		_exit(0);
	}
	close(xgo[0]);
	fd = ketw_open();
	vx = x;
	report(getpid());
	report(vx);
	report(set_pids(fd, &vx, 1, 0));
	report(get_pids(fd, pids, &n, &fl));
	report(n);
	report(n ? pids[0] : -1);
	ctl_wait();
	report(get_pids(fd, pids, &n, &fl));
	report(n);
	report(n ? pids[0] : -1);
	if (close(xgo[1]) || waitpid(x, NULL, 0) != x)
		_exit(82);
	sample_emit(2);
	report(0);
	close(fd);
}

static void fn_ns(struct proc *p, void *arg)
{
	int first[2];
	pid_t n;
	char c;

	(void)p;
	(void)arg;
	if (unshare(CLONE_NEWPID) || pipe(first))
		_exit(83);
	n = fork();
	if (!n) {
		/* After C's report: the test reads N's host pid first. */
		close(first[1]);
		if (read(first[0], &c, 1) < 0)
			_exit(84);
		ns_first();
		_exit(0);
	}
	report(n);		/* N as the host sees it */
	close(first[1]);
	waitpid(n, NULL, 0);
}

/* The pid of @pid in its own (innermost) namespace, from /proc. */
static int32_t nspid_inner(int32_t pid)
{
	char path[64], line[256], *last;
	int32_t v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6)) {
			last = strrchr(line, '\t');
			v = last ? atoi(last + 1) : -1;
		}
	if (f)
		fclose(f);
	return v;
}

TEST_F(pids, pid_namespace)
{
	int32_t pids[KETW_PIDS_MAX], host_n, n_self, vx, xg, set[2];
	uint32_t n = 0, fl = 0;
	struct proc c;

	ASSERT_EQ(0, pipe2(ctl, O_CLOEXEC));
	ASSERT_EQ(0, proc_start(&c, fn_ns, NULL));
	proc_go(&c);
	host_n = result();
	n_self = result();
	vx = result();
	ASSERT_LT(0, host_n);
	EXPECT_EQ(1, n_self);		/* N is pid 1 in its namespace */
	EXPECT_EQ(2, vx);
	EXPECT_EQ(0, result());		/* N's SET */
	EXPECT_EQ(0, result());		/* N's GET */
	EXPECT_EQ(1, result());		/* count */
	EXPECT_EQ(vx, result());	/* X as N sees it */

	/* The host sees the host's pid of X. */
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	ASSERT_EQ(1, n);
	xg = pids[0];
	EXPECT_NE(vx, xg);
	EXPECT_EQ(vx, nspid_inner(xg));
	/* X and the host itself: N sees only X. */
	set[0] = xg;
	set[1] = getpid();
	ASSERT_EQ(0, set_pids(self->fd, set, 2, 0));
	ASSERT_EQ(1, write(ctl[1], "g", 1));
	EXPECT_EQ(0, result());
	EXPECT_EQ(1, result());
	EXPECT_EQ(vx, result());
	EXPECT_EQ(0, result());		/* X and N emitted */
	EXPECT_EQ(0, proc_end(&c));
	close(ctl[0]);
	close(ctl[1]);
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(2, ticks_of(&self->d, xg, -1));
	EXPECT_EQ(0, ticks_of(&self->d, host_n, -1));
}

/* A process of a child namespace, set from the host, GET from there. */
TEST_F(pids, namespace_sees_its_own)
{
	int32_t pids[KETW_PIDS_MAX], me = getpid();
	uint32_t n = 0, fl = 0;

	ASSERT_EQ(0, set_pids(self->fd, &me, 1, KETW_PIDS_INHERIT));
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(1, n);
	EXPECT_EQ(me, pids[0]);
	EXPECT_EQ(KETW_PIDS_ACTIVE | KETW_PIDS_INHERIT, fl);
}

/* ---- errors -------------------------------------------------------------- */

struct tid_arg {
	int32_t tid;
	int hold[2];
};

/* A thread that says its id and lives until its pipe is closed. */
static void *thread_tid(void *arg)
{
	struct tid_arg *t = arg;
	char c;

	__atomic_store_n(&t->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (read(t->hold[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

TEST_F(pids, errors)
{
	int32_t me = getpid(), bad[2], pids[4];
	struct tid_arg ta = { 0 };
	struct ketw_pid_filter pf;
	uint32_t n, fl;
	pthread_t th;
	int ufd;

	/* ESRCH: no such process; a thread's id is not a process's. */
	ASSERT_NE(0, kill(NO_PID, 0));
	bad[0] = NO_PID;
	EXPECT_EQ(-ESRCH, set_pids(self->fd, bad, 1, 0));
	bad[0] = me;
	bad[1] = NO_PID;
	EXPECT_EQ(-ESRCH, set_pids(self->fd, bad, 2, 0));
	ASSERT_EQ(0, pipe(ta.hold));
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_tid, &ta));
	while (!__atomic_load_n(&ta.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_NE(me, ta.tid);
	EXPECT_EQ(0, kill(ta.tid, 0));		/* alive, a thread of ours */
	EXPECT_EQ(-ESRCH, set_pids(self->fd, &ta.tid, 1, 0));
	close(ta.hold[1]);
	pthread_join(th, NULL);
	close(ta.hold[0]);
	/* Nothing changed. */
	ASSERT_EQ(0, get_pids(self->fd, pids, &n, &fl));
	EXPECT_EQ(0, fl);

	/* EINVAL */
	bad[0] = 0;
	EXPECT_EQ(-EINVAL, set_pids(self->fd, bad, 1, 0));
	bad[0] = -5;
	EXPECT_EQ(-EINVAL, set_pids(self->fd, bad, 1, 0));
	EXPECT_EQ(-EINVAL, set_pids(self->fd, &me, KETW_PIDS_MAX + 1, 0));
	EXPECT_EQ(-EINVAL, set_pids(self->fd, &me, 1, 2));
	EXPECT_EQ(-EINVAL, set_pids(self->fd, &me, 1, KETW_PIDS_ACTIVE));
	EXPECT_EQ(-EINVAL, set_pids(self->fd, NULL, 0, KETW_PIDS_INHERIT));
	pf_init(&pf, SESSION);
	pf.size = KETW_PID_FILTER_SIZE_VER0 - 8;
	pf.count = 1;
	pf.pids = (uintptr_t)&me;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_SET_PIDS, &pf));
	EXPECT_EQ(EINVAL, errno);
	/* Bad before the session is looked up: EINVAL, not ENOENT. */
	EXPECT_EQ(-EINVAL, set_pids_on(self->fd, "pids_nope", &me, 1, 4));

	/* ENOENT */
	EXPECT_EQ(-ENOENT, set_pids_on(self->fd, "pids_nope", &me, 1, 0));
	pf_init(&pf, "pids_nope");
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_GET_PIDS, &pf));
	EXPECT_EQ(ENOENT, errno);

	/* EFAULT: the array, the struct. */
	EXPECT_EQ(-EFAULT, set_pids(self->fd, (const int32_t *)8, 1, 0));
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_SET_PIDS, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, set_pids(self->fd, &me, 1, 0));
	pf_init(&pf, SESSION);
	pf.capacity = 4;
	pf.pids = 8;
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_GET_PIDS, &pf));
	EXPECT_EQ(EFAULT, errno);
	/* capacity 0: only the count. */
	pf.capacity = 0;
	EXPECT_EQ(0, ioctl(self->fd, KETW_IOC_GET_PIDS, &pf));
	EXPECT_EQ(1, pf.count);
	EXPECT_EQ(sizeof(pf), pf.size);

	/* /dev/ketw_user controls nothing. */
	ufd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ufd);
	EXPECT_EQ(-ENOTTY, set_pids(ufd, &me, 1, 0));
	close(ufd);
}

/* Without CAP_SYS_ADMIN (uid 0 all the same): EPERM at open. */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	const unsigned int w = CAP_SYS_ADMIN / 32, b = 1u << (CAP_SYS_ADMIN % 32);

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[w].effective &= ~b;
	data[w].permitted &= ~b;
	data[w].inheritable &= ~b;
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

TEST_F(pids, eperm_without_cap_sys_admin)
{
	int mounted, st;
	pid_t c;

	mkdir(KFS, 0700);
	mounted = !mount("none", KFS, "ketwfs", 0, NULL);
	ASSERT_TRUE(mounted);
	c = fork();
	ASSERT_LE(0, c);
	if (!c) {
		if (drop_sys_admin())
			_exit(10);
		if (open(KETW_DEVICE, O_RDWR) >= 0 || errno != EPERM)
			_exit(11);
		if (open(KFS_PIDS, O_RDWR) >= 0 || errno != EPERM)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(c, waitpid(c, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	umount(KFS);
}

/* ---- the FILTER record -------------------------------------------------- */

static int filter_pids_records(const struct drained *d);

static const struct ketw_event_header *
filter_pids_record(const struct drained *d, int nth)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0;

	while ((h = next_record(d, &off, &bad)))
		if (is_system(h, KETW_SYS_FILTER) &&
		    h->version == KETW_SYS_FILTER_PIDS && !nth--)
			return h;
	return NULL;
}

static int filter_pids_records(const struct drained *d)
{
	int n = 0;

	while (filter_pids_record(d, n))
		n++;
	return n;
}

TEST_F(pids, filter_record)
{
	const struct ketw_sys_filter_pids *fp;
	const struct ketw_event_header *h;
	int32_t set[2];
	struct proc a;

	ASSERT_EQ(0, proc_start(&a, fn_idle, NULL));
	set[0] = a.pid;
	set[1] = getpid();
	ASSERT_EQ(0, set_pids(self->fd, set, 2, KETW_PIDS_INHERIT));
	ASSERT_EQ(0, set_pids(self->fd, NULL, 0, 0));
	/* No filter to none: nothing changed, nothing logged. */
	ASSERT_EQ(0, set_pids(self->fd, NULL, 0, 0));
	proc_go(&a);
	EXPECT_EQ(0, proc_end(&a));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));

	h = filter_pids_record(&self->d, 0);
	ASSERT_NE(NULL, h);
	EXPECT_FALSE(h->flags & KETW_RECORD_EXT);
	fp = (const void *)(h + 1);
	EXPECT_EQ(0, fp->old_flags);
	EXPECT_EQ(0, fp->old_count);
	EXPECT_EQ(KETW_PIDS_ACTIVE | KETW_PIDS_INHERIT, fp->new_flags);
	EXPECT_EQ(2, fp->new_count);
	ASSERT_EQ(2, fp->nr);
	EXPECT_EQ(sizeof(*fp) + 8, h->size - KETW_EVENT_HEADER_SIZE);
	EXPECT_EQ(a.pid < getpid() ? a.pid : getpid(), (int32_t)fp->pids[0]);
	EXPECT_EQ(a.pid < getpid() ? getpid() : a.pid, (int32_t)fp->pids[1]);

	h = filter_pids_record(&self->d, 1);
	ASSERT_NE(NULL, h);
	fp = (const void *)(h + 1);
	EXPECT_EQ(KETW_PIDS_ACTIVE | KETW_PIDS_INHERIT, fp->old_flags);
	EXPECT_EQ(2, fp->old_count);
	EXPECT_EQ(0, fp->new_flags);
	EXPECT_EQ(0, fp->nr);
	EXPECT_EQ(NULL, filter_pids_record(&self->d, 2));
}

/* A stopped session logs no FILTER, and its filter works at start. */
TEST_F(pids, set_while_stopped)
{
	struct proc a, b;

	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, proc_start(&a, fn_emit, (void *)2));
	ASSERT_EQ(0, proc_start(&b, fn_emit, (void *)2));
	ASSERT_EQ(0, set_pids(self->fd, &b.pid, 1, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	proc_go(&a);
	proc_go(&b);
	EXPECT_LT(0, result());
	EXPECT_LT(0, result());
	EXPECT_EQ(0, proc_end(&a));
	EXPECT_EQ(0, proc_end(&b));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(NULL, filter_pids_record(&self->d, 0));
	EXPECT_EQ(0, ticks_of(&self->d, a.pid, -1));
	EXPECT_EQ(2, ticks_of(&self->d, b.pid, -1));
}

/* ---- ketwfs, the CLI ------------------------------------------------------ */

static int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

TEST_F(pids, ketwfs_pids_file)
{
	char buf[256], want[128];
	int32_t lo, hi;
	struct proc a;

	mkdir(KFS, 0700);
	ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL));
	ASSERT_EQ(0, proc_start(&a, fn_emit, (void *)3));
	lo = a.pid < getpid() ? a.pid : getpid();
	hi = a.pid < getpid() ? getpid() : a.pid;

	ASSERT_EQ(0, read_file(KFS_PIDS, buf, sizeof(buf)));
	EXPECT_STREQ("none\n", buf);
	snprintf(want, sizeof(want), "%d,%d inherit\n", hi, lo);
	EXPECT_EQ(0, write_str(KFS_PIDS, want));
	ASSERT_EQ(0, read_file(KFS_PIDS, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%d %d inherit\n", lo, hi);
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, read_file(KFS_STATUS, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "\npids: 2\npids_dropped: 0\n"));

	/* Refused writes leave it as it was. */
	EXPECT_EQ(-EINVAL, write_str(KFS_PIDS, "12x"));
	EXPECT_EQ(-EINVAL, write_str(KFS_PIDS, "inherit"));
	EXPECT_EQ(-EINVAL, write_str(KFS_PIDS, "none 1"));
	EXPECT_EQ(-EINVAL, write_str(KFS_PIDS, "0"));
	snprintf(want, sizeof(want), "%d", NO_PID);
	EXPECT_EQ(-ESRCH, write_str(KFS_PIDS, want));
	ASSERT_EQ(0, read_file(KFS_PIDS, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%d %d inherit\n", lo, hi);
	EXPECT_STREQ(want, buf);

	/* The filter works as the ioctl's. */
	snprintf(want, sizeof(want), "%d", a.pid);
	EXPECT_EQ(0, write_str(KFS_PIDS, want));
	proc_go(&a);
	EXPECT_EQ(a.pid, result());
	EXPECT_EQ(0, proc_end(&a));
	/* Its process ended: an empty filter reads as an empty line. */
	ASSERT_EQ(0, read_file(KFS_PIDS, buf, sizeof(buf)));
	EXPECT_STREQ("\n", buf);
	EXPECT_EQ(0, write_str(KFS_PIDS, "none\n"));
	ASSERT_EQ(0, read_file(KFS_PIDS, buf, sizeof(buf)));
	EXPECT_STREQ("none\n", buf);
	snprintf(want, sizeof(want), "%d", getpid());
	EXPECT_EQ(0, write_str(KFS_PIDS, want));
	EXPECT_EQ(0, write_str(KFS_PIDS, "\n"));	/* an empty line clears */
	ASSERT_EQ(0, read_file(KFS_PIDS, buf, sizeof(buf)));
	EXPECT_STREQ("none\n", buf);
	umount(KFS);
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(3, ticks_of(&self->d, a.pid, -1));
	/* One FILTER per write taken, none for those refused. */
	EXPECT_EQ(5, filter_pids_records(&self->d));
}

/* Not this process: with inherit, the shells run_cmd() forks would join. */
TEST_F(pids, cli_start_pid_and_status)
{
	char cmd[256], want[160], *out = NULL;
	struct proc a, b;
	int32_t lo, hi;

	ASSERT_EQ(0, proc_start(&a, fn_idle, NULL));
	ASSERT_EQ(0, proc_start(&b, fn_idle, NULL));
	lo = a.pid < b.pid ? a.pid : b.pid;
	hi = a.pid < b.pid ? b.pid : a.pid;
	snprintf(cmd, sizeof(cmd), TOOL " start -s " SESSION2
		 " --no-rundown --pid %d,%d --inherit 2>&1", hi, lo);
	ASSERT_EQ(0, run_cmd(cmd, &out)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "processes: %d %d, inherit", lo, hi);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, run_cmd(TOOL " status -s " SESSION2 " 2>&1", &out));
	snprintf(want, sizeof(want), "pids:     %d %d, inherit", lo, hi);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, run_cmd(TOOL " status -s " SESSION2 " --json 2>&1",
			     &out));
	EXPECT_NE(NULL, strstr(out, "\"pids_inherit\": true")) TH_LOG("%s", out);
	free(out);
	/* Stopped, started again by name alone. */
	ASSERT_EQ(0, run_cmd(TOOL " stop -s " SESSION2 " 2>&1", &out));
	free(out);
	ASSERT_EQ(0, run_cmd(TOOL " start -s " SESSION2 " 2>&1", &out));
	EXPECT_NE(NULL, strstr(out, "running again")) TH_LOG("%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), TOOL " start -s " SESSION2 " --pid %d 2>&1",
		 NO_PID);
	EXPECT_EQ(1, run_cmd(cmd, &out));
	EXPECT_NE(NULL, strstr(out, "already running")) TH_LOG("%s", out);
	free(out);
	EXPECT_EQ(0, proc_end(&a));
	EXPECT_EQ(0, proc_end(&b));
	ketw_cleanup(SESSION2);
}

/* ---- a race ---------------------------------------------------------------- */

struct race {
	atomic_int stop;
	int32_t *live;			/* shared with the writers */
	atomic_uint sets, errors;
};

/* A writer: ticks, and children that tick and end, until killed. */
static void race_writer(int32_t *slot)
{
	pid_t c;

	for (;;) {
		sample_emit(1);
		c = fork();
		if (!c) {
			sample_emit(1);
			_exit(0);
		}
		if (c > 0) {
			__atomic_store_n(slot, c, __ATOMIC_RELAXED);
			waitpid(c, NULL, 0);
		}
	}
}

static void *race_setter(void *arg)
{
	struct race *r = arg;
	int32_t pids[8], got[KETW_PIDS_MAX];
	unsigned int seed = (uintptr_t)pthread_self();
	uint32_t n, fl, k;
	int fd = ketw_open(), err;

	while (fd >= 0 && !atomic_load(&r->stop)) {
		k = rand_r(&seed) % 8;
		for (uint32_t i = 0; i < k; i++)
			pids[i] = __atomic_load_n(&r->live[rand_r(&seed) % 8],
						  __ATOMIC_RELAXED);
		if (k)
			pids[0] = getpid();
		err = set_pids_on(fd, rand_r(&seed) % 3 ? SESSION : SESSION2,
				  pids, k, k && rand_r(&seed) % 2 ?
				  KETW_PIDS_INHERIT : 0);
		if (err && err != -ESRCH && err != -ENOENT)
			atomic_fetch_add(&r->errors, 1);
		atomic_fetch_add(&r->sets, 1);
		err = get_pids(fd, got, &n, &fl);
		if (err || n > KETW_PIDS_MAX)
			atomic_fetch_add(&r->errors, 1);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* STOP/START the fixture's session; DESTROY and CREATE a second one. */
static void *race_states(void *arg)
{
	struct race *r = arg;
	struct ketw_session_attr a;
	int fd = ketw_open(), i = 0;

	while (fd >= 0 && !atomic_load(&r->stop)) {
		ketw_ref(fd, i & 1 ? KETW_IOC_START : KETW_IOC_STOP, SESSION);
		if (i % 4 == 0) {
			ketw_ref(fd, KETW_IOC_DESTROY, SESSION2);
			ketw_attr_init(&a, SESSION2);
			a.buffer_kb = 64;
			if (!ioctl(fd, KETW_IOC_CREATE, &a))
				ketw_ref(fd, KETW_IOC_START, SESSION2);
		}
		i++;
		usleep(2000);
	}
	if (fd >= 0) {
		ketw_ref(fd, KETW_IOC_DESTROY, SESSION2);
		close(fd);
	}
	return NULL;
}

TEST_F_TIMEOUT(pids, race_set_fork_exit, 180)
{
	pthread_t setters[2], states;
	struct race r = { 0 };
	pid_t writers[3];
	int32_t me = getpid();
	int i;

	r.live = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.live);
	for (i = 0; i < 8; i++)
		r.live[i] = me;
	for (i = 0; i < 3; i++) {
		writers[i] = fork();
		ASSERT_LE(0, writers[i]);
		if (!writers[i])
			race_writer(&r.live[i]);
		r.live[3 + i] = writers[i];
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&setters[i], NULL, race_setter, &r));
	ASSERT_EQ(0, pthread_create(&states, NULL, race_states, &r));
	sleep(RACE_SECONDS);
	atomic_store(&r.stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(setters[i], NULL);
	pthread_join(states, NULL);
	for (i = 0; i < 3; i++) {
		kill(writers[i], SIGKILL);
		waitpid(writers[i], NULL, 0);
	}
	TH_LOG("%u sets", atomic_load(&r.sets));
	EXPECT_LT(100, atomic_load(&r.sets));
	EXPECT_EQ(0, atomic_load(&r.errors));

	/* Still exact afterwards. */
	ketw_ref(self->fd, KETW_IOC_STOP, SESSION);
	drain(self->fd, &self->d);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, set_pids(self->fd, &me, 1, 0));
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	EXPECT_EQ(3, ticks_of(&self->d, me, -1));
	munmap(r.live, 4096);
}

/* ---- resume ------------------------------------------------------------------ */

/* The records of CPU @cpu in @d, in order, as tags: t tick, S START, P STOP. */
static void cpu_tags(const struct drained *d, uint32_t cpu, char *out,
		     size_t cap)
{
	const struct ketw_event_header *h;
	size_t off = 0, n = 0;
	int bad = 0;

	while ((h = next_record(d, &off, &bad)) && n + 1 < cap) {
		if (h->cpu != cpu)
			continue;
		if (is_sample(h))
			out[n++] = 't';
		else if (is_system(h, KETW_SYS_START))
			out[n++] = 'S';
		else if (is_system(h, KETW_SYS_STOP))
			out[n++] = 'P';
	}
	out[n] = 0;
}

TEST_F(pids, resume_keeps_records)
{
	struct ketw_session_status st;
	char tags[64];

	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, session_status(self->fd, SESSION, &st));
	EXPECT_EQ(KETW_STATE_RUNNING, st.state);
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, stop_drain(self->fd, &self->d));
	cpu_tags(&self->d, 0, tags, sizeof(tags));
	/* The first START may be another CPU's: the fixture was not pinned. */
	EXPECT_NE(NULL, strstr(tags, "tttPSttP")) TH_LOG("cpu 0: %s", tags);
}

TEST_F(pids, resume_until_full)
{
	struct ketw_session_status st;
	struct ketw_session_attr a;
	struct drained d = { 0 };
	int fd, i;

	ASSERT_EQ(0, pin_cpu(0));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION2);
	a.policy = KETW_POLICY_UNTIL_FULL;
	a.buffer_kb = 4;
	ASSERT_EQ(0, session_start(fd, &a));
	for (i = 0; i < 100; i++) {
		sample_emit(10);
		ASSERT_EQ(0, session_status(fd, SESSION2, &st));
		if (st.state == KETW_STATE_SUSPENDED)
			break;
		usleep(10000);
	}
	ASSERT_EQ(KETW_STATE_SUSPENDED, st.state);
	EXPECT_EQ(1, st.auto_stopped);
	/* Still full: not resumed, nothing logged. */
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_START, SESSION2));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(0, session_status(fd, SESSION2, &st));
	EXPECT_EQ(KETW_STATE_SUSPENDED, st.state);
	EXPECT_EQ(KETW_FULL_FULL, st.full_status);
	/* Drained: resumed. */
	ASSERT_EQ(0, drain(fd, &d));
	EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_START, SESSION2));
	ASSERT_EQ(0, session_status(fd, SESSION2, &st));
	EXPECT_EQ(KETW_STATE_RUNNING, st.state);
	EXPECT_EQ(0, st.auto_stopped);
	EXPECT_EQ(KETW_FULL_NOT_FULL, st.full_status);
	ketw_ref(fd, KETW_IOC_DESTROY, SESSION2);
	close(fd);
	free(d.buf);
}

TEST_HARNESS_MAIN
