// SPDX-License-Identifier: GPL-2.0
/*
 * ketw-write-bench - time writes of a count to files that log that many
 * events, alternating between the files (make bench: ketw_sample's
 * emit_filter against LTTng's /proc/lttng-test-filter-event).
 *
 *   ketw-write-bench [-c CPU] [-w WARM] [-r ROUNDS] -n N FILE...
 *
 * Pinned to CPU (default 0), each round writes the decimal N to every
 * FILE in turn, one write() each, timed with CLOCK_MONOTONIC; WARM
 * rounds (default 2) first are not counted, then ROUNDS (default 9,
 * at most 99). For each FILE, in order, one line:
 *
 *   write-bench I median_ps=M min_ps=A max_ps=B rounds=R file=FILE
 *
 * the picoseconds per event of its rounds. Exits 1 when a write fails
 * (its errno named), 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES	8
#define MAX_ROUNDS	99

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int usage(void)
{
	fprintf(stderr, "usage: ketw-write-bench [-c CPU] [-w WARM] [-r ROUNDS] -n N FILE...\n");
	return 2;
}

/* One write of @text to @path; its duration in ns, or 0 (errno set). */
static uint64_t timed_write(const char *path, const char *text)
{
	size_t len = strlen(text);
	uint64_t t0, t1;
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	t0 = now_ns();
	n = write(fd, text, len);
	t1 = now_ns();
	if (n != (ssize_t)len) {
		if (n >= 0)
			errno = EIO;
		close(fd);
		return 0;
	}
	close(fd);
	return t1 > t0 ? t1 - t0 : 1;
}

int main(int argc, char **argv)
{
	static uint64_t ps[MAX_FILES][MAX_ROUNDS];
	unsigned long cpu = 0, warm = 2, rounds = 9, n = 0;
	int nfiles, opt, f;
	unsigned long r;
	char text[32];
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "c:w:r:n:")) != -1) {
		switch (opt) {
		case 'c': cpu = strtoul(optarg, NULL, 0); break;
		case 'w': warm = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	nfiles = argc - optind;
	if (!n || n > 100000000 || !rounds || rounds > MAX_ROUNDS ||
	    warm > 100 || nfiles < 1 || nfiles > MAX_FILES || cpu >= CPU_SETSIZE)
		return usage();
	snprintf(text, sizeof(text), "%lu", n);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "ketw-write-bench: CPU %lu: %s\n", cpu, strerror(errno));
		return 1;
	}
	for (r = 0; r < warm + rounds; r++) {
		for (f = 0; f < nfiles; f++) {
			const char *path = argv[optind + f];
			uint64_t ns = timed_write(path, text);

			if (!ns) {
				fprintf(stderr, "ketw-write-bench: write %s to %s: %s\n",
					text, path, strerror(errno));
				return 1;
			}
			if (r >= warm)
				ps[f][r - warm] = ns * 1000 / n;
		}
	}
	for (f = 0; f < nfiles; f++) {
		qsort(ps[f], rounds, sizeof(ps[f][0]), cmp_u64);
		printf("write-bench %d median_ps=%llu min_ps=%llu max_ps=%llu rounds=%lu file=%s\n",
		       f, (unsigned long long)ps[f][rounds / 2],
		       (unsigned long long)ps[f][0],
		       (unsigned long long)ps[f][rounds - 1], rounds,
		       argv[optind + f]);
	}
	return 0;
}
