// SPDX-License-Identifier: GPL-2.0
/*
 * ketw buffer core under stress, for each full policy: ketw_stress logs
 * from a kthread, a softirq timer and a hardirq timer on every CPU at
 * once, while this test drains every CPU through mmap. Afterwards, per
 * CPU, every record is whole and in order, and the kernel's counters, the
 * sequence numbers and the provider's own counts agree exactly.
 */
#include "ketw_test.h"
#include <pthread.h>
#include "ketw_stress.h"
#include "kselftest_harness.h"

#define SESSION		"stress_test"
#define KEEPER		"stress_keep"
#define MAX_CPUS	64
#define RUN_MS		"1500"

static const uint8_t stress_guid[KETW_GUID_SIZE] = KETW_STRESS_GUID_BYTES;

struct cpu_check {
	int cpu;
	int started;
	uint64_t next_seq;
	uint64_t gaps;
	uint64_t delivered;		/* all records */
	uint64_t stress;		/* ketw_stress records */
	uint64_t system;		/* system records */
	uint64_t next_counter[KETW_STRESS_NR_CTX];
	uint64_t per_ctx[KETW_STRESS_NR_CTX];
	uint64_t bad_payload;
	uint64_t bad_order;
	int start_seen, stop_seen;
};

static void check_record(const struct ketw_event_header *h, void *arg)
{
	struct cpu_check *c = arg;
	const struct ketw_stress_ev *ev = (const void *)(h + 1);
	const uint8_t *fill = (const uint8_t *)(ev + 1);
	uint32_t k, len;

	if (h->cpu != (uint32_t)c->cpu)
		c->bad_order++;
	if (c->started && h->sequence < c->next_seq)
		c->bad_order++;
	else
		c->gaps += h->sequence - c->next_seq;
	c->started = 1;
	c->next_seq = h->sequence + 1;
	c->delivered++;

	if (h->flags & KETW_RECORD_SYSTEM) {
		c->system++;
		c->start_seen += h->event_id == KETW_SYS_START;
		c->stop_seen += h->event_id == KETW_SYS_STOP;
		return;
	}
	if (memcmp(h->provider_guid, stress_guid, KETW_GUID_SIZE) ||
	    h->size < KETW_EVENT_HEADER_SIZE + sizeof(*ev)) {
		c->bad_payload++;
		return;
	}
	len = ev->counter % KETW_STRESS_FILL_MOD;
	if (ev->ctx >= KETW_STRESS_NR_CTX || ev->ctx != h->event_id ||
	    ev->cpu != h->cpu ||
	    h->size != KETW_EVENT_HEADER_SIZE + sizeof(*ev) + len) {
		c->bad_payload++;
		return;
	}
	for (k = 0; k < len; k++)
		if (fill[k] != (uint8_t)(ev->counter * 7 + ev->ctx + k))
			c->bad_payload++;
	/* Per context, counters only go up: no record twice, none reordered. */
	if (ev->counter < c->next_counter[ev->ctx])
		c->bad_order++;
	c->next_counter[ev->ctx] = ev->counter + 1;
	c->per_ctx[ev->ctx]++;
	c->stress++;
}

struct runner {
	const char *ms;
	int err;
	volatile int done;
};

static void *run_stress(void *p)
{
	struct runner *r = p;

	r->err = write_str("/sys/module/ketw_stress/parameters/run_ms", r->ms);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Per CPU: events of all three contexts the last run logged. */
static int read_emitted(uint64_t emitted[MAX_CPUS])
{
	FILE *f = fopen("/sys/module/ketw_stress/parameters/emitted", "r");
	unsigned long long t, s, h, n;
	int cpu;

	if (!f)
		return -errno;
	memset(emitted, 0, MAX_CPUS * sizeof(emitted[0]));
	while (fscanf(f, "%d %llu %llu %llu %llu", &cpu, &t, &s, &h, &n) == 5)
		if (cpu >= 0 && cpu < MAX_CPUS)
			emitted[cpu] = t + s + h + n;
	fclose(f);
	return 0;
}

FIXTURE(stress) {
	int fd;
	int ncpus;
	struct mcpu m[MAX_CPUS];
	struct cpu_check c[MAX_CPUS];
};

FIXTURE_VARIANT(stress) {
	uint32_t policy;
	int use_read;		/* drain with read() instead of mmap */
};

FIXTURE_VARIANT_ADD(stress, loop) { .policy = KETW_POLICY_LOOP };
FIXTURE_VARIANT_ADD(stress, until_full) { .policy = KETW_POLICY_UNTIL_FULL };
FIXTURE_VARIANT_ADD(stress, flush) { .policy = KETW_POLICY_FLUSH };
FIXTURE_VARIANT_ADD(stress, loop_read) {
	.policy = KETW_POLICY_LOOP, .use_read = 1,
};
FIXTURE_VARIANT_ADD(stress, flush_read) {
	.policy = KETW_POLICY_FLUSH, .use_read = 1,
};

/* Drain with non-blocking read(): whole records, dispatched by CPU. */
static int read_some(int fd, struct cpu_check *c, int ncpus)
{
	static unsigned char buf[1 << 16];
	struct drained d = { .buf = buf };
	const struct ketw_event_header *h;
	size_t off = 0;
	int bad = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return n;
		d.len = n;
		off = 0;
		while ((h = next_record(&d, &off, &bad))) {
			if (h->cpu >= (uint32_t)ncpus)
				return -1;
			check_record(h, &c[h->cpu]);
		}
		if (bad)
			return -1;
	}
}

/* Drain every CPU once, the variant's way. */
static int drain_all(int fd, struct mcpu *m, struct cpu_check *c, int ncpus,
		     int use_read, uint64_t *dropped)
{
	int cpu;

	if (use_read)
		return read_some(fd, c, ncpus);
	for (cpu = 0; cpu < ncpus; cpu++)
		if (mcpu_consume(&m[cpu], check_record, &c[cpu], dropped) < 0)
			return -1;
	return 0;
}

FIXTURE_SETUP(stress)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_STRESS);

	ketw_cleanup(SESSION);
	ketw_cleanup(KEEPER);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	memset(self->m, 0, sizeof(self->m));
	memset(self->c, 0, sizeof(self->c));
}

FIXTURE_TEARDOWN(stress)
{
	int cpu;

	for (cpu = 0; cpu < self->ncpus; cpu++)
		if (self->m[cpu].meta)
			mcpu_unmap(&self->m[cpu]);
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	ketw_ref(self->fd, KETW_IOC_DESTROY, KEEPER);
	close(self->fd);
}

/*
 * A session that enables ketw-stress but takes none of its events (level
 * 1, critical; they are level 4): while it runs, the provider's static
 * branch stays on.
 *
 * UNTIL_FULL stops itself in the middle of the stress, and the last
 * session to let go of a provider patches its call sites (text_poke with
 * int3 and IPIs) while two vCPUs run through them millions of times a
 * second from every context. Under TCG that wedged the guest about one
 * run in eight: a monitor showed both vCPUs cycling through the int3 at a
 * call site of ketw_stress that memory already held as patched, and the
 * patcher never finishing. Real CPUs patch live sites all the time
 * (ftrace, jump labels); policy_test covers an UNTIL_FULL session that
 * stops itself and patches, without the stress. Here the keeper holds the
 * branch on, so the stress measures the accounting, not the emulator.
 */
static int start_keeper(int fd)
{
	struct ketw_session_attr a;
	int err;

	ketw_attr_init(&a, KEEPER);
	a.buffer_kb = 64;
	a.policy = KETW_POLICY_LOOP;
	if (ioctl(fd, KETW_IOC_CREATE, &a))
		return -errno;
	err = ketw_enable(fd, KEEPER, KETW_STRESS_NAME, NULL, 1, 0, 0, NULL,
			  0, 0);
	if (err)
		return err;
	return ketw_ref(fd, KETW_IOC_START, KEEPER) ? -errno : 0;
}

TEST_F_TIMEOUT(stress, accounting_is_exact, 120)
{
	struct runner r = { .ms = RUN_MS };
	uint64_t emitted[MAX_CPUS], dropped = 0, sys_offered, total = 0;
	uint64_t ctx_total[KETW_STRESS_NR_CTX] = { 0 };
	int k;
	struct ketw_session_attr a;
	struct ketw_cpu_stats st;
	pthread_t th;
	int cpu, done;

	ketw_attr_init(&a, SESSION);
	a.buffer_kb = 64;
	a.policy = variant->policy;
	/* START and STOP from CPU 0, so the test knows where they are. */
	ASSERT_EQ(0, pin_cpu(0));
	if (variant->policy == KETW_POLICY_UNTIL_FULL)
		ASSERT_EQ(0, start_keeper(self->fd));
	ASSERT_EQ(0, session_start(self->fd, &a));
	self->ncpus = a.nr_cpus < MAX_CPUS ? a.nr_cpus : MAX_CPUS;
	for (cpu = 0; cpu < self->ncpus; cpu++) {
		/* read() and an mmap consumer exclude each other. */
		if (!variant->use_read)
			ASSERT_EQ(0, mcpu_map(self->fd, cpu, &self->m[cpu]));
		self->c[cpu].cpu = cpu;
	}
	/* The reader may run on any CPU, among the writers. */
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu_set_t),
				       &(cpu_set_t){ { ~0UL } }));

	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, pthread_create(&th, NULL, run_stress, &r));
	do {
		done = __atomic_load_n(&r.done, __ATOMIC_ACQUIRE);
		ASSERT_EQ(0, drain_all(self->fd, self->m, self->c, self->ncpus,
				       variant->use_read, &dropped));
		usleep(200);
	} while (!done);
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, r.err);

	ASSERT_EQ(0, pin_cpu(0));
	if (ketw_ref(self->fd, KETW_IOC_STOP, SESSION))
		ASSERT_EQ(EALREADY, errno);	/* UNTIL_FULL stopped itself */
	ASSERT_EQ(0, drain_all(self->fd, self->m, self->c, self->ncpus,
			       variant->use_read, &dropped));
	ASSERT_EQ(0, read_emitted(emitted));

	for (cpu = 0; cpu < self->ncpus; cpu++) {
		struct cpu_check *c = &self->c[cpu];
		uint64_t lost;

		ASSERT_EQ(0, cpu_stats(self->fd, SESSION, cpu, &st));
		lost = st.lost_full + st.lost_busy + st.lost_nested;
		TH_LOG("cpu%d: emitted %llu delivered %llu (thread %llu softirq %llu hardirq %llu nmi %llu, system %llu) lost %llu overwritten %llu, reader dropped %llu",
		       cpu, (unsigned long long)emitted[cpu],
		       (unsigned long long)c->stress,
		       (unsigned long long)c->per_ctx[0],
		       (unsigned long long)c->per_ctx[1],
		       (unsigned long long)c->per_ctx[2],
		       (unsigned long long)c->per_ctx[3],
		       (unsigned long long)c->system,
		       (unsigned long long)lost,
		       (unsigned long long)st.overwritten,
		       (unsigned long long)dropped);
		EXPECT_EQ(0, c->bad_payload);
		EXPECT_EQ(0, c->bad_order);
		/* UNTIL_FULL may stop before a CPU's writer got going. */
		if (variant->policy != KETW_POLICY_UNTIL_FULL)
			EXPECT_LT(0, c->stress);
		total += c->stress;
		for (k = 0; k < KETW_STRESS_NR_CTX; k++)
			ctx_total[k] += c->per_ctx[k];
		/* Every accepted event took one sequence number ... */
		EXPECT_EQ(st.sequence, st.written + lost);
		/* ... every record stored was read or overwritten ... */
		EXPECT_EQ(st.written, c->delivered + st.overwritten);
		/* ... and each gap the reader saw is a counted loss. */
		EXPECT_EQ(c->gaps + (st.sequence - c->next_seq),
			  lost + st.overwritten);
		if (variant->policy != KETW_POLICY_LOOP)
			EXPECT_EQ(0, st.overwritten);
		/*
		 * The provider's own count. LOOP and FLUSH ran the whole
		 * time: every stress event logged took a number, and the
		 * other numbers went to system events, of which only START
		 * and STOP (on CPU 0), and OVERFLOW/RESUME pairs in LOOP, can
		 * have been lost or overwritten. UNTIL_FULL stopped itself
		 * (it keeps room for its system events, so it lost none):
		 * it took at most what was logged.
		 */
		if (variant->policy == KETW_POLICY_UNTIL_FULL) {
			EXPECT_GE(emitted[cpu], st.sequence - c->system);
		} else {
			sys_offered = st.sequence - emitted[cpu];
			EXPECT_LE(c->system, sys_offered);
			EXPECT_GE(c->system + (cpu == 0 ? 2 : 0) +
				  2 * (st.lost_busy + st.lost_nested),
				  sys_offered);
		}
	}
	EXPECT_LT(0, total);
	/* Every context really wrote (NMIs: x86 only). */
	if (variant->policy != KETW_POLICY_UNTIL_FULL) {
		for (k = 0; k < KETW_STRESS_NR_CTX; k++) {
#ifndef __x86_64__
			if (k == KETW_STRESS_CTX_NMI)
				continue;
#endif
			EXPECT_LT(0, ctx_total[k]) TH_LOG("context %d", k);
		}
	}
	/* One STOP: from the auto-stop work (any CPU) or from us (CPU 0). */
	for (done = 0, cpu = 0; cpu < self->ncpus; cpu++)
		done += self->c[cpu].stop_seen;
	if (variant->policy != KETW_POLICY_FLUSH)	/* FLUSH may lose it */
		EXPECT_EQ(1, done);
}

TEST_HARNESS_MAIN
