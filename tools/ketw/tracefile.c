// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: collecting records per CPU and writing them as a trace file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_cpu_buf_append(struct cli_cpu_buf *b, const void *p, size_t n)
{
	size_t cap;
	void *q;

	if (b->cap - b->len < n) {
		cap = b->cap ? b->cap : 64 * 1024;
		while (cap - b->len < n)
			cap *= 2;
		q = realloc(b->data, cap);
		if (!q)
			return -ENOMEM;
		b->data = q;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void cli_cpu_bufs_free(struct cli_cpu_buf *b, unsigned int nr)
{
	unsigned int i;

	for (i = 0; b && i < nr; i++)
		free(b[i].data);
	free(b);
}

int cli_trace_write(const char *path, const struct ketw_session_attr *attr,
		    const struct cli_cpu_buf *cpus,
		    const struct ketw_cpu_stats *st, const bool *valid)
{
	struct ketw_output_info info;
	struct ketw_output *out;
	unsigned int cpu;
	int err;

	memset(&info, 0, sizeof(info));
	ketw_output_info_from_attr(&info, attr);
	err = ketw_output_create(path, &info, &out);
	if (err)
		return cli_error("cannot create %s: %s", path, strerror(-err));
	for (cpu = 0; cpu < attr->nr_cpus && !err; cpu++)
		if (cpus[cpu].len)
			err = ketw_output_add_records(out, cpu, cpus[cpu].data,
						      cpus[cpu].len);
	if (!err)
		err = ketw_output_add_stats(out, st, valid, attr->nr_cpus);
	if (err) {
		ketw_output_abort(out, path);
		return cli_error("cannot write %s: %s", path, strerror(-err));
	}
	err = ketw_output_close(out);
	if (err) {
		unlink(path);
		return cli_error("cannot write %s: %s", path, strerror(-err));
	}
	return 0;
}
