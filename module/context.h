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
	unsigned int ctx, depth = pc & PREEMPT_MASK;
	u16 f;

	if (pc & NMI_MASK)
		ctx = KETW_CTX_NMI;
	else if (pc & HARDIRQ_MASK)
		ctx = KETW_CTX_HARDIRQ;
	else if (pc & SOFTIRQ_OFFSET)
		ctx = KETW_CTX_SOFTIRQ;
	else
		ctx = KETW_CTX_TASK;
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		depth -= min(depth, own);
	depth = min_t(unsigned int, depth, KETW_RECORD_PREEMPT_MAX);
	f = ctx << KETW_RECORD_CTX_SHIFT | depth << KETW_RECORD_PREEMPT_SHIFT;
	if (irqs_disabled())
		f |= KETW_RECORD_IRQS_OFF;
	if (tif_need_resched())
		f |= KETW_RECORD_NEED_RESCHED;
	return f;
}

#endif /* _KETW_CONTEXT_H */
