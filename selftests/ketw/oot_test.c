// SPDX-License-Identifier: GPL-2.0
/*
 * ketw as "make install" delivers it, with a provider built outside its
 * tree: /ketw/stage is the root "make stage" staged on the host (make
 * install DESTDIR=, then samples/out-of-tree built from that root alone
 * and installed into it, depmod -b). Each case unloads the harness's
 * modules (/ketw/modules), loads ketw_oot with kmod's "modprobe -d
 * /ketw/stage", which must load the staged ketw.ko first, and at the end
 * removes both with "modprobe -r" and loads the harness's modules again.
 *
 * ketw_oot logs from a work item (task), a timer (softirq) and a hard
 * hrtimer (hardirq) on every CPU and counts its ketw_write() calls; per
 * CPU and context those counts must equal what the session holds, plus
 * what it counted lost. The staged tool records and reports it too.
 *
 * Skipped when the initramfs has no staged root for the running kernel
 * (make vm-check and vm-check-kasan/-kcsan stage one for theirs).
 */
#include "ketw_test.h"
#include <limits.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "../../samples/out-of-tree/ketw_oot.h"
#include "kselftest_harness.h"

#define SESSION		"oot_test"
#define TOOL_SESSION	"oot_tool"
#define MAX_CPUS	64
#define MAX_MODS	16
#define RUN_MS		"1000"
#define OOT_PARAM(p)	"/sys/module/ketw_oot/parameters/" p
#define MODPROBE	"/ketw/kmod/modprobe"
#define STAGED_TOOL	"/usr/local/bin/ketw"

static const uint8_t oot_guid[KETW_GUID_SIZE] = KETW_OOT_GUID_BYTES;
static const char *const ctx_name[KETW_OOT_NR_CTX] = {
	"work", "softirq", "hardirq",
};

static const char *stage_root(void)
{
	const char *s = getenv("KETW_STAGE");

	return s ? s : "/ketw/stage";
}

/*
 * Run @argv; its stdout and stderr go to @out (what does not fit is
 * read and dropped). Returns the exit status.
 */
static int run_argv(char *const argv[], char *out, size_t cap)
{
	char sink[4096];
	size_t len = 0;
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = len < cap - 1 ? read(p[0], out + len, cap - 1 - len) :
			 read(p[0], sink, sizeof(sink))) > 0)
		if (len < cap - 1)
			len += n;
	out[len] = 0;
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int modprobe(const char *opt, const char *mod, char *out, size_t cap)
{
	char *argv[] = { MODPROBE, "-d", (char *)stage_root(), (char *)opt,
			 (char *)mod, NULL };

	if (!opt[0]) {
		argv[3] = (char *)mod;
		argv[4] = NULL;
	}
	return run_argv(argv, out, cap);
}

/* The harness's modules, in load order (mod_dir()/modules), without ".ko". */
static int harness_modules(char mods[MAX_MODS][64])
{
	char path[PATH_MAX];
	FILE *f;
	char *dot;
	int n = 0;

	snprintf(path, sizeof(path), "%s/modules", mod_dir());
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (n < MAX_MODS && fscanf(f, "%63s", mods[n]) == 1) {
		dot = strstr(mods[n], ".ko");
		if (dot)
			*dot = 0;
		n++;
	}
	fclose(f);
	return n;
}

/* Unload them, last loaded first. */
static int harness_unload(void)
{
	char mods[MAX_MODS][64];
	int n = harness_modules(mods), err;

	while (n-- > 0) {
		char name[64];

		snprintf(name, sizeof(name), "%.63s", mods[n]);
		if (!mod_loaded(name))
			continue;
		err = mod_unload(name);
		if (err)
			return err;
	}
	return 0;
}

/* Load those not loaded, in order. */
static int harness_reload(void)
{
	char mods[MAX_MODS][64];
	char file[80];
	int n = harness_modules(mods), i, ret;

	for (i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%.63s", mods[i]);
		if (mod_loaded(name))
			continue;
		snprintf(file, sizeof(file), "%.63s.ko", name);
		ret = mod_load(file, "");
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Swap the harness's modules for the staged ones. Fails the test unless
 * modprobe -d resolves ketw_oot to the staged files, ketw first, and
 * loads both. Returns 1 if the stage is there (0: the caller skips).
 */
static int use_stage(struct __test_metadata *_metadata, int *swapped)
{
	char deps[PATH_MAX], want[2][PATH_MAX], out[4096], *l2;
	struct utsname u;
	struct stat st;

	ASSERT_EQ(0, uname(&u));
	snprintf(deps, sizeof(deps), "%s/lib/modules/%s/modules.dep",
		 stage_root(), u.release);
	if (stat(deps, &st))
		return 0;
	ASSERT_EQ(0, stat(MODPROBE, &st)) TH_LOG("no kmod in the guest");

	/* modules.dep, from depmod -b on the host: ketw, then the provider. */
	snprintf(want[0], sizeof(want[0]), "insmod %s/lib/modules/%s/updates/ketw.ko ",
		 stage_root(), u.release);
	snprintf(want[1], sizeof(want[1]), "insmod %s/lib/modules/%s/extra/ketw_oot.ko ",
		 stage_root(), u.release);
	ASSERT_EQ(0, modprobe("--show-depends", "ketw_oot", out, sizeof(out)))
		TH_LOG("%s", out);
	l2 = strchr(out, '\n');
	ASSERT_NE(NULL, l2) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(out, want[0], strlen(want[0]))) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(l2 + 1, want[1], strlen(want[1]))) TH_LOG("%s", out);

	*swapped = 1;
	ASSERT_EQ(0, harness_unload());
	ASSERT_FALSE(mod_loaded("ketw"));
	ASSERT_EQ(0, modprobe("", "ketw_oot", out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_TRUE(mod_loaded("ketw"));
	ASSERT_TRUE(mod_loaded("ketw_oot"));
	/* A provider holds ketw: providers are unloaded first. */
	EXPECT_EQ(-EAGAIN, mod_unload("ketw"));
	return 1;
}

/* Remove the staged modules, load the harness's again. */
static void leave_stage(struct __test_metadata *_metadata)
{
	char out[4096];

	if (mod_loaded("ketw_oot")) {
		EXPECT_EQ(0, modprobe("-r", "ketw_oot", out, sizeof(out)))
			TH_LOG("%s", out);
	}
	/* modprobe -r took ketw with it: nothing else used it. */
	EXPECT_FALSE(mod_loaded("ketw_oot"));
	EXPECT_FALSE(mod_loaded("ketw"));
	if (mod_loaded("ketw") && !mod_loaded("ketw_oot"))
		mod_unload("ketw");
	EXPECT_EQ(0, harness_reload());
	EXPECT_TRUE(mod_loaded("ketw"));
}

#define USE_STAGE() do {						\
	if (!use_stage(_metadata, &self->swapped))			\
		SKIP(return, "no staged root in %s for this kernel",	\
		     stage_root());					\
} while (0)

/* Per CPU and context: ketw_oot's ketw_write() calls of the last run. */
static int read_emitted(uint64_t e[MAX_CPUS][KETW_OOT_NR_CTX])
{
	FILE *f = fopen(OOT_PARAM("emitted"), "r");
	unsigned long long w, s, h;
	int cpu, n = 0;

	if (!f)
		return -errno;
	memset(e, 0, MAX_CPUS * sizeof(e[0]));
	while (fscanf(f, "%d %llu %llu %llu", &cpu, &w, &s, &h) == 4) {
		if (cpu < 0 || cpu >= MAX_CPUS)
			continue;
		e[cpu][KETW_OOT_CTX_WORK] = w;
		e[cpu][KETW_OOT_CTX_SOFTIRQ] = s;
		e[cpu][KETW_OOT_CTX_HARDIRQ] = h;
		n++;
	}
	fclose(f);
	return n;
}

FIXTURE(oot) {
	int fd;
	int swapped;
};

/* A FLUSH session nobody reads until the run is over. */
FIXTURE_VARIANT(oot) {
	uint32_t buffer_kb;
	int lossy;
};

/* 1 MiB per CPU: room for the whole run, nothing lost. */
FIXTURE_VARIANT_ADD(oot, keeps_all) { .buffer_kb = 1024 };
/* One page per CPU: full within milliseconds, the rest counted lost. */
FIXTURE_VARIANT_ADD(oot, loses_some) { .buffer_kb = 4, .lossy = 1 };

FIXTURE_SETUP(oot)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	self->fd = -1;
}

FIXTURE_TEARDOWN(oot)
{
	if (self->fd >= 0) {
		ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
		close(self->fd);
	}
	if (self->swapped)
		leave_stage(_metadata);
}

struct oot_count {
	uint64_t got[KETW_OOT_NR_CTX];
	uint64_t next[KETW_OOT_NR_CTX];
	uint64_t system;
	uint64_t bad;
	int start_seen, stop_seen;
};

static void count_record(const struct ketw_event_header *h,
			 struct oot_count *c)
{
	const struct ketw_oot_ev *ev = (const void *)(h + 1);

	if (h->flags & KETW_RECORD_SYSTEM) {
		c->system++;
		c->start_seen += h->event_id == KETW_SYS_START;
		c->stop_seen += h->event_id == KETW_SYS_STOP;
		return;
	}
	if (memcmp(h->provider_guid, oot_guid, KETW_GUID_SIZE) ||
	    h->size != KETW_EVENT_HEADER_SIZE + sizeof(*ev) ||
	    ev->ctx >= KETW_OOT_NR_CTX || ev->ctx != h->event_id ||
	    ev->cpu != h->cpu || ev->counter < c->next[ev->ctx]) {
		c->bad++;
		return;
	}
	/* Each context's counter only goes up: none twice, none reordered. */
	c->next[ev->ctx] = ev->counter + 1;
	c->got[ev->ctx]++;
}

TEST_F_TIMEOUT(oot, every_context_accounted, 180)
{
	static struct oot_count c[MAX_CPUS];
	uint64_t emitted[MAX_CPUS][KETW_OOT_NR_CTX];
	uint64_t all_lost = 0, all_got = 0;
	struct drained d = { 0 };
	struct ketw_session_attr a;
	struct ketw_cpu_stats st;
	const struct ketw_event_header *h;
	int cpu, k, ncpus, bad = 0;
	size_t off = 0;

	USE_STAGE();
	memset(c, 0, sizeof(c));
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&a, SESSION);
	a.buffer_kb = variant->buffer_kb;
	a.policy = KETW_POLICY_FLUSH;
	/* START and STOP from CPU 0, so that the test knows where they are. */
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, ioctl(self->fd, KETW_IOC_CREATE, &a));
	ASSERT_EQ(0, ketw_enable(self->fd, SESSION, KETW_OOT_NAME, NULL,
				 0, 0, 0, NULL, 0, 0));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_START, SESSION));
	ASSERT_EQ(0, write_str(OOT_PARAM("run_ms"), RUN_MS));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ncpus = read_emitted(emitted);
	ASSERT_EQ((int)a.nr_cpus, ncpus);
	ASSERT_GE(MAX_CPUS, ncpus);
	ASSERT_EQ(0, drain(self->fd, &d));
	while ((h = next_record(&d, &off, &bad))) {
		if (h->flags & KETW_RECORD_PADDING)
			continue;
		ASSERT_GT(ncpus, (int)h->cpu);
		count_record(h, &c[h->cpu]);
	}
	ASSERT_EQ(0, bad);

	for (cpu = 0; cpu < ncpus; cpu++) {
		uint64_t sent = 0, got = 0, sys_sent, lost;

		ASSERT_EQ(0, cpu_stats(self->fd, SESSION, cpu, &st));
		lost = st.lost_full + st.lost_busy + st.lost_nested;
		TH_LOG("cpu%d: work %llu/%llu softirq %llu/%llu hardirq %llu/%llu (held/emitted), system %llu, lost %llu",
		       cpu,
		       (unsigned long long)c[cpu].got[0], (unsigned long long)emitted[cpu][0],
		       (unsigned long long)c[cpu].got[1], (unsigned long long)emitted[cpu][1],
		       (unsigned long long)c[cpu].got[2], (unsigned long long)emitted[cpu][2],
		       (unsigned long long)c[cpu].system, (unsigned long long)lost);
		EXPECT_EQ(0, c[cpu].bad);
		for (k = 0; k < KETW_OOT_NR_CTX; k++) {
			/* Every context logged on every CPU. */
			EXPECT_LT(0, emitted[cpu][k]) TH_LOG("cpu%d %s", cpu, ctx_name[k]);
			EXPECT_GE(emitted[cpu][k], c[cpu].got[k]);
			if (!variant->lossy)
				EXPECT_EQ(emitted[cpu][k], c[cpu].got[k])
					TH_LOG("cpu%d %s", cpu, ctx_name[k]);
			sent += emitted[cpu][k];
			got += c[cpu].got[k];
		}
		/* START and STOP, both on CPU 0 (NO_RUNDOWN: nothing else). */
		sys_sent = cpu == 0 ? 2 : 0;
		/* Every call took a sequence number here ... */
		EXPECT_EQ(sent + sys_sent, st.sequence);
		/* ... and is held or counted lost: nothing went unaccounted. */
		EXPECT_EQ(sent + sys_sent, got + c[cpu].system + lost);
		EXPECT_EQ(st.written, got + c[cpu].system);
		EXPECT_EQ(0, st.overwritten);
		EXPECT_EQ(cpu == 0, c[cpu].start_seen);
		if (!variant->lossy) {
			EXPECT_EQ(0, lost);
			EXPECT_EQ(cpu == 0, c[cpu].stop_seen);
		}
		all_lost += lost;
		all_got += got;
	}
	EXPECT_LT(0, all_got);
	if (variant->lossy)
		EXPECT_LT(0, all_lost);
	free(d.buf);
}

/* How many lines of @text contain both @a and @b. */
static int count_lines(const char *text, const char *a, const char *b)
{
	const char *l = text, *e;
	char line[512];
	int n = 0;
	size_t len;

	for (; *l; l = *e ? e + 1 : e) {
		e = strchrnul(l, '\n');
		len = e - l < (long)sizeof(line) - 1 ? (size_t)(e - l) : sizeof(line) - 1;
		memcpy(line, l, len);
		line[len] = 0;
		n += strstr(line, a) && strstr(line, b);
	}
	return n;
}

static int session_state(const char *name)
{
	struct ketw_session_status s;
	int fd = ketw_open(), ret;

	if (fd < 0)
		return -errno;
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	snprintf(s.name, sizeof(s.name), "%s", name);
	ret = ioctl(fd, KETW_IOC_STATUS, &s) ? -errno : (int)s.state;
	close(fd);
	return ret;
}

FIXTURE(staged) {
	int swapped;
	pid_t rec;
	char *out;
};

FIXTURE_SETUP(staged)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV);

	self->rec = -1;
	self->out = malloc(1 << 22);
	ASSERT_NE(NULL, self->out);
}

FIXTURE_TEARDOWN(staged)
{
	if (self->rec > 0) {
		kill(self->rec, SIGKILL);
		waitpid(self->rec, NULL, 0);
		ketw_cleanup(TOOL_SESSION);
	}
	if (self->swapped)
		leave_stage(_metadata);
	free(self->out);
}

/*
 * README's "On a test machine", with the staged tool: list, record while
 * ketw_oot runs, report. Every event it logged is in the report.
 */
TEST_F_TIMEOUT(staged, tool_records_and_reports, 180)
{
	char tool[PATH_MAX], file[] = "/tmp/oot.ketw";
	uint64_t emitted[MAX_CPUS][KETW_OOT_NR_CTX], sent;
	int cpu, k, n, i, st;

	USE_STAGE();
	snprintf(tool, sizeof(tool), "%s" STAGED_TOOL, stage_root());

	{
		char *argv[] = { tool, "list", "-p", KETW_OOT_NAME, NULL };

		ASSERT_EQ(0, run_argv(argv, self->out, 1 << 22));
		EXPECT_NE(NULL, strstr(self->out, KETW_OOT_NAME)) TH_LOG("%s", self->out);
		EXPECT_NE(NULL, strstr(self->out, "hardirq")) TH_LOG("%s", self->out);
	}

	unlink(file);
	self->rec = fork();
	ASSERT_LE(0, self->rec);
	if (!self->rec) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl(tool, tool, "record", "-s", TOOL_SESSION, "-p", KETW_OOT_NAME,
		      "-o", file, (char *)NULL);
		_exit(127);
	}
	/* Until record has started its session. */
	for (i = 0; i < 300 && session_state(TOOL_SESSION) != KETW_STATE_RUNNING; i++)
		usleep(100000);
	ASSERT_EQ(KETW_STATE_RUNNING, session_state(TOOL_SESSION));
	ASSERT_EQ(0, write_str(OOT_PARAM("run_ms"), "500"));
	/* Ctrl-C: record stops, drains, writes the file, removes the session. */
	ASSERT_EQ(0, kill(self->rec, SIGINT));
	ASSERT_EQ(self->rec, waitpid(self->rec, &st, 0));
	self->rec = -1;
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	n = read_emitted(emitted);
	ASSERT_LT(0, n);

	{
		char *argv[] = { tool, "report", file, NULL };

		ASSERT_EQ(0, run_argv(argv, self->out, 1 << 22));
	}
	for (k = 0; k < KETW_OOT_NR_CTX; k++) {
		char ev[32];

		for (sent = 0, cpu = 0; cpu < n; cpu++)
			sent += emitted[cpu][k];
		snprintf(ev, sizeof(ev), " event=%s ", ctx_name[k]);
		TH_LOG("%s: emitted %llu, reported %d", ctx_name[k], (unsigned long long)sent,
		       count_lines(self->out, "provider=" KETW_OOT_NAME " ", ev));
		EXPECT_LT(0, sent);
		/* record drains a 1 MiB LOOP session every 100 ms: no loss. */
		EXPECT_EQ((int)sent, count_lines(self->out, "provider=" KETW_OOT_NAME " ", ev))
			TH_LOG("%s", ctx_name[k]);
	}
}

TEST_HARNESS_MAIN
