// SPDX-License-Identifier: GPL-2.0
/*
 * Extended data items (KETW_RECORD_EXT) on the real module, values
 * checked: the kernel stack and program address of ketw_sample's
 * functions, symbolised by ketw report; each session getting exactly the
 * items it asked for; items from hardirq; a thread's CPU time across a
 * measured spin; the pid namespace of a process in a new one; a user
 * provider's program address and user stack; an activity followed by
 * ketw report --activity across two threads; ketwfs's providers file.
 */
#include "ketw_test.h"
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ketw_provider.h"
#include "kselftest_harness.h"

#define TOOL	"/ketw/ketw"
#define S1	"ext_test1"
#define S2	"ext_test2"
#define S3	"ext_test3"
#define S4	"ext_test4"
#define KFS	"/sys/kernel/ketw"
#define UPROV	"ext-test"

#define BIT(t)	KETW_EXT_BIT(KETW_EXT_##t)

#define UGUID { 0x65, 0x78, 0x74, 0x2d, 0x74, 0x65, 0x73, 0x74, \
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }

static const struct ketw_event_descriptor uev = {
	.id = 3, .type = KETW_TYPE_INFO, .level = KETW_LEVEL_INFO,
	.name = "work",
};

static KETW_PROVIDER(uprov, UPROV, UGUID);

/* The kallsyms name of the function holding @addr (must be within 64 KiB). */
static int ksym(uint64_t addr, char *name, size_t len)
{
	char line[512], n[256], best[256] = "";
	unsigned long long a, ba = 0;
	char type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, n) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (a <= addr && a > ba) {
			ba = a;
			snprintf(best, sizeof(best), "%s", n);
		}
	}
	fclose(f);
	if (!ba || addr - ba > 0x10000)
		return -ENOENT;
	snprintf(name, len, "%s", best);
	return 0;
}

/* The line of @text that starts (after blanks) with @prefix, or NULL. */
static char *line_with(char *text, const char *prefix, const char *needle)
{
	char *l = text, *e;

	while (l && *l) {
		e = strchr(l, '\n');
		if (e)
			*e = 0;
		if (strstr(l, prefix) && (!needle || strstr(l, needle))) {
			char *copy = strdup(l);

			if (e)
				*e = '\n';
			return copy;
		}
		if (e)
			*e = '\n';
		l = e ? e + 1 : NULL;
	}
	return NULL;
}

static int create(int fd, const char *name, uint32_t ext_items)
{
	struct ketw_session_attr a;

	ketw_cleanup(name);
	ketw_attr_init(&a, name);
	a.flags = 0;		/* with the rundown: PROVIDER and MODULE */
	a.ext_items = ext_items;
	return ioctl(fd, KETW_IOC_CREATE, &a) ? -errno : 0;
}

static int enable_items(int fd, const char *session, const char *provider,
			uint32_t items)
{
	struct ketw_enable e;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	snprintf(e.session, sizeof(e.session), "%s", session);
	snprintf(e.provider, sizeof(e.provider), "%s", provider);
	e.ext_items = items;
	return ioctl(fd, KETW_IOC_ENABLE, &e) ? -errno : 0;
}

/* Stop @name (attached to @fd) and drain it into @d. */
static int stop_drain(int fd, const char *name, struct drained *d)
{
	if (ketw_ref(fd, KETW_IOC_STOP, name))
		return -errno;
	return drain(fd, d);
}

FIXTURE(ext) {
	int fd[4];
	struct drained d[4];
	char *out;
};

FIXTURE_SETUP(ext)
{
	int i;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	for (i = 0; i < 4; i++) {
		self->fd[i] = ketw_open();
		ASSERT_LE(0, self->fd[i]);
		memset(&self->d[i], 0, sizeof(self->d[i]));
	}
	self->out = NULL;
}

FIXTURE_TEARDOWN(ext)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (self->fd[i] >= 0)
			close(self->fd[i]);
		free(self->d[i].buf);
	}
	free(self->out);
	ketw_cleanup(S1);
	ketw_cleanup(S2);
	ketw_cleanup(S3);
	ketw_cleanup(S4);
	ketw_provider_unregister(&uprov);
}

/*
 * Items are opt-in: four sessions on one provider, each gets exactly
 * what it asked for (S4 through the session default), S3 nothing.
 */
TEST_F(ext, items_opt_in_per_session)
{
	static const char *const names[4] = { S1, S2, S3, S4 };
	static const uint32_t want[4] = {
		BIT(KSTACK), BIT(CPU_TIME) | BIT(PID_NS), 0, BIT(PROG_ADDR),
	};
	const struct ketw_event_header *h;
	struct ketw_sample_tick tick;
	struct ketw_enable g;
	struct items it;
	char *out = NULL;
	size_t off;
	int i, bad, n;

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, create(self->fd[i], names[i],
				    i == 3 ? want[3] : 0));
		if (i < 3)
			ASSERT_EQ(0, enable_items(self->fd[i], names[i],
						  KETW_SAMPLE_NAME, want[i]));
	}
	/* Unknown items, and a reserved word, are refused. */
	EXPECT_EQ(-EINVAL, enable_items(self->fd[0], S1, KETW_SAMPLE_NAME,
					1u << (KETW_EXT_MAX_TYPE + 1)));
	EXPECT_EQ(-EINVAL, enable_items(self->fd[0], S1, KETW_SAMPLE_NAME, 1));
	/* GET_FILTER says what S2 takes. */
	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	strcpy(g.session, S2);
	strcpy(g.provider, KETW_SAMPLE_NAME);
	ASSERT_EQ(0, ioctl(self->fd[1], KETW_IOC_GET_FILTER, &g));
	EXPECT_EQ(want[1], g.ext_items);
	/* ketw status names a session's default items, "none" without. */
	ASSERT_EQ(0, run_cmd(TOOL " status -s " S4 " 2>&1", &out));
	EXPECT_NE(NULL, strstr(out, "\nitems:    progaddr (by default")) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, run_cmd(TOOL " status -s " S4 " --json 2>&1", &out));
	EXPECT_NE(NULL, strstr(out, "\"items\": \"progaddr\"")) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, run_cmd(TOOL " status -s " S3 " --json 2>&1", &out));
	EXPECT_NE(NULL, strstr(out, "\"items\": \"none\"")) TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, run_cmd(TOOL " status -s " S3 " 2>&1", &out));
	EXPECT_EQ(NULL, strstr(out, "\nitems:")) TH_LOG("%s", out);
	free(out);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, ketw_ref(self->fd[i], KETW_IOC_START, names[i]));
	ASSERT_EQ(0, sample_emit(5));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, stop_drain(self->fd[i], names[i], &self->d[i]));
		off = 0;
		bad = 0;
		n = 0;
		while ((h = next_record(&self->d[i], &off, &bad))) {
			if (!is_sample(h))
				continue;
			parse_items(h, &it);
			EXPECT_EQ(0, it.bad);
			EXPECT_EQ(want[i], it.mask) TH_LOG("session %s", names[i]);
			EXPECT_EQ(!!want[i], !!(h->flags & KETW_RECORD_EXT));
			EXPECT_EQ(__builtin_popcount(want[i]), it.count);
			/* The payload is the tick's, whatever the items. */
			memcpy(&tick, it.payload, sizeof(tick));
			EXPECT_EQ(KETW_SAMPLE_MAGIC, tick.magic);
			EXPECT_EQ(sizeof(tick) + tick.index %
				  KETW_SAMPLE_TAIL_MOD, it.payload_len);
			if (want[i] & BIT(PID_NS)) {
				EXPECT_EQ((uint32_t)getpid(), it.ns.vpid);
				EXPECT_EQ((uint32_t)getpid(), h->process_id);
			}
			n++;
		}
		EXPECT_EQ(0, bad);
		EXPECT_EQ(5, n) TH_LOG("session %s", names[i]);
	}
}

/*
 * The kernel stack starts in the function that called ketw_write(),
 * whose return address is also the program address; ketw report names
 * it from the MODULE rundown and kallsyms, raw addresses kept.
 */
TEST_F(ext, kernel_stack_and_prog_addr_symbolised)
{
	const struct ketw_event_header *h;
	char sym[256], *line;
	struct items it;
	size_t off = 0;
	int bad = 0, n = 0;

	ASSERT_EQ(0, create(self->fd[0], S1, 0));
	ASSERT_EQ(0, enable_items(self->fd[0], S1, KETW_SAMPLE_NAME,
				  BIT(KSTACK) | BIT(PROG_ADDR)));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_START, S1));
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_STOP, S1));
	/* Through the tool first (extract consumes the records). */
	ASSERT_EQ(0, run_cmd(TOOL " extract -s " S1 " -o /tmp/ext_test1.ketw 2>&1 && "
			 TOOL " report /tmp/ext_test1.ketw 2>&1", &self->out))
		TH_LOG("%s", self->out);
	line = line_with(self->out, "    stack: 0x", NULL);
	ASSERT_NE(NULL, line) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(line, "sample_emit_one+0x")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "[ketw_sample]")) TH_LOG("%s", line);
	free(line);
	line = line_with(self->out, "    progaddr: 0x", NULL);
	ASSERT_NE(NULL, line) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(line, "sample_emit_one+0x")) TH_LOG("%s", line);
	free(line);
	EXPECT_NE(NULL, strstr(self->out, "MODULE module=ketw_sample base=0x"));
	free(self->out);
	self->out = NULL;
	ASSERT_EQ(0, run_cmd(TOOL " report --json /tmp/ext_test1.ketw 2>&1",
			 &self->out));
	EXPECT_NE(NULL, strstr(self->out, "\"sym\":\"sample_emit_one+0x"));
	unlink("/tmp/ext_test1.ketw");

	/* The same values, raw: stack[0] is the program address. */
	ASSERT_EQ(0, create(self->fd[1], S2, 0));
	ASSERT_EQ(0, enable_items(self->fd[1], S2, KETW_SAMPLE_NAME,
				  BIT(KSTACK) | BIT(PROG_ADDR)));
	ASSERT_EQ(0, ketw_ref(self->fd[1], KETW_IOC_START, S2));
	ASSERT_EQ(0, sample_emit(2));
	ASSERT_EQ(0, stop_drain(self->fd[1], S2, &self->d[1]));
	while ((h = next_record(&self->d[1], &off, &bad))) {
		if (!is_sample(h))
			continue;
		parse_items(h, &it);
		ASSERT_EQ(BIT(KSTACK) | BIT(PROG_ADDR), it.mask);
		ASSERT_LE(2, it.nk);
		EXPECT_EQ(it.prog_addr, it.kstack[0]);
		ASSERT_EQ(0, ksym(it.prog_addr, sym, sizeof(sym)));
		EXPECT_STREQ("sample_emit_one", sym);
		n++;
	}
	EXPECT_EQ(2, n);
}

/* Every item from hardirq: those that need a task are left out. */
TEST_F(ext, items_in_hardirq)
{
	const struct ketw_event_header *h;
	char sym[256];
	struct items it;
	uint64_t first = 0;
	size_t off = 0;
	int bad = 0, n = 0, found, k;

	ASSERT_EQ(0, create(self->fd[0], S1, 0));
	ASSERT_EQ(0, enable_items(self->fd[0], S1, KETW_SAMPLE_NAME,
				  KETW_EXT_ALL));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_START, S1));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_irq"), "20"));
	ASSERT_EQ(0, sample_emit(1));	/* and one from the task */
	ASSERT_EQ(0, stop_drain(self->fd[0], S1, &self->d[0]));
	while ((h = next_record(&self->d[0], &off, &bad))) {
		if (!is_sample(h))
			continue;
		parse_items(h, &it);
		EXPECT_EQ(0, it.bad);
		if (h->thread_id) {
			/* The task's: every item but the activity. */
			EXPECT_EQ(KETW_EXT_ALL & ~BIT(ACTIVITY), it.mask);
			EXPECT_LE(1, it.nu);
			continue;
		}
		/* Hardirq: no task, so no user stack, CPU time or pid ns. */
		EXPECT_EQ(BIT(KSTACK) | BIT(PROG_ADDR), it.mask);
		EXPECT_EQ(it.prog_addr, it.kstack[0]);
		ASSERT_LE(2, it.nk);
		if (!n) {
			/*
			 * The timer function, or sample_emit_one() that it
			 * called (if not inlined) and then the timer's: a
			 * kallsyms read each, slow in an emulator.
			 */
			first = it.prog_addr;
			for (k = 0, found = 0; k < 2 && !found; k++)
				if (!ksym(it.kstack[k], sym, sizeof(sym)) &&
				    !strcmp(sym, "sample_irq_timer"))
					found = 1;
			EXPECT_EQ(1, found);
		}
		EXPECT_EQ(first, it.prog_addr);
		n++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(20, n);
}

/*
 * From NMI (the sample's emit_ctx=nmi: an NMI IPI to its own CPU): the
 * kernel stack and the program address, and nothing a task would give;
 * the stack runs through the sample's NMI handler.
 */
TEST_F(ext, items_in_nmi)
{
	const struct ketw_event_header *h;
	char sym[256];
	struct items it;
	size_t off = 0;
	int bad = 0, n = 0, found = 0, i, k;

	ASSERT_EQ(0, create(self->fd[0], S1, 0));
	ASSERT_EQ(0, enable_items(self->fd[0], S1, KETW_SAMPLE_NAME,
				  KETW_EXT_ALL));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_START, S1));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), "nmi"));
	ASSERT_EQ(0, stop_drain(self->fd[0], S1, &self->d[0]));
	while ((h = next_record(&self->d[0], &off, &bad))) {
		if (!is_sample(h) || KETW_RECORD_CTX(h->flags) != KETW_CTX_NMI)
			continue;
		parse_items(h, &it);
		EXPECT_EQ(0, it.bad);
		EXPECT_EQ(BIT(KSTACK) | BIT(PROG_ADDR), it.mask);
		EXPECT_EQ(it.prog_addr, it.kstack[0]);
		ASSERT_LE(2, it.nk);
		for (k = 0; k < 4 && k < (int)it.nk && !found; k++)
			if (!ksym(it.kstack[k], sym, sizeof(sym)) &&
			    !strcmp(sym, "sample_ctx_nmi"))
				found = 1;
		n++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(5, n);
	EXPECT_EQ(1, found) TH_LOG("sample_ctx_nmi not among the first frames");
}

/* ---- user providers -------------------------------------------------- */

static int uprov_session(int fd, const char *name, uint32_t items)
{
	int err = create(fd, name, 0);

	if (!err)
		err = enable_items(fd, name, KETW_USER_PREFIX UPROV, items);
	if (!err && ketw_ref(fd, KETW_IOC_START, name))
		err = -errno;
	return err;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Program addresses of the user provider's trace point: this function. */
static __attribute__((noinline)) int uemit(uint32_t v)
{
	return ketw_write(&uprov, &uev, &v, sizeof(v));
}

/*
 * The CPU-time difference between two events of a thread that spins
 * for a measured 300 ms of its own CPU time (CLOCK_THREAD_CPUTIME_ID):
 * runtime_ns within 12 ms (the scheduler brings it up to date at a tick
 * or a switch: one 4 ms tick at HZ=250 at each end, and the system calls
 * in between), kernel_ns + user_ns within 40 ms (tick-sampled: 2 ticks,
 * and an emulator's late ticks), and most of it user time.
 */
TEST_F(ext, cpu_time_across_a_spin)
{
	const struct ketw_event_header *h;
	struct items it[2];
	uint64_t t0, t1, spun, run, ticks;
	volatile uint64_t x = 0;
	size_t off = 0;
	int bad = 0, n = 0, i;

	ASSERT_EQ(0, ketw_provider_register(&uprov));
	ASSERT_EQ(0, uprov_session(self->fd[0], S1, BIT(CPU_TIME)));
	ASSERT_EQ(1, uemit(1));
	t0 = thread_cpu_ns();
	do {
		/* Mostly user time: a system call per 100k iterations. */
		for (i = 0; i < 100000; i++)
			x++;
	} while (thread_cpu_ns() - t0 < 300000000ull);
	t1 = thread_cpu_ns();
	ASSERT_EQ(1, uemit(2));
	spun = t1 - t0;
	ASSERT_EQ(0, stop_drain(self->fd[0], S1, &self->d[0]));
	while ((h = next_record(&self->d[0], &off, &bad))) {
		if (h->flags & KETW_RECORD_SYSTEM || !(h->flags & KETW_RECORD_USER))
			continue;
		ASSERT_GT(2, n);
		parse_items(h, &it[n]);
		ASSERT_EQ(BIT(CPU_TIME), it[n].mask);
		EXPECT_EQ((uint32_t)gettid(), h->thread_id);
		n++;
	}
	ASSERT_EQ(2, n);
	run = it[1].cpu.runtime_ns - it[0].cpu.runtime_ns;
	ticks = it[1].cpu.kernel_ns + it[1].cpu.user_ns -
		it[0].cpu.kernel_ns - it[0].cpu.user_ns;
	TH_LOG("spun %llu ns: runtime %llu, kernel+user %llu (user %llu)",
	       (unsigned long long)spun, (unsigned long long)run,
	       (unsigned long long)ticks,
	       (unsigned long long)(it[1].cpu.user_ns - it[0].cpu.user_ns));
	EXPECT_GT(12000000ll, llabs((long long)(run - spun)));
	EXPECT_GT(40000000ll, llabs((long long)(ticks - spun)));
	/*
	 * The spin is user code: most of the sampled time is user time.
	 * Which tick lands in the kernel is chance (a debug kernel's
	 * interrupts are slow), so this is a share, not a bound on the
	 * user time alone.
	 */
	EXPECT_LT(ticks * 3 / 4, it[1].cpu.user_ns - it[0].cpu.user_ns);
}

/*
 * A user provider's program address is its trace point (uemit()), and
 * its user stack starts where it entered the kernel, in this process's
 * code; the kernel stack is there too (the ioctl's).
 */
TEST_F(ext, user_prog_addr_and_stack)
{
	const struct ketw_event_header *h;
	struct items it;
	size_t off = 0;
	int bad = 0, n = 0;
	uint64_t fn = (uintptr_t)uemit;

	ASSERT_EQ(0, ketw_provider_register(&uprov));
	ASSERT_EQ(0, uprov_session(self->fd[0], S1,
				   BIT(PROG_ADDR) | BIT(USTACK) | BIT(KSTACK)));
	ASSERT_EQ(1, uemit(7));
	ASSERT_EQ(0, stop_drain(self->fd[0], S1, &self->d[0]));
	while ((h = next_record(&self->d[0], &off, &bad))) {
		if (h->flags & KETW_RECORD_SYSTEM)
			continue;
		parse_items(h, &it);
		EXPECT_EQ(BIT(PROG_ADDR) | BIT(USTACK) | BIT(KSTACK), it.mask);
		EXPECT_LT(fn, it.prog_addr);
		EXPECT_GT(fn + 256, it.prog_addr);
		ASSERT_LE(1, it.nu);
		/* The system call's return: user space, not the kernel. */
		EXPECT_GT(0x800000000000ull, it.ustack[0]);
		EXPECT_NE(0, it.ustack[0]);
		EXPECT_LE(1, it.nk);
		EXPECT_LT(0xffff800000000000ull, it.kstack[0]);
		n++;
	}
	EXPECT_EQ(1, n);
}

/* ---- pid namespaces -------------------------------------------------- */

/*
 * A process in a new pid namespace logs a kernel event (ketw_sample's
 * emit, in its context): its PID_NS item says pid 1 and tid 1 in a
 * namespace other than ours, while the header has its pid here.
 */
TEST_F(ext, pid_ns_of_a_container)
{
	const struct ketw_event_header *h;
	struct stat st;
	struct items it;
	pid_t child, grand = 0;
	size_t off = 0;
	int p[2], status, bad = 0, mine = 0, theirs = 0;

	/* The debug kernels are built without namespaces. */
	if (stat("/proc/self/ns/pid", &st) && errno == ENOENT)
		SKIP(return, "no pid namespaces in this kernel");
	ASSERT_EQ(0, stat("/proc/self/ns/pid", &st));
	ASSERT_EQ(0, create(self->fd[0], S1, 0));
	ASSERT_EQ(0, enable_items(self->fd[0], S1, KETW_SAMPLE_NAME,
				  BIT(PID_NS)));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_START, S1));
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pid_t g;

		if (unshare(CLONE_NEWPID))
			_exit(2);
		g = fork();
		if (g < 0)
			_exit(3);
		if (!g)
			_exit(getpid() == 1 && !sample_emit(1) ? 0 : 4);
		if (write(p[1], &g, sizeof(g)) != sizeof(g))
			_exit(5);
		if (waitpid(g, &status, 0) != g || !WIFEXITED(status))
			_exit(6);
		_exit(WEXITSTATUS(status));
	}
	close(p[1]);
	ASSERT_EQ(sizeof(grand), read(p[0], &grand, sizeof(grand)));
	close(p[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, sample_emit(1));
	ASSERT_EQ(0, stop_drain(self->fd[0], S1, &self->d[0]));
	while ((h = next_record(&self->d[0], &off, &bad))) {
		if (!is_sample(h))
			continue;
		parse_items(h, &it);
		ASSERT_EQ(BIT(PID_NS), it.mask);
		if (h->process_id == (uint32_t)grand) {
			EXPECT_EQ(1, it.ns.vpid);
			EXPECT_EQ(1, it.ns.vtid);
			EXPECT_NE(st.st_ino, it.ns.pid_ns_inum);
			EXPECT_NE(0, it.ns.pid_ns_inum);
			theirs++;
		} else if (h->process_id == (uint32_t)getpid()) {
			EXPECT_EQ((uint32_t)getpid(), it.ns.vpid);
			EXPECT_EQ(st.st_ino, it.ns.pid_ns_inum);
			mine++;
		}
	}
	EXPECT_EQ(1, theirs);
	EXPECT_EQ(1, mine);
}

/* ---- activities ------------------------------------------------------ */

static const uint8_t act_x[16] = { 0xaa, 1, 2, 3, 4, 5, 6, 7,
				   8, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t act_y[16] = { 0xbb, 1, 2, 3, 4, 5, 6, 7,
				   8, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t act_z[16] = { 0xcc, 1, 2, 3, 4, 5, 6, 7,
				   8, 9, 10, 11, 12, 13, 14, 15 };

static pid_t worker_tid;

/* A second thread: work Y, started by X. */
static void *worker(void *arg)
{
	uint32_t v = 2;

	(void)arg;
	worker_tid = gettid();
	ketw_write_activity(&uprov, &uev, act_y, act_x, &v, sizeof(v));
	v = 3;
	ketw_write_activity(&uprov, &uev, act_y, NULL, &v, sizeof(v));
	return NULL;
}

/*
 * ketw report --activity X prints X's records and those of Y, which X
 * started on another thread, and nothing of Z.
 */
TEST_F(ext, activity_followed_across_threads)
{
	char tid_x[32], tid_y[32];
	pthread_t t;
	uint32_t v = 1;

	ASSERT_EQ(0, ketw_provider_register(&uprov));
	ASSERT_EQ(0, uprov_session(self->fd[0], S1, BIT(ACTIVITY)));
	ASSERT_EQ(1, ketw_write_activity(&uprov, &uev, act_x, NULL, &v,
					 sizeof(v)));
	ASSERT_EQ(0, pthread_create(&t, NULL, worker, NULL));
	ASSERT_EQ(0, pthread_join(t, NULL));
	v = 4;
	ASSERT_EQ(1, ketw_write_activity(&uprov, &uev, act_x, NULL, &v,
					 sizeof(v)));
	v = 5;
	ASSERT_EQ(1, ketw_write_activity(&uprov, &uev, act_z, NULL, &v,
					 sizeof(v)));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_STOP, S1));
	ASSERT_EQ(0, run_cmd(TOOL " extract -s " S1 " -o /tmp/ext_act.ketw 2>&1 && "
			 TOOL " report -R --no-system --activity aa010203-0405-0607-0809-0a0b0c0d0e0f /tmp/ext_act.ketw 2>&1",
			 &self->out)) TH_LOG("%s", self->out);
	unlink("/tmp/ext_act.ketw");
	TH_LOG("%s", self->out);
	snprintf(tid_x, sizeof(tid_x), " tid=%d ", gettid());
	snprintf(tid_y, sizeof(tid_y), " tid=%d ", worker_tid);
	EXPECT_EQ(2, text_lines_with(self->out, tid_x));
	EXPECT_EQ(2, text_lines_with(self->out, tid_y));
	EXPECT_EQ(4, text_lines_with(self->out, "provider=user." UPROV " "));
	EXPECT_EQ(2, text_lines_with(self->out,
		"activity: bb010203-0405-0607-0809-0a0b0c0d0e0f"));
	EXPECT_EQ(1, text_lines_with(self->out,
		"related=aa010203-0405-0607-0809-0a0b0c0d0e0f"));
	EXPECT_EQ(0, text_lines_with(self->out, "cc010203"));
}

/* ---- ketwfs ------------------------------------------------------------ */

/* providers takes and shows items=; trace shows them compactly. */
TEST_F(ext, ketwfs_providers_items)
{
	char *text = NULL;
	int mounted = 0;
	struct stat st;

	if (stat(KFS "/sessions", &st)) {
		ASSERT_EQ(0, mount("none", KFS, "ketwfs", 0, NULL));
		mounted = 1;
	}
	ASSERT_EQ(0, create(self->fd[0], S1, 0));
	ASSERT_EQ(0, write_str(KFS "/sessions/" S1 "/providers",
			       KETW_SAMPLE_NAME " level=5 items=stack,progaddr"));
	EXPECT_NE(0, write_str(KFS "/sessions/" S1 "/providers",
			       KETW_SAMPLE_NAME " items=stak"));
	ASSERT_EQ(0, run_cmd("cat " KFS "/sessions/" S1 "/providers", &text));
	EXPECT_EQ(1, text_lines_with(text, KETW_SAMPLE_NAME
		" level=5 match_any=0x0 match_all=0x0 items=stack,progaddr"))
		TH_LOG("%s", text);
	free(text);
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_START, S1));
	ASSERT_EQ(0, sample_emit(1));
	ASSERT_EQ(0, ketw_ref(self->fd[0], KETW_IOC_STOP, S1));
	ASSERT_EQ(0, run_cmd("cat " KFS "/sessions/" S1 "/trace", &text));
	EXPECT_EQ(1, text_lines_with(text, " progaddr=0x")) TH_LOG("%s", text);
	EXPECT_EQ(1, text_lines_with(text, " stack=0x")) TH_LOG("%s", text);
	EXPECT_EQ(1, text_lines_with(text, "flags=0x100 stack=0x"));
	free(text);
	close(self->fd[0]);
	self->fd[0] = -1;
	ketw_cleanup(S1);
	if (mounted)
		umount(KFS);
}

TEST_HARNESS_MAIN
