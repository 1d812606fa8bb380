// SPDX-License-Identifier: GPL-2.0
/*
 * ketw extract: drain a session's buffers into a trace file.
 *
 * The records of all CPUs come interleaved from read(); they are sorted
 * into one growing buffer per CPU (each record names its CPU) and written
 * as one records section per CPU, then the per-CPU counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ketw.h"

struct extract_cpu {
	unsigned char *data;
	size_t len;
	size_t cap;
};

struct extract {
	struct extract_cpu *cpus;
	unsigned int nr_cpus;
	uint64_t records;
	uint64_t bad_cpu;	/* records naming a CPU the session lacks */
};

static int extract_record(const struct ketw_record *rec, void *ctx)
{
	struct extract *x = ctx;
	struct extract_cpu *c;
	size_t cap;
	void *p;

	if (rec->cpu >= x->nr_cpus) {
		x->bad_cpu++;
		return 0;
	}
	c = &x->cpus[rec->cpu];
	if (c->cap - c->len < rec->span) {
		cap = c->cap ? c->cap : 64 * 1024;
		while (cap - c->len < rec->span)
			cap *= 2;
		p = realloc(c->data, cap);
		if (!p)
			return -ENOMEM;
		c->data = p;
		c->cap = cap;
	}
	memcpy(c->data + c->len, rec->hdr, rec->span);
	c->len += rec->span;
	x->records++;
	return 0;
}

/* Counters of every CPU; valid[cpu] is false where the kernel has none. */
static int extract_stats(int fd, const char *name, unsigned int nr_cpus,
			 struct ketw_cpu_stats *st, bool *valid)
{
	unsigned int cpu;
	int err;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		err = ketw_session_get_cpu_stats(fd, name, cpu, &st[cpu]);
		valid[cpu] = !err;
		st[cpu].cpu = cpu;
		if (err == -EINVAL)	/* not a possible CPU */
			continue;
		if (err)
			return ketw_session_error("read the counters of",
						  name, err);
	}
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

static int extract_write(const char *path, const struct ketw_session_attr *attr,
			 const struct extract *x,
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
		return ketw_error("cannot create %s: %s", path, strerror(-err));
	for (cpu = 0; cpu < x->nr_cpus && !err; cpu++)
		if (x->cpus[cpu].len)
			err = ketw_output_add_records(out, cpu,
						      x->cpus[cpu].data,
						      x->cpus[cpu].len);
	if (!err)
		err = ketw_output_add_stats(out, st, valid, attr->nr_cpus);
	if (err) {
		ketw_output_abort(out, path);
		return ketw_error("cannot write %s: %s", path, strerror(-err));
	}
	err = ketw_output_close(out);
	if (err) {
		unlink(path);
		return ketw_error("cannot write %s: %s", path, strerror(-err));
	}
	return 0;
}

int cmd_extract(int argc, char **argv)
{
	const char *name = KETW_DEFAULT_SESSION, *path = KETW_DEFAULT_FILE;
	struct ketw_session_attr attr;
	struct extract x = { 0 };
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL;
	uint64_t bytes, lost = 0;
	unsigned int cpu;
	int c, fd, err, ret = KETW_EXIT_OK;

	while ((c = ketw_getopt(argc, argv, "s:o:", &ret)) != -1) {
		switch (c) {
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

	fd = ketw_open_device(O_NONBLOCK);
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
	ret = extract_stats(fd, name, attr.nr_cpus, st, valid);
	if (ret)
		goto out_free;

	err = ketw_reader_drain(fd, extract_bound(&attr, st, valid),
				extract_record, &x, &bytes);
	if (err) {
		if (err == -EBADMSG)
			ret = ketw_error("session '%s': read() returned a malformed record",
					 name);
		else
			ret = ketw_error("cannot read session '%s': %s", name,
					 strerror(-err));
		goto out_free;
	}
	/* The final counters and state (a full policy may have stopped it). */
	ret = extract_stats(fd, name, attr.nr_cpus, st, valid);
	if (ret)
		goto out_free;
	err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = ketw_session_error("read the attributes of", name, err);
		goto out_free;
	}

	ret = extract_write(path, &attr, &x, st, valid);
	if (ret)
		goto out_free;
	for (cpu = 0; cpu < attr.nr_cpus; cpu++)
		lost += st[cpu].lost_full + st[cpu].overwritten +
			st[cpu].lost_busy + st[cpu].lost_nested;
	printf("session %s: %llu records (%llu bytes) from %u cpus written to %s\n",
	       name, (unsigned long long)x.records,
	       (unsigned long long)bytes, attr.nr_cpus, path);
	if (lost)
		printf("session %s: %llu events lost or overwritten in the kernel (see 'ketw report %s')\n",
		       name, (unsigned long long)lost, path);
	if (x.bad_cpu)
		ketw_error("warning: %llu records named a cpu the session does not have; they were left out",
			   (unsigned long long)x.bad_cpu);
out_free:
	for (cpu = 0; x.cpus && cpu < x.nr_cpus; cpu++)
		free(x.cpus[cpu].data);
	free(x.cpus);
	free(st);
	free(valid);
out_close:
	close(fd);
	return ret;
}
