/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ketw_oot: a ketw provider built outside ketw's tree, from the headers
 * and Module.symvers that "make install" puts on a system. What it logs,
 * for its users (selftests/ketw/oot_test.c).
 *
 * Writing N to /sys/module/ketw_oot/parameters/run_ms logs, for N ms, on
 * every online CPU: from a work item of a per-CPU workqueue (task
 * context, "burst" events each jiffy), a pinned timer (softirq, each
 * jiffy) and a pinned hard hrtimer (hardirq, every period_us). The write
 * returns when all have stopped. Reading "emitted" then gives a line per
 * CPU, "cpu work softirq hardirq": the ketw_write() calls of that run.
 */
#ifndef _KETW_OOT_H
#define _KETW_OOT_H

#include <linux/types.h>

#define KETW_OOT_NAME		"ketw-oot"
/* 6b657477-6f6f-7473-616d-706c65000003 */
#define KETW_OOT_GUID_BYTES { 0x6b, 0x65, 0x74, 0x77, 0x6f, 0x6f, 0x74, 0x73, \
			      0x61, 0x6d, 0x70, 0x6c, 0x65, 0x00, 0x00, 0x03 }

/* Event ids: the context that logged the event. */
#define KETW_OOT_CTX_WORK	0
#define KETW_OOT_CTX_SOFTIRQ	1
#define KETW_OOT_CTX_HARDIRQ	2
#define KETW_OOT_NR_CTX		3

/* The payload of every event. */
struct ketw_oot_ev {
	__u32 cpu;	/* the CPU that logged it */
	__u32 ctx;	/* KETW_OOT_CTX_*, the event id too */
	__u64 counter;	/* 0, 1, 2, ... per CPU and context, each run */
};

#endif /* _KETW_OOT_H */
