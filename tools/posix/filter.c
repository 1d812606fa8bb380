// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: a stream's filter (posix_trace_get_filter(),
 * posix_trace_set_filter()): an event set (eventset.c) that becomes the
 * kernel's set of ids filtered out of the POSIX provider
 * (kp_stream_enable(), stream.c).
 */
#include <errno.h>
#include <string.h>

#include "kp_internal.h"

#define KP_WORDS	(KETW_POSIX_EVENT_ID_MAX / 64)

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
