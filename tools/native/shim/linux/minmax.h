/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: min(), max(), min_t() are in native/compiler.h. */
#include <native/compiler.h>
