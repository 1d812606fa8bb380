/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw report --json: a record as one line of JSON (report_json.c).
 */
#ifndef _KETW_REPORT_JSON_H
#define _KETW_REPORT_JSON_H

#include <stdbool.h>

#include "libketw.h"

/*
 * @rec as a JSON object on a line of stdout: its header, the names the
 * registry @reg gives it, and (@payload) its fields decoded in the
 * writer's byte order (@swapped: the other one), or its payload in hex.
 */
void cli_report_json_record(const struct ketw_record *rec,
			    const struct ketw_registry *reg, bool swapped,
			    bool payload);

#endif /* _KETW_REPORT_JSON_H */
