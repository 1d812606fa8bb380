/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw convert's formats: Chrome's Trace Event Format (convert_chrome.c);
 * CTF is babeltrace2's to write (cmd_convert.c runs it).
 */
#ifndef _KETW_CONVERT_H
#define _KETW_CONVERT_H

#include <stdio.h>

#include "libketw.h"

/*
 * @in (opened from @path) as a Chrome trace (JSON object form) on @out:
 * 0, -ENOMEM, -EIO.
 */
int cli_convert_chrome(struct ketw_input *in, const char *path, FILE *out);

#endif /* _KETW_CONVERT_H */
