// SPDX-License-Identifier: GPL-2.0
/*
 * The live stream (Documentation/ketw-stream.rst) on the real module:
 * ketw stream drains a running session while the sample provider logs,
 * and sends it over the guest's loopback to ketw listen, once directly
 * and once through the fault proxy, and over the second serial port to
 * ketw listen on the host. The collected files reconcile with the
 * kernel's counters (records + records missing by sequence = the
 * kernel's sequence, no kernel loss), match what the sender kept
 * locally (--tee) record for record, and, through the proxy, count
 * exactly the frames it spoiled.
 *
 * The serial case prints a digest of the local file's record lines
 * ("@@KETW@@ SERIAL-DIGEST SESSION MD5 RECORDS"), which the harness on
 * the host (scripts/run-vm.sh) compares with its own file.
 */
#include "ketw_test.h"
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "libketw.h"
#include "kselftest_harness.h"

#define TOOL	"/ketw/ketw"
#define PROXY	"/ketw/ketw-fault-proxy"
#define SERIAL	"/dev/ttyS1"

struct child {
	pid_t pid;
	int out;
	char buf[16384];
	size_t len;
};

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int child_start(struct child *c, const char *const *argv)
{
	int p[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	c->out = p[0];
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	return 0;
}

static bool child_read(struct child *c, int wait_ms)
{
	struct pollfd p = { .fd = c->out, .events = POLLIN };
	ssize_t n;

	if (c->out < 0)
		return false;
	if (poll(&p, 1, wait_ms) <= 0)
		return true;
	n = read(c->out, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n < 0 && errno == EAGAIN)
		return true;
	if (n <= 0) {
		close(c->out);
		c->out = -1;
		return false;
	}
	c->len += n;
	c->buf[c->len] = '\0';
	return true;
}

static bool child_wait_for(struct child *c, const char *needle, int ms)
{
	uint64_t until = ms_now() + ms;

	while (!strstr(c->buf, needle) && ms_now() < until &&
	       child_read(c, 50))
		;
	return strstr(c->buf, needle) != NULL;
}

static int child_wait(struct child *c, int ms)
{
	uint64_t until = ms_now() + ms;
	int status = 0;

	for (;;) {
		child_read(c, 20);
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			break;
		if (ms_now() > until) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
			break;
		}
	}
	while (c->out >= 0 && child_read(c, 0))
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

static unsigned int child_port(struct child *c, const char *prefix)
{
	const char *p;

	if (!child_wait_for(c, prefix, 10000))
		return 0;
	child_read(c, 50);
	p = strstr(c->buf, prefix);
	return strtoul(p + strlen(prefix), NULL, 10);
}

/* The collected file of @session in @dir: a static buffer. */
static const char *file_of(const char *dir, const char *session)
{
	static char path[512];
	char cmd[640];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls %s/*-%s-*.ketw 2>/dev/null | head -n 1",
		 dir, session);
	path[0] = '\0';
	f = popen(cmd, "r");
	if (f) {
		if (!fgets(path, sizeof(path), f))
			path[0] = '\0';
		pclose(f);
	}
	path[strcspn(path, "\n")] = '\0';
	return path;
}

/* What a file holds, by libketw. */
struct held {
	uint64_t records, ticks, gaps, head_tail, seq, written, lost;
	bool have_stats;
	struct ketw_file_stream fs;
	bool have_fs;
};

static int held_of(const char *path, struct held *h)
{
	const struct ketw_file_cpu_stats *st;
	const struct ketw_file_stream *fs;
	struct ketw_input *in;
	struct ketw_record rec;
	uint64_t *last, *first;
	bool *seen;
	unsigned int cpu, n;
	char err[256];
	int ret;

	memset(h, 0, sizeof(*h));
	ret = ketw_input_open(path, &in, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "# %s: %s\n", path, err);
		return ret;
	}
	n = ketw_input_nr_cpus(in);
	last = calloc(n, sizeof(*last));
	first = calloc(n, sizeof(*first));
	seen = calloc(n, sizeof(*seen));
	if (!last || !first || !seen) {
		ketw_input_close(in);
		return -ENOMEM;
	}
	h->records = ketw_input_nr_records(in);
	while (ketw_input_next(in, &rec) > 0) {
		if (!(rec.hdr->flags & KETW_RECORD_SYSTEM) &&
		    !memcmp(rec.hdr->provider_guid, sample_guid,
			    KETW_GUID_SIZE) && rec.hdr->event_id == 1)
			h->ticks++;
		if (!seen[rec.cpu])
			first[rec.cpu] = rec.hdr->sequence;
		seen[rec.cpu] = true;
		last[rec.cpu] = rec.hdr->sequence;
	}
	for (cpu = 0; cpu < n; cpu++) {
		h->gaps += ketw_input_cpu_gaps(in, cpu);
		st = ketw_input_cpu_stats(in, cpu);
		if (!st || !(st->flags & KETW_FILE_STATS_VALID))
			continue;
		h->have_stats = true;
		h->seq += st->sequence;
		h->written += st->written;
		h->lost += st->lost_full + st->overwritten + st->lost_busy +
			   st->lost_nested;
		/* Missing before a CPU's first record and after its last. */
		h->head_tail += seen[cpu] ? first[cpu] +
				st->sequence - (last[cpu] + 1) : st->sequence;
	}
	fs = ketw_input_stream(in);
	if (fs) {
		h->fs = *fs;
		h->have_fs = true;
	}
	free(last);
	free(first);
	free(seen);
	ketw_input_close(in);
	return 0;
}

/* Two files hold the same records, byte for byte, in the same order. */
static bool same_records(const char *a, const char *b)
{
	struct ketw_input *x, *y;
	struct ketw_record r, s;
	bool same = true;
	int gx, gy;

	if (ketw_input_open(a, &x, NULL, 0))
		return false;
	if (ketw_input_open(b, &y, NULL, 0)) {
		ketw_input_close(x);
		return false;
	}
	do {
		gx = ketw_input_next(x, &r);
		gy = ketw_input_next(y, &s);
		if (gx != gy || (gx > 0 && (r.cpu != s.cpu ||
		    r.span != s.span || memcmp(r.hdr, s.hdr, r.span))))
			same = false;
	} while (same && gx > 0);
	ketw_input_close(x);
	ketw_input_close(y);
	return same;
}

static unsigned long count_in(const char *out, const char *name)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(out, key);
	return p ? strtoul(p + strlen(key), NULL, 10) : (unsigned long)-1;
}

FIXTURE(stream) {
	struct child listen, proxy, send;
};

FIXTURE_SETUP(stream)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	KETW_REQUIRE_PATH(TOOL, X_OK, "the ketw tool, which the harness packs");
	memset(self, 0, sizeof(*self));
	self->listen.pid = self->proxy.pid = self->send.pid = -1;
	self->listen.out = self->proxy.out = self->send.out = -1;
}

FIXTURE_TEARDOWN(stream)
{
	struct child *c[] = { &self->send, &self->proxy, &self->listen };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (c[i]->pid > 0) {
			kill(c[i]->pid, SIGKILL);
			waitpid(c[i]->pid, NULL, 0);
		}
		if (c[i]->out >= 0)
			close(c[i]->out);
	}
}

/*
 * ketw stream of session @name to @to (or --serial), for 6 s, while the
 * sample logs @ticks ticks and a warn in ten; a local copy in @tee.
 */
static void stream_run(struct __test_metadata *_metadata, struct child *s,
		       const char *name, const char *opt, const char *to,
		       const char *tee, unsigned int ticks)
{
	const char *argv[] = {
		TOOL, "stream", "-s", name, "-p", "ketw-sample", opt, to,
		"-d", "6", "--tee", tee, NULL,
	};
	const char *line;
	unsigned int i;

	ketw_cleanup(name);
	ASSERT_EQ(0, child_start(s, argv));
	ASSERT_TRUE(child_wait_for(s, "taking only these providers", 10000))
		TH_LOG("%s", s->buf);
	usleep(500000);
	/* In pieces, while it drains. */
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, sample_emit(ticks / 10));
		ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_warn"), "1"));
		usleep(150000);
	}
	ASSERT_EQ(0, child_wait(s, 60000)) TH_LOG("%s", s->buf);
	/* Its summary: "session NAME: N records in F frames ...". */
	line = strstr(s->buf, " records in ");
	while (line && line > s->buf && line[-1] != '\n')
		line--;
	fprintf(stderr, "# %s", line ? line : s->buf);
}

/* Over the loopback: all of it, reconciled, as the sender kept it. */
TEST_F_TIMEOUT(stream, tcp_loopback_reconciles, 120)
{
	const char *dir = "/tmp/stream_col";
	char to[32];
	unsigned int port;
	struct held h, t;

	mkdir(dir, 0755);
	ASSERT_EQ(0, child_start(&self->listen, (const char *const[]){ TOOL,
		"listen", "-p", "0", "-o", dir, "-c", "1", NULL }));
	port = child_port(&self->listen, "port ");
	ASSERT_NE(0, port) TH_LOG("%s", self->listen.buf);
	snprintf(to, sizeof(to), "127.0.0.1:%u", port);
	stream_run(_metadata, &self->send, "stream_tcp", "--to", to,
		   "/tmp/stream_tcp.ketw", 500);
	ASSERT_EQ(0, child_wait(&self->listen, 20000))
		TH_LOG("%s", self->listen.buf);
	fprintf(stderr, "# %s", self->listen.buf);

	ASSERT_EQ(0, held_of(file_of(dir, "stream_tcp"), &h));
	ASSERT_TRUE(h.have_fs && h.have_stats);
	EXPECT_EQ(500, h.ticks);
	EXPECT_TRUE(h.fs.flags & KETW_FILE_STREAM_COMPLETE);
	EXPECT_EQ(h.fs.end_seq + 1, h.fs.frames);
	EXPECT_EQ(0, h.fs.seq_gaps + h.fs.bad_checksum + h.fs.duplicates +
		     h.fs.skipped + h.fs.dropped_frames);
	/* The kernel's counters: every record it stored is here. */
	EXPECT_EQ(0, h.lost);
	EXPECT_EQ(h.written, h.records);
	EXPECT_EQ(h.seq, h.records + h.gaps + h.head_tail);
	EXPECT_EQ(0, h.gaps + h.head_tail);
	EXPECT_EQ(h.fs.sent_records, h.records);
	/* And the sender's local copy: the same records. */
	ASSERT_EQ(0, held_of("/tmp/stream_tcp.ketw", &t));
	EXPECT_EQ(t.records, h.records);
	EXPECT_TRUE(same_records("/tmp/stream_tcp.ketw",
				 file_of(dir, "stream_tcp")));
	unlink("/tmp/stream_tcp.ketw");
}

/* Through the fault proxy: exactly the frames it spoiled are missing. */
TEST_F_TIMEOUT(stream, tcp_through_fault_proxy, 120)
{
	const char *dir = "/tmp/stream_fp";
	char to[32], tgt[32];
	unsigned int port, pport;
	unsigned long flipped, dropped, dup, trunc;
	struct held h;

	KETW_REQUIRE_PATH(PROXY, X_OK, "the fault proxy, which the harness packs");
	mkdir(dir, 0755);
	ASSERT_EQ(0, child_start(&self->listen, (const char *const[]){ TOOL,
		"listen", "-p", "0", "-o", dir, "-c", "1", NULL }));
	port = child_port(&self->listen, "port ");
	ASSERT_NE(0, port);
	snprintf(tgt, sizeof(tgt), "127.0.0.1:%u", port);
	ASSERT_EQ(0, child_start(&self->proxy, (const char *const[]){ PROXY,
		"-t", tgt, "-s", "5", "-f", "30", "-d", "30", "-u", "30",
		"-r", "30", NULL }));
	pport = child_port(&self->proxy, "port ");
	ASSERT_NE(0, pport);
	snprintf(to, sizeof(to), "127.0.0.1:%u", pport);
	stream_run(_metadata, &self->send, "stream_fp", "--to", to,
		   "/tmp/stream_fp.ketw", 1000);
	ASSERT_EQ(0, child_wait(&self->proxy, 20000));
	ASSERT_EQ(0, child_wait(&self->listen, 20000))
		TH_LOG("%s", self->listen.buf);
	fprintf(stderr, "# %s", strstr(self->proxy.buf, "proxy: "));
	fprintf(stderr, "# %s", self->listen.buf);
	flipped = count_in(self->proxy.buf, "flipped");
	dropped = count_in(self->proxy.buf, "dropped");
	dup = count_in(self->proxy.buf, "duplicated");
	trunc = count_in(self->proxy.buf, "truncated");

	ASSERT_EQ(0, held_of(file_of(dir, "stream_fp"), &h));
	ASSERT_TRUE(h.have_fs && h.have_stats);
	EXPECT_TRUE(h.fs.flags & KETW_FILE_STREAM_COMPLETE);
	/* Every frame number once, or missing; missing what it spoiled. */
	EXPECT_EQ(h.fs.end_seq + 1, h.fs.frames + h.fs.seq_gaps);
	EXPECT_EQ(flipped + dropped + trunc, h.fs.seq_gaps);
	EXPECT_EQ(flipped + trunc, h.fs.bad_checksum);
	EXPECT_EQ(dup, h.fs.duplicates);
	EXPECT_EQ(count_in(self->proxy.buf, "records"), h.records);
	EXPECT_LT(0, flipped + dropped + dup + trunc);
	/* Reconciled: what is here and what is missing, the kernel's count. */
	EXPECT_EQ(0, h.lost);
	EXPECT_EQ(h.seq, h.records + h.gaps + h.head_tail);
	EXPECT_EQ(h.written, h.seq);
	unlink("/tmp/stream_fp.ketw");
}

/*
 * Over the second serial port to ketw listen on the host: the harness
 * compares its file with the digest printed here.
 */
TEST_F_TIMEOUT(stream, serial_to_host, 120)
{
	const char *local = "/tmp/stream_serial.ketw";
	char line[4096], md5[64] = "";
	struct held t;
	FILE *f;

	f = fopen("/proc/cmdline", "re");
	ASSERT_NE(NULL, f);
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	if (!strstr(line, "ketwserial"))
		SKIP(return, "no host listening on the second serial port (ketwserial)");
	KETW_REQUIRE_PATH(SERIAL, W_OK, "the second serial port");
	stream_run(_metadata, &self->send, "stream_serial", "--serial",
		   SERIAL, local, 200);
	ASSERT_EQ(0, held_of(local, &t));
	EXPECT_EQ(200, t.ticks);
	EXPECT_EQ(0, t.lost);
	EXPECT_EQ(t.seq, t.records + t.gaps + t.head_tail);
	EXPECT_EQ(0, t.gaps + t.head_tail);
	/* The record lines of the report, as the host makes them. */
	f = popen(TOOL " report " "/tmp/stream_serial.ketw"
		  " | awk '/^  cpu=/{p=1} p' | md5sum", "r");
	ASSERT_NE(NULL, f);
	if (fgets(line, sizeof(line), f))
		sscanf(line, "%63s", md5);
	pclose(f);
	ASSERT_EQ(32, strlen(md5));
	printf("@@KETW@@ SERIAL-DIGEST stream_serial %s %llu\n", md5,
	       (unsigned long long)t.records);
	fflush(stdout);
}

TEST_HARNESS_MAIN
