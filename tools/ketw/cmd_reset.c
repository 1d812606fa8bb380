// SPDX-License-Identifier: GPL-2.0
/*
 * ketw reset: remove a session (stopping it first if it runs).
 */
#include <unistd.h>

#include "cli.h"

int cmd_reset(int argc, char **argv)
{
	const char *name;
	int fd, err, ret;

	ret = cli_session_only(argc, argv, &name, &fd);
	if (fd < 0)
		return ret;
	err = ketw_session_destroy(fd, name);
	if (err)
		ret = cli_session_error("remove", name, err);
	close(fd);
	return ret;
}
