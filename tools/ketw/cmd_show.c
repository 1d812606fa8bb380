// SPDX-License-Identifier: GPL-2.0
/*
 * ketw show: a session's attributes, state and per-CPU counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ketw.h"

int cmd_show(int argc, char **argv)
{
	const char *name = KETW_DEFAULT_SESSION;
	struct ketw_session_attr a;
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL;
	char t[64];
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
	err = ketw_session_get_attr(fd, name, &a);
	if (err) {
		ret = ketw_session_error("show", name, err);
		goto out_close;
	}
	printf("session:  %s (%s), created %s\n", a.name,
	       ketw_or(ketw_state_name(a.state), "?"),
	       ketw_time_format(a.creation_time, t, sizeof(t)));
	printf("buffers:  %u KiB x %u cpus, policy %s, max data %u bytes, watermark %u%%\n",
	       a.buffer_kb, a.nr_cpus, ketw_or(ketw_policy_name(a.policy), "?"),
	       a.max_data_size, a.watermark);
	printf("clock:    %s (resolution %u ns)\n",
	       ketw_or(ketw_clock_name(a.clock), "?"), a.clock_resolution);
	printf("filter:   level %s, match_any 0x%llx, match_all 0x%llx\n",
	       a.level ? ketw_or(ketw_level_name(a.level), "?") : "all",
	       (unsigned long long)a.match_any,
	       (unsigned long long)a.match_all);
	st = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*st));
	valid = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*valid));
	if (!st || !valid) {
		ret = ketw_error("out of memory");
	} else {
		ret = ketw_get_cpu_stats(fd, name, a.nr_cpus, st, valid);
		if (!ret) {
			printf("\n");
			ketw_print_cpu_stats(st, valid, a.nr_cpus);
		}
	}
	free(st);
	free(valid);
out_close:
	close(fd);
	return ret;
}
