// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: trace stream attributes (posix_trace_attr_*()).
 *
 * An attributes object is valid from posix_trace_attr_init() to
 * posix_trace_attr_destroy(); every function refuses another one, and
 * every bad argument, with EINVAL (the standard's "may fail").
 */
#include <errno.h>
#include <string.h>

#include "kp_internal.h"

#ifndef KETW_POSIX_VERSION
#define KETW_POSIX_VERSION "0"
#endif

/* The extended data items of a user event: PROG_ADDR and PID_NS. */
#define KP_EXT_SIZE	(sizeof(struct ketw_ext_header) + KETW_EXT_ITEM_SPAN(8) + \
			 KETW_EXT_ITEM_SPAN(sizeof(struct ketw_ext_pid_ns)))
/* The largest max-data-size: the record's size is a __u16. */
#define KP_MAX_DATA_MAX	(KETW_MAX_DATA_SIZE - KP_HEAD_SIZE - KP_EXT_SIZE)
/* The largest stream: a per-CPU buffer of KETW_BUFFER_KB_MAX. */
#define KP_STREAM_SIZE_MAX \
	((size_t)KETW_BUFFER_KB_MAX * 1024 - KETW_SYSTEM_RESERVE)

void kp_attr_defaults(trace_attr_t *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->__magic = KP_ATTR_MAGIC;
	attr->__stream_policy = POSIX_TRACE_LOOP;
	attr->__log_policy = POSIX_TRACE_LOOP;
	attr->__inheritance = POSIX_TRACE_CLOSE_FOR_CHILD;
	attr->__stream_size = KP_STREAM_SIZE_DEFAULT;
	attr->__max_data_size = KP_MAX_DATA_DEFAULT;
	attr->__log_size = KP_LOG_SIZE_DEFAULT;
	if (clock_getres(CLOCK_MONOTONIC, &attr->__clock_res))
		attr->__clock_res.tv_nsec = 1;
	strncpy(attr->__genversion, "ketw-posix " KETW_POSIX_VERSION,
		TRACE_NAME_MAX - 1);
}

bool kp_attr_valid(const trace_attr_t *attr)
{
	return attr && attr->__magic == KP_ATTR_MAGIC;
}

size_t kp_user_event_size(size_t data_len, size_t max_data)
{
	if (data_len > max_data)
		data_len = max_data;
	return KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + KP_EXT_SIZE +
				KP_HEAD_SIZE + data_len);
}

size_t kp_system_event_size(void)
{
	/* FILTER's payload is the largest: two filters. */
	return KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE +
				sizeof(struct ketw_sys_filter));
}

int posix_trace_attr_init(trace_attr_t *attr)
{
	if (!attr)
		return EINVAL;
	kp_attr_defaults(attr);
	return 0;
}

int posix_trace_attr_destroy(trace_attr_t *attr)
{
	if (!kp_attr_valid(attr))
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	return 0;
}

int posix_trace_attr_getclockres(const trace_attr_t *attr,
				 struct timespec *resolution)
{
	if (!kp_attr_valid(attr) || !resolution)
		return EINVAL;
	*resolution = attr->__clock_res;
	return 0;
}

int posix_trace_attr_getcreatetime(const trace_attr_t *attr,
				   struct timespec *createtime)
{
	if (!kp_attr_valid(attr) || !createtime)
		return EINVAL;
	*createtime = attr->__create_time;
	return 0;
}

static int kp_copy_name(char *dst, const char *src)
{
	if (!dst)
		return EINVAL;
	memcpy(dst, src, strnlen(src, TRACE_NAME_MAX - 1));
	dst[strnlen(src, TRACE_NAME_MAX - 1)] = '\0';
	return 0;
}

int posix_trace_attr_getgenversion(const trace_attr_t *attr, char *genversion)
{
	if (!kp_attr_valid(attr))
		return EINVAL;
	return kp_copy_name(genversion, attr->__genversion);
}

int posix_trace_attr_getname(const trace_attr_t *attr, char *tracename)
{
	if (!kp_attr_valid(attr))
		return EINVAL;
	return kp_copy_name(tracename, attr->__name);
}

/* A longer name is cut to TRACE_NAME_MAX - 1 characters. */
int posix_trace_attr_setname(trace_attr_t *attr, const char *tracename)
{
	if (!kp_attr_valid(attr) || !tracename)
		return EINVAL;
	memset(attr->__name, 0, sizeof(attr->__name));
	strncpy(attr->__name, tracename, TRACE_NAME_MAX - 1);
	return 0;
}

int posix_trace_attr_getinherited(const trace_attr_t *restrict attr,
				  int *restrict inheritancepolicy)
{
	if (!kp_attr_valid(attr) || !inheritancepolicy)
		return EINVAL;
	*inheritancepolicy = attr->__inheritance;
	return 0;
}

int posix_trace_attr_setinherited(trace_attr_t *attr, int inheritancepolicy)
{
	if (!kp_attr_valid(attr) ||
	    (inheritancepolicy != POSIX_TRACE_CLOSE_FOR_CHILD &&
	     inheritancepolicy != POSIX_TRACE_INHERITED))
		return EINVAL;
	attr->__inheritance = inheritancepolicy;
	return 0;
}

int posix_trace_attr_getlogfullpolicy(const trace_attr_t *restrict attr,
				      int *restrict logpolicy)
{
	if (!kp_attr_valid(attr) || !logpolicy)
		return EINVAL;
	*logpolicy = attr->__log_policy;
	return 0;
}

int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr, int logpolicy)
{
	if (!kp_attr_valid(attr) ||
	    (logpolicy != POSIX_TRACE_LOOP &&
	     logpolicy != POSIX_TRACE_UNTIL_FULL &&
	     logpolicy != POSIX_TRACE_APPEND))
		return EINVAL;
	attr->__log_policy = logpolicy;
	return 0;
}

/*
 * Without an explicit choice this says POSIX_TRACE_LOOP, the default of
 * a stream without log; a stream with log defaults to POSIX_TRACE_FLUSH.
 */
int posix_trace_attr_getstreamfullpolicy(const trace_attr_t *attr,
					 int *streampolicy)
{
	if (!kp_attr_valid(attr) || !streampolicy)
		return EINVAL;
	*streampolicy = attr->__stream_policy;
	return 0;
}

int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr, int streampolicy)
{
	if (!kp_attr_valid(attr) ||
	    (streampolicy != POSIX_TRACE_LOOP &&
	     streampolicy != POSIX_TRACE_UNTIL_FULL &&
	     streampolicy != POSIX_TRACE_FLUSH))
		return EINVAL;
	attr->__stream_policy = streampolicy;
	attr->__flags |= KP_ATTR_F_STREAM_POLICY;
	return 0;
}

int posix_trace_attr_getlogsize(const trace_attr_t *restrict attr,
				size_t *restrict logsize)
{
	if (!kp_attr_valid(attr) || !logsize)
		return EINVAL;
	*logsize = attr->__log_size;
	return 0;
}

int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize)
{
	if (!kp_attr_valid(attr) || logsize < KP_LOG_SIZE_MIN)
		return EINVAL;
	attr->__log_size = logsize;
	return 0;
}

int posix_trace_attr_getmaxdatasize(const trace_attr_t *restrict attr,
				    size_t *restrict maxdatasize)
{
	if (!kp_attr_valid(attr) || !maxdatasize)
		return EINVAL;
	*maxdatasize = attr->__max_data_size;
	return 0;
}

int posix_trace_attr_setmaxdatasize(trace_attr_t *attr, size_t maxdatasize)
{
	if (!kp_attr_valid(attr) || maxdatasize > KP_MAX_DATA_MAX)
		return EINVAL;
	attr->__max_data_size = maxdatasize;
	return 0;
}

int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t *restrict attr,
					   size_t *restrict eventsize)
{
	if (!kp_attr_valid(attr) || !eventsize)
		return EINVAL;
	*eventsize = kp_system_event_size();
	return 0;
}

int posix_trace_attr_getmaxusereventsize(const trace_attr_t *restrict attr,
					 size_t data_len,
					 size_t *restrict eventsize)
{
	if (!kp_attr_valid(attr) || !eventsize)
		return EINVAL;
	*eventsize = kp_user_event_size(data_len, attr->__max_data_size);
	return 0;
}

int posix_trace_attr_getstreamsize(const trace_attr_t *restrict attr,
				   size_t *restrict streamsize)
{
	if (!kp_attr_valid(attr) || !streamsize)
		return EINVAL;
	*streamsize = attr->__stream_size;
	return 0;
}

int posix_trace_attr_setstreamsize(trace_attr_t *attr, size_t streamsize)
{
	if (!kp_attr_valid(attr) || streamsize < KP_STREAM_SIZE_MIN ||
	    streamsize > KP_STREAM_SIZE_MAX)
		return EINVAL;
	attr->__stream_size = streamsize;
	return 0;
}
