// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: event type sets (posix_trace_eventset_*()) and a
 * stream's filter (posix_trace_get_filter(), posix_trace_set_filter()).
 *
 * A trace_event_set_t has ketw's event set layout (struct
 * ketw_event_set: a bit per id below 1024). A stream's filter is the
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

int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);

	if (!s)
		return EINVAL;
	if (set) {
		pthread_mutex_lock(&s->lock);
		*set = s->filter;
		pthread_mutex_unlock(&s->lock);
	}
	kp_table_put(trid);
	return set ? 0 : EINVAL;
}

int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
			   int how)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);
	trace_event_set_t next;
	unsigned int i;
	int err = 0;

	if (!s)
		return EINVAL;
	if (!set || (how != POSIX_TRACE_SET_EVENTSET &&
		     how != POSIX_TRACE_ADD_EVENTSET &&
		     how != POSIX_TRACE_SUB_EVENTSET)) {
		kp_table_put(trid);
		return EINVAL;
	}
	pthread_mutex_lock(&s->lock);
	next = s->filter;
	for (i = 0; i < KP_WORDS; i++) {
		if (how == POSIX_TRACE_SET_EVENTSET)
			next.__bits[i] = set->__bits[i];
		else if (how == POSIX_TRACE_ADD_EVENTSET)
			next.__bits[i] |= set->__bits[i];
		else
			next.__bits[i] &= ~set->__bits[i];
	}
	err = kp_stream_enable(s, &next);
	/* Interrupted or refused: the filter stays as it was. */
	if (!err)
		s->filter = next;
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	return kp_errno_control(err);
}
