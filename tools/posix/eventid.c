// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: event type identifiers (posix_trace_eventid_open(),
 * posix_trace_trid_eventid_open(), posix_trace_eventid_get_name(),
 * posix_trace_eventid_equal(), posix_trace_eventtypelist_getnext_id()
 * and _rewind()).
 *
 * A process has one table of names (names.c): the names it opens, and
 * those its live streams report; a log has its own, from its events.
 */
#include <errno.h>
#include <string.h>

#include "kp_internal.h"

static const char *const kp_system_names[] = {
	[POSIX_TRACE_START] = "POSIX_TRACE_START",
	[POSIX_TRACE_STOP] = "POSIX_TRACE_STOP",
	[POSIX_TRACE_FILTER] = "POSIX_TRACE_FILTER",
	[POSIX_TRACE_OVERFLOW] = "POSIX_TRACE_OVERFLOW",
	[POSIX_TRACE_RESUME] = "POSIX_TRACE_RESUME",
	[POSIX_TRACE_FLUSH_START] = "POSIX_TRACE_FLUSH_START",
	[POSIX_TRACE_FLUSH_STOP] = "POSIX_TRACE_FLUSH_STOP",
	[POSIX_TRACE_ERROR] = "POSIX_TRACE_ERROR",
};

static int kp_name_check(const char *name)
{
	if (!name)
		return EINVAL;
	if (strnlen(name, TRACE_EVENT_NAME_MAX) >= TRACE_EVENT_NAME_MAX)
		return ENAMETOOLONG;
	return 0;
}

static trace_event_id_t kp_open(const char *name)
{
	trace_event_id_t id;

	pthread_mutex_lock(&kp_names_lock);
	id = kp_names_add(&kp_proc_names, name, 0, true);
	pthread_mutex_unlock(&kp_names_lock);
	return id;
}

int posix_trace_eventid_open(const char *restrict event_name,
			     trace_event_id_t *restrict event_id)
{
	int err = kp_name_check(event_name);

	if (err)
		return err;
	if (!event_id)
		return EINVAL;
	kp_provider_register();
	*event_id = kp_open(event_name);
	return 0;
}

int posix_trace_trid_eventid_open(trace_id_t trid,
				  const char *restrict event_name,
				  trace_event_id_t *restrict event)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);
	int err;

	if (!s)
		return EINVAL;
	err = kp_name_check(event_name);
	if (!err && !event)
		err = EINVAL;
	if (!err)
		*event = kp_open(event_name);
	kp_table_put(trid);
	return err;
}

int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event,
				 char *event_name)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE | KP_PRERECORDED);
	const char *name = NULL;

	if (!s)
		return EINVAL;
	if (kp_event_is_system(event))
		name = kp_system_names[event];
	else if (event == POSIX_TRACE_UNNAMED_USER_EVENT)
		name = "POSIX_TRACE_UNNAMED_USER_EVENT";
	else
		name = kp_names_get(s->names, event);
	if (name && event_name) {
		strncpy(event_name, name, TRACE_EVENT_NAME_MAX - 1);
		event_name[TRACE_EVENT_NAME_MAX - 1] = '\0';
	}
	kp_table_put(trid);
	return name && event_name ? 0 : EINVAL;
}

/* Ids are unique in a table: equal ids, equal event types. */
int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
			      trace_event_id_t event2)
{
	(void)trid;
	return event1 == event2;
}

/* The stream's event types: the system events, the unnamed one, the names. */
static bool kp_listed(struct kp_stream *s, trace_event_id_t id)
{
	return kp_event_is_system(id) || id == POSIX_TRACE_UNNAMED_USER_EVENT ||
	       kp_names_get(s->names, id);
}

int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
					 trace_event_id_t *restrict event,
					 int *restrict unavailable)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE | KP_PRERECORDED);
	int err = 0;

	if (!s)
		return EINVAL;
	if (!event || !unavailable) {
		err = EINVAL;
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	while (s->typelist < KETW_POSIX_EVENT_ID_MAX &&
	       !kp_listed(s, s->typelist))
		s->typelist++;
	if (s->typelist < KETW_POSIX_EVENT_ID_MAX) {
		*event = s->typelist++;
		*unavailable = 0;
	} else {
		*unavailable = 1;
	}
	pthread_mutex_unlock(&s->lock);
out:
	kp_table_put(trid);
	return err;
}

int posix_trace_eventtypelist_rewind(trace_id_t trid)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE | KP_PRERECORDED);

	if (!s)
		return EINVAL;
	pthread_mutex_lock(&s->lock);
	s->typelist = 0;
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	return 0;
}
