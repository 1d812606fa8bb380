// SPDX-License-Identifier: GPL-2.0
/*
 * The ketw tool against the real module: record while the sample provider
 * logs, then report with a format template; the decoded text must be
 * exactly what the sample logged. ketw record writes as it goes, in flat
 * memory, leaves a readable file and no session when it is killed, and
 * stops cleanly on SIGINT, SIGTERM and SIGHUP whenever they come.
 */
#include "ketw_test.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define TOOL	"/ketw/ketw"
#define SESSION	"tool_test"

static const char template_text[] =
	"provider ketw-sample\n"
	"1 L=KERN \"tick\" \"index=\" U4 \" magic=\" X4 \" value=\" U8\n"
	"2 L=APPL \"warn\" \"index=\" U4 \" code=\" U4 \" text=\" A0\n";

static int cpu_stats_of(const char *name)
{
	struct ketw_cpu_stats st;
	int fd = ketw_open(), err;

	if (fd < 0)
		return -errno;
	err = cpu_stats(fd, name, 0, &st);
	close(fd);
	return err;
}

FIXTURE(tool) {
	char *out;
};

FIXTURE_SETUP(tool)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	KETW_REQUIRE_PATH(TOOL, X_OK, "the ketw tool, which the harness packs");

	ketw_cleanup(SESSION);
	self->out = NULL;
}

FIXTURE_TEARDOWN(tool)
{
	ketw_cleanup(SESSION);
	free(self->out);
}

TEST_F_TIMEOUT(tool, record_then_report_with_template, 60)
{
	char line[256];
	int fd, i, st;
	FILE *rec;

	fd = open("/tmp/sample.tmpl", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(template_text),
		  write(fd, template_text, strlen(template_text)));
	close(fd);

	/* Record for 3 s in the background while the sample logs. */
	rec = popen(TOOL " record -s " SESSION " -p ketw-sample -d 3"
		    " -o /tmp/tool.ketw 2>&1", "r");
	ASSERT_NE(NULL, rec);
	usleep(1500000);
	ASSERT_EQ(0, sample_emit(3));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_warn"), "2"));
	while (fgets(line, sizeof(line), rec))
		fputs(line, stderr);
	st = pclose(rec);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	/* record removed its session. */
	EXPECT_EQ(-ENOENT, cpu_stats_of(SESSION));
	ASSERT_EQ(0, run_cmd(TOOL " report -R -t /tmp/sample.tmpl /tmp/tool.ketw 2>&1",
			 &self->out)) TH_LOG("%s", self->out);

	/* tick i: value 3i + 1; warn i: code 5i, text "warning". */
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line),
			 "tick index=%d magic=6b657477 value=%d\n", i, 3 * i + 1);
		EXPECT_EQ(1, count_of(self->out, line))
			TH_LOG("'%s' not once in:\n%s", line, self->out);
	}
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line),
			 "warn index=%d code=%d text=warning\n", i, 5 * i);
		EXPECT_EQ(1, count_of(self->out, line))
			TH_LOG("'%s' not once in:\n%s", line, self->out);
	}
	EXPECT_EQ(3, count_of(self->out, "tick index="));
	EXPECT_EQ(2, count_of(self->out, "warn index="));
	/*
	 * Payload lines are indented by 4, plus the template's column:
	 * L=KERN 8, L=APPL 0 (Documentation/ketw-templates.rst).
	 */
	EXPECT_EQ(3, count_of(self->out, "\n            tick index="));
	EXPECT_EQ(2, count_of(self->out, "\n    warn index="));
}

/* The line of @text that holds @needle, copied to @buf; NULL if none. */
static char *line_with(const char *text, const char *needle, char *buf,
		       size_t len)
{
	const char *p = strstr(text, needle), *b, *e;

	if (!p)
		return NULL;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchrnul(p, '\n');
	snprintf(buf, len, "%.*s", (int)(e - b), b);
	return buf;
}

/*
 * The context of each record, recorded by the tool: ketw_sample logs a
 * tick from a hard interrupt, from an NMI and under preempt_disable()
 * (emit_ctx); report shows its latency column on the record's line and
 * --json the context's fields.
 */
TEST_F_TIMEOUT(tool, report_shows_context, 60)
{
	char line[1024], *rec_line, *p;
	FILE *rec;
	int st;

	rec = popen(TOOL " record -s " SESSION " -p ketw-sample -d 3"
		    " -o /tmp/ctx.ketw 2>&1", "r");
	ASSERT_NE(NULL, rec);
	usleep(1500000);
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), "hardirq"));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), "nmi"));
	ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), "preempt"));
	while (fgets(line, sizeof(line), rec))
		fputs(line, stderr);
	st = pclose(rec);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));

	ASSERT_EQ(0, run_cmd(TOOL " report --json -R /tmp/ctx.ketw 2>&1",
			 &self->out)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, line_with(self->out, "\"index\":1005,", line,
				  sizeof(line))) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(line, "\"context\":\"hardirq\",\"irqs_off\":true,"))
		TH_LOG("%s", line);
	ASSERT_NE(NULL, line_with(self->out, "\"index\":1006,", line,
				  sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "\"context\":\"nmi\",\"irqs_off\":true,"))
		TH_LOG("%s", line);
	ASSERT_NE(NULL, line_with(self->out, "\"index\":1001,", line,
				  sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "\"context\":\"task\",\"irqs_off\":false,"))
		TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "\"preempt\":1,")) TH_LOG("%s", line);
	free(self->out);
	self->out = NULL;

	/* Text: the record's line, just before its decoded fields. */
	ASSERT_EQ(0, run_cmd(TOOL " report -R /tmp/ctx.ketw 2>&1", &self->out))
		TH_LOG("%s", self->out);
	p = strstr(self->out, "\n    index=1005 ");
	ASSERT_NE(NULL, p) TH_LOG("%s", self->out);
	*p = '\0';
	rec_line = strrchr(self->out, '\n');
	ASSERT_NE(NULL, rec_line);
	/* 'd', need-resched either way, 'h', any depth. */
	EXPECT_TRUE(strstr(rec_line, " ctx=d.h") || strstr(rec_line, " ctx=dNh"))
		TH_LOG("%s", rec_line);
	*p = '\n';
	p = strstr(self->out, "\n    index=1006 ");
	ASSERT_NE(NULL, p);
	*p = '\0';
	rec_line = strrchr(self->out, '\n');
	EXPECT_TRUE(strstr(rec_line, " ctx=d.z") || strstr(rec_line, " ctx=dNz"))
		TH_LOG("%s", rec_line);
	*p = '\n';
}

/*
 * ketw log, a user-space provider through libketw: what the session's
 * filter takes is stored, and the report decodes it by the rundown the
 * provider's registration logged.
 */
TEST_F_TIMEOUT(tool, log_as_user_provider, 60)
{
	ASSERT_EQ(0, run_cmd(TOOL " start -s " SESSION " -p user.tool-log:warning 2>&1",
			 &self->out)) TH_LOG("%s", self->out);
	free(self->out);
	/* Above the session's level: no system call, nothing stored. */
	ASSERT_EQ(0, run_cmd(TOOL " log -l info tool-log not taken 2>&1", &self->out))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "user.tool-log: 1 event, 0 stored"))
		TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, run_cmd("printf 'one\\ntwo words\\n' | " TOOL
			 " log -l warning -k 0x4 -i 5 -e line tool-log 2>&1",
			 &self->out)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "user.tool-log: 2 events, 2 stored"))
		TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, run_cmd(TOOL " stop -s " SESSION " 2>&1 && " TOOL " extract -s "
			 SESSION " -o /tmp/log.ketw 2>&1 && " TOOL
			 " report /tmp/log.ketw 2>&1", &self->out))
		TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_of(self->out, "EVENT_DESC user.tool-log id=5 line"))
		TH_LOG("%s", self->out);
	EXPECT_EQ(2, count_of(self->out, "provider=user.tool-log type=INFO level=WARNING ver=0 id=5 event=line kw=0x4 "))
		TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_of(self->out, "    text=\"one\"\n"));
	EXPECT_EQ(1, count_of(self->out, "    text=\"two words\"\n"));
	EXPECT_EQ(0, count_of(self->out, "not taken"));
	free(self->out);
	/* Usage errors. */
	EXPECT_EQ(2, run_cmd(TOOL " log 2>&1", &self->out));
	free(self->out);
	EXPECT_EQ(2, run_cmd(TOOL " log -e 'a b' x y 2>&1", &self->out));
}

/* ---- ketw record as a process: memory, signals, SIGKILL ---------------- */

#define REC_FILE	"/tmp/rec.ketw"

/*
 * Start "ketw record -s SESSION -o REC_FILE" and @extra (NULL-ended) with
 * stdout and stderr to /tmp/rec.log; @block: with SIGINT, SIGTERM and
 * SIGHUP blocked across the exec (pending ones come when ketw unblocks
 * them). Returns the pid, or -1.
 */
static pid_t record_spawn(const char *const *extra, int block)
{
	const char *argv[32] = { TOOL, "record", "-s", SESSION, "-o",
				 REC_FILE };
	unsigned int n = 6;
	sigset_t set, old;
	pid_t pid;
	int fd;

	while (*extra && n < 31)
		argv[n++] = *extra++;
	argv[n] = NULL;
	/* Blocked before the fork: a signal sent at once finds them so. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (block)
		sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid) {
		if (block)
			sigprocmask(SIG_SETMASK, &old, NULL);
		return pid;
	}
	fd = open("/tmp/rec.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execv(TOOL, (char **)argv);
	_exit(127);
}

/* waitpid() for at most @ms; the status, or -1 (then it is killed). */
static int record_wait(pid_t pid, int ms)
{
	int st;

	for (; ms > 0; ms -= 10) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* VmRSS and VmHWM of @pid in KiB; 0 or -1. */
static int vm_of(pid_t pid, long *rss, long *hwm)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*rss = *hwm = -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", rss);
		sscanf(line, "VmHWM: %ld", hwm);
	}
	fclose(f);
	return *rss < 0 || *hwm < 0 ? -1 : 0;
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Wait up to 10 s for record's "running" line; 1 if it came. */
static int record_running(void)
{
	char buf[4096];
	int i, fd;
	ssize_t n;

	for (i = 0; i < 10000; i++) {
		fd = open("/tmp/rec.log", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				buf[n] = '\0';
				if (strstr(buf, "session " SESSION ": running"))
					return 1;
			}
		}
		usleep(1000);
	}
	return 0;
}

static void *stress_run(void *arg)
{
	write_str("/sys/module/ketw_stress/parameters/run_ms", arg);
	return NULL;
}

/*
 * ketw_stress logging every 50 us from every context on both CPUs: the
 * recorder's memory 2 s after its first write to the file and 18 s later
 * is the same, give or take its buffers' pages first touched late (a
 * fixed slack), while the file on disk grows all along. Before, record
 * kept everything in memory (~2 MB/s) and wrote nothing until it stopped.
 */
#define FLAT_SLACK_KB	1536

TEST_F_TIMEOUT(tool, record_memory_is_flat, 120)
{
	static const char *const args[] = { "-p", "ketw-stress", "-b", "256",
					     NULL };
	long rss1, hwm1, rss2, hwm2;
	long long size1, size2;
	int st, first;
	pthread_t t;
	pid_t pid;

	KETW_REQUIRE(KETW_NEED_STRESS);
	ASSERT_EQ(0, write_str("/sys/module/ketw_stress/parameters/period_us",
			       "50"));
	unlink(REC_FILE);
	unlink("/tmp/rec.log");
	ASSERT_EQ(0, pthread_create(&t, NULL, stress_run, "30000"));
	pid = record_spawn(args, 0);
	ASSERT_LT(0, pid);
	/*
	 * From its first write to the file (a slow guest takes a while to
	 * start it, and a loaded debug one to write): up to 8 s, so that
	 * both samples fall inside the stress run's 30 s.
	 */
	EXPECT_EQ(1, record_running());
	for (first = 0; first < 800 && file_size(REC_FILE) <= 0; first++)
		usleep(10000);
	ASSERT_LT(0, file_size(REC_FILE))
		TH_LOG("nothing on disk %d ms after the session started",
		       first * 10);
	sleep(2);
	ASSERT_EQ(0, vm_of(pid, &rss1, &hwm1));
	size1 = file_size(REC_FILE);
	sleep(18);
	ASSERT_EQ(0, vm_of(pid, &rss2, &hwm2));
	size2 = file_size(REC_FILE);
	kill(pid, SIGINT);
	st = record_wait(pid, 30000);
	pthread_join(t, NULL);
	write_str("/sys/module/ketw_stress/parameters/period_us", "1000");
	TH_LOG("record's first write at %d ms; 2 s later: VmRSS %ld KiB, VmHWM %ld KiB, file %lld bytes; 18 s after that: VmRSS %ld KiB, VmHWM %ld KiB, file %lld bytes",
	       first * 10, rss1, hwm1, size1, rss2, hwm2, size2);
	ASSERT_TRUE(st >= 0 && WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_LE(hwm2, hwm1 + FLAT_SLACK_KB);
	EXPECT_LE(rss2, rss1 + FLAT_SLACK_KB);
	/* Written as it went: much more on disk 18 s later. */
	EXPECT_LT(0, size1);
	EXPECT_LT(size1 * 4, size2);
	EXPECT_EQ(0, run_cmd(TOOL " report -H " REC_FILE " 2>&1", &self->out))
		TH_LOG("%s", self->out);
}

/*
 * SIGKILL: the kernel removes the session with the recorder's file (it
 * was created KETW_SESSION_OWNED), and the file holds every record of
 * the passes before the kill; report says it is truncated (exit 3).
 * --detach: the session outlives the recorder, as it asked.
 */
TEST_F_TIMEOUT(tool, record_killed_leaves_file_and_no_session, 60)
{
	static const char *const args[] = { "-p", "ketw-sample", NULL };
	static const char *const detached[] = { "-p", "ketw-sample",
						"--detach", NULL };
	int st, i;
	pid_t pid;

	for (i = 0; i < 3; i++) {
		unlink(REC_FILE);
		pid = record_spawn(args, 0);
		ASSERT_LT(0, pid);
		usleep(800000);
		ASSERT_EQ(0, sample_emit(5));
		usleep(600000);	/* a pass or more: on disk */
		kill(pid, SIGKILL);
		st = record_wait(pid, 10000);
		ASSERT_TRUE(st >= 0 && WIFSIGNALED(st));
		EXPECT_EQ(-ENOENT, cpu_stats_of(SESSION))
			TH_LOG("round %d: session left behind", i);
		free(self->out);
		self->out = NULL;
		EXPECT_EQ(3, run_cmd(TOOL " report -R " REC_FILE " 2>&1",
				 &self->out)) TH_LOG("%s", self->out);
		EXPECT_NE(NULL, strstr(self->out, "truncated at byte "))
			TH_LOG("%s", self->out);
		EXPECT_EQ(5, count_of(self->out, " event=tick "))
			TH_LOG("%s", self->out);
	}
	pid = record_spawn(detached, 0);
	ASSERT_LT(0, pid);
	usleep(800000);
	kill(pid, SIGKILL);
	st = record_wait(pid, 10000);
	ASSERT_TRUE(st >= 0 && WIFSIGNALED(st));
	EXPECT_EQ(0, cpu_stats_of(SESSION));	/* the fixture removes it */
}

/*
 * SIGINT, SIGTERM and SIGHUP: pending before ketw runs (blocked across
 * the exec), at once and within 60 ms of the spawn, and right after the
 * session exists (its "running" line) up to well into the recording.
 * Each ends it cleanly: exit 0, a complete file, no session. Only a
 * signal that comes before ketw's main() (unblocked, early) may kill
 * it; then it has made neither a session nor a file. Before, SIGHUP
 * killed it (129) leaving the session running and no file, and SIGINT
 * or SIGTERM between the session's creation and the handlers did too.
 */
TEST_F_TIMEOUT(tool, record_stops_cleanly_on_signals, 400)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	/* < 0: blocked at exec; 1000000 + N: N us after "running". */
	static const int delays_us[] = { -1, 0, 1000, 5000, 20000, 60000,
					 1000000, 1000100, 1001000, 1010000,
					 1100000, 1300000 };
	static const char *const args[] = { "-p", "ketw-sample", "-d", "60",
					    NULL };
	unsigned int i, j, clean = 0, early = 0;
	int st, d, after, block;
	pid_t pid;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < sizeof(delays_us) / sizeof(delays_us[0]); j++) {
			d = delays_us[j];
			block = d < 0;
			after = d >= 1000000;
			unlink(REC_FILE);
			unlink("/tmp/rec.log");
			pid = record_spawn(args, block);
			ASSERT_LT(0, pid);
			if (after) {
				EXPECT_EQ(1, record_running());
				d -= 1000000;
			}
			if (d > 0)
				usleep(d);
			kill(pid, sigs[i]);
			st = record_wait(pid, 20000);
			ASSERT_LE(0, st) TH_LOG("signal %d, delay %d: hung",
						sigs[i], delays_us[j]);
			TH_LOG("signal %d, delay %d us%s: %s %d", sigs[i], d,
			       block ? " (blocked at exec)" :
			       after ? " after the session exists" : "",
			       WIFSIGNALED(st) ? "killed by" : "exit",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			EXPECT_EQ(-ENOENT, cpu_stats_of(SESSION))
				TH_LOG("signal %d, delay %d: session left",
				       sigs[i], delays_us[j]);
			if (WIFSIGNALED(st) && !block && !after) {
				/* Before main(): nothing made. */
				EXPECT_EQ(WTERMSIG(st), sigs[i]);
				EXPECT_EQ(-1, file_size(REC_FILE))
					TH_LOG("signal %d, delay %d: killed, a file left",
					       sigs[i], delays_us[j]);
				early++;
				continue;
			}
			ASSERT_TRUE(WIFEXITED(st))
				TH_LOG("signal %d, delay %d: killed",
				       sigs[i], delays_us[j]);
			EXPECT_EQ(0, WEXITSTATUS(st));
			free(self->out);
			self->out = NULL;
			EXPECT_EQ(0, run_cmd(TOOL " report -H " REC_FILE " 2>&1",
					 &self->out))
				TH_LOG("signal %d, delay %d: %s", sigs[i],
				       delays_us[j], self->out);
			clean++;
		}
	}
	TH_LOG("%u clean stops, %u killed before ketw's main()", clean, early);
}

/* Errors name the problem and use the documented exit codes. */
TEST_F(tool, errors_and_exit_codes)
{
	EXPECT_EQ(1, run_cmd(TOOL " stop -s no_such_session 2>&1", &self->out));
	EXPECT_NE(NULL, strstr(self->out, "no_such_session")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, run_cmd(TOOL " start -b 12x 2>&1", &self->out));
	EXPECT_NE(NULL, strstr(self->out, "12x")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(1, run_cmd(TOOL " report /tmp/does-not-exist.ketw 2>&1", &self->out));
}

/* The line of @name in `ketw status`'s table, or NULL. */
static const char *table_line(const char *out, const char *name, char *buf,
			      size_t len)
{
	const char *p = out;
	size_t n = strlen(name);

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, name, n) && p[n] == ' ') {
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return buf;
		}
	}
	return NULL;
}

/*
 * ketw status without -s: every session in a table, three policies and
 * their states, providers, readers and totals; --json the same.
 */
TEST_F_TIMEOUT(tool, status_lists_all_sessions, 60)
{
	static const char *const expect[] = {
		"st_loop +running +loop +mono +8 KiB +1 +[0-9]+ +0 +0$",
		"st_full +created +until-full +boot +16 KiB +all +0 +0 +0$",
		"st_flush +suspended +flush +local +1 MiB +all +[0-9]+ +0 +0$",
	};
	static const char *const names[] = { "st_loop", "st_full", "st_flush" };
	char line[512], cmd[640];
	int i;

	for (i = 0; i < 3; i++)
		ketw_cleanup(names[i]);
	ASSERT_EQ(0, run_cmd(TOOL " start -s st_loop -b 8 -P loop -p ketw-sample 2>&1 && "
			 TOOL " start -s st_flush -b 1024 -P flush -C local 2>&1 && "
			 TOOL " stop -s st_flush 2>&1", &self->out))
		TH_LOG("%s", self->out);
	free(self->out);
	self->out = NULL;
	{
		struct ketw_session_attr a;
		int fd = ketw_open();

		ASSERT_LE(0, fd);
		ketw_attr_init(&a, "st_full");
		a.policy = KETW_POLICY_UNTIL_FULL;
		a.buffer_kb = 16;
		a.clock = KETW_CLOCK_BOOT;
		ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
		/* Detach: the session stays, with no reader. */
		close(fd);
	}
	ASSERT_EQ(0, sample_emit(5));
	ASSERT_EQ(0, run_cmd(TOOL " status 2>&1", &self->out)) TH_LOG("%s", self->out);
	EXPECT_EQ(self->out, strstr(self->out, "NAME ")) TH_LOG("%s", self->out);
	for (i = 0; i < 3; i++) {
		ASSERT_NE(NULL, table_line(self->out, names[i], line, sizeof(line)))
			TH_LOG("%s missing in:\n%s", names[i], self->out);
		snprintf(cmd, sizeof(cmd), "echo '%s' | grep -Eq '%s'", line, expect[i]);
		EXPECT_EQ(0, system(cmd)) TH_LOG("'%s' does not match '%s'", line, expect[i]);
	}
	free(self->out);
	ASSERT_EQ(0, run_cmd(TOOL " status --json 2>&1", &self->out)) TH_LOG("%s", self->out);
	EXPECT_EQ('[', self->out[0]);
	EXPECT_NE(NULL, strstr(self->out, "\"session\": \"st_full\", \"state\": \"created\", \"policy\": \"until-full\", \"clock\": \"boot\", \"buffer_kb\": 16"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\"session\": \"st_loop\", \"state\": \"running\", \"policy\": \"loop\""))
		TH_LOG("%s", self->out);
	for (i = 0; i < 3; i++)
		ketw_cleanup(names[i]);
}

/* ketw reset --all asks once; no (or no answer) keeps them, yes removes all. */
TEST_F_TIMEOUT(tool, reset_all_asks_once, 60)
{
	ASSERT_EQ(0, run_cmd(TOOL " start -s ra_one 2>&1 && " TOOL " start -s ra_two 2>&1",
			 &self->out)) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(1, run_cmd("echo n | " TOOL " reset --all 2>&1", &self->out));
	EXPECT_NE(NULL, strstr(self->out, "ra_one, ra_two")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "nothing removed")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(1, run_cmd(TOOL " reset --all </dev/null 2>&1", &self->out));
	EXPECT_EQ(0, cpu_stats_of("ra_one"));
	EXPECT_EQ(0, cpu_stats_of("ra_two"));
	free(self->out);
	EXPECT_EQ(0, run_cmd("echo y | " TOOL " reset --all 2>&1", &self->out))
		TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_of(self->out, "?")) TH_LOG("asked more than once: %s", self->out);
	EXPECT_EQ(-ENOENT, cpu_stats_of("ra_one"));
	EXPECT_EQ(-ENOENT, cpu_stats_of("ra_two"));
	free(self->out);
	ASSERT_EQ(0, run_cmd(TOOL " status 2>&1", &self->out));
	EXPECT_STREQ("no sessions\n", self->out);
	free(self->out);
	ASSERT_EQ(0, run_cmd(TOOL " start -s ra_three 2>&1 && " TOOL " reset --all -y 2>&1",
			 &self->out)) TH_LOG("%s", self->out);
	EXPECT_EQ(-ENOENT, cpu_stats_of("ra_three"));
	free(self->out);
	EXPECT_EQ(2, run_cmd(TOOL " reset --all -s x 2>&1", &self->out));
}

TEST_HARNESS_MAIN
