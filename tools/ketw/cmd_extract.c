// SPDX-License-Identifier: GPL-2.0
/*
 * ketw extract: drain a session's buffers into a trace file.
 *
 * By default every CPU's buffer is mapped and consumed in place (LOOP:
 * copied and claimed), up to the commit position each CPU had when the
 * extract began. With --read the records of all CPUs come interleaved
 * from read() instead, for at most what was pending plus a buffer per
 * CPU. Either way they are sorted into one growing buffer per CPU and
 * written as one records section per CPU, then the per-CPU counters: the
 * same file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ketw.h"

struct extract {
	struct ketw_cpu_buf *cpus;
	unsigned int nr_cpus;
	uint64_t records;
	uint64_t bytes;		/* their spans */
	uint64_t bad_cpu;	/* records naming a CPU the session lacks */
	uint64_t total;		/* bytes pending at the start, for progress */
	uint64_t raced;		/* LOOP: records writers took while we copied */
	struct ketw_progress progress;
};

static void extract_progress(struct extract *x)
{
	ketw_progress_update(&x->progress, x->bytes, x->total, x->records);
}

static int extract_record(const struct ketw_record *rec, void *ctx)
{
	struct extract *x = ctx;

	if (rec->cpu >= x->nr_cpus) {
		x->bad_cpu++;
		return 0;
	}
	if (ketw_cpu_buf_append(&x->cpus[rec->cpu], rec->hdr, rec->span))
		return -ENOMEM;
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
			struct extract *x)
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
	if (err == -EBADMSG)
		return ketw_error("session '%s': read() returned a malformed record",
				  name);
	if (err)
		return ketw_error("cannot read session '%s': %s", name,
				  strerror(-err));
	return 0;
}

/*
 * mmap: each CPU's buffer up to its commit position now, so that a busy
 * running session cannot keep us reading forever.
 */
static int extract_mmap(int fd, const char *name,
			const struct ketw_session_attr *attr, const bool *valid,
			struct extract *x)
{
	struct ketw_mmap *m;
	unsigned int cpu;
	int err, ret = 0;

	m = calloc(attr->nr_cpus, sizeof(*m));
	if (!m)
		return ketw_error("out of memory");
	for (cpu = 0; cpu < attr->nr_cpus; cpu++) {
		if (!valid[cpu])
			continue;
		err = ketw_mmap_map(fd, cpu, &m[cpu]);
		if (err == -EPROTO) {
			ret = ketw_error("session '%s': cpu %u: the kernel's meta page is not one this ketw knows (try --read)",
					 name, cpu);
			goto out;
		}
		if (err) {
			ret = ketw_error("cannot map the buffer of cpu %u of session '%s': %s (try --read)",
					 cpu, name, strerror(-err));
			goto out;
		}
	}
	/* Mark every CPU before draining any. */
	for (cpu = 0; cpu < attr->nr_cpus; cpu++)
		if (m[cpu].meta)
			x->total += ketw_mmap_mark(&m[cpu]);
	for (cpu = 0; cpu < attr->nr_cpus; cpu++) {
		if (!m[cpu].meta)
			continue;
		err = ketw_mmap_consume(&m[cpu], extract_record, x);
		if (err == -EBADMSG) {
			ret = ketw_error("session '%s': cpu %u: malformed record in the mapped buffer",
					 name, cpu);
			goto out;
		}
		if (err) {
			ret = ketw_error("cannot read session '%s': %s", name,
					 strerror(-err));
			goto out;
		}
		x->raced += m[cpu].dropped + m[cpu].torn;
		extract_progress(x);
	}
out:
	for (cpu = 0; cpu < attr->nr_cpus; cpu++)
		ketw_mmap_unmap(&m[cpu]);
	free(m);
	return ret;
}

int cmd_extract(int argc, char **argv)
{
	const char *name = KETW_DEFAULT_SESSION, *path = KETW_DEFAULT_FILE;
	struct ketw_session_attr attr;
	struct extract x = { 0 };
	static const struct option longopts[] = {
		{ "read", no_argument, NULL, KETW_OPT_READ },
		{ NULL, 0, NULL, 0 },
	};
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL, use_read = false;
	uint64_t lost = 0;
	unsigned int cpu;
	int c, fd, err, ret = KETW_EXIT_OK;

	while ((c = ketw_getopt_long(argc, argv, "s:o:", longopts,
				     &ret)) != -1) {
		switch (c) {
		case KETW_OPT_READ:
			use_read = true;
			break;
		case 's':
			name = optarg;
			ret = ketw_check_session_name(argv[0], name);
			break;
		case 'o':
			path = optarg;
			if (!*path)
				ret = ketw_usage_error(argv[0],
						       "-o: empty file name");
			break;
		default:
			return ret;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return ketw_usage_error(argv[0], "unexpected argument '%s'",
					argv[optind]);

	/* Read-write: the mapped meta pages take our position. */
	fd = ketw_open_device(O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return KETW_EXIT_ERROR;
	err = ketw_session_attach(fd, name);
	if (!err)
		err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = ketw_session_error("attach to", name, err);
		goto out_close;
	}
	if (!attr.nr_cpus || attr.nr_cpus > KETW_FILE_MAX_CPUS) {
		ret = ketw_error("session '%s' reports %u cpus", name,
				 attr.nr_cpus);
		goto out_close;
	}
	x.nr_cpus = attr.nr_cpus;
	x.cpus = calloc(attr.nr_cpus, sizeof(*x.cpus));
	st = calloc(attr.nr_cpus, sizeof(*st));
	valid = calloc(attr.nr_cpus, sizeof(*valid));
	if (!x.cpus || !st || !valid) {
		ret = ketw_error("out of memory");
		goto out_free;
	}
	ret = ketw_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (ret)
		goto out_free;

	ketw_progress_init(&x.progress, "extract");
	if (use_read)
		ret = extract_read(fd, name, &attr, st, valid, &x);
	else
		ret = extract_mmap(fd, name, &attr, valid, &x);
	ketw_progress_end(&x.progress);
	if (ret)
		goto out_free;
	/* The final counters and state (a full policy may have stopped it). */
	ret = ketw_get_cpu_stats(fd, name, attr.nr_cpus, st, valid);
	if (ret)
		goto out_free;
	err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = ketw_session_error("read the attributes of", name, err);
		goto out_free;
	}

	ret = ketw_trace_write(path, &attr, x.cpus, st, valid);
	if (ret)
		goto out_free;
	for (cpu = 0; cpu < attr.nr_cpus; cpu++)
		lost += st[cpu].lost_full + st[cpu].overwritten +
			st[cpu].lost_busy + st[cpu].lost_nested;
	printf("session %s: %llu records (%llu bytes) from %u cpus written to %s\n",
	       name, (unsigned long long)x.records,
	       (unsigned long long)x.bytes, attr.nr_cpus, path);
	if (lost)
		printf("session %s: %llu events lost or overwritten in the kernel (see 'ketw report %s')\n",
		       name, (unsigned long long)lost, path);
	if (x.raced)
		printf("session %s: writers overwrote %llu records while they were being extracted (counted as overwritten, not in %s)\n",
		       name, (unsigned long long)x.raced, path);
	if (x.bad_cpu)
		ketw_error("warning: %llu records named a cpu the session does not have; they were left out",
			   (unsigned long long)x.bad_cpu);
out_free:
	ketw_cpu_bufs_free(x.cpus, x.nr_cpus);
	free(st);
	free(valid);
out_close:
	close(fd);
	return ret;
}
