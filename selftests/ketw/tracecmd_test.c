// SPDX-License-Identifier: GPL-2.0
/*
 * The trace-cmd bridge: providers' events as the ftrace event
 * ketw:ketw_event. The sample provider's static branch is off while
 * neither a session nor the ftrace event wants it; the ftrace event alone
 * turns it on; sessions and ftrace get the same events, and neither turns
 * the branch off under the other. trace-cmd (Debian's, packed into the
 * guest with its libraries) records and reports the events. The second
 * event, ketw:ketw_items, follows each ketw_event with the items
 * ketwfs's bridge_items names, values checked, in tracefs's text and in
 * trace-cmd's report (which must parse its format).
 *
 * The branch is read from kernel memory: the sample's sample_provider
 * from /proc/kallsyms, its static key's count through /proc/kcore.
 */
#include "ketw_test.h"
#include <elf.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define SESSION		"tracecmd_test"
#define TRACEFS		"/sys/kernel/tracing/"
#define EV_ENABLE	TRACEFS "events/ketw/ketw_event/enable"
#define ITEMS_ENABLE	TRACEFS "events/ketw/ketw_items/enable"
#define KFS		"/sys/kernel/ketw"
#define KETWFS_MAGIC	0x6b657477
#define BRIDGE_ITEMS	KFS "/bridge_items"
#define TC_PID		"/tmp/ketw-tracecmd.pid"
#define TRACE_CMD	"/usr/bin/trace-cmd"
#define TC_DAT		"/tmp/ketw-tracecmd.dat"
#define TC_LOG		"/tmp/ketw-tracecmd.log"
#define SAMPLE_GUID_STR	"6b657477-7361-6d70-6c65-000000000001"
#define MAX_DATA	1024	/* KETW_TRACE_MAX_DATA */

/* ---- the sample provider's static key ---------------------------------- */

static uint64_t ksym(const char *name, const char *mod)
{
	char line[512], sym[256], m[64];
	unsigned long long a;
	uint64_t addr = 0;
	char t;
	FILE *f;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	while (!addr && fgets(line, sizeof(line), f)) {
		m[0] = 0;
		if (sscanf(line, "%llx %c %255s [%63[^]]]", &a, &t, sym, m) >= 3 &&
		    !strcmp(sym, name) && !strcmp(m, mod))
			addr = a;
	}
	fclose(f);
	return addr;
}

static int kread(uint64_t addr, void *buf, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, i, ret = -ENOENT;

	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh)) {
		close(fd);
		return -EIO;
	}
	for (i = 0; i < eh.e_phnum && ret == -ENOENT; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * eh.e_phentsize) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		ret = pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) ==
		      (ssize_t)len ? 0 : -EIO;
	}
	close(fd);
	return ret;
}

/* Where the sample's provider is now (0: cannot tell); after a reload too. */
static uint64_t sample_prov_addr;

static void sample_prov_lookup(void)
{
	sample_prov_addr = ksym("sample_provider", "ketw_sample");
}

/*
 * The count of the sample provider's static key (struct ketw_provider
 * starts with it, struct static_key starts with atomic_t enabled): 0 off,
 * 1 on; -1 if the kernel does not let us read it.
 */
static int sample_key(void)
{
	int32_t enabled;

	if (!sample_prov_addr)
		sample_prov_lookup();
	if (!sample_prov_addr ||
	    kread(sample_prov_addr, &enabled, sizeof(enabled)))
		return -1;
	return enabled;
}

#define EXPECT_KEY(want) do {						\
	int __k = sample_key();						\
	if (__k < 0)							\
		TH_LOG("cannot read the sample's static key; not checked"); \
	else								\
		EXPECT_EQ(want, __k);					\
} while (0)

/* ---- tracefs ------------------------------------------------------------ */

static int ev_enable(int on)
{
	return write_str(EV_ENABLE, on ? "1" : "0");
}

static int trace_clear(void)
{
	int fd = open(TRACEFS "trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Everything @fd has to read, NUL-terminated; NULL on error. */
static char *slurp_fd(int fd)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;

	for (;;) {
		if (cap - len < 65536) {
			cap += 1 << 20;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = 0;
	return buf;
}

static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *s;

	if (fd < 0)
		return NULL;
	s = slurp_fd(fd);
	close(fd);
	return s;
}

/* The standard output and error of a shell command, and its status. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	char *s;

	if (!p)
		return NULL;
	s = slurp_fd(fileno(p));
	*status = pclose(p);
	return s;
}

/* ---- ketw_event lines, as the kernel and trace-cmd print them ------------ */

struct tev {
	char guid[40];
	char provider[KETW_NAME_MAX];
	unsigned int id, type, level, version, flags, preempt, len;
	char context[16];
	unsigned long long keyword;
	unsigned char data[MAX_DATA];
};

/* 1: @line is a ketw_event, in @e; 0: another line; -1: malformed. */
static int parse_tev(const char *line, struct tev *e)
{
	const char *p = strstr(line, "ketw_event:");
	unsigned int i, b;
	int n = 0;

	if (!p)
		return 0;
	p += strlen("ketw_event:");
	if (sscanf(p, "%39s %31s id=%u type=%u level=%u version=%u keyword=0x%llx flags=0x%x context=%15s preempt=%u len=%u data=%n",
		   e->guid, e->provider, &e->id, &e->type, &e->level,
		   &e->version, &e->keyword, &e->flags, e->context,
		   &e->preempt, &e->len, &n) != 11 ||
	    !n || e->len > MAX_DATA)
		return -1;
	p += n;
	for (i = 0; i < e->len; i++) {
		if (sscanf(p, "%2x%n", &b, &n) != 1)
			return -1;
		e->data[i] = b;
		p += n;
		if (*p == ' ')
			p++;
	}
	return 1;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * Was @e logged by a task with preemption and interrupts on, as the
 * context field and the flags' context bits both say? Need-resched may
 * be set or not.
 */
static int from_plain_task(const struct tev *e)
{
	return !strcmp(e->context, "task") && e->preempt == 0 &&
	       (e->flags & KETW_RECORD_CONTEXT_BITS &
		~KETW_RECORD_NEED_RESCHED) == 0;
}

/* Is @e the sample's tick event number @e's index, with every field right? */
static int sample_tick_ok(const struct tev *e, uint32_t *index)
{
	uint32_t i, k;

	if (!from_plain_task(e) ||
	    (e->flags & ~KETW_RECORD_CONTEXT_BITS) != 0)
		return 0;
	if (strcmp(e->guid, SAMPLE_GUID_STR) ||
	    strcmp(e->provider, KETW_SAMPLE_NAME) ||
	    e->id != KETW_SAMPLE_EV_TICK || e->type != KETW_SAMPLE_TICK_TYPE ||
	    e->level != KETW_SAMPLE_TICK_LEVEL ||
	    e->version != KETW_SAMPLE_TICK_VERSION ||
	    e->keyword != KETW_SAMPLE_TICK_KEYWORD ||
	    e->len < sizeof(struct ketw_sample_tick))
		return 0;
	i = le32(e->data);
	if (le32(e->data + 4) != KETW_SAMPLE_MAGIC ||
	    le64(e->data + 8) != (uint64_t)i * 3 + 1 ||
	    e->len != sizeof(struct ketw_sample_tick) + i % KETW_SAMPLE_TAIL_MOD)
		return 0;
	for (k = 0; k < i % KETW_SAMPLE_TAIL_MOD; k++)
		if (e->data[sizeof(struct ketw_sample_tick) + k] != ((i + k) & 0xff))
			return 0;
	*index = i;
	return 1;
}

/*
 * Check that @text (a "trace" file or a trace-cmd report) holds exactly
 * the sample's ticks 0..@n-1, each once with the right fields, and no
 * other ketw_event. Logs the first few lines when @show.
 */
static void expect_ticks(struct __test_metadata *_metadata, const char *text,
			 unsigned int n, int show)
{
	unsigned int good = 0, bad = 0, dup = 0, shown = 0;
	static unsigned char seen[4096];
	const char *line = text, *nl;
	struct tev e;
	uint32_t i;
	char buf[8192];
	int r;

	ASSERT_NE(NULL, text);
	ASSERT_GE(sizeof(seen), n);
	memset(seen, 0, sizeof(seen));
	for (; *line; line = nl + 1) {
		size_t l;

		nl = strchrnul(line, '\n');
		l = nl - line;
		if (l >= sizeof(buf))
			l = sizeof(buf) - 1;
		memcpy(buf, line, l);
		buf[l] = 0;
		r = parse_tev(buf, &e);
		if (r && show && shown < 3) {
			printf("# %s\n", buf);
			shown++;
		}
		if (r > 0 && sample_tick_ok(&e, &i) && i < n) {
			dup += seen[i]++ != 0;
			good++;
		} else if (r) {
			if (bad++ < 3)
				TH_LOG("unexpected: %s", buf);
		}
		if (!*nl)
			break;
	}
	EXPECT_EQ(n, good);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, dup);
}

/* Count ketw_event lines of any kind in @text. */
static int count_tev(const char *text)
{
	const char *p = text;
	int n = 0;

	while (p && (p = strstr(p, "ketw_event:"))) {
		n++;
		p++;
	}
	return n;
}

/* ---- ketw_items lines ------------------------------------------------------ */

#define TI_MAX	64

struct titems {
	char items[128];
	char prog[256];
	unsigned int vpid, vtid;
	unsigned long long pid_ns, kernel_ns, user_ns, runtime_ns;
	char activity[40], related[40];
	unsigned long long kstack[TI_MAX], ustack[TI_MAX];
	unsigned int nk, nu;
};

/* The text of @line between "@key=" and the next " @next=" (or the end). */
static int field(const char *line, const char *key, const char *next,
		 char *out, size_t len)
{
	char k[32];
	const char *p, *e;

	snprintf(k, sizeof(k), " %s=", key);
	p = strstr(line, k);
	if (!p)
		return -1;
	p += strlen(k);
	if (next) {
		snprintf(k, sizeof(k), " %s=", next);
		e = strstr(p, k);
		if (!e)
			return -1;
	} else {
		e = p + strlen(p);
	}
	if ((size_t)(e - p) >= len)
		return -1;
	memcpy(out, p, e - p);
	out[e - p] = 0;
	return 0;
}

/*
 * An array as __print_array() shows it: "{0x1,0x2}" in the kernel's
 * text, "1 2" (decimal) in trace-cmd's. Returns the count, -1 if bad.
 */
static int parse_array(const char *s, unsigned long long *v, unsigned int max)
{
	unsigned int n = 0;
	char *end;

	for (;;) {
		while (*s == '{' || *s == '}' || *s == ',' || *s == ' ')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -1;
		errno = 0;
		v[n++] = strtoull(s, &end, 0);
		if (errno || end == s)
			return -1;
		s = end;
	}
}

/* 1: @line is a ketw_items, in @t; 0: another line; -1: malformed. */
static int parse_titems(const char *line, struct titems *t)
{
	const char *p = strstr(line, "ketw_items:");
	char buf[2048];
	int n;

	if (!p)
		return 0;
	p += strlen("ketw_items:");
	memset(t, 0, sizeof(*t));
	if (field(p, "items", "prog", t->items, sizeof(t->items)) ||
	    field(p, "prog", "vpid", t->prog, sizeof(t->prog)) ||
	    sscanf(strstr(p, " vpid="), " vpid=%u vtid=%u pid_ns=%llu kernel_ns=%llu user_ns=%llu runtime_ns=%llu activity=%39s related=%39s",
		   &t->vpid, &t->vtid, &t->pid_ns, &t->kernel_ns,
		   &t->user_ns, &t->runtime_ns, t->activity,
		   t->related) != 8 ||
	    field(p, "kstack", "ustack", buf, sizeof(buf)))
		return -1;
	n = parse_array(buf, t->kstack, TI_MAX);
	if (n < 0 || field(p, "ustack", NULL, buf, sizeof(buf)))
		return -1;
	t->nk = n;
	n = parse_array(buf, t->ustack, TI_MAX);
	if (n < 0)
		return -1;
	t->nu = n;
	return 1;
}

/* Where kallsyms puts @name of the sample and the next symbol after it. */
static void sample_fn_range(const char *name, uint64_t *lo, uint64_t *hi)
{
	char line[512], sym[256];
	unsigned long long a;
	FILE *f;
	char t;

	*lo = ksym(name, "ketw_sample");
	*hi = *lo + 0x1000;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, sym) == 3 &&
		    a > *lo && a < *hi)
			*hi = a;
	fclose(f);
}

/*
 * What a ketw_items line after a sample tick logged by task @pid (0:
 * this thread) must show, bridge_items being stack,cputime,progaddr,
 * pidns: @task says whether the tick came from task context (else the
 * task items are absent).
 */
static void expect_titems(struct __test_metadata *_metadata,
			  const struct titems *t, pid_t pid, int task,
			  const char *line)
{
	static const char zero[] = "00000000-0000-0000-0000-000000000000";
	uint64_t lo, hi;
	struct stat ns;

	EXPECT_STREQ(task ? "stack,cputime,progaddr,pidns" : "stack,progaddr",
		     t->items) TH_LOG("%.300s", line);
	EXPECT_EQ(0, strncmp(t->prog, "sample_emit_one+0x", 18))
		TH_LOG("%.300s", line);
	EXPECT_STREQ(zero, t->activity);
	EXPECT_STREQ(zero, t->related);
	EXPECT_EQ(0, t->nu);
	/* The stack starts in the function that called ketw_write(). */
	ASSERT_LE(2, t->nk) TH_LOG("%.300s", line);
	sample_fn_range("sample_emit_one", &lo, &hi);
	ASSERT_NE(0, lo);
	EXPECT_TRUE(t->kstack[0] > lo && t->kstack[0] < hi)
		TH_LOG("kstack[0] 0x%llx, sample_emit_one 0x%llx-0x%llx",
		       t->kstack[0], (unsigned long long)lo,
		       (unsigned long long)hi);
	if (!task) {
		EXPECT_EQ(0, t->vpid);
		EXPECT_EQ(0, t->vtid);
		EXPECT_EQ(0, t->pid_ns);
		EXPECT_EQ(0, t->runtime_ns);
		return;
	}
	ASSERT_EQ(0, stat("/proc/self/ns/pid", &ns));
	EXPECT_EQ(pid ? (unsigned int)pid : (unsigned int)getpid(), t->vpid);
	EXPECT_EQ(pid ? (unsigned int)pid : (unsigned int)gettid(), t->vtid);
	EXPECT_EQ((unsigned long long)ns.st_ino, t->pid_ns);
	EXPECT_LT(0, t->runtime_ns);
}

/*
 * Walk @text: each ketw_event line must be followed by a ketw_items line
 * (the next ketw line), those after a sample tick checked by
 * expect_titems(); with @want 0, no ketw_items line may appear. Returns
 * the ticks seen.
 */
static int walk_titems(struct __test_metadata *_metadata, const char *text,
		       int want, pid_t pid)
{
	/* What the last ketw line was: */
	enum { NONE, EVENT, TASK_TICK, IRQ_TICK } last = NONE;
	int ticks = 0, titems = 0, r;
	const char *line = text;
	char buf[8192];
	struct titems t;
	struct tev e;
	size_t l;

	for (; *line; line += l + (line[l] == '\n')) {
		l = strcspn(line, "\n");
		memcpy(buf, line, l < sizeof(buf) ? l : sizeof(buf) - 1);
		buf[l < sizeof(buf) ? l : sizeof(buf) - 1] = 0;
		r = parse_titems(buf, &t);
		if (r) {
			EXPECT_EQ(1, r) TH_LOG("malformed: %.300s", buf);
			EXPECT_NE(NONE, last) TH_LOG("after no event: %.300s",
						     buf);
			if (r > 0 && last >= TASK_TICK)
				expect_titems(_metadata, &t, pid,
					      last == TASK_TICK, buf);
			titems++;
			last = NONE;
			continue;
		}
		r = parse_tev(buf, &e);
		if (!r)
			continue;
		ASSERT_EQ(1, r) TH_LOG("malformed: %.300s", buf);
		if (want)
			EXPECT_EQ(NONE, last)
				TH_LOG("no ketw_items before %.300s", buf);
		last = EVENT;
		if (strcmp(e.provider, KETW_SAMPLE_NAME) ||
		    e.id != KETW_SAMPLE_EV_TICK)
			continue;
		ticks++;
		last = strcmp(e.context, "task") ? IRQ_TICK : TASK_TICK;
	}
	if (want)
		EXPECT_EQ(NONE, last) TH_LOG("no ketw_items after the last event");
	if (!want)
		EXPECT_EQ(0, titems);
	return ticks;
}

static int kfs_mounted(void)
{
	struct statfs sf;

	return !statfs(KFS, &sf) && sf.f_type == KETWFS_MAGIC;
}

/* ---- tests ---------------------------------------------------------------- */

FIXTURE(bridge) {
	int fd;
	struct ketw_session_attr attr;
	struct drained d;
	char *text;
	int kfs_here;
};

FIXTURE_SETUP(bridge)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	KETW_REQUIRE_PATH(TRACEFS "tracing_on", W_OK,
			  "tracefs, mounted at " TRACEFS);

	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&self->attr, SESSION);
	memset(&self->d, 0, sizeof(self->d));
	self->text = NULL;
	ASSERT_EQ(0, access(EV_ENABLE, W_OK))
		TH_LOG("no ketw:ketw_event in tracefs");
	ASSERT_EQ(0, access(ITEMS_ENABLE, W_OK))
		TH_LOG("no ketw:ketw_items in tracefs");
	self->kfs_here = 0;
	if (!kfs_mounted()) {
		ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL))
			TH_LOG("mount -t ketwfs: %s", strerror(errno));
		self->kfs_here = 1;
	}
	ASSERT_EQ(0, write_str(BRIDGE_ITEMS, "none"));
	ASSERT_EQ(0, write_str(ITEMS_ENABLE, "0"));
	ASSERT_EQ(0, ev_enable(0));
	ASSERT_EQ(0, write_str(TRACEFS "tracing_on", "1"));
	ASSERT_EQ(0, trace_clear());
	sample_prov_lookup();
}

FIXTURE_TEARDOWN(bridge)
{
	ev_enable(0);
	write_str(ITEMS_ENABLE, "0");
	write_str(BRIDGE_ITEMS, "none");
	if (self->kfs_here)
		umount2(KFS, MNT_DETACH);
	trace_clear();
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
	free(self->d.buf);
	free(self->text);
}

/* Neither a session nor the ftrace event: the call site stays a NOP. */
TEST_F(bridge, off_without_session_or_ftrace)
{
	long long stored = read_ll(SAMPLE_PARAM("stored"));
	long long emitted = read_ll(SAMPLE_PARAM("emitted"));

	EXPECT_KEY(0);
	ASSERT_EQ(0, sample_emit(5));
	EXPECT_EQ(emitted + 5, read_ll(SAMPLE_PARAM("emitted")));
	EXPECT_EQ(stored, read_ll(SAMPLE_PARAM("stored")));
	self->text = slurp(TRACEFS "trace");
	ASSERT_NE(NULL, self->text);
	EXPECT_EQ(0, count_tev(self->text));
}

/* The ftrace event alone turns the provider on, and off again. */
TEST_F(bridge, ftrace_event_alone)
{
	long long stored = read_ll(SAMPLE_PARAM("stored"));

	ASSERT_EQ(0, ev_enable(1));
	EXPECT_KEY(1);
	ASSERT_EQ(0, sample_emit(20));
	EXPECT_EQ(stored, read_ll(SAMPLE_PARAM("stored")));	/* no session */
	self->text = slurp(TRACEFS "trace");
	expect_ticks(_metadata, self->text, 20, 1);

	ASSERT_EQ(0, ev_enable(0));
	EXPECT_KEY(0);
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, sample_emit(5));
	free(self->text);
	self->text = slurp(TRACEFS "trace");
	EXPECT_EQ(0, count_tev(self->text));
}

/*
 * A session and the ftrace event both get the events; turning either off
 * leaves the other receiving, and the branch on until both are off.
 */
TEST_F(bridge, session_and_ftrace)
{
	long long stored = read_ll(SAMPLE_PARAM("stored"));
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0, ticks = 0;

	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	EXPECT_KEY(1);
	ASSERT_EQ(0, ev_enable(1));
	ASSERT_EQ(0, sample_emit(10));
	EXPECT_EQ(stored + 10, read_ll(SAMPLE_PARAM("stored")));
	self->text = slurp(TRACEFS "trace");
	expect_ticks(_metadata, self->text, 10, 0);

	/* ftrace off: the session still receives. */
	ASSERT_EQ(0, ev_enable(0));
	EXPECT_KEY(1);
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, sample_emit(10));
	EXPECT_EQ(stored + 20, read_ll(SAMPLE_PARAM("stored")));
	free(self->text);
	self->text = slurp(TRACEFS "trace");
	EXPECT_EQ(0, count_tev(self->text));

	/* ftrace on, session stopped: ftrace still receives. */
	ASSERT_EQ(0, ev_enable(1));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	EXPECT_KEY(1);
	ASSERT_EQ(0, sample_emit(7));
	EXPECT_EQ(stored + 20, read_ll(SAMPLE_PARAM("stored")));
	free(self->text);
	self->text = slurp(TRACEFS "trace");
	expect_ticks(_metadata, self->text, 7, 0);

	ASSERT_EQ(0, ev_enable(0));
	EXPECT_KEY(0);

	/* The session got the 20 events logged while it ran. */
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad)))
		ticks += is_sample(h) && h->event_id == KETW_SAMPLE_EV_TICK;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(20, ticks);
}

/* A provider that registers while the ftrace event is on starts on. */
TEST_F(bridge, provider_registered_while_on)
{
	int fd;

	ASSERT_EQ(0, ev_enable(1));
	fd = open("/ketw/ketw_sample.ko", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syscall(SYS_delete_module, "ketw_sample", O_NONBLOCK));
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0));
	close(fd);
	sample_prov_lookup();
	EXPECT_KEY(1);
	ASSERT_EQ(0, sample_emit(3));
	self->text = slurp(TRACEFS "trace");
	expect_ticks(_metadata, self->text, 3, 0);
	ASSERT_EQ(0, ev_enable(0));
	EXPECT_KEY(0);
}

/*
 * A user-space provider's events are bridged too, flagged USER; a payload
 * over KETW_TRACE_MAX_DATA is cut and flagged TRUNCATED.
 */
TEST_F(bridge, user_provider_truncated)
{
	static const uint8_t guid[KETW_GUID_SIZE] = {
		0x75, 0x73, 0x65, 0x72, 0x00, 0x00, 0x40, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09 };
	struct ketw_user_provider up;
	struct ketw_user_event ue;
	unsigned char data[MAX_DATA + 100];
	int ufd, n = 0, r, i, ok = 1;
	const char *line;
	struct tev e;

	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = i * 7;
	ufd = ketw_open();
	ASSERT_LE(0, ufd);
	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	memcpy(up.guid, guid, sizeof(guid));
	strcpy(up.name, "tracecmd-user");
	ASSERT_EQ(0, ioctl(ufd, KETW_IOC_USER_REGISTER, &up));
	ASSERT_EQ(0, ev_enable(1));

	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.id = 77;
	ue.type = KETW_TYPE_INFO;
	ue.level = KETW_LEVEL_VERBOSE;
	ue.version = 3;
	ue.keyword = 0x8000000000000010ull;
	ue.data = (uintptr_t)data;
	ue.len = sizeof(data);
	EXPECT_EQ(0, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));	/* no session */
	ue.len = 5;
	EXPECT_EQ(0, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));
	close(ufd);

	self->text = slurp(TRACEFS "trace");
	ASSERT_NE(NULL, self->text);
	for (line = self->text; line; line = strchr(line, '\n')) {
		char buf[4096];
		size_t l;

		line += *line == '\n';
		l = strcspn(line, "\n");
		if (l >= sizeof(buf))
			l = sizeof(buf) - 1;
		memcpy(buf, line, l);
		buf[l] = 0;
		r = parse_tev(buf, &e);
		if (!r)
			continue;
		ASSERT_EQ(1, r) TH_LOG("malformed: %.200s", buf);
		EXPECT_STREQ("75736572-0000-4000-8000-000000000009", e.guid);
		EXPECT_STREQ(KETW_USER_PREFIX "tracecmd-user", e.provider);
		EXPECT_EQ(77, e.id);
		EXPECT_EQ(KETW_TYPE_INFO, e.type);
		EXPECT_EQ(KETW_LEVEL_VERBOSE, e.level);
		EXPECT_EQ(3, e.version);
		EXPECT_EQ(0x8000000000000010ull, e.keyword);
		/* From the ioctl: a task, preemption and interrupts on. */
		EXPECT_TRUE(from_plain_task(&e)) TH_LOG("%.200s", buf);
		if (n == 0) {
			EXPECT_EQ(KETW_RECORD_USER | KETW_RECORD_TRUNCATED,
				  e.flags & ~KETW_RECORD_CONTEXT_BITS);
			EXPECT_EQ(MAX_DATA, e.len);
		} else {
			EXPECT_EQ(KETW_RECORD_USER,
				  e.flags & ~KETW_RECORD_CONTEXT_BITS);
			EXPECT_EQ(5, e.len);
		}
		for (i = 0; i < (int)e.len; i++)
			ok &= e.data[i] == data[i];
		n++;
	}
	EXPECT_EQ(2, n);
	EXPECT_TRUE(ok);
}

/* The words ketw_sample's emit_ctx takes, and what the bridge says. */
static const struct {
	const char *word;
	const char *context;
	int irqs_off;		/* -1: either */
	int preempt;		/* -1: any */
} ctx_cases[] = {
	{ "task", "task", 0, 0 },
	{ "preempt", "task", 0, 1 },
	{ "bh", "task", 0, 0 },
	{ "irqsoff", "task", 1, 0 },
	{ "softirq", "softirq", 0, -1 },
	{ "hardirq", "hardirq", 1, -1 },
	{ "nmi", "nmi", 1, -1 },
};

/*
 * Check the context of emit_ctx's ticks in @text (a "trace" file or a
 * trace-cmd report): each once, its context field, depth and flags right.
 */
static void expect_ctx_ticks(struct __test_metadata *_metadata,
			     const char *text)
{
	unsigned int seen[ARRAY_SIZE(ctx_cases)] = { 0 }, c;
	const char *line = text;
	char buf[8192];
	struct tev e;
	size_t l;
	int r;

	ASSERT_NE(NULL, text);
	for (; *line; line += l + (line[l] == '\n')) {
		l = strcspn(line, "\n");
		memcpy(buf, line, l < sizeof(buf) ? l : sizeof(buf) - 1);
		buf[l < sizeof(buf) ? l : sizeof(buf) - 1] = 0;
		r = parse_tev(buf, &e);
		if (!r)
			continue;
		ASSERT_EQ(1, r) TH_LOG("malformed: %.200s", buf);
		c = le32(e.data) - KETW_SAMPLE_CTX_TASK;
		ASSERT_LT(c, ARRAY_SIZE(ctx_cases)) TH_LOG("%.200s", buf);
		seen[c]++;
		EXPECT_STREQ(ctx_cases[c].context, e.context)
			TH_LOG("%s: %.200s", ctx_cases[c].word, buf);
		EXPECT_STREQ(ctx_cases[c].context,
			     KETW_RECORD_CTX(e.flags) == KETW_CTX_TASK ? "task" :
			     KETW_RECORD_CTX(e.flags) == KETW_CTX_SOFTIRQ ? "softirq" :
			     KETW_RECORD_CTX(e.flags) == KETW_CTX_HARDIRQ ? "hardirq" :
			     "nmi");
		EXPECT_EQ(KETW_RECORD_PREEMPT_DEPTH(e.flags), e.preempt);
		if (ctx_cases[c].preempt >= 0)
			EXPECT_EQ(ctx_cases[c].preempt, (int)e.preempt)
				TH_LOG("%s: %.200s", ctx_cases[c].word, buf);
		EXPECT_EQ(ctx_cases[c].irqs_off,
			  !!(e.flags & KETW_RECORD_IRQS_OFF))
			TH_LOG("%s: %.200s", ctx_cases[c].word, buf);
	}
	for (c = 0; c < ARRAY_SIZE(ctx_cases); c++)
		EXPECT_EQ(1, seen[c]) TH_LOG("case %u", c);
}

/*
 * The bridge carries each event's context: a field with its word and
 * one with the caller's preemption depth, in tracefs's text and in
 * trace-cmd's report.
 */
TEST_F(bridge, context_field)
{
	char cmd[1024];
	size_t n = 0;
	unsigned int c;
	int status, attempt;

	ASSERT_EQ(0, ev_enable(1));
	for (c = 0; c < ARRAY_SIZE(ctx_cases); c++)
		ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"),
				       ctx_cases[c].word))
			TH_LOG("emit_ctx case %u: %s", c, strerror(errno));
	self->text = slurp(TRACEFS "trace");
	expect_ctx_ticks(_metadata, self->text);
	ASSERT_EQ(0, ev_enable(0));
	ASSERT_EQ(0, trace_clear());

	KETW_REQUIRE_PATH(TRACE_CMD, X_OK, "make check packs it: EXTRA_BINS");
	n += snprintf(cmd + n, sizeof(cmd) - n,
		      TRACE_CMD " record -q -e ketw -o " TC_DAT " sh -c '");
	for (c = 0; c < ARRAY_SIZE(ctx_cases); c++)
		n += snprintf(cmd + n, sizeof(cmd) - n,
			      "echo %s > " SAMPLE_PARAM("emit_ctx") "; ",
			      ctx_cases[c].word);
	snprintf(cmd + n, sizeof(cmd) - n, "' >" TC_LOG " 2>&1");
	/* Twice at most: see trace_cmd_record_report. */
	for (attempt = 0; attempt < 2; attempt++) {
		unlink(TC_DAT);
		ASSERT_EQ(0, system(cmd));
		free(self->text);
		self->text = run(TRACE_CMD " report -i " TC_DAT " 2>&1",
				 &status);
		ASSERT_EQ(0, status);
		if (count_tev(self->text))
			break;
		TH_LOG("trace-cmd recorded nothing; once more");
	}
	expect_ctx_ticks(_metadata, self->text);
	unlink(TC_DAT);
}

/*
 * trace-cmd records the sample's events with nothing but "-e ketw" and
 * reports them with their fields; it leaves the branch off.
 */
TEST_F(bridge, trace_cmd_record_report)
{
	int status, attempt;
	char *log;

	KETW_REQUIRE_PATH(TRACE_CMD, X_OK, "make check packs it: EXTRA_BINS");
	for (attempt = 0; attempt < 2; attempt++) {
		unlink(TC_DAT);
		status = system(TRACE_CMD " record -q -e ketw -o " TC_DAT
				" sh -c 'echo 20 > " SAMPLE_PARAM("emit") "'"
				" >" TC_LOG " 2>&1");
		if (status) {
			log = slurp(TC_LOG);
			TH_LOG("trace-cmd record: status %d:\n%s", status,
			       log ? log : "(no log)");
			free(log);
		}
		ASSERT_EQ(0, status);
		EXPECT_KEY(0);

		free(self->text);
		self->text = run(TRACE_CMD " report -i " TC_DAT " 2>&1",
				 &status);
		ASSERT_NE(NULL, self->text);
		/*
		 * An empty recording, seen once in about ten runs under TCG
		 * while the other bridge tests (which read the same event
		 * from tracefs itself) passed, is trace-cmd's capture
		 * failing: say so and record once more.
		 */
		if (status || count_tev(self->text))
			break;
		TH_LOG("trace-cmd recorded nothing; once more");
	}
	if (status || !count_tev(self->text))
		TH_LOG("trace-cmd report: status %d:\n%.2000s", status,
		       self->text);
	ASSERT_EQ(0, status);
	expect_ticks(_metadata, self->text, 20, 1);
	unlink(TC_DAT);
}

/*
 * ketw_items follows each bridged event with the items bridge_items
 * names: from task context all of them, from hardirq and NMI those that
 * need no task. A session that wants other items of the same events
 * gets exactly its own, from the same capture. With bridge_items none,
 * or ketw_items off, there is no ketw_items line.
 */
TEST_F(bridge, items_in_trace_text)
{
	const struct ketw_event_header *h;
	struct ketw_sample_tick tick;
	struct items it;
	size_t off = 0;
	int bad = 0, n = 0;
	char *line;

	ASSERT_EQ(0, pin_cpu(0));
	/* Words in any order, read back in the order of their types. */
	EXPECT_EQ(-EINVAL, write_str(BRIDGE_ITEMS, "stak"));
	ASSERT_EQ(0, write_str(BRIDGE_ITEMS, "pidns,progaddr,cputime,stack"));
	EXPECT_EQ(-EINVAL, write_str(BRIDGE_ITEMS, "stack pidns"));
	EXPECT_EQ(-EINVAL, write_str(BRIDGE_ITEMS, "stack,"));
	self->text = slurp(BRIDGE_ITEMS);
	ASSERT_NE(NULL, self->text);
	EXPECT_STREQ("stack,cputime,progaddr,pidns\n", self->text);

	self->attr.ext_items = KETW_EXT_BIT(KETW_EXT_CPU_TIME);
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	ASSERT_EQ(0, ev_enable(1));
	ASSERT_EQ(0, write_str(ITEMS_ENABLE, "1"));
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), "hardirq"));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), "nmi"));
	free(self->text);
	self->text = slurp(TRACEFS "trace");
	ASSERT_NE(NULL, self->text);
	EXPECT_EQ(5, walk_titems(_metadata, self->text, 1, 0));
	EXPECT_EQ(5, count_of(self->text, "ketw_items:"));
	line = strstr(self->text, "ketw_items:");
	if (line)
		printf("# %.*s\n", (int)strcspn(line, "\n"), line);

	/* The session's records: CPU times, and none from interrupts. */
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));
	while ((h = next_record(&self->d, &off, &bad))) {
		if (!is_sample(h))
			continue;
		parse_items(h, &it);
		EXPECT_EQ(0, it.bad);
		memcpy(&tick, it.payload, sizeof(tick));
		EXPECT_EQ(tick.index >= KETW_SAMPLE_CTX_HARDIRQ ? 0 :
			  KETW_EXT_BIT(KETW_EXT_CPU_TIME), it.mask)
			TH_LOG("tick %u", tick.index);
		n++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(5, n);

	/* bridge_items none: ketw_event alone. */
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, write_str(BRIDGE_ITEMS, "none"));
	ASSERT_EQ(0, sample_emit(3));
	free(self->text);
	self->text = slurp(TRACEFS "trace");
	ASSERT_NE(NULL, self->text);
	EXPECT_EQ(3, walk_titems(_metadata, self->text, 0, 0));

	/* ketw_items off: the same, whatever bridge_items says. */
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, write_str(BRIDGE_ITEMS, "stack"));
	ASSERT_EQ(0, write_str(ITEMS_ENABLE, "0"));
	ASSERT_EQ(0, sample_emit(3));
	free(self->text);
	self->text = slurp(TRACEFS "trace");
	ASSERT_NE(NULL, self->text);
	EXPECT_EQ(3, walk_titems(_metadata, self->text, 0, 0));
}

/*
 * Record "-e ketw" with trace-cmd and report: with bridge_items set,
 * each of the sample's events is followed by a ketw_items entry whose
 * values trace-cmd prints from the event's format (no FAILED TO PARSE):
 * the program address as the emitting function, the writer's pid and
 * tid, its stack. With bridge_items none, no ketw_items entry.
 */
TEST_F(bridge, items_trace_cmd_report)
{
	static const char *const rounds[] = {
		"progaddr,pidns,cputime,stack", "none",
	};
	int status, attempt, r;
	pid_t pid;

	KETW_REQUIRE_PATH(TRACE_CMD, X_OK, "make check packs it: EXTRA_BINS");
	for (r = 0; r < 2; r++) {
		ASSERT_EQ(0, write_str(BRIDGE_ITEMS, rounds[r]));
		/* Twice at most: see trace_cmd_record_report. */
		for (attempt = 0; attempt < 2; attempt++) {
			unlink(TC_DAT);
			unlink(TC_PID);
			ASSERT_EQ(0, system(TRACE_CMD " record -q -e ketw -o "
					    TC_DAT " sh -c 'echo $$ > " TC_PID
					    "; echo 5 > " SAMPLE_PARAM("emit")
					    "' >" TC_LOG " 2>&1"));
			free(self->text);
			self->text = run(TRACE_CMD " report -i " TC_DAT " 2>&1",
					 &status);
			ASSERT_NE(NULL, self->text);
			ASSERT_EQ(0, status);
			if (count_tev(self->text))
				break;
			TH_LOG("trace-cmd recorded nothing; once more");
		}
		pid = read_ll(TC_PID);
		ASSERT_LT(0, pid);
		EXPECT_EQ(NULL, strstr(self->text, "FAILED TO PARSE"))
			TH_LOG("%.2000s", self->text);
		EXPECT_EQ(5, walk_titems(_metadata, self->text, !r, pid))
			TH_LOG("%.2000s", self->text);
		EXPECT_EQ(r ? 0 : 5, count_of(self->text, "ketw_items:"));
		if (!r && strstr(self->text, "ketw_items:"))
			printf("# %.*s\n",
			       (int)strcspn(strstr(self->text, "ketw_items:"),
					    "\n"),
			       strstr(self->text, "ketw_items:"));
	}
	unlink(TC_DAT);
	unlink(TC_PID);
}

/*
 * trace-cmd's own collector, over the guest's loopback: trace-cmd listen
 * takes what trace-cmd record -N sends (the ketw events, through the
 * bridge) into a .dat of its own, and every tick the sample logged
 * arrives there, once. trace-cmd resolves the host name it is given
 * (/etc/hosts, nsswitch.conf and libnss_files in the initramfs).
 */
#define TC_LISTEN_DIR	"/tmp/ketw-tclisten"
#define TC_PORT		"21765"

TEST_F_TIMEOUT(bridge, trace_cmd_listen_network, 180)
{
	int status = -1, attempt;
	char *log;
	pid_t pid;

	KETW_REQUIRE_PATH(TRACE_CMD, X_OK, "make check packs it: EXTRA_BINS");
	KETW_REQUIRE_PATH("/etc/nsswitch.conf", R_OK,
			  "the initramfs's name service set-up");
	ASSERT_EQ(0, system("rm -rf " TC_LISTEN_DIR " && mkdir -p " TC_LISTEN_DIR));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = open(TC_LISTEN_DIR "/listen.log",
			      O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execl(TRACE_CMD, TRACE_CMD, "listen", "-p", TC_PORT, "-d",
		      TC_LISTEN_DIR, "-o", "net", (char *)NULL);
		_exit(127);
	}
	usleep(1500000);
	for (attempt = 0; attempt < 3; attempt++) {
		ASSERT_EQ(0, system("rm -f " TC_LISTEN_DIR "/net*"));
		/*
		 * The events come while the record runs, after its readers
		 * started (TCG is slow to start them): a pause on each side.
		 */
		status = system(TRACE_CMD " record -N 127.0.0.1:" TC_PORT
				" -e ketw sh -c 'sleep 2; echo 20 > "
				SAMPLE_PARAM("emit") "; sleep 2'"
				" >" TC_LOG " 2>&1");
		if (status) {
			log = slurp(TC_LOG);
			TH_LOG("trace-cmd record -N: status %d:\n%s", status,
			       log ? log : "(no log)");
			free(log);
		}
		ASSERT_EQ(0, status);
		usleep(1000000);	/* the listener writes its file */
		free(self->text);
		self->text = run("for f in " TC_LISTEN_DIR "/net*.dat; do "
				 TRACE_CMD " report -i \"$f\"; done 2>&1",
				 &status);
		ASSERT_NE(NULL, self->text);
		if (count_tev(self->text))
			break;
		TH_LOG("trace-cmd listen received no event (attempt %d):\n%.1500s",
		       attempt + 1, self->text);
	}
	kill(pid, SIGINT);
	usleep(500000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Over the network: the 20 ticks, each once, decoded. */
	ASSERT_NE(0, count_tev(self->text)) {
		log = slurp(TC_LISTEN_DIR "/listen.log");
		TH_LOG("listen: %s", log ? log : "(no log)");
		free(log);
	}
	expect_ticks(_metadata, self->text, 20, 1);
	system("rm -rf " TC_LISTEN_DIR);
}

TEST_HARNESS_MAIN
