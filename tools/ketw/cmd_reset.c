// SPDX-License-Identifier: GPL-2.0
/*
 * ketw reset: remove a session (stopping it first if it runs).
 */
#include <unistd.h>

#include "ketw.h"

int cmd_reset(int argc, char **argv)
{
	const char *name = KETW_DEFAULT_SESSION;
	int c, fd, err, ret = KETW_EXIT_OK;

	while ((c = ketw_getopt(argc, argv, "s:", &ret)) != -1) {
		if (c != 's')
			return ret;
		name = optarg;
		ret = ketw_check_session_name(argv[0], name);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return ketw_usage_error(argv[0], "unexpected argument '%s'",
					argv[optind]);

	fd = ketw_open_device(0);
	if (fd < 0)
		return KETW_EXIT_ERROR;
	err = ketw_session_destroy(fd, name);
	if (err)
		ret = ketw_session_error("remove", name, err);
	close(fd);
	return ret;
}
