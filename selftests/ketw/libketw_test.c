// SPDX-License-Identifier: GPL-2.0
/*
 * libketw's user-space providers (tools/lib/ketw_provider.h) on the real
 * module: a provider registered by an unprivileged user (uid 1000, in
 * user_gid) with event descriptors, which KETW_IOC_EVENTS lists and
 * rundowns log; ketw_enabled() and ketw_event_enabled() following the
 * sessions that take it through the enable page, which cannot be made
 * writable; descriptor arrays the kernel refuses; and nothing kept after
 * unregistering.
 */
#include "ketw_test.h"
#include <grp.h>
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
	char saved_gid[32], saved_prov[32];
	int fd;
};

FIXTURE_SETUP(libketw)
{
	save(PARAM("user_gid"), self->saved_gid, sizeof(self->saved_gid));
	save(PARAM("user_max_providers"), self->saved_prov,
	     sizeof(self->saved_prov));
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
	/* A private mapping neither. */
	m = mmap(NULL, psz, PROT_READ, MAP_PRIVATE, p2.fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, mprotect(m, psz, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(KETW_USER_PAGE_VERSION,
		  ((const struct ketw_user_enable_page *)m)->version);
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

TEST_HARNESS_MAIN
