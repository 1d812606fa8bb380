// SPDX-License-Identifier: GPL-2.0
/*
 * ketw rundown: log a rundown (the providers, their event descriptors and
 * the tasks) into a running session (KETW_IOC_RUNDOWN).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

int cmd_rundown(int argc, char **argv)
{
	const char *name;
	int fd, err, ret;

	ret = cli_session_only(argc, argv, &name, &fd);
	if (fd < 0)
		return ret;
	err = ketw_session_rundown(fd, name);
	if (!err)
		printf("session %s: rundown logged (providers, event descriptors, tasks)\n",
		       name);
	else if (err == -EINVAL && cli_session_stopped(fd, name))
		ret = cli_error("session '%s' is not running (a rundown goes into a running session)",
				name);
	else
		ret = cli_session_error("log a rundown into", name, err);
	close(fd);
	return ret;
}
