/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw report --json: a record as one line of JSON (report_json.c).
 */
#ifndef _KETW_REPORT_JSON_H
#define _KETW_REPORT_JSON_H

#include <stdbool.h>

#include "libketw.h"

struct cli_syms;
struct cli_json;

/*
 * @rec as a JSON object on a line of stdout: its header, the names the
 * registry @reg gives it, and (@payload) its fields decoded in the
 * writer's byte order (@swapped: the other one), or its payload in hex;
 * its extended data items as "items", addresses symbolised by @syms;
 * "host" first when @host is not NULL (a report of several hosts).
 */
void cli_report_json_record(const struct ketw_record *rec,
			    const struct ketw_registry *reg, bool swapped,
			    bool payload, struct cli_syms *syms,
			    const char *host);

/*
 * @rec's payload decoded by @ev, a key and a value per field, into the
 * object @j is writing: integers as numbers (hex ones as "0x..."
 * strings), strings, GUIDs, bytes in hex; null past the payload's end.
 */
void cli_report_json_fields(struct cli_json *j,
			    const struct ketw_event_info *ev,
			    const struct ketw_record *rec, bool swapped);

#endif /* _KETW_REPORT_JSON_H */
