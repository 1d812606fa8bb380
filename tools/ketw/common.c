// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: helpers shared by the subcommands: messages, options, the device.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ketw.h"

int ketw_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ketw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return KETW_EXIT_ERROR;
}

int ketw_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("ketw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "Try 'ketw %s --help'.\n", cmd);
	else
		fputs("Try 'ketw help'.\n", stderr);
	return KETW_EXIT_USAGE;
}

int ketw_getopt(int argc, char **argv, const char *optstring,
		int *exit_code)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char opts[64];
	int c;

	/* ':' first: tell a missing argument from an unknown option. */
	snprintf(opts, sizeof(opts), ":%sh", optstring);
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, NULL);
	switch (c) {
	case 'h':
		ketw_usage_print(argv[0]);
		*exit_code = KETW_EXIT_OK;
		return '?';
	case ':':
		*exit_code = ketw_usage_error(argv[0],
					      "option -%c needs an argument",
					      optopt);
		return '?';
	case '?':
		if (optopt)
			*exit_code = ketw_usage_error(argv[0],
						      "unknown option -%c",
						      optopt);
		else
			*exit_code = ketw_usage_error(argv[0],
						      "unknown option %s",
						      argv[optind - 1]);
		return '?';
	default:
		return c;
	}
}

int ketw_check_session_name(const char *cmd, const char *name)
{
	if (ketw_session_name_valid(name))
		return 0;
	return ketw_usage_error(cmd,
		"-s: '%s' is not a session name (1 to %d characters of A-Z a-z 0-9 _ . -)",
		name, KETW_NAME_MAX - 1);
}

int ketw_opt_u64(const char *cmd, char opt, const char *arg, const char *what,
		 uint64_t min, uint64_t max, uint64_t *out)
{
	int err = ketw_parse_u64(arg, UINT64_MAX, out);

	if (err == -EINVAL)
		return ketw_usage_error(cmd, "-%c: '%s' is not %s", opt, arg,
					what);
	if (err || *out < min || *out > max)
		return ketw_usage_error(cmd,
			"-%c: %s is out of range (%llu to %llu)", opt, arg,
			(unsigned long long)min, (unsigned long long)max);
	return 0;
}

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

int ketw_session_error(const char *op, const char *name, int err)
{
	switch (-err) {
	case ENOENT:
		return ketw_error("session '%s' does not exist", name);
	case EEXIST:
		return ketw_error("session '%s' already exists (remove it with 'ketw reset -s %s', or choose another name with -s)",
				  name, name);
	case ENOTTY:
		return ketw_error("cannot %s session '%s': %s (is %s a ketw device?)",
				  op, name, strerror(-err),
				  getenv(KETW_DEVICE_ENV) ?
				  getenv(KETW_DEVICE_ENV) : KETW_DEVICE);
	case ENOSPC:
		return ketw_error("cannot %s session '%s': too many sessions (remove one with 'ketw reset -s NAME')",
				  op, name);
	case EBUSY:
		if (!strcmp(op, "start"))
			return ketw_error("session '%s' is already running",
					  name);
		if (!strcmp(op, "remove"))
			return ketw_error("session '%s' is in use by another reader (end that process first)",
					  name);
		break;
	}
	return ketw_error("cannot %s session '%s': %s", op, name,
			  strerror(-err));
}

char *ketw_time_format(uint64_t ns, char *buf, size_t len)
{
	time_t t = ns / 1000000000ull;
	struct tm tm;
	size_t n = 0;

	if (gmtime_r(&t, &tm))
		n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	if (!n) {
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
		return buf;
	}
	snprintf(buf + n, len - n, ".%09llu UTC",
		 (unsigned long long)(ns % 1000000000ull));
	return buf;
}
