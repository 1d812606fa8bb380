// SPDX-License-Identifier: GPL-2.0
/*
 * ketw extract: drain a session's buffers into a trace file.
 *
 * By default every CPU's buffer is mapped and consumed in place (LOOP:
 * copied and claimed), up to the commit position each CPU had when the
 * extract began. With --read the records of all CPUs come interleaved
 * from read() instead, for at most what was pending plus a buffer per
 * CPU. Either way they go to the trace file's incremental writer, which
 * sorts them by CPU and writes a section whenever a CPU has gathered
 * KETW_OUTPUT_CPU_BUFFER bytes, then the rest and the per-CPU counters:
 * the same file, in flat memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void extract_progress(struct cli_drain *x)
{
	cli_progress_update(&x->progress, x->bytes,
			    x->endless ? 0 : x->total, x->records);
}

static int extract_record(const struct ketw_record *rec, void *ctx)
{
	struct cli_drain *x = ctx;
	int err;

	if (rec->cpu >= x->nr_cpus) {
		x->bad_cpu++;
		return 0;
	}
	err = x->sink.put(x->sink.ctx, rec);
	if (err) {
		x->sink_err = err;
		return err;
	}
	x->bytes += rec->span;
	if (!(++x->records % 4096))
		extract_progress(x);
	return 0;
}

/*
 * Bytes waiting in the buffers now: a bound for the drain, so that a
 * busy running session cannot keep us reading forever.
 */
static uint64_t extract_bound(const struct ketw_session_attr *attr,
			      const struct ketw_cpu_stats *st,
			      const bool *valid)
{
	uint64_t pending = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < attr->nr_cpus; cpu++)
		if (valid[cpu])
			pending += (uint32_t)(st[cpu].produced -
					      st[cpu].consumed);
	/* Plus one buffer per CPU for what comes in while we read. */
	return pending + (uint64_t)attr->nr_cpus * attr->buffer_kb * 1024;
}

/* read(): records of every CPU, interleaved. */
static int extract_read(int fd, const char *name,
			const struct ketw_session_attr *attr,
			const struct ketw_cpu_stats *st, const bool *valid,
			struct cli_drain *x)
{
	uint64_t bytes;
	unsigned int cpu;
	int err;

	for (cpu = 0; cpu < attr->nr_cpus; cpu++)
		if (valid[cpu])
			x->total += (uint32_t)(st[cpu].produced -
					       st[cpu].consumed);
	err = ketw_reader_drain(fd, extract_bound(attr, st, valid),
				extract_record, x, &bytes);
	if (err && x->sink_err)
		return cli_error("cannot write %s: %s", x->sink.name,
				 strerror(-err));
	if (err == -EBADMSG)
		return cli_error("session '%s': read() returned a malformed record",
				 name);
	if (err)
		return cli_error("cannot read session '%s': %s", name,
				 strerror(-err));
	return 0;
}

/*
 * mmap: each CPU's buffer up to its commit position now, so that a busy
 * running session cannot keep us reading forever.
 */
static int extract_mmap(const char *name, const struct ketw_session_attr *attr,
			struct cli_drain *x)
{
	struct ketw_mmap *m = x->m;
	unsigned int cpu;
	int err;

	/* Mark every CPU before draining any. */
	for (cpu = 0; cpu < attr->nr_cpus; cpu++)
		if (m[cpu].meta)
			x->total += ketw_mmap_mark(&m[cpu]);
	for (cpu = 0; cpu < attr->nr_cpus; cpu++) {
		if (!m[cpu].meta)
			continue;
		m[cpu].dropped = m[cpu].torn = 0;
		err = ketw_mmap_consume(&m[cpu], extract_record, x);
		x->raced += m[cpu].dropped + m[cpu].torn;
		if (err && x->sink_err)
			return cli_error("cannot write %s: %s",
					 x->sink.name, strerror(-err));
		if (err == -EBADMSG)
			return cli_error("session '%s': cpu %u: malformed record in the mapped buffer",
					 name, cpu);
		if (err)
			return cli_error("cannot read session '%s': %s", name,
					 strerror(-err));
		extract_progress(x);
	}
	return 0;
}

int cli_drain_begin(struct cli_drain *d, int fd, const char *name,
		    const struct ketw_session_attr *attr, bool use_read,
		    const struct cli_sink *sink)
{
	unsigned int cpu;
	int err;

	memset(d, 0, sizeof(*d));
	/* Mapping may take long too: the progress starts now. */
	cli_progress_init(&d->progress, "extract");
	d->use_read = use_read;
	d->nr_cpus = attr->nr_cpus;
	d->sink = *sink;
	if (use_read)
		return 0;
	d->m = calloc(attr->nr_cpus, sizeof(*d->m));
	if (!d->m)
		return cli_error("out of memory");
	for (cpu = 0; cpu < attr->nr_cpus; cpu++) {
		err = ketw_mmap_map(fd, cpu, &d->m[cpu]);
		if (err == -EINVAL)	/* not a possible CPU */
			continue;
		if (err == -EPROTO)
			return cli_error("session '%s': cpu %u: the kernel's meta page is not one this ketw knows (try --read)",
					 name, cpu);
		if (err)
			return cli_error("cannot map the buffer of cpu %u of session '%s': %s (try --read)",
					 cpu, name, strerror(-err));
	}
	return 0;
}

int cli_drain_pass(struct cli_drain *d, int fd, const char *name,
		   const struct ketw_session_attr *attr,
		   const struct ketw_cpu_stats *st, const bool *valid)
{
	if (d->use_read)
		return extract_read(fd, name, attr, st, valid, d);
	return extract_mmap(name, attr, d);
}

void cli_drain_end(struct cli_drain *d)
{
	unsigned int cpu;

	if (d->m)
		for (cpu = 0; cpu < d->nr_cpus; cpu++)
			ketw_mmap_unmap(&d->m[cpu]);
	free(d->m);
	d->m = NULL;
}

void cli_drain_summary(const struct cli_drain *d, const char *name,
		       const char *path, const struct ketw_session_attr *attr,
		       const struct ketw_cpu_stats *st)
{
	uint64_t lost = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < attr->nr_cpus; cpu++)
		lost += st[cpu].lost_full + st[cpu].overwritten +
			st[cpu].lost_busy + st[cpu].lost_nested;
	printf("session %s: %llu records (%llu bytes) from %u cpus written to %s\n",
	       name, (unsigned long long)d->records,
	       (unsigned long long)d->bytes, attr->nr_cpus, path);
	if (lost)
		printf("session %s: %llu events lost or overwritten in the kernel (see 'ketw report %s')\n",
		       name, (unsigned long long)lost, path);
	if (d->raced)
		printf("session %s: writers overwrote %llu records while they were being extracted (counted as overwritten, not in %s)\n",
		       name, (unsigned long long)d->raced, path);
	if (d->bad_cpu)
		cli_error("warning: %llu records named a cpu the session does not have; they were left out",
			  (unsigned long long)d->bad_cpu);
}

int cmd_extract(int argc, char **argv)
{
	const char *name = CLI_DEFAULT_SESSION, *path = CLI_DEFAULT_FILE;
	struct ketw_session_attr attr;
	struct cli_drain x = { 0 };
	struct cli_trace trace = { 0 };
	struct cli_sink sink;
	static const struct option longopts[] = {
		{ "read", no_argument, NULL, CLI_OPT_READ },
		{ NULL, 0, NULL, 0 },
	};
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL, use_read = false;
	int c, fd, err, ret = CLI_EXIT_OK;

	while ((c = cli_getopt_long(argc, argv, "s:o:", longopts,
				    &ret)) != -1) {
		switch (c) {
		case CLI_OPT_READ:
			use_read = true;
			break;
		case 's':
			name = optarg;
			ret = cli_check_session_name(argv[0], name);
			break;
		case 'o':
			path = optarg;
			if (!*path)
				ret = cli_usage_error(argv[0],
						      "-o: empty file name");
			break;
		default:
			return ret;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);

	/* Read-write: the mapped meta pages take our position. */
	fd = cli_open_device(O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	err = ketw_session_attach(fd, name);
	if (!err)
		err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = cli_session_error("attach to", name, err);
		goto out_close;
	}
	ret = cli_cpu_stats_alloc(name, attr.nr_cpus, &st, &valid);
	if (ret)
		goto out_free;
	ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (ret)
		goto out_free;

	sink = cli_trace_sink(&trace, path);
	ret = cli_drain_begin(&x, fd, name, &attr, use_read, &sink);
	if (!ret)
		ret = cli_trace_create(&trace, path, &attr, NULL);
	if (!ret)
		ret = cli_drain_pass(&x, fd, name, &attr, st, valid);
	cli_progress_end(&x.progress);
	if (ret)
		goto out_free;
	/* The final counters (a full policy may have stopped it). */
	ret = cli_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (ret)
		goto out_free;
	ret = cli_trace_finish(&trace, st, valid, attr.nr_cpus);
	if (ret)
		goto out_free;
	cli_drain_summary(&x, name, path, &attr, st);
out_free:
	/* Nothing is left behind on failure. */
	cli_trace_abort(&trace, false);
	cli_drain_end(&x);
	free(st);
	free(valid);
out_close:
	close(fd);
	return ret;
}
