// SPDX-License-Identifier: GPL-2.0
/*
 * ketw snapshot: copy every CPU's buffer of a session into a trace file
 * without consuming anything (KETW_IOC_SNAPSHOT): a flight recorder's
 * view of a LOOP session that keeps running.
 *
 * The kernel copies whole records, padding records included; the file
 * gets the records only, so that it is the same kind of file as extract
 * writes. Records that writers overwrote while the kernel copied are left
 * out of the front of the copy; the kernel says how many bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct snapshot_totals {
	uint64_t records;
	uint64_t bytes;
	uint64_t dropped;	/* bytes the kernel left out of the copies */
	uint64_t overwritten;	/* counter growth while copying */
};

/* Copy one CPU, write its records (not the padding). */
static int snapshot_cpu(int fd, const char *name, unsigned int cpu,
			void *buf, size_t len, struct cli_trace *out,
			struct snapshot_totals *t)
{
	struct ketw_record_iter it;
	struct ketw_snapshot snap;
	struct ketw_record rec;
	int err;

	err = ketw_session_snapshot(fd, name, cpu, buf, len, &snap);
	if (err == -EPROTO)
		return cli_error("session '%s': cpu %u: the kernel reported a %llu byte snapshot in a %zu byte buffer",
				 name, cpu, (unsigned long long)snap.len, len);
	if (err)
		return cli_session_error("snapshot", name, err);
	t->dropped += snap.dropped;
	ketw_record_iter_init(&it, buf, snap.len);
	while ((err = ketw_record_iter_next(&it, &rec)) > 0) {
		rec.cpu = cpu;	/* the buffer's, whatever the header says */
		err = cli_trace_add(out, &rec);
		if (err)
			return cli_error("cannot write %s: %s", out->path,
					 strerror(-err));
		t->records++;
		t->bytes += rec.span;
	}
	if (err)
		return cli_error("session '%s': cpu %u: malformed record at offset %zu of the snapshot",
				 name, cpu, it.off);
	return 0;
}

int cli_snapshot_write(int fd, const char *name, const char *path)
{
	struct ketw_cpu_stats *before = NULL, *after = NULL;
	struct snapshot_totals t = { 0 };
	struct cli_trace trace = { 0 };
	struct ketw_session_attr attr;
	bool *valid = NULL, *valid2 = NULL;
	unsigned int cpu, nr = 0;
	size_t len;
	void *buf = NULL;
	int err, ret;

	err = ketw_session_get_attr(fd, name, &attr);
	if (err)
		return cli_session_error("snapshot", name, err);
	nr = attr.nr_cpus;
	if (!nr || nr > KETW_FILE_MAX_CPUS ||
	    attr.buffer_kb > KETW_BUFFER_KB_MAX)
		return cli_error("session '%s' reports %u cpus of %u KiB", name,
				 nr, attr.buffer_kb);
	/* The kernel wants room for a whole per-CPU buffer. */
	len = (size_t)attr.buffer_kb * 1024;
	if (len < (size_t)KETW_BUFFER_KB_MIN * 1024)
		len = (size_t)KETW_BUFFER_KB_MIN * 1024;
	buf = malloc(len);
	before = calloc(nr, sizeof(*before));
	after = calloc(nr, sizeof(*after));
	valid = calloc(nr, sizeof(*valid));
	valid2 = calloc(nr, sizeof(*valid2));
	if (!buf || !before || !after || !valid || !valid2) {
		ret = cli_error("out of memory");
		goto out;
	}

	ret = cli_get_cpu_stats(fd, name, nr, before, valid);
	if (!ret)
		ret = cli_trace_create(&trace, path, &attr, NULL);
	for (cpu = 0; !ret && cpu < nr; cpu++)
		if (valid[cpu])
			ret = snapshot_cpu(fd, name, cpu, buf, len, &trace,
					   &t);
	if (!ret)
		ret = cli_get_cpu_stats(fd, name, nr, after, valid2);
	if (ret)
		goto out;
	for (cpu = 0; cpu < nr; cpu++)
		if (valid[cpu] && valid2[cpu])
			t.overwritten += after[cpu].overwritten -
					 before[cpu].overwritten;
	ret = cli_trace_finish(&trace, after, valid2, nr);
	if (ret)
		goto out;
	printf("session %s: snapshot of %llu records (%llu bytes) from %u cpus written to %s (nothing consumed)\n",
	       name, (unsigned long long)t.records,
	       (unsigned long long)t.bytes, nr, path);
	if (t.dropped) {
		printf("session %s: %llu bytes of the oldest records were overwritten while the kernel copied them and are not in the snapshot",
		       name, (unsigned long long)t.dropped);
		if (t.overwritten)
			printf(" (the overwritten counters grew by %llu records meanwhile)",
			       (unsigned long long)t.overwritten);
		printf("\n");
	}
out:
	/* Nothing is left behind on failure. */
	cli_trace_abort(&trace, false);
	free(buf);
	free(before);
	free(after);
	free(valid);
	free(valid2);
	return ret;
}

int cmd_snapshot(int argc, char **argv)
{
	const char *name = CLI_DEFAULT_SESSION, *path = NULL;
	int c, fd, ret = CLI_EXIT_OK;

	while ((c = cli_getopt(argc, argv, "s:o:", &ret)) != -1) {
		switch (c) {
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
	if (!path)
		return cli_usage_error(argv[0],
				       "-o FILE is required (where to write the snapshot)");

	fd = cli_open_device(0);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	ret = cli_snapshot_write(fd, name, path);
	close(fd);
	return ret;
}
