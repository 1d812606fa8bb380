// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/ketw on the build machine, where the module may not
 * be loaded: an LD_PRELOAD library that takes over open(), ioctl(),
 * read() and close() of the path $KETW_FAKE_DEV and answers like the
 * module does (uapi/linux/ketw.h), so that the ketw command can be run
 * end to end by the unit tests.
 *
 * Sessions live in the file $KETW_FAKE_STATE, so that they outlive each
 * ketw process as they outlive it in the kernel. A started session holds
 * a fixed stream: START, $KETW_FAKE_EVENTS (default 10) sample events
 * alternating over 2 CPUs, and STOP once stopped; read() hands out whole
 * records from it.
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
#include <unistd.h>

#include <linux/ketw.h>

#define FAKE_CPUS	2
#define FAKE_SESSIONS	8
#define FAKE_FDS	64

struct fake_session {
	char name[KETW_NAME_MAX];
	struct ketw_session_attr attr;
	uint32_t used;
	uint32_t started;
	uint32_t stopped;
	uint32_t reserved;
	uint64_t consumed;	/* bytes of the stream read */
};

/* fds that are the fake device, and the session each is attached to */
static struct {
	int open;
	char session[KETW_NAME_MAX];
} fake_fds[FAKE_FDS];

static int (*real_open)(const char *, int, ...);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);

static void fake_init(void)
{
	if (real_open)
		return;
	real_open = dlsym(RTLD_NEXT, "open");
	real_read = dlsym(RTLD_NEXT, "read");
	real_close = dlsym(RTLD_NEXT, "close");
	real_ioctl = dlsym(RTLD_NEXT, "ioctl");
}

static bool fake_fd(int fd)
{
	return fd >= 0 && fd < FAKE_FDS && fake_fds[fd].open;
}

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

static unsigned int fake_events(void)
{
	const char *e = getenv("KETW_FAKE_EVENTS");

	return e ? (unsigned int)atoi(e) : 10;
}

static size_t fake_record(unsigned char *p, unsigned int cpu, uint64_t seq,
			  uint64_t ts, uint16_t flags, uint32_t id,
			  const void *data, size_t len)
{
	static const uint8_t guid[KETW_GUID_SIZE] = {
		0x6b, 0x65, 0x74, 0x77, 0x73, 0x61, 0x6d, 0x70,
		0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	struct ketw_event_header h = {
		.size = KETW_EVENT_HEADER_SIZE + len,
		.flags = flags,
		.event_id = id,
		.cpu = cpu,
		.sequence = seq,
		.timestamp = ts,
	};
	size_t span = KETW_RECORD_SPAN(h.size);

	if (!(flags & KETW_RECORD_SYSTEM)) {
		h.type = 10;
		h.level = KETW_LEVEL_INFO;
		h.version = 2;
		h.keyword = 0x1;
		h.thread_id = 4242;
		h.process_id = 4242;
		memcpy(h.provider_guid, guid, sizeof(guid));
	}
	memset(p, 0, span);
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), data, len);
	return span;
}

/* The session's whole stream so far, in the order read() gives it. */
static size_t fake_stream(const struct fake_session *s, unsigned char *p)
{
	struct ketw_sys_start st = {
		.level = s->attr.level,
		.match_any = s->attr.match_any,
		.match_all = s->attr.match_all,
	};
	struct ketw_sys_stop sp = { .auto_stop = 0 };
	uint64_t seq[FAKE_CPUS] = { 0 };
	unsigned int i, n = fake_events();
	unsigned char data[64];
	size_t off = 0, k, len;

	if (!s->started)
		return 0;
	off += fake_record(p + off, 0, seq[0]++, 1000000000, KETW_RECORD_SYSTEM,
			   KETW_SYS_START, &st, sizeof(st));
	for (i = 0; i < n; i++) {
		uint32_t magic = 0x6b657477;
		uint64_t value = i * 3 + 1;

		len = 16 + i % 32;
		memcpy(data, &i, 4);
		memcpy(data + 4, &magic, 4);
		memcpy(data + 8, &value, 8);
		for (k = 16; k < len; k++)
			data[k] = (i + k - 16) & 0xff;
		off += fake_record(p + off, i % FAKE_CPUS, seq[i % FAKE_CPUS]++,
				   1000000000 + (i + 1) * 1000, 0, 1, data,
				   len);
	}
	if (s->stopped)
		off += fake_record(p + off, 0, seq[0]++,
				   1000000000 + (n + 1) * 1000,
				   KETW_RECORD_SYSTEM, KETW_SYS_STOP, &sp,
				   sizeof(sp));
	return off;
}

static int fake_ioctl_cmd(int fd, unsigned long cmd, void *arg)
{
	struct fake_session ss[FAKE_SESSIONS], *s;
	struct ketw_session_attr *a = arg;
	struct ketw_session_ref *ref = arg;
	struct ketw_cpu_stats *st = arg;
	const char *name;
	int i;

	if (fake_load(ss))
		return -EIO;
	switch (cmd) {
	case KETW_IOC_CREATE:
		if (a->size < KETW_SESSION_ATTR_SIZE_VER0 || !a->name[0] ||
		    a->flags)
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
		if (!a->buffer_kb)
			a->buffer_kb = KETW_BUFFER_KB_DEFAULT;
		if (!a->policy)
			a->policy = KETW_POLICY_DEFAULT;
		if (!a->clock)
			a->clock = KETW_CLOCK_DEFAULT;
		if (!a->max_data_size)
			a->max_data_size = KETW_MAX_DATA_DEFAULT;
		a->nr_cpus = FAKE_CPUS;
		a->creation_time = 1700000000000000000ull;
		a->clock_resolution = 1;
		a->state = KETW_STATE_CREATED;
		s->attr = *a;
		memcpy(fake_fds[fd].session, a->name, KETW_NAME_MAX);
		fake_save(ss);
		return 0;
	case KETW_IOC_GET_ATTR:
		name = a->name;
		break;
	case KETW_IOC_CPU_STATS:
		name = st->name;
		break;
	default:
		name = ref->name;
		break;
	}
	s = fake_find(ss, name);
	if (!s)
		return -ENOENT;
	switch (cmd) {
	case KETW_IOC_START:
		if (s->started && !s->stopped)
			return -EBUSY;
		s->started = 1;
		s->stopped = 0;
		break;
	case KETW_IOC_STOP:
		if (!s->started || s->stopped)
			return -EALREADY;
		s->stopped = 1;
		break;
	case KETW_IOC_DESTROY:
		s->used = 0;
		break;
	case KETW_IOC_ATTACH:
		memcpy(fake_fds[fd].session, name, KETW_NAME_MAX);
		return 0;
	case KETW_IOC_GET_ATTR:
		*a = s->attr;
		a->state = !s->started ? KETW_STATE_CREATED :
			   s->stopped ? KETW_STATE_SUSPENDED :
			   KETW_STATE_RUNNING;
		return 0;
	case KETW_IOC_CPU_STATS: {
		static unsigned char buf[1 << 20];
		size_t len = fake_stream(s, buf), off = 0;
		uint64_t written = 0, read = 0;
		const struct ketw_event_header *h;

		if (st->cpu >= FAKE_CPUS)
			return -EINVAL;
		for (; off < len; off += KETW_RECORD_SPAN(h->size)) {
			h = (const void *)(buf + off);
			if (h->cpu != st->cpu)
				continue;
			written++;
			read += off < s->consumed;
		}
		st->written = written;
		st->read = read;
		st->sequence = written;
		st->lost_full = st->cpu;	/* something to report */
		return 0;
	}
	default:
		return -ENOTTY;
	}
	fake_save(ss);
	return 0;
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

ssize_t read(int fd, void *buf, size_t len)
{
	static unsigned char stream[1 << 20];
	struct fake_session ss[FAKE_SESSIONS], *s;
	size_t total, off, n = 0, span;
	const struct ketw_event_header *h;

	fake_init();
	if (!fake_fd(fd))
		return real_read(fd, buf, len);
	if (!fake_fds[fd].session[0] || fake_load(ss)) {
		errno = EINVAL;
		return -1;
	}
	s = fake_find(ss, fake_fds[fd].session);
	if (!s) {
		errno = EINVAL;
		return -1;
	}
	total = fake_stream(s, stream);
	for (off = s->consumed; off < total; off += span) {
		h = (const void *)(stream + off);
		span = KETW_RECORD_SPAN(h->size);
		if (n + span > len)
			break;
		memcpy((unsigned char *)buf + n, h, span);
		n += span;
	}
	if (!n && s->consumed < total) {
		errno = EINVAL;		/* the next record does not fit */
		return -1;
	}
	if (!n) {
		if (s->started && !s->stopped) {
			errno = EAGAIN;	/* the tool always reads O_NONBLOCK */
			return -1;
		}
		return 0;
	}
	s->consumed += n;
	fake_save(ss);
	return n;
}

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
		fake_fds[fd].session[0] = '\0';
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

int close(int fd)
{
	fake_init();
	if (fake_fd(fd))
		fake_fds[fd].open = 0;
	return real_close(fd);
}
