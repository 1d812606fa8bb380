/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <trace.h>: the POSIX.1-2017 Trace option (and its sub-options Trace
 * Event Filter, Trace Log and Trace Inherit) on top of ketw, from
 * libketw-posix ("pkg-config --cflags --libs ketw-posix").
 *
 * Documentation/ketw-posix-trace.rst says how each function maps to ketw
 * and what is implementation-defined; man pages: posix_trace_attr(3),
 * posix_trace_stream(3), posix_trace_eventid(3), posix_trace_eventset(3),
 * posix_trace_event(3), posix_trace_getnext_event(3), posix_trace_log(3).
 *
 * Feature macros. glibc's <unistd.h> defines _POSIX_TRACE,
 * _POSIX_TRACE_EVENT_FILTER, _POSIX_TRACE_LOG and _POSIX_TRACE_INHERIT
 * as -1 (no support in the C library), and sysconf() says so too: this
 * header leaves them alone. A program tests these instead:
 *
 *	KETW_POSIX_TRACE               200809L  the Trace option
 *	KETW_POSIX_TRACE_EVENT_FILTER  200809L  the Trace Event Filter option
 *	KETW_POSIX_TRACE_LOG           200809L  the Trace Log option
 *	KETW_POSIX_TRACE_INHERIT       200809L  the Trace Inherit option
 *
 * Every function returns 0 or an error number (it does not set errno),
 * as the standard says; posix_trace_event() returns nothing and
 * posix_trace_eventid_equal() a truth value.
 */
#ifndef _KETW_POSIX_TRACE_H
#define _KETW_POSIX_TRACE_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define KETW_POSIX_TRACE		200809L
#define KETW_POSIX_TRACE_EVENT_FILTER	200809L
#define KETW_POSIX_TRACE_LOG		200809L
#define KETW_POSIX_TRACE_INHERIT	200809L

/*
 * Limits (<limits.h> values the C library does not define). Both name
 * limits count the terminating NUL: a buffer of TRACE_NAME_MAX or
 * TRACE_EVENT_NAME_MAX bytes holds any name the library returns, and an
 * event name of TRACE_EVENT_NAME_MAX characters or more is ENAMETOOLONG.
 */
#ifndef _POSIX_TRACE_EVENT_NAME_MAX
#define _POSIX_TRACE_EVENT_NAME_MAX	30
#endif
#ifndef _POSIX_TRACE_NAME_MAX
#define _POSIX_TRACE_NAME_MAX		8
#endif
#ifndef _POSIX_TRACE_SYS_MAX
#define _POSIX_TRACE_SYS_MAX		8
#endif
#ifndef _POSIX_TRACE_USER_EVENT_MAX
#define _POSIX_TRACE_USER_EVENT_MAX	32
#endif
#ifndef TRACE_EVENT_NAME_MAX
#define TRACE_EVENT_NAME_MAX		32	/* NUL included */
#endif
#ifndef TRACE_NAME_MAX
#define TRACE_NAME_MAX			32	/* NUL included */
#endif
#ifndef TRACE_SYS_MAX
#define TRACE_SYS_MAX			64	/* ketw's sessions, all users */
#endif
#ifndef TRACE_USER_EVENT_MAX
#define TRACE_USER_EVENT_MAX		256	/* names one process opens */
#endif

/*
 * Event type identifiers: the system events (ketw's system event ids),
 * the predefined unnamed user event, and user events from
 * KETW_POSIX_USER_EVENT_MIN to KETW_POSIX_EVENT_ID_MAX - 1.
 */
typedef unsigned int trace_event_id_t;

#define POSIX_TRACE_START		1u
#define POSIX_TRACE_STOP		2u
#define POSIX_TRACE_FILTER		3u
#define POSIX_TRACE_OVERFLOW		4u
#define POSIX_TRACE_RESUME		5u
#define POSIX_TRACE_FLUSH_START		6u
#define POSIX_TRACE_FLUSH_STOP		7u
#define POSIX_TRACE_ERROR		8u
#define POSIX_TRACE_UNNAMED_USER_EVENT	31u
/* The spelling of the functions' pages in the 2001 edition. */
#define POSIX_TRACE_UNNAMED_USEREVENT	POSIX_TRACE_UNNAMED_USER_EVENT
#define KETW_POSIX_USER_EVENT_MIN	32u
#define KETW_POSIX_EVENT_ID_MAX		1024u	/* ids are below this */

/* Stream and log full policies (stream-full-policy, log-full-policy). */
#define POSIX_TRACE_LOOP		1
#define POSIX_TRACE_UNTIL_FULL		2
#define POSIX_TRACE_FLUSH		3
#define POSIX_TRACE_APPEND		4

/* inheritance */
#define POSIX_TRACE_CLOSE_FOR_CHILD	0
#define POSIX_TRACE_INHERITED		1

/* posix_stream_status */
#define POSIX_TRACE_RUNNING		1
#define POSIX_TRACE_SUSPENDED		2
/* posix_stream_full_status, posix_log_full_status */
#define POSIX_TRACE_NOT_FULL		0
#define POSIX_TRACE_FULL		1
/* posix_stream_overrun_status, posix_log_overrun_status */
#define POSIX_TRACE_NO_OVERRUN		0
#define POSIX_TRACE_OVERRUN		1
/* posix_stream_flush_status */
#define POSIX_TRACE_NOT_FLUSHING	0
#define POSIX_TRACE_FLUSHING		1

/* posix_truncation_status */
#define POSIX_TRACE_NOT_TRUNCATED	0
#define POSIX_TRACE_TRUNCATED_RECORD	1
#define POSIX_TRACE_TRUNCATED_READ	2

/* posix_trace_eventset_fill()'s what */
#define POSIX_TRACE_WOPID_EVENTS	1
#define POSIX_TRACE_SYSTEM_EVENTS	2
#define POSIX_TRACE_ALL_EVENTS		3

/* posix_trace_set_filter()'s how */
#define POSIX_TRACE_SET_EVENTSET	1
#define POSIX_TRACE_ADD_EVENTSET	2
#define POSIX_TRACE_SUB_EVENTSET	3

/*
 * A trace stream or trace log of this process: a handle the library
 * checks, valid only in the process that got it (EINVAL elsewhere, and
 * after posix_trace_shutdown() or posix_trace_close()).
 */
typedef unsigned int trace_id_t;

/* A set of event type identifiers: a bit per id below KETW_POSIX_EVENT_ID_MAX. */
typedef struct {
	unsigned long long __bits[KETW_POSIX_EVENT_ID_MAX / 64];
} trace_event_set_t;

/*
 * Trace stream attributes. Use only the posix_trace_attr_*() functions:
 * the members are the library's.
 */
typedef struct {
	unsigned int __magic;		/* set by posix_trace_attr_init() */
	unsigned int __flags;
	int __stream_policy;
	int __log_policy;
	int __inheritance;
	int __reserved0;
	size_t __stream_size;
	size_t __max_data_size;
	size_t __log_size;
	struct timespec __create_time;
	struct timespec __clock_res;
	char __name[TRACE_NAME_MAX];
	char __genversion[TRACE_NAME_MAX];
	unsigned long long __reserved[8];
} trace_attr_t;

struct posix_trace_event_info {
	trace_event_id_t posix_event_id;
	pid_t            posix_pid;
	void            *posix_prog_address;
	int              posix_truncation_status;
	struct timespec  posix_timestamp;
	pthread_t        posix_thread_id;
};

struct posix_trace_status_info {
	int posix_stream_status;
	int posix_stream_full_status;
	int posix_stream_overrun_status;
	int posix_stream_flush_status;
	int posix_stream_flush_error;
	int posix_log_overrun_status;
	int posix_log_full_status;
};

#if defined(__cplusplus)
#define __ketw_restrict __restrict
extern "C" {
#else
#define __ketw_restrict restrict
#endif

/* Attributes (posix_trace_attr(3)). */
int posix_trace_attr_init(trace_attr_t *attr);
int posix_trace_attr_destroy(trace_attr_t *attr);
int posix_trace_attr_getclockres(const trace_attr_t *attr,
				 struct timespec *resolution);
int posix_trace_attr_getcreatetime(const trace_attr_t *attr,
				   struct timespec *createtime);
int posix_trace_attr_getgenversion(const trace_attr_t *attr, char *genversion);
int posix_trace_attr_getname(const trace_attr_t *attr, char *tracename);
int posix_trace_attr_setname(trace_attr_t *attr, const char *tracename);
int posix_trace_attr_getinherited(const trace_attr_t *__ketw_restrict attr,
				  int *__ketw_restrict inheritancepolicy);
int posix_trace_attr_setinherited(trace_attr_t *attr, int inheritancepolicy);
int posix_trace_attr_getlogfullpolicy(const trace_attr_t *__ketw_restrict attr,
				      int *__ketw_restrict logpolicy);
int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr, int logpolicy);
int posix_trace_attr_getstreamfullpolicy(const trace_attr_t *attr,
					 int *streampolicy);
int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr, int streampolicy);
int posix_trace_attr_getlogsize(const trace_attr_t *__ketw_restrict attr,
				size_t *__ketw_restrict logsize);
int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize);
int posix_trace_attr_getmaxdatasize(const trace_attr_t *__ketw_restrict attr,
				    size_t *__ketw_restrict maxdatasize);
int posix_trace_attr_setmaxdatasize(trace_attr_t *attr, size_t maxdatasize);
int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t *__ketw_restrict attr,
					   size_t *__ketw_restrict eventsize);
int posix_trace_attr_getmaxusereventsize(const trace_attr_t *__ketw_restrict attr,
					 size_t data_len,
					 size_t *__ketw_restrict eventsize);
int posix_trace_attr_getstreamsize(const trace_attr_t *__ketw_restrict attr,
				   size_t *__ketw_restrict streamsize);
int posix_trace_attr_setstreamsize(trace_attr_t *attr, size_t streamsize);

/* Stream control, the trace controller (posix_trace_stream(3)). */
int posix_trace_create(pid_t pid, const trace_attr_t *__ketw_restrict attr,
		       trace_id_t *__ketw_restrict trid);
int posix_trace_start(trace_id_t trid);
int posix_trace_stop(trace_id_t trid);
int posix_trace_shutdown(trace_id_t trid);
int posix_trace_clear(trace_id_t trid);
int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr);
int posix_trace_get_status(trace_id_t trid,
			   struct posix_trace_status_info *statusinfo);

/* Event type identifiers (posix_trace_eventid(3)). */
int posix_trace_eventid_open(const char *__ketw_restrict event_name,
			     trace_event_id_t *__ketw_restrict event_id);
int posix_trace_trid_eventid_open(trace_id_t trid,
				  const char *__ketw_restrict event_name,
				  trace_event_id_t *__ketw_restrict event);
int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event,
				 char *event_name);
int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
			      trace_event_id_t event2);
int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
					 trace_event_id_t *__ketw_restrict event,
					 int *__ketw_restrict unavailable);
int posix_trace_eventtypelist_rewind(trace_id_t trid);

/* Event sets and the filter (posix_trace_eventset(3)). */
int posix_trace_eventset_empty(trace_event_set_t *set);
int posix_trace_eventset_fill(trace_event_set_t *set, int what);
int posix_trace_eventset_add(trace_event_id_t event_id, trace_event_set_t *set);
int posix_trace_eventset_del(trace_event_id_t event_id, trace_event_set_t *set);
int posix_trace_eventset_ismember(trace_event_id_t event_id,
				  const trace_event_set_t *__ketw_restrict set,
				  int *__ketw_restrict ismember);
int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set);
int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
			   int how);

/* The traced process (posix_trace_event(3)). */
void posix_trace_event(trace_event_id_t event_id,
		       const void *__ketw_restrict data_ptr, size_t data_len);

/* The trace analyzer (posix_trace_getnext_event(3)). */
int posix_trace_getnext_event(trace_id_t trid,
			      struct posix_trace_event_info *__ketw_restrict event,
			      void *__ketw_restrict data, size_t num_bytes,
			      size_t *__ketw_restrict data_len,
			      int *__ketw_restrict unavailable);
int posix_trace_timedgetnext_event(trace_id_t trid,
				   struct posix_trace_event_info *__ketw_restrict event,
				   void *__ketw_restrict data, size_t num_bytes,
				   size_t *__ketw_restrict data_len,
				   int *__ketw_restrict unavailable,
				   const struct timespec *__ketw_restrict abstime);
int posix_trace_trygetnext_event(trace_id_t trid,
				 struct posix_trace_event_info *__ketw_restrict event,
				 void *__ketw_restrict data, size_t num_bytes,
				 size_t *__ketw_restrict data_len,
				 int *__ketw_restrict unavailable);

/* Trace logs (posix_trace_log(3)). */
int posix_trace_create_withlog(pid_t pid,
			       const trace_attr_t *__ketw_restrict attr,
			       int file_desc, trace_id_t *__ketw_restrict trid);
int posix_trace_flush(trace_id_t trid);
int posix_trace_open(int file_desc, trace_id_t *trid);
int posix_trace_rewind(trace_id_t trid);
int posix_trace_close(trace_id_t trid);

#if defined(__cplusplus)
}
#endif
#undef __ketw_restrict

#endif /* _KETW_POSIX_TRACE_H */
