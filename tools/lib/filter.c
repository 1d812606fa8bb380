// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: POSIX event sets, and what a session's filter takes (level,
 * keywords, event set).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void ketw_eventset_empty(struct ketw_event_set *set)
{
	memset(set, 0, sizeof(*set));
}

void ketw_eventset_fill(struct ketw_event_set *set)
{
	memset(set, 0xff, sizeof(*set));
}

int ketw_eventset_add(struct ketw_event_set *set, uint32_t id)
{
	if (id >= KETW_EVENT_SET_BITS)
		return -EINVAL;
	set->bits[id / 64] |= 1ull << (id % 64);
	return 0;
}

int ketw_eventset_del(struct ketw_event_set *set, uint32_t id)
{
	if (id >= KETW_EVENT_SET_BITS)
		return -EINVAL;
	set->bits[id / 64] &= ~(1ull << (id % 64));
	return 0;
}

bool ketw_eventset_ismember(const struct ketw_event_set *set, uint32_t id)
{
	if (id >= KETW_EVENT_SET_BITS)
		return false;
	return set->bits[id / 64] & (1ull << (id % 64));
}

unsigned int ketw_eventset_count(const struct ketw_event_set *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < KETW_EVENT_SET_BITS / 64; i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

int ketw_eventset_format(const struct ketw_event_set *set, char *buf,
			 size_t len)
{
	unsigned int id, end;
	size_t n = 0;
	int w;

	if (len)
		buf[0] = '\0';
	for (id = 0; id < KETW_EVENT_SET_BITS; id++) {
		if (!ketw_eventset_ismember(set, id))
			continue;
		for (end = id; end + 1 < KETW_EVENT_SET_BITS &&
		     ketw_eventset_ismember(set, end + 1); end++)
			;
		if (end == id)
			w = snprintf(n < len ? buf + n : NULL,
				     n < len ? len - n : 0, "%s%u",
				     n ? "," : "", id);
		else
			w = snprintf(n < len ? buf + n : NULL,
				     n < len ? len - n : 0, "%s%u-%u",
				     n ? "," : "", id, end);
		if (w > 0)
			n += w;
		id = end;
	}
	return n;
}

bool ketw_filter_takes(const struct ketw_filter *f, uint32_t id,
		       unsigned int level, uint64_t keyword)
{
	if (f->level && level && level > f->level)
		return false;
	if (ketw_eventset_ismember(&f->filtered, id))
		return false;
	if (!keyword)
		return true;
	if (f->match_any && !(keyword & f->match_any))
		return false;
	return (keyword & f->match_all) == f->match_all;
}
