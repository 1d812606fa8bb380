// SPDX-License-Identifier: GPL-2.0
/*
 * ketw flush: have the readers of a running session drain what its
 * buffers hold now (KETW_IOC_FLUSH). The kernel logs FLUSH_START, waits
 * until readers consumed every record committed before it, and logs
 * FLUSH_STOP; if none does in time it logs ERROR (ETIMEDOUT) too and
 * keeps the error for the status.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

int cmd_flush(int argc, char **argv)
{
	const char *name;
	int fd, err, ret;

	ret = cli_session_only(argc, argv, &name, &fd);
	if (fd < 0)
		return ret;
	err = ketw_session_flush(fd, name);
	switch (-err) {
	case 0:
		printf("session %s: flushed (its readers consumed what the buffers held)\n",
		       name);
		break;
	case ETIMEDOUT:
		ret = cli_error("flush of session '%s' timed out: no reader drained the session in time (the session logged an ERROR event; 'ketw status' shows the error)",
				name);
		break;
	case EINVAL:
		/* Not running (or a bad request): say which. */
		if (cli_session_stopped(fd, name))
			ret = cli_error("cannot flush session '%s': it is not running",
					name);
		else
			ret = cli_session_error("flush", name, err);
		break;
	case EALREADY:
		ret = cli_error("cannot flush session '%s': another flush is running",
				name);
		break;
	default:
		ret = cli_session_error("flush", name, err);
		break;
	}
	close(fd);
	return ret;
}
