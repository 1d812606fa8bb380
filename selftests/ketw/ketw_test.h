/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ketw selftests: the device, sessions, the sample
 * provider's "emit" parameter and draining records.
 */
#ifndef _KETW_TEST_H
#define _KETW_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/ketw.h>
#include "ketw_sample.h"

#define SAMPLE_PARAM(name)	"/sys/module/ketw_sample/parameters/" name

static const uint8_t sample_guid[KETW_GUID_SIZE] = KETW_SAMPLE_GUID_BYTES;

static inline int ketw_open(void)
{
	return open(KETW_DEVICE, O_RDWR | O_CLOEXEC);
}

/*
 * Attributes for a test session: no rundown, so that tests can count
 * records exactly (provider_test covers rundowns).
 */
static inline void ketw_attr_init(struct ketw_session_attr *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->flags = KETW_SESSION_NO_RUNDOWN;
	snprintf(a->name, sizeof(a->name), "%s", name);
}

static inline int ketw_ref(int fd, unsigned long cmd, const char *name)
{
	struct ketw_session_ref ref;

	memset(&ref, 0, sizeof(ref));
	snprintf(ref.name, sizeof(ref.name), "%s", name);
	return ioctl(fd, cmd, &ref);
}

/* Destroy a session left by an earlier failed test; ignore errors. */
static inline void ketw_cleanup(const char *name)
{
	int fd = ketw_open();

	if (fd >= 0) {
		ketw_ref(fd, KETW_IOC_DESTROY, name);
		close(fd);
	}
}

static inline int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Lines of @text that contain @needle. */
static inline int text_lines_with(const char *text, const char *needle)
{
	const char *line = text, *nl;
	int n = 0;

	while (*line) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		if (memmem(line, nl - line, needle, strlen(needle)))
			n++;
		line = *nl ? nl + 1 : nl;
	}
	return n;
}

/* Run a shell command; its output goes to *out (malloc'ed). Its exit code. */
static inline int run_cmd(const char *cmd, char **out)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap), *p;
	FILE *f;
	int st;

	if (!buf)
		return -1;
	f = popen(cmd, "r");
	if (!f) {
		free(buf);
		return -1;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				pclose(f);
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	buf[len] = 0;
	st = pclose(f);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* How many times @needle occurs in @hay. */
static inline int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

static inline long long read_ll(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtoll(buf, NULL, 0) : -1;
}

/* Make the sample provider log @n events from this task. */
static inline int sample_emit(unsigned int n)
{
	char s[32];

	snprintf(s, sizeof(s), "%u", n);
	return write_str(SAMPLE_PARAM("emit"), s);
}

/* The directory holding the .ko files the harness loads (KETW_MODDIR). */
static inline const char *mod_dir(void)
{
	const char *d = getenv("KETW_MODDIR");

	return d ? d : "/ketw";
}

/* finit_module() of @file in mod_dir() with @params; 0 or -errno. */
static inline int mod_load(const char *file, const char *params)
{
	char path[512];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", mod_dir(), file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static inline int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static inline int mod_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

/*
 * The modules the harness loads, in its order (mod_dir()/modules, one
 * .ko file a line; ketw alone without it), and which were loaded when
 * mods_read() looked: tests that reload ketw put them back as they were.
 */
#define MODS_MAX	16
struct mods {
	unsigned int n;
	char name[MODS_MAX][64];	/* without ".ko" */
	int loaded[MODS_MAX];
};

static inline void mods_read(struct mods *m)
{
	char path[512], line[128];
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/modules", mod_dir());
	f = fopen(path, "re");
	while (f && m->n < MODS_MAX && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) > 3 && !strcmp(line + strlen(line) - 3, ".ko")) {
			line[strlen(line) - 3] = '\0';
			snprintf(m->name[m->n++], sizeof(m->name[0]), "%s", line);
		}
	}
	if (f)
		fclose(f);
	if (!m->n)
		snprintf(m->name[m->n++], sizeof(m->name[0]), "ketw");
	for (unsigned int i = 0; i < m->n; i++)
		m->loaded[i] = mod_loaded(m->name[i]);
}

/* Unload the modules of @m that are loaded, the last first; 0 or -errno. */
static inline int mods_unload(const struct mods *m)
{
	for (unsigned int i = m->n; i-- > 0;) {
		if (mod_loaded(m->name[i]) && mod_unload(m->name[i]))
			return -errno;
	}
	return 0;
}

/* Load those of @m that were loaded and are not, in order; 0 or -errno. */
static inline int mods_restore(const struct mods *m)
{
	char file[80];
	int err;

	for (unsigned int i = 0; i < m->n; i++) {
		if (!m->loaded[i] || mod_loaded(m->name[i]))
			continue;
		snprintf(file, sizeof(file), "%s.ko", m->name[i]);
		err = mod_load(file, "");
		if (err)
			return err;
	}
	return 0;
}

/* /dev/kmsg at its end: kmsg_read() gets what is logged from then on. */
static inline int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The messages logged since kmsg_open() (or the last kmsg_read()) into
 * @buf, one a line, NUL-terminated; those that do not fit are left out.
 * /dev/kmsg shows a character that is not printable as \xNN.
 */
static inline size_t kmsg_read(int fd, char *buf, size_t cap)
{
	static char rec[8192];
	size_t len = 0, m;
	char *msg;
	ssize_t n;

	buf[0] = '\0';
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten meanwhile */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		m = strcspn(++msg, "\n");
		if (len + m + 2 > cap)
			continue;
		memcpy(buf + len, msg, m);
		len += m;
		buf[len++] = '\n';
		buf[len] = '\0';
	}
	return len;
}

/* Lines of @text that contain both @a and @b. */
static inline int text_lines_with2(const char *text, const char *a,
				   const char *b)
{
	const char *line = text, *nl;
	int n = 0;

	while (*line) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		if (memmem(line, nl - line, a, strlen(a)) &&
		    memmem(line, nl - line, b, strlen(b)))
			n++;
		line = *nl ? nl + 1 : nl;
	}
	return n;
}

/* Lines of @text that are @line. */
static inline int lines_equal(const char *text, const char *line)
{
	size_t len = strlen(line);
	const char *p = text;
	int n = 0;

	for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += !strncmp(p, line, len) && (p[len] == '\n' || !p[len]);
	return n;
}

static inline int sessions_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The sessions there are, by name, sorted and separated by a space, in
 * @out (ketwfs's sessions/, mounted for the purpose and unmounted: a
 * mount holds the module). Returns how many, or -errno. With @destroy,
 * destroys them too.
 */
static inline int sessions_list(char *out, size_t cap, int destroy)
{
	char dir[] = "/tmp/ketw-sessions.XXXXXX", sub[64], *names[256];
	int n = 0, err = 0, fd;
	struct dirent *de;
	size_t len = 0;
	DIR *d;

	out[0] = '\0';
	if (!mkdtemp(dir))
		return -errno;
	if (mount("none", dir, "ketwfs", 0, NULL)) {
		err = -errno;
		rmdir(dir);
		return err;
	}
	snprintf(sub, sizeof(sub), "%s/sessions", dir);
	d = opendir(sub);
	while (d && n < 256 && (de = readdir(d)))
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	if (!d)
		err = -errno;
	else
		closedir(d);
	umount(dir);
	rmdir(dir);
	qsort(names, n, sizeof(names[0]), sessions_cmp);
	fd = destroy ? ketw_open() : -1;
	for (int i = 0; i < n; i++) {
		if (len + strlen(names[i]) + 2 <= cap)
			len += sprintf(out + len, "%s%s", len ? " " : "",
				       names[i]);
		if (fd >= 0)
			ketw_ref(fd, KETW_IOC_DESTROY, names[i]);
		free(names[i]);
	}
	if (fd >= 0)
		close(fd);
	return err ? err : n;
}

/*
 * What a test needs of the machine. KETW_REQUIRE() SKIPs a test (or a
 * fixture's setup) whose needs are not met, with the reason, as the
 * kernel's selftests do, instead of failing: run by hand, as a user or
 * before the modules are loaded, a test says what it lacks. The guest of
 * make vm-check has everything, and skips nothing.
 */
#define KETW_NEED_ROOT		0x01	/* euid 0 */
#define KETW_NEED_DEV		0x02	/* /dev/ketw: ketw.ko loaded */
#define KETW_NEED_SAMPLE	0x04	/* ketw_sample.ko loaded */
#define KETW_NEED_STRESS	0x08	/* ketw_stress.ko loaded */
#define KETW_NEED_MODULES	0x10	/* the .ko files in mod_dir() */
#define KETW_NEED_CPUS2		0x20	/* two CPUs online */

/* Why a test that needs @need (KETW_NEED_*) cannot run here, or NULL. */
static inline const char *ketw_missing(unsigned int need)
{
	static char why[600];

	if ((need & KETW_NEED_ROOT) && geteuid() != 0)
		return "needs root";
	if ((need & KETW_NEED_DEV) && access(KETW_DEVICE, F_OK))
		return "no " KETW_DEVICE ": ketw.ko is not loaded";
	if ((need & KETW_NEED_SAMPLE) && !mod_loaded("ketw_sample"))
		return "ketw_sample.ko is not loaded";
	if ((need & KETW_NEED_STRESS) && !mod_loaded("ketw_stress"))
		return "ketw_stress.ko is not loaded";
	if (need & KETW_NEED_MODULES) {
		snprintf(why, sizeof(why), "%s/ketw.ko", mod_dir());
		if (access(why, R_OK)) {
			snprintf(why, sizeof(why),
				 "no %s/ketw.ko (KETW_MODDIR) to load",
				 mod_dir());
			return why;
		}
	}
	if ((need & KETW_NEED_CPUS2) && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return "needs two CPUs";
	return NULL;
}

/*
 * SKIP unless the machine has what @need says. A jump, not a return:
 * the 6.1 harness runs the test after a setup that returned from a SKIP.
 * In a TEST() or FIXTURE_SETUP() body only (the harness's setjmp()).
 */
#define KETW_REQUIRE(need) do {						\
	const char *_ketw_why = ketw_missing(need);			\
									\
	if (_ketw_why)							\
		SKIP(longjmp(_metadata->env, 1), "%s", _ketw_why);	\
} while (0)

/*
 * SKIP unless @path (a program the test runs, a file of a kernel feature)
 * passes access(@path, @mode): @what it is.
 */
#define KETW_REQUIRE_PATH(path, mode, what) do {			\
	if (access((path), (mode)))					\
		SKIP(longjmp(_metadata->env, 1), "no %s (%s)",		\
		     (path), (what));					\
} while (0)

static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Records drained from a session, in the order read() returned them. */
struct drained {
	unsigned char *buf;
	size_t len;
	size_t cap;
};

/*
 * Drain @fd (attached to a stopped session) until read() says end of
 * data. Returns 0, or -errno of the failing read().
 */
static inline int drain(int fd, struct drained *d)
{
	const size_t chunk = 1 << 20;
	ssize_t n;

	d->len = 0;
	for (;;) {
		if (d->cap - d->len < chunk) {
			d->cap += 4 * chunk;
			d->buf = realloc(d->buf, d->cap);
			if (!d->buf)
				return -ENOMEM;
		}
		n = read(fd, d->buf + d->len, chunk);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		d->len += n;
	}
}

/* Append what a non-blocking read() has now; -errno on a real error. */
static inline int drain_more(int fd, struct drained *d)
{
	const size_t chunk = 1 << 16;
	ssize_t n;

	for (;;) {
		if (d->cap - d->len < chunk) {
			d->cap += 4 * chunk;
			d->buf = realloc(d->buf, d->cap);
			if (!d->buf)
				return -ENOMEM;
		}
		n = read(fd, d->buf + d->len, chunk);
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return 0;
		d->len += n;
	}
}

/*
 * Walk records (padding records, as in snapshots and mmap, included:
 * only their size and flags mean anything); returns the next header or
 * NULL at the end. Sets *bad if a record is malformed (too small or past
 * the data).
 */
static inline const struct ketw_event_header *
next_record(const struct drained *d, size_t *off, int *bad)
{
	const struct ketw_event_header *h;
	size_t left = d->len - *off;
	uint32_t span;

	if (*off >= d->len)
		return NULL;
	h = (const void *)(d->buf + *off);
	if (left < KETW_RECORD_ALIGN) {
		*bad = 1;
		return NULL;
	}
	span = KETW_RECORD_SPAN(h->size);
	if (span > left || span < KETW_RECORD_ALIGN ||
	    (!(h->flags & KETW_RECORD_PADDING) &&
	     h->size < KETW_EVENT_HEADER_SIZE)) {
		*bad = 1;
		return NULL;
	}
	*off += span;
	return h;
}

static inline int is_sample(const struct ketw_event_header *h)
{
	return !(h->flags & (KETW_RECORD_SYSTEM | KETW_RECORD_PADDING)) &&
	       !memcmp(h->provider_guid, sample_guid, KETW_GUID_SIZE);
}

static inline int is_system(const struct ketw_event_header *h, uint32_t id)
{
	static const uint8_t zero[KETW_GUID_SIZE];

	return (h->flags & KETW_RECORD_SYSTEM) &&
	       !(h->flags & KETW_RECORD_PADDING) && h->event_id == id &&
	       !memcmp(h->provider_guid, zero, KETW_GUID_SIZE);
}

/*
 * The extended data items of record @h (KETW_RECORD_EXT), parsed here,
 * not by libketw: the types present, each item's data, the payload after
 * them; @it->bad if the items area is malformed.
 */
struct items {
	unsigned int mask;		/* KETW_EXT_BIT()s present */
	unsigned int count;
	uint64_t kstack[KETW_EXT_STACK_MAX], ustack[KETW_EXT_STACK_MAX];
	unsigned int nk, nu;
	uint64_t prog_addr;
	struct ketw_ext_cpu_time cpu;
	struct ketw_ext_pid_ns ns;
	struct ketw_ext_activity act;
	uint32_t payload_len;
	const unsigned char *payload;
	int bad;
};

static inline void parse_items(const struct ketw_event_header *h,
			       struct items *it)
{
	const unsigned char *p = (const void *)(h + 1);
	struct ketw_ext_header eh;
	struct ketw_ext_item x;
	size_t off;
	unsigned int i;

	memset(it, 0, sizeof(*it));
	it->payload_len = h->size - KETW_EVENT_HEADER_SIZE;
	it->payload = p;
	if (!(h->flags & KETW_RECORD_EXT))
		return;
	memcpy(&eh, p, sizeof(eh));
	if (eh.size < 8 || eh.size % 8 ||
	    eh.size > h->size - KETW_EVENT_HEADER_SIZE) {
		it->bad = 1;
		return;
	}
	it->payload_len -= eh.size;
	it->payload = p + eh.size;
	it->count = eh.count;
	for (i = 0, off = 8; i < eh.count; i++) {
		const unsigned char *d = p + off + sizeof(x);

		if (off + sizeof(x) > eh.size) {
			it->bad = 1;
			return;
		}
		memcpy(&x, p + off, sizeof(x));
		off += KETW_EXT_ITEM_SPAN((size_t)x.size);
		if (off > eh.size) {
			it->bad = 1;
			return;
		}
		if ((x.type == KETW_EXT_KSTACK || x.type == KETW_EXT_USTACK) &&
		    x.size > 8 * KETW_EXT_STACK_MAX) {
			it->bad = 1;
			return;
		}
		it->mask |= KETW_EXT_BIT(x.type);
		switch (x.type) {
		case KETW_EXT_KSTACK:
			it->nk = x.size / 8;
			memcpy(it->kstack, d, it->nk * 8);
			break;
		case KETW_EXT_USTACK:
			it->nu = x.size / 8;
			memcpy(it->ustack, d, it->nu * 8);
			break;
		case KETW_EXT_PROG_ADDR:
			memcpy(&it->prog_addr, d, 8);
			break;
		case KETW_EXT_CPU_TIME:
			memcpy(&it->cpu, d, sizeof(it->cpu));
			break;
		case KETW_EXT_PID_NS:
			memcpy(&it->ns, d, sizeof(it->ns));
			break;
		case KETW_EXT_ACTIVITY:
			memcpy(&it->act, d, sizeof(it->act));
			break;
		}
	}
	if (off != eh.size)
		it->bad = 1;
}

/* Create, attach and start session @name with @a's other fields. */
/*
 * KETW_IOC_ENABLE: @session takes @provider (by name, or by @guid when
 * @provider is NULL) with this filter; returns 0 or -errno.
 */
static inline int ketw_enable(int fd, const char *session,
			      const char *provider, const uint8_t *guid,
			      uint32_t level, uint64_t any, uint64_t all,
			      const uint32_t *filtered_ids, int nfiltered,
			      uint32_t flags)
{
	struct ketw_enable e;
	int i;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.flags = flags;
	snprintf(e.session, sizeof(e.session), "%s", session);
	if (provider)
		snprintf(e.provider, sizeof(e.provider), "%s", provider);
	else
		memcpy(e.guid, guid, KETW_GUID_SIZE);
	e.filter.level = level;
	e.filter.match_any = any;
	e.filter.match_all = all;
	for (i = 0; i < nfiltered; i++)
		e.filter.filtered.bits[filtered_ids[i] / 64] |=
			1ull << (filtered_ids[i] % 64);
	return ioctl(fd, KETW_IOC_ENABLE, &e) ? -errno : 0;
}

static inline int session_start(int fd, struct ketw_session_attr *a)
{
	if (ioctl(fd, KETW_IOC_CREATE, a))
		return -errno;
	if (ketw_ref(fd, KETW_IOC_START, a->name))
		return -errno;
	return 0;
}

static inline int cpu_stats(int fd, const char *name, unsigned int cpu,
			    struct ketw_cpu_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	snprintf(st->name, sizeof(st->name), "%s", name);
	return ioctl(fd, KETW_IOC_CPU_STATS, st) ? -errno : 0;
}

/* KETW_IOC_STATUS of session @name: 0 or -errno. */
static inline int session_status(int fd, const char *name,
				 struct ketw_session_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	snprintf(st->name, sizeof(st->name), "%s", name);
	return ioctl(fd, KETW_IOC_STATUS, st) ? -errno : 0;
}

/* One CPU's buffer mapped: the meta page (rw) and the data area (ro). */
struct mcpu {
	struct ketw_meta_page *meta;
	const unsigned char *data;
	uint32_t size;
};

static inline int mcpu_map(int fd, unsigned int cpu, struct mcpu *m)
{
	void *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 KETW_MMAP_CPU(cpu));
	if (p == MAP_FAILED)
		return -errno;
	m->meta = p;
	m->size = m->meta->data_size;
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd,
		 m->meta->data_offset);
	if (p == MAP_FAILED) {
		munmap(m->meta, 4096);
		return -errno;
	}
	m->data = p;
	return 0;
}

static inline void mcpu_unmap(struct mcpu *m)
{
	munmap((void *)m->data, m->size);
	munmap(m->meta, 4096);
}

static inline int pos_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/*
 * Consume what is committed, without a system call: @fn gets each whole
 * record. UNTIL_FULL and FLUSH records are handed over in place and given
 * back by moving consumed. A LOOP record is copied first and is ours only
 * if we then move oldest over it with compare-and-swap; if a writer moved
 * it first, the writer counted the record overwritten and *dropped counts
 * our void copy. Returns the number of records given to @fn.
 */
static inline long mcpu_consume(struct mcpu *m,
				void (*fn)(const struct ketw_event_header *, void *),
				void *arg, uint64_t *dropped)
{
	int loop = m->meta->policy == KETW_POLICY_LOOP;
	uint32_t *tail = loop ? &m->meta->oldest : &m->meta->consumed;
	uint32_t c, p, mask = m->size - 1, span;
	static unsigned char copy[1 << 16];
	const struct ketw_event_header *h;
	long n = 0;

	p = __atomic_load_n(&m->meta->commit, __ATOMIC_ACQUIRE);
	c = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
	while (c != p) {
		h = (const void *)(m->data + (c & mask));
		span = KETW_RECORD_SPAN(h->size);
		/* Records never wrap: a span that would is a torn header. */
		if (span < KETW_RECORD_ALIGN || span > p - c ||
		    (c & mask) + span > m->size) {
			if (!loop)
				return -1;	/* cannot happen outside LOOP */
			goto lost;		/* being overwritten */
		}
		if (loop) {
			uint32_t expect = c;

			memcpy(copy, h, span);
			if (!__atomic_compare_exchange_n(tail, &expect, c + span,
							 0, __ATOMIC_SEQ_CST,
							 __ATOMIC_SEQ_CST))
				goto lost;
			h = (const void *)copy;
		}
		c += span;
		if (!(h->flags & KETW_RECORD_PADDING)) {
			fn(h, arg);
			n++;
		}
		continue;
lost:
		(*dropped)++;
		/* The header read before the writer's release is seen. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(tail, __ATOMIC_ACQUIRE) == c)
			return -1;	/* a bad header no writer explains */
		c = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
		if (pos_before(p, c))
			p = __atomic_load_n(&m->meta->commit, __ATOMIC_ACQUIRE);
	}
	if (!loop)
		__atomic_store_n(tail, c, __ATOMIC_RELEASE);
	return n;
}

#endif /* _KETW_TEST_H */
