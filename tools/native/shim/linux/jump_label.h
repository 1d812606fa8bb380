/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: static keys as plain flags (ketw.h declares one per provider). */
#ifndef _NATIVE_LINUX_JUMP_LABEL_H
#define _NATIVE_LINUX_JUMP_LABEL_H

#include <native/atomic.h>

struct static_key_false {
	int enabled;
};

#define STATIC_KEY_FALSE_INIT		{ .enabled = 0 }
#define static_branch_unlikely(k)	unlikely(READ_ONCE((k)->enabled))

#endif
