/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: the system's uapi types, then the kernel's (native/compiler.h). */
#include_next <linux/types.h>
#include <native/compiler.h>
