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

#include "cli.h"

/* "ketw: <message>\n" on stderr. */
static void cli_vmessage(const char *fmt, va_list ap)
{
	fputs("ketw: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmessage(fmt, ap);
	va_end(ap);
	return CLI_EXIT_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmessage(fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "Try 'ketw %s --help'.\n", cmd);
	else
		fputs("Try 'ketw help'.\n", stderr);
	return CLI_EXIT_USAGE;
}

int cli_session_error(const char *op, const char *name, int err)
{
	switch (-err) {
	case ENOENT:
		return cli_error("session '%s' does not exist", name);
	case EEXIST:
		return cli_error("session '%s' already exists (remove it with 'ketw reset -s %s', or choose another name with -s)",
				 name, name);
	case ENOTTY:
		return cli_error("cannot %s session '%s': %s (is %s a ketw device?)",
				 op, name, strerror(-err),
				 getenv(CLI_DEVICE_ENV) ?
				 getenv(CLI_DEVICE_ENV) : KETW_DEVICE);
	case ENOSPC:
		return cli_error("cannot %s session '%s': too many sessions (remove one with 'ketw reset -s NAME')",
				 op, name);
	case EBUSY:
		if (!strcmp(op, "start"))
			return cli_error("session '%s' is already running",
					 name);
		if (!strcmp(op, "remove"))
			return cli_error("session '%s' is in use by another reader (end that process first)",
					 name);
		break;
	}
	return cli_error("cannot %s session '%s': %s", op, name,
			 strerror(-err));
}

bool cli_session_stopped(int fd, const char *name)
{
	struct ketw_session_attr attr;

	return !ketw_session_get_attr(fd, name, &attr) &&
	       attr.state != KETW_STATE_RUNNING;
}
