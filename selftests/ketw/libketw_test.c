// SPDX-License-Identifier: GPL-2.0
/*
 * libketw's user-space providers (tools/lib/ketw_provider.h) on the real
 * module: a provider registered by an unprivileged user (uid 1000, in
 * user_gid) with event descriptors, which KETW_IOC_EVENTS lists and
 * rundowns log; ketw_enabled() and ketw_event_enabled() following the
 * sessions that take it through the enable page, which cannot be made
 * writable nor private and survives madvise(MADV_DONTNEED); descriptor
 * arrays the kernel refuses; one provider registered by many processes,
 * some killed, and registrations racing sessions; and nothing kept after
 * unregistering.
 */
#include "ketw_test.h"
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include "ketw_provider.h"
#include "kselftest_harness.h"

#define UID		1000
#define GID		1000
#define PARAM(n)	"/sys/module/ketw/parameters/" n
#define SESSION		"libketw_test"
#define SESSION2	"libketw_test2"
#define PROV_NAME	"libketw-test"
#define LISTED_NAME	KETW_USER_PREFIX PROV_NAME
#define EV_ENABLE	"/sys/kernel/tracing/events/ketw/ketw_event/enable"

struct req_payload {
	uint32_t id;
	uint32_t len;
	uint64_t when;
	char path[24];
};

static const struct ketw_field req_fields[] = {
	KETW_FIELD(struct req_payload, id, KETW_FIELD_U32),
	KETW_FIELD(struct req_payload, len, KETW_FIELD_HEX32),
	KETW_FIELD(struct req_payload, when, KETW_FIELD_U64),
	KETW_FIELD(struct req_payload, path, KETW_FIELD_STRING),
};

static const struct ketw_field blob_fields[] = {
	{ .name = "blob", .type = KETW_FIELD_BINARY, .offset = 0, .size = 0 },
};

static const struct ketw_event_descriptor events[] = {
	{ .id = 7, .type = KETW_TYPE_START, .level = KETW_LEVEL_INFO,
	  .version = 2, .keyword = 0x2, .name = "request",
	  .fields = req_fields, .nr_fields = KETW_ARRAY_SIZE(req_fields) },
	{ .id = 8, .type = KETW_TYPE_END, .level = KETW_LEVEL_VERBOSE,
	  .keyword = 0x4, .name = "reply" },
	{ .id = 9, .type = KETW_TYPE_PROVIDER_MIN, .level = KETW_LEVEL_ERROR,
	  .name = "blob", .fields = blob_fields, .nr_fields = 1 },
};

#define GUID { 0x6c, 0x69, 0x62, 0x6b, 0x65, 0x74, 0x77, 0x2d, \
	       0x74, 0x65, 0x73, 0x74, 0x00, 0x00, 0x00, 0x01 }
static const uint8_t guid[KETW_GUID_SIZE] = GUID;

static KETW_PROVIDER_EVENTS(prov, PROV_NAME, events, GUID);

/* ---- the provider's process: uid 1000, driven through pipes ---------- */

enum { OP_ENABLED, OP_EVENT_ENABLED, OP_WRITE, OP_UNREGISTER };

struct req {
	int op;
	uint8_t level;
	uint64_t keyword;
};

struct child {
	pid_t pid;
	int to, from;
};

static int become(uid_t uid, gid_t gid)
{
	if (setgroups(1, &gid) || setgid(gid) || setuid(uid))
		return -errno;
	return 0;
}

static void serve(int rfd, int wfd)
{
	struct req_payload pl = { .id = 42, .len = 3, .when = 1, .path = "/a" };
	long long ans;
	struct req q;
	int err;

	err = become(UID, GID);
	if (!err)
		err = ketw_provider_register(&prov);
	if (!err && prov.page->version != KETW_USER_PAGE_VERSION)
		err = -EPROTO;
	ans = err;
	if (write(wfd, &ans, sizeof(ans)) != sizeof(ans) || err)
		_exit(1);
	while (read(rfd, &q, sizeof(q)) == sizeof(q)) {
		struct ketw_event_descriptor d = events[0];

		switch (q.op) {
		case OP_ENABLED:
			ans = ketw_enabled(&prov);
			break;
		case OP_EVENT_ENABLED:
			ans = ketw_event_enabled(&prov, q.level, q.keyword);
			break;
		case OP_WRITE:
			d.level = q.level;
			d.keyword = q.keyword;
			ans = ketw_write(&prov, &d, &pl, sizeof(pl));
			break;
		case OP_UNREGISTER:
			ketw_provider_unregister(&prov);
			ans = ketw_enabled(&prov) ||
			      ketw_event_enabled(&prov, 0, 0) ||
			      ketw_write(&prov, &d, &pl, sizeof(pl));
			break;
		default:
			ans = -EINVAL;
		}
		if (write(wfd, &ans, sizeof(ans)) != sizeof(ans))
			_exit(2);
	}
	_exit(0);
}

/* Fork the provider's process; 0 once it registered, or its error. */
static long long child_start(struct child *c)
{
	int to[2], from[2];
	long long ans = -EIO;

	if (pipe(to) || pipe(from))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		close(to[1]);
		close(from[0]);
		serve(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	c->to = to[1];
	c->from = from[0];
	if (read(c->from, &ans, sizeof(ans)) != sizeof(ans))
		return -EIO;
	return ans;
}

static long long ask(struct child *c, int op, uint8_t level, uint64_t kw)
{
	struct req q = { .op = op, .level = level, .keyword = kw };
	long long ans = -1000;

	if (write(c->to, &q, sizeof(q)) != sizeof(q) ||
	    read(c->from, &ans, sizeof(ans)) != sizeof(ans))
		return -1000;
	return ans;
}

/* Close the pipes; the child's exit status (0: it ended well). */
static int child_end(struct child *c)
{
	int status;

	close(c->to);
	close(c->from);
	if (waitpid(c->pid, &status, 0) != c->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- the test's own helpers --------------------------------------------- */

static void save(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static int list_events(int fd, const char *name, struct ketw_event_info *ei,
		       uint32_t cap, uint32_t *count)
{
	struct ketw_list l;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = cap;
	snprintf(l.provider, sizeof(l.provider), "%s", name);
	l.entries = (uintptr_t)ei;
	if (ioctl(fd, KETW_IOC_EVENTS, &l))
		return -errno;
	*count = l.count;
	return 0;
}

/* Does @ei describe @d of our provider, fields and all? */
static int info_matches(const struct ketw_event_info *ei,
			const struct ketw_event_descriptor *d)
{
	uint32_t i;

	if (memcmp(ei->provider_guid, guid, KETW_GUID_SIZE) || ei->id != d->id ||
	    ei->flags != KETW_PROVIDER_USER ||
	    ei->type != d->type || ei->level != d->level ||
	    ei->version != d->version || ei->keyword != d->keyword ||
	    strcmp(ei->name, d->name) || ei->nr_fields != d->nr_fields)
		return 0;
	for (i = 0; i < d->nr_fields; i++)
		if (strcmp(ei->fields[i].name, d->fields[i].name) ||
		    ei->fields[i].type != d->fields[i].type ||
		    ei->fields[i].offset != d->fields[i].offset ||
		    ei->fields[i].size != d->fields[i].size)
			return 0;
	return 1;
}

static int user_register_raw(int fd, struct ketw_user_provider *up)
{
	return ioctl(fd, KETW_IOC_USER_REGISTER, up) ? -errno : 0;
}

static void up_init(struct ketw_user_provider *up, const char *name,
		    uint8_t n, struct ketw_event_info *ei, uint32_t nr)
{
	memset(up, 0, sizeof(*up));
	up->size = sizeof(*up);
	memcpy(up->guid, guid, KETW_GUID_SIZE);
	up->guid[15] = n;
	snprintf(up->name, sizeof(up->name), "%s", name);
	up->events = (uintptr_t)ei;
	up->nr_events = nr;
}

static void info_init(struct ketw_event_info *ei, uint32_t id)
{
	memset(ei, 0, sizeof(*ei));
	ei->id = id;
	ei->level = KETW_LEVEL_INFO;
	snprintf(ei->name, sizeof(ei->name), "ev%u", id);
	ei->nr_fields = 2;
	snprintf(ei->fields[0].name, sizeof(ei->fields[0].name), "a");
	ei->fields[0].type = KETW_FIELD_U32;
	ei->fields[0].size = 4;
	snprintf(ei->fields[1].name, sizeof(ei->fields[1].name), "s");
	ei->fields[1].type = KETW_FIELD_STRING;
	ei->fields[1].offset = 4;
}

static long long mem_available_kb(void)
{
	char buf[4096], *p;
	int fd = open("/proc/meminfo", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "MemAvailable:");
	return p ? strtoll(p + 13, NULL, 10) : -1;
}

FIXTURE(libketw) {
	char saved_gid[32], saved_prov[32], saved_ev[32], saved_by[32];
	int fd;
};

FIXTURE_SETUP(libketw)
{
	save(PARAM("user_gid"), self->saved_gid, sizeof(self->saved_gid));
	save(PARAM("user_max_providers"), self->saved_prov,
	     sizeof(self->saved_prov));
	save(PARAM("user_max_events"), self->saved_ev, sizeof(self->saved_ev));
	save(PARAM("user_max_bytes"), self->saved_by, sizeof(self->saved_by));
	ASSERT_NE('\0', self->saved_gid[0]);
	ASSERT_EQ(0, write_str(PARAM("user_gid"), "1000"));
	ketw_cleanup(SESSION);
	ketw_cleanup(SESSION2);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(libketw)
{
	close(self->fd);
	ketw_cleanup(SESSION);
	ketw_cleanup(SESSION2);
	write_str(PARAM("user_gid"), self->saved_gid);
	write_str(PARAM("user_max_providers"), self->saved_prov);
	write_str(PARAM("user_max_events"), self->saved_ev);
	write_str(PARAM("user_max_bytes"), self->saved_by);
}

/* ---- tests ------------------------------------------------------------- */

TEST_F(libketw, descriptors_listed_and_run_down)
{
	struct ketw_event_info ei[8];
	struct ketw_provider_info pi[256];
	struct ketw_session_attr a;
	const struct ketw_event_header *h;
	struct drained d = {};
	struct ketw_list l;
	struct child c;
	uint32_t count, i, descs = 0, provs = 0, user_recs = 0;
	int bad = 0, found = 0;
	size_t off = 0;

	ASSERT_EQ(0, child_start(&c));

	/* Listed, by the name with the prefix. */
	ASSERT_EQ(0, list_events(self->fd, LISTED_NAME, ei, 8, &count));
	ASSERT_EQ(3, count);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(info_matches(&ei[i], &events[i])) TH_LOG("event %u", i);
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 256;
	l.entries = (uintptr_t)pi;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_PROVIDERS, &l));
	for (i = 0; i < l.count && i < 256; i++) {
		if (strcmp(pi[i].name, LISTED_NAME))
			continue;
		found = 1;
		EXPECT_EQ(3, pi[i].nr_events);
		EXPECT_EQ(KETW_PROVIDER_USER, pi[i].flags);
		EXPECT_EQ(UID, pi[i].uid);
	}
	EXPECT_TRUE(found);
	/* The tool lists them too (by the name: the GUID names a driver). */
	{
		char out[8192] = "";
		FILE *f = popen("/ketw/ketw list -p " LISTED_NAME " --json 2>&1", "r");
		size_t n;

		ASSERT_NE(NULL, f);
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = '\0';
		EXPECT_EQ(0, pclose(f)) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "\"name\": \"request\"")) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "\"name\": \"reply\"")) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "\"name\": \"path\"")) TH_LOG("%s", out);
	}

	/* A session's rundown describes them; the event it logs is there. */
	ketw_attr_init(&a, SESSION);
	a.flags = 0;	/* with the rundown at start */
	ASSERT_EQ(0, session_start(self->fd, &a));
	EXPECT_EQ(1, ask(&c, OP_WRITE, KETW_LEVEL_INFO, 0x2));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &d));
	while ((h = next_record(&d, &off, &bad))) {
		const void *p = h + 1;

		if (is_system(h, KETW_SYS_PROVIDER)) {
			const struct ketw_sys_provider *sp = p;

			if (memcmp(sp->provider_guid, guid, KETW_GUID_SIZE))
				continue;
			provs++;
			EXPECT_STREQ(LISTED_NAME, sp->name);
			EXPECT_EQ(3, sp->nr_events);
			EXPECT_EQ(KETW_PROVIDER_USER, sp->flags);
		} else if (is_system(h, KETW_SYS_EVENT_DESC)) {
			const struct ketw_event_info *e = p;

			if (memcmp(e->provider_guid, guid, KETW_GUID_SIZE))
				continue;
			ASSERT_GT(3, descs);
			EXPECT_TRUE(info_matches(e, &events[descs]))
				TH_LOG("rundown event %u", descs);
			descs++;
		} else if (!(h->flags & (KETW_RECORD_SYSTEM | KETW_RECORD_PADDING)) &&
			   !memcmp(h->provider_guid, guid, KETW_GUID_SIZE)) {
			const struct req_payload *pl = p;

			user_recs++;
			EXPECT_TRUE(h->flags & KETW_RECORD_USER);
			EXPECT_EQ(events[0].id, h->event_id);
			EXPECT_EQ(events[0].version, h->version);
			EXPECT_EQ(sizeof(*pl), h->size - KETW_EVENT_HEADER_SIZE);
			EXPECT_EQ(42, pl->id);
			EXPECT_EQ(c.pid, (pid_t)h->process_id);
		}
	}
	EXPECT_FALSE(bad);
	EXPECT_EQ(1, provs);
	EXPECT_EQ(3, descs);
	EXPECT_EQ(1, user_recs);
	free(d.buf);

	EXPECT_EQ(0, ask(&c, OP_UNREGISTER, 0, 0));
	EXPECT_EQ(0, child_end(&c));
	/* Gone with its file. */
	EXPECT_EQ(-ENOENT, list_events(self->fd, LISTED_NAME, ei, 8, &count));
}

TEST_F(libketw, enabled_follows_sessions)
{
	struct ketw_session_attr a;
	struct child c;
	int fd2;

	ASSERT_EQ(0, child_start(&c));
	ASSERT_EQ(0, ask(&c, OP_ENABLED, 0, 0)) TH_LOG("a session is running");
	EXPECT_EQ(0, ask(&c, OP_EVENT_ENABLED, 0, 0));

	/* Up to level WARNING, keyword 0x2. */
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, LISTED_NAME, NULL,
				 KETW_LEVEL_WARNING, 0x2, 0, NULL, 0, 0));
	EXPECT_EQ(0, ask(&c, OP_ENABLED, 0, 0)) TH_LOG("enabled before start");
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(1, ask(&c, OP_ENABLED, 0, 0));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_WARNING, 0x2));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_CRITICAL, 0x6));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_WARNING, 0));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, 0, 0));
	EXPECT_EQ(0, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_INFO, 0x2));
	EXPECT_EQ(0, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_WARNING, 0x4));
	EXPECT_EQ(0, ask(&c, OP_EVENT_ENABLED, 0, 0x4));
	EXPECT_EQ(1, ask(&c, OP_WRITE, KETW_LEVEL_WARNING, 0x2));
	EXPECT_EQ(0, ask(&c, OP_WRITE, KETW_LEVEL_INFO, 0x2));

	/* A second session with the default filter takes everything. */
	fd2 = ketw_open();
	ASSERT_LE(0, fd2);
	ketw_attr_init(&a, SESSION2);
	ASSERT_EQ(0, session_start(fd2, &a));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_VERBOSE, 0x4));
	EXPECT_EQ(1, ask(&c, OP_WRITE, KETW_LEVEL_VERBOSE, 0x4));
	EXPECT_EQ(2, ask(&c, OP_WRITE, KETW_LEVEL_WARNING, 0x2));
	ASSERT_EQ(0, ketw_ref(fd2, KETW_IOC_STOP, SESSION2));
	EXPECT_EQ(0, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_VERBOSE, 0x4));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_WARNING, 0x2));
	close(fd2);

	/* Disabled in the session, then stopped, then started again. */
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, LISTED_NAME, NULL, 0, 0, 0,
				 NULL, 0, KETW_ENABLE_DISABLE));
	EXPECT_EQ(0, ask(&c, OP_ENABLED, 0, 0));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, LISTED_NAME, NULL,
				 KETW_LEVEL_VERBOSE, 0, 0, NULL, 0, 0));
	EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_VERBOSE, 0x80));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_EQ(0, ask(&c, OP_ENABLED, 0, 0));
	EXPECT_EQ(0, ask(&c, OP_WRITE, KETW_LEVEL_WARNING, 0x2));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(1, ask(&c, OP_ENABLED, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_EQ(0, ask(&c, OP_ENABLED, 0, 0));

	/*
	 * The ftrace event ketw:ketw_event takes every provider's events:
	 * every level and keyword, while it is on.
	 */
	if (!access(EV_ENABLE, W_OK)) {
		ASSERT_EQ(0, write_str(EV_ENABLE, "1"));
		EXPECT_EQ(1, ask(&c, OP_EVENT_ENABLED, KETW_LEVEL_VERBOSE, 0x80));
		EXPECT_EQ(0, ask(&c, OP_WRITE, KETW_LEVEL_VERBOSE, 0x80));
		ASSERT_EQ(0, write_str(EV_ENABLE, "0"));
		EXPECT_EQ(0, ask(&c, OP_ENABLED, 0, 0));
	} else {
		TH_LOG("no %s: the ftrace bridge is not checked", EV_ENABLE);
	}

	/* Unregistered: never enabled, whatever runs. */
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(0, ask(&c, OP_UNREGISTER, 0, 0));
	EXPECT_EQ(0, child_end(&c));
}

TEST_F(libketw, enable_page_read_only)
{
	static KETW_PROVIDER(p2, "libketw-ro", GUID);
	long psz = sysconf(_SC_PAGESIZE);
	void *m;
	int fd;

	/* No provider on the file yet. */
	fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(ENODEV, errno);
	close(fd);

	p2.guid[15] = 0x77;
	EXPECT_FALSE(ketw_enabled(&p2));
	ASSERT_EQ(0, ketw_provider_register(&p2));
	EXPECT_EQ(-EBUSY, ketw_provider_register(&p2));
	EXPECT_EQ(KETW_USER_PAGE_VERSION, p2.page->version);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, psz, PROT_READ | PROT_WRITE,
				   MAP_SHARED, p2.fd, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, mprotect((void *)p2.page, psz, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * psz, PROT_READ, MAP_SHARED,
				   p2.fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, psz, PROT_READ, MAP_SHARED,
				   p2.fd, psz));
	EXPECT_EQ(EINVAL, errno);
	/* Private (issue 22: it was accepted): EINVAL, even read-only. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, psz, PROT_READ, MAP_PRIVATE, p2.fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, psz, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, p2.fd, 0));
	EXPECT_EQ(EPERM, errno);
	/* A second shared mapping is the same page. */
	m = mmap(NULL, psz, PROT_READ, MAP_SHARED, p2.fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, mprotect(m, psz, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(0, memcmp(m, p2.page, sizeof(*p2.page)));
	munmap(m, psz);
	ketw_provider_unregister(&p2);
	EXPECT_EQ(-1, p2.fd);
	EXPECT_FALSE(ketw_enabled(&p2));
	ketw_provider_unregister(&p2);	/* twice: a no-op */

	/* A zeroed provider: registered like any, and unregistered. */
	{
		struct ketw_provider z;

		memset(&z, 0, sizeof(z));
		memcpy(z.guid, p2.guid, KETW_GUID_SIZE);
		z.name = "libketw-zeroed";
		ASSERT_EQ(0, ketw_provider_register(&z));
		EXPECT_LE(0, z.fd);
		EXPECT_EQ(KETW_USER_PAGE_VERSION, z.page->version);
		ketw_provider_unregister(&z);
		EXPECT_EQ(-1, z.fd);
		EXPECT_FALSE(ketw_enabled(&z));
		memset(&z, 0, sizeof(z));
		z.name = "libketw-zeroed";	/* the zero GUID: refused */
		EXPECT_EQ(-EINVAL, ketw_provider_register(&z));
		EXPECT_FALSE(ketw_enabled(&z));
		ketw_provider_unregister(&z);
	}
}

TEST_F(libketw, hostile_descriptors)
{
	static struct ketw_event_info ei[KETW_USER_MAX_EVENTS + 1];
	static struct ketw_event_info got[KETW_USER_MAX_EVENTS];
	struct ketw_event_descriptor many[KETW_USER_MAX_EVENTS + 1];
	struct ketw_user_provider up;
	uint32_t i, count;
	int fd;

	fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i <= KETW_USER_MAX_EVENTS; i++)
		info_init(&ei[i], i);

#define REFUSED(err, what) do {						\
		EXPECT_EQ(-(err), user_register_raw(fd, &up)) TH_LOG(what); \
		for (i = 0; i < 4; i++)					\
			info_init(&ei[i], i);				\
		up_init(&up, "hostile", 1, ei, 4);			\
	} while (0)

	up_init(&up, "hostile", 1, ei, 4);
	up.events = 16;
	REFUSED(EFAULT, "bad pointer");
	up.nr_events = KETW_USER_MAX_EVENTS + 1;
	REFUSED(E2BIG, "too many");
	up.nr_events = 0xffffffff;
	REFUSED(E2BIG, "far too many");
	up.nr_events = 0;
	REFUSED(EINVAL, "a pointer with no events");
	up.reserved = 1;
	REFUSED(EINVAL, "reserved");
	ei[1].name[0] = '\x01';
	REFUSED(EINVAL, "non-printable event name");
	ei[2].name[1] = ' ';
	REFUSED(EINVAL, "blank in an event name");
	memset(ei[0].name, 'x', sizeof(ei[0].name));
	REFUSED(EINVAL, "unterminated event name");
	ei[3].name[0] = '\0';
	REFUSED(EINVAL, "empty event name");
	ei[3].name[5] = 'y';
	REFUSED(EINVAL, "bytes after the name's NUL");
	ei[0].fields[1].name[0] = '\x7f';
	REFUSED(EINVAL, "non-printable field name");
	ei[0].level = KETW_LEVEL_VERBOSE + 1;
	REFUSED(EINVAL, "level");
	ei[0].flags = KETW_PROVIDER_USER;
	REFUSED(EINVAL, "flags in an event");
	ei[1].id = 0;
	REFUSED(EINVAL, "duplicate id");
	ei[2].provider_guid[0] = 1;
	REFUSED(EINVAL, "another provider's GUID");
	ei[2].nr_fields = KETW_MAX_FIELDS + 1;
	REFUSED(EINVAL, "too many fields");
	ei[2].fields[0].type = 0;
	REFUSED(EINVAL, "field type 0");
	ei[2].fields[0].type = KETW_FIELD_GUID + 1;
	REFUSED(EINVAL, "unknown field type");
	ei[2].fields[0].size = 8;
	REFUSED(EINVAL, "a U32 of 8 bytes");
	ei[2].fields[1].offset = KETW_MAX_DATA_SIZE - 2;
	ei[2].fields[1].size = 4;
	REFUSED(EINVAL, "a field past the largest payload");
	ei[2].fields[1].reserved = 1;
	REFUSED(EINVAL, "reserved in a field");
	ei[2].fields[2].type = KETW_FIELD_U8;
	REFUSED(EINVAL, "an unused field not zero");
#undef REFUSED

	/* None of that registered anything: the file takes one now. */
	up_init(&up, "hostile", 1, ei, KETW_USER_MAX_EVENTS);
	memcpy(ei[5].provider_guid, up.guid, KETW_GUID_SIZE);	/* its own: fine */
	ASSERT_EQ(0, user_register_raw(fd, &up));
	ASSERT_EQ(0, list_events(self->fd, KETW_USER_PREFIX "hostile", got,
				 KETW_USER_MAX_EVENTS, &count));
	EXPECT_EQ(KETW_USER_MAX_EVENTS, count);
	EXPECT_EQ(KETW_USER_MAX_EVENTS - 1, got[KETW_USER_MAX_EVENTS - 1].id);
	EXPECT_STREQ("s", got[200].fields[1].name);
	EXPECT_EQ(0, memcmp(got[0].provider_guid, up.guid, KETW_GUID_SIZE));
	close(fd);

	/* The size before descriptors still registers, without any. */
	fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	up_init(&up, "hostile-v0", 2, NULL, 0);
	up.size = KETW_USER_PROVIDER_SIZE_VER0;
	ASSERT_EQ(0, user_register_raw(fd, &up));
	ASSERT_EQ(0, list_events(self->fd, KETW_USER_PREFIX "hostile-v0", got,
				 1, &count));
	EXPECT_EQ(0, count);
	close(fd);

	/* What the library refuses before the kernel sees it. */
	{
		static KETW_PROVIDER(p3, "libketw-hostile", GUID);

		for (i = 0; i <= KETW_USER_MAX_EVENTS; i++)
			many[i] = (struct ketw_event_descriptor){
				.id = i, .name = "e" };
		p3.events = many;
		p3.nr_events = KETW_USER_MAX_EVENTS + 1;
		EXPECT_EQ(-E2BIG, ketw_provider_register(&p3));
		p3.nr_events = 1;
		many[0].name = "a-name-longer-than-thirty-one-characters";
		EXPECT_EQ(-EINVAL, ketw_provider_register(&p3));
		many[0].name = "e";
		many[0].nr_fields = 1;
		many[0].fields = NULL;
		EXPECT_EQ(-EINVAL, ketw_provider_register(&p3));
		many[0].nr_fields = 0;
		p3.name = "a-name-longer-than-thirty-one-characters";
		EXPECT_EQ(-EINVAL, ketw_provider_register(&p3));
		p3.name = "lib hostile";
		EXPECT_EQ(-EINVAL, ketw_provider_register(&p3));
		EXPECT_EQ(-1, p3.fd);
		EXPECT_FALSE(ketw_enabled(&p3));
	}
}

/* uid 1000 with user_max_providers 2: registering again and again. */
static int cycle_as_user(void)
{
	static KETW_PROVIDER_EVENTS(p4, "libketw-cycle", events, GUID);
	int i, err;

	if (become(UID, GID))
		return 100;
	for (i = 0; i < 50; i++) {
		err = ketw_provider_register(&p4);
		if (err)
			return 10 + (err == -ENOSPC);
		ketw_provider_unregister(&p4);
	}
	return 0;
}

TEST_F_TIMEOUT(libketw, no_leak, 120)
{
	static struct ketw_event_info ei[KETW_USER_MAX_EVENTS];
	struct ketw_user_provider up;
	long long before, after;
	int i, fd, status;
	void *hole;
	pid_t pid;

	/* The user's provider count comes back each time. */
	ASSERT_EQ(0, write_str(PARAM("user_max_providers"), "2"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(cycle_as_user());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/*
	 * Memory: 256 descriptors take about 230 KiB in the kernel; 150
	 * registrations and 150 refused ones (the copy fails after the
	 * allocations) would leak 30 MiB or more.
	 */
	for (i = 0; i < KETW_USER_MAX_EVENTS; i++)
		info_init(&ei[i], i);
	before = mem_available_kb();
	ASSERT_LT(0, before);
	for (i = 0; i < 150; i++) {
		fd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		up_init(&up, "leak", 3, ei, KETW_USER_MAX_EVENTS);
		/* One page of descriptors, then a hole: EFAULT midway. */
		hole = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, hole);
		munmap((char *)hole + 4096, 4096);
		memcpy(hole, ei, 4096);
		up.events = (uintptr_t)hole;
		EXPECT_EQ(-EFAULT, user_register_raw(fd, &up));
		munmap(hole, 4096);
		up.events = (uintptr_t)ei;
		ASSERT_EQ(0, user_register_raw(fd, &up));
		close(fd);
	}
	after = mem_available_kb();
	TH_LOG("MemAvailable %lld kB before, %lld kB after", before, after);
	EXPECT_GT(16 * 1024, before - after);
}

/* ---- one provider, many processes ------------------------------------ */

#define SH_NAME		"libketw-shared"
#define SH_LISTED	KETW_USER_PREFIX SH_NAME
#define NR_PROCS	8
#define SH_N1		300	/* every process, before the kills */
#define SH_N2		300	/* the survivors, while the others die */
#define SH_N3		200	/* the survivors, after */
#define SH_FOREVER	20000	/* at most, by one that is killed writing */
#define SH_MAX_SEQ	(SH_N1 + SH_N2 + SH_N3 + SH_FOREVER + 1)

struct sh_payload {
	uint32_t proc;
	uint32_t seq;
};

static const struct ketw_field sh_fields[] = {
	KETW_FIELD(struct sh_payload, proc, KETW_FIELD_U32),
	KETW_FIELD(struct sh_payload, seq, KETW_FIELD_U32),
};

static const struct ketw_event_descriptor sh_events[] = {
	{ .id = 1, .level = KETW_LEVEL_INFO, .keyword = 0x1, .name = "tick",
	  .fields = sh_fields, .nr_fields = KETW_ARRAY_SIZE(sh_fields) },
};

static const struct ketw_event_descriptor sh_other_events[] = {
	{ .id = 1, .level = KETW_LEVEL_ERROR, .keyword = 0x1, .name = "tick",
	  .fields = sh_fields, .nr_fields = KETW_ARRAY_SIZE(sh_fields) },
};

#define SH_GUID { 0x6c, 0x69, 0x62, 0x6b, 0x65, 0x74, 0x77, 0x2d, \
		  0x73, 0x68, 0x61, 0x72, 0x65, 0x64, 0x00, 0x01 }
static const uint8_t sh_guid[KETW_GUID_SIZE] = SH_GUID;

/* Shared with the children (MAP_SHARED): what each one stored. */
struct sh_state {
	_Atomic uint32_t written[NR_PROCS];
	_Atomic uint32_t failed[NR_PROCS];
};

enum { SH_WRITE = 'w', SH_FOREVER_OP = 'f', SH_PAGE = 'p', SH_QUIT = 'q' };

/* Write @n events of process @i; the seq is the count stored so far. */
static void sh_write(struct ketw_provider *p, struct sh_state *st, int i,
		     uint32_t n)
{
	struct sh_payload pl = { .proc = (uint32_t)i };

	while (n--) {
		pl.seq = atomic_load(&st->written[i]);
		if (ketw_write(p, &sh_events[0], &pl, sizeof(pl)) == 1)
			atomic_fetch_add(&st->written[i], 1);
		else
			atomic_fetch_add(&st->failed[i], 1);
	}
}

/* Process @i of the shared provider: uid 1000, driven through pipes. */
static void sh_child(int i, int rfd, int wfd, struct sh_state *st)
{
	KETW_PROVIDER_EVENTS(p, SH_NAME, sh_events, SH_GUID);
	long long ans;
	struct { char op; uint32_t n; } q;
	int err;

	err = become(UID, GID);
	if (!err)
		err = ketw_provider_register(&p);
	ans = err;
	if (write(wfd, &ans, sizeof(ans)) != sizeof(ans) || err)
		_exit(1);
	while (read(rfd, &q, sizeof(q)) == sizeof(q)) {
		switch (q.op) {
		case SH_WRITE:
			sh_write(&p, st, i, q.n);
			ans = atomic_load(&st->written[i]);
			break;
		case SH_FOREVER_OP:	/* until killed, or SH_FOREVER */
			sh_write(&p, st, i, SH_FOREVER);
			ans = -1;
			break;
		case SH_PAGE:
			ans = (long long)p.page->seq << 32 | p.page->levels;
			break;
		case SH_QUIT:
			ketw_provider_unregister(&p);
			ans = ketw_enabled(&p);
			break;
		default:
			ans = -EINVAL;
		}
		if (write(wfd, &ans, sizeof(ans)) != sizeof(ans))
			_exit(2);
		if (q.op == SH_QUIT)
			_exit(0);
	}
	_exit(3);
}

static int sh_start(struct child *c, int i, struct sh_state *st)
{
	int to[2], from[2];
	long long ans = -EIO;

	if (pipe(to) || pipe(from))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		close(to[1]);
		close(from[0]);
		sh_child(i, to[0], from[1], st);
	}
	close(to[0]);
	close(from[1]);
	c->to = to[1];
	c->from = from[0];
	if (read(c->from, &ans, sizeof(ans)) != sizeof(ans))
		return -EIO;
	return (int)ans;
}

static int sh_send(struct child *c, char op, uint32_t n)
{
	struct { char op; uint32_t n; } q;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.n = n;
	return write(c->to, &q, sizeof(q)) == sizeof(q) ? 0 : -1;
}

static long long sh_answer(struct child *c)
{
	long long ans = -1000;

	if (read(c->from, &ans, sizeof(ans)) != sizeof(ans))
		return -1000;
	return ans;
}

/* How many providers named @name are listed (their uid in *@uid). */
static int listed(int fd, const char *name, uint32_t *uid)
{
	static struct ketw_provider_info pi[256];
	struct ketw_list l;
	uint32_t i;
	int n = 0;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 256;
	l.entries = (uintptr_t)pi;
	if (ioctl(fd, KETW_IOC_PROVIDERS, &l))
		return -errno;
	for (i = 0; i < l.count && i < 256; i++)
		if (!strcmp(pi[i].name, name)) {
			n++;
			if (uid)
				*uid = pi[i].uid;
		}
	return n;
}

/* As uid 1000: one more registration of the shared provider; its result. */
static int sh_one_more(void)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		KETW_PROVIDER_EVENTS(p, SH_NAME, sh_events, SH_GUID);

		_exit(become(UID, GID) ? 100 : -ketw_provider_register(&p));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1000;
	return -WEXITSTATUS(status);
}

/*
 * Issue 22: a user provider worked from one process only. Eight
 * processes of uid 1000 register the same provider (the ninth is past
 * user_max_providers: each registration counts); one session takes all
 * of them, each record with its writer's pid and tid, and every
 * registration sees the same enable page. Three are SIGKILLed while they
 * write: the provider stays for the others, and goes with the last.
 * Every process's events are in the session, exactly: each seq once.
 */
TEST_F_TIMEOUT(libketw, shared_by_eight_processes, 240)
{
	static const int killed[NR_PROCS] = { [1] = 1, [4] = 1, [6] = 1 };
	static uint8_t seen[NR_PROCS][SH_MAX_SEQ];
	uint32_t count[NR_PROCS] = { 0 }, dup[NR_PROCS] = { 0 }, uid = 0;
	struct child c[NR_PROCS];
	struct ketw_session_status ss;
	struct ketw_session_attr a;
	const struct ketw_event_header *h;
	struct drained d = {};
	struct sh_state *st;
	long long page0;
	int i, j, bad = 0, status, provs = 0, alive;
	size_t off = 0;
	uint64_t t0;

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st);
	memset(st, 0, sizeof(*st));
	ASSERT_EQ(0, write_str(PARAM("user_max_providers"), "8"));
	/* The eight share uid 1000's rates: no EAGAIN here. */
	ASSERT_EQ(0, write_str(PARAM("user_max_events"), "100000000"));
	ASSERT_EQ(0, write_str(PARAM("user_max_bytes"), "1000000000"));

	/* Large enough for everything: nothing may be lost. */
	ketw_attr_init(&a, SESSION);
	a.flags = 0;	/* the provider's rundown, once, when it registers */
	a.buffer_kb = 2048;
	a.policy = KETW_POLICY_UNTIL_FULL;
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, SH_LISTED, NULL,
				 KETW_LEVEL_INFO, 0x1, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));

	for (i = 0; i < NR_PROCS; i++)
		ASSERT_EQ(0, sh_start(&c[i], i, st)) TH_LOG("process %d", i);
	EXPECT_EQ(-ENOSPC, sh_one_more());
	EXPECT_EQ(1, listed(self->fd, SH_LISTED, &uid));
	EXPECT_EQ(UID, uid);

	/* One enable page: every registration reads the same words. */
	for (i = 0; i < NR_PROCS; i++)
		ASSERT_EQ(0, sh_send(&c[i], SH_PAGE, 0));
	page0 = sh_answer(&c[0]);
	EXPECT_EQ(0x1f, page0 & 0xffffffff);
	for (i = 1; i < NR_PROCS; i++)
		EXPECT_EQ(page0, sh_answer(&c[i])) TH_LOG("process %d", i);
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, SH_LISTED, NULL,
				 KETW_LEVEL_VERBOSE, 0x1, 0, NULL, 0, 0));
	for (i = 0; i < NR_PROCS; i++)
		ASSERT_EQ(0, sh_send(&c[i], SH_PAGE, 0));
	page0 = sh_answer(&c[0]);
	EXPECT_EQ(0x3f, page0 & 0xffffffff);
	for (i = 1; i < NR_PROCS; i++)
		EXPECT_EQ(page0, sh_answer(&c[i])) TH_LOG("process %d", i);

	/* All at once. */
	for (i = 0; i < NR_PROCS; i++)
		ASSERT_EQ(0, sh_send(&c[i], SH_WRITE, SH_N1));
	for (i = 0; i < NR_PROCS; i++)
		EXPECT_EQ(SH_N1, sh_answer(&c[i])) TH_LOG("process %d", i);

	/* Three write until they are killed; the others write meanwhile. */
	for (i = 0; i < NR_PROCS; i++)
		ASSERT_EQ(0, sh_send(&c[i], killed[i] ? SH_FOREVER_OP : SH_WRITE,
				     SH_N2));
	t0 = mono_ns();
	for (i = 0; i < NR_PROCS; i++)
		while (killed[i] && atomic_load(&st->written[i]) < SH_N1 + 100 &&
		       mono_ns() - t0 < 60000000000ull)
			usleep(1000);
	for (i = 0; i < NR_PROCS; i++)
		if (killed[i]) {
			EXPECT_LE(SH_N1 + 100, atomic_load(&st->written[i]));
			EXPECT_EQ(0, kill(c[i].pid, SIGKILL));
		}
	for (i = 0; i < NR_PROCS; i++) {
		if (!killed[i]) {
			EXPECT_EQ(SH_N1 + SH_N2, sh_answer(&c[i])) TH_LOG("process %d", i);
			continue;
		}
		ASSERT_EQ(c[i].pid, waitpid(c[i].pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			TH_LOG("process %d was to be killed while writing", i);
		close(c[i].to);
		close(c[i].from);
	}
	/* The survivors keep it, and log on. */
	EXPECT_EQ(1, listed(self->fd, SH_LISTED, NULL));
	for (i = 0; i < NR_PROCS; i++)
		if (!killed[i])
			ASSERT_EQ(0, sh_send(&c[i], SH_WRITE, SH_N3));
	for (i = 0; i < NR_PROCS; i++)
		if (!killed[i])
			EXPECT_EQ(SH_N1 + SH_N2 + SH_N3, sh_answer(&c[i]))
				TH_LOG("process %d", i);

	/* Gone with the last registration, not before. */
	alive = NR_PROCS - 3;
	for (i = 0; i < NR_PROCS; i++) {
		if (killed[i])
			continue;
		ASSERT_EQ(0, sh_send(&c[i], SH_QUIT, 0));
		EXPECT_EQ(0, sh_answer(&c[i]));
		EXPECT_EQ(0, child_end(&c[i]));
		EXPECT_EQ(--alive ? 1 : 0, listed(self->fd, SH_LISTED, NULL))
			TH_LOG("%d registrations left", alive);
	}
	EXPECT_EQ(-ENOENT, list_events(self->fd, SH_LISTED, NULL, 0, &count[0]));

	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	memset(&ss, 0, sizeof(ss));
	ss.size = sizeof(ss);
	snprintf(ss.name, sizeof(ss.name), "%s", SESSION);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_STATUS, &ss));
	EXPECT_EQ(0, ss.lost);
	EXPECT_EQ(0, ss.overwritten);
	ASSERT_EQ(0, drain(self->fd, &d));
	memset(count, 0, sizeof(count));
	while ((h = next_record(&d, &off, &bad))) {
		const struct sh_payload *pl = (const void *)(h + 1);

		if (is_system(h, KETW_SYS_PROVIDER) &&
		    !memcmp(((const struct ketw_sys_provider *)pl)->provider_guid,
			    sh_guid, KETW_GUID_SIZE))
			provs++;
		if ((h->flags & (KETW_RECORD_SYSTEM | KETW_RECORD_PADDING)) ||
		    memcmp(h->provider_guid, sh_guid, KETW_GUID_SIZE))
			continue;
		ASSERT_EQ(sizeof(*pl), h->size - KETW_EVENT_HEADER_SIZE);
		ASSERT_GT(NR_PROCS, pl->proc);
		ASSERT_GT(SH_MAX_SEQ, pl->seq);
		EXPECT_TRUE(h->flags & KETW_RECORD_USER);
		/* Its writer's own ids (one thread: tid == pid). */
		EXPECT_EQ(c[pl->proc].pid, (pid_t)h->process_id);
		EXPECT_EQ(c[pl->proc].pid, (pid_t)h->thread_id);
		dup[pl->proc] += seen[pl->proc][pl->seq]++ != 0;
		count[pl->proc]++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1, provs);
	for (i = 0; i < NR_PROCS; i++) {
		uint32_t w = atomic_load(&st->written[i]);

		TH_LOG("process %d (pid %d)%s: %u events stored, %u written",
		       i, c[i].pid, killed[i] ? ", SIGKILLed" : "", count[i], w);
		EXPECT_EQ(0, atomic_load(&st->failed[i])) TH_LOG("process %d", i);
		EXPECT_EQ(0, dup[i]) TH_LOG("process %d", i);
		/* Killed between the ioctl and the count: one more. */
		if (killed[i]) {
			EXPECT_TRUE(count[i] == w || count[i] == w + 1)
				TH_LOG("process %d: %u stored, %u counted", i, count[i], w);
		} else {
			EXPECT_EQ(SH_N1 + SH_N2 + SH_N3, count[i]);
		}
		for (j = 0; j < (int)count[i]; j++)
			if (!seen[i][j]) {
				EXPECT_TRUE(seen[i][j]) TH_LOG("process %d: seq %d missing", i, j);
				break;
			}
	}
	free(d.buf);
	munmap(st, sizeof(*st));
}

/* Register @events under SH_NAME with @g as the current user; the conflict. */
static int sh_conflict_as(uid_t uid, const struct ketw_event_descriptor *ev,
			  const uint8_t *g, const char *name)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		KETW_PROVIDER_EVENTS(p, SH_NAME, sh_events, SH_GUID);
		int err;

		p.events = ev;
		p.name = name;
		memcpy(p.guid, g, KETW_GUID_SIZE);
		if (uid && become(uid, GID))
			_exit(100);
		err = ketw_provider_register(&p);
		if (!err)
			_exit(50);
		if (err != -EEXIST)
			_exit(60);
		_exit(ketw_provider_conflict());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Only the same user id, GUID and descriptors share a provider; anything
 * else under its name is EEXIST, and libketw says which rule it broke.
 */
TEST_F(libketw, shared_conflicts)
{
	static const uint8_t other_guid[KETW_GUID_SIZE] = { 0x0f, 0x0e, 1 };
	uint8_t my_guid[KETW_GUID_SIZE] = SH_GUID;
	struct sh_state *st;
	struct child c;
	char msg[256];
	FILE *f;
	size_t n;

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st);
	ASSERT_EQ(0, sh_start(&c, 0, st));
	EXPECT_EQ(KETW_USER_CONFLICT_OTHER_USER,
		  sh_conflict_as(1001, sh_events, sh_guid, SH_NAME));
	EXPECT_EQ(KETW_USER_CONFLICT_OTHER_USER,
		  sh_conflict_as(0, sh_events, sh_guid, SH_NAME));
	EXPECT_EQ(KETW_USER_CONFLICT_OTHER_GUID,
		  sh_conflict_as(UID, sh_events, other_guid, SH_NAME));
	EXPECT_EQ(KETW_USER_CONFLICT_OTHER_EVENTS,
		  sh_conflict_as(UID, sh_other_events, sh_guid, SH_NAME));
	EXPECT_EQ(KETW_USER_CONFLICT_GUID_TAKEN,
		  sh_conflict_as(UID, sh_events, sh_guid, "libketw-other"));
	EXPECT_EQ(KETW_USER_CONFLICT_GUID_TAKEN,
		  sh_conflict_as(UID, sh_events, sample_guid, "libketw-sample"));
	/* A success clears it; the same provider joins. */
	EXPECT_EQ(50, sh_conflict_as(UID, sh_events, my_guid, SH_NAME));
	EXPECT_STRNE("unknown conflict",
		     ketw_provider_conflict_str(KETW_USER_CONFLICT_OTHER_USER));
	/* The tool says it too. */
	f = popen("/ketw/ketw log -g 6c69626b-6574-772d-7368-617265640001 "
		  SH_NAME " hello 2>&1", "r");
	ASSERT_NE(NULL, f);
	n = fread(msg, 1, sizeof(msg) - 1, f);
	msg[n] = '\0';
	EXPECT_NE(0, pclose(f));
	EXPECT_NE(NULL, strstr(msg, "another user has registered")) TH_LOG("%s", msg);
	ASSERT_EQ(0, sh_send(&c, SH_QUIT, 0));
	EXPECT_EQ(0, sh_answer(&c));
	EXPECT_EQ(0, child_end(&c));
	munmap(st, sizeof(*st));
}

/* ---- registrations racing sessions ------------------------------------- */

#define RACE_NAME	"libketw-race"
#define RACE_PROCS	4
#define RACE_THREADS	3

static _Atomic int race_stop;

/* Register, map, log, madvise, read, unregister, again and again. */
static void *race_thread(void *arg)
{
	KETW_PROVIDER_EVENTS(p, RACE_NAME, sh_events, SH_GUID);
	struct sh_payload pl = { 0 };
	long psz = sysconf(_SC_PAGESIZE);
	intptr_t bad = 0;
	int err, ret;

	(void)arg;
	p.guid[15] = 0x72;
	while (!atomic_load(&race_stop) && !bad) {
		err = ketw_provider_register(&p);
		if (err) {
			bad = 1000 - err;
			break;
		}
		ret = ketw_write(&p, &sh_events[0], &pl, sizeof(pl));
		if (ret < 0 && ret != -EAGAIN)
			bad = 2000 - ret;
		if (madvise((void *)p.page, psz, MADV_DONTNEED) && errno != ENOSYS)
			bad = 3000 + errno;
		if (p.page->version != KETW_USER_PAGE_VERSION)
			bad = 4000;
		ketw_provider_unregister(&p);
		pl.seq++;
	}
	return (void *)bad;
}

/* One racer process: uid 1000, RACE_THREADS threads for @ms. */
static int race_proc(int ms)
{
	pthread_t th[RACE_THREADS];
	void *ret;
	int i, bad = 0;

	if (become(UID, GID))
		return 100;
	for (i = 0; i < RACE_THREADS; i++)
		if (pthread_create(&th[i], NULL, race_thread, NULL))
			return 101;
	usleep(ms * 1000);
	atomic_store(&race_stop, 1);
	for (i = 0; i < RACE_THREADS; i++) {
		pthread_join(th[i], &ret);
		if ((intptr_t)ret && !bad) {
			fprintf(stderr, "# racer thread: %ld\n", (long)(intptr_t)ret);
			bad = 1;
		}
	}
	return bad;
}

static pid_t race_fork(int ms)
{
	pid_t pid = fork();

	if (!pid)
		_exit(race_proc(ms));
	return pid;
}

/*
 * Processes and threads of uid 1000 register and close the same provider
 * in a loop, mapping, reading and madvise()ing its page, while a session
 * is started, stopped and made to enable and disable it, and a racer is
 * SIGKILLed: nothing fails that should not, the provider goes with the
 * last registration, and the user's count comes back whole.
 */
TEST_F_TIMEOUT(libketw, shared_registration_races, 240)
{
	pid_t pids[RACE_PROCS + 1];
	struct ketw_session_attr a;
	int i, status, toggles = 0;
	uint32_t cnt;
	uint64_t t0;

	ASSERT_EQ(0, write_str(PARAM("user_max_providers"), "64"));
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	for (i = 0; i < RACE_PROCS; i++) {
		pids[i] = race_fork(4000);
		ASSERT_LT(0, pids[i]);
	}
	pids[RACE_PROCS] = -1;
	t0 = mono_ns();
	while (mono_ns() - t0 < 4500000000ull) {
		switch (toggles++ % 5) {
		case 0:
			ketw_ref(self->fd, KETW_IOC_START, SESSION);
			break;
		case 1:
			ketw_enable(self->fd, SESSION, KETW_USER_PREFIX RACE_NAME,
				    NULL, 0, 0, 0, NULL, 0, 0);
			break;
		case 2:
			ketw_enable(self->fd, SESSION, KETW_USER_PREFIX RACE_NAME,
				    NULL, 0, 0, 0, NULL, 0, KETW_ENABLE_DISABLE);
			break;
		case 3:
			ketw_ref(self->fd, KETW_IOC_STOP, SESSION);
			break;
		default:
			listed(self->fd, KETW_USER_PREFIX RACE_NAME, NULL);
		}
		/* One racer dies in the middle; another takes its place. */
		if (pids[RACE_PROCS] < 0 && mono_ns() - t0 > 2000000000ull) {
			EXPECT_EQ(0, kill(pids[0], SIGKILL));
			pids[RACE_PROCS] = race_fork(2000);
		}
		usleep(2000);
	}
	for (i = 0; i <= RACE_PROCS; i++) {
		if (pids[i] < 0)
			continue;
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		if (i == 0 && WIFSIGNALED(status)) {
			EXPECT_EQ(SIGKILL, WTERMSIG(status));
		} else {
			EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
				TH_LOG("racer %d: status %#x", i, status);
		}
	}
	TH_LOG("%d session changes", toggles);
	EXPECT_LE(20, toggles);
	EXPECT_LT(0, pids[RACE_PROCS]);
	EXPECT_EQ(0, listed(self->fd, KETW_USER_PREFIX RACE_NAME, NULL));
	EXPECT_EQ(-ENOENT, list_events(self->fd, KETW_USER_PREFIX RACE_NAME,
				       NULL, 0, &cnt));
	/* Every registration gave its place back: 8 of 8 fit again. */
	ASSERT_EQ(0, write_str(PARAM("user_max_providers"), "8"));
	{
		struct sh_state *st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		struct child c[8];

		ASSERT_NE(MAP_FAILED, st);
		for (i = 0; i < 8; i++)
			ASSERT_EQ(0, sh_start(&c[i], i, st)) TH_LOG("registration %d", i);
		EXPECT_EQ(-ENOSPC, sh_one_more());
		for (i = 0; i < 8; i++) {
			ASSERT_EQ(0, sh_send(&c[i], SH_QUIT, 0));
			EXPECT_EQ(0, sh_answer(&c[i]));
			EXPECT_EQ(0, child_end(&c[i]));
		}
		munmap(st, sizeof(*st));
	}
}

/* ---- the enable page under madvise() and fork() ------------------------ */

/* In a child: read the page at @pg; 0 if it reads @levels, 1 else, or a signal. */
static int read_in_child(const volatile struct ketw_user_enable_page *pg,
			 uint32_t levels)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(pg->version == KETW_USER_PAGE_VERSION && pg->levels == levels ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 100 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Issue 22: madvise(MADV_DONTNEED) on the enable page made the next read
 * SIGBUS. Now the page comes back, still following the sessions; in a
 * child after fork() too.
 */
TEST_F(libketw, enable_page_madvise)
{
	static KETW_PROVIDER(p5, "libketw-madvise", GUID);
	const volatile struct ketw_user_enable_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	struct ketw_session_attr a;
	int status;
	pid_t pid;

	if (madvise(NULL, 0, MADV_NORMAL) && errno == ENOSYS)
		SKIP(return, "no madvise() in this kernel (CONFIG_ADVISE_SYSCALLS)");
	p5.guid[15] = 0x55;
	ASSERT_EQ(0, ketw_provider_register(&p5));
	pg = p5.page;
	ASSERT_EQ(0, madvise((void *)pg, psz, MADV_DONTNEED));
	/* A child reads it first: the parent survives a SIGBUS to report it. */
	EXPECT_EQ(0, read_in_child(pg, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (madvise((void *)pg, psz, MADV_DONTNEED))
			_exit(2);
		_exit(pg->version == KETW_USER_PAGE_VERSION ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status %#x", status);
	ASSERT_EQ(0, read_in_child(pg, 0));
	EXPECT_EQ(KETW_USER_PAGE_VERSION, pg->version);

	/* Dropped again, the page still follows the sessions. */
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_USER_PREFIX "libketw-madvise",
				 NULL, KETW_LEVEL_WARNING, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, madvise((void *)pg, psz, MADV_DONTNEED));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	EXPECT_EQ(0, read_in_child(pg, 0xf));
	EXPECT_TRUE(ketw_enabled(&p5));
	ASSERT_EQ(0, madvise((void *)pg, psz, MADV_DONTNEED));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_EQ(0, read_in_child(pg, 0));
	EXPECT_FALSE(ketw_enabled(&p5));
	ketw_provider_unregister(&p5);
}

TEST_HARNESS_MAIN
