/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: <linux/cache.h>, x86-64's line. */
#ifndef _NATIVE_LINUX_CACHE_H
#define _NATIVE_LINUX_CACHE_H

#define L1_CACHE_BYTES	64

#endif
