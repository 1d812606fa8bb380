// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: writing a trace file as records come (extract, snapshot and
 * record), through libketw's incremental writer: every CPU's records go
 * out in sections as its buffer fills and at each flush, so that memory
 * stays flat and the file on disk is readable up to its last section.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

int cli_trace_create(struct cli_trace *t, const char *path,
		     const struct ketw_session_attr *attr,
		     const struct cli_rotate_opts *rotate)
{
	struct ketw_output_info info;
	int err;

	memset(t, 0, sizeof(*t));
	t->path = path;
	if (rotate && cli_rotate_on(rotate)) {
		t->rotating = true;
		if (cli_rotate_init(&t->rot, path, ".ketw", rotate, false))
			return cli_error("out of memory");
	}
	memset(&info, 0, sizeof(info));
	ketw_output_info_from_attr(&info, attr);
	err = ketw_output_create(path, &info, &t->out);
	if (err) {
		t->out = NULL;
		cli_rotate_free(&t->rot);
		return cli_error("cannot create %s: %s", path, strerror(-err));
	}
	/* Each chunk decodes alone: the rundown goes into every one. */
	if (t->rotating)
		ketw_output_keep_rundown(t->out, KETW_STREAM_RUNDOWN_MAX);
	return 0;
}

int cli_trace_add(struct cli_trace *t, const struct ketw_record *rec)
{
	return ketw_output_add_record(t->out, rec->cpu, rec->hdr, rec->span);
}

static int cli_trace_put(void *ctx, const struct ketw_record *rec)
{
	return cli_trace_add(ctx, rec);
}

struct cli_sink cli_trace_sink(struct cli_trace *t, const char *path)
{
	struct cli_sink s = { .put = cli_trace_put, .ctx = t, .name = path };

	return s;
}

/* After a failed call: the message, and the file goes (or stays, cut). */
static int cli_trace_failed(struct cli_trace *t, int err, bool keep)
{
	cli_error("cannot write %s: %s", t->path, strerror(-err));
	ketw_output_abort(t->out, keep ? NULL : t->path);
	t->out = NULL;
	if (keep)
		cli_error("%s is cut short: 'ketw report' reads what it holds",
			  t->path);
	cli_rotate_free(&t->rot);	/* t->path may be its name */
	return CLI_EXIT_ERROR;
}

int cli_trace_flush(struct cli_trace *t)
{
	int err = ketw_output_flush(t->out);

	return err ? cli_trace_failed(t, err, true) : 0;
}

bool cli_trace_rotate_due(const struct cli_trace *t, uint64_t now)
{
	return t->rotating && t->out &&
	       cli_rotate_due(&t->rot, ketw_output_size(t->out), now);
}

int cli_trace_rotate(struct cli_trace *t, const struct ketw_cpu_stats *st,
		     const bool *valid, unsigned int nr)
{
	uint64_t now = cli_now_ns();
	int err;

	if (!cli_trace_rotate_due(t, now))
		return 0;
	/* The chunk ends with the counters as they are now. */
	err = ketw_output_add_stats(t->out, st, valid, nr);
	if (err)
		return cli_trace_failed(t, err, true);
	if (cli_rotate_next(&t->rot, now))
		return cli_trace_failed(t, -ENOMEM, true);
	err = ketw_output_rotate(t->out, t->rot.path);
	if (err) {
		cli_error("cannot start %s: %s", t->rot.path, strerror(-err));
		return cli_trace_failed(t, err, true);
	}
	t->path = t->rot.path;
	t->chunks++;
	return 0;
}

int cli_trace_finish(struct cli_trace *t, const struct ketw_cpu_stats *st,
		     const bool *valid, unsigned int nr)
{
	int err;

	err = ketw_output_add_stats(t->out, st, valid, nr);
	if (err)
		return cli_trace_failed(t, err, false);
	err = ketw_output_close(t->out);
	t->out = NULL;
	if (err)
		err = cli_error("cannot write %s: %s", t->path,
				strerror(-err));
	else if (t->chunks)
		printf("%s, then %u more chunks, the last %s\n", t->rot.first,
		       t->chunks, t->path);
	cli_rotate_free(&t->rot);	/* t->path may be its name */
	return err;
}

void cli_trace_abort(struct cli_trace *t, bool keep)
{
	if (t->out) {
		if (keep && !ketw_output_flush(t->out))
			cli_error("%s is cut short: 'ketw report' reads what it holds",
				  t->path);
		ketw_output_abort(t->out, keep ? NULL : t->path);
		t->out = NULL;
	}
	cli_rotate_free(&t->rot);
}
