/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: unaligned accesses as the kernel's (a packed struct). */
#ifndef _NATIVE_ASM_UNALIGNED_H
#define _NATIVE_ASM_UNALIGNED_H

#include <native/compiler.h>

#define __get_unaligned_t(type, ptr) ({					\
	const struct { type x; } __packed *__pptr = (__typeof__(__pptr))(ptr); \
	__pptr->x; })
#define __put_unaligned_t(type, val, ptr) do {				\
	struct { type x; } __packed *__pptr = (__typeof__(__pptr))(ptr); \
	__pptr->x = (val);						\
} while (0)
#define get_unaligned(ptr)	__get_unaligned_t(__typeof__(*(ptr)), (ptr))
#define put_unaligned(val, ptr)	__put_unaligned_t(__typeof__(*(ptr)), (val), (ptr))

#endif
