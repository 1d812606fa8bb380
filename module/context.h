/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw: the execution context a record was logged from (the
 * KETW_RECORD_* context bits of its flags), as ftrace's latency fields.
 * Computed once per event in the write path, so it must cost next to
 * nothing: the preemption count the caller has already read, the flags
 * register and the task's thread flags.
 */
#ifndef _KETW_CONTEXT_H
#define _KETW_CONTEXT_H

#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <uapi/linux/ketw.h>

/**
 * ketw_record_context() - the caller's KETW_RECORD_* context bits
 * @pc:  preempt_count(), read by the caller.
 * @own: preemption levels ketw itself added on the way here (the write
 *       path's preempt_disable()), left out of the depth as ftrace's
 *       tracing_gen_ctx_dec() does. Ignored without CONFIG_PREEMPT_COUNT,
 *       where preempt_disable() counts nothing.
 *
 * Interrupts are read as they are: ketw's write path never disables
 * them, so they are the call site's.
 *
 * Return: the context (KETW_RECORD_CTX_MASK), KETW_RECORD_IRQS_OFF,
 * KETW_RECORD_NEED_RESCHED and the preemption depth, saturated at
 * KETW_RECORD_PREEMPT_MAX.
 */
static __always_inline u16 ketw_record_context(unsigned int pc,
					       unsigned int own)
{
	/*
	 * Without a branch (setcc and cmov): NMI, else hardirq, else
	 * serving softirq, else task, counted from the masked count: at or
	 * above NMI_OFFSET (nmi_enter() adds HARDIRQ_OFFSET too, but the
	 * NMI bits alone are enough), at or above HARDIRQ_OFFSET, not zero.
	 */
	unsigned int m = pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET);
	unsigned int ctx = (m >= NMI_OFFSET) + (m >= HARDIRQ_OFFSET) + !!m;
	unsigned int depth = pc & PREEMPT_MASK;

	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		depth -= min(depth, own);
	depth = min_t(unsigned int, depth, KETW_RECORD_PREEMPT_MAX);
	return ctx << KETW_RECORD_CTX_SHIFT |
	       depth << KETW_RECORD_PREEMPT_SHIFT |
	       (unsigned int)irqs_disabled() * KETW_RECORD_IRQS_OFF |
	       (unsigned int)tif_need_resched() * KETW_RECORD_NEED_RESCHED;
}

#endif /* _KETW_CONTEXT_H */
