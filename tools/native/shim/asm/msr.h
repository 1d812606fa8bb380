/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: rdtsc_ordered(), for module/clock.h's inline
 * CLOCK_MONOTONIC. The kernel patches in RDTSCP where the CPU has it
 * (else LFENCE; RDTSC); so does this, by cpuid at start (native_init()).
 */
#ifndef _NATIVE_ASM_MSR_H
#define _NATIVE_ASM_MSR_H

#include <native/compiler.h>

extern int native_has_rdtscp;

static __always_inline u64 rdtsc_ordered(void)
{
	u32 lo, hi, aux;

	if (likely(native_has_rdtscp))
		__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
	else
		__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((u64)hi << 32) | lo;
}

#endif
