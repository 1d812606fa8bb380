// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: the messages of the subcommands: errors, usage errors, a failed
 * session operation explained.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketw.h"

int ketw_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ketw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return KETW_EXIT_ERROR;
}

int ketw_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("ketw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "Try 'ketw %s --help'.\n", cmd);
	else
		fputs("Try 'ketw help'.\n", stderr);
	return KETW_EXIT_USAGE;
}

int ketw_session_error(const char *op, const char *name, int err)
{
	switch (-err) {
	case ENOENT:
		return ketw_error("session '%s' does not exist", name);
	case EEXIST:
		return ketw_error("session '%s' already exists (remove it with 'ketw reset -s %s', or choose another name with -s)",
				  name, name);
	case ENOTTY:
		return ketw_error("cannot %s session '%s': %s (is %s a ketw device?)",
				  op, name, strerror(-err),
				  getenv(KETW_DEVICE_ENV) ?
				  getenv(KETW_DEVICE_ENV) : KETW_DEVICE);
	case ENOSPC:
		return ketw_error("cannot %s session '%s': too many sessions (remove one with 'ketw reset -s NAME')",
				  op, name);
	case EBUSY:
		if (!strcmp(op, "start"))
			return ketw_error("session '%s' is already running",
					  name);
		if (!strcmp(op, "remove"))
			return ketw_error("session '%s' is in use by another reader (end that process first)",
					  name);
		break;
	}
	return ketw_error("cannot %s session '%s': %s", op, name,
			  strerror(-err));
}
