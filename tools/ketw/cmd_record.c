// SPDX-License-Identifier: GPL-2.0
/*
 * ketw record: start a session (as ketw start), drain it (as ketw
 * extract) until Ctrl-C, -d seconds or -n records, stop it, drain what
 * is left, write the trace file and remove the session.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t record_stop;

static void record_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

static uint64_t record_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Destroy from a file not attached to the session. */
static void record_destroy(const char *name)
{
	int fd = cli_open_device(0), err;

	if (fd < 0)
		return;
	err = ketw_session_destroy(fd, name);
	if (err)
		cli_session_error("remove", name, err);
	close(fd);
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_START_LONGOPTS,
		{ "read", no_argument, NULL, CLI_OPT_READ },
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_start s;
	const char *path = CLI_DEFAULT_FILE, *name;
	struct ketw_session_attr attr;
	struct cli_drain x = { 0 };
	struct ketw_cpu_stats *st = NULL;
	struct sigaction sa, old_int, old_term;
	bool *valid = NULL, use_read = false, started = false;
	uint64_t seconds = 0, max_records = 0, deadline = 0;
	int c, fd = -1, r, err, ret = CLI_EXIT_OK;

	cli_start_init(&s, argv[0]);
	while ((c = cli_getopt_long(argc, argv, CLI_START_OPTSTRING "o:d:n:",
				    longopts, &ret)) != -1) {
		switch (c) {
		case CLI_OPT_READ:
			use_read = true;
			r = 0;
			break;
		case 'o':
			path = optarg;
			r = *path ? 0 : cli_usage_error(argv[0],
							"-o: empty file name");
			break;
		case 'd':
			r = cli_opt_u64(argv[0], c, optarg,
					"a number of seconds", 1,
					UINT32_MAX, &seconds);
			break;
		case 'n':
			r = cli_opt_u64(argv[0], c, optarg,
					"a number of events", 1, UINT64_MAX,
					&max_records);
			break;
		default:
			r = cli_start_option(&s, c, optarg);
			if (r < 0)	/* '?': cli_getopt_long() set ret */
				goto out;
		}
		ret = r;
		if (ret)
			goto out;
	}
	if (optind < argc) {
		ret = cli_usage_error(argv[0], "unexpected argument '%s'",
				      argv[optind]);
		goto out;
	}
	ret = cli_start_check(&s);
	if (ret)
		goto out;
	name = s.name;
	if (s.trig.nr) {	/* a flight recorder: trigger.c */
		if (use_read || max_records)
			ret = cli_usage_error(argv[0], "--trigger takes neither --read nor -n");
		else
			ret = cli_record_triggered(&s, path, seconds);
		goto out;
	}

	/* Read-write: the mapped meta pages take our position. */
	fd = cli_open_device(O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		ret = CLI_EXIT_ERROR;
		goto out;
	}
	ret = cli_start_session(&s, fd);
	if (ret)
		goto out;
	started = true;
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_signal;
	sigemptyset(&sa.sa_mask);
	record_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	err = ketw_session_attach(fd, name);
	if (!err)
		err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = cli_session_error("attach to", name, err);
		goto out_signals;
	}
	ret = cli_cpu_stats_alloc(name, attr.nr_cpus, &st, &valid);
	if (ret)
		goto out_signals;
	ret = cli_drain_begin(&x, fd, name, &attr, use_read);
	if (ret)
		goto out_signals;
	x.progress.what = "record";
	x.endless = true;
	if (seconds)
		deadline = record_now_ns() + seconds * 1000000000ull;

	for (;;) {
		struct timespec tick = { 0, 100 * 1000000L };

		if (use_read) {
			ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st,
						valid);
			if (ret)
				break;
		}
		ret = cli_drain_pass(&x, fd, name, &attr, st, valid);
		if (ret)
			break;
		cli_progress_update(&x.progress, x.bytes, 0, x.records);
		if (record_stop || (max_records && x.records >= max_records) ||
		    (deadline && record_now_ns() >= deadline))
			break;
		nanosleep(&tick, NULL);
	}
	/* Stop, then what came in before the stop. */
	err = ketw_session_stop(fd, name);
	if (err && !ret)
		ret = cli_session_error("stop", name, err);
	if (!ret)
		ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (!ret)
		ret = cli_drain_pass(&x, fd, name, &attr, st, valid);
	cli_progress_end(&x.progress);
	if (!ret)
		ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (!ret) {
		err = ketw_session_get_attr(fd, name, &attr);
		if (err)
			ret = cli_session_error("read the attributes of",
						name, err);
	}
	if (!ret)
		ret = cli_trace_write(path, &attr, x.cpus, st, valid);
	if (!ret)
		cli_drain_summary(&x, name, path, &attr, st);
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	cli_drain_end(&x);
	free(st);
	free(valid);
	if (fd >= 0)
		close(fd);
	if (started)
		record_destroy(name);
	cli_start_free(&s);
	return ret;
}
