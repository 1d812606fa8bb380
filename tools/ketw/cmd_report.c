// SPDX-License-Identifier: GPL-2.0
/*
 * ketw report: print a trace file: a summary, then every record merged
 * across CPUs in timestamp order. Provider events are decoded field by
 * field with the layouts of the file's rundown (EVENT_DESC records) and
 * named after its PROVIDER records, or with the format templates of -t;
 * -X prints every payload in hex. Extended data items follow a record's
 * line, code addresses symbolised (report_items.c); --activity keeps the
 * records of one activity and of those it started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report_items.h"
#include "report_json.h"
#include "template_report.h"

#define REPORT_MAX_FILTERS	64

/* Long options without a short form. */
enum {
	REPORT_OPT_PROVIDER = 0x200,
	REPORT_OPT_LEVEL,
	REPORT_OPT_CPU,
	REPORT_OPT_PID,
	REPORT_OPT_FROM,
	REPORT_OPT_TO,
	REPORT_OPT_NO_SYSTEM,
	REPORT_OPT_ACTIVITY,
};

/* The activities --activity follows: the one given, and those it started. */
struct report_activities {
	uint8_t (*ids)[KETW_ACTIVITY_ID_SIZE];
	size_t nr, cap;
};

struct report_opts {
	bool payload;		/* print payloads (-N: no) */
	bool records;		/* print records (-H: no) */
	bool hex;		/* -X: every payload in hex, GUIDs, no names */
	bool rundown;		/* print the rundown records (-R: no) */
	bool json;		/* --json: JSON Lines, one object per record */
	/* Filters, applied to the merged records. */
	struct ketw_provider_ref providers[REPORT_MAX_FILTERS];
	unsigned int nr_providers;
	unsigned int level;		/* 0: any */
	unsigned int cpus[REPORT_MAX_FILTERS];
	unsigned int nr_cpus;
	bool pid_set;
	uint32_t pid;
	bool from_set, to_set;
	uint64_t from, to;		/* ns of the trace clock */
	bool no_system;
	bool activity_set;
	struct report_activities act;	/* --activity and what it started */
	struct cli_syms *syms;		/* symbols for code addresses */
	const char *host;	/* several files: the record's host, or NULL */
};

static bool report_activity_has(const struct report_activities *a,
				const uint8_t *id)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (!memcmp(a->ids[i], id, KETW_ACTIVITY_ID_SIZE))
			return true;
	return false;
}

static int report_activity_add(struct report_activities *a, const uint8_t *id)
{
	if (report_activity_has(a, id))
		return 0;
	if (a->nr == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		void *n = realloc(a->ids, cap * KETW_ACTIVITY_ID_SIZE);

		if (!n)
			return -ENOMEM;
		a->ids = n;
		a->cap = cap;
	}
	memcpy(a->ids[a->nr++], id, KETW_ACTIVITY_ID_SIZE);
	return 1;
}

/*
 * Follow related ids: an activity whose related id is one followed is
 * followed too, whatever the order of their records. A pass per
 * generation, until one adds nothing.
 */
static int report_activity_follow(struct ketw_input *in,
				  struct report_activities *a)
{
	static const uint8_t zero[KETW_ACTIVITY_ID_SIZE];
	struct ketw_ext_activity x;
	struct ketw_record rec;
	int added, err;

	do {
		added = 0;
		while (ketw_input_next(in, &rec) > 0) {
			if (ketw_record_activity(&rec, &x) ||
			    !memcmp(x.related, zero, sizeof(zero)) ||
			    !report_activity_has(a, x.related))
				continue;
			err = report_activity_add(a, x.activity);
			if (err < 0)
				return err;
			added += err;
		}
		ketw_input_rewind(in);
	} while (added);
	return 0;
}

/* Does @rec pass the filters? System events pass --provider, --level and --pid. */
static bool report_keep(const struct ketw_record *rec,
			const struct ketw_registry *reg,
			const struct report_opts *o)
{
	const struct ketw_event_header *h = rec->hdr;
	bool sys = h->flags & KETW_RECORD_SYSTEM;
	unsigned int i;

	if (o->nr_cpus) {
		for (i = 0; i < o->nr_cpus && o->cpus[i] != rec->cpu; i++)
			;
		if (i == o->nr_cpus)
			return false;
	}
	if (o->from_set && h->timestamp < o->from)
		return false;
	if (o->to_set && h->timestamp > o->to)
		return false;
	if (o->activity_set) {
		struct ketw_ext_activity x;

		if (ketw_record_activity(rec, &x) ||
		    !report_activity_has(&o->act, x.activity))
			return false;
	}
	if (sys)
		return !o->no_system;
	if (o->pid_set && h->process_id != o->pid)
		return false;
	if (o->level && h->level > o->level)
		return false;
	if (o->nr_providers) {
		const char *name = ketw_registry_record_provider(reg, h);

		for (i = 0; i < o->nr_providers; i++)
			if (ketw_provider_ref_names(&o->providers[i],
						    h->provider_guid, name))
				return true;
		return false;
	}
	return true;
}

/* What the file's rundown holds. */
struct report_rundown {
	struct ketw_registry *reg;
	uint64_t providers;
	uint64_t events;
	uint64_t tasks;
	uint64_t modules;
	struct cli_syms *syms;
};

/* A rundown record into the registry (or the symbols), counted. */
static int report_scan_record(const struct ketw_record *rec, void *ctx)
{
	struct report_rundown *rd = ctx;
	int err;

	if (!ketw_record_is_rundown(rec))
		return 0;
	switch (rec->hdr->event_id) {
	case KETW_SYS_PROVIDER:
		rd->providers++;
		break;
	case KETW_SYS_EVENT_DESC:
		rd->events++;
		break;
	case KETW_SYS_MODULE:
		rd->modules++;
		err = cli_syms_add_record(rd->syms, rec);
		return err < 0 ? err : 0;
	default:
		rd->tasks++;
		break;
	}
	err = ketw_registry_add_record(rd->reg, rec);
	return err < 0 ? err : 0;
}

/*
 * First pass: the registry from the rundown (a chunk's copy of it
 * first), and what it holds.
 */
static int report_scan(struct ketw_input *in, struct report_rundown *rd)
{
	struct ketw_record rec;
	int err;

	rd->reg = ketw_registry_new();
	rd->syms = cli_syms_new();
	if (!rd->reg || !rd->syms)
		return -ENOMEM;
	cli_syms_check_kernel(rd->syms, ketw_input_header(in));
	err = ketw_input_rundown_copies(in, report_scan_record, rd);
	while (!err && ketw_input_next(in, &rec) > 0)
		err = report_scan_record(&rec, rd);
	ketw_input_rewind(in);
	return err;
}

static void report_summary(const char *path, const struct ketw_input *in,
			   const struct report_rundown *rd, bool hex)
{
	const struct ketw_file_header *h = ketw_input_header(in);
	const struct ketw_file_session *s = &h->session;
	const struct ketw_file_cpu_stats *st;
	const struct ketw_file_stream *fs;
	uint64_t recs, gaps, tot[8] = { 0 };
	unsigned int cpu, idle = 0;
	char t[64];

	printf("file:     %s (ketw trace format %u.%u%s)\n", path,
	       h->version_major, h->version_minor,
	       ketw_input_swapped(in) ? ", written with the other byte order" : "");
	printf("session:  %s (%s when extracted), created %s\n", s->name,
	       cli_or(ketw_state_name(s->state), "?"),
	       cli_time_format(s->creation_time, t, sizeof(t)));
	printf("buffers:  %u KiB per cpu, policy %s, max data %u bytes\n",
	       s->buffer_kb, cli_or(ketw_policy_name(s->policy), "?"),
	       s->max_data_size);
	printf("clock:    %s (resolution %u ns)",
	       cli_or(ketw_clock_name(h->clock), "?"), s->clock_resolution);
	if (h->realtime_ref)
		printf(", %llu.%09llu at %s",
		       (unsigned long long)(h->clock_ref / 1000000000ull),
		       (unsigned long long)(h->clock_ref % 1000000000ull),
		       cli_time_format(h->realtime_ref, t, sizeof(t)));
	printf("\n");
	printf("filter:   level %s, match_any 0x%llx, match_all 0x%llx (the default; providers enabled one by one have their own)\n",
	       s->level ? cli_or(ketw_level_name(s->level), "?") : "all",
	       (unsigned long long)s->match_any,
	       (unsigned long long)s->match_all);
	printf("host:     %s, kernel %s, %s\n", h->hostname, h->release,
	       h->machine);
	printf("written:  %s\n", cli_time_format(h->creation_time, t, sizeof(t)));
	printf("cpus:     %u\n", h->nr_cpus);
	if (rd->providers + rd->events + rd->tasks)
		printf("rundown:  %llu providers, %llu event layouts, %llu tasks%s\n",
		       (unsigned long long)rd->providers,
		       (unsigned long long)rd->events,
		       (unsigned long long)rd->tasks,
		       hex || !rd->events ? "" :
		       " (payloads decoded by their layouts)");
	else
		printf("rundown:  none (payloads in hex)\n");
	if (rd->modules)
		printf("modules:  %llu (code addresses placed by them)\n",
		       (unsigned long long)rd->modules);
	fs = ketw_input_stream(in);
	if (fs) {
		printf("stream:   %016llx, %u connection%s, %s: %llu frames, %llu records; %llu bad, %llu missing, %llu duplicates, %llu oversize, %llu cut, %llu bytes skipped\n",
		       (unsigned long long)fs->stream_id, fs->connections,
		       fs->connections == 1 ? "" : "s",
		       fs->flags & KETW_FILE_STREAM_COMPLETE ? "complete" :
		       "incomplete (no END)",
		       (unsigned long long)fs->frames,
		       (unsigned long long)fs->records,
		       (unsigned long long)fs->bad_checksum,
		       (unsigned long long)fs->seq_gaps,
		       (unsigned long long)fs->duplicates,
		       (unsigned long long)fs->oversize,
		       (unsigned long long)fs->partial,
		       (unsigned long long)fs->skipped);
		if ((fs->flags & KETW_FILE_STREAM_OFFSET) && h->realtime_ref)
			printf("          its clock against CLOCK_REALTIME drifted %+lld ns from the header's reference by %llu.%09llu\n",
			       (long long)(fs->realtime_offset -
					   (int64_t)(h->realtime_ref - h->clock_ref)),
			       (unsigned long long)(fs->offset_at / 1000000000ull),
			       (unsigned long long)(fs->offset_at % 1000000000ull));
		if (fs->dropped_frames || fs->malformed || fs->unknown)
			printf("          the sender could not send %llu frames (%llu records); %llu frames malformed, %llu of unknown types\n",
			       (unsigned long long)fs->dropped_frames,
			       (unsigned long long)fs->dropped_records,
			       (unsigned long long)fs->malformed,
			       (unsigned long long)fs->unknown);
	}
	if (ketw_input_skipped_sections(in))
		printf("note:     %u sections of unknown type skipped\n",
		       ketw_input_skipped_sections(in));
	if (ketw_input_truncated(in))
		printf("note:     truncated at byte %llu (no END section): %llu complete sections read, up to byte %llu; no counters unless they came before the cut\n",
		       (unsigned long long)ketw_input_truncated(in),
		       (unsigned long long)ketw_input_nr_sections(in),
		       (unsigned long long)ketw_input_read_bytes(in));

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

/* A record's line; with several hosts' files, the host first. */
static void report_line(const struct report_opts *o, const char *line)
{
	if (o->host)
		printf("  host=%s %s\n", o->host, line);
	else
		printf("  %s\n", line);
}

/* -X: every record as it is, payloads in hex. */
static int report_record_hex(const struct ketw_record *rec,
			     const struct report_opts *o)
{
	char line[512], sys[1024];

	ketw_record_format(rec, line, sizeof(line));
	report_line(o, line);
	cli_report_items_text(rec, o->syms, stdout);
	if (ketw_sys_payload_format(rec, sys, sizeof(sys)) > 0)
		printf("    %s: %s\n",
		       cli_or(ketw_sys_event_name(rec->hdr->event_id), "?"),
		       sys);
	if (o->payload && ketw_hexdump(stdout, "    ", rec->data,
				       rec->data_len))
		return -EIO;
	return 0;
}

/* A provider event's payload by its layout; 0 if it has none. */
static int report_payload_decoded(const struct ketw_record *rec,
				  const struct ketw_registry *reg,
				  bool swapped)
{
	char small[1024], *buf = small;
	int n;

	n = ketw_record_payload_format(rec, reg, swapped, small,
				       sizeof(small));
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (!buf)
			return -ENOMEM;
		ketw_record_payload_format(rec, reg, swapped, buf,
					   (size_t)n + 1);
	}
	if (n)
		printf("    %s\n", buf);
	if (buf != small)
		free(buf);
	return 1;
}

static int report_record(const struct ketw_record *rec,
			 const struct ketw_registry *reg, bool swapped,
			 const struct report_opts *o)
{
	char line[512], sys[1024];
	int n;

	if (ketw_record_is_rundown(rec)) {
		if (o->rundown) {
			ketw_record_format_named(rec, reg, line, sizeof(line));
			report_line(o, line);
		}
		return 0;
	}
	ketw_record_format_named(rec, reg, line, sizeof(line));
	report_line(o, line);
	cli_report_items_text(rec, o->syms, stdout);
	if (rec->hdr->flags & KETW_RECORD_SYSTEM) {
		if (ketw_sys_payload_format_named(rec, reg, sys,
						  sizeof(sys)) > 0) {
			printf("    %s: %s\n",
			       cli_or(ketw_sys_event_name(rec->hdr->event_id),
				      "?"), sys);
			return 0;
		}
	} else if (o->payload) {
		n = cli_template_report_record(rec, stdout);
		if (n)
			return n < 0 ? n : 0;
		n = report_payload_decoded(rec, reg, swapped);
		if (n)
			return n < 0 ? n : 0;
	}
	if (o->payload && ketw_hexdump(stdout, "    ", rec->data,
				       rec->data_len))
		return -EIO;
	return 0;
}

/* One record of the merged listing, if the filters keep it. */
static int report_one(const struct ketw_record *rec,
		      const struct ketw_registry *reg, bool swapped,
		      const struct report_opts *o)
{
	if (!report_keep(rec, reg, o))
		return 0;
	if (o->json) {
		if (!o->rundown && ketw_record_is_rundown(rec))
			return 0;
		cli_report_json_record(rec, reg, swapped, o->payload, o->syms,
				       o->host);
		return ferror(stdout) ? -EIO : 0;
	}
	return o->hex ? report_record_hex(rec, o) :
			report_record(rec, reg, swapped, o);
}

/* A file being read: its input, its rundown, its wall clock. */
struct report_file {
	const char *path;
	struct ketw_input *in;
	struct report_rundown rd;
	int64_t offset;			/* to CLOCK_REALTIME; 0 without */
	bool have_offset;
	struct ketw_record cur;		/* its next record, if have_cur */
	bool have_cur;
};

/*
 * Every file's records merged by wall-clock time (a timestamp plus its
 * file's clock offset, by the header's clock reference: files of several
 * machines, or a file's chunks), each file's in its own order.
 */
static int report_records(struct report_file *f, unsigned int nr,
			  struct report_opts *o, bool hosts)
{
	struct report_file *best;
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		ketw_input_rewind(f[i].in);
		f[i].have_cur = ketw_input_next(f[i].in, &f[i].cur) > 0;
	}
	for (;;) {
		best = NULL;
		for (i = 0; i < nr; i++) {
			if (!f[i].have_cur)
				continue;
			if (!best ||
			    (int64_t)(f[i].cur.hdr->timestamp + f[i].offset -
				      best->cur.hdr->timestamp - best->offset) < 0)
				best = &f[i];
		}
		if (!best)
			return 0;
		o->syms = best->rd.syms;
		o->host = hosts ? ketw_input_header(best->in)->hostname : NULL;
		err = report_one(&best->cur, best->rd.reg,
				 ketw_input_swapped(best->in), o);
		if (err)
			return err;
		best->have_cur = ketw_input_next(best->in, &best->cur) > 0;
	}
}

/* Open @path as report does: a file cut short up to its last section. */
static int report_open(struct report_file *f, const char *path)
{
	const struct ketw_file_header *h;
	char err_msg[256];
	int err;

	f->path = path;
	err = ketw_input_open_flags(path, KETW_INPUT_PARTIAL, &f->in, err_msg,
				    sizeof(err_msg));
	if (err) {
		if (err == -ENOENT)
			return cli_error("cannot open %s: %s (make one with 'ketw extract -o %s')",
					 path, err_msg, path);
		return cli_error("cannot read %s: %s", path, err_msg);
	}
	/* The header's clock reference: wall-clock time = ts + offset. */
	h = ketw_input_header(f->in);
	f->have_offset = h->realtime_ref != 0;
	f->offset = (int64_t)(h->realtime_ref - h->clock_ref);
	if (!ketw_input_truncated(f->in))
		return 0;
	cli_error("%s: truncated at byte %llu: read %llu complete sections, %llu records (up to byte %llu; its writer died or is still writing, or the file was cut)",
		  path, (unsigned long long)ketw_input_truncated(f->in),
		  (unsigned long long)ketw_input_nr_sections(f->in),
		  (unsigned long long)ketw_input_nr_records(f->in),
		  (unsigned long long)ketw_input_read_bytes(f->in));
	return CLI_EXIT_TRUNCATED;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hex", no_argument, NULL, 'X' },
		{ "no-rundown", no_argument, NULL, 'R' },
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "provider", required_argument, NULL, REPORT_OPT_PROVIDER },
		{ "level", required_argument, NULL, REPORT_OPT_LEVEL },
		{ "cpu", required_argument, NULL, REPORT_OPT_CPU },
		{ "pid", required_argument, NULL, REPORT_OPT_PID },
		{ "from", required_argument, NULL, REPORT_OPT_FROM },
		{ "to", required_argument, NULL, REPORT_OPT_TO },
		{ "no-system", no_argument, NULL, REPORT_OPT_NO_SYSTEM },
		{ "activity", required_argument, NULL, REPORT_OPT_ACTIVITY },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	const char *path = CLI_DEFAULT_FILE;
	static struct report_opts o = {
		.payload = true, .records = true, .rundown = true,
	};
	struct report_file *f = NULL;
	unsigned int i, nr;
	bool hosts = false;
	int c, r, err, ret = CLI_EXIT_OK;

	while ((c = cli_getopt_long(argc, argv, "NHXRi:t:", longopts,
				    &ret)) != -1) {
		switch (c) {
		case 't':
			ret = cli_template_report_load(optarg);
			if (ret)
				return ret;
			break;
		case 'N':
			o.payload = false;
			break;
		case 'H':
			o.records = false;
			break;
		case 'X':
			o.hex = true;
			break;
		case 'R':
			o.rundown = false;
			break;
		case 'i':	/* trace-cmd's spelling */
			path = optarg;
			break;
		case CLI_OPT_JSON:
			o.json = true;
			break;
		case REPORT_OPT_PROVIDER:
			ret = cli_opt_provider(argv[0], optarg, o.providers,
					       &o.nr_providers, REPORT_MAX_FILTERS);
			if (ret)
				return ret;
			break;
		case REPORT_OPT_LEVEL:
			if (ketw_parse_level(optarg, &o.level))
				return cli_usage_error(argv[0],
					"--level: '%s' is not a level (critical, error, warning, info, verbose, all, or 0..5)",
					optarg);
			break;
		case REPORT_OPT_CPU:
			if (o.nr_cpus == REPORT_MAX_FILTERS)
				return cli_usage_error(argv[0],
					"--cpu: at most %d", REPORT_MAX_FILTERS);
			if (ketw_parse_u64(optarg, UINT32_MAX, &v))
				return cli_usage_error(argv[0],
					"--cpu: '%s' is not a cpu number", optarg);
			o.cpus[o.nr_cpus++] = (unsigned int)v;
			break;
		case REPORT_OPT_PID:
			if (ketw_parse_u64(optarg, UINT32_MAX, &v))
				return cli_usage_error(argv[0],
					"--pid: '%s' is not a process id", optarg);
			o.pid = (uint32_t)v;
			o.pid_set = true;
			break;
		case REPORT_OPT_FROM:
			ret = cli_opt_seconds(argv[0], "from", optarg, &o.from,
					      &o.from_set);
			if (ret)
				return ret;
			break;
		case REPORT_OPT_TO:
			ret = cli_opt_seconds(argv[0], "to", optarg, &o.to,
					      &o.to_set);
			if (ret)
				return ret;
			break;
		case REPORT_OPT_NO_SYSTEM:
			o.no_system = true;
			break;
		case REPORT_OPT_ACTIVITY: {
			uint8_t id[KETW_ACTIVITY_ID_SIZE];

			if (ketw_guid_parse(optarg, id) || ketw_guid_is_zero(id))
				return cli_usage_error(argv[0],
					"--activity: '%s' is not an activity id (8-4-4-4-12 hex digits, not all zero)",
					optarg);
			if (report_activity_add(&o.act, id) < 0)
				return cli_error("out of memory");
			o.activity_set = true;
			break;
		}
		default:
			return ret;
		}
	}
	nr = argc - optind;
	if (!nr)
		nr = 1;		/* path: -i FILE or the default */
	f = calloc(nr, sizeof(*f));
	if (!f)
		return cli_error("out of memory");
	for (i = 0; i < nr; i++) {
		r = report_open(&f[i], optind < argc ? argv[optind + i] : path);
		if (r == CLI_EXIT_TRUNCATED) {
			ret = r;
		} else if (r) {
			ret = r;
			goto out;
		}
		if (!f[i].have_offset && nr > 1)
			cli_error("note: %s has no clock reference: merged by its timestamps as they are",
				  f[i].path);
		hosts |= i && strcmp(ketw_input_header(f[i].in)->hostname,
				     ketw_input_header(f[0].in)->hostname);
	}
	for (i = 0; i < nr; i++) {
		err = report_scan(f[i].in, &f[i].rd);
		if (!err && o.activity_set)
			err = report_activity_follow(f[i].in, &o.act);
		if (err) {
			ret = cli_error("cannot read the rundown of %s: %s",
					f[i].path, strerror(-err));
			goto out;
		}
		if (!o.hex && !o.json)
			cli_template_report_bind(f[i].in);
	}
	o.syms = f[0].rd.syms;
	if (!o.json) {
		for (i = 0; i < nr; i++) {
			if (i)
				printf("\n");
			report_summary(f[i].path, f[i].in, &f[i].rd, o.hex);
		}
	}
	if (o.json || o.records) {
		if (!o.json)
			printf("\n");
		err = report_records(f, nr, &o, hosts);
		if (err == -ENOMEM)
			ret = cli_error("out of memory");
		else if (err)
			ret = cli_error("writing the report failed");
	}
out:
	for (i = 0; f && i < nr; i++) {
		ketw_registry_free(f[i].rd.reg);
		cli_syms_free(f[i].rd.syms);
		ketw_input_close(f[i].in);
	}
	free(f);
	free(o.act.ids);
	if (fflush(stdout))
		ret = cli_error("writing the report failed: %s",
				strerror(errno));
	return ret;
}
