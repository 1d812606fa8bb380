// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: a session's per-CPU counters, read and printed as a table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cli_cpu_stats_alloc(const char *name, unsigned int nr,
			struct ketw_cpu_stats **st, bool **valid)
{
	*st = NULL;
	*valid = NULL;
	if (!nr || nr > KETW_FILE_MAX_CPUS)
		return cli_error("session '%s' reports %u cpus", name, nr);
	*st = calloc(nr, sizeof(**st));
	*valid = calloc(nr, sizeof(**valid));
	if (!*st || !*valid)
		return cli_error("out of memory");
	return 0;
}

int cli_get_cpu_stats(int fd, const char *name, unsigned int nr,
		      struct ketw_cpu_stats *st, bool *valid)
{
	unsigned int cpu;
	int err;

	for (cpu = 0; cpu < nr; cpu++) {
		err = ketw_session_get_cpu_stats(fd, name, cpu, &st[cpu]);
		valid[cpu] = !err;
		st[cpu].cpu = cpu;
		if (err == -EINVAL)	/* not a possible CPU */
			continue;
		if (err)
			return cli_session_error("read the counters of",
						 name, err);
	}
	return 0;
}

void cli_print_cpu_stats(const struct ketw_cpu_stats *st, const bool *valid,
			 unsigned int nr)
{
	unsigned int cpu;

	printf("  cpu    written  lost_full  overwritten  lost_busy  lost_nested  truncated       read   sequence    pending\n");
	for (cpu = 0; cpu < nr; cpu++) {
		if (!valid[cpu])
			continue;
		printf("  %3u %10llu %10llu %12llu %10llu %12llu %10llu %10llu %10llu %10u\n",
		       cpu, (unsigned long long)st[cpu].written,
		       (unsigned long long)st[cpu].lost_full,
		       (unsigned long long)st[cpu].overwritten,
		       (unsigned long long)st[cpu].lost_busy,
		       (unsigned long long)st[cpu].lost_nested,
		       (unsigned long long)st[cpu].truncated,
		       (unsigned long long)st[cpu].read,
		       (unsigned long long)st[cpu].sequence,
		       (uint32_t)(st[cpu].produced - st[cpu].consumed));
	}
}
