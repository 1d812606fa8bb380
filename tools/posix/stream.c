// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: trace stream control, the trace controller's part
 * (posix_trace_create(), start, stop, shutdown, clear, get_attr,
 * get_status).
 *
 * A trace stream is a ketw session on a /dev/ketw file of its own,
 * created stopped and owned by that file (KETW_SESSION_OWNED): when the
 * process exits or execs the session goes. The session takes the POSIX
 * provider alone (user.posix, with the program address and pid
 * namespace items) and, through the process filter, only the traced
 * process (with its children for POSIX_TRACE_INHERITED).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp_internal.h"

/* The session's name: posix-PID-N, N counting this process's streams. */
static void kp_session_name(char *buf)
{
	static atomic_uint seq;

	snprintf(buf, KETW_NAME_MAX, "posix-%d-%u", (int)getpid(),
		 atomic_fetch_add(&seq, 1));
}

/* Per-CPU KiB: the stream-min-size, and two of the largest records, fit. */
static int kp_buffer_kb(const trace_attr_t *a, uint32_t *kb)
{
	size_t rec = kp_user_event_size(a->__max_data_size,
					a->__max_data_size);
	size_t need = a->__stream_size + KETW_SYSTEM_RESERVE;

	if (need < 2 * (rec + KETW_SYSTEM_RESERVE))
		need = 2 * (rec + KETW_SYSTEM_RESERVE);
	need = (need + 1023) / 1024;
	if (need > KETW_BUFFER_KB_MAX)
		return EINVAL;
	*kb = need < KETW_BUFFER_KB_MIN ? KETW_BUFFER_KB_MIN : need;
	return 0;
}

/*
 * Trace only @pid (and the children it forks after this with
 * @inherit). A module without the process filter (ENOTTY) traces every
 * process that logs POSIX events: Documentation/ketw-posix-trace.rst.
 */
static int kp_pid_filter(struct kp_stream *s, pid_t pid, bool inherit)
{
	struct ketw_pid_filter f;
	int32_t p = pid;

	memset(&f, 0, sizeof(f));
	memcpy(f.session, s->session, KETW_NAME_MAX);
	f.size = sizeof(f);
	f.flags = inherit ? KETW_PIDS_INHERIT : 0;
	f.count = 1;
	f.pids = (uintptr_t)&p;
	if (!ioctl(s->fd, KETW_IOC_SET_PIDS, &f) || errno == ENOTTY)
		return 0;
	switch (errno) {
	case ESRCH:
	case EPERM:
	case ENOMEM:
		return errno;
	case EACCES:
		return EPERM;
	default:
		return EINVAL;
	}
}

static int kp_session_create(struct kp_stream *s, const trace_attr_t *a)
{
	struct ketw_session_attr sa;
	uint32_t kb;
	int err, tries;

	err = kp_buffer_kb(a, &kb);
	if (err)
		return err;
	for (tries = 0; tries < 64; tries++) {
		kp_session_name(s->session);
		ketw_session_attr_init(&sa, s->session);
		sa.flags = KETW_SESSION_NO_RUNDOWN | KETW_SESSION_OWNED |
			   KETW_SESSION_WAKE_ANY;
		sa.buffer_kb = kb;
		sa.policy = a->__stream_policy;	/* POSIX's values are ketw's */
		sa.max_data_size = KP_HEAD_SIZE + a->__max_data_size;
		sa.clock = KETW_CLOCK_MONO;
		sa.watermark = 1;
		err = ketw_session_create(s->fd, &sa);
		if (err != -EEXIST)
			break;
	}
	switch (err) {
	case 0:
		break;
	case -ENOMEM:
		return ENOMEM;
	case -ENOSPC:
	case -EEXIST:
		return EAGAIN;	/* TRACE_SYS_MAX sessions */
	case -EINTR:
		return EINTR;
	default:
		return EINVAL;
	}
	s->nr_cpus = sa.nr_cpus;
	s->attr.__stream_size = (size_t)sa.buffer_kb * 1024 - KETW_SYSTEM_RESERVE;
	s->attr.__create_time.tv_sec = sa.creation_time / 1000000000ull;
	s->attr.__create_time.tv_nsec = sa.creation_time % 1000000000ull;
	s->attr.__clock_res.tv_sec = 0;
	s->attr.__clock_res.tv_nsec = sa.clock_resolution;

	return kp_errno_control(kp_stream_enable(s, &s->filter));
}

int kp_stream_enable(struct kp_stream *s, const trace_event_set_t *filtered)
{
	struct ketw_provider_ref ref;
	struct ketw_filter f;

	memset(&ref, 0, sizeof(ref));
	strcpy(ref.name, KP_PROVIDER_LISTED);
	memset(&f, 0, sizeof(f));
	_Static_assert(sizeof(f.filtered) == sizeof(*filtered), "event sets");
	memcpy(&f.filtered, filtered, sizeof(f.filtered));
	return ketw_session_enable_items(s->fd, s->session, &ref, &f,
					 KETW_EXT_BIT(KETW_EXT_PROG_ADDR) |
					 KETW_EXT_BIT(KETW_EXT_PID_NS));
}

static uint64_t kp_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : st.st_ino;
}

int kp_stream_create(pid_t pid, const trace_attr_t *attr, int logfd,
		     trace_id_t *trid)
{
	struct kp_stream *s;
	pid_t target = pid ? pid : getpid();
	int err;

	if (!trid || (attr && !kp_attr_valid(attr)))
		return EINVAL;
	if (pid < 0)
		return ESRCH;
	if (pid && kill(pid, 0))
		return errno == ESRCH ? ESRCH : EPERM;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->kind = KP_LIVE;
	s->names = &kp_proc_names;
	s->fd = -1;
	s->wake = -1;
	s->pidns = kp_pidns();
	if (attr)
		s->attr = *attr;
	else
		kp_attr_defaults(&s->attr);
	if (logfd < 0 && s->attr.__stream_policy == POSIX_TRACE_FLUSH) {
		err = EINVAL;	/* FLUSH needs a log */
		goto out;
	}
	if (logfd >= 0 && !(s->attr.__flags & KP_ATTR_F_STREAM_POLICY))
		s->attr.__stream_policy = POSIX_TRACE_FLUSH;

	s->fd = ketw_device_open(NULL, O_NONBLOCK);
	if (s->fd < 0) {
		err = s->fd == -EPERM || s->fd == -EACCES ? EPERM :
		      s->fd == -ENOMEM ? ENOMEM : EAGAIN;
		s->fd = -1;
		goto out;
	}
	s->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->wake < 0) {
		err = errno == ENOMEM ? ENOMEM : EAGAIN;
		goto out;
	}
	err = kp_session_create(s, &s->attr);
	if (!err)
		err = kp_pid_filter(s, target,
				    s->attr.__inheritance == POSIX_TRACE_INHERITED);
	if (!err && logfd >= 0)
		err = kp_log_create(s, logfd);
	if (!err)
		err = kp_table_add(s, trid);
	if (!err && s->log) {
		err = kp_log_start(s);
		if (err)
			kp_table_remove(*trid, KP_LIVE);
	}
	if (!err)
		return 0;
	if (s->log)
		kp_log_finish(s);
out:
	kp_stream_free(s);
	return err;
}

int posix_trace_create(pid_t pid, const trace_attr_t *restrict attr,
		       trace_id_t *restrict trid)
{
	return kp_stream_create(pid, attr, -1, trid);
}

int posix_trace_create_withlog(pid_t pid, const trace_attr_t *restrict attr,
			       int file_desc, trace_id_t *restrict trid)
{
	int policy = attr && kp_attr_valid(attr) ? attr->__log_policy :
		     POSIX_TRACE_LOOP;
	int err = kp_log_fd_check(file_desc, policy);

	return err ? err : kp_stream_create(pid, attr, file_desc, trid);
}

int posix_trace_start(trace_id_t trid)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);
	int err;

	if (!s)
		return EINVAL;
	pthread_mutex_lock(&s->lock);
	s->restart = false;
	err = ketw_session_start(s->fd, s->session);
	/*
	 * UNTIL_FULL and still full (ketw refuses with ENOSPC): the stream
	 * resumes once the analyzer has read it empty, as one that stopped
	 * itself does; not an error of posix_trace_start().
	 */
	if (err == -ENOSPC) {
		s->restart = true;
		err = 0;
	}
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	/* Running already: no START, the stream goes on (no error). */
	return err == -EBUSY ? 0 : kp_errno_control(err);
}

int posix_trace_stop(trace_id_t trid)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);
	int err;

	if (!s)
		return EINVAL;
	pthread_mutex_lock(&s->lock);
	s->restart = false;
	err = ketw_session_stop(s->fd, s->session);
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	/* Suspended already: no STOP, the stream stays suspended. */
	return err == -EALREADY ? 0 : kp_errno_control(err);
}

int posix_trace_shutdown(trace_id_t trid)
{
	struct kp_stream *s = kp_table_remove(trid, KP_LIVE);
	int err = 0;

	if (!s)
		return EINVAL;
	if (s->log)
		err = kp_log_finish(s);
	kp_stream_free(s);
	return err;
}

/* Records LOOP overwrote in the session so far, all CPUs. */
static uint64_t kp_overwritten(struct kp_stream *s)
{
	struct ketw_cpu_stats st;
	uint64_t n = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (!ketw_session_get_cpu_stats(s->fd, s->session, cpu, &st))
			n += st.overwritten;
	return n;
}

int posix_trace_clear(trace_id_t trid)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE);
	size_t limit;
	int err = 0;

	if (!s)
		return EINVAL;
	pthread_mutex_lock(&s->lock);
	/* What the buffers hold, at most: a running stream goes on. */
	limit = (s->attr.__stream_size + KETW_SYSTEM_RESERVE) * s->nr_cpus;
	kp_batch_drop(s);
	while (limit) {
		int r = kp_batch_fill(s);
		size_t got = 0;
		struct ketw_record rec;

		if (r <= 0)
			break;
		while (kp_batch_next(s, &rec))
			got += rec.span;
		limit = got >= limit ? 0 : limit - got;
	}
	kp_batch_drop(s);
	s->restart = false;
	if (s->attr.__stream_policy == POSIX_TRACE_LOOP)
		s->overwritten_base = kp_overwritten(s);
	if (s->log)
		err = kp_log_clear(s);
	pthread_mutex_unlock(&s->lock);
	kp_table_put(trid);
	return err;
}

int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE | KP_PRERECORDED);

	if (!s)
		return EINVAL;
	if (attr) {
		pthread_mutex_lock(&s->lock);
		*attr = s->attr;
		pthread_mutex_unlock(&s->lock);
	}
	kp_table_put(trid);
	return attr ? 0 : EINVAL;
}

int kp_stream_status(struct kp_stream *s, struct posix_trace_status_info *st)
{
	int err = kp_session_status(s, st);

	if (!err && s->log)
		kp_log_status(s, st);
	return err;
}

int posix_trace_get_status(trace_id_t trid,
			   struct posix_trace_status_info *statusinfo)
{
	struct kp_stream *s = kp_table_get(trid, KP_LIVE | KP_PRERECORDED);
	int err = 0;

	if (!s)
		return EINVAL;
	if (!statusinfo) {
		err = EINVAL;
	} else {
		pthread_mutex_lock(&s->lock);
		if (s->kind == KP_LIVE)
			err = kp_stream_status(s, statusinfo);
		else
			*statusinfo = s->status;	/* a log's is not reset */
		pthread_mutex_unlock(&s->lock);
	}
	kp_table_put(trid);
	return err;
}

/* exit(): a stream with log ends its log as posix_trace_shutdown() would. */
static void kp_exit_one(trace_id_t trid, struct kp_stream *s)
{
	/* A stream without log goes with the process's files. */
	if (s->kind == KP_LIVE && s->log)
		posix_trace_shutdown(trid);
}

__attribute__((destructor))
static void kp_exit(void)
{
	kp_table_foreach(kp_exit_one);
}
