// SPDX-License-Identifier: GPL-2.0
/*
 * ketwfs's error_log: the last refusals a write or a mkdir got, in words,
 * as tracefs keeps one. An errno says only that memory was short; the
 * line says how much was asked for and how much there was.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "ketw_internal.h"

#define KETW_ERRLOG_LINES	16
#define KETW_ERRLOG_LEN		256

static DEFINE_MUTEX(ketw_errlog_mutex);
static char ketw_errlog[KETW_ERRLOG_LINES][KETW_ERRLOG_LEN];
static u64 ketw_errlog_ts[KETW_ERRLOG_LINES];
static unsigned int ketw_errlog_next;	/* lines ever added */

/**
 * ketw_errlog_add() - keep a line (the oldest of KETW_ERRLOG_LINES goes)
 * @fmt: printf format, without a newline.
 */
void ketw_errlog_add(const char *fmt, ...)
{
	unsigned int i;
	va_list args;

	mutex_lock(&ketw_errlog_mutex);
	i = ketw_errlog_next++ % KETW_ERRLOG_LINES;
	ketw_errlog_ts[i] = ktime_get_ns();
	va_start(args, fmt);
	vscnprintf(ketw_errlog[i], KETW_ERRLOG_LEN, fmt, args);
	va_end(args);
	mutex_unlock(&ketw_errlog_mutex);
}

/**
 * ketw_errlog_show() - the lines kept, oldest first, with their times
 * @m: the seq_file.
 */
void ketw_errlog_show(struct seq_file *m)
{
	unsigned int i, first;

	mutex_lock(&ketw_errlog_mutex);
	first = ketw_errlog_next > KETW_ERRLOG_LINES ?
		ketw_errlog_next - KETW_ERRLOG_LINES : 0;
	for (i = first; i != ketw_errlog_next; i++) {
		unsigned int k = i % KETW_ERRLOG_LINES;
		u64 ts = ketw_errlog_ts[k];

		seq_printf(m, "[%5llu.%06llu] %s\n", ts / NSEC_PER_SEC,
			   ts % NSEC_PER_SEC / NSEC_PER_USEC, ketw_errlog[k]);
	}
	mutex_unlock(&ketw_errlog_mutex);
}

/**
 * ketw_errlog_clear() - forget every line
 */
void ketw_errlog_clear(void)
{
	mutex_lock(&ketw_errlog_mutex);
	ketw_errlog_next = 0;
	mutex_unlock(&ketw_errlog_mutex);
}
