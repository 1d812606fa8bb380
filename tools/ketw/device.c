// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: opening the control device, with a hint when it fails.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_open_device(int flags)
{
	const char *path = getenv(CLI_DEVICE_ENV);
	const char *hint = "";
	int fd;

	if (!path || !*path)
		path = KETW_DEVICE;
	fd = ketw_device_open(path, flags);
	if (fd >= 0)
		return fd;
	switch (-fd) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		hint = " (is the ketw module loaded?)";
		break;
	case EACCES:
	case EPERM:
		hint = " (ketw needs root: CAP_SYS_ADMIN)";
		break;
	}
	cli_error("cannot open %s: %s%s", path, strerror(-fd), hint);
	return -1;
}
