/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace file as a timeline (timeline.c), for ketw convert --to chrome
 * and ketw plot: its records merged in time, START and END records
 * (event types 1 and 2) of the same provider, event and thread paired
 * into spans, and the events lost on each CPU as ranges.
 */
#ifndef _KETW_TIMELINE_H
#define _KETW_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "libketw.h"

enum cli_tl_kind {
	CLI_TL_EVENT,	/* a record on its own */
	CLI_TL_SPAN,	/* a START record and its END */
	CLI_TL_LOSS,	/* events lost on a CPU */
};

/**
 * struct cli_tl_item - what the walk hands out
 * @kind:      above.
 * @rec:       EVENT: the record; SPAN: the START record.
 * @end:       SPAN: the END record.
 * @unmatched: EVENT: a START that no END closed, or an END without a START.
 * @cpu:       the CPU (SPAN: the START's; LOSS: where events were lost).
 * @from, @to: SPAN: the START's and the END's times; LOSS: the time range
 *             the events were lost in: from the last record before (or the
 *             OVERFLOW record's first lost timestamp) to the first after.
 * @lost:      LOSS: how many (the gap in the CPU's sequence numbers).
 */
struct cli_tl_item {
	enum cli_tl_kind kind;
	const struct ketw_record *rec;
	const struct ketw_record *end;
	bool unmatched;
	unsigned int cpu;
	uint64_t from, to;
	uint64_t lost;
};

typedef int (*cli_tl_fn)(const struct cli_tl_item *it, void *ctx);

/*
 * Walk @in from its start: every record in time order as an EVENT (a
 * LOSS before the record that follows a gap), except that a START goes
 * out as a SPAN when its END comes (START and END nest: an END closes
 * the latest open START of its provider, event id and thread, the same
 * user or kernel namespace), an END without one as an unmatched EVENT,
 * and STARTs never closed as unmatched EVENTs at the end, in time order.
 * A non-zero return of @fn stops the walk and is returned; -ENOMEM.
 * Records stay valid while @in is open.
 */
int cli_timeline_walk(struct ketw_input *in, cli_tl_fn fn, void *ctx);

/* Is @rec a START (1) or END (2) of a provider event? */
bool cli_tl_is_start(const struct ketw_record *rec);
bool cli_tl_is_end(const struct ketw_record *rec);

/* A step of 1, 2 or 5 times a power of ten, at least @min (ns). */
uint64_t cli_tl_nice_step(uint64_t min);

#endif /* _KETW_TIMELINE_H */
