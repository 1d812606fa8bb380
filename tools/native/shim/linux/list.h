/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: see tools/native/shim/native/. */
#include <native/list.h>
