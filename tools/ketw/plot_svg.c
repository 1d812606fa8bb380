// SPDX-License-Identifier: GPL-2.0
/*
 * ketw plot: a trace file's timeline as SVG (plot.h), drawn from pixel
 * bins so that its size follows the picture, not the trace: a million
 * events make a file of tens of KB.
 *
 *   title         the file, host, session and time range
 *   legend        a colour per provider (system events grey) with its
 *                 count, the span and loss swatches
 *   lanes         one per CPU: a band per provider, a tick where it
 *                 logged events (runs of pixel columns merged), the
 *                 START/END spans as bars in up to three rows under them,
 *                 the ranges where events were lost shaded red, their
 *                 counts above
 *   axis          time from the first event, in ns, us, ms or s
 *   histogram     events per second over all CPUs
 *
 * The document is for people and for tests: lanes, legend entries,
 * losses and bars carry classes and data- attributes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"
#include "timeline.h"

#define PLOT_LEFT	90	/* lane labels */
#define PLOT_RIGHT	30
#define PLOT_TICK_H	30	/* provider bands of a lane */
#define PLOT_ROW_H	7	/* a row of spans */
#define PLOT_ROWS	3
#define PLOT_LANE_GAP	12
#define PLOT_LANE_H	(14 + PLOT_TICK_H + 2 + PLOT_ROWS * PLOT_ROW_H)
#define PLOT_HIST_H	110
#define PLOT_MAX_ITEMS	3000	/* spans and losses drawn one by one */

static const char *const plot_colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
	"#17becf", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39",
};
#define PLOT_SYS_COLOR	"#8c8c8c"
#define PLOT_LOSS_COLOR	"#d62728"

struct plot_prov {
	char name[KETW_NAME_MAX + KETW_GUID_STR_LEN];
	bool sys, user;
	uint8_t guid[KETW_GUID_SIZE];
	uint64_t count;
	const char *color;
};

struct plot_span {
	uint64_t from, to;
	unsigned int lane, prov, row;
	char name[KETW_NAME_MAX];
};

struct plot_loss {
	uint64_t from, to, lost;
	unsigned int lane;
};

struct plot {
	const struct plot_opts *o;
	struct ketw_input *in;
	struct ketw_registry *reg;
	FILE *f;
	uint64_t t0, t1;		/* the time shown */
	bool any;
	unsigned int nr_cpus, nr_lanes;
	int *lane_of;			/* per CPU: lane or -1 */
	unsigned int *lane_cpu;
	uint64_t *lane_count;
	struct plot_prov prov[PLOT_MAX_PROVIDERS + 1];
	unsigned int nr_prov;		/* the last one may be "other" */
	unsigned int pw;		/* plot width, pixels */
	uint32_t *ticks;		/* [lane][prov][px] */
	uint64_t hbin;			/* histogram bin, ns */
	unsigned int nr_hbins;
	uint64_t *hist;
	struct plot_span *spans;
	size_t nr_spans, cap_spans;
	struct plot_loss *losses;
	size_t nr_losses, cap_losses;
	uint64_t lost;
};

/* ---- text ------------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':	fputs("&lt;", f); break;
		case '>':	fputs("&gt;", f); break;
		case '&':	fputs("&amp;", f); break;
		case '"':	fputs("&quot;", f); break;
		default:
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

/* @ns as "1.5 ms" (up to 3 decimals, none trailing). */
static char *plot_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct { uint64_t div; const char *unit; } u[] = {
		{ 1000000000ull, "s" }, { 1000000, "ms" }, { 1000, "us" },
		{ 1, "ns" },
	};
	unsigned int i;
	size_t n;

	for (i = 0; i < 3 && ns < u[i].div; i++)
		;
	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / u[i].div),
		 (unsigned long long)((ns % u[i].div) * 1000 / u[i].div));
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	snprintf(buf + n, len - n, " %s", u[i].unit);
	return buf;
}

/* "12.3k" */
static char *plot_count(uint64_t v, char *buf, size_t len)
{
	if (v >= 10000000000ull)
		snprintf(buf, len, "%lluG", (unsigned long long)(v / 1000000000));
	else if (v >= 10000000)
		snprintf(buf, len, "%lluM", (unsigned long long)(v / 1000000));
	else if (v >= 10000)
		snprintf(buf, len, "%lluk", (unsigned long long)(v / 1000));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* ---- which records, which provider -------------------------------------- */

static bool plot_keep(const struct plot *p, const struct ketw_record *rec)
{
	const struct plot_opts *o = p->o;
	const char *name;
	unsigned int i;

	if (ketw_record_is_rundown(rec))
		return false;
	if (o->from_set && rec->hdr->timestamp < o->from)
		return false;
	if (o->to_set && rec->hdr->timestamp > o->to)
		return false;
	if (!o->nr_providers || (rec->hdr->flags & KETW_RECORD_SYSTEM))
		return true;
	name = ketw_registry_record_provider(p->reg, rec->hdr);
	for (i = 0; i < o->nr_providers; i++)
		if (ketw_provider_ref_names(&o->providers[i],
					    rec->hdr->provider_guid, name))
			return true;
	return false;
}

/* The legend entry of @rec's provider, added if new. */
static unsigned int plot_prov_of(struct plot *p, const struct ketw_record *rec)
{
	bool sys = rec->hdr->flags & KETW_RECORD_SYSTEM;
	bool user = !sys && (rec->hdr->flags & KETW_RECORD_USER);
	struct plot_prov *x;
	char g[KETW_GUID_STR_LEN];
	const char *name;
	unsigned int i;

	for (i = 0; i < p->nr_prov; i++) {
		x = &p->prov[i];
		if (x->sys == sys && (sys || (x->user == user &&
		    !memcmp(x->guid, rec->hdr->provider_guid, KETW_GUID_SIZE))))
			return i;
	}
	if (p->nr_prov == PLOT_MAX_PROVIDERS) {	/* the rest: "other" */
		x = &p->prov[PLOT_MAX_PROVIDERS];
		if (!x->color) {
			snprintf(x->name, sizeof(x->name), "other providers");
			x->color = "#000000";
		}
		return PLOT_MAX_PROVIDERS;
	}
	x = &p->prov[p->nr_prov];
	x->sys = sys;
	x->user = user;
	memcpy(x->guid, rec->hdr->provider_guid, KETW_GUID_SIZE);
	name = sys ? "ketw (system events)" :
		     ketw_registry_record_provider(p->reg, rec->hdr);
	snprintf(x->name, sizeof(x->name), "%s%s",
		 name ? name : ketw_guid_format(rec->hdr->provider_guid, g),
		 user && name ? " (user)" : "");
	x->color = sys ? PLOT_SYS_COLOR :
		   plot_colors[(p->nr_prov - (p->prov[0].sys && p->nr_prov)) %
			       (sizeof(plot_colors) / sizeof(plot_colors[0]))];
	return p->nr_prov++;
}

/* ---- passes over the file -------------------------------------------------- */

static int plot_scan(struct plot *p)
{
	struct ketw_record rec;
	unsigned int cpu;
	int err;

	while (ketw_input_next(p->in, &rec) > 0) {
		err = ketw_registry_add_record(p->reg, &rec);
		if (err < 0)
			return err;
	}
	ketw_input_rewind(p->in);
	p->lane_of = malloc(p->nr_cpus * sizeof(*p->lane_of));
	p->lane_cpu = calloc(p->nr_cpus, sizeof(*p->lane_cpu));
	p->lane_count = calloc(p->nr_cpus, sizeof(*p->lane_count));
	if (!p->lane_of || !p->lane_cpu || !p->lane_count)
		return -ENOMEM;
	for (cpu = 0; cpu < p->nr_cpus; cpu++)
		p->lane_of[cpu] = -1;
	while (ketw_input_next(p->in, &rec) > 0) {
		if (!plot_keep(p, &rec) || rec.cpu >= p->nr_cpus)
			continue;
		if (!p->any || rec.hdr->timestamp < p->t0)
			p->t0 = rec.hdr->timestamp;
		if (!p->any || rec.hdr->timestamp > p->t1)
			p->t1 = rec.hdr->timestamp;
		p->any = true;
		p->lane_of[rec.cpu] = 0;
		plot_prov_of(p, &rec);
	}
	ketw_input_rewind(p->in);
	for (cpu = 0; cpu < p->nr_cpus; cpu++)
		if (!p->lane_of[cpu]) {
			p->lane_of[cpu] = (int)p->nr_lanes;
			p->lane_cpu[p->nr_lanes++] = cpu;
		}
	if (p->o->from_set)
		p->t0 = p->o->from;
	if (p->o->to_set)
		p->t1 = p->o->to;
	if (p->t1 <= p->t0)
		p->t1 = p->t0 + 1000;
	p->hbin = cli_tl_nice_step((p->t1 - p->t0) / 150 + 1);
	p->nr_hbins = (unsigned int)((p->t1 - p->t0) / p->hbin + 1);
	p->hist = calloc(p->nr_hbins, sizeof(*p->hist));
	p->ticks = calloc((size_t)(p->nr_lanes ? p->nr_lanes : 1) *
			  (PLOT_MAX_PROVIDERS + 1) * p->pw, sizeof(*p->ticks));
	return p->hist && p->ticks ? 0 : -ENOMEM;
}

/* The pixel column of @t (clamped), and its x. */
static unsigned int plot_px(const struct plot *p, uint64_t t)
{
	uint64_t range = p->t1 - p->t0;

	if (t <= p->t0)
		return 0;
	if (t >= p->t1)
		return p->pw - 1;
	return (unsigned int)((double)(t - p->t0) * (p->pw - 1) / range);
}

static double plot_x(const struct plot *p, uint64_t t)
{
	double x;

	if (t <= p->t0)
		x = 0;
	else if (t >= p->t1)
		x = p->pw;
	else
		x = (double)(t - p->t0) * p->pw / (p->t1 - p->t0);
	return PLOT_LEFT + x;
}

static void plot_tick(struct plot *p, const struct ketw_record *rec)
{
	unsigned int prov = plot_prov_of(p, rec);
	int lane = rec->cpu < p->nr_cpus ? p->lane_of[rec->cpu] : -1;

	if (lane < 0)
		return;
	p->ticks[((size_t)lane * (PLOT_MAX_PROVIDERS + 1) + prov) * p->pw +
		 plot_px(p, rec->hdr->timestamp)]++;
	p->prov[prov].count++;
	p->lane_count[lane]++;
	p->hist[(rec->hdr->timestamp - p->t0) / p->hbin]++;
}

static int plot_add_span(struct plot *p, const struct cli_tl_item *it)
{
	const struct ketw_event_info *ev;
	struct plot_span *s;
	int lane = it->cpu < p->nr_cpus ? p->lane_of[it->cpu] : -1;

	if (lane < 0 || it->to < p->t0 || it->from > p->t1)
		return 0;
	if (p->nr_spans == p->cap_spans) {
		size_t cap = p->cap_spans ? 2 * p->cap_spans : 256;
		void *n = realloc(p->spans, cap * sizeof(*p->spans));

		if (!n)
			return -ENOMEM;
		p->spans = n;
		p->cap_spans = cap;
	}
	s = &p->spans[p->nr_spans++];
	s->from = it->from;
	s->to = it->to;
	s->lane = (unsigned int)lane;
	s->prov = plot_prov_of(p, it->rec);
	ev = ketw_registry_record_event(p->reg, it->rec->hdr);
	if (ev)
		snprintf(s->name, sizeof(s->name), "%.*s",
			 (int)sizeof(ev->name), ev->name);
	else
		snprintf(s->name, sizeof(s->name), "id%u",
			 it->rec->hdr->event_id);
	return 0;
}

static int plot_add_loss(struct plot *p, const struct cli_tl_item *it)
{
	int lane = it->cpu < p->nr_cpus ? p->lane_of[it->cpu] : -1;
	struct plot_loss *l;

	if (lane < 0 || it->to < p->t0 || it->from > p->t1)
		return 0;
	if (p->nr_losses == p->cap_losses) {
		size_t cap = p->cap_losses ? 2 * p->cap_losses : 64;
		void *n = realloc(p->losses, cap * sizeof(*p->losses));

		if (!n)
			return -ENOMEM;
		p->losses = n;
		p->cap_losses = cap;
	}
	l = &p->losses[p->nr_losses++];
	l->from = it->from;
	l->to = it->to;
	l->lost = it->lost;
	l->lane = (unsigned int)lane;
	p->lost += it->lost;
	return 0;
}

static int plot_item(const struct cli_tl_item *it, void *ctx)
{
	struct plot *p = ctx;

	switch (it->kind) {
	case CLI_TL_LOSS:
		return plot_add_loss(p, it);
	case CLI_TL_SPAN:
		if (!plot_keep(p, it->rec) && !plot_keep(p, it->end))
			return 0;
		if (plot_keep(p, it->rec))
			plot_tick(p, it->rec);
		if (plot_keep(p, it->end))
			plot_tick(p, it->end);
		return plot_add_span(p, it);
	default:
		if (plot_keep(p, it->rec))
			plot_tick(p, it->rec);
		return 0;
	}
}

/* ---- drawing --------------------------------------------------------------- */

static int plot_span_cmp(const void *a, const void *b)
{
	const struct plot_span *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to > y->to ? -1 : x->to < y->to;
}

/* Rows: each span in the first whose last span ended before it starts. */
static void plot_span_rows(struct plot *p)
{
	uint64_t *end = calloc((size_t)p->nr_lanes * PLOT_ROWS, sizeof(*end));
	size_t i;
	unsigned int r;

	qsort(p->spans, p->nr_spans, sizeof(*p->spans), plot_span_cmp);
	for (i = 0; i < p->nr_spans; i++) {
		struct plot_span *s = &p->spans[i];

		for (r = 0; end && r < PLOT_ROWS - 1; r++)
			if (end[s->lane * PLOT_ROWS + r] <= s->from)
				break;
		s->row = end ? r : 0;
		if (end && end[s->lane * PLOT_ROWS + r] < s->to)
			end[s->lane * PLOT_ROWS + r] = s->to;
	}
	free(end);
}

static double plot_lane_y(unsigned int lane, double top)
{
	return top + lane * (PLOT_LANE_H + PLOT_LANE_GAP);
}

static double plot_band_h(const struct plot *p)
{
	return (double)PLOT_TICK_H / (p->nr_prov ? p->nr_prov : 1);
}

/* Runs of columns where a provider logged, per lane and provider. */
static void plot_draw_ticks(struct plot *p, unsigned int lane, double y)
{
	double bh = plot_band_h(p);
	unsigned int k, x, s;

	for (k = 0; k < p->nr_prov; k++) {
		const uint32_t *t = &p->ticks[((size_t)lane *
				(PLOT_MAX_PROVIDERS + 1) + k) * p->pw];
		bool open = false;

		for (x = 0; x < p->pw && !open; x++)
			open = t[x] != 0;
		if (!open)
			continue;
		fprintf(p->f, "<g class=\"ticks\" data-provider=\"");
		xml_text(p->f, p->prov[k].name);
		fprintf(p->f, "\" fill=\"%s\">\n", p->prov[k].color);
		for (x = 0; x < p->pw; x++) {
			if (!t[x])
				continue;
			for (s = x; x + 1 < p->pw && t[x + 1]; x++)
				;
			fprintf(p->f, "<rect x=\"%u\" y=\"%.1f\" width=\"%u\" height=\"%.1f\"/>\n",
				PLOT_LEFT + s, y + 14 + k * bh, x - s + 1,
				bh > 1.5 ? bh - 0.5 : bh);
		}
		fputs("</g>\n", p->f);
	}
}

/* Spans one by one with their names, or, when many, as covered runs. */
static void plot_draw_spans(struct plot *p, double top)
{
	char d[32];
	size_t i;

	if (!p->nr_spans)
		return;
	fputs("<g id=\"spans\">\n", p->f);
	if (p->nr_spans <= PLOT_MAX_ITEMS) {
		for (i = 0; i < p->nr_spans; i++) {
			const struct plot_span *s = &p->spans[i];
			double x0 = plot_x(p, s->from), x1 = plot_x(p, s->to);
			double y = plot_lane_y(s->lane, top) + 14 + PLOT_TICK_H +
				   2 + s->row * PLOT_ROW_H;

			fprintf(p->f, "<rect class=\"span\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
				x0, y, x1 - x0 < 1 ? 1 : x1 - x0,
				PLOT_ROW_H - 1, p->prov[s->prov].color);
			xml_text(p->f, s->name);
			fprintf(p->f, " %s</title></rect>\n",
				plot_duration(s->to - s->from, d, sizeof(d)));
		}
	} else {
		size_t n = (size_t)p->nr_lanes * PLOT_ROWS * p->pw;
		unsigned char *cov = calloc(n, 1);
		unsigned int lane, r, x, s;

		for (i = 0; cov && i < p->nr_spans; i++) {
			const struct plot_span *sp = &p->spans[i];
			unsigned char *c = cov + ((size_t)sp->lane * PLOT_ROWS +
						  sp->row) * p->pw;

			for (x = plot_px(p, sp->from); x <= plot_px(p, sp->to); x++)
				c[x] = (unsigned char)(sp->prov + 1);
		}
		for (lane = 0; cov && lane < p->nr_lanes; lane++)
			for (r = 0; r < PLOT_ROWS; r++) {
				unsigned char *c = cov + ((size_t)lane *
						PLOT_ROWS + r) * p->pw;
				double y = plot_lane_y(lane, top) + 14 +
					   PLOT_TICK_H + 2 + r * PLOT_ROW_H;

				for (x = 0; x < p->pw; x++) {
					if (!c[x])
						continue;
					for (s = x; x + 1 < p->pw &&
					     c[x + 1] == c[s]; x++)
						;
					fprintf(p->f, "<rect class=\"span\" x=\"%u\" y=\"%.1f\" width=\"%u\" height=\"%d\" fill=\"%s\"/>\n",
						PLOT_LEFT + s, y, x - s + 1,
						PLOT_ROW_H - 1,
						p->prov[c[s] - 1].color);
				}
			}
		free(cov);
	}
	fputs("</g>\n", p->f);
}

/*
 * A loss range, shaded, with its count above it unless the lane's
 * previous count (at *@label_end) is in the way.
 */
static void plot_draw_one_loss(struct plot *p, unsigned int lane,
			       double x0, double x1, uint64_t lost,
			       double top, uint64_t from, uint64_t to,
			       double *label_end)
{
	double y = plot_lane_y(lane, top);
	char n[32], d[32];

	if (x1 - x0 < 2) {
		x0 -= 1;
		x1 = x0 + 2;
	}
	fprintf(p->f, "<g class=\"loss\" data-cpu=\"%u\" data-lost=\"%llu\" data-from=\"%llu\" data-to=\"%llu\">"
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-width=\"0.5\">"
		"<title>cpu %u: %llu events lost in %s</title></rect>",
		p->lane_cpu[lane], (unsigned long long)lost,
		(unsigned long long)from, (unsigned long long)to,
		x0, y + 12, x1 - x0, PLOT_LANE_H - 12, PLOT_LOSS_COLOR,
		PLOT_LOSS_COLOR, p->lane_cpu[lane], (unsigned long long)lost,
		plot_duration(to - from, d, sizeof(d)));
	plot_count(lost, n, sizeof(n));
	if (x0 >= *label_end) {
		fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">lost %s</text>",
			x0, y + 10, PLOT_LOSS_COLOR, n);
		*label_end = x0 + 6 * (5 + strlen(n)) + 4;
	}
	fputs("</g>\n", p->f);
}

/* Loss ranges one by one, or, when many, summed per pixel run. */
static void plot_draw_losses(struct plot *p, double top)
{
	size_t i;

	if (!p->nr_losses)
		return;
	fputs("<g id=\"losses\">\n", p->f);
	double *label_end = calloc(p->nr_lanes, sizeof(*label_end));

	if (!label_end)
		return;
	if (p->nr_losses <= PLOT_MAX_ITEMS) {
		for (i = 0; i < p->nr_losses; i++) {
			const struct plot_loss *l = &p->losses[i];

			plot_draw_one_loss(p, l->lane, plot_x(p, l->from),
					   plot_x(p, l->to), l->lost, top,
					   l->from, l->to,
					   &label_end[l->lane]);
		}
	} else {
		uint64_t *sum = calloc((size_t)p->nr_lanes * p->pw,
				       sizeof(*sum));
		unsigned int lane, x, s, k;
		uint64_t n;

		for (i = 0; sum && i < p->nr_losses; i++) {
			const struct plot_loss *l = &p->losses[i];
			unsigned int a = plot_px(p, l->from), b = plot_px(p, l->to);

			/* The count goes to the first column, the range to all. */
			sum[(size_t)l->lane * p->pw + a] += l->lost;
			for (x = a + 1; x <= b; x++)
				sum[(size_t)l->lane * p->pw + x] |= 1ull << 63;
		}
		for (lane = 0; sum && lane < p->nr_lanes; lane++) {
			const uint64_t *c = sum + (size_t)lane * p->pw;

			for (x = 0; x < p->pw; x++) {
				if (!c[x])
					continue;
				for (s = x; x + 1 < p->pw && c[x + 1]; x++)
					;
				for (n = 0, k = s; k <= x; k++)
					n += c[k] & ~(1ull << 63);
				plot_draw_one_loss(p, lane, PLOT_LEFT + s,
						   PLOT_LEFT + x + 1, n, top,
						   p->t0, p->t0,
						   &label_end[lane]);
			}
		}
		free(sum);
	}
	free(label_end);
	fputs("</g>\n", p->f);
}

/* Ticks at a nice step from the first event: "+2 ms". */
static void plot_draw_axis(struct plot *p, double y)
{
	const struct ketw_file_header *h = ketw_input_header(p->in);
	uint64_t step = cli_tl_nice_step((p->t1 - p->t0) / 8 + 1), t;
	char d[32], when[64];

	fprintf(p->f, "<g id=\"axis\" font-size=\"11\" fill=\"#333\">\n"
		"<line x1=\"%d\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		PLOT_LEFT, y, PLOT_LEFT + p->pw, y);
	for (t = 0; t <= p->t1 - p->t0; t += step) {
		double x = plot_x(p, p->t0 + t);

		fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s%s</text>\n",
			x, y, x, y + 5, x, y + 17, t ? "+" : "",
			t ? plot_duration(t, d, sizeof(d)) : "0");
		if (t > UINT64_MAX - step)
			break;
	}
	fprintf(p->f, "<text class=\"axis-origin\" x=\"%d\" y=\"%.1f\">0 = %llu.%09llu s of the %s clock",
		PLOT_LEFT, y + 32, (unsigned long long)(p->t0 / 1000000000ull),
		(unsigned long long)(p->t0 % 1000000000ull),
		cli_or(ketw_clock_name(h->clock), "trace"));
	if (h->realtime_ref)
		fprintf(p->f, ", %s", cli_time_format(h->realtime_ref +
			(p->t0 - h->clock_ref), when, sizeof(when)));
	fputs("</text>\n</g>\n", p->f);
}

/* Events per second over all CPUs, a bar per bin. */
static void plot_draw_hist(struct plot *p, double y)
{
	uint64_t max = 0, rate;
	unsigned int i;
	char n[32], d[32];

	for (i = 0; i < p->nr_hbins; i++)
		if (p->hist[i] > max)
			max = p->hist[i];
	rate = max * 1000000000ull / p->hbin;
	fprintf(p->f, "<g id=\"histogram\" data-bin-ns=\"%llu\" data-max-rate=\"%llu\">\n"
		"<text x=\"4\" y=\"%.1f\" font-size=\"11\" fill=\"#333\">events/s</text>\n"
		"<text x=\"4\" y=\"%.1f\" font-size=\"11\" fill=\"#333\">%s</text>\n"
		"<text x=\"4\" y=\"%.1f\" font-size=\"10\" fill=\"#666\">bins of %s</text>\n"
		"<rect x=\"%d\" y=\"%.1f\" width=\"%u\" height=\"%d\" fill=\"#f4f4f4\"/>\n",
		(unsigned long long)p->hbin, (unsigned long long)rate,
		y + 12, y + 26, plot_count(rate, n, sizeof(n)),
		y + PLOT_HIST_H - 4, plot_duration(p->hbin, d, sizeof(d)),
		PLOT_LEFT, y, p->pw, PLOT_HIST_H);
	for (i = 0; max && i < p->nr_hbins; i++) {
		double x0 = plot_x(p, p->t0 + i * p->hbin);
		double x1 = plot_x(p, p->t0 + (i + 1) * p->hbin);
		double hgt = (double)p->hist[i] * (PLOT_HIST_H - 4) / max;

		if (!p->hist[i])
			continue;
		fprintf(p->f, "<rect class=\"hist-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4a6fa5\"><title>%llu events/s</title></rect>\n",
			x0, y + PLOT_HIST_H - hgt, x1 - x0 > 1 ? x1 - x0 - 0.3 : 1,
			hgt, (unsigned long long)(p->hist[i] * 1000000000ull /
						  p->hbin));
	}
	fputs("</g>\n", p->f);
}

/* The legend: returns the height it took. */
static double plot_draw_legend(struct plot *p, double y, unsigned int width)
{
	unsigned int k, x = PLOT_LEFT, n = p->nr_prov + 2;
	double row = 0;
	char label[160], c[32];

	fprintf(p->f, "<g id=\"legend\" font-size=\"12\" fill=\"#222\">\n");
	for (k = 0; k < n; k++) {
		const char *color, *kind = "provider";
		unsigned int w;

		if (k < p->nr_prov) {
			snprintf(label, sizeof(label), "%s (%s)", p->prov[k].name,
				 plot_count(p->prov[k].count, c, sizeof(c)));
			color = p->prov[k].color;
		} else if (k == p->nr_prov) {
			snprintf(label, sizeof(label), "START..END spans (%zu)",
				 p->nr_spans);
			color = "#555555";
			kind = "span";
		} else {
			snprintf(label, sizeof(label), "events lost (%s)",
				 plot_count(p->lost, c, sizeof(c)));
			color = PLOT_LOSS_COLOR;
			kind = "loss";
		}
		w = 24 + 7 * (unsigned int)strlen(label);
		if (x + w > width - PLOT_RIGHT && x > PLOT_LEFT) {
			x = PLOT_LEFT;
			row += 18;
		}
		fprintf(p->f, "<g class=\"legend-entry\" data-kind=\"%s\"", kind);
		if (k < p->nr_prov) {
			fputs(" data-provider=\"", p->f);
			xml_text(p->f, p->prov[k].name);
			fputs("\"", p->f);
		}
		fprintf(p->f, "><rect x=\"%u\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"%s/>"
			"<text x=\"%u\" y=\"%.1f\">", x, y + row, color,
			k == p->nr_prov + 1 ? " fill-opacity=\"0.35\"" : "",
			x + 19, y + row + 10.5);
		xml_text(p->f, label);
		fputs("</text></g>\n", p->f);
		x += w + 16;
	}
	fputs("</g>\n", p->f);
	return row + 18;
}

static void plot_draw(struct plot *p, const char *path)
{
	const struct ketw_file_header *h = ketw_input_header(p->in);
	unsigned int width = PLOT_LEFT + p->pw + PLOT_RIGHT, lane;
	double top, axis_y, hist_y, height, legend_h;
	char d[32], c[32];

	/* The legend's height first: a dry run to a null stream. */
	{
		FILE *real = p->f, *null = fopen("/dev/null", "w");

		p->f = null ? null : real;
		legend_h = null ? plot_draw_legend(p, 0, width) : 36;
		if (null)
			fclose(null);
		p->f = real;
	}
	top = 34 + legend_h + 8;
	axis_y = plot_lane_y(p->nr_lanes, top);
	hist_y = axis_y + 44;
	height = hist_y + PLOT_HIST_H + 20;

	if (p->o->html) {
		fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ketw plot: ", p->f);
		xml_text(p->f, path);
		fputs("</title></head>\n<body style=\"margin:0;background:#fff\">\n", p->f);
	} else {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", p->f);
	}
	fprintf(p->f, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"ketw-plot\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		width, height, width, height);
	fputs("<text id=\"title\" x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\" fill=\"#111\">", p->f);
	xml_text(p->f, path);
	fputs(": ", p->f);
	xml_text(p->f, h->hostname);
	fputs(", session ", p->f);
	xml_text(p->f, h->session.name);
	fprintf(p->f, ", %s shown</text>\n",
		plot_duration(p->t1 - p->t0, d, sizeof(d)));
	plot_draw_legend(p, 32, width);

	for (lane = 0; lane < p->nr_lanes; lane++) {
		double y = plot_lane_y(lane, top);

		fprintf(p->f, "<g class=\"lane\" id=\"lane-cpu%u\" data-cpu=\"%u\" data-events=\"%llu\">\n"
			"<rect x=\"%d\" y=\"%.1f\" width=\"%u\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ddd\"/>\n"
			"<text x=\"8\" y=\"%.1f\" font-size=\"12\" fill=\"#222\">cpu %u</text>\n"
			"<text x=\"8\" y=\"%.1f\" font-size=\"10\" fill=\"#666\">%s events</text>\n",
			p->lane_cpu[lane], p->lane_cpu[lane],
			(unsigned long long)p->lane_count[lane], PLOT_LEFT, y,
			p->pw, PLOT_LANE_H, y + 26, p->lane_cpu[lane], y + 40,
			plot_count(p->lane_count[lane], c, sizeof(c)));
		plot_draw_ticks(p, lane, y);
		fputs("</g>\n", p->f);
	}
	plot_span_rows(p);
	plot_draw_spans(p, top);
	plot_draw_losses(p, top);
	plot_draw_axis(p, axis_y);
	plot_draw_hist(p, hist_y);
	fputs("</svg>\n", p->f);
	if (p->o->html)
		fputs("</body></html>\n", p->f);
}

int cli_plot(struct ketw_input *in, const char *path,
	     const struct plot_opts *o, FILE *out)
{
	struct plot p = {
		.o = o, .in = in, .f = out, .nr_cpus = ketw_input_nr_cpus(in),
		.pw = o->width > PLOT_LEFT + PLOT_RIGHT + 100 ?
		      o->width - PLOT_LEFT - PLOT_RIGHT : 1000,
	};
	int err;

	p.reg = ketw_registry_new();
	err = p.reg ? plot_scan(&p) : -ENOMEM;
	if (!err)
		err = cli_timeline_walk(in, plot_item, &p);
	if (!err) {
		plot_draw(&p, path);
		if (ferror(out))
			err = -EIO;
	}
	ketw_registry_free(p.reg);
	free(p.lane_of);
	free(p.lane_cpu);
	free(p.lane_count);
	free(p.ticks);
	free(p.hist);
	free(p.spans);
	free(p.losses);
	return err;
}
