// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: tables of user event names and their type ids.
 *
 * An id is a slot of the table. A new name takes the slot the tracing
 * process used for it, if the reader knows it and it is free, else the
 * first free slot from a hash of the name: processes that open the same
 * names (a parent and the children it forks, a controller and the
 * process it traces) give them the same ids without talking to each
 * other, unless two of the names hash alike and they open them in
 * different orders (Documentation/ketw-posix-trace.rst, "Event names").
 */
#include <string.h>

#include "kp_internal.h"

struct kp_names kp_proc_names;
pthread_mutex_t kp_names_lock = PTHREAD_MUTEX_INITIALIZER;

#define KP_SLOTS	(KETW_POSIX_EVENT_ID_MAX - KETW_POSIX_USER_EVENT_MIN)

bool kp_event_is_system(trace_event_id_t id)
{
	return id >= POSIX_TRACE_START && id <= POSIX_TRACE_ERROR;
}

/* FNV-1a, 32 bits. */
static uint32_t kp_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static bool kp_slot_used(const struct kp_names *t, trace_event_id_t id)
{
	return __atomic_load_n(&t->used[id], __ATOMIC_ACQUIRE);
}

const char *kp_names_get(const struct kp_names *t, trace_event_id_t id)
{
	if (id < KETW_POSIX_USER_EVENT_MIN || id >= KETW_POSIX_EVENT_ID_MAX ||
	    !kp_slot_used(t, id))
		return NULL;
	return t->name[id];
}

static trace_event_id_t kp_names_find(const struct kp_names *t,
				      const char *name, uint32_t h)
{
	unsigned int i;
	trace_event_id_t id;

	for (i = 0; i < KP_SLOTS; i++) {
		id = KETW_POSIX_USER_EVENT_MIN + (h + i) % KP_SLOTS;
		if (kp_slot_used(t, id) && !strcmp(t->name[id], name))
			return id;
	}
	return 0;
}

trace_event_id_t kp_names_add(struct kp_names *t, const char *name,
			      trace_event_id_t hint, bool own)
{
	uint32_t h = kp_hash(name);
	trace_event_id_t id;
	unsigned int i;

	if (!name[0])
		return POSIX_TRACE_UNNAMED_USER_EVENT;
	/* The usual case for a reader: the tracer's id is ours too. */
	if (hint >= KETW_POSIX_USER_EVENT_MIN && hint < KETW_POSIX_EVENT_ID_MAX &&
	    kp_slot_used(t, hint) && !strcmp(t->name[hint], name))
		return hint;
	id = kp_names_find(t, name, h);
	if (id)
		return id;
	if ((own && t->opened >= TRACE_USER_EVENT_MAX) || t->count >= KP_SLOTS)
		return POSIX_TRACE_UNNAMED_USER_EVENT;
	id = 0;
	if (hint >= KETW_POSIX_USER_EVENT_MIN && hint < KETW_POSIX_EVENT_ID_MAX &&
	    !kp_slot_used(t, hint))
		id = hint;
	for (i = 0; !id && i < KP_SLOTS; i++) {
		trace_event_id_t slot = KETW_POSIX_USER_EVENT_MIN + (h + i) % KP_SLOTS;

		if (!kp_slot_used(t, slot))
			id = slot;
	}
	memset(t->name[id], 0, TRACE_EVENT_NAME_MAX);
	strncpy(t->name[id], name, TRACE_EVENT_NAME_MAX - 1);
	/* The name before the flag: kp_names_get() reads without a lock. */
	__atomic_store_n(&t->used[id], 1, __ATOMIC_RELEASE);
	t->count++;
	if (own)
		t->opened++;
	return id;
}
