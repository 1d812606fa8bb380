/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: tif_need_resched() as the kernel's x86-64 one reads it,
 * the current task (one thread-local load) and a bit of its thread
 * flags.
 */
#ifndef _NATIVE_LINUX_THREAD_INFO_H
#define _NATIVE_LINUX_THREAD_INFO_H

#include <native/atomic.h>
#include <native/sched.h>

#define TIF_NEED_RESCHED	3

#define tif_need_resched() \
	(!!(READ_ONCE(current->thread_flags) & (1UL << TIF_NEED_RESCHED)))

#endif
