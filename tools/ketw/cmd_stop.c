// SPDX-License-Identifier: GPL-2.0
/*
 * ketw stop: stop tracing; the records stay in the session's buffers.
 */
#include <errno.h>
#include <unistd.h>

#include "cli.h"

int cmd_stop(int argc, char **argv)
{
	const char *name;
	int fd, err, ret;

	ret = cli_session_only(argc, argv, &name, &fd);
	if (fd < 0)
		return ret;
	err = ketw_session_stop(fd, name);
	if (err == -EALREADY)
		cli_error("session '%s' is not running (nothing to stop)",
			  name);
	else if (err)
		ret = cli_session_error("stop", name, err);
	close(fd);
	return ret;
}
