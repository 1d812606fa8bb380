// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: what live streams and logs share below them: the POSIX
 * provider's GUID, the errors of a control request, freeing a stream
 * object, and a live stream's status as its session reports it (its
 * log's part is log.c's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_internal.h"

const uint8_t kp_provider_guid[KETW_GUID_SIZE] = KP_PROVIDER_GUID;

int kp_errno_control(int err)
{
	switch (err) {
	case 0:
		return 0;
	case -EINTR:
		return EINTR;
	case -ENOMEM:
		return ENOMEM;
	default:
		return EINVAL;	/* the session is gone or refuses */
	}
}

void kp_stream_free(struct kp_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);	/* the session goes with its owner */
	if (s->wake >= 0)
		close(s->wake);
	if (s->in)
		ketw_input_close(s->in);
	if (s->kind == KP_PRERECORDED)
		free(s->names);
	free(s->buf);
	free(s->recs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int kp_session_status(struct kp_stream *s, struct posix_trace_status_info *st)
{
	struct ketw_session_status ks;
	int err;

	err = ketw_session_get_status(s->fd, s->session, &ks);
	if (err)
		return kp_errno_control(err);
	memset(st, 0, sizeof(*st));
	st->posix_stream_status = ks.state == KETW_STATE_RUNNING ?
				  POSIX_TRACE_RUNNING : POSIX_TRACE_SUSPENDED;
	if (s->attr.__stream_policy == POSIX_TRACE_LOOP)
		st->posix_stream_full_status =
			ks.overwritten > s->overwritten_base ?
			POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
	else
		st->posix_stream_full_status = ks.full_status ?
			POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
	st->posix_stream_overrun_status = ks.overrun_status ?
		POSIX_TRACE_OVERRUN : POSIX_TRACE_NO_OVERRUN;
	st->posix_stream_flush_status = POSIX_TRACE_NOT_FLUSHING;
	st->posix_log_overrun_status = POSIX_TRACE_NO_OVERRUN;
	st->posix_log_full_status = POSIX_TRACE_NOT_FULL;
	return 0;
}
