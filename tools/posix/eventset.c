// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: event type sets (posix_trace_eventset_*()).
 *
 * A trace_event_set_t has ketw's event set layout (struct
 * ketw_event_set: a bit per id below 1024). A stream's filter (filter.c) is the
 * kernel's set of ids filtered out of the POSIX provider: the kernel
 * drops those user events before they take room, and logs FILTER with
 * the old and new sets when the stream runs. User events have ids from
 * KETW_POSIX_USER_EVENT_MIN, so the system event bits of the set never
 * match a user event there; the library leaves filtered system events
 * out when it reports them.
 */
#include <errno.h>
#include <string.h>

#include "kp_internal.h"

#define KP_WORDS	(KETW_POSIX_EVENT_ID_MAX / 64)

int posix_trace_eventset_empty(trace_event_set_t *set)
{
	if (!set)
		return EINVAL;
	memset(set, 0, sizeof(*set));
	return 0;
}

int posix_trace_eventset_fill(trace_event_set_t *set, int what)
{
	trace_event_id_t id;

	if (!set)
		return EINVAL;
	switch (what) {
	case POSIX_TRACE_WOPID_EVENTS:
		/* ketw defines no process-independent system event of its own. */
		memset(set, 0, sizeof(*set));
		return 0;
	case POSIX_TRACE_SYSTEM_EVENTS:
		memset(set, 0, sizeof(*set));
		for (id = POSIX_TRACE_START; id <= POSIX_TRACE_ERROR; id++)
			posix_trace_eventset_add(id, set);
		return 0;
	case POSIX_TRACE_ALL_EVENTS:
		memset(set, 0xff, sizeof(*set));
		set->__bits[0] &= ~1ull;	/* 0 is no event type */
		return 0;
	default:
		return EINVAL;
	}
}

int posix_trace_eventset_add(trace_event_id_t event_id, trace_event_set_t *set)
{
	if (!set || event_id >= KETW_POSIX_EVENT_ID_MAX)
		return EINVAL;
	set->__bits[event_id / 64] |= 1ull << (event_id % 64);
	return 0;
}

int posix_trace_eventset_del(trace_event_id_t event_id, trace_event_set_t *set)
{
	if (!set || event_id >= KETW_POSIX_EVENT_ID_MAX)
		return EINVAL;
	set->__bits[event_id / 64] &= ~(1ull << (event_id % 64));
	return 0;
}

int posix_trace_eventset_ismember(trace_event_id_t event_id,
				  const trace_event_set_t *restrict set,
				  int *restrict ismember)
{
	if (!set || !ismember || event_id >= KETW_POSIX_EVENT_ID_MAX)
		return EINVAL;
	*ismember = !!(set->__bits[event_id / 64] & (1ull << (event_id % 64)));
	return 0;
}
