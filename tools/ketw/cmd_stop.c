// SPDX-License-Identifier: GPL-2.0
/*
 * ketw stop: stop tracing; the records stay in the session's buffers.
 */
#include <errno.h>
#include <unistd.h>

#include "ketw.h"

int cmd_stop(int argc, char **argv)
{
	const char *name;
	int fd, err, ret;

	ret = ketw_session_only(argc, argv, &name, &fd);
	if (fd < 0)
		return ret;
	err = ketw_session_stop(fd, name);
	if (err == -EALREADY)
		ketw_error("session '%s' is not running (nothing to stop)",
			   name);
	else if (err)
		ret = ketw_session_error("stop", name, err);
	close(fd);
	return ret;
}
