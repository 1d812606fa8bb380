// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: trace logs (posix_trace_create_withlog(),
 * posix_trace_flush(), posix_trace_open(), posix_trace_rewind(),
 * posix_trace_close()).
 *
 * A log is a .ketw trace file (Documentation/ketw-file-format.rst),
 * written with libketw's incremental writer, so that 'ketw report' reads
 * it too. The library drains the stream's session into it: at
 * posix_trace_flush(), at posix_trace_shutdown(), and for the
 * POSIX_TRACE_FLUSH policy from a thread of its own whenever the
 * session holds more than its watermark. Its last record is a struct
 * kp_meta (event KP_META_ID of the POSIX provider): the attributes, the
 * filter and the status, which posix_trace_open() reads back.
 *
 * log-full-policy: APPEND writes on without a bound; UNTIL_FULL writes
 * until the next record would not fit in log-max-size, then stops the
 * stream and ends the log with a STOP; LOOP keeps the most recent
 * records that fit in memory and writes the file anew at each flush.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp_internal.h"

/* Room kept for the end: sections' heads, the STOP, meta and END. */
#define KP_LOG_RESERVE	1024

struct kp_log {
	int fd;				/* the caller's file_desc */
	int policy;			/* log-full-policy */
	uint64_t max;			/* log-max-size */
	struct ketw_output_info info;
	struct ketw_output *out;
	uint64_t pending;		/* bytes added since the last flush */
	uint64_t last_ts;		/* of the last record added */
	bool full, overrun, flushing;
	int flush_error;
	/* LOOP: the records kept, as [cpu, span, record] in a byte FIFO. */
	unsigned char *fifo;
	size_t fifo_head, fifo_len, fifo_cap;
	pthread_t flusher;
	bool has_flusher;
};

struct kp_fifo_rec {
	uint32_t cpu;
	uint32_t span;
};

static uint64_t kp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* the sessions' clock */
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* POSIX's errors of a log write: EFBIG, or ENOSPC for anything else. */
static int kp_log_errno(int err)
{
	if (!err)
		return 0;
	return err == -EFBIG ? EFBIG : ENOSPC;
}

static int kp_log_open_output(struct kp_log *log)
{
	int fd, err;
	struct stat st;

	/* A file starts anew; a pipe or socket is written on. */
	if (!fstat(log->fd, &st) && S_ISREG(st.st_mode) &&
	    (ftruncate(log->fd, 0) || lseek(log->fd, 0, SEEK_SET) < 0))
		return kp_log_errno(-errno);
	fd = fcntl(log->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return errno == EMFILE ? ENOSPC : kp_log_errno(-errno);
	err = ketw_output_create_fd(fd, &log->info, &log->out);
	if (err == -ENOMEM)
		return ENOMEM;
	log->pending = 0;
	return kp_log_errno(err);
}

/* Bytes the file would take with @more bytes of records added. */
static uint64_t kp_log_projected(const struct kp_log *log, uint64_t more)
{
	return ketw_output_size(log->out) + log->pending + more +
	       (uint64_t)log->info.nr_cpus * 24 + KP_LOG_RESERVE;
}

static void kp_fifo_drop_oldest(struct kp_log *log)
{
	struct kp_fifo_rec r;

	memcpy(&r, log->fifo + log->fifo_head, sizeof(r));
	log->fifo_head += sizeof(r) + r.span;
	log->fifo_len -= sizeof(r) + r.span;
	log->overrun = true;
	log->full = true;
}

static int kp_fifo_add(struct kp_log *log, unsigned int cpu, const void *rec,
		       size_t span)
{
	struct kp_fifo_rec r = { .cpu = cpu, .span = span };
	size_t need = sizeof(r) + span;

	if (need > log->fifo_cap)
		return 0;	/* cannot be kept at all: lost */
	while (log->fifo_len + need > log->fifo_cap)
		kp_fifo_drop_oldest(log);
	if (log->fifo_head + log->fifo_len + need > log->fifo_cap) {
		memmove(log->fifo, log->fifo + log->fifo_head, log->fifo_len);
		log->fifo_head = 0;
	}
	memcpy(log->fifo + log->fifo_head + log->fifo_len, &r, sizeof(r));
	memcpy(log->fifo + log->fifo_head + log->fifo_len + sizeof(r), rec,
	       span);
	log->fifo_len += need;
	return 0;
}

/* LOOP: the file anew from what the FIFO keeps. */
static int kp_fifo_write(struct kp_log *log)
{
	struct kp_fifo_rec r;
	size_t off;
	int err;

	if (log->out)
		ketw_output_abort(log->out, NULL);
	log->out = NULL;
	err = kp_log_open_output(log);
	for (off = 0; !err && off < log->fifo_len; off += sizeof(r) + r.span) {
		memcpy(&r, log->fifo + log->fifo_head + off, sizeof(r));
		err = kp_log_errno(ketw_output_add_record(log->out, r.cpu,
				log->fifo + log->fifo_head + off + sizeof(r),
				r.span));
	}
	return err;
}

/* Add one record of @cpu to the log, as its policy says. */
static int kp_log_add(struct kp_stream *s, unsigned int cpu, const void *rec,
		      size_t span)
{
	struct kp_log *log = s->log;
	const struct ketw_event_header *h = rec;
	int err;

	if (h->timestamp > log->last_ts)
		log->last_ts = h->timestamp;
	switch (log->policy) {
	case POSIX_TRACE_LOOP:
		return kp_fifo_add(log, cpu, rec, span);
	case POSIX_TRACE_UNTIL_FULL:
		if (log->full) {
			log->overrun = true;
			return 0;
		}
		if (kp_log_projected(log, span) > log->max) {
			/* Full: the stream stops, its last event a STOP. */
			log->full = true;
			log->overrun = true;
			ketw_session_stop(s->fd, s->session);
			return 0;
		}
		break;
	}
	err = ketw_output_add_record(log->out, cpu, rec, span);
	if (!err)
		log->pending += span;
	return kp_log_errno(err);
}

/* A system record of the library's own (FLUSH_START, FLUSH_STOP, STOP). */
static int kp_log_system(struct kp_stream *s, uint32_t id, const void *data,
			 size_t len)
{
	unsigned char buf[KETW_EVENT_HEADER_SIZE + 64];
	struct ketw_event_header *h = (void *)buf;

	memset(buf, 0, sizeof(buf));
	h->size = KETW_EVENT_HEADER_SIZE + len;
	h->flags = KETW_RECORD_SYSTEM;
	h->event_id = id;
	h->timestamp = kp_now_ns();
	if (h->timestamp < s->log->last_ts)
		h->timestamp = s->log->last_ts;
	memcpy(buf + KETW_EVENT_HEADER_SIZE, data, len);
	if (s->log->policy == POSIX_TRACE_UNTIL_FULL && s->log->full) {
		int err;

		/* Full: nothing after its last event, the STOP. */
		if (id != KETW_SYS_STOP)
			return 0;
		/* The room kept for the end takes it. */
		err = ketw_output_add_record(s->log->out, 0, buf,
					     KETW_RECORD_SPAN(h->size));
		s->log->pending += KETW_RECORD_SPAN(h->size);
		return kp_log_errno(err);
	}
	return kp_log_add(s, 0, buf, KETW_RECORD_SPAN(h->size));
}

/* The records the session holds now, into the log. */
static int kp_log_drain(struct kp_stream *s)
{
	struct ketw_record rec;
	bool was_full = s->log->full;
	size_t limit;
	int r, err = 0;

	/* A session that keeps running: no more than its buffers' worth. */
	limit = (s->attr.__stream_size + KETW_SYSTEM_RESERVE) * s->nr_cpus;
	while (limit) {
		r = kp_batch_fill(s);
		if (r <= 0)
			break;
		while (kp_batch_next(s, &rec)) {
			if (!err)
				err = kp_log_add(s, rec.cpu, rec.hdr, rec.span);
			limit = rec.span >= limit ? 0 : limit - rec.span;
		}
	}
	kp_batch_drop(s);
	if (!err && !was_full && s->log->full &&
	    s->log->policy == POSIX_TRACE_UNTIL_FULL) {
		struct ketw_sys_stop stop = { .auto_stop = KETW_STOP_FULL };

		err = kp_log_system(s, KETW_SYS_STOP, &stop, sizeof(stop));
	}
	return err;
}

static int kp_log_write_out(struct kp_log *log)
{
	int err;

	if (log->policy == POSIX_TRACE_LOOP)
		err = kp_fifo_write(log);
	else
		err = 0;
	if (!err)
		err = kp_log_errno(ketw_output_flush(log->out));
	if (!err)
		log->pending = 0;
	return err;
}

int kp_log_flush(struct kp_stream *s, bool marks)
{
	struct kp_log *log = s->log;
	int err;

	log->flushing = true;
	err = marks ? kp_log_system(s, KETW_SYS_FLUSH_START, NULL, 0) : 0;
	if (!err)
		err = kp_log_drain(s);
	if (!err && marks)
		err = kp_log_system(s, KETW_SYS_FLUSH_STOP, NULL, 0);
	if (!err)
		err = kp_log_write_out(log);
	if (err && !log->flush_error)
		log->flush_error = err;
	log->flushing = false;
	return err;
}

/* POSIX_TRACE_FLUSH: drain whenever the session is above its watermark. */
static void *kp_log_flusher(void *arg)
{
	struct kp_stream *s = arg;
	struct pollfd pfd[2] = {
		{ .fd = s->fd, .events = POLLIN },
		{ .fd = s->wake, .events = POLLIN },
	};

	while (!atomic_load(&s->dead)) {
		if (poll(pfd, 2, 100) <= 0 || !(pfd[0].revents & POLLIN) ||
		    atomic_load(&s->dead))
			continue;
		pthread_mutex_lock(&s->lock);
		kp_log_flush(s, false);
		pthread_mutex_unlock(&s->lock);
		/* Stopped and drained: readable no more until it runs again. */
		if (pfd[0].revents & POLLHUP)
			usleep(100 * 1000);
	}
	return NULL;
}

int kp_log_start(struct kp_stream *s)
{
	if (s->attr.__stream_policy != POSIX_TRACE_FLUSH)
		return 0;
	if (pthread_create(&s->log->flusher, NULL, kp_log_flusher, s))
		return EAGAIN;
	s->log->has_flusher = true;
	return 0;
}

/* Is @fd a file this log policy can write? */
int kp_log_fd_check(int fd, int policy)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return EBADF;
	if (fstat(fd, &st))
		return EBADF;
	if (S_ISREG(st.st_mode))
		return policy == POSIX_TRACE_LOOP && (fl & O_APPEND) ? EINVAL : 0;
	/* A pipe, a socket, a terminal: only written on, never rewritten. */
	if (policy == POSIX_TRACE_APPEND && !S_ISDIR(st.st_mode))
		return 0;
	return EINVAL;
}

int kp_log_create(struct kp_stream *s, int fd)
{
	struct ketw_session_attr sa;
	struct kp_log *log;
	int err;

	err = kp_errno_control(ketw_session_get_attr(s->fd, s->session, &sa));
	if (err)
		return err;
	log = calloc(1, sizeof(*log));
	if (!log)
		return ENOMEM;
	log->fd = fd;
	log->policy = s->attr.__log_policy;
	log->max = s->attr.__log_size;
	ketw_output_info_from_attr(&log->info, &sa);
	if (log->policy == POSIX_TRACE_LOOP) {
		uint64_t overhead = sizeof(struct ketw_file_header) +
				    24ull * sa.nr_cpus + 2 * KP_LOG_RESERVE;

		log->fifo_cap = log->max > overhead + KP_LOG_RESERVE ?
				log->max - overhead : KP_LOG_RESERVE;
		log->fifo = malloc(log->fifo_cap);
		if (!log->fifo) {
			free(log);
			return ENOMEM;
		}
	}
	err = kp_log_open_output(log);
	if (err) {
		free(log->fifo);
		free(log);
		return err;
	}
	s->log = log;
	return 0;
}

static void kp_log_meta(struct kp_stream *s, struct kp_meta *m,
			const struct posix_trace_status_info *st)
{
	memset(m, 0, sizeof(*m));
	m->magic = KP_META_MAGIC;
	m->size = sizeof(*m);
	m->stream_policy = s->attr.__stream_policy;
	m->log_policy = s->attr.__log_policy;
	m->inheritance = s->attr.__inheritance;
	m->stream_size = s->attr.__stream_size;
	m->max_data_size = s->attr.__max_data_size;
	m->log_size = s->attr.__log_size;
	m->create_ns = (uint64_t)s->attr.__create_time.tv_sec * 1000000000ull +
		       s->attr.__create_time.tv_nsec;
	m->clockres_ns = (uint64_t)s->attr.__clock_res.tv_sec * 1000000000ull +
			 s->attr.__clock_res.tv_nsec;
	memcpy(m->name, s->attr.__name, sizeof(m->name));
	memcpy(m->genversion, s->attr.__genversion, sizeof(m->genversion));
	memcpy(m->status, st, sizeof(m->status));
	memcpy(m->filter, &s->filter, sizeof(m->filter));
}

/* The last record: what posix_trace_open() gives back. */
static int kp_log_meta_record(struct kp_stream *s,
			      const struct posix_trace_status_info *st)
{
	unsigned char buf[KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE +
					   sizeof(struct kp_meta))];
	struct ketw_event_header *h = (void *)buf;
	struct kp_meta m;

	memset(buf, 0, sizeof(buf));
	kp_log_meta(s, &m, st);
	h->size = KETW_EVENT_HEADER_SIZE + sizeof(m);
	h->flags = KETW_RECORD_USER;
	h->event_id = KP_META_ID;
	h->timestamp = s->log->last_ts > kp_now_ns() ? s->log->last_ts :
		       kp_now_ns();
	memcpy(h->provider_guid, kp_provider_guid, KETW_GUID_SIZE);
	memcpy(buf + KETW_EVENT_HEADER_SIZE, &m, sizeof(m));
	if (s->log->policy == POSIX_TRACE_LOOP)
		return kp_fifo_add(s->log, 0, buf, sizeof(buf));
	return kp_log_errno(ketw_output_add_record(s->log->out, 0, buf,
						   sizeof(buf)));
}

int kp_log_finish(struct kp_stream *s)
{
	struct posix_trace_status_info st;
	struct kp_log *log = s->log;
	int err, err2;

	if (log->has_flusher)
		pthread_join(log->flusher, NULL);	/* s->dead ends it */
	pthread_mutex_lock(&s->lock);
	ketw_session_stop(s->fd, s->session);
	err = kp_log_flush(s, false);
	if (kp_session_status(s, &st))
		memset(&st, 0, sizeof(st));
	else
		kp_log_status(s, &st);
	st.posix_stream_status = POSIX_TRACE_SUSPENDED;
	err2 = kp_log_meta_record(s, &st);
	if (!err)
		err = err2;
	if (!err && log->policy == POSIX_TRACE_LOOP)
		err = kp_fifo_write(log);
	err2 = kp_log_errno(ketw_output_close(log->out));
	if (!err)
		err = err2;
	s->log = NULL;
	pthread_mutex_unlock(&s->lock);
	free(log->fifo);
	free(log);
	return err;
}

void kp_log_status(struct kp_stream *s, struct posix_trace_status_info *st)
{
	struct kp_log *log = s->log;

	st->posix_stream_flush_status = log->flushing ? POSIX_TRACE_FLUSHING :
							POSIX_TRACE_NOT_FLUSHING;
	st->posix_stream_flush_error = log->flush_error;
	st->posix_log_overrun_status = log->overrun ? POSIX_TRACE_OVERRUN :
						      POSIX_TRACE_NO_OVERRUN;
	st->posix_log_full_status = log->full ? POSIX_TRACE_FULL :
						POSIX_TRACE_NOT_FULL;
	/* Read: the overrun and the error are reset. */
	log->flush_error = 0;
	log->overrun = false;
}

int kp_log_clear(struct kp_stream *s)
{
	struct kp_log *log = s->log;

	if (log->policy == POSIX_TRACE_APPEND)
		return 0;	/* unspecified: the log stays as it is */
	log->fifo_head = log->fifo_len = 0;
	log->full = false;
	ketw_output_abort(log->out, NULL);
	log->out = NULL;
	return kp_log_open_output(log);
}

int posix_trace_flush(trace_id_t trid)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);
	int err;

	if (!s)
		return EINVAL;
	pthread_mutex_lock(&s->lock);
	err = s->log ? kp_log_flush(s, true) : EINVAL;
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	return err;
}

/* ---- pre-recorded streams -------------------------------------------- */

/* The whole file behind @fd, from its start. */
static int kp_read_all(int fd, unsigned char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 64 * 1024;
	unsigned char *buf = malloc(cap), *p;
	bool seekable = lseek(fd, 0, SEEK_CUR) >= 0;
	ssize_t n;

	if (!buf)
		return ENOMEM;
	for (;;) {
		if (len == cap) {
			p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return ENOMEM;
			}
			buf = p;
			cap *= 2;
		}
		n = seekable ? pread(fd, buf + len, cap - len, len) :
			       read(fd, buf + len, cap - len);
		if (n == 0)
			break;
		if (n < 0) {
			free(buf);
			return errno == EINTR ? EINTR : EINVAL;
		}
		len += n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static void kp_open_meta(struct kp_stream *s, const struct ketw_record *rec)
{
	struct kp_meta m;

	if (rec->data_len < sizeof(m))
		return;
	memcpy(&m, rec->data, sizeof(m));
	if (m.magic != KP_META_MAGIC)
		return;
	s->attr.__stream_policy = m.stream_policy;
	s->attr.__log_policy = m.log_policy;
	s->attr.__inheritance = m.inheritance;
	s->attr.__stream_size = m.stream_size;
	s->attr.__max_data_size = m.max_data_size;
	s->attr.__log_size = m.log_size;
	s->attr.__create_time.tv_sec = m.create_ns / 1000000000ull;
	s->attr.__create_time.tv_nsec = m.create_ns % 1000000000ull;
	s->attr.__clock_res.tv_sec = m.clockres_ns / 1000000000ull;
	s->attr.__clock_res.tv_nsec = m.clockres_ns % 1000000000ull;
	memcpy(s->attr.__name, m.name, sizeof(m.name));
	s->attr.__name[TRACE_NAME_MAX - 1] = '\0';
	memcpy(s->attr.__genversion, m.genversion, sizeof(m.genversion));
	s->attr.__genversion[TRACE_NAME_MAX - 1] = '\0';
	memcpy(&s->status, m.status, sizeof(s->status));
	memcpy(&s->filter, m.filter, sizeof(s->filter));
}

/* Read the whole log once: its meta record and its event names. */
static void kp_open_scan(struct kp_stream *s)
{
	const struct ketw_file_header *fh = ketw_input_header(s->in);
	struct ketw_record rec;
	struct kp_head head;

	s->attr.__stream_policy = fh->session.policy;
	s->attr.__create_time.tv_sec = fh->session.creation_time / 1000000000ull;
	s->attr.__create_time.tv_nsec = fh->session.creation_time % 1000000000ull;
	s->attr.__clock_res.tv_nsec = fh->session.clock_resolution;
	s->status.posix_stream_status = POSIX_TRACE_SUSPENDED;
	while (ketw_input_next(s->in, &rec) > 0) {
		const struct ketw_event_header *h = rec.hdr;

		if (!(h->flags & KETW_RECORD_USER) ||
		    memcmp(h->provider_guid, kp_provider_guid, KETW_GUID_SIZE))
			continue;
		if (h->event_id == KP_META_ID) {
			kp_open_meta(s, &rec);
			continue;
		}
		if (rec.data_len < KP_HEAD_SIZE)
			continue;
		memcpy(&head, rec.data, sizeof(head));
		head.name[TRACE_EVENT_NAME_MAX - 1] = '\0';
		if (h->event_id != POSIX_TRACE_UNNAMED_USER_EVENT)
			kp_names_add(s->names, head.name, h->event_id, false);
	}
	ketw_input_rewind(s->in);
}

int posix_trace_open(int file_desc, trace_id_t *trid)
{
	struct kp_stream *s;
	unsigned char *buf;
	size_t len;
	int fl = fcntl(file_desc, F_GETFL), err;

	if (!trid || fl < 0 || (fl & O_ACCMODE) == O_WRONLY)
		return EINVAL;
	err = kp_read_all(file_desc, &buf, &len);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(buf);
		return ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->kind = KP_PRERECORDED;
	s->fd = -1;
	s->wake = -1;
	kp_attr_defaults(&s->attr);
	s->names = calloc(1, sizeof(*s->names));
	err = s->names ? ketw_input_open_mem_flags(buf, len, KETW_INPUT_PARTIAL,
						   &s->in, NULL, 0) : -ENOMEM;
	free(buf);
	if (err) {
		kp_stream_free(s);
		return err == -ENOMEM ? ENOMEM : EINVAL;
	}
	kp_open_scan(s);
	err = kp_table_add(s, trid);
	if (err)
		kp_stream_free(s);
	return err;
}

int posix_trace_rewind(trace_id_t trid)
{
	struct kp_stream *s = kp_table_get(trid, KP_PRERECORDED);

	if (!s)
		return EINVAL;
	pthread_mutex_lock(&s->lock);
	ketw_input_rewind(s->in);
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	return 0;
}

int posix_trace_close(trace_id_t trid)
{
	struct kp_stream *s = kp_table_remove(trid, KP_PRERECORDED);

	if (!s)
		return EINVAL;
	kp_stream_free(s);
	return 0;
}
