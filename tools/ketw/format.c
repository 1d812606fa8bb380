// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: times and sizes as people read them.
 */
#include <stdio.h>
#include <time.h>

#include "cli.h"

char *cli_time_format(uint64_t ns, char *buf, size_t len)
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

char *cli_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = bytes;
	unsigned int i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	for (v /= 1024; v >= 1024 && i + 1 < sizeof(units) / sizeof(units[0]);
	     v /= 1024)
		i++;
	snprintf(buf, len, "%.1f %s", v, units[i]);
	return buf;
}
