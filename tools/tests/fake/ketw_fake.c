// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/ketw on the build machine, where the module may not
 * be loaded: an LD_PRELOAD library that takes over open(), ioctl(),
 * read(), mmap() and close() of the path $KETW_FAKE_DEV and answers like
 * the module does (uapi/linux/ketw.h), so that the ketw command can be
 * run end to end by the unit tests.
 *
 * Sessions live in the file $KETW_FAKE_STATE, and each session's per-CPU
 * buffers (a meta page and a data area per CPU, as the module lays them
 * out) in the file $KETW_FAKE_STATE.<name>, so that they outlive each
 * ketw process as they outlive it in the kernel. mmap() of the device
 * maps that file; read() consumes from it by the same rules.
 *
 * Starting a session logs START (cpu 0), the rundown (cpu 0; unless the
 * session has KETW_SESSION_NO_RUNDOWN), then $KETW_FAKE_EVENTS (default
 * 10) "tick" events and $KETW_FAKE_WARNS (default 0) "warn" events of
 * ketw-sample alternating over 2 CPUs, each if the session's filter
 * takes it (the module's rule); stopping logs STOP (cpu 0), after
 * OVERFLOW and RESUME on every CPU that lost events. An UNTIL_FULL
 * session that lost events is stopped by the full policy right away.
 *
 * The registry: ketw-sample (6b657477-7361-6d70-6c65-000000000001, the
 * module's two events "tick" and "warn" with their layouts), user.fake
 * (a user-space provider of uid 1000 without descriptors), and fake-0,
 * fake-1, ...
 * (one event each). ENABLE, GET_FILTER, PROVIDERS, EVENTS and RUNDOWN
 * answer as the module does; ENABLE on a running session logs FILTER.
 *
 * Other knobs:
 *   KETW_FAKE_CREATE_ERRNO=N     CREATE fails with errno N (ENOMEM,
 *                                ENOBUFS: what the kernel says of memory)
 *   KETW_FAKE_PROVIDERS=N        N more providers fake-0 .. fake-N-1
 *   KETW_FAKE_SAMPLE_EVENTS=N    N more events of ketw-sample (ids 100..)
 *   KETW_FAKE_GROW=N             the registry grows while a process lists
 *                                it: 20 more providers from the start,
 *                                and each of its first N PROVIDERS calls
 *                                after the first finds 20 more again
 *   KETW_FAKE_SNAPSHOT_WRITES=N  a snapshot of a LOOP session races with
 *                                N events written on that CPU (the copy
 *                                drops the bytes they released)
 *   KETW_FAKE_FLUSH_READER=1     a reader drains the session during a
 *                                flush (else the flush times out)
 *   KETW_FAKE_SLOW_MS=N          every mmap() takes N ms
 *   KETW_FAKE_NO_MMAP=1          mmap() fails with ENODEV
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/ketw.h>
#include "fake_ring.h"

#define FAKE_CPUS	2
#define FAKE_SESSIONS	8
#define FAKE_FDS	64
#define FAKE_PAGE	4096

struct fake_session {
	char name[KETW_NAME_MAX];
	struct ketw_session_attr attr;
	uint32_t used;
	uint32_t state;
	uint32_t auto_stopped;
	int32_t flush_error;
	uint64_t overrun_seen;
	uint64_t starts;
	uint64_t clock;			/* the last timestamp handed out */
	struct fake_wcpu w[FAKE_CPUS];
	uint32_t explicit_en;		/* ENABLE was used: only those */
	uint32_t nr_enables;
	struct fake_enable {
		char name[KETW_NAME_MAX];	/* by name, or */
		uint8_t guid[KETW_GUID_SIZE];	/* by GUID */
		struct ketw_filter filter;
	} en[KETW_MAX_ENABLES];
};

/* fds that are the fake device, and the session each is attached to */
static struct {
	int open;
	unsigned int cursor;		/* read(): the CPU to start from */
	char session[KETW_NAME_MAX];
	char owned[KETW_NAME_MAX];	/* KETW_SESSION_OWNED: made here */
} fake_fds[FAKE_FDS];

static int (*real_open)(const char *, int, ...);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);

static void fake_init(void)
{
	if (real_open)
		return;
	real_open = dlsym(RTLD_NEXT, "open");
	real_read = dlsym(RTLD_NEXT, "read");
	real_close = dlsym(RTLD_NEXT, "close");
	real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	real_mmap = dlsym(RTLD_NEXT, "mmap");
}

static bool fake_fd(int fd)
{
	return fd >= 0 && fd < FAKE_FDS && fake_fds[fd].open;
}

static unsigned int fake_env(const char *name, unsigned int dflt)
{
	const char *e = getenv(name);

	return e && *e ? (unsigned int)atoi(e) : dflt;
}

/* ---- the state file ------------------------------------------------ */

static int fake_load(struct fake_session *s)
{
	const char *path = getenv("KETW_FAKE_STATE");
	int fd;

	memset(s, 0, sizeof(*s) * FAKE_SESSIONS);
	fd = real_open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	real_read(fd, s, sizeof(*s) * FAKE_SESSIONS);
	real_close(fd);
	return 0;
}

static void fake_save(const struct fake_session *s)
{
	const char *path = getenv("KETW_FAKE_STATE");
	int fd = real_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return;
	if (write(fd, s, sizeof(*s) * FAKE_SESSIONS) < 0)
		perror("ketw_fake: state");
	real_close(fd);
}

static struct fake_session *fake_find(struct fake_session *s, const char *name)
{
	int i;

	for (i = 0; i < FAKE_SESSIONS; i++)
		if (s[i].used && !strncmp(s[i].name, name, KETW_NAME_MAX))
			return &s[i];
	return NULL;
}

/* ---- the registry ------------------------------------------------------ */

#define FAKE_BASE_PROVIDERS	2	/* ketw-sample, user.fake */

static const uint8_t fake_sample_guid[KETW_GUID_SIZE] = {
	0x6b, 0x65, 0x74, 0x77, 0x73, 0x61, 0x6d, 0x70,
	0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};
static const uint8_t fake_zero_guid[KETW_GUID_SIZE];

static unsigned int fake_list_calls;	/* PROVIDERS calls of this process */

static unsigned int fake_nr_providers(void)
{
	unsigned int grow = fake_env("KETW_FAKE_GROW", 0);

	return FAKE_BASE_PROVIDERS + fake_env("KETW_FAKE_PROVIDERS", 0) +
	       20 * (fake_list_calls < grow ? fake_list_calls + 1 : grow);
}

static unsigned int fake_nr_events(unsigned int p)
{
	if (p == 0)
		return 2 + fake_env("KETW_FAKE_SAMPLE_EVENTS", 0);
	return p == 1 ? 0 : 1;
}

static void fake_provider(unsigned int p, struct ketw_provider_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	if (p == 0) {
		memcpy(pi->provider_guid, fake_sample_guid, KETW_GUID_SIZE);
		strcpy(pi->name, "ketw-sample");
	} else if (p == 1) {
		memcpy(pi->provider_guid, "ketwuser\0\0\0\0\0\0\0\2",
		       KETW_GUID_SIZE);
		strcpy(pi->name, KETW_USER_PREFIX "fake");
		pi->flags = KETW_PROVIDER_USER;
		pi->uid = 1000;
	} else {
		memcpy(pi->provider_guid, "fakeprov", 8);
		pi->provider_guid[14] = (p >> 8) & 0xff;
		pi->provider_guid[15] = p & 0xff;
		snprintf(pi->name, sizeof(pi->name), "fake-%u", p - 2);
	}
	pi->nr_events = fake_nr_events(p);
}

static void fake_field(struct ketw_field_info *f, const char *name,
		       unsigned int type, unsigned int off, unsigned int size)
{
	memset(f, 0, sizeof(*f));
	strcpy(f->name, name);
	f->type = type;
	f->offset = off;
	f->size = size;
}

/* Event @k of provider @p; ketw-sample's are the module's. */
static void fake_event(unsigned int p, unsigned int k,
		       struct ketw_event_info *ev)
{
	struct ketw_provider_info pi;

	fake_provider(p, &pi);
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->provider_guid, pi.provider_guid, KETW_GUID_SIZE);
	if (p == 0 && k == 0) {
		ev->id = 1;
		ev->type = 10;
		ev->level = KETW_LEVEL_INFO;
		ev->version = 2;
		ev->keyword = 0x1;
		strcpy(ev->name, "tick");
		fake_field(&ev->fields[0], "index", KETW_FIELD_U32, 0, 4);
		fake_field(&ev->fields[1], "magic", KETW_FIELD_HEX32, 4, 4);
		fake_field(&ev->fields[2], "value", KETW_FIELD_U64, 8, 8);
		fake_field(&ev->fields[3], "tail", KETW_FIELD_BINARY, 16, 0);
		ev->nr_fields = 4;
	} else if (p == 0 && k == 1) {
		ev->id = 2;
		ev->type = KETW_TYPE_INFO;
		ev->level = KETW_LEVEL_WARNING;
		ev->version = 1;
		ev->keyword = 0x2;
		strcpy(ev->name, "warn");
		fake_field(&ev->fields[0], "index", KETW_FIELD_U32, 0, 4);
		fake_field(&ev->fields[1], "code", KETW_FIELD_U32, 4, 4);
		fake_field(&ev->fields[2], "text", KETW_FIELD_STRING, 8, 16);
		ev->nr_fields = 3;
	} else {
		ev->id = p == 0 ? 100 + k - 2 : 1;
		ev->type = 10;
		ev->level = KETW_LEVEL_VERBOSE;
		ev->version = 1;
		ev->keyword = 0x4;
		snprintf(ev->name, sizeof(ev->name), p == 0 ? "extra-%u" : "ev",
			 k);
		fake_field(&ev->fields[0], "v", KETW_FIELD_U32, 0, 4);
		ev->nr_fields = 1;
	}
}

/* The registered provider a request names (by name if it has one). */
static int fake_provider_find(const char *name, const uint8_t *guid,
			      struct ketw_provider_info *pi)
{
	unsigned int p, n = fake_nr_providers();

	for (p = 0; p < n; p++) {
		fake_provider(p, pi);
		if (name[0] ? !strncmp(name, pi->name, KETW_NAME_MAX) :
			      !memcmp(guid, pi->provider_guid, KETW_GUID_SIZE))
			return p;
	}
	return -1;
}

static bool fake_enable_names(const struct fake_enable *e,
			      const struct ketw_provider_info *pi)
{
	if (memcmp(e->guid, fake_zero_guid, KETW_GUID_SIZE))
		return !memcmp(e->guid, pi->provider_guid, KETW_GUID_SIZE);
	return !strncmp(e->name, pi->name, KETW_NAME_MAX);
}

/* The filter @s applies to @pi (enabled = 0: none). */
static void fake_filter_of(const struct fake_session *s,
			   const struct ketw_provider_info *pi,
			   struct ketw_filter *f)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	if (!s->explicit_en) {
		f->enabled = 1;
		f->level = s->attr.level;
		f->match_any = s->attr.match_any;
		f->match_all = s->attr.match_all;
		return;
	}
	for (i = 0; i < s->nr_enables; i++) {
		if (fake_enable_names(&s->en[i], pi)) {
			*f = s->en[i].filter;
			f->enabled = 1;
			return;
		}
	}
}

/* The module's ketw_enable_match(). */
static bool fake_takes(const struct ketw_filter *f,
		       const struct ketw_event_info *ev)
{
	if (!f->enabled)
		return false;
	if (f->level && ev->level > f->level)
		return false;
	if (ev->id < KETW_EVENT_SET_BITS &&
	    (f->filtered.bits[ev->id / 64] >> (ev->id % 64)) & 1)
		return false;
	if (!ev->keyword)
		return true;
	if (f->match_any && !(ev->keyword & f->match_any))
		return false;
	return (ev->keyword & f->match_all) == f->match_all;
}

/* Does @s take event @k of ketw-sample? */
static bool fake_sample_taken(const struct fake_session *s, unsigned int k)
{
	struct ketw_provider_info pi;
	struct ketw_event_info ev;
	struct ketw_filter f;

	fake_provider(0, &pi);
	fake_event(0, k, &ev);
	fake_filter_of(s, &pi, &f);
	return fake_takes(&f, &ev);
}

/* ---- the buffers: one file per session ------------------------------ */

struct fake_ring {
	unsigned char *base;
	size_t len;
	uint32_t size;		/* data area per CPU */
};

static void fake_ring_path(const struct fake_session *s, char *buf,
			   size_t len)
{
	snprintf(buf, len, "%s.%s", getenv("KETW_FAKE_STATE"), s->name);
}

static uint32_t fake_size(const struct fake_session *s)
{
	return s->attr.buffer_kb * 1024;
}

static size_t fake_cpu_off(const struct fake_session *s, unsigned int cpu)
{
	return (size_t)cpu * (FAKE_PAGE + fake_size(s));
}

static int fake_ring_map(const struct fake_session *s, struct fake_ring *r,
			 bool create)
{
	char path[512];
	int fd;

	fake_ring_path(s, path, sizeof(path));
	r->size = fake_size(s);
	r->len = fake_cpu_off(s, FAKE_CPUS);
	fd = real_open(path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0)
		return -EIO;
	if (create && ftruncate(fd, r->len)) {
		real_close(fd);
		return -EIO;
	}
	r->base = real_mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
	real_close(fd);
	return r->base == MAP_FAILED ? -EIO : 0;
}

static void fake_ring_unmap(struct fake_ring *r)
{
	munmap(r->base, r->len);
}

static struct ketw_meta_page *fake_meta(const struct fake_ring *r,
					unsigned int cpu)
{
	return (void *)(r->base + (size_t)cpu * (FAKE_PAGE + r->size));
}

static unsigned char *fake_data(const struct fake_ring *r, unsigned int cpu)
{
	return (unsigned char *)fake_meta(r, cpu) + FAKE_PAGE;
}

static uint64_t fake_tick(struct fake_session *s, uint64_t ts)
{
	if (ts > s->clock)
		s->clock = ts;
	return s->clock;
}

static bool fake_log_sys(struct fake_session *s, struct fake_ring *r,
			 unsigned int cpu, uint32_t id, const void *data,
			 uint32_t len, uint64_t ts)
{
	struct ketw_event_header h;

	fake_sys_header(&h, id, cpu, 0, 0, len);
	return fake_ring_write(fake_meta(r, cpu), fake_data(r, cpu), &s->w[cpu],
			       &h, data, len, true, fake_tick(s, ts));
}

/* A rundown record: DC_START, and no use of UNTIL_FULL's reserve. */
static void fake_log_rundown(struct fake_session *s, struct fake_ring *r,
			     uint32_t id, const void *data, uint32_t len)
{
	struct ketw_event_header h;

	fake_sys_header(&h, id, 0, 0, 0, len);
	h.type = KETW_TYPE_DC_START;
	fake_ring_write(fake_meta(r, 0), fake_data(r, 0), &s->w[0], &h, data,
			len, false, fake_tick(s, s->clock + 1));
}

static void fake_rundown(struct fake_session *s, struct fake_ring *r)
{
	static const struct ketw_sys_task tasks[] = {
		{ .process_id = 1, .thread_id = 1, .comm = "init" },
		{ .process_id = 4242, .thread_id = 4242, .comm = "ketw-fake" },
	};
	unsigned int p, k, n = fake_nr_providers();
	struct ketw_provider_info pi;
	struct ketw_sys_provider sp;
	struct ketw_event_info ev;

	for (p = 0; p < n; p++) {
		fake_provider(p, &pi);
		memset(&sp, 0, sizeof(sp));
		memcpy(sp.provider_guid, pi.provider_guid, KETW_GUID_SIZE);
		memcpy(sp.name, pi.name, KETW_NAME_MAX);
		sp.nr_events = pi.nr_events;
		sp.flags = pi.flags;
		fake_log_rundown(s, r, KETW_SYS_PROVIDER, &sp, sizeof(sp));
		for (k = 0; k < pi.nr_events; k++) {
			fake_event(p, k, &ev);
			fake_log_rundown(s, r, KETW_SYS_EVENT_DESC, &ev,
					 sizeof(ev));
		}
	}
	for (k = 0; k < sizeof(tasks) / sizeof(tasks[0]); k++)
		fake_log_rundown(s, r, KETW_SYS_TASK, &tasks[k],
				 sizeof(tasks[k]));
}

/*
 * Sample event @i, as ketw_sample.ko would log it (payload 16..47 bytes),
 * if the session takes it.
 */
static void fake_log_sample(struct fake_session *s, struct fake_ring *r,
			    unsigned int cpu, unsigned int i, uint64_t ts)
{
	struct ketw_event_header h = {
		.type = 10, .level = KETW_LEVEL_INFO, .version = 2,
		.event_id = 1, .thread_id = 4242, .process_id = 4242,
		.keyword = 0x1,
	};
	uint32_t magic = 0x6b657477, len = 16 + i % 32, k;
	uint64_t value = i * 3 + 1;
	unsigned char data[64];

	if (!fake_sample_taken(s, 0))
		return;
	memcpy(h.provider_guid, fake_sample_guid, KETW_GUID_SIZE);
	memcpy(data, &i, 4);
	memcpy(data + 4, &magic, 4);
	memcpy(data + 8, &value, 8);
	for (k = 16; k < len; k++)
		data[k] = (i + k - 16) & 0xff;
	fake_ring_write(fake_meta(r, cpu), fake_data(r, cpu), &s->w[cpu], &h,
			data, len, false, fake_tick(s, ts));
}

/* Warn event @i of ketw_sample.ko (struct ketw_sample_warn). */
static void fake_log_warn(struct fake_session *s, struct fake_ring *r,
			  unsigned int cpu, unsigned int i, uint64_t ts)
{
	struct ketw_event_header h = {
		.type = KETW_TYPE_INFO, .level = KETW_LEVEL_WARNING,
		.version = 1, .event_id = 2, .thread_id = 4242,
		.process_id = 4242, .keyword = 0x2,
	};
	struct {
		uint32_t index;
		uint32_t code;
		char text[16];
	} w = { .index = i, .code = i * 5, .text = "warning" };

	if (!fake_sample_taken(s, 1))
		return;
	memcpy(h.provider_guid, fake_sample_guid, KETW_GUID_SIZE);
	fake_ring_write(fake_meta(r, cpu), fake_data(r, cpu), &s->w[cpu], &h,
			&w, sizeof(w), false, fake_tick(s, ts));
}

static void fake_stop(struct fake_session *s, struct fake_ring *r,
		      uint32_t auto_stop)
{
	struct ketw_sys_stop st = { .auto_stop = auto_stop };
	unsigned int cpu;

	/* Losses after each CPU's last record, then STOP. */
	for (cpu = 0; cpu < FAKE_CPUS; cpu++)
		fake_ring_write(fake_meta(r, cpu), fake_data(r, cpu),
				&s->w[cpu], NULL, NULL, 0, true, s->clock);
	fake_log_sys(s, r, 0, KETW_SYS_STOP, &st, sizeof(st), s->clock + 1000);
	s->state = KETW_STATE_SUSPENDED;
	s->auto_stopped = auto_stop;
}

static void fake_start(struct fake_session *s, struct fake_ring *r)
{
	struct ketw_sys_start st = {
		.level = s->attr.level,
		.match_any = s->attr.match_any,
		.match_all = s->attr.match_all,
	};
	uint64_t base = 1000000000ull * ++s->starts;
	unsigned int i, n = fake_env("KETW_FAKE_EVENTS", 10), cpu;
	unsigned int nw = fake_env("KETW_FAKE_WARNS", 0);
	bool lost = false;

	s->auto_stopped = 0;
	fake_log_sys(s, r, 0, KETW_SYS_START, &st, sizeof(st), base);
	if (!(s->attr.flags & KETW_SESSION_NO_RUNDOWN))
		fake_rundown(s, r);
	s->state = KETW_STATE_RUNNING;
	for (i = 0; i < n; i++)
		fake_log_sample(s, r, i % FAKE_CPUS, i, base + (i + 1) * 1000);
	for (i = 0; i < nw; i++)
		fake_log_warn(s, r, (n + i) % FAKE_CPUS, i,
			      base + (n + i + 1) * 1000);
	for (cpu = 0; cpu < FAKE_CPUS; cpu++)
		lost |= s->w[cpu].lost;
	if (lost && s->attr.policy == KETW_POLICY_UNTIL_FULL)
		fake_stop(s, r, 1);
}

/* ---- ioctls ------------------------------------------------------------ */

static int fake_create(struct fake_session *ss, int fd,
		       struct ketw_session_attr *a)
{
	struct fake_session *s;
	struct fake_ring r;
	uint32_t bytes, max_span;
	unsigned int i, cpu;

	if (fake_env("KETW_FAKE_CREATE_ERRNO", 0))
		return -(int)fake_env("KETW_FAKE_CREATE_ERRNO", 0);
	if (a->size < KETW_SESSION_ATTR_SIZE_VER0 || !a->name[0] ||
	    a->flags & ~KETW_SESSION_FLAGS || (a->ext_items & ~KETW_EXT_ALL))
		return -EINVAL;
	if (!a->buffer_kb)
		a->buffer_kb = KETW_BUFFER_KB_DEFAULT;
	if (a->buffer_kb < KETW_BUFFER_KB_MIN || a->buffer_kb > 4096)
		return -EINVAL;		/* the fake keeps its files small */
	for (bytes = 4096; bytes < a->buffer_kb * 1024; bytes *= 2)
		;
	a->buffer_kb = bytes / 1024;
	max_span = bytes / 2 - KETW_SYSTEM_RESERVE;
	if (!a->policy)
		a->policy = KETW_POLICY_DEFAULT;
	if (!a->clock)
		a->clock = KETW_CLOCK_DEFAULT;
	if (!a->watermark)
		a->watermark = 50;
	if (a->policy > KETW_POLICY_FLUSH || a->clock > KETW_CLOCK_LOCAL ||
	    a->level > KETW_LEVEL_VERBOSE || a->watermark > 100)
		return -EINVAL;
	if (!a->max_data_size)
		a->max_data_size = max_span - 64 > KETW_MAX_DATA_DEFAULT ?
				   KETW_MAX_DATA_DEFAULT : max_span - 64;
	if (a->max_data_size > KETW_MAX_DATA_SIZE ||
	    KETW_RECORD_SPAN(64 + a->max_data_size) > max_span)
		return -EINVAL;
	if (fake_find(ss, a->name))
		return -EEXIST;
	for (i = 0; i < FAKE_SESSIONS && ss[i].used; i++)
		;
	if (i == FAKE_SESSIONS)
		return -ENOSPC;
	s = &ss[i];
	memset(s, 0, sizeof(*s));
	s->used = 1;
	memcpy(s->name, a->name, KETW_NAME_MAX);
	a->nr_cpus = FAKE_CPUS;
	a->creation_time = 1700000000000000000ull;
	a->clock_resolution = 1;
	a->state = KETW_STATE_CREATED;
	/* As module/memory.c counts: data, meta and pointer pages, one more. */
	a->memory = ((uint64_t)bytes + 4096 + 4096) * FAKE_CPUS + 4096;
	s->attr = *a;
	s->state = KETW_STATE_CREATED;
	if (fake_ring_map(s, &r, true))
		return -ENOMEM;
	for (cpu = 0; cpu < FAKE_CPUS; cpu++)
		fake_ring_init(fake_meta(&r, cpu), cpu, a->policy, r.size,
			       a->watermark);
	fake_ring_unmap(&r);
	memcpy(fake_fds[fd].session, a->name, KETW_NAME_MAX);
	fake_fds[fd].cursor = 0;
	if (a->flags & KETW_SESSION_OWNED)
		memcpy(fake_fds[fd].owned, a->name, KETW_NAME_MAX);
	return 0;
}

static void fake_status(struct fake_session *s, struct fake_ring *r,
			struct ketw_session_status *st)
{
	uint32_t room = r->size, max_span;
	unsigned int cpu;
	bool full = false;

	max_span = KETW_RECORD_SPAN(64 + s->attr.max_data_size);
	if (s->attr.policy == KETW_POLICY_UNTIL_FULL)
		room -= KETW_SYSTEM_RESERVE;
	st->written = st->lost = st->overwritten = 0;
	for (cpu = 0; cpu < FAKE_CPUS; cpu++) {
		struct ketw_meta_page *m = fake_meta(r, cpu);

		st->written += m->written;
		st->lost += m->lost_full + m->lost_busy + m->lost_nested;
		st->overwritten += m->overwritten;
		if (s->attr.policy == KETW_POLICY_LOOP)
			full |= m->overwritten != 0;
		else
			full |= (uint64_t)(m->commit - fake_ring_tail(m)) +
				max_span > room;
	}
	st->state = s->state;
	st->full_status = full ? KETW_FULL_FULL : KETW_FULL_NOT_FULL;
	st->overrun_status = st->lost + st->overwritten != s->overrun_seen ?
			     KETW_OVERRUN_OVERRUN : KETW_OVERRUN_NONE;
	s->overrun_seen = st->lost + st->overwritten;
	st->flush_status = KETW_FLUSH_NOT_FLUSHING;
	st->flush_error = s->flush_error;
	s->flush_error = 0;
	st->auto_stopped = s->auto_stopped;
	st->nr_cpus = FAKE_CPUS;
}

/* Copy [from, from + n) of a CPU's area, minding the wrap. */
static void fake_copy_out(const struct fake_ring *r, unsigned int cpu,
			  uint32_t from, uint32_t n, unsigned char *dst)
{
	uint32_t off = from & (r->size - 1);
	uint32_t first = n < r->size - off ? n : r->size - off;

	memcpy(dst, fake_data(r, cpu) + off, first);
	memcpy(dst + first, fake_data(r, cpu), n - first);
}

static int fake_snapshot(struct fake_session *s, struct fake_ring *r,
			 struct ketw_snapshot *snap)
{
	struct ketw_meta_page *m = fake_meta(r, snap->cpu);
	unsigned int i, n = fake_env("KETW_FAKE_SNAPSHOT_WRITES", 0);
	uint32_t from = fake_ring_tail(m), to = m->commit, o2;
	uint64_t dropped = 0;

	if (snap->buf_len < r->size)
		return -ENOBUFS;
	/*
	 * Writers that come while the kernel copies: every record they
	 * overwrite lies between from and the new oldest (and is counted).
	 */
	if (s->attr.policy == KETW_POLICY_LOOP) {
		for (i = 0; i < n; i++)
			fake_log_sample(s, r, snap->cpu, 1000 + i,
					s->clock + 1000);
		o2 = m->oldest;
		if (fake_before(from, o2)) {
			/* Bytes released from the front while copying. */
			dropped = fake_before(to, o2) ? to - from : o2 - from;
			from += dropped;
		}
	}
	fake_copy_out(r, snap->cpu, from, to - from,
		      (unsigned char *)(uintptr_t)snap->buf);
	snap->len = to - from;
	snap->dropped = dropped;
	return 0;
}

static int fake_flush(struct fake_session *s, struct fake_ring *r)
{
	struct ketw_sys_error e = { .error = -ETIMEDOUT };
	unsigned int cpu;

	if (s->state != KETW_STATE_RUNNING)
		return -EINVAL;
	fake_log_sys(s, r, 0, KETW_SYS_FLUSH_START, NULL, 0, s->clock + 1000);
	if (fake_env("KETW_FAKE_FLUSH_READER", 0)) {
		/* Some reader took everything. */
		for (cpu = 0; cpu < FAKE_CPUS; cpu++) {
			struct ketw_meta_page *m = fake_meta(r, cpu);

			if (m->policy == KETW_POLICY_LOOP)
				m->oldest = m->commit;
			else
				m->consumed = m->commit;
		}
	} else {
		fake_log_sys(s, r, 0, KETW_SYS_ERROR, &e, sizeof(e),
			     s->clock + 1000);
		if (!s->flush_error)
			s->flush_error = -ETIMEDOUT;
	}
	fake_log_sys(s, r, 0, KETW_SYS_FLUSH_STOP, NULL, 0, s->clock + 1000);
	return s->flush_error ? -ETIMEDOUT : 0;
}

/* The checks of the module's ketw_req_check(). */
static int fake_req_check(const char *name, const uint8_t *guid)
{
	size_t n = strnlen(name, KETW_NAME_MAX);

	if (n == KETW_NAME_MAX)
		return -EINVAL;
	if (!n && !memcmp(guid, fake_zero_guid, KETW_GUID_SIZE))
		return -EINVAL;
	return 0;
}

/* ENABLE: edit the session's enables; FILTER records if it runs. */
static int fake_enable(struct fake_session *s, struct fake_ring *r,
		       const struct ketw_enable *req)
{
	struct ketw_filter old[64], nf;
	struct ketw_provider_info pi;
	struct ketw_sys_filter sf;
	unsigned int i, p, n = fake_nr_providers();
	bool running = s->state == KETW_STATE_RUNNING, named_seen = false;

	if (n > 64)
		n = 64;		/* the fake logs FILTER for the first 64 */
	for (p = 0; p < n; p++) {
		fake_provider(p, &pi);
		fake_filter_of(s, &pi, &old[p]);
	}
	for (i = 0; i < s->nr_enables; i++)
		if (req->provider[0] ?
		    !strncmp(s->en[i].name, req->provider, KETW_NAME_MAX) :
		    !memcmp(s->en[i].guid, req->guid, KETW_GUID_SIZE))
			break;
	if (req->flags & KETW_ENABLE_DISABLE) {
		if (i == s->nr_enables)
			return -ENOENT;
		s->en[i] = s->en[--s->nr_enables];
	} else {
		if (i == s->nr_enables) {
			if (s->nr_enables == KETW_MAX_ENABLES)
				return -ENOSPC;
			s->nr_enables++;
		}
		memset(&s->en[i], 0, sizeof(s->en[i]));
		if (req->provider[0])
			memcpy(s->en[i].name, req->provider, KETW_NAME_MAX);
		else
			memcpy(s->en[i].guid, req->guid, KETW_GUID_SIZE);
		s->en[i].filter = req->filter;
		s->en[i].filter.enabled = 1;
		s->explicit_en = 1;
	}
	if (!running)
		return 0;
	for (p = 0; p < n; p++) {
		fake_provider(p, &pi);
		fake_filter_of(s, &pi, &nf);
		if (req->provider[0] ?
		    !strncmp(req->provider, pi.name, KETW_NAME_MAX) :
		    !memcmp(req->guid, pi.provider_guid, KETW_GUID_SIZE))
			named_seen = true;
		if (!memcmp(&old[p], &nf, sizeof(nf)))
			continue;
		memset(&sf, 0, sizeof(sf));
		memcpy(sf.provider_guid, pi.provider_guid, KETW_GUID_SIZE);
		sf.old_filter = old[p];
		sf.new_filter = nf;
		fake_log_sys(s, r, 0, KETW_SYS_FILTER, &sf, sizeof(sf),
			     s->clock + 1000);
	}
	if (!named_seen && !req->provider[0]) {
		memset(&sf, 0, sizeof(sf));
		memcpy(sf.provider_guid, req->guid, KETW_GUID_SIZE);
		sf.new_filter = req->filter;
		sf.new_filter.enabled = !(req->flags & KETW_ENABLE_DISABLE);
		fake_log_sys(s, r, 0, KETW_SYS_FILTER, &sf, sizeof(sf),
			     s->clock + 1000);
	}
	return 0;
}

/* GET_FILTER: the provider need not be registered. */
static void fake_get_filter(const struct fake_session *s,
			    struct ketw_enable *req)
{
	struct ketw_provider_info pi, reg;

	memset(&pi, 0, sizeof(pi));
	memcpy(pi.name, req->provider, KETW_NAME_MAX);
	memcpy(pi.provider_guid, req->guid, KETW_GUID_SIZE);
	if (fake_provider_find(req->provider, req->guid, &reg) >= 0) {
		memcpy(pi.name, reg.name, KETW_NAME_MAX);
		memcpy(pi.provider_guid, reg.provider_guid, KETW_GUID_SIZE);
	}
	fake_filter_of(s, &pi, &req->filter);
}

static int fake_list(const struct fake_session *ss, unsigned long cmd,
		     struct ketw_list *l)
{
	struct ketw_provider_info pi, *po = (void *)(uintptr_t)l->entries;
	struct ketw_event_info *eo = (void *)(uintptr_t)l->entries;
	struct ketw_filter f;
	unsigned int p, k, i, n;
	int found;

	if (l->size < KETW_LIST_SIZE_VER0 || l->reserved)
		return -EINVAL;
	if (cmd == KETW_IOC_PROVIDERS) {
		n = fake_nr_providers();
		fake_list_calls++;
		for (p = 0; p < n && p < l->capacity; p++) {
			fake_provider(p, &pi);
			for (i = 0; i < FAKE_SESSIONS; i++) {
				if (!ss[i].used ||
				    ss[i].state != KETW_STATE_RUNNING)
					continue;
				fake_filter_of(&ss[i], &pi, &f);
				pi.nr_sessions += f.enabled;
			}
			po[p] = pi;
		}
		l->count = n;
		return 0;
	}
	if (fake_req_check(l->provider, l->guid))
		return -EINVAL;
	found = fake_provider_find(l->provider, l->guid, &pi);
	if (found < 0)
		return -ENOENT;
	for (k = 0; k < pi.nr_events && k < l->capacity; k++)
		fake_event(found, k, &eo[k]);
	l->count = pi.nr_events;
	return 0;
}

static int fake_ioctl_cmd(int fd, unsigned long cmd, void *arg)
{
	struct fake_session ss[FAKE_SESSIONS], *s;
	struct ketw_session_attr *a = arg;
	struct ketw_session_ref *ref = arg;
	struct ketw_cpu_stats *st = arg;
	struct ketw_session_status *status = arg;
	struct ketw_snapshot *snap = arg;
	struct ketw_enable *en = arg;
	struct ketw_meta_page *m;
	struct fake_ring r;
	const char *name;
	char path[512];
	int err = 0;

	if (fake_load(ss))
		return -EIO;
	switch (cmd) {
	case KETW_IOC_CREATE:
		err = fake_create(ss, fd, a);
		if (!err)
			fake_save(ss);
		return err;
	case KETW_IOC_GET_ATTR:
		name = a->name;
		break;
	case KETW_IOC_CPU_STATS:
		if (st->size < sizeof(*st))
			return -EINVAL;
		name = st->name;
		break;
	case KETW_IOC_STATUS:
		if (status->size < sizeof(*status) || status->reserved0)
			return -EINVAL;
		name = status->name;
		break;
	case KETW_IOC_SNAPSHOT:
		if (snap->size < sizeof(*snap))
			return -EINVAL;
		name = snap->name;
		break;
	case KETW_IOC_START:
	case KETW_IOC_STOP:
	case KETW_IOC_DESTROY:
	case KETW_IOC_ATTACH:
	case KETW_IOC_FLUSH:
	case KETW_IOC_RUNDOWN:
		name = ref->name;
		break;
	case KETW_IOC_ENABLE:
	case KETW_IOC_GET_FILTER:
		if (en->size < KETW_ENABLE_SIZE_VER0 ||
		    strnlen(en->session, KETW_NAME_MAX) == KETW_NAME_MAX ||
		    fake_req_check(en->provider, en->guid))
			return -EINVAL;
		if (cmd == KETW_IOC_ENABLE ?
		    (en->flags & ~KETW_ENABLE_DISABLE ||
		     en->filter.level > KETW_LEVEL_VERBOSE) : en->flags != 0)
			return -EINVAL;
		name = en->session;
		break;
	case KETW_IOC_PROVIDERS:
	case KETW_IOC_EVENTS:
		return fake_list(ss, cmd, arg);
	default:
		return -ENOTTY;
	}
	s = fake_find(ss, name);
	if (!s)
		return -ENOENT;
	if (cmd == KETW_IOC_ATTACH) {
		memcpy(fake_fds[fd].session, name, KETW_NAME_MAX);
		fake_fds[fd].cursor = 0;
		return 0;
	}
	if (cmd == KETW_IOC_GET_ATTR) {
		*a = s->attr;
		a->state = s->state;
		return 0;
	}
	if (cmd == KETW_IOC_GET_FILTER) {
		fake_get_filter(s, en);
		return 0;
	}
	if (cmd == KETW_IOC_DESTROY) {
		s->used = 0;
		fake_ring_path(s, path, sizeof(path));
		unlink(path);
		fake_save(ss);
		return 0;
	}
	if (fake_ring_map(s, &r, false))
		return -EIO;
	switch (cmd) {
	case KETW_IOC_START:
		if (s->state == KETW_STATE_RUNNING)
			err = -EBUSY;
		else
			fake_start(s, &r);
		break;
	case KETW_IOC_STOP:
		if (s->state != KETW_STATE_RUNNING)
			err = -EALREADY;
		else
			fake_stop(s, &r, 0);
		break;
	case KETW_IOC_CPU_STATS:
		if (st->cpu >= FAKE_CPUS) {
			err = -EINVAL;
			break;
		}
		m = fake_meta(&r, st->cpu);
		st->written = m->written;
		st->lost_full = m->lost_full;
		st->overwritten = m->overwritten;
		st->lost_busy = m->lost_busy;
		st->lost_nested = m->lost_nested;
		st->truncated = m->truncated;
		st->read = m->read;
		st->sequence = s->w[st->cpu].seq;
		st->produced = m->commit;
		st->consumed = fake_ring_tail(m);
		break;
	case KETW_IOC_STATUS:
		fake_status(s, &r, status);
		break;
	case KETW_IOC_SNAPSHOT:
		err = snap->cpu >= FAKE_CPUS ? -EINVAL :
		      fake_snapshot(s, &r, snap);
		break;
	case KETW_IOC_FLUSH:
		err = fake_flush(s, &r);
		break;
	case KETW_IOC_RUNDOWN:
		if (s->state != KETW_STATE_RUNNING)
			err = -EINVAL;
		else
			fake_rundown(s, &r);
		break;
	case KETW_IOC_ENABLE:
		err = fake_enable(s, &r, en);
		break;
	}
	fake_ring_unmap(&r);
	fake_save(ss);
	return err;
}

int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;
	int err;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	fake_init();
	if (!fake_fd(fd))
		return real_ioctl(fd, cmd, arg);
	err = fake_ioctl_cmd(fd, cmd, arg);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

/* ---- read() ------------------------------------------------------------ */

/* One CPU, as ketw_ring_read_cpu(): whole records, padding skipped. */
static ssize_t fake_read_cpu(struct fake_ring *r, unsigned int cpu,
			     unsigned char *buf, size_t len)
{
	struct ketw_meta_page *m = fake_meta(r, cpu);
	bool loop = m->policy == KETW_POLICY_LOOP;
	uint32_t c = fake_ring_tail(m), p = m->commit, span;
	const struct ketw_event_header *h;
	size_t copied = 0;
	ssize_t ret = 0;

	while (c != p) {
		h = (const void *)(fake_data(r, cpu) + (c & (r->size - 1)));
		span = KETW_RECORD_SPAN((uint32_t)h->size);
		if (!(h->flags & KETW_RECORD_PADDING)) {
			if (copied + span > len) {
				if (!copied)
					ret = -EMSGSIZE;
				break;
			}
			memcpy(buf + copied, h, span);
			copied += span;
			m->read++;
		}
		c += span;
	}
	if (loop)
		m->oldest = c;
	else
		m->consumed = c;
	return copied ? (ssize_t)copied : ret;
}

ssize_t read(int fd, void *buf, size_t len)
{
	struct fake_session ss[FAKE_SESSIONS], *s;
	struct fake_ring r;
	size_t copied = 0;
	ssize_t n, err = 0;
	unsigned int i, cpu;
	bool empty = true;

	fake_init();
	if (!fake_fd(fd))
		return real_read(fd, buf, len);
	if (!fake_fds[fd].session[0] || fake_load(ss)) {
		errno = EINVAL;
		return -1;
	}
	s = fake_find(ss, fake_fds[fd].session);
	if (!s || fake_ring_map(s, &r, false)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < FAKE_CPUS && copied < len; i++) {
		cpu = (fake_fds[fd].cursor + i) % FAKE_CPUS;
		n = fake_read_cpu(&r, cpu, (unsigned char *)buf + copied,
				  len - copied);
		if (n >= 0) {
			copied += n;
			continue;
		}
		if (!err)
			err = n;
		if (copied)
			break;
	}
	fake_fds[fd].cursor = (fake_fds[fd].cursor + 1) % FAKE_CPUS;
	for (cpu = 0; cpu < FAKE_CPUS; cpu++)
		empty &= fake_ring_tail(fake_meta(&r, cpu)) ==
			 fake_meta(&r, cpu)->commit;
	fake_ring_unmap(&r);
	if (copied)
		return copied;
	if (err) {
		errno = EINVAL;		/* the next record does not fit */
		return -1;
	}
	if (s->state == KETW_STATE_RUNNING || !empty) {
		errno = EAGAIN;		/* the tool always reads O_NONBLOCK */
		return -1;
	}
	return 0;
}

/* ---- mmap() ------------------------------------------------------------ */

/* The module's checks (ketw_ring_mmap()), then the session's file. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_session ss[FAKE_SESSIONS], *s = NULL;
	uint64_t cpu = (uint64_t)off >> KETW_MMAP_CPU_SHIFT;
	uint64_t part = (uint64_t)off & (KETW_MMAP_CPU(1) - 1);
	unsigned int slow = fake_env("KETW_FAKE_SLOW_MS", 0);
	char path[512];
	int rfd, err = 0;
	void *p;

	fake_init();
	if (!fake_fd(fd))
		return real_mmap(addr, len, prot, flags, fd, off);
	if (slow) {
		struct timespec ts = {
			.tv_sec = slow / 1000,
			.tv_nsec = (slow % 1000) * 1000000l,
		};

		nanosleep(&ts, NULL);
	}
	if (fake_fds[fd].session[0] && !fake_load(ss))
		s = fake_find(ss, fake_fds[fd].session);
	if (fake_env("KETW_FAKE_NO_MMAP", 0))
		err = ENODEV;
	else if (!s)
		err = EINVAL;	/* not attached */
	else if (cpu >= FAKE_CPUS || !(flags & MAP_SHARED))
		err = EINVAL;
	else if (part == 0 && len != FAKE_PAGE)
		err = EINVAL;
	else if (part && (part != FAKE_PAGE || len != fake_size(s)))
		err = EINVAL;
	else if (part && (prot & PROT_WRITE))
		err = EPERM;
	if (err) {
		errno = err;
		return MAP_FAILED;
	}
	fake_ring_path(s, path, sizeof(path));
	rfd = real_open(path, O_RDWR);
	if (rfd < 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	p = real_mmap(addr, len, prot, flags, rfd,
		      fake_cpu_off(s, cpu) + part);
	real_close(rfd);
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

/* ---- open() and close() ------------------------------------------------ */

static int fake_open(const char *path, int flags, mode_t mode)
{
	const char *dev = getenv("KETW_FAKE_DEV");
	int fd;

	fake_init();
	if (!dev || strcmp(path, dev))
		return real_open(path, flags, mode);
	fd = real_open("/dev/null", O_RDONLY | (flags & O_CLOEXEC));
	if (fd >= 0 && fd < FAKE_FDS) {
		fake_fds[fd].open = 1;
		fake_fds[fd].cursor = 0;
		fake_fds[fd].session[0] = '\0';
		fake_fds[fd].owned[0] = '\0';
	}
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return fake_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
	__attribute__((alias("open")));

/*
 * The session an fd owns goes with it (on close() only: the fake does not
 * see a process die, nor dup()).
 */
int close(int fd)
{
	struct fake_session ss[FAKE_SESSIONS], *s;
	char path[512];

	fake_init();
	if (fake_fd(fd)) {
		fake_fds[fd].open = 0;
		if (fake_fds[fd].owned[0] && !fake_load(ss)) {
			s = fake_find(ss, fake_fds[fd].owned);
			if (s) {
				s->used = 0;
				fake_ring_path(s, path, sizeof(path));
				unlink(path);
				fake_save(ss);
			}
		}
	}
	return real_close(fd);
}
