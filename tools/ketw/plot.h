/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw plot: a trace file's timeline as an SVG picture (plot_svg.c), or
 * an HTML page holding it; nothing fetched from anywhere.
 */
#ifndef _KETW_PLOT_H
#define _KETW_PLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libketw.h"

#define PLOT_MAX_PROVIDERS	64

struct plot_opts {
	bool html;			/* an HTML page around the SVG */
	unsigned int width;		/* pixels */
	bool from_set, to_set;
	uint64_t from, to;		/* ns of the trace clock */
	struct ketw_provider_ref providers[PLOT_MAX_PROVIDERS];
	unsigned int nr_providers;	/* 0: all */
};

/*
 * Draw @in (opened from @path) to @out: a lane per CPU with the events
 * as ticks coloured by provider, START/END spans as bars under them,
 * loss ranges shaded red with their counts; a time axis; events per
 * second under the lanes; a legend. 0, -ENOMEM, -EIO.
 */
int cli_plot(struct ketw_input *in, const char *path,
	     const struct plot_opts *o, FILE *out);

#endif /* _KETW_PLOT_H */
