/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: <linux/prefetch.h>. */
#ifndef _NATIVE_LINUX_PREFETCH_H
#define _NATIVE_LINUX_PREFETCH_H

#define prefetch(x)	__builtin_prefetch(x)

#endif
