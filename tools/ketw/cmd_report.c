// SPDX-License-Identifier: GPL-2.0
/*
 * ketw report: print a trace file: a summary, then every record merged
 * across CPUs in timestamp order.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ketw.h"

static void report_summary(const char *path, const struct ketw_input *in)
{
	const struct ketw_file_header *h = ketw_input_header(in);
	const struct ketw_file_session *s = &h->session;
	const struct ketw_file_cpu_stats *st;
	uint64_t recs, gaps, tot[8] = { 0 };
	unsigned int cpu, idle = 0;
	char t[64];

	printf("file:     %s (ketw trace format %u.%u%s)\n", path,
	       h->version_major, h->version_minor,
	       ketw_input_swapped(in) ? ", written with the other byte order" : "");
	printf("session:  %s (%s when extracted), created %s\n", s->name,
	       ketw_or(ketw_state_name(s->state), "?"),
	       ketw_time_format(s->creation_time, t, sizeof(t)));
	printf("buffers:  %u KiB per cpu, policy %s, max data %u bytes\n",
	       s->buffer_kb, ketw_or(ketw_policy_name(s->policy), "?"),
	       s->max_data_size);
	printf("clock:    %s (resolution %u ns)\n",
	       ketw_or(ketw_clock_name(h->clock), "?"), s->clock_resolution);
	printf("filter:   level %s, match_any 0x%llx, match_all 0x%llx\n",
	       s->level ? ketw_or(ketw_level_name(s->level), "?") : "all",
	       (unsigned long long)s->match_any,
	       (unsigned long long)s->match_all);
	printf("host:     %s, kernel %s, %s\n", h->hostname, h->release,
	       h->machine);
	printf("written:  %s\n", ketw_time_format(h->creation_time, t, sizeof(t)));
	printf("cpus:     %u\n", h->nr_cpus);
	if (ketw_input_skipped_sections(in))
		printf("note:     %u sections of unknown type skipped\n",
		       ketw_input_skipped_sections(in));

	printf("\n  cpu    records    written  lost_full  overwritten  lost_busy  lost_nested  truncated   seq_gaps\n");
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		static const struct ketw_file_cpu_stats none;

		recs = ketw_input_cpu_records(in, cpu);
		gaps = ketw_input_cpu_gaps(in, cpu);
		st = ketw_input_cpu_stats(in, cpu);
		if (!st || !(st->flags & KETW_FILE_STATS_VALID))
			st = &none;
		if (!recs && !gaps && !st->written && !st->lost_full &&
		    !st->overwritten && !st->lost_busy && !st->lost_nested) {
			idle++;
			continue;
		}
		printf("  %3u %10llu %10llu %10llu %12llu %10llu %12llu %10llu %10llu\n",
		       cpu, (unsigned long long)recs,
		       (unsigned long long)st->written,
		       (unsigned long long)st->lost_full,
		       (unsigned long long)st->overwritten,
		       (unsigned long long)st->lost_busy,
		       (unsigned long long)st->lost_nested,
		       (unsigned long long)st->truncated,
		       (unsigned long long)gaps);
		tot[0] += recs;
		tot[1] += st->written;
		tot[2] += st->lost_full;
		tot[3] += st->overwritten;
		tot[4] += st->lost_busy;
		tot[5] += st->lost_nested;
		tot[6] += st->truncated;
		tot[7] += gaps;
	}
	printf("  all %10llu %10llu %10llu %12llu %10llu %12llu %10llu %10llu\n",
	       (unsigned long long)tot[0], (unsigned long long)tot[1],
	       (unsigned long long)tot[2], (unsigned long long)tot[3],
	       (unsigned long long)tot[4], (unsigned long long)tot[5],
	       (unsigned long long)tot[6], (unsigned long long)tot[7]);
	if (idle)
		printf("  (%u cpus without events not shown)\n", idle);
	printf("  records: in this file; written, lost_*, overwritten, truncated: kernel\n"
	       "  counters at extraction; seq_gaps: events missing between the records\n"
	       "  of this file by their sequence numbers\n");
}

static int report_records(struct ketw_input *in, bool payload)
{
	struct ketw_record rec;
	char line[512], sys[1024];

	while (ketw_input_next(in, &rec) > 0) {
		ketw_record_format(&rec, line, sizeof(line));
		printf("  %s\n", line);
		if (ketw_sys_payload_format(&rec, sys, sizeof(sys)) > 0)
			printf("    %s: %s\n",
			       ketw_or(ketw_sys_event_name(rec.hdr->event_id), "?"),
			       sys);
		if (payload && ketw_hexdump(stdout, "    ", rec.data,
					    rec.data_len))
			return -EIO;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	const char *path = KETW_DEFAULT_FILE;
	bool payload = true, records = true;
	struct ketw_input *in;
	char err_msg[256];
	int c, err, ret = KETW_EXIT_OK;

	while ((c = ketw_getopt(argc, argv, "NHi:", &ret)) != -1) {
		switch (c) {
		case 'N':
			payload = false;
			break;
		case 'H':
			records = false;
			break;
		case 'i':	/* trace-cmd's spelling */
			path = optarg;
			break;
		default:
			return ret;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return ketw_usage_error(argv[0], "unexpected argument '%s'",
					argv[optind]);

	err = ketw_input_open(path, &in, err_msg, sizeof(err_msg));
	if (err) {
		if (err == -ENOENT)
			return ketw_error("cannot open %s: %s (make one with 'ketw extract -o %s')",
					  path, err_msg, path);
		return ketw_error("cannot read %s: %s", path, err_msg);
	}
	report_summary(path, in);
	if (records) {
		printf("\n");
		if (report_records(in, payload))
			ret = ketw_error("writing the report failed");
	}
	ketw_input_close(in);
	if (fflush(stdout))
		ret = ketw_error("writing the report failed: %s",
				 strerror(errno));
	return ret;
}
