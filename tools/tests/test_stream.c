// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: ketw stream and ketw listen end to end on this machine's
 * loopback, against the fake /dev/ketw (each sender a session of its
 * own): a stream through a file and over TCP matches the file ketw
 * record writes, record for record; through the fault proxy
 * (tests/proxy/) the collector loses only the frames the proxy damaged
 * and counts them exactly; a sender that lost its peer says what it
 * could not send; 8 senders into one collector, every record accounted
 * for; and a sender that stalls mid-frame and one that floods garbage do
 * not slow the others (measured, printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#define MAX_ENV	8

/* A fake session's records: @n ticks, a warn every tenth, START, STOP, the rundown. */
#define FAKE_RECORDS(n)	((n) + (n) / 10 + 2 + 6)

/* A child process and the pipe of its stdout. */
struct child {
	pid_t pid;
	int out;		/* read end, non-blocking */
	char buf[16384];
	size_t len;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The environment of a sender: the fake device, its own session state
 * (@state), @events ticks. NULL-terminated in @env.
 */
static void fake_env(const char **env, char (*store)[300], const char *state,
		     unsigned int events)
{
	snprintf(store[0], 300, "LD_PRELOAD=%s", test_fake_path);
	snprintf(store[1], 300, "KETW_FAKE_DEV=%s", test_path("fakedev"));
	snprintf(store[2], 300, "KETW_DEVICE=%s", test_path("fakedev"));
	snprintf(store[3], 300, "KETW_FAKE_STATE=%s", test_path(state));
	snprintf(store[4], 300, "KETW_FAKE_EVENTS=%u", events);
	snprintf(store[5], 300, "KETW_FAKE_WARNS=%u", events / 10);
	env[0] = store[0];
	env[1] = store[1];
	env[2] = store[2];
	env[3] = store[3];
	env[4] = store[4];
	env[5] = store[5];
	env[6] = NULL;
}

/* Start @prog with @argv (NULL-terminated) and @env added. */
static bool child_start(struct child *c, const char *prog,
			const char *const *env, const char *const *argv)
{
	const char *full[40];
	int p[2];
	size_t i;

	memset(c, 0, sizeof(*c));
	full[0] = prog;
	for (i = 0; argv[i] && i < 38; i++)
		full[i + 1] = argv[i];
	full[i + 1] = NULL;
	if (pipe2(p, O_CLOEXEC))
		return false;
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0)
		return false;
	if (c->pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		for (i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(prog, (char *const *)full);
		_exit(127);
	}
	close(p[1]);
	c->out = p[0];
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	return true;
}

/* Read what the child printed so far; false at its end. */
static bool child_read(struct child *c, int wait_ms)
{
	struct pollfd p = { .fd = c->out, .events = POLLIN };
	ssize_t n;

	if (c->out < 0)
		return false;
	if (poll(&p, 1, wait_ms) <= 0)
		return true;
	n = read(c->out, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n <= 0) {
		if (n < 0 && errno == EAGAIN)
			return true;
		close(c->out);
		c->out = -1;
		return false;
	}
	c->len += n;
	c->buf[c->len] = '\0';
	return true;
}

/* Wait until the child printed @needle; false after @ms. */
static bool child_wait_for(struct child *c, const char *needle, int ms)
{
	uint64_t until = now_ms() + ms;

	while (!strstr(c->buf, needle)) {
		if (now_ms() > until || !child_read(c, 50))
			return strstr(c->buf, needle) != NULL;
	}
	return true;
}

/* Wait for the child's exit (killing it after @ms); its status. */
static int child_wait(struct child *c, int ms)
{
	uint64_t until = now_ms() + ms;
	int status;

	for (;;) {
		child_read(c, 20);
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			break;
		if (now_ms() > until) {
			printf("    child %d killed after %d ms; it said:\n%s\n",
			       c->pid, ms, c->buf);
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
			break;
		}
	}
	while (child_read(c, 0) && c->out >= 0)
		;
	if (c->out >= 0)
		close(c->out);
	c->out = -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

/* A port a child printed after @prefix ("port 1234"). */
static unsigned int child_port(struct child *c, const char *prefix)
{
	const char *p;

	if (!child_wait_for(c, prefix, 5000))
		return 0;
	child_read(c, 50);
	p = strstr(c->buf, prefix);
	return (unsigned int)strtoul(p + strlen(prefix), NULL, 10);
}

/* A collector on a free port into @dir, for @streams streams. */
static unsigned int listen_start(struct child *l, const char *dir,
				 const char *streams)
{
	mkdir(dir, 0755);
	if (!child_start(l, test_ketw_path, NULL,
			 (const char *const[]){ "listen", "-p", "0", "-o", dir,
						"-c", streams, NULL }))
		return 0;
	return child_port(l, "port ");
}

/* The .ketw file (first chunk) in @dir whose name has @part; static. */
static const char *file_in(const char *dir, const char *part)
{
	static char path[600];
	char cmd[700];
	FILE *f;

	/* The first chunk: not NAME.N.ketw. */
	snprintf(cmd, sizeof(cmd),
		 "ls %s/*%s*.ketw 2>/dev/null | grep -v '\\.[0-9]*\\.ketw$' | head -n 1",
		 dir, part);
	f = popen(cmd, "r");
	path[0] = '\0';
	if (f) {
		if (!fgets(path, sizeof(path), f))
			path[0] = '\0';
		pclose(f);
	}
	path[strcspn(path, "\n")] = '\0';
	return path;
}

/*
 * The record lines of `ketw report -R` of @path (everything after the
 * summary): what two files holding the same records have in common.
 */
static char *record_lines(const char *path)
{
	char *o = NULL, *e = NULL, *p;

	if (test_run_ketw(NULL, (const char *const[]){ "report", path, NULL },
			  &o, &e) != 0) {
		printf("    report %s: %s\n", path, e ? e : "");
		free(o);
		free(e);
		return NULL;
	}
	free(e);
	p = strstr(o, "\n  cpu=");
	if (!p) {
		free(o);
		return NULL;
	}
	memmove(o, p, strlen(p) + 1);
	return o;
}

/*
 * What a collected file says: its records, the records missing between
 * them (gaps) and before and after them (tail: by the sequence numbers
 * and the kernel's next one), the stream's counters.
 */
struct got {
	uint64_t records, gaps, tail;
	struct ketw_file_stream fs;
	bool have_fs;
};

static bool got_file(const char *path, struct got *g)
{
	const struct ketw_file_cpu_stats *st;
	const struct ketw_file_stream *fs;
	struct ketw_input *in;
	struct ketw_record rec;
	uint64_t last[2] = { 0, 0 };
	bool seen[2] = { false, false };
	unsigned int cpu;
	char err[256];

	memset(g, 0, sizeof(*g));
	if (ketw_input_open(path, &in, err, sizeof(err))) {
		printf("    %s: %s\n", path, err);
		return false;
	}
	g->records = ketw_input_nr_records(in);
	while (ketw_input_next(in, &rec) > 0) {
		if (rec.cpu >= 2)
			continue;
		/* Records lost before a CPU's first one (it starts at 0). */
		if (!seen[rec.cpu])
			g->tail += rec.hdr->sequence;
		last[rec.cpu] = rec.hdr->sequence;
		seen[rec.cpu] = true;
	}
	for (cpu = 0; cpu < ketw_input_nr_cpus(in); cpu++) {
		g->gaps += ketw_input_cpu_gaps(in, cpu);
		st = ketw_input_cpu_stats(in, cpu);
		/* Records lost after a CPU's last one: by its next sequence. */
		if (st && cpu < 2)
			g->tail += st->sequence - (seen[cpu] ? last[cpu] + 1 : 0);
	}
	fs = ketw_input_stream(in);
	if (fs) {
		g->fs = *fs;
		g->have_fs = true;
	}
	ketw_input_close(in);
	return true;
}

static bool fake_usable(void)
{
	char store[MAX_ENV][300];
	const char *env[MAX_ENV];
	char *o = NULL, *e = NULL;
	bool ok;

	if (!test_fake_path || !test_proxy_path)
		return false;
	fake_env(env, store, "probe.state", 1);
	test_run_ketw(env, (const char *const[]){ "show", "-s", "probe", NULL },
		      &o, &e);
	ok = e && strstr(e, "session 'probe' does not exist");
	free(o);
	free(e);
	return ok;
}

#define NEED_FAKE() do {						\
	if (!fake_usable())						\
		SKIP("the fake /dev/ketw cannot be preloaded, or no --proxy"); \
} while (0)

/* ketw record of the same fake session: the records a stream must bring. */
static char *recorded_lines(const char *name, unsigned int events)
{
	char store[MAX_ENV][300], state[64], *o = NULL, *e = NULL, *lines;
	const char *env[MAX_ENV], *path = test_path("local.ketw");

	snprintf(state, sizeof(state), "%s.rec.state", name);
	fake_env(env, store, state, events);
	if (test_run_ketw(env, (const char *const[]){ "record", "-s", name,
			  "-p", "ketw-sample", "-o", path, "-n", "1", NULL },
			  &o, &e) != 0) {
		printf("    record: %s%s\n", o, e);
		free(o);
		free(e);
		return NULL;
	}
	free(o);
	free(e);
	lines = record_lines(path);
	unlink(path);
	return lines;
}

/* Through a file: stream -o, then listen --serial on that file. */
TEST(stream_through_a_file_is_what_record_writes)
{
	char store[MAX_ENV][300], *o = NULL, *e = NULL, *want, *got;
	const char *env[MAX_ENV], *dir = test_path("col-file");
	const char *sfile = test_path("s.frames");
	struct child l;
	struct got g;

	NEED_FAKE();
	want = recorded_lines("sf", 200);
	ASSERT(want);
	fake_env(env, store, "sf.state", 200);
	ASSERT_EQ(test_run_ketw(env, (const char *const[]){ "stream", "-s",
			"sf", "-p", "ketw-sample", "-o", sfile, "-n", "1",
			NULL }, &o, &e), 0);
	CHECK_CONTAINS(o, "session sf: 228 records in ");
	free(o);
	free(e);
	mkdir(dir, 0755);
	ASSERT(child_start(&l, test_ketw_path, NULL, (const char *const[]){
		"listen", "--serial", sfile, "-o", dir, "-c", "1", NULL }));
	ASSERT_EQ(child_wait(&l, 10000), 0);
	CHECK_CONTAINS(l.buf, ": complete: 228 records; ");
	CHECK_CONTAINS(l.buf, " 0 bad, 0 missing, 0 duplicates, 0 oversize, 0 cut, 0 bytes skipped;");
	ASSERT(got_file(file_in(dir, "-sf-"), &g));
	CHECK_EQ(g.records, FAKE_RECORDS(200));
	CHECK_EQ(g.gaps + g.tail, 0);
	CHECK(g.have_fs && (g.fs.flags & KETW_FILE_STREAM_COMPLETE));
	got = record_lines(file_in(dir, "-sf-"));
	ASSERT(got);
	/* Record for record, decoded by the rundown the stream carried. */
	CHECK(!strcmp(got, want));
	CHECK_CONTAINS(got, "event=tick kw=0x1");
	free(got);
	free(want);
}

/* Over TCP into ketw listen: the same records, the counters clean. */
TEST(stream_over_tcp_is_what_record_writes)
{
	char store[MAX_ENV][300], to[64], *o = NULL, *e = NULL, *want, *got;
	const char *env[MAX_ENV], *dir = test_path("col-tcp");
	struct child l;
	unsigned int port;
	struct got g;

	NEED_FAKE();
	want = recorded_lines("st", 1000);
	ASSERT(want);
	port = listen_start(&l, dir, "1");
	ASSERT(port);
	snprintf(to, sizeof(to), "127.0.0.1:%u", port);
	fake_env(env, store, "st.state", 1000);
	ASSERT_EQ(test_run_ketw(env, (const char *const[]){ "stream", "-s",
			"st", "-p", "ketw-sample", "--to", to, "-n", "1",
			"--tee", test_path("tee.ketw"), NULL }, &o, &e), 0);
	free(o);
	free(e);
	ASSERT_EQ(child_wait(&l, 10000), 0);
	ASSERT(got_file(file_in(dir, "-st-"), &g));
	CHECK_EQ(g.records, FAKE_RECORDS(1000));
	CHECK_EQ(g.fs.connections, 1);
	CHECK_EQ(g.fs.frames, g.fs.end_seq + 1);
	CHECK_EQ(g.fs.bad_checksum + g.fs.seq_gaps + g.fs.duplicates +
		 g.fs.skipped + g.fs.dropped_frames, 0);
	CHECK_EQ(g.fs.sent_records, FAKE_RECORDS(1000));
	got = record_lines(file_in(dir, "-st-"));
	ASSERT(got);
	CHECK(!strcmp(got, want));
	free(got);
	free(want);
	/* And what the sender kept locally (--tee): the same. */
	want = record_lines(test_path("tee.ketw"));
	got = record_lines(file_in(dir, "-st-"));
	CHECK(want && got && !strcmp(got, want));
	free(got);
	free(want);
}

/* A proxy line's counter. */
static unsigned long proxy_count(const char *out, const char *name)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(out, key);
	return p ? strtoul(p + strlen(key), NULL, 10) : (unsigned long)-1;
}

/*
 * Through the fault proxy: @args its chances. Checks what must hold
 * whatever the timing; *@pout gets the proxy's line.
 */
static void stream_through_proxy(const char *name, const char *seed,
				 const char *const *args, bool cuts,
				 struct got *g, char **pout)
{
	char store[MAX_ENV][300], to[64], tgt[64], dir[64], *o = NULL, *e = NULL;
	const char *env[MAX_ENV], *pargv[24];
	struct child l, p;
	unsigned int lport, pport, i = 0, k;
	unsigned long flipped, trunc, dup, records, cutn;

	snprintf(dir, sizeof(dir), "col-%s", name);
	lport = listen_start(&l, test_path(dir), "1");
	ASSERT(lport);
	snprintf(tgt, sizeof(tgt), "127.0.0.1:%u", lport);
	pargv[i++] = "-t";
	pargv[i++] = tgt;
	pargv[i++] = "-s";
	pargv[i++] = seed;
	for (k = 0; args[k]; k++)
		pargv[i++] = args[k];
	pargv[i] = NULL;
	ASSERT(child_start(&p, test_proxy_path, NULL, pargv));
	pport = child_port(&p, "port ");
	ASSERT(pport);
	snprintf(to, sizeof(to), "127.0.0.1:%u", pport);
	fake_env(env, store, name, 3000);
	CHECK_EQ(test_run_ketw(env, (const char *const[]){ "stream", "-s",
			name, "-p", "ketw-sample", "--to", to, "-n", "1",
			NULL }, &o, &e), 0);
	printf("    %s", o);
	free(o);
	free(e);
	CHECK_EQ(child_wait(&p, 20000), 0);
	ASSERT_EQ(child_wait(&l, 20000), 0);
	printf("    %s", strstr(p.buf, "proxy: ") ? strstr(p.buf, "proxy: ") : p.buf);
	ASSERT(got_file(file_in(test_path(dir), name), g));
	ASSERT(g->have_fs);
	flipped = proxy_count(p.buf, "flipped");
	trunc = proxy_count(p.buf, "truncated");
	dup = proxy_count(p.buf, "duplicated");
	records = proxy_count(p.buf, "records");
	cutn = proxy_count(p.buf, "cuts");
	/* The stream ended, its END came. */
	CHECK(g->fs.flags & KETW_FILE_STREAM_COMPLETE);
	/* Every frame number is either received once, or missing. */
	CHECK_EQ(g->fs.frames + g->fs.seq_gaps, g->fs.end_seq + 1);
	/* Bad frames: exactly those the proxy flipped or truncated. */
	CHECK_EQ(g->fs.bad_checksum, flipped + trunc);
	CHECK_EQ(g->fs.duplicates, dup);
	CHECK_EQ(g->fs.oversize + g->fs.malformed, 0);
	/* Every record relayed intact is in the file, once; no other. */
	CHECK_EQ(g->records, records);
	/* Cut connections: a frame cut each, and the sender came back. */
	CHECK_EQ(g->fs.partial, cutn);
	CHECK_EQ(g->fs.connections, cutn + 1);
	if (cuts)
		CHECK(cutn >= 1);
	/* The records reconcile with the kernel's counters. */
	CHECK_EQ(g->records + g->gaps + g->tail, FAKE_RECORDS(3000));
	CHECK_EQ(g->fs.sent_records, FAKE_RECORDS(3000));
	*pout = strdup(p.buf);
}

TEST(stream_fault_proxy_loses_only_damaged_frames)
{
	static const char *const args[] = {
		"-f", "25", "-d", "25", "-u", "25", "-r", "25", NULL,
	};
	struct got g;
	char *out = NULL;

	NEED_FAKE();
	stream_through_proxy("fp", "7", args, false, &g, &out);
	ASSERT(out);
	/* No cut: nothing was lost but what the proxy spoiled. */
	CHECK_EQ(g.fs.seq_gaps, proxy_count(out, "flipped") +
		 proxy_count(out, "dropped") + proxy_count(out, "truncated"));
	CHECK(proxy_count(out, "flipped") > 10);
	CHECK(proxy_count(out, "dropped") > 10);
	CHECK(proxy_count(out, "duplicated") > 10);
	CHECK(proxy_count(out, "truncated") > 10);
	CHECK_EQ(g.fs.dropped_frames, 0);
	CHECK_EQ(g.fs.partial, 0);
	free(out);
}

TEST(stream_fault_proxy_cuts_connections)
{
	static const char *const args[] = {
		"-f", "10", "-u", "10", "-x", "4", "-X", "3", NULL,
	};
	struct got g;
	char *out = NULL;

	NEED_FAKE();
	stream_through_proxy("fc", "11", args, true, &g, &out);
	ASSERT(out);
	/* What the proxy spoiled is missing; so may be what a cut lost. */
	CHECK(g.fs.seq_gaps >= proxy_count(out, "flipped"));
	free(out);
}

/*
 * No collector for a while, and a backlog too small for the session: the
 * sender drops what does not fit, says so in the stream, and delivers
 * the rest once the collector is there.
 */
TEST(stream_reports_what_it_could_not_send)
{
	char store[MAX_ENV][300], to[64], dir[64];
	const char *env[MAX_ENV];
	struct child l, s;
	unsigned int port;
	struct got g;
	int fd;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	NEED_FAKE();
	/* A port nobody listens on yet. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT(fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)));
	getsockname(fd, (struct sockaddr *)&a, &len);
	port = ntohs(a.sin_port);
	close(fd);
	snprintf(to, sizeof(to), "127.0.0.1:%u", port);
	fake_env(env, store, "sb.state", 6000);
	ASSERT(child_start(&s, test_ketw_path, env, (const char *const[]){
		"stream", "-s", "sb", "-p", "ketw-sample", "--to", to, "-d", "2",
		"--backlog", "128", NULL }));
	usleep(700000);
	snprintf(dir, sizeof(dir), "%s", test_path("col-sb"));
	mkdir(dir, 0755);
	{
		char p[16];

		snprintf(p, sizeof(p), "%u", port);
		ASSERT(child_start(&l, test_ketw_path, NULL,
				   (const char *const[]){ "listen", "-p", p,
				   "-o", dir, "-c", "1", NULL }));
	}
	CHECK_EQ(child_wait(&s, 30000), 0);
	printf("    %s", s.buf);
	CHECK_CONTAINS(s.buf, "could not be sent; the stream counts them");
	CHECK_CONTAINS(s.buf, "reconnecting");
	ASSERT_EQ(child_wait(&l, 10000), 0);
	ASSERT(got_file(file_in(dir, "-sb-"), &g));
	CHECK(g.fs.flags & KETW_FILE_STREAM_COMPLETE);
	CHECK(g.fs.dropped_records > 1000);
	/* What came and what the sender says it dropped: all of them. */
	CHECK_EQ(g.records + g.fs.dropped_records, FAKE_RECORDS(6000));
	CHECK_EQ(g.records + g.gaps + g.tail, FAKE_RECORDS(6000));
	CHECK_EQ(g.fs.seq_gaps, 0);
	CHECK_EQ(g.fs.bad_checksum, 0);
}

/* Eight senders at once into one collector: every record in its file. */
TEST(stream_eight_senders_one_collector)
{
	char store[8][MAX_ENV][300], names[8][8], to[64], *o = NULL, *e = NULL;
	const char *env[8][MAX_ENV], *dir = test_path("col-8");
	struct child l, s[8];
	unsigned int port, i;
	struct got g;

	NEED_FAKE();
	port = listen_start(&l, dir, "8");
	ASSERT(port);
	snprintf(to, sizeof(to), "127.0.0.1:%u", port);
	for (i = 0; i < 8; i++) {
		snprintf(names[i], sizeof(names[i]), "m%u", i);
		fake_env(env[i], store[i], names[i], 1000 + 500 * i);
		ASSERT(child_start(&s[i], test_ketw_path, env[i],
				   (const char *const[]){ "stream", "-s",
				   names[i], "-p", "ketw-sample", "--to", to,
				   "-n", "1", NULL }));
	}
	for (i = 0; i < 8; i++)
		CHECK_EQ(child_wait(&s[i], 30000), 0);
	ASSERT_EQ(child_wait(&l, 30000), 0);
	for (i = 0; i < 8; i++) {
		char part[16];
		uint64_t want = FAKE_RECORDS(1000 + 500 * i);

		snprintf(part, sizeof(part), "-m%u-", i);
		if (!CHECK(got_file(file_in(dir, part), &g)))
			continue;
		CHECK_EQ(g.records, want);
		CHECK_EQ(g.gaps + g.tail, 0);
		CHECK_EQ(g.fs.frames, g.fs.end_seq + 1);
		CHECK_EQ(g.fs.seq_gaps + g.fs.bad_checksum, 0);
		CHECK(g.fs.flags & KETW_FILE_STREAM_COMPLETE);
	}
	free(o);
	free(e);
}

/* A connection to the collector on @port; -1 on failure. */
static int connect_port(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(port);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A PREAMBLE frame of a made-up stream @id: its bytes on the wire. */
static size_t hostile_preamble(unsigned char *out, size_t size, uint64_t id,
			       struct ketw_frame_encoder *enc)
{
	struct ketw_stream_hello hello = {
		.magic = KETW_STREAM_MAGIC,
		.version_major = KETW_STREAM_VERSION_MAJOR,
		.size = sizeof(hello), .stream_id = id,
	};
	unsigned char data[sizeof(struct ketw_file_header) + sizeof(hello)];
	struct ketw_output_info info;
	struct ketw_file_header h;

	test_info(&info, 2);
	snprintf(info.hostname, sizeof(info.hostname), "hostile");
	ketw_output_header_init(&h, &info);
	memcpy(data, &h, sizeof(h));
	memcpy(data + sizeof(h), &hello, sizeof(hello));
	ketw_frame_encoder_init(enc, 0);
	return (size_t)ketw_frame_encode(enc, KETW_FRAME_PREAMBLE, data,
					 sizeof(data), out, size);
}

/*
 * A sender that floods: a PREAMBLE (if @hello), then bytes as fast as
 * the collector takes them, half of them flags and escapes, forever;
 * again whenever the collector hangs up.
 */
static pid_t hostile_flooder(unsigned int port, bool hello)
{
	static unsigned char junk[65536], pre[1024];
	struct ketw_frame_encoder enc;
	uint64_t r = 12345;
	size_t i, plen;
	pid_t pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < sizeof(junk); i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		junk[i] = (r >> 33) & 1 ? (r >> 40) & 1 ? 0x7e : 0x7d :
			  (unsigned char)(r >> 45);
	}
	plen = hostile_preamble(pre, sizeof(pre), 0xbad0bad0bad0ull, &enc);
	for (;;) {
		fd = connect_port(port);
		if (fd < 0) {
			usleep(10000);
			continue;
		}
		if (hello && send(fd, pre, plen, MSG_NOSIGNAL) < 0) {
			close(fd);
			continue;
		}
		while (send(fd, junk, sizeof(junk), MSG_NOSIGNAL) > 0)
			;
		close(fd);
	}
}

/* One normal stream of @events: its wall time to the acknowledged END. */
static uint64_t timed_stream(const char *name, unsigned int port,
			     unsigned int events)
{
	char store[MAX_ENV][300], to[64], *o = NULL, *e = NULL;
	const char *env[MAX_ENV];
	uint64_t t0;
	int rc;

	snprintf(to, sizeof(to), "127.0.0.1:%u", port);
	fake_env(env, store, name, events);
	t0 = now_ms();
	rc = test_run_ketw(env, (const char *const[]){ "stream", "-s", name,
			   "-p", "ketw-sample", "--to", to, "-n", "1", NULL },
			   &o, &e);
	t0 = now_ms() - t0;
	CHECK_EQ(rc, 0);
	if (strstr(o, "could not be sent"))
		printf("    %s", o);
	free(o);
	free(e);
	return t0;
}

/*
 * A sender stalled in the middle of a frame, one flooding garbage after
 * a PREAMBLE, one flooding garbage without (the collector hangs up on
 * it after a MiB, and it comes back): the others' streams take about as
 * long as alone.
 */
TEST(stream_stalled_and_flooding_senders_do_not_slow_others)
{
	static unsigned char pre[1024], half[256];
	const char *dir = test_path("col-hostile");
	struct ketw_frame_encoder enc;
	uint64_t alone, hostile;
	struct child l;
	unsigned int port;
	pid_t flood[2];
	size_t plen;
	struct got g;
	int stalled, i;

	NEED_FAKE();
	port = listen_start(&l, dir, "100");
	ASSERT(port);
	/* Alone, twice: the second figure (warm caches) counts. */
	timed_stream("warm", port, 8000);
	alone = timed_stream("alone", port, 8000);

	/* Stalled: a PREAMBLE, then half a record's frame, then nothing. */
	stalled = connect_port(port);
	ASSERT(stalled >= 0);
	plen = hostile_preamble(pre, sizeof(pre), 0x57a11ed, &enc);
	ASSERT(send(stalled, pre, plen, 0) == (ssize_t)plen);
	memset(half, 0x11, sizeof(half));
	ASSERT(send(stalled, half, sizeof(half), 0) == sizeof(half));
	flood[0] = hostile_flooder(port, true);
	flood[1] = hostile_flooder(port, false);
	usleep(300000);
	hostile = timed_stream("amid", port, 8000);
	for (i = 0; i < 2; i++) {
		kill(flood[i], SIGKILL);
		waitpid(flood[i], NULL, 0);
	}
	close(stalled);
	printf("    a stream of %u records: %llu ms alone, %llu ms beside a stalled sender and two flooding ones\n",
	       FAKE_RECORDS(8000), (unsigned long long)alone,
	       (unsigned long long)hostile);
	/* Generous (a shared machine): not stalled, not starved. */
	CHECK(hostile < 5 * alone + 2000);
	kill(l.pid, SIGTERM);
	ASSERT_EQ(child_wait(&l, 20000), 0);

	/* The stream beside them: whole, clean. */
	ASSERT(got_file(file_in(dir, "-amid-"), &g));
	CHECK_EQ(g.records, FAKE_RECORDS(8000));
	CHECK_EQ(g.fs.bad_checksum + g.fs.seq_gaps + g.fs.skipped, 0);
	CHECK(g.fs.flags & KETW_FILE_STREAM_COMPLETE);
	/* The flooder's own file counts what it sent: lots, all bad. */
	ASSERT(got_file(file_in(dir, "hostile-unit-0000bad0bad0bad0"), &g));
	CHECK(g.fs.skipped > (1u << 20));
	CHECK(g.fs.bad_checksum > 1000);
	CHECK(!(g.fs.flags & KETW_FILE_STREAM_COMPLETE));
	CHECK_EQ(g.records, 0);
	/* The stalled one: its half frame, cut. */
	ASSERT(got_file(file_in(dir, "-00000000057a11ed"), &g));
	CHECK_EQ(g.fs.partial, 1);
	CHECK_CONTAINS(l.buf, "no PREAMBLE in its first MiB: not a ketw stream; closed");
}

/*
 * Chunks @stem (FILE, FILE.1.ketw, ...): each complete alone and
 * decodable alone; together every record of each CPU exactly once, in
 * sequence. Returns the chunks; *@records their records.
 */
static unsigned int check_chunks(const char *first, uint64_t *records,
				 bool stats_each)
{
	static uint8_t seen[2][16384];
	char path[700], stem[600], *o, *e;
	struct ketw_input *in;
	struct ketw_record rec;
	unsigned int n, cpu;
	size_t len;
	char err[256];

	memset(seen, 0, sizeof(seen));
	*records = 0;
	len = strlen(first) - strlen(".ketw");
	snprintf(stem, sizeof(stem), "%.*s", (int)len, first);
	for (n = 0;; n++) {
		if (n)
			snprintf(path, sizeof(path), "%s.%u.ketw", stem, n);
		else
			snprintf(path, sizeof(path), "%s", first);
		if (access(path, F_OK))
			break;
		/* Strictly: END and all. */
		if (!CHECK_EQ(ketw_input_open(path, &in, err, sizeof(err)), 0)) {
			printf("    %s: %s\n", path, err);
			continue;
		}
		while (ketw_input_next(in, &rec) > 0) {
			CHECK(rec.cpu < 2 && rec.hdr->sequence < 16384);
			if (rec.cpu < 2 && rec.hdr->sequence < 16384)
				seen[rec.cpu][rec.hdr->sequence]++;
			(*records)++;
		}
		/* record's: the counters at the cut; listen's: once said. */
		if (stats_each)
			CHECK(ketw_input_cpu_stats(in, 0) != NULL);
		ketw_input_close(in);
		/* Decodes alone: a later chunk by its rundown in copy. */
		o = e = NULL;
		CHECK_EQ(test_run_ketw(NULL, (const char *const[]){ "report",
				       path, NULL }, &o, &e), 0);
		if (!strstr(o, "event=tick kw=0x1"))
			CHECK_CONTAINS(o, "id=STOP");
		else
			CHECK_CONTAINS(o, " index=");
		CHECK(!strstr(o, "rundown:  none"));
		free(o);
		free(e);
	}
	for (cpu = 0; cpu < 2; cpu++) {
		bool end = false;

		for (len = 0; len < 16384; len++) {
			/* Each once, no hole before the last. */
			if (!seen[cpu][len])
				end = true;
			else if (!CHECK(!end && seen[cpu][len] == 1))
				break;
		}
	}
	return n;
}

/* ketw record --rotate-size: chunks that read alone and together. */
TEST(stream_record_rotates_into_chunks)
{
	char store[MAX_ENV][300], *o = NULL, *e = NULL, *all;
	const char *env[MAX_ENV], *path = test_path("rot.ketw");
	unsigned int chunks;
	uint64_t records;

	NEED_FAKE();
	fake_env(env, store, "rr.state", 8000);
	ASSERT_EQ(test_run_ketw(env, (const char *const[]){ "record", "-s",
			"rr", "-p", "ketw-sample", "-o", path, "-d", "2",
			"--rotate-size", "64K", NULL }, &o, &e), 0);
	CHECK_CONTAINS(o, "more chunks, the last ");
	free(o);
	free(e);
	chunks = check_chunks(path, &records, true);
	CHECK(chunks >= 2);
	CHECK_EQ(records, FAKE_RECORDS(8000));
	/* Together: one report of them all, every record once. */
	{
		const char *argv[20] = { "report", "-R" };
		static char paths[16][700];
		unsigned int i, n = 0;
		const char *p;

		for (i = 0; i < chunks && i < 16; i++) {
			if (i)
				snprintf(paths[i], sizeof(paths[i]),
					 "%s", test_path("rot.x"));
			if (i)
				snprintf(strrchr(paths[i], '/'), 64,
					 "/rot.%u.ketw", i);
			else
				snprintf(paths[i], sizeof(paths[i]), "%s", path);
			argv[2 + i] = paths[i];
		}
		argv[2 + i] = NULL;
		all = NULL;
		CHECK_EQ(test_run_ketw(NULL, argv, &all, &e), 0);
		for (p = all; p && (p = strstr(p, "\n  cpu=")); p++)
			n++;
		/* -R: the rundown is not listed. */
		CHECK_EQ(n, FAKE_RECORDS(8000) - 6);
		free(all);
		free(e);
	}
}

/* ketw listen --rotate-size: a stream's chunks, the same. */
TEST(stream_listen_rotates_into_chunks)
{
	char store[MAX_ENV][300], to[64], *o = NULL, *e = NULL;
	const char *env[MAX_ENV], *dir = test_path("col-rot");
	struct child l;
	unsigned int port, chunks;
	uint64_t records;

	NEED_FAKE();
	mkdir(dir, 0755);
	ASSERT(child_start(&l, test_ketw_path, NULL, (const char *const[]){
		"listen", "-p", "0", "-o", dir, "-c", "1", "--rotate-size",
		"64K", "--max-memory", "128", NULL }));
	port = child_port(&l, "port ");
	ASSERT(port);
	snprintf(to, sizeof(to), "127.0.0.1:%u", port);
	fake_env(env, store, "lr.state", 8000);
	ASSERT_EQ(test_run_ketw(env, (const char *const[]){ "stream", "-s",
			"lr", "-p", "ketw-sample", "--to", to, "-n", "1",
			NULL }, &o, &e), 0);
	free(o);
	free(e);
	ASSERT_EQ(child_wait(&l, 20000), 0);
	chunks = check_chunks(file_in(dir, "-lr-"), &records, false);
	CHECK(chunks >= 3);
	CHECK_EQ(records, FAKE_RECORDS(8000));
}
