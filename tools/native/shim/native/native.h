/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: what a test or benchmark calls to set the stage for
 * module/ring.c (CPUs, nesting, injected interrupts). Include after the
 * C library's headers; it brings in the kernel shim.
 */
#ifndef _NATIVE_NATIVE_H
#define _NATIVE_NATIVE_H

#include "sched.h"
#include "mm.h"

/*
 * Start the shim: nr_cpus possible CPUs (at most NATIVE_NR_CPUS), a page
 * pool of @pool_bytes for rings, the CLOCK_MONOTONIC base of
 * module/clock.h calibrated against the TSC, and the irq_work thread.
 */
void native_init(unsigned int nr_cpus, size_t pool_bytes);
/* Stop the irq_work thread (after every ring is freed). */
void native_exit(void);

/* This thread is CPU @cpu from now on (-1: none, e.g. a reader). */
void native_set_cpu(int cpu);

/*
 * Nesting: a writer that interrupts this thread (a signal handler, an
 * injected writer) runs between native_irq_enter(level) and
 * native_irq_exit() of what enter returned. Levels are absolute, as
 * kernel contexts: 1 softirq, 2 hardirq, 3 NMI; only a higher level
 * interrupts a lower one: the caller checks native_irq_depth < level
 * first. What enter saves is the caller's (on its stack), so that a
 * signal may come anywhere, in the middle of enter or exit too.
 */
#define NATIVE_CTX_TASK		0
#define NATIVE_CTX_SOFTIRQ	1
#define NATIVE_CTX_HARDIRQ	2
#define NATIVE_CTX_NMI		3
#define NATIVE_NR_CTX		4
struct native_irq_state {
	int depth;
	int release_pending;
};
struct native_irq_state native_irq_enter(int level);
void native_irq_exit(struct native_irq_state saved);

/*
 * Injected interrupts (NATIVE_INJECT=1 builds): on this thread, before
 * about one marked access in @mean_gap (READ_ONCE, local_*, cmpxchg,
 * ...), call @fn(level) at a random level above the current one, up to
 * @max_level, between native_irq_enter() and native_irq_exit(). The
 * choice is a per-thread generator seeded with @seed. @mean_gap 0: before
 * every marked access, at the level just above the current one (for
 * scripted interleavings: @fn decides whether to log). @fn NULL: off.
 */
typedef void (*native_inject_fn)(int level);
void native_inject(native_inject_fn fn, unsigned int mean_gap, u64 seed,
		   int max_level);
/* Injected interrupts run so far on this thread. */
u64 native_injected(void);
/* In @fn: the code address of the marked access it comes before. */
const void *native_hook_pc(void);

/*
 * local_clock() (KETW_CLOCK_LOCAL) returns 1, 2, 3, ... from now on: the
 * order of clock reads, for scripted interleavings. Process-wide.
 */
void native_fake_local_clock(bool on);

/*
 * ThreadSanitizer: the data areas vmap()ed while @on is set are ranges
 * where races are expected (LOOP: the reader copies a record before it
 * claims it, and drops the copy if a writer released it first). No-op
 * without TSan.
 */
void native_benign_data_areas(bool on);

/* pr_*() and WARN*() calls so far (each is printed too, the first few). */
unsigned long native_warnings(void);

/* The calibrated TSC frequency, 0 when the clock is not the TSC's. */
u64 native_tsc_hz(void);

#endif /* _NATIVE_NATIVE_H */
