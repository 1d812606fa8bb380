/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw report: extended data items as text and JSON, and the symbols of
 * code addresses (report_items.c).
 */
#ifndef _KETW_REPORT_ITEMS_H
#define _KETW_REPORT_ITEMS_H

#include <stdio.h>

#include "ketw_file.h"
#include "libketw.h"

struct cli_json;
struct cli_syms;

struct cli_syms *cli_syms_new(void);		/* NULL: no memory */
void cli_syms_free(struct cli_syms *s);
/* Take a MODULE rundown record: 1 if it was one, 0 if not, -ENOMEM. */
int cli_syms_add_record(struct cli_syms *s, const struct ketw_record *rec);
/*
 * /proc/kallsyms names addresses only of the kernel that runs: read it
 * (when first needed) only if the trace's host and release are this
 * machine's.
 */
void cli_syms_check_kernel(struct cli_syms *s,
			   const struct ketw_file_header *fh);
/*
 * "func+0x1a [module]" (kallsyms), "[module+0x1234]" (the rundown
 * alone), "[vmlinux]", or "" if nothing is known of @addr; returns the
 * length snprintf() would have produced.
 */
int cli_syms_format(struct cli_syms *s, uint64_t addr, char *buf, size_t len);

/* A line per item of @rec, indented, kernel addresses symbolised. */
void cli_report_items_text(const struct ketw_record *rec, struct cli_syms *s,
			   FILE *f);
/* An "items" member of the open object of @j, if @rec has items. */
void cli_report_items_json(struct cli_json *j, const struct ketw_record *rec,
			   struct cli_syms *s);

#endif /* _KETW_REPORT_ITEMS_H */
