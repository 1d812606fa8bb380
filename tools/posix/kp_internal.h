/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libketw-posix internals shared between its files; not part of the API.
 * Names: kp_<object>_<verb>. Every function returns 0 or a positive
 * error number, as the POSIX functions do, unless it says otherwise.
 */
#ifndef _KETW_POSIX_INTERNAL_H
#define _KETW_POSIX_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "libketw.h"
#include "trace.h"

#pragma GCC visibility push(hidden)

#define KP_ATTR_MAGIC		0x6b707478u	/* "kptx" */
#define KP_ATTR_F_STREAM_POLICY	0x1u	/* stream-full-policy set explicitly */

/* Defaults of the attributes (Documentation/ketw-posix-trace.rst). */
#define KP_STREAM_SIZE_DEFAULT	(64 * 1024)
#define KP_STREAM_SIZE_MIN	4096
#define KP_MAX_DATA_DEFAULT	1024
#define KP_LOG_SIZE_DEFAULT	(16 * 1024 * 1024)
#define KP_LOG_SIZE_MIN		4096

/*
 * The POSIX provider: every posix_trace_event() of every process is an
 * event of this user provider ("user.posix"), GUID
 * 706f7369-7874-7261-6365-000000000001 ("posixtrace").
 */
#define KP_PROVIDER_NAME	"posix"
#define KP_PROVIDER_LISTED	KETW_USER_PREFIX KP_PROVIDER_NAME
#define KP_PROVIDER_GUID	{ 0x70, 0x6f, 0x73, 0x69, 0x78, 0x74, 0x72, 0x61, \
				  0x63, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }
extern const uint8_t kp_provider_guid[KETW_GUID_SIZE];

/*
 * A POSIX user event's payload: this head, then the data given to
 * posix_trace_event(). The record's event_id is the tracing process's
 * id for the name (or POSIX_TRACE_UNNAMED_USER_EVENT, name "").
 */
struct kp_head {
	uint64_t thread;			/* pthread_self() of the tracer */
	char name[TRACE_EVENT_NAME_MAX];	/* NUL-padded */
};
#define KP_HEAD_SIZE		sizeof(struct kp_head)
_Static_assert(sizeof(struct kp_head) == 40, "payload head");

/* A log's own record (event id above any event type id): struct kp_meta. */
#define KP_META_ID		0x10000u
#define KP_META_MAGIC		0x6b706d31u	/* "kpm1" */
struct kp_meta {
	uint32_t magic;
	uint32_t size;			/* sizeof(struct kp_meta) */
	int32_t stream_policy, log_policy, inheritance, reserved;
	uint64_t stream_size, max_data_size, log_size;
	uint64_t create_ns, clockres_ns;
	char name[TRACE_NAME_MAX];
	char genversion[TRACE_NAME_MAX];
	int32_t status[7];		/* struct posix_trace_status_info */
	int32_t reserved2;
	uint64_t filter[KETW_POSIX_EVENT_ID_MAX / 64];
};

/* ---- names.c: name <-> event type id tables --------------------------- */

struct kp_names {
	unsigned char used[KETW_POSIX_EVENT_ID_MAX];	/* atomic: 1 = name set */
	char name[KETW_POSIX_EVENT_ID_MAX][TRACE_EVENT_NAME_MAX];
	unsigned int opened;	/* names the open functions defined */
	unsigned int count;	/* names held */
};

/* This process's table (posix_trace_eventid_open() and live streams). */
extern struct kp_names kp_proc_names;
extern pthread_mutex_t kp_names_lock;

/*
 * The id of @name in @t, adding it if new: at @hint if that slot is free
 * (the id the tracing process used), else the first free slot from the
 * name's hash. @own: a name the open functions define, counted against
 * TRACE_USER_EVENT_MAX. POSIX_TRACE_UNNAMED_USER_EVENT past the limits.
 * The caller holds the table's lock (kp_names_lock for kp_proc_names).
 */
trace_event_id_t kp_names_add(struct kp_names *t, const char *name,
			      trace_event_id_t hint, bool own);
/* The name of user event @id, or NULL; lock-free (slots are set once). */
const char *kp_names_get(const struct kp_names *t, trace_event_id_t id);
bool kp_event_is_system(trace_event_id_t id);

/* ---- attr.c ----------------------------------------------------------- */

void kp_attr_defaults(trace_attr_t *attr);
bool kp_attr_valid(const trace_attr_t *attr);
/* Bytes of the largest record of a user event of @data_len bytes. */
size_t kp_user_event_size(size_t data_len, size_t max_data);
size_t kp_system_event_size(void);

/* ---- table.c: trace_id_t -> stream ------------------------------------- */

enum kp_kind {
	KP_LIVE = 1,		/* an active trace stream */
	KP_PRERECORDED = 2,	/* a trace log opened by posix_trace_open() */
};

struct kp_log;

/* A record waiting in a live stream's batch (struct kp_stream). */
struct kp_rec {
	uint32_t off;
	uint32_t cpu;
	uint64_t ts;
	uint64_t seq;
};

struct kp_stream {
	enum kp_kind kind;
	atomic_bool dead;		/* shutdown or close under way */
	pthread_mutex_t lock;		/* everything below */
	trace_attr_t attr;
	trace_event_set_t filter;
	struct kp_names *names;		/* live: &kp_proc_names */
	unsigned int typelist;		/* eventtypelist cursor */
	uint64_t pidns;			/* the analyzer's pid namespace inode */
	/* live */
	int fd;				/* /dev/ketw, attached to the session */
	int wake;			/* eventfd: written when dead */
	char session[KETW_NAME_MAX];
	unsigned int nr_cpus;
	bool restart;			/* UNTIL_FULL stopped itself: restart */
	uint64_t overwritten_base;	/* LOOP: overwritten at the last clear */
	unsigned char *buf;		/* records read, not yet reported */
	size_t buf_size;
	struct kp_rec *recs;
	unsigned int nr_recs, next_rec, recs_cap;
	struct kp_log *log;		/* a stream with log: its writer */
	/* pre-recorded */
	struct ketw_input *in;
	struct posix_trace_status_info status;
};

/* Put @s in the table: 0 and *@trid, or EAGAIN when it is full. */
int kp_table_add(struct kp_stream *s, trace_id_t *trid);
/*
 * The stream @trid names if it is of a kind in @kinds, with a reference
 * (kp_table_put()); NULL if none (a bad, stale or foreign trid).
 */
struct kp_stream *kp_table_get(trace_id_t trid, unsigned int kinds);
void kp_table_put(trace_id_t trid);
/*
 * Take @trid out of the table: no new kp_table_get() finds it, waiters
 * are woken (s->wake), and this returns once no reference is left.
 */
struct kp_stream *kp_table_remove(trace_id_t trid, unsigned int kinds);
/* Shutdown every live stream of this process (exit). */
void kp_table_foreach(void (*fn)(trace_id_t trid, struct kp_stream *s));

/* ---- stream.c ------------------------------------------------------------ */

int kp_stream_create(pid_t pid, const trace_attr_t *attr, int logfd,
		     trace_id_t *trid);
void kp_stream_free(struct kp_stream *s);
int kp_stream_status(struct kp_stream *s, struct posix_trace_status_info *st);
int kp_session_status(struct kp_stream *s, struct posix_trace_status_info *st);
/* POSIX errno for an error of session control (-errno from libketw). */
int kp_errno_control(int err);
/* Take the POSIX provider with @filtered filtered out: 0 or -errno. */
int kp_stream_enable(struct kp_stream *s, const trace_event_set_t *filtered);

/* ---- getnext.c ------------------------------------------------------------ */

/*
 * Report @rec (a record of a live stream or a log) as a POSIX event:
 * 1 and the event filled; 0 for a record that is not one (a rundown,
 * another provider's, a system event filtered out).
 */
int kp_report(struct kp_stream *s, const struct ketw_record *rec,
	      struct posix_trace_event_info *ev, void *data, size_t num,
	      size_t *data_len);
/* Read what the session has now into the batch: 1, 0 at its end, -EAGAIN. */
int kp_batch_fill(struct kp_stream *s);
void kp_batch_drop(struct kp_stream *s);
/* The next record of the batch, or false. */
bool kp_batch_next(struct kp_stream *s, struct ketw_record *rec);

/* ---- log.c ------------------------------------------------------------- */

int kp_log_create(struct kp_stream *s, int fd);
/* Move what the session holds into the log (FLUSH_START/STOP around). */
int kp_log_flush(struct kp_stream *s, bool marks);
/* Flush, write the status record and the end; free the writer. */
int kp_log_finish(struct kp_stream *s);
/* The log's part of a status; resets what get_status resets. */
void kp_log_status(struct kp_stream *s, struct posix_trace_status_info *st);
int kp_log_clear(struct kp_stream *s);
/* POSIX_TRACE_FLUSH: the thread that drains the session into the log. */
int kp_log_start(struct kp_stream *s);
/* Is @fd a file log policy @policy can write? 0 or the POSIX error. */
int kp_log_fd_check(int fd, int policy);

/* ---- event.c ----------------------------------------------------------- */

/* Register the POSIX provider once (posix_trace_event() is a no-op else). */
void kp_provider_register(void);

#pragma GCC visibility pop

#endif /* _KETW_POSIX_INTERNAL_H */
