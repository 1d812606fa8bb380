// SPDX-License-Identifier: GPL-2.0
/*
 * ketw records' execution context: each record's flags say which context
 * logged it (task, softirq, hardirq, NMI), whether interrupts were off,
 * whether a reschedule was due and the caller's preemption depth. The
 * sample provider logs a tick from each context on request (its emit_ctx
 * parameter: a tasklet, a hard hrtimer, an NMI it sends its own CPU
 * through the local APIC); every value is checked.
 */
#include "ketw_test.h"
#include "kselftest_harness.h"

#define SESSION "ctx_test"

/* What each of emit_ctx's words must give; index KETW_SAMPLE_CTX_TASK + i. */
static const struct {
	const char *word;
	unsigned int ctx;	/* KETW_CTX_* */
	int irqs_off;
	int depth;		/* -1: what the interrupted code had */
	int task;		/* thread and process ids are the writer's */
} cases[] = {
	{ "task", KETW_CTX_TASK, 0, 0, 1 },
	{ "preempt", KETW_CTX_TASK, 0, 1, 1 },
	{ "bh", KETW_CTX_TASK, 0, 0, 1 },
	{ "irqsoff", KETW_CTX_TASK, 1, 0, 1 },
	{ "softirq", KETW_CTX_SOFTIRQ, 0, -1, 0 },
	{ "hardirq", KETW_CTX_HARDIRQ, 1, -1, 0 },
	{ "nmi", KETW_CTX_NMI, 1, -1, 0 },
};

/* Bits 8 to 11 of a record's flags: reserved (bit 8 for KETW_RECORD_EXT). */
#define RESERVED_BITS	0x0f00

FIXTURE(ctx) {
	int fd;
	struct ketw_session_attr attr;
	struct drained d;
};

FIXTURE_SETUP(ctx)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);
	ketw_cleanup(SESSION);
	self->fd = ketw_open();
	ASSERT_LE(0, self->fd);
	ketw_attr_init(&self->attr, SESSION);
	memset(&self->d, 0, sizeof(self->d));
	ASSERT_EQ(0, pin_cpu(0));
}

FIXTURE_TEARDOWN(ctx)
{
	ketw_ref(self->fd, KETW_IOC_DESTROY, SESSION);
	close(self->fd);
	free(self->d.buf);
}

/*
 * One tick from each context, and the session's own START, rundown and
 * STOP (logged by the ioctls' task): each record's context bits exactly.
 */
TEST_F(ctx, every_context)
{
	unsigned int seen[ARRAY_SIZE(cases)] = { 0 }, c, rundown = 0;
	const struct ketw_event_header *h;
	int bad = 0, start = 0, stop = 0;
	size_t off = 0;

	self->attr.flags &= ~KETW_SESSION_NO_RUNDOWN;	/* rundown records too */
	ASSERT_EQ(0, session_start(self->fd, &self->attr));
	for (c = 0; c < ARRAY_SIZE(cases); c++)
		ASSERT_EQ(0, write_str(SAMPLE_PARAM("emit_ctx"), cases[c].word))
			TH_LOG("emit_ctx case %u: %s", c, strerror(errno));
	ASSERT_EQ(0, ketw_ref(self->fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(self->fd, &self->d));

	while ((h = next_record(&self->d, &off, &bad))) {
		const struct ketw_sample_tick *t = (const void *)(h + 1);

		EXPECT_EQ(0, h->flags & RESERVED_BITS)
			TH_LOG("flags 0x%x", h->flags);
		if (h->flags & KETW_RECORD_SYSTEM) {
			/* Logged by the ioctls: a task, interrupts on. */
			EXPECT_EQ(KETW_CTX_TASK, KETW_RECORD_CTX(h->flags))
				TH_LOG("system event %u", h->event_id);
			EXPECT_EQ(0, h->flags & KETW_RECORD_IRQS_OFF);
			if (h->type == KETW_TYPE_DC_START) {
				rundown++;
				continue;
			}
			/* START and STOP: preemption on, too. */
			EXPECT_EQ(0, KETW_RECORD_PREEMPT_DEPTH(h->flags))
				TH_LOG("system event %u", h->event_id);
			start += is_system(h, KETW_SYS_START);
			stop += is_system(h, KETW_SYS_STOP);
			continue;
		}
		ASSERT_TRUE(is_sample(h));
		c = t->index - KETW_SAMPLE_CTX_TASK;
		ASSERT_LT(c, ARRAY_SIZE(cases)) TH_LOG("index %u", t->index);
		seen[c]++;
		EXPECT_EQ(cases[c].ctx, KETW_RECORD_CTX(h->flags))
			TH_LOG("%s: flags 0x%x", cases[c].word, h->flags);
		EXPECT_EQ(cases[c].irqs_off,
			  !!(h->flags & KETW_RECORD_IRQS_OFF))
			TH_LOG("%s: flags 0x%x", cases[c].word, h->flags);
		if (cases[c].depth >= 0)
			EXPECT_EQ(cases[c].depth,
				  (int)KETW_RECORD_PREEMPT_DEPTH(h->flags))
				TH_LOG("%s: flags 0x%x", cases[c].word,
				       h->flags);
		/* ketw's own ids follow the same line: 0 outside a task. */
		if (cases[c].task) {
			EXPECT_EQ((uint32_t)gettid(), h->thread_id);
		} else {
			EXPECT_EQ(0, h->thread_id);
		}
		/* All on the CPU the writer is pinned to. */
		EXPECT_EQ(0, h->cpu);
	}
	ASSERT_EQ(0, bad);
	for (c = 0; c < ARRAY_SIZE(cases); c++)
		EXPECT_EQ(1, seen[c]) TH_LOG("case %u", c);
	EXPECT_EQ(1, start);
	EXPECT_EQ(1, stop);
	EXPECT_LT(0, rundown);
}

/* A word emit_ctx does not know is refused, and logs nothing. */
TEST_F(ctx, unknown_word)
{
	long long emitted = read_ll(SAMPLE_PARAM("emitted"));

	EXPECT_NE(0, write_str(SAMPLE_PARAM("emit_ctx"), "thread"));
	EXPECT_EQ(emitted, read_ll(SAMPLE_PARAM("emitted")));
}

TEST_HARNESS_MAIN
