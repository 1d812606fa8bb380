// SPDX-License-Identifier: GPL-2.0
/*
 * ketw-drain-bench: how fast user space drains a session through mmap()
 * against read(). Part of "make bench"; runs in the guest.
 *
 * One FLUSH session with buffers large enough that nothing is lost. Each
 * round fills it twice with the same events (ketw_bench.ko's "fill": N
 * events of SIZE payload bytes on every online CPU), stopping the session
 * after each fill, and drains it once with read() into a buffer of
 * READ_KB KiB and once in place through the mapped meta pages and data
 * areas. Both drains do the same work per record: they read its header
 * (sum of sequence numbers, bytes). Only the drain is timed. The last
 * line holds the medians over the rounds as key=value pairs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/ketw.h>

#define FILL_PATH_DEFAULT	"/sys/module/ketw_bench/parameters/run"
#define MAX_ROUNDS		15
#define META_SIZE		4096

struct opts {
	const char *session;
	const char *fill_path;
	unsigned int events;	/* per CPU, per fill */
	unsigned int size;	/* payload bytes */
	unsigned int buffer_kb;
	unsigned int read_kb;
	unsigned int rounds;
};

struct tally {
	uint64_t records;
	uint64_t bytes;
	uint64_t seq_sum;
	uint64_t ns;
};

struct mcpu {
	struct ketw_meta_page *meta;
	const unsigned char *data;
	uint32_t size;
};

static void die(const char *what)
{
	fprintf(stderr, "ketw-drain-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *msg)
{
	fprintf(stderr, "ketw-drain-bench: %s\n", msg);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int session_ref(int fd, unsigned long cmd, const char *name)
{
	struct ketw_session_ref ref;

	memset(&ref, 0, sizeof(ref));
	snprintf(ref.name, sizeof(ref.name), "%s", name);
	return ioctl(fd, cmd, &ref);
}

static void fill(const struct opts *o)
{
	char cmd[64];
	int fd, n;

	fd = open(o->fill_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(o->fill_path);
	n = snprintf(cmd, sizeof(cmd), "fill %u %u\n", o->events, o->size);
	if (write(fd, cmd, (size_t)n) != n)
		die("fill");
	close(fd);
}

/* Start, fill, stop: the session then holds one fill's records. */
static void load(int fd, const struct opts *o)
{
	struct ketw_session_status st;

	if (session_ref(fd, KETW_IOC_START, o->session))
		die("start");
	fill(o);
	if (session_ref(fd, KETW_IOC_STOP, o->session))
		die("stop");
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	snprintf(st.name, sizeof(st.name), "%s", o->session);
	if (ioctl(fd, KETW_IOC_STATUS, &st))
		die("status");
	if (st.lost)
		fail("events were lost: use a larger buffer (-b) or fewer events (-n)");
}

/* The per-record work both drains do: read the header. */
static inline void take(struct tally *t, const struct ketw_event_header *h,
			uint32_t span)
{
	t->records++;
	t->bytes += span;
	t->seq_sum += h->sequence;
}

static void drain_read(int fd, unsigned char *buf, size_t len, struct tally *t)
{
	const struct ketw_event_header *h;
	uint64_t t0 = now_ns();
	size_t off;
	ssize_t n;
	uint32_t span;

	memset(t, 0, sizeof(*t));
	for (;;) {
		n = read(fd, buf, len);
		if (n < 0)
			die("read");
		if (n == 0)
			break;
		for (off = 0; off < (size_t)n; off += span) {
			h = (const void *)(buf + off);
			span = KETW_RECORD_SPAN(h->size);
			if (span < KETW_EVENT_HEADER_SIZE || span > n - off)
				fail("read: malformed record");
			take(t, h, span);
		}
	}
	t->ns = now_ns() - t0;
}

static void map_cpu(int fd, unsigned int cpu, struct mcpu *m)
{
	void *p;

	p = mmap(NULL, META_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)KETW_MMAP_CPU(cpu));
	if (p == MAP_FAILED)
		die("mmap meta page");
	m->meta = p;
	m->size = m->meta->data_size;
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd,
		 (off_t)m->meta->data_offset);
	if (p == MAP_FAILED)
		die("mmap data area");
	m->data = p;
}

static void unmap_all(struct mcpu *m, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		munmap((void *)m[i].data, m[i].size);
		munmap(m[i].meta, META_SIZE);
	}
}

/*
 * FLUSH: records between consumed and commit are complete and stay put
 * until consumed moves; take them in place, then give them back.
 */
static void drain_mmap(struct mcpu *m, unsigned int nr, struct tally *t)
{
	const struct ketw_event_header *h;
	uint64_t t0 = now_ns();
	uint32_t c, p, span, mask;
	unsigned int cpu;

	memset(t, 0, sizeof(*t));
	for (cpu = 0; cpu < nr; cpu++) {
		mask = m[cpu].size - 1;
		p = __atomic_load_n(&m[cpu].meta->commit, __ATOMIC_ACQUIRE);
		c = __atomic_load_n(&m[cpu].meta->consumed, __ATOMIC_RELAXED);
		while (c != p) {
			h = (const void *)(m[cpu].data + (c & mask));
			span = KETW_RECORD_SPAN(h->size);
			if (span < KETW_RECORD_ALIGN || span > p - c ||
			    (c & mask) + span > m[cpu].size)
				fail("mmap: malformed record");
			if (!(h->flags & KETW_RECORD_PADDING))
				take(t, h, span);
			c += span;
		}
		__atomic_store_n(&m[cpu].meta->consumed, c, __ATOMIC_RELEASE);
	}
	t->ns = now_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static uint64_t per_s(uint64_t count, uint64_t ns)
{
	return ns ? (uint64_t)((double)count * 1e9 / (double)ns) : 0;
}

static unsigned int opt_uint(const char *s, unsigned int lo, unsigned int hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s || v < lo || v > hi) {
		fprintf(stderr, "ketw-drain-bench: '%s' is not in %u..%u\n",
			s, lo, hi);
		exit(2);
	}
	return (unsigned int)v;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ketw-drain-bench [-s SESSION] [-n EVENTS] [-p SIZE] [-b KB] [-R KB]\n"
		"                        [-r ROUNDS] [-F FILL_PATH]\n"
		"  -s  session name (default drainbench)\n"
		"  -n  events per CPU per fill (default 100000)\n"
		"  -p  payload bytes per event (default 64)\n"
		"  -b  session buffer KiB per CPU (default 16384)\n"
		"  -R  read() buffer KiB (default 64)\n"
		"  -r  rounds; medians are printed (default 3)\n"
		"  -F  where \"fill N SIZE\" is written (default %s)\n",
		FILL_PATH_DEFAULT);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.session = "drainbench", .fill_path = FILL_PATH_DEFAULT,
		.events = 100000, .size = 64, .buffer_kb = 16384, .read_kb = 64,
		.rounds = 3,
	};
	uint64_t rd_ns[MAX_ROUNDS], mm_ns[MAX_ROUNDS], rd, mm;
	struct tally tr, tm, first = { 0 };
	struct ketw_session_attr attr;
	unsigned int i, j, nr;
	unsigned char *buf;
	struct mcpu *m;
	int fd, c;

	while ((c = getopt(argc, argv, "s:n:p:b:R:r:F:h")) != -1) {
		switch (c) {
		case 's':
			o.session = optarg;
			break;
		case 'n':
			o.events = opt_uint(optarg, 1, 10000000);
			break;
		case 'p':
			o.size = opt_uint(optarg, 8, 1024);
			break;
		case 'b':
			o.buffer_kb = opt_uint(optarg, KETW_BUFFER_KB_MIN,
					       KETW_BUFFER_KB_MAX);
			break;
		case 'R':
			o.read_kb = opt_uint(optarg, 4, 65536);
			break;
		case 'r':
			o.rounds = opt_uint(optarg, 1, MAX_ROUNDS);
			break;
		case 'F':
			o.fill_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	fd = open(KETW_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(KETW_DEVICE);
	session_ref(fd, KETW_IOC_DESTROY, o.session);	/* a leftover */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	snprintf(attr.name, sizeof(attr.name), "%s", o.session);
	attr.buffer_kb = o.buffer_kb;
	attr.policy = KETW_POLICY_FLUSH;
	if (ioctl(fd, KETW_IOC_CREATE, &attr))
		die("create");
	nr = attr.nr_cpus;
	m = calloc(nr, sizeof(*m));
	buf = malloc((size_t)o.read_kb << 10);
	if (!m || !buf)
		die("malloc");
	for (i = 0; i < o.rounds; i++) {
		load(fd, &o);
		drain_read(fd, buf, (size_t)o.read_kb << 10, &tr);
		/*
		 * read() and a mapped data area exclude each other (one
		 * consumer per buffer): map for the mmap round only. The
		 * mapping is not part of the drain's time.
		 */
		for (j = 0; j < nr; j++)
			map_cpu(fd, j, &m[j]);
		load(fd, &o);
		drain_mmap(m, nr, &tm);
		unmap_all(m, nr);
		if (tr.records != tm.records || tr.bytes != tm.bytes)
			fail("read() and mmap drained different amounts");
		if (tr.records < (uint64_t)o.events)
			fail("fewer records than events filled");
		if (!i)
			first = tr;
		else if (tr.records != first.records)
			fail("rounds drained different amounts");
		rd_ns[i] = tr.ns;
		mm_ns[i] = tm.ns;
		printf("round %u: %llu records, %llu bytes: read() %llu us, mmap %llu us\n",
		       i + 1, (unsigned long long)tr.records,
		       (unsigned long long)tr.bytes,
		       (unsigned long long)tr.ns / 1000,
		       (unsigned long long)tm.ns / 1000);
	}
	rd = median(rd_ns, o.rounds);
	mm = median(mm_ns, o.rounds);
	printf("drain records=%llu bytes=%llu size=%u read_kb=%u rounds=%u"
	       " read_ns=%llu mmap_ns=%llu read_bps=%llu mmap_bps=%llu"
	       " read_rps=%llu mmap_rps=%llu\n",
	       (unsigned long long)first.records,
	       (unsigned long long)first.bytes, o.size, o.read_kb, o.rounds,
	       (unsigned long long)rd, (unsigned long long)mm,
	       (unsigned long long)per_s(first.bytes, rd),
	       (unsigned long long)per_s(first.bytes, mm),
	       (unsigned long long)per_s(first.records, rd),
	       (unsigned long long)per_s(first.records, mm));

	/* Detach, then remove the session. */
	close(fd);
	fd = open(KETW_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || session_ref(fd, KETW_IOC_DESTROY, o.session))
		die("destroy");
	close(fd);
	free(buf);
	free(m);
	return 0;
}
