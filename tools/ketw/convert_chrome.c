// SPDX-License-Identifier: GPL-2.0
/*
 * ketw convert --to chrome: a trace file in the Chrome Trace Event Format
 * (its JSON object form), which ui.perfetto.dev and chrome://tracing open.
 *
 *   {"traceEvents": [
 *     process_name and thread_name metadata ("ph": "M") from the rundown's
 *       TASK records (pid 0: "kernel");
 *     a provider event: an instant on its thread ("ph": "i", "s": "t"),
 *       name the event's (or "idN"), category its provider's, args its
 *       fields as ketw report --json decodes them plus "ketw": {cpu, seq,
 *       level, keyword, type, id, version, flags[, items]};
 *     a START and its END (event types 1 and 2, same provider, event id
 *       and thread): a complete event ("ph": "X") with "dur", the END's
 *       fields in args "end"; an unmatched one stays an instant, with
 *       args "ketw": {"unmatched": true};
 *     losses: global instants ("s": "g") of category "ketw.loss": "lost N
 *       events" where a CPU's sequence numbers jump (args cpu, lost, from,
 *       to), and the OVERFLOW and RESUME records; other system events
 *       global instants of category "ketw" (the rundown is left out);
 *     a counter track per CPU ("ph": "C", "cpuN events/s") over bins of
 *       otherData.rate_bin_ns
 *   ], "displayTimeUnit": "ns", "otherData": {...the file's header}}
 *
 * Times are the trace clock's (ns since boot for mono) in microseconds
 * with the nanoseconds as three decimals; otherData has the clock
 * reference for absolute times.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert.h"
#include "report_items.h"
#include "report_json.h"
#include "timeline.h"

/* A task of the rundown. */
struct chrome_task {
	uint32_t pid, tid;
	char comm[KETW_TASK_COMM_LEN + 1];
};

struct chrome {
	struct cli_json j;
	struct ketw_input *in;
	struct ketw_registry *reg;
	struct cli_syms *syms;
	bool swapped;
	struct chrome_task *tasks;
	size_t nr_tasks, cap_tasks;
	uint64_t first, last;		/* times of the records */
	bool any;
	uint64_t bin;			/* rate bin width, ns */
	uint64_t *counts;		/* [cpu * nr_bins + bin] */
	size_t nr_bins;
	unsigned int nr_cpus;
	uint64_t lost;
};

static int chrome_add_task(struct chrome *c, const struct ketw_record *rec)
{
	struct ketw_sys_task t;
	struct chrome_task *x;

	if (rec->data_len < sizeof(t))
		return 0;
	memcpy(&t, rec->data, sizeof(t));
	if (c->nr_tasks == c->cap_tasks) {
		size_t cap = c->cap_tasks ? 2 * c->cap_tasks : 64;
		void *p = realloc(c->tasks, cap * sizeof(*c->tasks));

		if (!p)
			return -ENOMEM;
		c->tasks = p;
		c->cap_tasks = cap;
	}
	x = &c->tasks[c->nr_tasks++];
	x->pid = t.process_id;
	x->tid = t.thread_id;
	memcpy(x->comm, t.comm, sizeof(t.comm));
	x->comm[sizeof(t.comm)] = '\0';
	return 0;
}

/* First pass: names, layouts, tasks, modules and the time range. */
static int chrome_scan(struct chrome *c)
{
	struct ketw_record rec;
	int err;

	ketw_input_rewind(c->in);
	while (ketw_input_next(c->in, &rec) > 0) {
		if (!c->any || rec.hdr->timestamp < c->first)
			c->first = rec.hdr->timestamp;
		if (!c->any || rec.hdr->timestamp > c->last)
			c->last = rec.hdr->timestamp;
		c->any = true;
		if (!ketw_record_is_rundown(&rec))
			continue;
		if (rec.hdr->event_id == KETW_SYS_TASK)
			err = chrome_add_task(c, &rec);
		else if (rec.hdr->event_id == KETW_SYS_MODULE)
			err = cli_syms_add_record(c->syms, &rec);
		else
			err = ketw_registry_add_record(c->reg, &rec);
		if (err < 0)
			return err;
	}
	ketw_input_rewind(c->in);
	c->bin = cli_tl_nice_step((c->last - c->first) / 100 + 1);
	if (c->bin < 1000)
		c->bin = 1000;
	c->nr_bins = c->any ? (c->last - c->first) / c->bin + 1 : 0;
	c->counts = calloc(c->nr_bins * c->nr_cpus + 1, sizeof(*c->counts));
	return c->counts ? 0 : -ENOMEM;
}

static void chrome_meta(struct chrome *c, const char *what, uint32_t pid,
			uint32_t tid, const char *name)
{
	struct cli_json *j = &c->j;

	cli_json_object(j, false);
	cli_json_key(j, "name");
	cli_json_string_or_null(j, what);
	cli_json_key(j, "ph");
	cli_json_string_or_null(j, "M");
	cli_json_key(j, "pid");
	cli_json_u64(j, pid);
	cli_json_key(j, "tid");
	cli_json_u64(j, tid);
	cli_json_key(j, "args");
	cli_json_object(j, false);
	cli_json_key(j, "name");
	cli_json_string(j, name, KETW_TASK_COMM_LEN + 32);
	cli_json_end(j);
	cli_json_end(j);
}

/* Process names: the thread group leader's comm, else its first thread's. */
static void chrome_names(struct chrome *c)
{
	size_t i, k;

	chrome_meta(c, "process_name", 0, 0, "kernel");
	chrome_meta(c, "thread_name", 0, 0, "interrupts and ketw");
	for (i = 0; i < c->nr_tasks; i++) {
		const struct chrome_task *t = &c->tasks[i];
		bool first = true, leader = t->pid == t->tid;

		for (k = 0; k < i; k++)
			if (c->tasks[k].pid == t->pid)
				first = false;
		if (!t->pid)
			continue;
		if (leader || first) {
			bool leader_later = false;

			for (k = i + 1; !leader && k < c->nr_tasks; k++)
				if (c->tasks[k].pid == t->pid &&
				    c->tasks[k].tid == t->pid)
					leader_later = true;
			if (!leader_later)
				chrome_meta(c, "process_name", t->pid, t->pid,
					    t->comm);
		}
		chrome_meta(c, "thread_name", t->pid, t->tid, t->comm);
	}
}

static void chrome_common(struct chrome *c, const char *name, const char *cat,
			  const char *ph, uint64_t ts, uint32_t pid,
			  uint32_t tid)
{
	struct cli_json *j = &c->j;

	cli_json_key(j, "name");
	cli_json_string(j, name, 128);
	cli_json_key(j, "cat");
	cli_json_string(j, cat, 128);
	cli_json_key(j, "ph");
	cli_json_string(j, ph, 2);
	cli_json_key(j, "ts");
	cli_json_us(j, ts);
	cli_json_key(j, "pid");
	cli_json_u64(j, pid);
	cli_json_key(j, "tid");
	cli_json_u64(j, tid);
}

/* The record's header, for args "ketw". */
static void chrome_ketw_args(struct chrome *c, const struct ketw_record *rec,
			     bool unmatched)
{
	const struct ketw_event_header *h = rec->hdr;
	struct cli_json *j = &c->j;

	cli_json_key(j, "ketw");
	cli_json_object(j, false);
	cli_json_key(j, "cpu");
	cli_json_u64(j, rec->cpu);
	cli_json_key(j, "seq");
	cli_json_u64(j, h->sequence);
	cli_json_key(j, "level");
	cli_json_u64(j, h->level);
	cli_json_key(j, "keyword");
	cli_json_u64(j, h->keyword);
	cli_json_key(j, "type");
	cli_json_u64(j, h->type);
	cli_json_key(j, "id");
	cli_json_u64(j, h->event_id);
	cli_json_key(j, "version");
	cli_json_u64(j, h->version);
	cli_json_key(j, "flags");
	cli_json_u64(j, h->flags);
	if (unmatched) {
		cli_json_key(j, "unmatched");
		cli_json_bool(j, true);
	}
	cli_report_items_json(j, rec, c->syms);
	cli_json_end(j);
}

/* A provider event's fields (or its payload in hex) as members. */
static void chrome_fields(struct chrome *c, const struct ketw_record *rec)
{
	const struct ketw_event_info *ev =
		ketw_registry_record_event(c->reg, rec->hdr);

	if (ev) {
		cli_report_json_fields(&c->j, ev, rec, c->swapped);
		return;
	}
	cli_json_key(&c->j, "payload");
	cli_json_hex(&c->j, rec->data, rec->data_len);
}

/* The event's name and its provider's (category). */
static void chrome_names_of(struct chrome *c, const struct ketw_record *rec,
			    char *name, size_t nlen, char *cat, size_t clen)
{
	const struct ketw_event_info *ev =
		ketw_registry_record_event(c->reg, rec->hdr);
	const char *p = ketw_registry_record_provider(c->reg, rec->hdr);
	char g[KETW_GUID_STR_LEN];

	snprintf(cat, clen, "%s", p ? p : ketw_guid_format(rec->hdr->provider_guid, g));
	if (ev)
		snprintf(name, nlen, "%.*s", (int)sizeof(ev->name), ev->name);
	else
		snprintf(name, nlen, "id%u", rec->hdr->event_id);
}

static void chrome_count(struct chrome *c, const struct ketw_record *rec)
{
	uint64_t b;

	if (rec->cpu >= c->nr_cpus || rec->hdr->timestamp < c->first)
		return;
	b = (rec->hdr->timestamp - c->first) / c->bin;
	if (b < c->nr_bins)
		c->counts[rec->cpu * c->nr_bins + b]++;
}

static void chrome_system(struct chrome *c, const struct ketw_record *rec)
{
	const struct ketw_event_header *h = rec->hdr;
	const char *name = ketw_sys_event_name(h->event_id);
	bool loss = h->event_id == KETW_SYS_OVERFLOW ||
		    h->event_id == KETW_SYS_RESUME;
	struct cli_json *j = &c->j;
	char buf[64], detail[1024];
	uint64_t v;

	if (!name) {
		snprintf(buf, sizeof(buf), "sys%u", h->event_id);
		name = buf;
	}
	cli_json_object(j, false);
	chrome_common(c, name, loss ? "ketw.loss" : "ketw", "i",
		      h->timestamp, h->process_id, h->thread_id);
	cli_json_key(j, "s");
	cli_json_string(j, "g", 1);
	cli_json_key(j, "args");
	cli_json_object(j, false);
	cli_json_key(j, "cpu");
	cli_json_u64(j, rec->cpu);
	cli_json_key(j, "seq");
	cli_json_u64(j, h->sequence);
	if (loss && rec->data_len >= sizeof(v)) {
		memcpy(&v, rec->data, sizeof(v));
		if (h->event_id == KETW_SYS_RESUME) {
			cli_json_key(j, "lost");
			cli_json_u64(j, v);
		} else {
			cli_json_key(j, "first_lost");
			cli_json_us(j, v);
		}
	} else if (ketw_sys_payload_format_named(rec, c->reg, detail,
						 sizeof(detail)) > 0) {
		cli_json_key(j, "detail");
		cli_json_string(j, detail, sizeof(detail));
	}
	cli_json_end(j);
	cli_json_end(j);
}

static int chrome_item(const struct cli_tl_item *it, void *ctx)
{
	struct chrome *c = ctx;
	struct cli_json *j = &c->j;
	const struct ketw_record *rec = it->rec;
	char name[160], cat[160];

	if (it->kind == CLI_TL_LOSS) {
		snprintf(name, sizeof(name), "lost %llu events",
			 (unsigned long long)it->lost);
		c->lost += it->lost;
		cli_json_object(j, false);
		chrome_common(c, name, "ketw.loss", "i", it->to, 0, 0);
		cli_json_key(j, "s");
		cli_json_string(j, "g", 1);
		cli_json_key(j, "args");
		cli_json_object(j, false);
		cli_json_key(j, "cpu");
		cli_json_u64(j, it->cpu);
		cli_json_key(j, "lost");
		cli_json_u64(j, it->lost);
		cli_json_key(j, "from");
		cli_json_us(j, it->from);
		cli_json_key(j, "to");
		cli_json_us(j, it->to);
		cli_json_end(j);
		cli_json_end(j);
		return ferror(c->j.f) ? -EIO : 0;
	}
	if (ketw_record_is_rundown(rec))
		return 0;
	chrome_count(c, rec);
	if (it->kind == CLI_TL_SPAN)
		chrome_count(c, it->end);
	if (rec->hdr->flags & KETW_RECORD_SYSTEM) {
		chrome_system(c, rec);
		return ferror(c->j.f) ? -EIO : 0;
	}
	chrome_names_of(c, rec, name, sizeof(name), cat, sizeof(cat));
	cli_json_object(j, false);
	chrome_common(c, name, cat, it->kind == CLI_TL_SPAN ? "X" : "i",
		      rec->hdr->timestamp, rec->hdr->process_id,
		      rec->hdr->thread_id);
	if (it->kind == CLI_TL_SPAN) {
		cli_json_key(j, "dur");
		cli_json_us(j, it->to - it->from);
	} else {
		cli_json_key(j, "s");
		cli_json_string(j, "t", 1);
	}
	cli_json_key(j, "args");
	cli_json_object(j, false);
	chrome_fields(c, rec);
	chrome_ketw_args(c, rec, it->unmatched);
	if (it->kind == CLI_TL_SPAN) {
		cli_json_key(j, "end");
		cli_json_object(j, false);
		chrome_fields(c, it->end);
		chrome_ketw_args(c, it->end, false);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
	return ferror(c->j.f) ? -EIO : 0;
}

/* A counter track per CPU with records: events per second in each bin. */
static void chrome_counters(struct chrome *c)
{
	struct cli_json *j = &c->j;
	char name[32];
	unsigned int cpu;
	size_t b;

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		if (!ketw_input_cpu_records(c->in, cpu))
			continue;
		snprintf(name, sizeof(name), "cpu%u events/s", cpu);
		for (b = 0; b <= c->nr_bins; b++) {
			uint64_t n = b < c->nr_bins ?
				     c->counts[cpu * c->nr_bins + b] : 0;

			cli_json_object(j, false);
			chrome_common(c, name, "ketw.rate", "C",
				      c->first + b * c->bin, 0, 0);
			cli_json_key(j, "args");
			cli_json_object(j, false);
			cli_json_key(j, "events/s");
			cli_json_u64(j, n * 1000000000ull / c->bin);
			cli_json_end(j);
			cli_json_end(j);
		}
	}
}

static void chrome_other(struct chrome *c, const char *path)
{
	const struct ketw_file_header *h = ketw_input_header(c->in);
	struct cli_json *j = &c->j;

	cli_json_key(j, "otherData");
	cli_json_object(j, true);
	cli_json_key(j, "source");
	cli_json_string_or_null(j, path);
	cli_json_key(j, "format");
	cli_json_stringf(j, "ketw %u.%u", h->version_major, h->version_minor);
	cli_json_key(j, "hostname");
	cli_json_string(j, h->hostname, sizeof(h->hostname));
	cli_json_key(j, "kernel");
	cli_json_string(j, h->release, sizeof(h->release));
	cli_json_key(j, "session");
	cli_json_string(j, h->session.name, sizeof(h->session.name));
	cli_json_key(j, "clock");
	cli_json_string_or_null(j, ketw_clock_name(h->clock));
	cli_json_key(j, "clock_ref_ns");
	cli_json_u64(j, h->clock_ref);
	cli_json_key(j, "realtime_ref_ns");
	cli_json_u64(j, h->realtime_ref);
	cli_json_key(j, "rate_bin_ns");
	cli_json_u64(j, c->bin);
	cli_json_key(j, "lost");
	cli_json_u64(j, c->lost);
	cli_json_end(j);
}

int cli_convert_chrome(struct ketw_input *in, const char *path, FILE *out)
{
	struct chrome c = {
		.in = in, .swapped = ketw_input_swapped(in),
		.nr_cpus = ketw_input_nr_cpus(in),
	};
	int err;

	c.reg = ketw_registry_new();
	c.syms = cli_syms_new();
	err = c.reg && c.syms ? 0 : -ENOMEM;
	if (!err) {
		cli_syms_check_kernel(c.syms, ketw_input_header(in));
		err = chrome_scan(&c);
	}
	if (err)
		goto out;
	cli_json_init(&c.j, out, true);
	cli_json_object(&c.j, true);
	cli_json_key(&c.j, "traceEvents");
	cli_json_array(&c.j, true);
	chrome_names(&c);
	err = cli_timeline_walk(in, chrome_item, &c);
	if (err)
		goto out;
	chrome_counters(&c);
	cli_json_end(&c.j);
	cli_json_key(&c.j, "displayTimeUnit");
	cli_json_string(&c.j, "ns", 2);
	chrome_other(&c, path);
	cli_json_end(&c.j);
	if (ferror(out))
		err = -EIO;
out:
	free(c.tasks);
	free(c.counts);
	cli_syms_free(c.syms);
	ketw_registry_free(c.reg);
	return err;
}
