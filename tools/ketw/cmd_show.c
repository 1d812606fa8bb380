// SPDX-License-Identifier: GPL-2.0
/*
 * ketw show: a session's attributes, state, the filter it applies to each
 * registered provider, and its per-CPU counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The filter the session applies to each registered provider now. */
static void show_providers(int fd, const char *name)
{
	struct ketw_provider_info *pi = NULL;
	struct ketw_provider_ref ref;
	struct ketw_filter f;
	unsigned int i, nr = 0;
	char text[512];

	if (ketw_providers_get(fd, &pi, &nr) || !nr) {
		free(pi);
		return;
	}
	printf("providers: the filter applied to each registered one now\n");
	for (i = 0; i < nr; i++) {
		memset(&ref, 0, sizeof(ref));
		memcpy(ref.guid, pi[i].provider_guid, KETW_GUID_SIZE);
		if (ketw_session_get_filter(fd, name, &ref, &f))
			continue;
		printf("  %-31.*s %s\n", KETW_NAME_MAX, pi[i].name,
		       cli_filter_text(&f, text, sizeof(text)));
	}
	free(pi);
}

int cmd_show(int argc, char **argv)
{
	const char *name;
	struct ketw_session_attr a;
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL;
	char t[64];
	int fd, err, ret;

	ret = cli_session_only(argc, argv, &name, &fd);
	if (fd < 0)
		return ret;
	err = ketw_session_get_attr(fd, name, &a);
	if (err) {
		ret = cli_session_error("show", name, err);
		goto out_close;
	}
	printf("session:  %s (%s), created %s\n", a.name,
	       cli_or(ketw_state_name(a.state), "?"),
	       cli_time_format(a.creation_time, t, sizeof(t)));
	printf("buffers:  %u KiB x %u cpus, policy %s, max data %u bytes, watermark %u%%\n",
	       a.buffer_kb, a.nr_cpus, cli_or(ketw_policy_name(a.policy), "?"),
	       a.max_data_size, a.watermark);
	printf("clock:    %s (resolution %u ns)\n",
	       cli_or(ketw_clock_name(a.clock), "?"), a.clock_resolution);
	printf("filter:   level %s, match_any 0x%llx, match_all 0x%llx (the default, for a session that enables no provider)\n",
	       a.level ? cli_or(ketw_level_name(a.level), "?") : "all",
	       (unsigned long long)a.match_any,
	       (unsigned long long)a.match_all);
	show_providers(fd, name);
	st = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*st));
	valid = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*valid));
	if (!st || !valid) {
		ret = cli_error("out of memory");
	} else {
		ret = cli_get_cpu_stats(fd, name, a.nr_cpus, st, valid);
		if (!ret) {
			printf("\n");
			cli_print_cpu_stats(st, valid, a.nr_cpus);
		}
	}
	free(st);
	free(valid);
out_close:
	close(fd);
	return ret;
}
