/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ketw_sample: the provider that tests and the demo drive.
 *
 * Writing N to /sys/module/ketw_sample/parameters/emit logs N events of
 * KETW_SAMPLE_EV_TICK from the writing task (emit_warn: KETW_SAMPLE_EV_WARN,
 * emit_filter: KETW_SAMPLE_EV_FILTER). Event i carries
 * struct ketw_sample_tick followed by (i % KETW_SAMPLE_TAIL_MOD) tail bytes,
 * tail byte k being (i + k) & 0xff.
 */
#ifndef _KETW_SAMPLE_H
#define _KETW_SAMPLE_H

#include <linux/types.h>

#define KETW_SAMPLE_NAME	"ketw-sample"
/* 6b657477-7361-6d70-6c65-000000000001 */
#define KETW_SAMPLE_GUID_BYTES { 0x6b, 0x65, 0x74, 0x77, 0x73, 0x61, 0x6d, 0x70, \
				 0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }

#define KETW_SAMPLE_EV_TICK	1
#define KETW_SAMPLE_TICK_TYPE	10
#define KETW_SAMPLE_TICK_LEVEL	4	/* KETW_LEVEL_INFO */
#define KETW_SAMPLE_TICK_VERSION 2
#define KETW_SAMPLE_TICK_KEYWORD 0x1ULL

/* A second event, for filters: writing N to "emit_warn" logs N of them. */
#define KETW_SAMPLE_EV_WARN	2
#define KETW_SAMPLE_WARN_TYPE	KETW_TYPE_INFO
#define KETW_SAMPLE_WARN_LEVEL	3	/* KETW_LEVEL_WARNING */
#define KETW_SAMPLE_WARN_VERSION 1
#define KETW_SAMPLE_WARN_KEYWORD 0x2ULL

/*
 * A third, for the bench against LTTng: writing N to "emit_filter" logs N
 * events whose payload has the fields of LTTng's lttng_test_filter_event
 * (lttng-modules' include/instrumentation/events/lttng-test.h) in its
 * order and sizes, as LTTng's kernel ring buffer packs them on x86-64
 * (no padding): KETW_SAMPLE_FILTER_SIZE bytes. Event i carries i in
 * intfield, intfield2 and longfield, htonl(i) in netintfield and
 * netintfieldhex, and what lttng-test.ko's trace_test_event() passes in
 * the others ({1, 2, 3}, "test", "\*").
 */
#define KETW_SAMPLE_EV_FILTER	3
#define KETW_SAMPLE_FILTER_TYPE	KETW_TYPE_INFO
#define KETW_SAMPLE_FILTER_LEVEL 4	/* KETW_LEVEL_INFO */
#define KETW_SAMPLE_FILTER_VERSION 1
#define KETW_SAMPLE_FILTER_KEYWORD 0x4ULL
#define KETW_SAMPLE_FILTER_SIZE	235

#define KETW_SAMPLE_MAGIC	0x6b657477	/* "ketw" */
#define KETW_SAMPLE_TAIL_MOD	32

struct ketw_sample_tick {
	__u32 index;	/* 0..N-1 within one write to "emit" */
	__u32 magic;	/* KETW_SAMPLE_MAGIC */
	__u64 value;	/* index * 3 + 1 */
};

struct ketw_sample_warn {
	__u32 index;	/* 0..N-1 within one write to "emit_warn" */
	__u32 code;	/* index * 5 */
	char  text[16];	/* "warning", NUL-padded */
};

/*
 * Writing one of these words to "emit_ctx" logs one tick event
 * from that context, its index the code below, and returns once it is
 * logged (ETIMEDOUT after a second; ENODEV for "nmi" where there is no
 * local APIC):
 *   task      the writing task, preemption and interrupts enabled
 *   preempt   the same under preempt_disable()
 *   bh        the same under local_bh_disable(): a task, not a softirq
 *   irqsoff   the same under local_irq_disable()
 *   softirq   a tasklet
 *   hardirq   an hrtimer in hard interrupt context
 *   nmi       the NMI handler, from an NMI the module sends its own CPU
 */
#define KETW_SAMPLE_CTX_TASK	1000
#define KETW_SAMPLE_CTX_PREEMPT	1001
#define KETW_SAMPLE_CTX_BH	1002
#define KETW_SAMPLE_CTX_IRQSOFF	1003
#define KETW_SAMPLE_CTX_SOFTIRQ	1004
#define KETW_SAMPLE_CTX_HARDIRQ	1005
#define KETW_SAMPLE_CTX_NMI	1006

#endif /* _KETW_SAMPLE_H */
