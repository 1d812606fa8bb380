// SPDX-License-Identifier: GPL-2.0
/*
 * ketw record: start a session (as ketw start), drain it (as ketw
 * extract) into the trace file as it goes, until SIGINT, SIGTERM or
 * SIGHUP, -d seconds or -n records, stop it, drain what is left, write
 * the counters and the END section and remove the session.
 *
 * Memory stays flat: each pass (every 100 ms) hands its records to the
 * file's incremental writer, which writes them as CPU_RECORDS sections,
 * so a recorder that dies leaves a file readable up to its last pass.
 * The session is created owned by the recorder's file
 * (KETW_SESSION_OWNED): the kernel removes it when the recorder dies,
 * unless --detach asked for one that outlives it. The signals that stop
 * it are handled from the start, before the session exists.
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

#define RECORD_OPT_DETACH	0x200
#define RECORD_OPT_ROTATE_SIZE	0x201
#define RECORD_OPT_ROTATE_TIME	0x202

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_START_LONGOPTS,
		{ "read", no_argument, NULL, CLI_OPT_READ },
		{ "detach", no_argument, NULL, RECORD_OPT_DETACH },
		{ "rotate-size", required_argument, NULL, RECORD_OPT_ROTATE_SIZE },
		{ "rotate-time", required_argument, NULL, RECORD_OPT_ROTATE_TIME },
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_start s;
	struct cli_rotate_opts rotate = { 0 };
	const char *path = CLI_DEFAULT_FILE, *name;
	struct sigaction old_sig[CLI_STOP_NR_SIGNALS];
	struct ketw_session_attr attr;
	struct cli_trace trace = { 0 };
	struct cli_drain x = { 0 };
	struct cli_sink sink;
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL, use_read = false, started = false;
	bool detach = false, signals = false;
	uint64_t seconds = 0, max_records = 0, deadline = 0;
	int c, fd = -1, r, err, ret = CLI_EXIT_OK;

	cli_start_init(&s, argv[0]);
	while ((c = cli_getopt_long(argc, argv, CLI_START_OPTSTRING "o:d:n:D",
				    longopts, &ret)) != -1) {
		switch (c) {
		case CLI_OPT_READ:
			use_read = true;
			r = 0;
			break;
		case 'D':
		case RECORD_OPT_DETACH:
			detach = true;
			r = 0;
			break;
		case RECORD_OPT_ROTATE_SIZE:
		case RECORD_OPT_ROTATE_TIME:
			r = cli_rotate_option(argv[0], &rotate,
					      c == RECORD_OPT_ROTATE_SIZE,
					      optarg);
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
	if (!detach)
		s.flags |= KETW_SESSION_OWNED;

	if (s.trig.nr) {	/* a flight recorder: trigger.c */
		if (use_read || max_records || cli_rotate_on(&rotate))
			ret = cli_usage_error(argv[0], "--trigger takes neither --read, -n nor --rotate-*");
		else
			ret = cli_record_triggered(&s, path, seconds);
		goto out;
	}

	/*
	 * From here on a stop signal ends the recording cleanly, whenever
	 * it comes: before the session exists, it is still started, then
	 * stopped at once and written.
	 */
	cli_stop_signals_catch(old_sig);
	signals = true;

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

	/* CREATE attached @fd: the attributes as the session has them. */
	err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = cli_session_error("read the attributes of", name, err);
		goto out;
	}
	ret = cli_cpu_stats_alloc(name, attr.nr_cpus, &st, &valid);
	if (ret)
		goto out;
	sink = cli_trace_sink(&trace, path);
	ret = cli_drain_begin(&x, fd, name, &attr, use_read, &sink);
	if (ret)
		goto out;
	ret = cli_trace_create(&trace, path, &attr, &rotate);
	if (ret)
		goto out;
	x.progress.what = "record";
	x.endless = true;
	if (seconds)
		deadline = cli_now_ns() + seconds * 1000000000ull;

	for (;;) {
		struct timespec tick = { 0, 100 * 1000000L };

		if (use_read) {
			ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st,
						valid);
			if (ret)
				break;
		}
		ret = cli_drain_pass(&x, fd, name, &attr, st, valid);
		if (!ret)	/* on disk: a killed recorder keeps it */
			ret = cli_trace_flush(&trace);
		/* A chunk that is due ends with the counters as they are. */
		if (!ret && cli_trace_rotate_due(&trace, cli_now_ns())) {
			ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st,
						valid);
			if (!ret)
				ret = cli_trace_rotate(&trace, st, valid,
						       attr.nr_cpus);
		}
		if (ret)
			break;
		cli_progress_update(&x.progress, x.bytes, 0, x.records);
		if (cli_stop || (max_records && x.records >= max_records) ||
		    (deadline && cli_now_ns() >= deadline))
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
	if (!ret)
		ret = cli_trace_finish(&trace, st, valid, attr.nr_cpus);
	if (!ret)
		cli_drain_summary(&x, name, path, &attr, st);
out:
	/* After an error: what was drained stays in the file, cut short. */
	cli_trace_abort(&trace, true);
	cli_drain_end(&x);
	free(st);
	free(valid);
	/* Through the attached file, which may destroy it even if owned. */
	if (started) {
		err = ketw_session_destroy(fd, name);
		if (err)
			cli_session_error("remove", name, err);
	}
	if (fd >= 0)
		close(fd);
	if (signals)
		cli_stop_signals_restore(old_sig);
	cli_start_free(&s);
	return ret;
}
