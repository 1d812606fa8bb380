// SPDX-License-Identifier: GPL-2.0
/*
 * ketw system events: the records a session logs of itself (START, STOP,
 * FILTER, rundown...) as the system provider, whatever its filters.
 * session.c and provider.c both log them, through here: neither calls
 * the other to do it.
 */
#include <linux/preempt.h>

#include "context.h"
#include "ketw_internal.h"

/* The system provider: the all-zero GUID. */
static const u8 ketw_system_guid[KETW_GUID_SIZE];

/**
 * ketw_session_log() - store one event in a session, on this CPU
 * @s:     a running session (or one the caller logs a system event into).
 * @guid:  the provider's GUID.
 * @desc:  the event's descriptor.
 * @data:  the payload.
 * @len:   its length; cut to the session's max_data_size (not for
 *         system events, which are a few bytes).
 * @flags: KETW_RECORD_* flags to set, the caller's context bits included.
 *
 * Preemption must be disabled.
 *
 * Return: true if stored, false if counted lost.
 */
bool ketw_session_log(struct ketw_session *s, const u8 *guid,
		      const struct ketw_event_descriptor *desc,
		      const void *data, size_t len, u16 flags)
{
	/* System events are small and fixed: max_data_size is for providers. */
	u32 cap = flags & KETW_RECORD_SYSTEM ? KETW_MAX_DATA_SIZE :
		  s->attr.max_data_size;
	u32 wflags = flags;

	if (len > cap) {
		len = cap;
		wflags |= KETW_RECORD_TRUNCATED;
	}
	/*
	 * System events may use UNTIL_FULL's reserve, but not rundown
	 * records (DC_START): a big rundown must not leave STOP without room.
	 */
	if ((flags & KETW_RECORD_SYSTEM) && desc->type != KETW_TYPE_DC_START)
		wflags |= KETW_RING_USE_RESERVE;
	return ketw_ring_write(s->ring, guid, desc, data, len, wflags);
}

/**
 * ketw_session_log_system() - log a system event on the current CPU
 * @s:    the session.
 * @id:   KETW_SYS_*.
 * @type: KETW_TYPE_INFO, or KETW_TYPE_DC_START for rundown events.
 * @data: the payload.
 * @len:  its length.
 *
 * Bypasses every filter; callers hold ketw_mutex or otherwise know the
 * session is alive.
 */
void ketw_session_log_system(struct ketw_session *s, u32 id, u8 type,
			     const void *data, size_t len)
{
	struct ketw_event_descriptor desc = { .id = id, .type = type };

	preempt_disable();
	ketw_session_log(s, ketw_system_guid, &desc, data, len,
			 KETW_RECORD_SYSTEM |
			 ketw_record_context(preempt_count(), 1));
	preempt_enable();
}

/**
 * ketw_session_log_system_ver() - log a system event of a payload version
 * @s:       the session.
 * @id:      KETW_SYS_*.
 * @version: the record's version: which payload follows (FILTER:
 *           KETW_SYS_FILTER_*).
 * @data:    the payload.
 * @len:     its length.
 *
 * As ketw_session_log_system(), type KETW_TYPE_INFO.
 */
void ketw_session_log_system_ver(struct ketw_session *s, u32 id, u16 version,
				 const void *data, size_t len)
{
	struct ketw_event_descriptor desc = {
		.id = id, .type = KETW_TYPE_INFO, .version = version,
	};

	preempt_disable();
	ketw_session_log(s, ketw_system_guid, &desc, data, len,
			 KETW_RECORD_SYSTEM |
			 ketw_record_context(preempt_count(), 1));
	preempt_enable();
}
