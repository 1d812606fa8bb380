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
		     const struct ketw_session_attr *attr)
{
	struct ketw_output_info info;
	int64_t offset;
	uint64_t at;
	int err;

	memset(t, 0, sizeof(*t));
	t->path = path;
	memset(&info, 0, sizeof(info));
	ketw_output_info_from_attr(&info, attr);
	err = ketw_output_create(path, &info, &t->out);
	if (err) {
		t->out = NULL;
		return cli_error("cannot create %s: %s", path, strerror(-err));
	}
	/* Where the clock stands: files of several machines merge by it. */
	if (!ketw_clock_offset(attr->clock, &offset, &at)) {
		err = ketw_output_add_clock(t->out, offset, at);
		if (err) {
			ketw_output_abort(t->out, path);
			t->out = NULL;
			return cli_error("cannot write %s: %s", path,
					 strerror(-err));
		}
	}
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
	return CLI_EXIT_ERROR;
}

int cli_trace_flush(struct cli_trace *t)
{
	int err = ketw_output_flush(t->out);

	return err ? cli_trace_failed(t, err, true) : 0;
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
		return cli_error("cannot write %s: %s", t->path,
				 strerror(-err));
	return 0;
}

void cli_trace_abort(struct cli_trace *t, bool keep)
{
	if (!t->out)
		return;
	if (keep && !ketw_output_flush(t->out))
		cli_error("%s is cut short: 'ketw report' reads what it holds",
			  t->path);
	ketw_output_abort(t->out, keep ? NULL : t->path);
	t->out = NULL;
}
