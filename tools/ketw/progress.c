// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: a progress line on a terminal for long operations.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define CLI_PROGRESS_DELAY_NS	1000000000ull	/* show after a second */
#define CLI_PROGRESS_EVERY_NS	200000000ull	/* then 5 times a second */

void cli_progress_init(struct cli_progress *p, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->enabled = isatty(STDERR_FILENO);
	p->start_ns = cli_now_ns();
}

void cli_progress_update(struct cli_progress *p, uint64_t done,
			 uint64_t total, uint64_t records)
{
	char a[32], b[32];
	uint64_t now;

	if (!p->enabled)
		return;
	now = cli_now_ns();
	if (now - p->start_ns < CLI_PROGRESS_DELAY_NS ||
	    (p->shown && now - p->last_ns < CLI_PROGRESS_EVERY_NS))
		return;
	p->last_ns = now;
	p->shown = true;
	cli_size_format(done, a, sizeof(a));
	if (total) {
		if (done > total)
			done = total;	/* records that came in meanwhile */
		cli_size_format(total, b, sizeof(b));
		fprintf(stderr, "\r\033[K%s: %s of %s (%u%%), %llu records",
			p->what, a, b, (unsigned int)(done * 100 / total),
			(unsigned long long)records);
	} else {
		fprintf(stderr, "\r\033[K%s: %s, %llu records", p->what, a,
			(unsigned long long)records);
	}
	fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}
