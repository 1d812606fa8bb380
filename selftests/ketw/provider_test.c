// SPDX-License-Identifier: GPL-2.0
/*
 * ketw providers: the registry, ETW enable semantics per provider (level,
 * match-any, match-all), POSIX event-set filters, FILTER events, rundown,
 * providers coming and going, and user-space providers.
 */
#include "ketw_test.h"
#include <sys/wait.h>
#include "kselftest_harness.h"

#define SESSION "prov_test"
#define SESSION2 "prov_test2"
#define NSHARE	6
static const char *const share_names[NSHARE] = {
	SESSION "_s0", SESSION "_s1", SESSION "_s2",
	SESSION "_s3", SESSION "_s4", SESSION "_s5",
};

static const uint8_t stress_guid[KETW_GUID_SIZE] = {
	0x6b, 0x65, 0x74, 0x77, 0x73, 0x74, 0x72, 0x65,
	0x73, 0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t zero_guid[KETW_GUID_SIZE];
static const uint8_t user_guid[KETW_GUID_SIZE] = {
	0x75, 0x73, 0x65, 0x72, 0x00, 0x00, 0x40, 0x00,
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07 };

static int emit_warn(unsigned int n)
{
	char s[32];

	snprintf(s, sizeof(s), "%u", n);
	return write_str(SAMPLE_PARAM("emit_warn"), s);
}

struct counts {
	int tick, warn, filter, provider, event_desc, task, user, other;
	int start, stop;
};

static void count(struct __test_metadata *_metadata, struct drained *d,
		  struct counts *c)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0;

	memset(c, 0, sizeof(*c));
	while ((h = next_record(d, &off, &bad))) {
		if (h->flags & KETW_RECORD_SYSTEM) {
			switch (h->event_id) {
			case KETW_SYS_START: c->start++; break;
			case KETW_SYS_STOP: c->stop++; break;
			case KETW_SYS_FILTER: c->filter++; break;
			case KETW_SYS_PROVIDER: c->provider++; break;
			case KETW_SYS_EVENT_DESC: c->event_desc++; break;
			case KETW_SYS_TASK: c->task++; break;
			default: c->other++; break;
			}
		} else if (h->flags & KETW_RECORD_USER) {
			c->user++;
		} else if (is_sample(h) && h->event_id == KETW_SAMPLE_EV_TICK) {
			c->tick++;
		} else if (is_sample(h) && h->event_id == KETW_SAMPLE_EV_WARN) {
			c->warn++;
		} else {
			c->other++;
		}
	}
	EXPECT_EQ(0, bad);
}

FIXTURE(prov) {
	int fd;
	struct ketw_session_attr attr;
	struct drained d;
};

FIXTURE_SETUP(prov)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ketw_cleanup(SESSION);
	ketw_cleanup(SESSION2);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&self->attr, SESSION);
	memset(&self->d, 0, sizeof(self->d));
}

FIXTURE_TEARDOWN(prov)
{
	int i;

	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION2);
	for (i = 0; i < NSHARE; i++)
		ketw_ref(self->fd, KETW_IOC_DESTROY, share_names[i]);
	close(self->fd);
	free(self->d.buf);
}

/* Stop, drain and count what the session got. */
static void stop_and_count(struct __test_metadata *_metadata, int fd,
			   const char *name, struct drained *d,
			   struct counts *c)
{
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, name));
	ASSERT_EQ(0, drain(fd, d));
	count(_metadata, d, c);
}

/* The registry lists providers and their descriptors with fields. */
TEST_F(prov, registry_lists_providers_and_events)
{
	struct ketw_provider_info pi[16];
	struct ketw_event_info ei[4];
	struct ketw_list l;
	int i, found = 0;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_PROVIDERS, &l));
	ASSERT_LE(2, l.count);				/* sample, stress */
	l.capacity = 16;
	l.entries = (uintptr_t)pi;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_PROVIDERS, &l));
	for (i = 0; i < (int)l.count && i < 16; i++) {
		if (!strcmp(pi[i].name, KETW_SAMPLE_NAME)) {
			EXPECT_EQ(0, memcmp(pi[i].provider_guid, sample_guid, 16));
			EXPECT_EQ(3, pi[i].nr_events);
			EXPECT_EQ(0, pi[i].flags);
			found++;
		}
	}
	EXPECT_EQ(1, found);

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 4;
	l.entries = (uintptr_t)ei;
	strcpy(l.provider, KETW_SAMPLE_NAME);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_EVENTS, &l));
	ASSERT_EQ(3, l.count);
	EXPECT_EQ(KETW_SAMPLE_EV_TICK, ei[0].id);
	EXPECT_STREQ("tick", ei[0].name);
	EXPECT_EQ(KETW_SAMPLE_TICK_LEVEL, ei[0].level);
	EXPECT_EQ(KETW_SAMPLE_TICK_KEYWORD, ei[0].keyword);
	EXPECT_EQ(KETW_SAMPLE_TICK_VERSION, ei[0].version);
	ASSERT_EQ(4, ei[0].nr_fields);
	EXPECT_STREQ("index", ei[0].fields[0].name);
	EXPECT_EQ(KETW_FIELD_U32, ei[0].fields[0].type);
	EXPECT_STREQ("value", ei[0].fields[2].name);
	EXPECT_EQ(8, ei[0].fields[2].offset);
	EXPECT_EQ(8, ei[0].fields[2].size);
	EXPECT_STREQ("warn", ei[1].name);
	EXPECT_STREQ("text", ei[1].fields[2].name);
	EXPECT_EQ(KETW_FIELD_STRING, ei[1].fields[2].type);
	EXPECT_EQ(KETW_SAMPLE_EV_FILTER, ei[2].id);
	EXPECT_STREQ("filter", ei[2].name);
	EXPECT_EQ(KETW_SAMPLE_FILTER_KEYWORD, ei[2].keyword);
	ASSERT_EQ(14, ei[2].nr_fields);
	EXPECT_STREQ("longfield", ei[2].fields[2].name);
	EXPECT_EQ(KETW_FIELD_S64, ei[2].fields[2].type);
	EXPECT_EQ(8, ei[2].fields[2].offset);
	EXPECT_STREQ("enums", ei[2].fields[13].name);
	EXPECT_EQ(KETW_SAMPLE_FILTER_SIZE - 28, ei[2].fields[13].offset);
	EXPECT_EQ(28, ei[2].fields[13].size);

	/* By GUID too; an unknown provider is ENOENT. */
	l.provider[0] = 0;
	memcpy(l.guid, sample_guid, 16);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_EVENTS, &l));
	EXPECT_EQ(3, l.count);
	strcpy(l.provider, "no-such-provider");
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_EVENTS, &l));
	EXPECT_EQ(ENOENT, errno);
	memset(&l.provider, 0, sizeof(l.provider));
	memset(&l.guid, 0, sizeof(l.guid));
	EXPECT_EQ(-1, ioctl(self->fd, KETW_IOC_EVENTS, &l));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * ETW enable semantics, per provider: tick is INFO (4) with keyword 0x1,
 * warn is WARNING (3) with keyword 0x2.
 */
TEST_F(prov, level_and_keyword_matrix)
{
	static const struct {
		uint32_t level;
		uint64_t any, all;
		int tick, warn;
	} m[] = {
		{ 0, 0, 0, 1, 1 },		/* everything */
		{ 5, 0, 0, 1, 1 },
		{ 4, 0, 0, 1, 1 },
		{ 3, 0, 0, 0, 1 },		/* warning and worse */
		{ 2, 0, 0, 0, 0 },
		{ 0, 0x1, 0, 1, 0 },		/* any of 0x1 */
		{ 0, 0x3, 0, 1, 1 },		/* any of 0x1|0x2 */
		{ 0, 0x4, 0, 0, 0 },
		{ 0, 0, 0x2, 0, 1 },		/* all of 0x2 */
		{ 0, 0, 0x3, 0, 0 },		/* all of 0x1|0x2: neither */
		{ 0, 0x3, 0x1, 1, 0 },		/* any 0x3 and all 0x1 */
		{ 3, 0x1, 0, 0, 0 },		/* level and keyword both */
	};
	struct counts c;
	unsigned int i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		ketw_attr_init(&self->attr, SESSION);
		ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
		ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
				    m[i].level, m[i].any, m[i].all, NULL, 0, 0));
		ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
		ASSERT_EQ(0, sample_emit(10));
		ASSERT_EQ(0, emit_warn(7));
		stop_and_count(_metadata, self->fd, SESSION, &self->d, &c);
		EXPECT_EQ(m[i].tick ? 10 : 0, c.tick) TH_LOG("case %u", i);
		EXPECT_EQ(m[i].warn ? 7 : 0, c.warn) TH_LOG("case %u", i);
		ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION));
	}
}

/* Two sessions with different filters each get exactly their own. */
TEST_F(prov, two_sessions_two_filters)
{
	struct ketw_session_attr b;
	struct drained d2 = { 0 };
	struct counts c1, c2;
	int fd2 = ketw_open();

	ASSERT_LE(0, fd2);
	ketw_attr_init(&b, SESSION2);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ioctl(fd2, KETW_IOC_CREATE, &b));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
			    KETW_LEVEL_INFO, 0x1, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_enable(fd2, SESSION2, NULL, sample_guid,
			    KETW_LEVEL_WARNING, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, ketw_ref(fd2, KETW_IOC_START, SESSION2));
	ASSERT_EQ(0, sample_emit(30));
	ASSERT_EQ(0, emit_warn(20));
	stop_and_count(_metadata, self->fd, SESSION, &self->d, &c1);
	stop_and_count(_metadata, fd2, SESSION2, &d2, &c2);
	EXPECT_EQ(30, c1.tick);
	EXPECT_EQ(0, c1.warn);
	EXPECT_EQ(0, c2.tick);
	EXPECT_EQ(20, c2.warn);
	close(fd2);
	free(d2.buf);
}

/*
 * Sessions next to each other in the provider's set with the same filter
 * share one verdict (the filter is evaluated once for the run); each
 * still gets exactly its own, the runs broken by a different level, by
 * an event set where the session before has none (and by one alike but
 * of another session), and by a filter changed while they run (which
 * moves the session to the end of the set).
 */
TEST_F(prov, sessions_with_one_filter_share_its_verdict)
{
	static const uint32_t no_warn[] = { KETW_SAMPLE_EV_WARN };
	static const struct {
		uint32_t level;
		int set;		/* the event set above */
		int tick, warn;		/* what it takes */
	} f[NSHARE] = {
		{ KETW_LEVEL_WARNING, 0, 0, 1 },
		{ KETW_LEVEL_WARNING, 0, 0, 1 },
		{ 0, 0, 1, 1 },
		{ 0, 1, 1, 0 },
		{ 0, 1, 1, 0 },
		{ KETW_LEVEL_WARNING, 0, 0, 1 },
	};
	const char *const *name = share_names;
	struct ketw_session_attr a;
	struct drained d = { 0 };
	struct counts c;
	int i, round, fd[NSHARE];

	/* A file each: a file drains the session it created. */
	for (i = 0; i < NSHARE; i++) {
		ketw_cleanup(name[i]);
		fd[i] = ketw_open();
		ASSERT_LE(0, fd[i]);
		ketw_attr_init(&a, name[i]);
		ASSERT_EQ(0, ioctl(fd[i], KETW_IOC_CREATE, &a));
		ASSERT_EQ(0, ketw_enable(fd[i], name[i], KETW_SAMPLE_NAME,
					 NULL, f[i].level, 0, 0,
					 f[i].set ? no_warn : NULL,
					 f[i].set ? 1 : 0, 0));
		ASSERT_EQ(0, ketw_ref(fd[i], KETW_IOC_START, name[i]));
	}
	for (round = 0; round < 2; round++) {
		/* Round 2: the second takes all, splitting the first run. */
		if (round)
			ASSERT_EQ(0, ketw_enable(fd[1], name[1],
						 KETW_SAMPLE_NAME, NULL, 0, 0,
						 0, NULL, 0, 0));
		ASSERT_EQ(0, sample_emit(30));
		ASSERT_EQ(0, emit_warn(20));
		for (i = 0; i < NSHARE; i++) {
			int tick = f[i].tick || (round && i == 1);

			ASSERT_EQ(0, ketw_ref(fd[i], KETW_IOC_STOP, name[i]));
			ASSERT_EQ(0, drain(fd[i], &d));
			count(_metadata, &d, &c);
			free(d.buf);
			memset(&d, 0, sizeof(d));
			EXPECT_EQ(tick ? 30 : 0, c.tick)
				TH_LOG("round %d, session %d", round, i);
			EXPECT_EQ(f[i].warn ? 20 : 0, c.warn)
				TH_LOG("round %d, session %d", round, i);
		}
		for (i = 0; i < NSHARE; i++)
			ASSERT_EQ(0, ketw_ref(fd[i], KETW_IOC_START, name[i]));
	}
	for (i = 0; i < NSHARE; i++) {
		EXPECT_EQ(0, ketw_ref(fd[i], KETW_IOC_DESTROY, name[i]));
		close(fd[i]);
	}
}

/* POSIX event-set filter: the ids in the set are filtered out. */
TEST_F(prov, event_set_filters_ids)
{
	const uint32_t out[] = { KETW_SAMPLE_EV_TICK };
	struct ketw_enable got;
	struct counts c;

	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
			    0, 0, 0, out, 1, 0));
	memset(&got, 0, sizeof(got));
	got.size = sizeof(got);
	strcpy(got.session, SESSION);
	memcpy(got.guid, sample_guid, 16);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_FILTER, &got));
	EXPECT_EQ(1, got.filter.enabled);
	EXPECT_EQ(1ull << KETW_SAMPLE_EV_TICK, got.filter.filtered.bits[0]);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, sample_emit(10));
	ASSERT_EQ(0, emit_warn(4));
	stop_and_count(_metadata, self->fd, SESSION, &self->d, &c);
	EXPECT_EQ(0, c.tick);
	EXPECT_EQ(4, c.warn);
}

/* One enable per provider, whether it is named by GUID or by name. */
TEST_F(prov, name_and_guid_are_one_enable)
{
	struct ketw_enable got;
	struct counts c;

	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, NULL, sample_guid,
			    KETW_LEVEL_VERBOSE, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
			    KETW_LEVEL_WARNING, 0, 0, NULL, 0, 0));
	memset(&got, 0, sizeof(got));
	got.size = sizeof(got);
	strcpy(got.session, SESSION);
	memcpy(got.guid, sample_guid, 16);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_FILTER, &got));
	EXPECT_EQ(KETW_LEVEL_WARNING, got.filter.level);
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, sample_emit(6));
	ASSERT_EQ(0, emit_warn(3));
	/* Disabling by name removes what was enabled by GUID. */
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL, 0, 0, 0,
			    NULL, 0, KETW_ENABLE_DISABLE));
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_GET_FILTER, &got));
	EXPECT_EQ(0, got.filter.enabled);
	ASSERT_EQ(0, emit_warn(4));
	stop_and_count(_metadata, self->fd, SESSION, &self->d, &c);
	EXPECT_EQ(0, c.tick);
	EXPECT_EQ(3, c.warn);
}

/* A provider no session enables logs nothing anywhere. */
TEST_F(prov, disabled_provider_logs_nothing)
{
	long long before = read_ll(SAMPLE_PARAM("stored"));
	struct counts c;

	/* No session at all. */
	ASSERT_EQ(0, sample_emit(50));
	EXPECT_EQ(before, read_ll(SAMPLE_PARAM("stored")));
	/* A running session that enables only another provider. */
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, NULL, stress_guid, 0, 0, 0,
			    NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, sample_emit(50));
	EXPECT_EQ(before, read_ll(SAMPLE_PARAM("stored")));
	stop_and_count(_metadata, self->fd, SESSION, &self->d, &c);
	EXPECT_EQ(0, c.tick + c.warn);
}

/* Changing a running session's filter logs FILTER with old and new. */
TEST_F(prov, filter_change_logs_filter_event)
{
	const struct ketw_event_header *h;
	const struct ketw_sys_filter *f;
	size_t off = 0;
	int bad = 0, nfilter = 0, ticks_after = 0, seen_filter = 0;

	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
			    KETW_LEVEL_VERBOSE, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, sample_emit(5));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
			    KETW_LEVEL_WARNING, 0x2, 0, NULL, 0, 0));
	ASSERT_EQ(0, sample_emit(5));		/* filtered out now */
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL, 0, 0, 0,
			    NULL, 0, KETW_ENABLE_DISABLE));
	EXPECT_EQ(-ENOENT, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
				  0, 0, 0, NULL, 0, KETW_ENABLE_DISABLE));
	EXPECT_EQ(-EINVAL, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL,
				  6, 0, 0, NULL, 0, 0));
	/* Neither a name nor a GUID. */
	EXPECT_EQ(-EINVAL, ketw_enable(self->fd, SESSION, NULL, zero_guid,
				  0, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (is_sample(h) && seen_filter)
			ticks_after++;
		if (!is_system(h, KETW_SYS_FILTER))
			continue;
		f = (const void *)(h + 1);
		/* Only the sample's filter changed: the session is explicit. */
		EXPECT_EQ(0, memcmp(f->provider_guid, sample_guid, 16));
		if (nfilter == 0) {
			EXPECT_EQ(1, f->old_filter.enabled);
			EXPECT_EQ(KETW_LEVEL_VERBOSE, f->old_filter.level);
			EXPECT_EQ(1, f->new_filter.enabled);
			EXPECT_EQ(KETW_LEVEL_WARNING, f->new_filter.level);
			EXPECT_EQ(0x2, f->new_filter.match_any);
		} else {
			EXPECT_EQ(1, f->old_filter.enabled);
			EXPECT_EQ(0x2, f->old_filter.match_any);
			/* Disabled; the session now takes no provider. */
			EXPECT_EQ(0, f->new_filter.enabled);
		}
		seen_filter = 1;
		nfilter++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(2, nfilter);
	EXPECT_EQ(0, ticks_after);
}

/*
 * A session that enables a provider by name before it is loaded takes its
 * events once it loads, and gets its rundown then.
 */
TEST_F(prov, provider_loaded_after_enable)
{
	struct counts c;
	int fd;

	fd = open("/ketw/ketw_sample.ko", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syscall(SYS_delete_module, "ketw_sample", O_NONBLOCK));
	self->attr.flags = 0;			/* with rundown */
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_SAMPLE_NAME, NULL, 0, 0, 0,
			    NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0));
	close(fd);
	ASSERT_EQ(0, sample_emit(12));
	stop_and_count(_metadata, self->fd, SESSION, &self->d, &c);
	EXPECT_EQ(12, c.tick);
	/* Rundown at start did not have it; its registration logged it. */
	EXPECT_LE(1, c.provider);
	EXPECT_LE(2, c.event_desc);
}

/* Rundown: the registry and every task, at start and on request. */
TEST_F(prov, rundown_contents)
{
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, me = 0, sample_prov = 0, tick_desc = 0, starts = 0;
	struct counts c;

	self->attr.flags = 0;			/* with rundown */
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_RUNDOWN, SESSION));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_EQ(-1, ketw_ref(self->fd, KETW_IOC_RUNDOWN, SESSION));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, drain(self->fd, &self->d));
	count(_metadata, &self->d, &c);
	while ((h = next_record(&self->d, &off, &bad))) {
		if (is_system(h, KETW_SYS_START))
			starts++;
		if (h->flags & KETW_RECORD_SYSTEM &&
		    h->event_id >= KETW_SYS_PROVIDER)
			EXPECT_EQ(KETW_TYPE_DC_START, h->type);
		if (is_system(h, KETW_SYS_TASK)) {
			const struct ketw_sys_task *t = (const void *)(h + 1);

			if (t->thread_id == (uint32_t)gettid()) {
				EXPECT_EQ((uint32_t)getpid(), t->process_id);
				EXPECT_EQ(0, strncmp(t->comm, "provider_test", 15));
				me++;
			}
		}
		if (is_system(h, KETW_SYS_PROVIDER)) {
			const struct ketw_sys_provider *p = (const void *)(h + 1);

			if (!memcmp(p->provider_guid, sample_guid, 16)) {
				EXPECT_STREQ(KETW_SAMPLE_NAME, p->name);
				EXPECT_EQ(3, p->nr_events);
				sample_prov++;
			}
		}
		if (is_system(h, KETW_SYS_EVENT_DESC)) {
			const struct ketw_event_info *e = (const void *)(h + 1);

			if (!memcmp(e->provider_guid, sample_guid, 16) &&
			    e->id == KETW_SAMPLE_EV_TICK) {
				EXPECT_STREQ("tick", e->name);
				EXPECT_EQ(4, e->nr_fields);
				tick_desc++;
			}
		}
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(1, starts);
	/* Once at start, once on request. */
	EXPECT_EQ(2, me);
	EXPECT_EQ(2, sample_prov);
	EXPECT_EQ(2, tick_desc);
	EXPECT_LE(4, c.provider);		/* sample and stress, twice */
	EXPECT_LE(10, c.task);			/* init, kthreads, us */
}

static int user_register(int fd, const char *name, const uint8_t *guid)
{
	struct ketw_user_provider up;

	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	memcpy(up.guid, guid, 16);
	snprintf(up.name, sizeof(up.name), "%s", name);
	return ioctl(fd, KETW_IOC_USER_REGISTER, &up) ? -errno : 0;
}

static int user_write(int fd, uint32_t id, const void *data, uint32_t len)
{
	struct ketw_user_event ue;
	int ret;

	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.id = id;
	ue.type = KETW_TYPE_INFO;
	ue.level = KETW_LEVEL_INFO;
	ue.version = 3;
	ue.keyword = 0x10;
	ue.data = (uintptr_t)data;
	ue.len = len;
	ret = ioctl(fd, KETW_IOC_USER_WRITE, &ue);
	return ret < 0 ? -errno : ret;
}

/*
 * A user-space provider logs into the sessions that enable it, with the
 * kernel's pid and tid; bad requests get a clear errno.
 */
TEST_F(prov, user_space_provider)
{
	static char big[KETW_MAX_DATA_SIZE + 1];
	const struct ketw_event_header *h;
	const char msg[] = "hello from user space";
	struct ketw_provider_info pi[16];
	struct ketw_list l;
	size_t off = 0;
	int ufd, fd2, bad = 0, n = 0, truncated = 0, i, listed = 0;

	ufd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ufd);
	/* Control ioctls are not for this node. */
	EXPECT_EQ(-1, ketw_ref(ufd, KETW_IOC_START, SESSION));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-EINVAL, user_write(ufd, 1, msg, sizeof(msg)));  /* none yet */
	EXPECT_EQ(-EINVAL, user_register(ufd, "", user_guid));
	/* Too long once prefixed with KETW_USER_PREFIX. */
	EXPECT_EQ(-EINVAL, user_register(ufd, "0123456789abcdef0123456789abcd",
					 user_guid));
	/* Names go into text: printable, no blank or slash. */
	EXPECT_EQ(-EINVAL, user_register(ufd, "a b", user_guid));
	EXPECT_EQ(-EINVAL, user_register(ufd, "a\nb", user_guid));
	EXPECT_EQ(-EINVAL, user_register(ufd, "a/b", user_guid));
	/* A kernel provider's GUID is not to be had while it is there. */
	EXPECT_EQ(-EEXIST, user_register(ufd, "squat", sample_guid));
	ASSERT_EQ(0, user_register(ufd, "user-prov", user_guid));
	EXPECT_EQ(-EBUSY, user_register(ufd, "user-prov2", user_guid));

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 16;
	l.entries = (uintptr_t)pi;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_PROVIDERS, &l));
	for (i = 0; i < (int)l.count && i < 16; i++)
		if (!strcmp(pi[i].name, KETW_USER_PREFIX "user-prov")) {
			EXPECT_EQ(KETW_PROVIDER_USER, pi[i].flags);
			EXPECT_EQ(getuid(), pi[i].uid);
			listed++;
		}
	EXPECT_EQ(1, listed);

	self->attr.max_data_size = 16;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_USER_PREFIX "user-prov",
				 NULL, 0, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(1, user_write(ufd, 9, msg, 8));
	EXPECT_EQ(1, user_write(ufd, 9, msg, sizeof(msg)));	/* cut to 16 */
	EXPECT_EQ(-EINVAL, user_write(ufd, 9, big, sizeof(big)));
	EXPECT_EQ(-EFAULT, user_write(ufd, 9, (void *)8, 8));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!(h->flags & KETW_RECORD_USER))
			continue;
		EXPECT_EQ(0, memcmp(h->provider_guid, user_guid, 16));
		EXPECT_EQ(9, h->event_id);
		EXPECT_EQ(3, h->version);
		EXPECT_EQ(0x10, h->keyword);
		/* The kernel's ids: nothing in the request can set them. */
		EXPECT_EQ((uint32_t)getpid(), h->process_id);
		EXPECT_EQ((uint32_t)gettid(), h->thread_id);
		EXPECT_EQ(0, memcmp(h + 1, msg, h->size - KETW_EVENT_HEADER_SIZE));
		truncated += !!(h->flags & KETW_RECORD_TRUNCATED);
		n++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(2, n);
	EXPECT_EQ(1, truncated);

	/* Closing the file removes the provider. */
	close(ufd);
	fd2 = ketw_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ioctl(fd2, KETW_IOC_PROVIDERS, &l));
	for (i = 0; i < (int)l.count && i < 16; i++)
		EXPECT_STRNE(KETW_USER_PREFIX "user-prov", pi[i].name);
	close(fd2);
}

/*
 * Every payload length from 0 to 600 bytes arrives byte for byte: the
 * write path copies short payloads in 32- and 8-byte steps plus a 4-, 2-
 * and 1-byte tail, and long ones with memcpy(); each length crosses a
 * different mix of them, from a source at an odd address.
 */
TEST_F(prov, user_payload_every_length)
{
	enum { MAX_LEN = 600 };
	static char src[MAX_LEN + 1];
	const struct ketw_event_header *h;
	const unsigned char *p;
	static char seen[MAX_LEN + 1];
	uint32_t len, k;
	size_t off = 0;
	int ufd, bad = 0, n = 0;

	for (k = 0; k < sizeof(src); k++)
		src[k] = (char)(k * 7 + 3);
	ufd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ufd);
	ASSERT_EQ(0, user_register(ufd, "user-len", user_guid));
	self->attr.buffer_kb = 1024;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &self->attr));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_USER_PREFIX "user-len",
				 NULL, 0, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	/* src + 1: an unaligned source, as a packed payload may be. */
	for (len = 0; len < MAX_LEN; len++)
		ASSERT_EQ(1, user_write(ufd, len, src + 1, len));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!(h->flags & KETW_RECORD_USER))
			continue;
		len = h->size - KETW_EVENT_HEADER_SIZE;
		ASSERT_EQ(h->event_id, len);
		ASSERT_EQ(0, h->flags & KETW_RECORD_TRUNCATED);
		ASSERT_EQ(0, seen[len]) TH_LOG("length %u twice", len);
		seen[len] = 1;
		p = (const unsigned char *)(h + 1);
		for (k = 0; k < len; k++)
			ASSERT_EQ((unsigned char)((k + 1) * 7 + 3), p[k])
				TH_LOG("length %u, byte %u", len, k);
		/* The alignment tail after the payload is zero. */
		for (k = len; k < KETW_RECORD_SPAN(h->size) - KETW_EVENT_HEADER_SIZE; k++)
			ASSERT_EQ(0, p[k]) TH_LOG("length %u, tail byte %u", len, k);
		n++;
	}
	ASSERT_EQ(0, bad);
	EXPECT_EQ(MAX_LEN, n);
	close(ufd);
}

/* Who may log from user space: root, or the group named by user_gid. */
TEST(user_provider_permissions)
{
	pid_t pid;
	int status;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	ASSERT_EQ(0, write_str("/sys/module/ketw/parameters/user_gid", "-1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		_exit(open(KETW_USER_DEVICE, O_RDWR) < 0 && errno == EPERM ?
		      0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("non-member was let in");

	ASSERT_EQ(0, write_str("/sys/module/ketw/parameters/user_gid", "65534"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = open(KETW_USER_DEVICE, O_RDWR);
		if (fd < 0)
			_exit(11);
		if (user_register(fd, "user-nobody", user_guid))
			_exit(12);
		if (user_write(fd, 1, "x", 1) < 0)
			_exit(13);
		/* The control node stays root's. */
		_exit(open(KETW_DEVICE, O_RDWR) < 0 ? 0 : 14);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("group member failed");
	ASSERT_EQ(0, write_str("/sys/module/ketw/parameters/user_gid", "-1"));
}

TEST_HARNESS_MAIN
