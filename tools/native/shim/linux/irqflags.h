/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: irqs_disabled() as the kernel's x86-64 one executes it
 * (native_save_flags(): PUSHF, POP, then a test of IF). In user space IF
 * is always set, so it answers false, at the kernel's cost.
 */
#ifndef _NATIVE_LINUX_IRQFLAGS_H
#define _NATIVE_LINUX_IRQFLAGS_H

#include <native/compiler.h>

#define X86_EFLAGS_IF	(1UL << 9)

static __always_inline unsigned long native_save_fl(void)
{
#ifdef CONFIG_X86
	unsigned long flags;

	__asm__ __volatile__("pushf ; pop %0" : "=rm"(flags) : : "memory");
	return flags;
#else
	return X86_EFLAGS_IF;
#endif
}

#define irqs_disabled()	(!(native_save_fl() & X86_EFLAGS_IF))

#endif
