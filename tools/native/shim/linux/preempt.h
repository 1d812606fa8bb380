/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: the preemption count's layout, as the kernel's
 * <linux/preempt.h>, and preempt_count() as one thread-local load (the
 * kernel's is one %gs-relative load). Only context.h reads it, for the
 * bench; the ring's own preempt_disable() is in native/sched.h.
 */
#ifndef _NATIVE_LINUX_PREEMPT_H
#define _NATIVE_LINUX_PREEMPT_H

#include <native/compiler.h>

/* As Debian's kernels (PREEMPT_DYNAMIC): preempt_disable() counts. */
#define CONFIG_PREEMPT_COUNT	1

/* IS_ENABLED(CONFIG_X): 1 if CONFIG_X is defined as 1, else 0. */
#define __native_placeholder_1		0,
#define __native_second(a, b, ...)	b
#define __native_defined3(j)		__native_second(j 1, 0)
#define __native_defined2(v)		__native_defined3(__native_placeholder_##v)
#define IS_ENABLED(option)		__native_defined2(option)

#define PREEMPT_BITS	8
#define SOFTIRQ_BITS	8
#define HARDIRQ_BITS	4
#define NMI_BITS	4

#define PREEMPT_SHIFT	0
#define SOFTIRQ_SHIFT	(PREEMPT_SHIFT + PREEMPT_BITS)
#define HARDIRQ_SHIFT	(SOFTIRQ_SHIFT + SOFTIRQ_BITS)
#define NMI_SHIFT	(HARDIRQ_SHIFT + HARDIRQ_BITS)

#define PREEMPT_MASK	(((1U << PREEMPT_BITS) - 1) << PREEMPT_SHIFT)
#define SOFTIRQ_MASK	(((1U << SOFTIRQ_BITS) - 1) << SOFTIRQ_SHIFT)
#define HARDIRQ_MASK	(((1U << HARDIRQ_BITS) - 1) << HARDIRQ_SHIFT)
#define NMI_MASK	(((1U << NMI_BITS) - 1) << NMI_SHIFT)
#define SOFTIRQ_OFFSET	(1U << SOFTIRQ_SHIFT)
#define HARDIRQ_OFFSET	(1U << HARDIRQ_SHIFT)
#define NMI_OFFSET	(1U << NMI_SHIFT)

extern __thread unsigned int native_preempt_count;
#define preempt_count()	(*(volatile unsigned int *)&native_preempt_count)

#endif
