/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ketw_stress: a provider that logs from every context on every CPU at
 * once, for the buffer-core stress tests.
 *
 * Writing N to /sys/module/ketw_stress/parameters/run_ms runs, for N ms,
 * a kthread bound to each online CPU that logs in a loop, plus on each
 * CPU a soft and a hard hrtimer that log every period_us microseconds;
 * on x86 each hard timer also sends an NMI to the next CPU, whose
 * handler logs too, most likely inside that CPU's writer. The write
 * returns when all of them have stopped. Reading "emitted" gives one
 * line per CPU: "cpu thread softirq hardirq nmi" counts of the last run.
 */
#ifndef _KETW_STRESS_H
#define _KETW_STRESS_H

#include <linux/types.h>

#define KETW_STRESS_NAME	"ketw-stress"
/* 6b657477-7374-7265-7373-000000000002 */
#define KETW_STRESS_GUID_BYTES { 0x6b, 0x65, 0x74, 0x77, 0x73, 0x74, 0x72, 0x65, \
				 0x73, 0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02 }

/* Event ids: the context that logged it. */
#define KETW_STRESS_CTX_THREAD	0
#define KETW_STRESS_CTX_SOFTIRQ	1
#define KETW_STRESS_CTX_HARDIRQ	2
#define KETW_STRESS_CTX_NMI	3
#define KETW_STRESS_NR_CTX	4
#define KETW_STRESS_FILL_MOD	41

/*
 * Followed by (counter % KETW_STRESS_FILL_MOD) bytes, byte k being
 * (counter * 7 + ctx + k) & 0xff.
 */
struct ketw_stress_ev {
	__u32 cpu;	/* the CPU that logged it */
	__u32 ctx;	/* KETW_STRESS_CTX_* */
	__u64 counter;	/* 0, 1, 2, ... per CPU and context */
};

#endif /* _KETW_STRESS_H */
