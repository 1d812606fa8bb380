// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: opening the control device, with a hint when it fails.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ketw.h"

int ketw_open_device(int flags)
{
	const char *path = getenv(KETW_DEVICE_ENV);
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
	ketw_error("cannot open %s: %s%s", path, strerror(-fd), hint);
	return -1;
}
