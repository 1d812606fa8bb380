// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: the trace analyzer (posix_trace_getnext_event(),
 * timedgetnext, trygetnext) and the translation of ketw records into
 * POSIX events, for live streams and logs alike.
 *
 * A live stream's file is non-blocking: records are read in batches
 * (everything the session holds, up to KP_BATCH_SIZE bytes) and reported
 * in timestamp order within a batch. A reader that finds nothing sleeps
 * in poll() on the session's file (readable as soon as a record is
 * pending: the session is KETW_SESSION_WAKE_ANY; and once it stops) and
 * on the stream's eventfd (written by posix_trace_shutdown()), for
 * KP_WAIT_MS at most: a writer that commits a record just as the reader
 * goes to sleep may miss waking it (ketw's writers do not pay a full
 * barrier per event), and the bound makes that record late, not lost.
 * A signal ends the wait with EINTR whatever SA_RESTART says.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "kp_internal.h"

#define KP_BATCH_SIZE	(256 * 1024)	/* more than any record */
#define KP_WAIT_MS	500

static int kp_rec_cmp(const void *a, const void *b)
{
	const struct kp_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void kp_batch_drop(struct kp_stream *s)
{
	s->nr_recs = 0;
	s->next_rec = 0;
}

int kp_batch_fill(struct kp_stream *s)
{
	struct ketw_record_iter it;
	struct ketw_record rec;
	ssize_t n;
	int r;

	kp_batch_drop(s);
	if (!s->buf) {
		s->buf = malloc(KP_BATCH_SIZE);
		if (!s->buf)
			return -ENOMEM;
		s->buf_size = KP_BATCH_SIZE;
	}
	n = ketw_reader_read(s->fd, s->buf, s->buf_size);
	if (n <= 0)
		return n;
	ketw_record_iter_init(&it, s->buf, n);
	while ((r = ketw_record_iter_next(&it, &rec)) > 0) {
		if (s->nr_recs == s->recs_cap) {
			unsigned int cap = s->recs_cap ? 2 * s->recs_cap : 256;
			struct kp_rec *p = realloc(s->recs, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->recs = p;
			s->recs_cap = cap;
		}
		s->recs[s->nr_recs++] = (struct kp_rec) {
			.off = (const unsigned char *)rec.hdr - s->buf,
			.cpu = rec.cpu,
			.ts = rec.hdr->timestamp,
			.seq = rec.hdr->sequence,
		};
	}
	if (r < 0)
		return r;
	qsort(s->recs, s->nr_recs, sizeof(*s->recs), kp_rec_cmp);
	return 1;
}

bool kp_batch_next(struct kp_stream *s, struct ketw_record *rec)
{
	struct ketw_record_iter it;
	const struct ketw_event_header *h;

	if (s->next_rec >= s->nr_recs)
		return false;
	h = (const void *)(s->buf + s->recs[s->next_rec++].off);
	/* One record: its span was checked when the batch was filled. */
	ketw_record_iter_init(&it, h, KETW_RECORD_SPAN((size_t)h->size));
	return ketw_record_iter_next(&it, rec) > 0;
}

static void kp_ts(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = ns / 1000000000ull;
	ts->tv_nsec = ns % 1000000000ull;
}

/* Copy @len bytes of event data, cut to @num (POSIX_TRACE_TRUNCATED_READ). */
static void kp_data(struct posix_trace_event_info *ev, void *data, size_t num,
		    size_t *data_len, const void *src, size_t len)
{
	if (len > num) {
		len = num;
		ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	}
	if (len)
		memcpy(data, src, len);
	*data_len = len;
}

static void kp_set_from_kernel(trace_event_set_t *set,
			       const struct ketw_event_set *k)
{
	_Static_assert(sizeof(*set) == sizeof(*k), "event sets");
	memcpy(set, k, sizeof(*set));
}

static int kp_report_system(struct kp_stream *s, const struct ketw_record *rec,
			    struct posix_trace_event_info *ev, void *data,
			    size_t num, size_t *data_len)
{
	const struct ketw_event_header *h = rec->hdr;
	trace_event_set_t sets[2];
	struct ketw_sys_filter flt;
	struct ketw_sys_overflow ovf;
	struct ketw_sys_error e;
	struct ketw_sys_stop stop;
	int val;
	int ismember = 0;

	if (!kp_event_is_system(h->event_id))
		return 0;	/* TRIGGER, a rundown: not POSIX events */
	posix_trace_eventset_ismember(h->event_id, &s->filter, &ismember);
	if (ismember)
		return 0;
	ev->posix_event_id = h->event_id;
	*data_len = 0;
	switch (h->event_id) {
	case POSIX_TRACE_START:
		kp_data(ev, data, num, data_len, &s->filter, sizeof(s->filter));
		break;
	case POSIX_TRACE_STOP:
		memset(&stop, 0, sizeof(stop));
		memcpy(&stop, rec->data, rec->data_len < sizeof(stop) ?
		       rec->data_len : sizeof(stop));
		val = stop.auto_stop != KETW_STOP_EXPLICIT;
		if (stop.auto_stop == KETW_STOP_FULL && s->kind == KP_LIVE)
			s->restart = true;	/* UNTIL_FULL: again once read */
		kp_data(ev, data, num, data_len, &val, sizeof(val));
		break;
	case POSIX_TRACE_FILTER:
		if (rec->data_len < sizeof(flt))
			break;
		memcpy(&flt, rec->data, sizeof(flt));
		kp_set_from_kernel(&sets[0], &flt.old_filter.filtered);
		kp_set_from_kernel(&sets[1], &flt.new_filter.filtered);
		kp_data(ev, data, num, data_len, sets, sizeof(sets));
		break;
	case POSIX_TRACE_OVERFLOW:
		if (rec->data_len >= sizeof(ovf)) {
			memcpy(&ovf, rec->data, sizeof(ovf));
			kp_ts(&ev->posix_timestamp, ovf.first_lost_timestamp);
		}
		break;
	case POSIX_TRACE_ERROR:
		if (rec->data_len >= sizeof(e)) {
			memcpy(&e, rec->data, sizeof(e));
			val = -e.error;
			kp_data(ev, data, num, data_len, &val, sizeof(val));
		}
		break;
	}
	return 1;
}

static pid_t kp_event_pid(struct kp_stream *s, const struct ketw_record *rec)
{
	struct ketw_ext_pid_ns ns;

	/* The analyzer's numbers when the tracer is in its pid namespace. */
	if (!ketw_record_pid_ns(rec, &ns) && ns.pid_ns_inum == s->pidns)
		return ns.vpid;
	return rec->hdr->process_id;
}

int kp_report(struct kp_stream *s, const struct ketw_record *rec,
	      struct posix_trace_event_info *ev, void *data, size_t num,
	      size_t *data_len)
{
	const struct ketw_event_header *h = rec->hdr;
	struct kp_head head;
	uint64_t addr = 0;
	trace_event_id_t id;

	memset(ev, 0, sizeof(*ev));
	kp_ts(&ev->posix_timestamp, h->timestamp);
	ev->posix_truncation_status = POSIX_TRACE_NOT_TRUNCATED;
	if (h->flags & KETW_RECORD_SYSTEM)
		return kp_report_system(s, rec, ev, data, num, data_len);
	if (!(h->flags & KETW_RECORD_USER) ||
	    memcmp(h->provider_guid, kp_provider_guid, KETW_GUID_SIZE) ||
	    h->event_id == KP_META_ID || rec->data_len < KP_HEAD_SIZE)
		return 0;
	memcpy(&head, rec->data, sizeof(head));
	head.name[TRACE_EVENT_NAME_MAX - 1] = '\0';
	if (h->event_id == POSIX_TRACE_UNNAMED_USER_EVENT || !head.name[0]) {
		id = POSIX_TRACE_UNNAMED_USER_EVENT;
	} else if (s->names == &kp_proc_names) {
		pthread_mutex_lock(&kp_names_lock);
		id = kp_names_add(s->names, head.name, h->event_id, false);
		pthread_mutex_unlock(&kp_names_lock);
	} else {
		id = kp_names_add(s->names, head.name, h->event_id, false);
	}
	ev->posix_event_id = id;
	ev->posix_pid = kp_event_pid(s, rec);
	ev->posix_thread_id = (pthread_t)head.thread;
	if (ketw_record_addrs(rec, KETW_EXT_PROG_ADDR, &addr, 1))
		ev->posix_prog_address = (void *)(uintptr_t)addr;
	if (h->flags & KETW_RECORD_TRUNCATED)
		ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_RECORD;
	kp_data(ev, data, num, data_len, rec->data + KP_HEAD_SIZE,
		rec->data_len - KP_HEAD_SIZE);
	return 1;
}

enum kp_mode { KP_BLOCK, KP_TIMED, KP_TRY };

/* A log: the next record that is an event, or the end. */
static int kp_getnext_log(struct kp_stream *s, struct posix_trace_event_info *ev,
			  void *data, size_t num, size_t *data_len,
			  int *unavailable)
{
	struct ketw_record rec;

	while (ketw_input_next(s->in, &rec) > 0) {
		if (kp_report(s, &rec, ev, data, num, data_len)) {
			*unavailable = 0;
			return 0;
		}
	}
	*unavailable = 1;
	return 0;
}

/* Milliseconds to wait before @abstime (CLOCK_REALTIME), at most KP_WAIT_MS. */
static int kp_wait_ms(const struct timespec *abstime, int *ms)
{
	struct timespec now;
	int64_t left;

	*ms = KP_WAIT_MS;
	if (!abstime)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	left = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 +
	       (abstime->tv_nsec - now.tv_nsec);
	if (left <= 0)
		return ETIMEDOUT;
	if (left < (int64_t)KP_WAIT_MS * 1000000)
		*ms = (left + 999999) / 1000000;
	return 0;
}

static int kp_getnext_live(struct kp_stream *s, struct posix_trace_event_info *ev,
			   void *data, size_t num, size_t *data_len,
			   int *unavailable, const struct timespec *abstime,
			   enum kp_mode mode)
{
	struct ketw_record rec;
	struct pollfd pfd[2];
	int r, ms, err;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		if (atomic_load(&s->dead)) {
			pthread_mutex_unlock(&s->lock);
			return EINVAL;
		}
		while (kp_batch_next(s, &rec)) {
			if (kp_report(s, &rec, ev, data, num, data_len)) {
				pthread_mutex_unlock(&s->lock);
				*unavailable = 0;
				return 0;
			}
		}
		r = kp_batch_fill(s);
		if (r == 0 && s->restart) {
			/* UNTIL_FULL stopped itself and was read: restart. */
			s->restart = false;
			r = ketw_session_start(s->fd, s->session) ? 0 : 1;
		}
		pthread_mutex_unlock(&s->lock);
		if (r > 0)
			continue;
		if (r == 0) {
			*unavailable = 1;	/* stopped, and nothing left */
			return 0;
		}
		if (r != -EAGAIN)
			return r == -ENOMEM ? ENOMEM : EINVAL;
		if (mode == KP_TRY) {
			*unavailable = 1;
			return 0;
		}
		if (mode == KP_TIMED) {
			if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
				return EINVAL;
			err = kp_wait_ms(abstime, &ms);
			if (err)
				return err;
		} else {
			ms = KP_WAIT_MS;
		}
		pfd[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = s->wake, .events = POLLIN };
		if (poll(pfd, 2, ms) < 0 && errno == EINTR)
			return EINTR;
	}
}

static int kp_getnext(trace_id_t trid, struct posix_trace_event_info *ev,
		      void *data, size_t num, size_t *data_len,
		      int *unavailable, const struct timespec *abstime,
		      enum kp_mode mode)
{
	struct kp_stream *s;
	int err;

	s = kp_table_get(trid, mode == KP_TRY ? KP_LIVE :
			 KP_LIVE | KP_PRERECORDED);
	if (!s)
		return EINVAL;
	if (!ev || !data_len || !unavailable || (num && !data) ||
	    (mode == KP_TIMED && !abstime)) {
		err = EINVAL;
	} else if (s->kind == KP_PRERECORDED) {
		pthread_mutex_lock(&s->lock);
		err = kp_getnext_log(s, ev, data, num, data_len, unavailable);
		pthread_mutex_unlock(&s->lock);
	} else if (s->log) {
		err = EINVAL;	/* a stream with log is read from its log */
	} else {
		err = kp_getnext_live(s, ev, data, num, data_len, unavailable,
				      abstime, mode);
	}
	kp_table_put(trid);
	return err;
}

int posix_trace_getnext_event(trace_id_t trid,
			      struct posix_trace_event_info *restrict event,
			      void *restrict data, size_t num_bytes,
			      size_t *restrict data_len,
			      int *restrict unavailable)
{
	return kp_getnext(trid, event, data, num_bytes, data_len, unavailable,
			  NULL, KP_BLOCK);
}

int posix_trace_timedgetnext_event(trace_id_t trid,
				   struct posix_trace_event_info *restrict event,
				   void *restrict data, size_t num_bytes,
				   size_t *restrict data_len,
				   int *restrict unavailable,
				   const struct timespec *restrict abstime)
{
	return kp_getnext(trid, event, data, num_bytes, data_len, unavailable,
			  abstime, KP_TIMED);
}

int posix_trace_trygetnext_event(trace_id_t trid,
				 struct posix_trace_event_info *restrict event,
				 void *restrict data, size_t num_bytes,
				 size_t *restrict data_len,
				 int *restrict unavailable)
{
	return kp_getnext(trid, event, data, num_bytes, data_len, unavailable,
			  NULL, KP_TRY);
}
