/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: GENMASK_ULL(), bits @l to @h of a u64. */
#ifndef _NATIVE_LINUX_BITS_H
#define _NATIVE_LINUX_BITS_H

#define GENMASK_ULL(h, l) \
	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

#endif
