// SPDX-License-Identifier: GPL-2.0
/*
 * ketw stream: a session's records off the machine as they are drained,
 * in frames (Documentation/ketw-stream.rst), to a file or a pipe (-o), a
 * TCP peer such as ketw listen (--to) or a serial line (--serial).
 *
 * Like ketw record, it starts a session of its own (the same options)
 * and drains it through the mappings every 100 ms, until SIGINT,
 * SIGTERM or SIGHUP, -d seconds or -n records; then stops it, drains
 * the rest and ends the stream with the final counters and END. With
 * --attach it streams a session that exists instead, asking a rundown
 * first, and leaves it as it was; with --tee it also writes the records
 * into a local trace file, as ketw record would. Every second a STATUS frame carries
 * the kernel's counters and the clocks; what the sender could not send
 * (a TCP peer gone, its backlog full) is counted there, never dropped
 * silently.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sender.h"

enum {
	STREAM_OPT_TO = 0x200,
	STREAM_OPT_SERIAL,
	STREAM_OPT_BAUD,
	STREAM_OPT_ATTACH,
	STREAM_OPT_BACKLOG,
	STREAM_OPT_LINGER,
	STREAM_OPT_TEE,
};

#define STREAM_STATUS_EVERY_NS	1000000000ull

struct stream_opts {
	struct cli_sender_opts link;
	bool attach, use_read, start_opts;
	uint64_t seconds, max_records, linger;
	const char *tee;	/* a local copy, as ketw record writes it */
};

/* The records' two ways: the stream, and the local copy (--tee). */
struct stream_sink {
	struct cli_sender *snd;
	struct cli_trace *tee;	/* NULL without --tee */
};

static int stream_put(void *ctx, const struct ketw_record *rec)
{
	struct stream_sink *k = ctx;
	int err = k->tee ? cli_trace_add(k->tee, rec) : 0;

	return err ? err : cli_sender_record(k->snd, rec);
}

static int stream_link_opt(const char *cmd, struct stream_opts *o,
			   enum cli_link_kind kind, const char *arg)
{
	if (o->link.target)
		return cli_usage_error(cmd, "one of -o, --to and --serial");
	if (!*arg)
		return cli_usage_error(cmd, "an empty destination");
	o->link.kind = kind;
	o->link.target = arg;
	return 0;
}

static void stream_summary(const char *name, const struct cli_drain *x,
			   const struct cli_sender *snd)
{
	char size[32];

	printf("session %s: %llu records in %llu frames (%s) sent to %s",
	       name, (unsigned long long)x->records,
	       (unsigned long long)snd->frames_sent,
	       cli_size_format(snd->bytes_sent, size, sizeof(size)),
	       snd->target);
	if (snd->reconnects)
		printf(", %llu connections", (unsigned long long)snd->connections);
	printf("\n");
	if (snd->dropped_frames)
		printf("session %s: %llu frames (%llu records) could not be sent; the stream counts them\n",
		       name, (unsigned long long)snd->dropped_frames,
		       (unsigned long long)snd->dropped_records);
}

int cmd_stream(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_START_LONGOPTS,
		{ "read", no_argument, NULL, CLI_OPT_READ },
		{ "to", required_argument, NULL, STREAM_OPT_TO },
		{ "serial", required_argument, NULL, STREAM_OPT_SERIAL },
		{ "baud", required_argument, NULL, STREAM_OPT_BAUD },
		{ "attach", no_argument, NULL, STREAM_OPT_ATTACH },
		{ "backlog", required_argument, NULL, STREAM_OPT_BACKLOG },
		{ "linger", required_argument, NULL, STREAM_OPT_LINGER },
		{ "tee", required_argument, NULL, STREAM_OPT_TEE },
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_start s;
	struct stream_opts o = {
		.link.baud = 115200, .linger = 10,
	};
	struct sigaction old_sig[CLI_STOP_NR_SIGNALS];
	struct ketw_output_info info;
	struct ketw_file_header hdr;
	struct ketw_session_attr attr;
	struct cli_sender snd = { .fd = -1 };
	struct cli_drain x = { 0 };
	struct cli_trace tee = { 0 };
	struct stream_sink k = { .snd = &snd };
	struct cli_sink sink;
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL, started = false, signals = false, opened = false;
	uint64_t deadline = 0, next_status, v;
	const char *name;
	int c, fd = -1, r, err, ret = CLI_EXIT_OK;

	cli_start_init(&s, argv[0]);
	while ((c = cli_getopt_long(argc, argv, CLI_START_OPTSTRING "o:d:n:",
				    longopts, &ret)) != -1) {
		switch (c) {
		case CLI_OPT_READ:
			o.use_read = true;
			r = 0;
			break;
		case STREAM_OPT_ATTACH:
			o.attach = true;
			r = 0;
			break;
		case 'o':
			r = stream_link_opt(argv[0], &o, CLI_LINK_FILE, optarg);
			break;
		case STREAM_OPT_TO:
			r = stream_link_opt(argv[0], &o, CLI_LINK_TCP, optarg);
			break;
		case STREAM_OPT_SERIAL:
			r = stream_link_opt(argv[0], &o, CLI_LINK_SERIAL, optarg);
			break;
		case STREAM_OPT_BAUD:
			r = cli_opt_u64_named(argv[0], "--baud", optarg,
					      "a speed in baud", 50, 4000000,
					      &v);
			o.link.baud = (unsigned int)v;
			break;
		case STREAM_OPT_BACKLOG:
			r = cli_opt_u64_named(argv[0], "--backlog", optarg,
					      "a number of KiB", 128, 1u << 22,
					      &v);
			o.link.backlog = (size_t)v * 1024;
			break;
		case STREAM_OPT_TEE:
			o.tee = optarg;
			r = *optarg ? 0 : cli_usage_error(argv[0],
							  "--tee: empty file name");
			break;
		case STREAM_OPT_LINGER:
			r = cli_opt_u64_named(argv[0], "--linger", optarg,
					      "a number of seconds", 0, 3600,
					      &o.linger);
			break;
		case 'd':
			r = cli_opt_u64(argv[0], c, optarg,
					"a number of seconds", 1, UINT32_MAX,
					&o.seconds);
			break;
		case 'n':
			r = cli_opt_u64(argv[0], c, optarg,
					"a number of events", 1, UINT64_MAX,
					&o.max_records);
			break;
		default:
			r = cli_start_option(&s, c, optarg);
			if (r < 0)	/* '?': cli_getopt_long() set ret */
				goto out;
			if (c != 's')
				o.start_opts = true;
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
	if (!o.link.target) {
		ret = cli_usage_error(argv[0],
				      "where to: -o FILE|-, --to HOST:PORT or --serial DEV");
		goto out;
	}
	if (o.attach && o.start_opts) {
		ret = cli_usage_error(argv[0],
				      "--attach streams a session as it is: -s only");
		goto out;
	}
	ret = cli_start_check(&s);
	if (ret)
		goto out;
	if (s.trig.nr) {
		ret = cli_usage_error(argv[0], "stream takes no --trigger");
		goto out;
	}
	name = s.name;
	s.flags |= KETW_SESSION_OWNED;

	cli_stop_signals_catch(old_sig);
	signals = true;
	/* Read-write: the mapped meta pages take our position. */
	fd = cli_open_device(O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		ret = CLI_EXIT_ERROR;
		goto out;
	}
	if (o.attach) {
		err = ketw_session_attach(fd, name);
		if (err) {
			ret = cli_session_error("attach to", name, err);
			goto out;
		}
		/* A receiver needs the registry: log it now (if running). */
		err = ketw_session_rundown(fd, name);
		if (err && err != -EINVAL) {
			ret = cli_session_error("run down", name, err);
			goto out;
		}
	} else {
		ret = cli_start_session(&s, fd);
		if (ret)
			goto out;
		started = true;
	}
	fflush(stdout);
	err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = cli_session_error("read the attributes of", name, err);
		goto out;
	}
	ret = cli_cpu_stats_alloc(name, attr.nr_cpus, &st, &valid);
	if (ret)
		goto out;

	memset(&info, 0, sizeof(info));
	ketw_output_info_from_attr(&info, &attr);
	ketw_output_header_init(&hdr, &info);
	ret = cli_sender_open(&snd, &o.link, &hdr);
	opened = true;
	if (ret)
		goto out;
	sink = (struct cli_sink){
		.put = stream_put, .ctx = &k, .name = o.link.target,
	};
	ret = cli_drain_begin(&x, fd, name, &attr, o.use_read, &sink);
	if (ret)
		goto out;
	if (o.tee) {
		ret = cli_trace_create(&tee, o.tee, &attr, NULL);
		if (ret)
			goto out;
		k.tee = &tee;
	}
	x.progress.what = "stream";
	x.endless = true;
	if (o.seconds)
		deadline = cli_now_ns() + o.seconds * 1000000000ull;
	next_status = cli_now_ns();

	for (;;) {
		struct timespec tick = { 0, 100 * 1000000L };

		if (o.use_read || cli_now_ns() >= next_status) {
			ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st,
						valid);
			if (ret)
				break;
		}
		ret = cli_drain_pass(&x, fd, name, &attr, st, valid);
		if (!ret && k.tee)
			ret = cli_trace_flush(&tee);
		if (ret)
			break;
		if (cli_now_ns() >= next_status) {
			err = cli_sender_status(&snd, st, valid, attr.nr_cpus,
						false);
			next_status += STREAM_STATUS_EVERY_NS;
		} else {
			err = cli_sender_pump(&snd);
		}
		if (err) {
			ret = cli_error("cannot write %s: %s", o.link.target,
					strerror(-err));
			break;
		}
		cli_progress_update(&x.progress, x.bytes, 0, x.records);
		if (cli_stop || (o.max_records && x.records >= o.max_records) ||
		    (deadline && cli_now_ns() >= deadline))
			break;
		nanosleep(&tick, NULL);
	}
	/* Stop (our own session), then what came in before the stop. */
	if (started) {
		err = ketw_session_stop(fd, name);
		if (err && !ret)
			ret = cli_session_error("stop", name, err);
	}
	if (!ret)
		ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (!ret)
		ret = cli_drain_pass(&x, fd, name, &attr, st, valid);
	cli_progress_end(&x.progress);
	if (!ret)
		ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (!ret && k.tee)
		ret = cli_trace_finish(&tee, st, valid, attr.nr_cpus);
	if (ret)
		goto out;
	err = cli_sender_status(&snd, st, valid, attr.nr_cpus, true);
	if (!err)
		err = cli_sender_end(&snd);
	/* A second signal gives up waiting for the peer. */
	cli_stop = 0;
	if (!err)
		err = cli_sender_finish(&snd, cli_now_ns() +
					o.linger * 1000000000ull, &cli_stop);
	if (err) {
		ret = cli_error("cannot write %s: %s", o.link.target,
				strerror(-err));
		goto out;
	}
	stream_summary(name, &x, &snd);
	if (snd.unsent)
		ret = cli_error("%s: %llu frames were left unsent when it gave up; the stream is incomplete",
				o.link.target, (unsigned long long)snd.unsent);
	else if (snd.unacked)
		ret = cli_error("%s: the collector did not acknowledge the end of the stream; it may be incomplete",
				o.link.target);
out:
	/* After an error: the local copy stays, cut short. */
	cli_trace_abort(&tee, true);
	cli_drain_end(&x);
	if (opened)
		cli_sender_close(&snd);
	free(st);
	free(valid);
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
