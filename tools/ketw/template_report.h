/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw report -t FILE: decode payloads with format templates
 * (lib/template.h, Documentation/ketw-templates.rst).
 *
 * The state is the command's: template sets loaded with -t (one per
 * option, tried in order), freed at exit.
 */
#ifndef _KETW_TEMPLATE_REPORT_H
#define _KETW_TEMPLATE_REPORT_H

#include <stdio.h>

#include "libketw.h"

/*
 * Load a template file. On an error prints "ketw: FILE:LINE:COL: message"
 * and returns CLI_EXIT_ERROR; 0 on success.
 */
int cli_template_report_load(const char *path);

/*
 * Bind the providers the templates name by name to the GUIDs of the
 * trace's rundown (PROVIDER records) and remember the trace's byte order;
 * a note on stderr names each provider left without a GUID. Rewinds @in.
 * Does nothing if no template was loaded.
 */
void cli_template_report_bind(struct ketw_input *in);

/*
 * Print @rec's payload decoded by its template, on lines indented like a
 * payload's hex dump (plus the template's L= column). Returns 1 if it
 * printed, 0 if no template decodes @rec (the caller prints it its own
 * way: the registry's descriptor, or hex), -EIO if writing failed.
 */
int cli_template_report_record(const struct ketw_record *rec, FILE *out);

/* Free what was loaded (also done at exit). */
void cli_template_report_free(void);

#endif /* _KETW_TEMPLATE_REPORT_H */
