// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: opening a serial line for a stream, raw (stream --serial, listen
 * --serial). A FIFO or a file may stand in for the line (QEMU's pipe
 * chardev, a capture): they are opened as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

static const struct {
	unsigned int baud;
	speed_t speed;
} cli_speeds[] = {
	{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 },
	{ 57600, B57600 }, { 115200, B115200 }, { 230400, B230400 },
	{ 460800, B460800 }, { 921600, B921600 },
};

int cli_serial_open(const char *dev, bool reader, unsigned int baud, int *fdp)
{
	struct termios t;
	struct stat st;
	unsigned int i;
	int fd, flags = O_NOCTTY | O_CLOEXEC;

	if (!reader) {
		flags |= O_WRONLY;
	} else {
		/* A FIFO read-write: its writers may come and go, no EOF. */
		if (stat(dev, &st))
			return cli_error("cannot open %s: %s", dev,
					 strerror(errno));
		flags |= O_NONBLOCK | (S_ISFIFO(st.st_mode) ? O_RDWR : O_RDONLY);
	}
	fd = open(dev, flags);
	if (fd < 0)
		return cli_error("cannot open %s: %s", dev, strerror(errno));
	*fdp = fd;
	if (!isatty(fd))
		return 0;
	for (i = 0; i < sizeof(cli_speeds) / sizeof(cli_speeds[0]); i++)
		if (cli_speeds[i].baud == baud)
			break;
	if (i == sizeof(cli_speeds) / sizeof(cli_speeds[0]))
		return cli_error("--baud %u: not a speed of a serial line (9600 to 921600)",
				 baud);
	if (tcgetattr(fd, &t))
		return cli_error("%s: %s", dev, strerror(errno));
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | (reader ? CREAD : 0);
	t.c_cflag &= ~CRTSCTS;
	cfsetispeed(&t, cli_speeds[i].speed);
	cfsetospeed(&t, cli_speeds[i].speed);
	if (tcsetattr(fd, TCSANOW, &t))
		return cli_error("%s: %s", dev, strerror(errno));
	return 0;
}
