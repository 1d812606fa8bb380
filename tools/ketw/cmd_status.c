// SPDX-License-Identifier: GPL-2.0
/*
 * ketw status: a session's POSIX trace stream status (running or
 * suspended, full, overrun, flush and its error), its totals and its
 * per-CPU counters, as text or JSON.
 *
 * Reading the status resets the overrun status and the flush error in
 * the kernel (as posix_trace_get_status() does): two calls in a row
 * differ.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ketw.h"

/* "-110 ETIMEDOUT", "0" */
static const char *status_errno(int err, char *buf, size_t len)
{
	const char *name = ketw_errno_name(err);

	if (!err)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%d %s", err, name ? name : "(unknown)");
	return buf;
}

static void status_text(const struct ketw_session_status *ss,
			const struct ketw_cpu_stats *st, const bool *valid,
			uint64_t memory)
{
	char e[48];

	printf("session:  %s (%s%s)\n", ss->name,
	       ketw_or(ketw_state_name(ss->state), "?"),
	       ss->auto_stopped ? ", stopped by the full policy" : "");
	printf("full:     %s\n",
	       ss->full_status == KETW_FULL_FULL ? "yes" : "no");
	printf("overrun:  %s\n",
	       ss->overrun_status == KETW_OVERRUN_OVERRUN ?
	       "yes, events were lost or overwritten since the last status" :
	       "no, nothing lost since the last status");
	printf("flush:    %s, error %s%s\n",
	       ss->flush_status == KETW_FLUSH_FLUSHING ? "flushing" :
							 "not flushing",
	       status_errno(ss->flush_error, e, sizeof(e)),
	       ss->flush_error == -ETIMEDOUT ?
	       " (no reader drained the session in time)" : "");
	printf("totals:   %llu written, %llu lost, %llu overwritten (%u cpus)\n",
	       (unsigned long long)ss->written, (unsigned long long)ss->lost,
	       (unsigned long long)ss->overwritten, ss->nr_cpus);
	ketw_memory_print(memory);
	printf("\n");
	ketw_print_cpu_stats(st, valid, ss->nr_cpus);
}

static void status_json(const struct ketw_session_status *ss,
			const struct ketw_cpu_stats *st, const bool *valid,
			uint64_t memory)
{
	const char *ename = ketw_errno_name(ss->flush_error);
	const char *sep = "";
	unsigned int cpu;

	/* Session names are [A-Za-z0-9_.-]: nothing to escape. */
	printf("{\n");
	printf("  \"session\": \"%s\",\n", ss->name);
	printf("  \"state\": \"%s\",\n", ketw_or(ketw_state_name(ss->state),
						 "unknown"));
	printf("  \"full\": %s,\n",
	       ss->full_status == KETW_FULL_FULL ? "true" : "false");
	printf("  \"overrun\": %s,\n",
	       ss->overrun_status == KETW_OVERRUN_OVERRUN ? "true" : "false");
	printf("  \"flushing\": %s,\n",
	       ss->flush_status == KETW_FLUSH_FLUSHING ? "true" : "false");
	printf("  \"flush_error\": %d,\n", ss->flush_error);
	if (ss->flush_error && ename)
		printf("  \"flush_error_name\": \"%s\",\n", ename);
	else
		printf("  \"flush_error_name\": null,\n");
	printf("  \"auto_stopped\": %s,\n", ss->auto_stopped ? "true" : "false");
	printf("  \"nr_cpus\": %u,\n", ss->nr_cpus);
	printf("  \"written\": %llu,\n", (unsigned long long)ss->written);
	printf("  \"lost\": %llu,\n", (unsigned long long)ss->lost);
	printf("  \"overwritten\": %llu,\n",
	       (unsigned long long)ss->overwritten);
	printf("  \"memory\": %llu,\n", (unsigned long long)memory);
	printf("  \"cpus\": [");
	for (cpu = 0; cpu < ss->nr_cpus; cpu++) {
		const struct ketw_cpu_stats *s = &st[cpu];

		if (!valid[cpu])
			continue;
		printf("%s\n    {\"cpu\": %u, \"written\": %llu, \"lost_full\": %llu, \"overwritten\": %llu, \"lost_busy\": %llu, \"lost_nested\": %llu, \"truncated\": %llu, \"read\": %llu, \"sequence\": %llu, \"produced\": %llu, \"consumed\": %llu, \"pending\": %u}",
		       sep, cpu, (unsigned long long)s->written,
		       (unsigned long long)s->lost_full,
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->lost_busy,
		       (unsigned long long)s->lost_nested,
		       (unsigned long long)s->truncated,
		       (unsigned long long)s->read,
		       (unsigned long long)s->sequence,
		       (unsigned long long)s->produced,
		       (unsigned long long)s->consumed,
		       (uint32_t)(s->produced - s->consumed));
		sep = ",";
	}
	printf("%s]\n}\n", *sep ? "\n  " : "");
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, KETW_OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = KETW_DEFAULT_SESSION;
	struct ketw_session_status ss;
	struct ketw_session_attr attr;
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL, json = false;
	int c, fd, err, ret = KETW_EXIT_OK;

	while ((c = ketw_getopt_long(argc, argv, "s:", longopts, &ret)) != -1) {
		switch (c) {
		case 's':
			name = optarg;
			ret = ketw_check_session_name(argv[0], name);
			break;
		case KETW_OPT_JSON:
			json = true;
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

	fd = ketw_open_device(0);
	if (fd < 0)
		return KETW_EXIT_ERROR;
	err = ketw_session_get_status(fd, name, &ss);
	if (err) {
		ret = ketw_session_error("read the status of", name, err);
		goto out;
	}
	ss.name[KETW_NAME_MAX - 1] = '\0';
	/* What the buffers take (0 from a kernel that does not say). */
	if (ketw_session_get_attr(fd, name, &attr))
		attr.memory = 0;
	if (!ss.nr_cpus || ss.nr_cpus > KETW_FILE_MAX_CPUS) {
		ret = ketw_error("session '%s' reports %u cpus", name,
				 ss.nr_cpus);
		goto out;
	}
	st = calloc(ss.nr_cpus, sizeof(*st));
	valid = calloc(ss.nr_cpus, sizeof(*valid));
	if (!st || !valid) {
		ret = ketw_error("out of memory");
		goto out;
	}
	ret = ketw_get_cpu_stats(fd, name, ss.nr_cpus, st, valid);
	if (ret)
		goto out;
	if (json)
		status_json(&ss, st, valid, attr.memory);
	else
		status_text(&ss, st, valid, attr.memory);
	if (fflush(stdout))
		ret = ketw_error("writing the status failed: %s",
				 strerror(errno));
out:
	free(st);
	free(valid);
	close(fd);
	return ret;
}
