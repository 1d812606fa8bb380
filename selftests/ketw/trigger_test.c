// SPDX-License-Identifier: GPL-2.0
/*
 * Flight-recorder triggers (KETW_IOC_TRIGGER_ADD/DEL, struct
 * ketw_trigger): a trigger fires once per matching event outside its
 * rate limit and counts the rest as suppressed; its TRIGGER record
 * follows the event on its CPU and names the event's record; level and
 * field conditions; the stop, snapshot and wake actions after their post
 * delay, EPOLLPRI; hardirq and NMI (ketw_stress); hostile requests; DEL
 * while firing; DESTROY with a post delay pending; the ketwfs trigger
 * file; ketw record --trigger.
 */
#include "ketw_test.h"
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include "ketw_stress.h"
#include "kselftest_harness.h"

#define SESSION		"trigger_test"
#define TOOL		"/ketw/ketw"
#define KFS		"/sys/kernel/ketw"
#define KFS_TRIGGER	KFS "/sessions/" SESSION "/trigger"
#define KETWFS_MAGIC	0x6b657477
#define STRESS_PARAM(name) "/sys/module/ketw_stress/parameters/" name

static const uint8_t stress_guid[KETW_GUID_SIZE] = KETW_STRESS_GUID_BYTES;

static void trig_init(struct ketw_trigger *t, const char *provider,
		      uint32_t event_id, uint32_t action)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	snprintf(t->session, sizeof(t->session), "%s", SESSION);
	snprintf(t->provider, sizeof(t->provider), "%s", provider);
	t->event_id = event_id;
	t->action = action;
}

/* TRIGGER_ADD; the id, or -errno. */
static int trig_add(int fd, struct ketw_trigger *t)
{
	return ioctl(fd, KETW_IOC_TRIGGER_ADD, t) ? -errno : (int)t->id;
}

static int trig_del(int fd, uint32_t id)
{
	struct ketw_trigger t;

	trig_init(&t, "", 0, 0);
	t.id = id;
	return ioctl(fd, KETW_IOC_TRIGGER_DEL, &t) ? -errno : 0;
}

static int status(int fd, struct ketw_session_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	snprintf(st->name, sizeof(st->name), "%s", SESSION);
	return ioctl(fd, KETW_IOC_STATUS, st) ? -errno : 0;
}

static int sample_warn(unsigned int n)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", n);
	return write_str(SAMPLE_PARAM("emit_warn"), s);
}

static const struct ketw_sys_trigger *trig_payload(const struct ketw_event_header *h)
{
	return (const void *)(h + 1);
}

/* The TRIGGER records of @d, in order, up to @max; returns how many. */
static int triggers_in(const struct drained *d,
		       const struct ketw_event_header **out, int max)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int n = 0, bad = 0;

	while ((h = next_record(d, &off, &bad)))
		if (is_system(h, KETW_SYS_TRIGGER) && n < max)
			out[n++] = h;
	return bad ? -1 : n;
}

/* The record of @d on @cpu numbered @seq, or NULL. */
static const struct ketw_event_header *
record_at(const struct drained *d, uint32_t cpu, uint64_t seq)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0;

	while ((h = next_record(d, &off, &bad)))
		if (!(h->flags & KETW_RECORD_PADDING) && h->cpu == cpu &&
		    h->sequence == seq)
			return h;
	return NULL;
}

/* Every CPU's snapshot of the session, concatenated. */
static int snapshot_all(int fd, struct drained *d)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	struct ketw_snapshot s;
	size_t len = 4 << 20;
	int cpu;

	d->len = 0;
	for (cpu = 0; cpu < n; cpu++) {
		if (d->cap - d->len < len) {
			d->cap = d->len + len;
			d->buf = realloc(d->buf, d->cap);
			if (!d->buf)
				return -ENOMEM;
		}
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.cpu = cpu;
		snprintf(s.name, sizeof(s.name), "%s", SESSION);
		s.buf = (uintptr_t)(d->buf + d->len);
		s.buf_len = len;
		if (ioctl(fd, KETW_IOC_SNAPSHOT, &s))
			return errno == EINVAL ? 0 : -errno;
		d->len += s.len;
	}
	return 0;
}

static int wait_state(int fd, uint32_t state, int ms)
{
	struct ketw_session_status st;

	for (; ms > 0; ms -= 10) {
		if (status(fd, &st))
			return -1;
		if (st.state == state)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int kfs_mounted(void)
{
	struct statfs sf;

	return !statfs(KFS, &sf) && sf.f_type == KETWFS_MAGIC;
}

static char *read_text(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

FIXTURE(trig) {
	int fd;
	struct drained d;
	int mounted_here;
};

/* A LOOP session that takes the sample provider, attached to self->fd. */
FIXTURE_SETUP(trig)
{
	struct ketw_session_attr a;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	ketw_cleanup(SESSION);
	memset(&self->d, 0, sizeof(self->d));
	self->mounted_here = 0;
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&a, SESSION);
	a.policy = KETW_POLICY_LOOP;
	a.buffer_kb = 1024;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
				 0, 0, 0, NULL, 0, 0));
	/* One CPU: the TRIGGER record follows its event in one buffer. */
	ASSERT_EQ(0, pin_cpu(0));
}

FIXTURE_TEARDOWN(trig)
{
	if (self->fd >= 0)
		close(self->fd);
	ketw_cleanup(SESSION);
	if (self->mounted_here)
		umount2(KFS, MNT_DETACH);
	free(self->d.buf);
}

static int start(int fd)
{
	return ketw_ref(fd, KETW_IOC_START, SESSION) ? -errno : 0;
}

static int stop_and_drain(int fd, struct drained *d)
{
	if (ketw_ref(fd, KETW_IOC_STOP, SESSION))
		return -errno;
	return drain(fd, d);
}

TEST_F(trig, fires_once_per_event_outside_the_rate_limit)
{
	const struct ketw_event_header *tr[8], *ev;
	const struct ketw_sys_trigger *p;
	struct ketw_session_status st;
	struct ketw_trigger t;
	int id, fast, i;
	char *out = NULL;

	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK, KETW_TRIGGER_WAKE);
	id = trig_add(self->fd, &t);
	ASSERT_EQ(1, id);
	EXPECT_EQ(KETW_TRIGGER_INTERVAL_DEFAULT, t.min_interval_ms);
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN, KETW_TRIGGER_WAKE);
	t.min_interval_ms = 1;
	fast = trig_add(self->fd, &t);
	ASSERT_EQ(2, fast);
	ASSERT_EQ(0, start(self->fd));

	/* 10 ticks well within 1 s: one fire, 9 suppressed. */
	ASSERT_EQ(0, sample_emit(10));
	/* 5 warns 20 ms apart, past a 1 ms limit: 5 fires. */
	for (i = 0; i < 5; i++) {
		usleep(20000);
		ASSERT_EQ(0, sample_warn(1));
	}
	usleep(1100000);
	/* Past the second: fires again and reports the 9. */
	ASSERT_EQ(0, sample_emit(1));
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(7, st.triggers_fired);
	/* ketw status --json carries the same counters. */
	ASSERT_EQ(0, run_cmd(TOOL " status -s " SESSION " --json 2>&1", &out));
	EXPECT_NE(NULL, strstr(out, "\"triggers\": {\"fired\": 7, \"snapshots_ready\": 0, \"wakeups\": ")) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, stop_and_drain(self->fd, &self->d));
	ASSERT_EQ(7, triggers_in(&self->d, tr, 8));

	p = trig_payload(tr[0]);
	EXPECT_EQ(1, p->trigger_id);
	EXPECT_EQ(1, p->fired);
	EXPECT_EQ(0, p->suppressed);
	EXPECT_EQ(KETW_SAMPLE_EV_TICK, p->event_id);
	EXPECT_EQ(KETW_TRIGGER_WAKE, p->action);
	EXPECT_EQ(0, memcmp(p->provider_guid, sample_guid, KETW_GUID_SIZE));
	EXPECT_EQ(tr[0]->cpu, p->cpu);
	/* It names the first tick, and comes right after it. */
	ev = record_at(&self->d, p->cpu, p->sequence);
	ASSERT_NE(NULL, ev);
	EXPECT_TRUE(is_sample(ev));
	EXPECT_EQ(KETW_SAMPLE_EV_TICK, ev->event_id);
	EXPECT_EQ(0, ((const struct ketw_sample_tick *)(ev + 1))->index);
	EXPECT_EQ(p->sequence + 1, tr[0]->sequence);
	EXPECT_EQ((const void *)tr[0],
		  (const void *)ev + KETW_RECORD_SPAN(ev->size));

	for (i = 1; i <= 5; i++) {
		p = trig_payload(tr[i]);
		EXPECT_EQ(2, p->trigger_id);
		EXPECT_EQ((uint32_t)i, p->fired);
		EXPECT_EQ(0, p->suppressed);
		EXPECT_EQ(KETW_SAMPLE_EV_WARN, p->event_id);
	}
	p = trig_payload(tr[6]);
	EXPECT_EQ(1, p->trigger_id);
	EXPECT_EQ(2, p->fired);
	EXPECT_EQ(9, p->suppressed);
}

TEST_F(trig, level_and_field_conditions)
{
	const struct ketw_event_header *tr[8], *ev;
	const struct ketw_sys_trigger *p;
	struct ketw_trigger t;
	int i, n, seen[8] = { 0 };

	/* 1: tick is INFO (4): not at level <= 3. */
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK, KETW_TRIGGER_WAKE);
	t.level = KETW_LEVEL_WARNING;
	ASSERT_EQ(1, trig_add(self->fd, &t));
	/* 2: warn is WARNING (3): at level <= 3. */
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN, KETW_TRIGGER_WAKE);
	t.level = KETW_LEVEL_WARNING;
	ASSERT_EQ(2, trig_add(self->fd, &t));
	/* 3: tick with index == 2 (u32). */
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK, KETW_TRIGGER_WAKE);
	t.flags = KETW_TRIGGER_FIELD;
	strcpy(t.field, "index");
	t.value = 2;
	ASSERT_EQ(3, trig_add(self->fd, &t));
	/* 4: tick with index == 7: none of 0..4. */
	t.value = 7;
	ASSERT_EQ(4, trig_add(self->fd, &t));
	/* 5: tick with value (u64) == 3 * 3 + 1, at any level. */
	strcpy(t.field, "value");
	t.value = 10;
	ASSERT_EQ(5, trig_add(self->fd, &t));
	/* 6: warn with code == 5 (index 1) but level <= 2: no. */
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN, KETW_TRIGGER_WAKE);
	t.flags = KETW_TRIGGER_FIELD;
	t.level = KETW_LEVEL_ERROR;
	strcpy(t.field, "code");
	t.value = 5;
	ASSERT_EQ(6, trig_add(self->fd, &t));

	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, sample_emit(5));
	ASSERT_EQ(0, sample_warn(2));
	ASSERT_EQ(0, stop_and_drain(self->fd, &self->d));
	n = triggers_in(&self->d, tr, 8);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		p = trig_payload(tr[i]);
		ASSERT_GT(8u, p->trigger_id);
		seen[p->trigger_id]++;
		ev = record_at(&self->d, p->cpu, p->sequence);
		ASSERT_NE(NULL, ev);
		if (p->trigger_id == 3)
			EXPECT_EQ(2, ((const struct ketw_sample_tick *)(ev + 1))->index);
		if (p->trigger_id == 5)
			EXPECT_EQ(3, ((const struct ketw_sample_tick *)(ev + 1))->index);
		if (p->trigger_id == 2)
			EXPECT_EQ(0, ((const struct ketw_sample_warn *)(ev + 1))->index);
	}
	EXPECT_EQ(0, seen[1]);
	EXPECT_EQ(1, seen[2]);
	EXPECT_EQ(1, seen[3]);
	EXPECT_EQ(0, seen[4]);
	EXPECT_EQ(1, seen[5]);
	EXPECT_EQ(0, seen[6]);
}

TEST_F(trig, stop_action_stops_after_post_ms)
{
	const struct ketw_event_header *tr[2], *h;
	const struct ketw_sys_trigger *p;
	struct ketw_session_status st;
	struct ketw_trigger t;
	int after = 0, stops = 0, past_stop = 0, trig_seen = 0, bad = 0;
	uint64_t t0, dt;
	size_t off = 0;

	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN, KETW_TRIGGER_STOP);
	t.post_ms = 400;
	ASSERT_EQ(1, trig_add(self->fd, &t));
	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, sample_emit(3));
	t0 = mono_ns();
	ASSERT_EQ(0, sample_warn(1));
	ASSERT_EQ(0, sample_emit(4));	/* within the post delay */
	ASSERT_EQ(0, wait_state(self->fd, KETW_STATE_SUSPENDED, 10000));
	dt = (mono_ns() - t0) / 1000000;
	EXPECT_LE(380, dt);
	EXPECT_GT(5000, dt);
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(0, st.auto_stopped);
	EXPECT_EQ(1, st.triggers_fired);
	ASSERT_EQ(0, sample_emit(2));	/* stopped: not stored */
	ASSERT_EQ(0, drain(self->fd, &self->d));

	ASSERT_EQ(1, triggers_in(&self->d, tr, 2));
	p = trig_payload(tr[0]);
	EXPECT_EQ(KETW_TRIGGER_STOP, p->action);
	while ((h = next_record(&self->d, &off, &bad))) {
		if (h == tr[0])
			trig_seen = 1;
		else if (is_sample(h) && trig_seen && !stops)
			after++;
		else if (is_sample(h) && stops)
			past_stop++;
		if (is_system(h, KETW_SYS_STOP)) {
			stops++;
			EXPECT_EQ(KETW_STOP_TRIGGER,
				  ((const struct ketw_sys_stop *)(h + 1))->auto_stop);
		}
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(4, after);
	EXPECT_EQ(1, stops);
	EXPECT_EQ(0, past_stop);
}

TEST_F(trig, snapshot_action_raises_epollpri_with_records_around)
{
	const struct ketw_event_header *tr[2], *h;
	const struct ketw_sys_trigger *p;
	struct ketw_session_status st;
	struct epoll_event ev = { .events = EPOLLPRI }, out;
	struct ketw_trigger t;
	int ep, before = 0, after = 0, bad = 0;
	uint64_t t0, dt;
	size_t off = 0;

	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN,
		  KETW_TRIGGER_SNAPSHOT);
	t.post_ms = 300;
	ASSERT_EQ(1, trig_add(self->fd, &t));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ev));
	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, sample_emit(5));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	t0 = mono_ns();
	ASSERT_EQ(0, sample_warn(1));
	ASSERT_EQ(0, sample_emit(6));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 10000));
	dt = (mono_ns() - t0) / 1000000;
	EXPECT_TRUE(out.events & EPOLLPRI);
	EXPECT_LE(280, dt);
	/* Still there until the status is read through this file. */
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(1, st.snapshots_ready);
	EXPECT_EQ(KETW_STATE_RUNNING, st.state);
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));

	ASSERT_EQ(0, snapshot_all(self->fd, &self->d));
	ASSERT_EQ(1, triggers_in(&self->d, tr, 2));
	p = trig_payload(tr[0]);
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!is_sample(h) || h->event_id != KETW_SAMPLE_EV_TICK ||
		    h->cpu != p->cpu)
			continue;
		if (h->sequence < p->sequence)
			before++;
		else
			after++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(5, before);
	EXPECT_EQ(6, after);
	close(ep);
}

struct poller {
	int fd;
	short revents;
	int ret;
	uint64_t ns;
};

static void *poll_thread(void *arg)
{
	struct poller *pl = arg;
	struct pollfd pfd = { .fd = pl->fd, .events = POLLIN | POLLPRI };
	uint64_t t0 = mono_ns();

	pl->ret = poll(&pfd, 1, 10000);
	pl->revents = pfd.revents;
	pl->ns = mono_ns() - t0;
	return NULL;
}

TEST_F(trig, wake_wakes_a_poller)
{
	struct ketw_session_status st;
	struct poller pl = { .fd = self->fd };
	struct ketw_trigger t;
	pthread_t th;

	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN, KETW_TRIGGER_WAKE);
	ASSERT_EQ(1, trig_add(self->fd, &t));
	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, pthread_create(&th, NULL, poll_thread, &pl));
	usleep(300000);
	ASSERT_EQ(0, sample_emit(2));	/* below the watermark: no wake */
	usleep(300000);
	ASSERT_EQ(0, sample_warn(1));
	pthread_join(th, NULL);
	EXPECT_EQ(1, pl.ret);
	EXPECT_TRUE(pl.revents & POLLPRI);
	EXPECT_FALSE(pl.revents & POLLIN);
	EXPECT_LE(550000000ull, pl.ns);
	EXPECT_GT(5000000000ull, pl.ns);
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(1, st.wakeups);
	EXPECT_EQ(0, st.snapshots_ready);
}

TEST_F(trig, hostile_requests)
{
	struct ketw_trigger t;
	struct {
		struct ketw_trigger t;
		uint64_t tail;
	} big;
	int i;

	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK, KETW_TRIGGER_WAKE);
	t.size = KETW_TRIGGER_SIZE_VER0 - 1;
	EXPECT_EQ(-EINVAL, trig_add(self->fd, &t));
	t.size = 4097;
	EXPECT_EQ(-E2BIG, trig_add(self->fd, &t));
	memset(&big, 0, sizeof(big));
	big.t = t;
	big.t.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, ioctl(self->fd, KETW_IOC_TRIGGER_ADD, &big) ? -errno : 0);

#define BAD(errno_, what) do {						\
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK,		\
		  KETW_TRIGGER_SNAPSHOT);					\
	what;								\
	EXPECT_EQ(errno_, trig_add(self->fd, &t)) TH_LOG("%s", #what);	\
} while (0)
	BAD(-EINVAL, t.flags = 4);
	BAD(-EINVAL, t.flags = 1u << 31);
	BAD(-EINVAL, t.action = 0);
	BAD(-EINVAL, t.action = 4);
	BAD(-EINVAL, t.post_ms = KETW_TRIGGER_POST_MAX + 1);
	BAD(-EINVAL, (t.action = KETW_TRIGGER_WAKE, t.post_ms = 1));
	BAD(-EINVAL, t.min_interval_ms = KETW_TRIGGER_INTERVAL_MAX + 1);
	BAD(-EINVAL, t.value = 1);				/* no field */
	BAD(-EINVAL, t.level = 6);
	BAD(-EINVAL, t.flags = KETW_TRIGGER_FIELD);		/* no name */
	BAD(-EINVAL, strcpy(t.field, "index"));		/* no flag */
	BAD(-EINVAL, memset(t.provider, 'a', sizeof(t.provider)));
	BAD(-EINVAL, memset(t.field, 'a', sizeof(t.field)));
	BAD(-EINVAL, t.provider[0] = 0);			/* no GUID */
	BAD(-EINVAL, t.flags = KETW_TRIGGER_USER);		/* with a name */
	BAD(-ENOENT, strcpy(t.session, "no_such_session"));
	BAD(-ENOENT, strcpy(t.provider, "no-such-provider"));
	BAD(-ENOENT, (t.flags = KETW_TRIGGER_FIELD, strcpy(t.field, "nope")));
	BAD(-ENOENT, (t.flags = KETW_TRIGGER_FIELD, strcpy(t.field, "index"),
		      t.event_id = 99));
	/* text is a string field; tail a binary one. */
	BAD(-EINVAL, (t.flags = KETW_TRIGGER_FIELD, strcpy(t.field, "text"),
		      t.event_id = KETW_SAMPLE_EV_WARN));
	BAD(-EINVAL, (t.flags = KETW_TRIGGER_FIELD, strcpy(t.field, "tail")));
	/* By GUID, not registered and without a field: armed. */
	trig_init(&t, "", 7, KETW_TRIGGER_WAKE);
	memset(t.guid, 0x5a, sizeof(t.guid));
	EXPECT_EQ(1, trig_add(self->fd, &t));

	for (i = 2; i <= KETW_MAX_TRIGGERS; i++) {
		trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK,
			  KETW_TRIGGER_WAKE);
		EXPECT_EQ(i, trig_add(self->fd, &t));
	}
	EXPECT_EQ(-ENOSPC, trig_add(self->fd, &t));
	EXPECT_EQ(-ENOENT, trig_del(self->fd, 99));
	EXPECT_EQ(0, trig_del(self->fd, 5));
	EXPECT_EQ(-ENOENT, trig_del(self->fd, 5));
	EXPECT_EQ(KETW_MAX_TRIGGERS + 1, trig_add(self->fd, &t));
	EXPECT_EQ(-ENOSPC, trig_add(self->fd, &t));
	EXPECT_EQ(0, trig_del(self->fd, 0));
	EXPECT_EQ(0, trig_del(self->fd, 0));
	EXPECT_EQ(KETW_MAX_TRIGGERS + 2, trig_add(self->fd, &t));
	/* DEL of an unknown session. */
	trig_init(&t, "", 0, 0);
	strcpy(t.session, "no_such_session");
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_TRIGGER_DEL, &t));
	EXPECT_EQ(ENOENT, errno);
}

struct emitter {
	volatile int stop;
	long rounds;
};

static void *emit_thread(void *arg)
{
	struct emitter *em = arg;

	while (!em->stop) {
		if (sample_emit(50))
			break;
		em->rounds++;
	}
	return NULL;
}

TEST_F_TIMEOUT(trig, del_while_firing, 60)
{
	struct ketw_session_status st;
	struct emitter em = { 0 };
	struct ketw_trigger t;
	uint64_t end;
	pthread_t th;
	int i, adds = 0;

	ASSERT_EQ(0, start(self->fd));
	/* The emitter on another CPU if there is one. */
	pin_cpu(sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, emit_thread, &em));
	pin_cpu(0);
	end = mono_ns() + 2000000000ull;
	while (mono_ns() < end) {
		for (i = 0; i < 4; i++) {
			trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK,
				  i & 1 ? KETW_TRIGGER_WAKE :
					  KETW_TRIGGER_SNAPSHOT);
			t.min_interval_ms = 1;
			ASSERT_LT(0, trig_add(self->fd, &t));
			adds++;
		}
		ASSERT_EQ(0, trig_del(self->fd, t.id));
		ASSERT_EQ(0, trig_del(self->fd, 0));
	}
	em.stop = 1;
	pthread_join(th, NULL);
	EXPECT_LT(0, em.rounds);
	ASSERT_EQ(0, status(self->fd, &st));
	TH_LOG("%d adds, %ld rounds of 50 events, %u fires", adds, em.rounds,
	       st.triggers_fired);
	EXPECT_LT(0u, st.triggers_fired);
	/* None left: nothing fires. */
	i = st.triggers_fired;
	ASSERT_EQ(0, sample_emit(10));
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ((uint32_t)i, st.triggers_fired);
}

TEST_F_TIMEOUT(trig, destroy_with_a_post_delay_pending, 30)
{
	struct ketw_session_status st;
	struct ketw_trigger t;
	long refcnt, base;
	uint64_t t0;

	/* The module's references before this session: close ours. */
	base = read_ll("/sys/module/ketw/refcnt");
	ASSERT_LT(0, base);
	base -= 2;		/* the session's and our file's */

	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN,
		  KETW_TRIGGER_SNAPSHOT);
	t.post_ms = KETW_TRIGGER_POST_MAX;
	ASSERT_EQ(1, trig_add(self->fd, &t));
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_WARN, KETW_TRIGGER_STOP);
	t.post_ms = KETW_TRIGGER_POST_MAX;
	ASSERT_EQ(2, trig_add(self->fd, &t));
	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, sample_warn(1));
	usleep(100000);
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(2, st.triggers_fired);
	EXPECT_EQ(0, st.snapshots_ready);
	EXPECT_EQ(KETW_STATE_RUNNING, st.state);

	/* An explicit STOP makes the pending snapshot ready at once. */
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(1, st.snapshots_ready);

	/* Again, and DESTROY while both wait: it does not wait for them. */
	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, sample_warn(1));	/* within the 1 s limit: suppressed */
	usleep(1100000);
	ASSERT_EQ(0, sample_warn(1));
	usleep(100000);
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(4, st.triggers_fired);
	t0 = mono_ns();
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION));
	EXPECT_GT(2000000000ull, mono_ns() - t0);
	close(self->fd);
	self->fd = -1;
	/* Nothing pending holds the session, hence the module. */
	refcnt = read_ll("/sys/module/ketw/refcnt");
	EXPECT_EQ(base, refcnt);
}

TEST_F(trig, ketwfs_trigger_file)
{
	struct ketw_trigger t;
	char *text;
	int fd;

	if (!kfs_mounted()) {
		ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL));
		self->mounted_here = 1;
	}
	ASSERT_EQ(0, write_str(KFS_TRIGGER, "ketw-sample:1:4 index=2 action=stop post=250 interval=5"));
	ASSERT_EQ(0, write_str(KFS_TRIGGER, "6b657477-7361-6d70-6c65-000000000001:2 action=wake"));
	ASSERT_EQ(0, write_str(KFS_TRIGGER, "ketw-sample:2 code=5"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "ketw-sample"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "ketw-sample:x"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "ketw-sample:1 action=boom"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "ketw-sample:1 post=60001"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "ketw-sample:1 a=1 b=2"));
	EXPECT_EQ(-ENOENT, write_str(KFS_TRIGGER, "ketw-sample:1 nope=1"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "ketw-sample:2 text=1"));
	EXPECT_EQ(-ENOENT, write_str(KFS_TRIGGER, "!9"));
	EXPECT_EQ(-EINVAL, write_str(KFS_TRIGGER, "!x"));

	/* The same triggers an ioctl arms. */
	trig_init(&t, KETW_SAMPLE_NAME, KETW_SAMPLE_EV_TICK, KETW_TRIGGER_WAKE);
	ASSERT_EQ(4, trig_add(self->fd, &t));
	ASSERT_EQ(0, start(self->fd));
	ASSERT_EQ(0, sample_emit(5));
	ASSERT_EQ(0, sample_warn(2));
	text = read_text(KFS_TRIGGER);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, text_lines_with(text, "1 ketw-sample:1:4 index=2 action=stop post=250 interval=5 fired=1 suppressed=0")) TH_LOG("%s", text);
	EXPECT_EQ(1, text_lines_with(text, "2 ketw-sample:2 action=wake post=0 interval=1000 fired=1 suppressed=1")) TH_LOG("%s", text);
	EXPECT_EQ(1, text_lines_with(text, "3 ketw-sample:2 code=5 action=snapshot post=0 interval=1000 fired=1 suppressed=0")) TH_LOG("%s", text);
	EXPECT_EQ(1, text_lines_with(text, "4 ketw-sample:1 action=wake post=0 interval=1000 fired=1 suppressed=4")) TH_LOG("%s", text);
	ASSERT_EQ(0, wait_state(self->fd, KETW_STATE_SUSPENDED, 5000));

	ASSERT_EQ(0, write_str(KFS_TRIGGER, "!2"));
	text = read_text(KFS_TRIGGER);
	EXPECT_EQ(0, text_lines_with(text, "2 ketw-sample:2 action=wake"));
	EXPECT_EQ(3, text_lines_with(text, "ketw-sample"));
	/* ">" (O_TRUNC) removes them all, then adds what is written. */
	fd = open(KFS_TRIGGER, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	close(fd);
	text = read_text(KFS_TRIGGER);
	EXPECT_STREQ("", text);
	ASSERT_EQ(0, write_str(KFS_TRIGGER, "ketw-sample:1"));
	ASSERT_EQ(0, write_str(KFS_TRIGGER, "!"));
	EXPECT_STREQ("", read_text(KFS_TRIGGER));
}

/* ketw_stress: triggers on its hardirq and NMI events. */
FIXTURE(stress) {
	int fd;
	struct drained d;
	int mounted_here;
};

FIXTURE_SETUP(stress)
{
	struct ketw_session_attr a;
	/* Only the interrupt contexts: the thread would fill the buffer. */
	static const uint32_t out[] = { KETW_STRESS_CTX_THREAD,
					KETW_STRESS_CTX_SOFTIRQ };

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_STRESS |
		     KETW_NEED_SAMPLE);
	ketw_cleanup(SESSION);
	memset(&self->d, 0, sizeof(self->d));
	self->mounted_here = 0;
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&a, SESSION);
	a.policy = KETW_POLICY_LOOP;
	a.buffer_kb = 2048;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_STRESS_NAME, NULL,
				 0, 0, 0, out, 2, 0));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
				 0, 0, 0, NULL, 0, 0));
	if (!kfs_mounted()) {
		ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL));
		self->mounted_here = 1;
	}
}

FIXTURE_TEARDOWN(stress)
{
	if (self->fd >= 0)
		close(self->fd);
	ketw_cleanup(SESSION);
	if (self->mounted_here)
		umount2(KFS, MNT_DETACH);
	free(self->d.buf);
}

static int count_ctx(const struct drained *d, uint32_t ctx)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int n = 0, bad = 0;

	while ((h = next_record(d, &off, &bad)))
		if (!(h->flags & (KETW_RECORD_SYSTEM | KETW_RECORD_PADDING)) &&
		    !memcmp(h->provider_guid, stress_guid, KETW_GUID_SIZE) &&
		    h->event_id == ctx)
			n++;
	return bad ? -1 : n;
}

TEST_F_TIMEOUT(stress, fires_once_from_hardirq_and_nmi, 90)
{
	const struct ketw_event_header *tr[4], *ev, *h;
	const struct ketw_sys_trigger *p;
	struct epoll_event e = { .events = EPOLLPRI }, out;
	struct ketw_session_status st;
	struct ketw_trigger t;
	int ep, i, n, hard, nmi, before = 0, bad = 0;
	char line[160], *text;
	size_t off = 0;

	trig_init(&t, KETW_STRESS_NAME, KETW_STRESS_CTX_HARDIRQ,
		  KETW_TRIGGER_WAKE);
	t.min_interval_ms = KETW_TRIGGER_INTERVAL_MAX;
	ASSERT_EQ(1, trig_add(self->fd, &t));
#ifdef __x86_64__
	trig_init(&t, KETW_STRESS_NAME, KETW_STRESS_CTX_NMI,
		  KETW_TRIGGER_SNAPSHOT);
	t.min_interval_ms = KETW_TRIGGER_INTERVAL_MAX;
	t.post_ms = 50;
	ASSERT_EQ(2, trig_add(self->fd, &t));
#endif
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &e));
	ASSERT_EQ(0, start(self->fd));
	/* Records before any trigger, on every CPU. */
	for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); i++) {
		ASSERT_EQ(0, pin_cpu(i));
		ASSERT_EQ(0, sample_emit(5));
	}
	ASSERT_EQ(0, write_str(STRESS_PARAM("run_ms"), "500"));

#ifdef __x86_64__
	/* The NMI's snapshot: the NMI event, and records before it. */
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 10000));
	EXPECT_TRUE(out.events & EPOLLPRI);
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(1, st.snapshots_ready);
	ASSERT_EQ(0, snapshot_all(self->fd, &self->d));
	n = triggers_in(&self->d, tr, 4);
	ASSERT_LE(1, n);
	for (i = 0; i < n && trig_payload(tr[i])->trigger_id != 2; i++)
		;
	ASSERT_GT(n, i);
	p = trig_payload(tr[i]);
	EXPECT_EQ(KETW_STRESS_CTX_NMI, p->event_id);
	ev = record_at(&self->d, p->cpu, p->sequence);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(KETW_STRESS_CTX_NMI, ev->event_id);
	EXPECT_EQ(0, memcmp(ev->provider_guid, stress_guid, KETW_GUID_SIZE));
	while ((h = next_record(&self->d, &off, &bad)))
		if (h->cpu == p->cpu && h->sequence < p->sequence &&
		    is_sample(h))
			before++;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(5, before);
#endif
	ASSERT_EQ(0, stop_and_drain(self->fd, &self->d));
	ASSERT_EQ(0, status(self->fd, &st));
	EXPECT_EQ(0, st.overwritten);
	hard = count_ctx(&self->d, KETW_STRESS_CTX_HARDIRQ);
	nmi = count_ctx(&self->d, KETW_STRESS_CTX_NMI);
	TH_LOG("%d hardirq, %d NMI events; lost %llu", hard, nmi,
	       (unsigned long long)st.lost);
	ASSERT_LT(0, hard);
	n = triggers_in(&self->d, tr, 4);
#ifdef __x86_64__
	ASSERT_LT(0, nmi);
	ASSERT_EQ(2, n);
	EXPECT_EQ(2, st.triggers_fired);
#else
	ASSERT_EQ(1, n);
#endif
	for (i = 0; i < n; i++) {
		p = trig_payload(tr[i]);
		EXPECT_EQ(1, p->fired);
		EXPECT_EQ(0, p->suppressed);
		ev = record_at(&self->d, p->cpu, p->sequence);
		ASSERT_NE(NULL, ev);
		EXPECT_EQ(p->trigger_id == 1 ? KETW_STRESS_CTX_HARDIRQ :
					       KETW_STRESS_CTX_NMI,
			  ev->event_id);
	}
	/* Every other stored match was suppressed, exactly. */
	text = read_text(KFS "/sessions/" SESSION "/trigger");
	ASSERT_NE(NULL, text);
	snprintf(line, sizeof(line), "fired=1 suppressed=%d", hard - 1);
	EXPECT_LE(1, text_lines_with(text, line)) TH_LOG("%s", text);
#ifdef __x86_64__
	snprintf(line, sizeof(line), "fired=1 suppressed=%d", nmi - 1);
	EXPECT_LE(1, text_lines_with(text, line)) TH_LOG("%s", text);
#endif
	close(ep);
}

/* ketw record --trigger: one file per fire, records before and after. */
FIXTURE(tool) {
	int unused;
};

FIXTURE_SETUP(tool)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	KETW_REQUIRE_PATH(TOOL, X_OK, "the ketw tool, which the harness packs");
	ketw_cleanup(SESSION);
}

FIXTURE_TEARDOWN(tool)
{
	ketw_cleanup(SESSION);
}

TEST_F_TIMEOUT(tool, record_trigger_writes_numbered_files, 90)
{
	static const char *const files[] = {
		"/tmp/trig.ketw", "/tmp/trig.ketw.1", "/tmp/trig.ketw.2",
	};
	char line[256], *out = NULL;
	struct stat sb;
	FILE *rec;
	int i, st;

	for (i = 0; i < 3; i++)
		unlink(files[i]);
	rec = popen(TOOL " record -s " SESSION " -p ketw-sample"
		    " --trigger ketw-sample:2:3 --trigger-field code=0"
		    " --post 300 -d 8 -o /tmp/trig.ketw 2>&1", "r");
	ASSERT_NE(NULL, rec);
	usleep(1500000);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, sample_emit(3));		/* before */
		ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_warn"), "2"));
		ASSERT_EQ(0, sample_emit(4));		/* after */
		usleep(2000000);	/* past the post delay and the limit */
	}
	while (fgets(line, sizeof(line), rec))
		fputs(line, stderr);
	st = pclose(rec);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	EXPECT_NE(0, stat(files[2], &sb));
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line), TOOL " report %s 2>&1", files[i]);
		ASSERT_EQ(0, run_cmd(line, &out)) TH_LOG("%s", out);
		/* File i holds rounds 0..i: records before and after each. */
		EXPECT_EQ(i + 1, count_of(out, " id=TRIGGER ")) TH_LOG("%s", out);
		EXPECT_EQ(i + 1, count_of(out, "fired (")) TH_LOG("%s", out);
		EXPECT_EQ(1, count_of(out, i ? "fired (2 times" : "fired (1 times"))
			TH_LOG("%s", out);
		EXPECT_EQ(7 * (i + 1), count_of(out, " event=tick ")) TH_LOG("%s", out);
		EXPECT_EQ(2 * (i + 1), count_of(out, " event=warn ")) TH_LOG("%s", out);
		free(out);
		out = NULL;
		/* --json decodes the TRIGGER payload. */
		snprintf(line, sizeof(line), TOOL " report --json %s 2>&1",
			 files[i]);
		ASSERT_EQ(0, run_cmd(line, &out)) TH_LOG("%s", out);
		EXPECT_EQ(i + 1, count_of(out, "\"trigger\":{\"id\":1,")) TH_LOG("%s", out);
		EXPECT_EQ(i + 1, count_of(out, "\"provider\":\"ketw-sample\",\"event_id\":2,"))
			TH_LOG("%s", out);
		EXPECT_EQ(1, count_of(out, "\"fired\":1,\"suppressed\":0,\"action\":\"snapshot\"}"))
			TH_LOG("%s", out);
		free(out);
		out = NULL;
	}
}

TEST_HARNESS_MAIN
