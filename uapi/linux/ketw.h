/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ketw - ETW-class event tracing for Linux: the user-space ABI.
 *
 * This is the only header shared by the kernel module and user space.
 * Everything here is fixed-width, naturally aligned and explicitly padded.
 * Extensible structures start with a __u32 size: the kernel accepts older
 * (shorter) and newer (longer) versions; a longer one must have a zeroed
 * tail, otherwise the ioctl fails with E2BIG.
 */
#ifndef _UAPI_LINUX_KETW_H
#define _UAPI_LINUX_KETW_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/const.h>

#define KETW_DEVICE		"/dev/ketw"
#define KETW_NAME_MAX		32	/* session and provider names, NUL included */
#define KETW_GUID_SIZE		16

/*
 * Event record header.
 *
 * Every record in a per-CPU buffer starts with this header, followed by
 * (size - KETW_EVENT_HEADER_SIZE) bytes of payload. Records start on
 * KETW_RECORD_ALIGN boundaries: the next record begins at
 * KETW_RECORD_SPAN(size) bytes after this one.
 *
 * @size:          header plus payload in bytes (ETW's Size). Never more than
 *                 KETW_EVENT_HEADER_SIZE + the session's max_data_size.
 * @type:          event type (ETW Class.Type): KETW_TYPE_*.
 * @level:         event level (ETW Class.Level): KETW_LEVEL_*.
 * @version:       version of the event's payload layout (ETW Class.Version).
 * @flags:         KETW_RECORD_* flags.
 * @event_id:      the provider's id of the event (descriptor id), or a
 *                 KETW_SYS_* id when KETW_RECORD_SYSTEM is set.
 * @cpu:           the CPU whose buffer holds the record, i.e. the CPU that
 *                 logged it.
 * @thread_id:     the logging task's thread id (kernel pid) in the initial
 *                 pid namespace; 0 in interrupt context.
 * @process_id:    the logging task's process id (kernel tgid); 0 in
 *                 interrupt context.
 * @sequence:      per-CPU, per-session sequence number. It increases by one
 *                 for every event the session accepted on that CPU, whether
 *                 it was stored or lost, so a gap between two records of
 *                 one CPU is exactly the number of events lost between them.
 * @timestamp:     nanoseconds of the session's clock (KETW_CLOCK_*).
 *                 Non-decreasing within one CPU's buffer.
 * @keyword:       the event's 64-bit keyword mask.
 * @provider_guid: the provider's GUID, in the byte order of its textual
 *                 form (RFC 4122, big-endian fields).
 */
struct ketw_event_header {
	__u16 size;
	__u8  type;
	__u8  level;
	__u16 version;
	__u16 flags;
	__u32 event_id;
	__u32 cpu;
	__u32 thread_id;
	__u32 process_id;
	__u64 sequence;
	__u64 timestamp;
	__u64 keyword;
	__u8  provider_guid[KETW_GUID_SIZE];
};

#define KETW_EVENT_HEADER_SIZE	64
#define KETW_RECORD_ALIGN	8
#define KETW_RECORD_SPAN(size) \
	(((size) + KETW_RECORD_ALIGN - 1) & ~(__u32)(KETW_RECORD_ALIGN - 1))
/* Largest payload an event can carry: size is a __u16. */
#define KETW_MAX_DATA_SIZE	(0xfff8 - KETW_EVENT_HEADER_SIZE)

/* Record flags. */
#define KETW_RECORD_SYSTEM	_BITUL(0)  /* a system event: event_id is KETW_SYS_* */
#define KETW_RECORD_TRUNCATED	_BITUL(1)  /* payload cut (POSIX TRUNCATED_RECORD) */
#define KETW_RECORD_PADDING	_BITUL(2)  /* filler up to the end of the data area */
#define KETW_RECORD_USER	_BITUL(3)  /* logged by a user-space provider */

/* Event types (ETW EVENT_TRACE_TYPE_*); providers define their own from 10. */
#define KETW_TYPE_INFO		0
#define KETW_TYPE_START		1
#define KETW_TYPE_END		2
#define KETW_TYPE_DC_START	3
#define KETW_TYPE_DC_END	4
#define KETW_TYPE_EXTENSION	5
#define KETW_TYPE_REPLY		6
#define KETW_TYPE_DEQUEUE	7
#define KETW_TYPE_CHECKPOINT	8
#define KETW_TYPE_PROVIDER_MIN	10

/* Levels (ETW TRACE_LEVEL_*): a session at level N takes levels 1..N. */
#define KETW_LEVEL_ALL		0
#define KETW_LEVEL_CRITICAL	1
#define KETW_LEVEL_ERROR	2
#define KETW_LEVEL_WARNING	3
#define KETW_LEVEL_INFO		4
#define KETW_LEVEL_VERBOSE	5

/* System event ids (POSIX trace system events), with KETW_RECORD_SYSTEM. */
#define KETW_SYS_START		1  /* payload: struct ketw_sys_start */
#define KETW_SYS_STOP		2  /* payload: struct ketw_sys_stop */
#define KETW_SYS_FILTER		3
#define KETW_SYS_OVERFLOW	4
#define KETW_SYS_RESUME		5
#define KETW_SYS_FLUSH_START	6
#define KETW_SYS_FLUSH_STOP	7
#define KETW_SYS_ERROR		8
/* Rundown (type KETW_TYPE_DC_START): the registry, so a trace decodes alone. */
#define KETW_SYS_PROVIDER	16 /* payload: struct ketw_sys_provider */
#define KETW_SYS_EVENT_DESC	17 /* payload: struct ketw_event_info */
#define KETW_SYS_TASK		18 /* payload: struct ketw_sys_task */

/* The all-zero GUID stamped on system events. */
#define KETW_SYSTEM_PROVIDER_NAME "ketw"

struct ketw_sys_start {
	__u32 level;		/* the session's default filter */
	__u32 reserved;
	__u64 match_any;
	__u64 match_all;
};

struct ketw_sys_stop {
	__u32 auto_stop;	/* 0: explicit stop; else stopped by the full policy */
	__u32 reserved;
};

/*
 * OVERFLOW and RESUME come as a pair, in front of the first record stored
 * on a CPU after events were lost there, with that record's timestamp.
 */
struct ketw_sys_overflow {
	__u64 first_lost_timestamp;	/* when the first lost event came */
};

struct ketw_sys_resume {
	__u64 lost;			/* events lost on this CPU since the last record */
};

struct ketw_sys_error {
	__s32 error;			/* a negative errno */
	__u32 reserved;
};

/*
 * POSIX event sets: a bit per event id below KETW_EVENT_SET_BITS. In a
 * filter, the set lists the ids that are filtered out (posix_trace_set_filter);
 * events with larger ids are never filtered. libketw has the set operations
 * (empty, fill, add, del, ismember).
 */
#define KETW_EVENT_SET_BITS	1024
struct ketw_event_set {
	__u64 bits[KETW_EVENT_SET_BITS / 64];
};

/**
 * struct ketw_filter - one provider's filter in a session (ETW EnableTraceEx2)
 * @level:     highest level taken; 0 takes all.
 * @enabled:   1 if the provider is enabled in the session, 0 if not.
 * @match_any: an event's keyword must share a bit with it (0: no test).
 * @match_all: an event's keyword must hold all its bits.
 * @filtered:  event ids filtered out.
 */
struct ketw_filter {
	__u32 level;
	__u32 enabled;
	__u64 match_any;
	__u64 match_all;
	struct ketw_event_set filtered;
};

/* FILTER: a running session's filter for a provider changed. */
struct ketw_sys_filter {
	__u8  provider_guid[KETW_GUID_SIZE];
	struct ketw_filter old_filter;
	struct ketw_filter new_filter;
};

struct ketw_sys_provider {
	__u8  provider_guid[KETW_GUID_SIZE];
	char  name[KETW_NAME_MAX];
	__u32 nr_events;
	__u32 flags;			/* KETW_PROVIDER_* */
};

#define KETW_TASK_COMM_LEN	16
struct ketw_sys_task {
	__u32 process_id;
	__u32 thread_id;
	char  comm[KETW_TASK_COMM_LEN];
};

/* Payload field types, for struct ketw_field_info. */
#define KETW_FIELD_U8		1
#define KETW_FIELD_U16		2
#define KETW_FIELD_U32		3
#define KETW_FIELD_U64		4
#define KETW_FIELD_S8		5
#define KETW_FIELD_S16		6
#define KETW_FIELD_S32		7
#define KETW_FIELD_S64		8
#define KETW_FIELD_HEX32	9	/* shown in hex */
#define KETW_FIELD_HEX64	10
#define KETW_FIELD_STRING	11	/* NUL-terminated or up to size / the payload's end */
#define KETW_FIELD_BINARY	12	/* size bytes; 0: to the payload's end */
#define KETW_FIELD_GUID		13

#define KETW_FIELD_NAME_MAX	24
#define KETW_MAX_FIELDS		16

/**
 * struct ketw_field_info - one field of an event's payload
 * @name:   NUL-terminated.
 * @type:   KETW_FIELD_*.
 * @offset: byte offset in the payload.
 * @size:   bytes; for STRING and BINARY 0 means "to the payload's end".
 * @reserved: 0.
 */
struct ketw_field_info {
	char  name[KETW_FIELD_NAME_MAX];
	__u16 type;
	__u16 offset;
	__u16 size;
	__u16 reserved;
};

/**
 * struct ketw_event_info - an event descriptor, as listed and in rundowns
 * @provider_guid: its provider.
 * @id:            the provider's event id.
 * @type:          KETW_TYPE_*.
 * @level:         KETW_LEVEL_*.
 * @version:       payload layout version.
 * @keyword:       keyword bits.
 * @name:          NUL-terminated.
 * @nr_fields:     entries used in @fields.
 * @flags:         its provider's KETW_PROVIDER_* flags: KETW_PROVIDER_USER
 *                 says that @provider_guid names a user provider (which
 *                 may carry a kernel provider's GUID); 0 in
 *                 KETW_IOC_USER_REGISTER's descriptors.
 * @fields:        the payload layout.
 */
struct ketw_event_info {
	__u8  provider_guid[KETW_GUID_SIZE];
	__u32 id;
	__u8  type;
	__u8  level;
	__u16 version;
	__u64 keyword;
	char  name[KETW_NAME_MAX];
	__u32 nr_fields;
	__u32 flags;
	struct ketw_field_info fields[KETW_MAX_FIELDS];
};

/* Provider flags. */
#define KETW_PROVIDER_USER	_BITUL(0)	/* registered from user space */

/*
 * User providers live in their own namespace: the name a process
 * registers is listed, enabled and recorded with this prefix, which no
 * kernel provider's name may start with. A user provider may carry a
 * kernel provider's GUID only while that provider is not registered, and
 * is then never taken for it: a GUID in a request names a kernel provider,
 * unless the request says KETW_ENABLE_USER.
 */
#define KETW_USER_PREFIX	"user."

/**
 * struct ketw_provider_info - a registered provider, as listed
 * @provider_guid: the GUID.
 * @name:          NUL-terminated.
 * @nr_events:     descriptors it declared.
 * @flags:         KETW_PROVIDER_*.
 * @nr_sessions:   running sessions that enable it now.
 * @uid:           KETW_PROVIDER_USER: the user id that registered it (in
 *                 the initial user namespace); 0 otherwise.
 */
struct ketw_provider_info {
	__u8  provider_guid[KETW_GUID_SIZE];
	char  name[KETW_NAME_MAX];
	__u32 nr_events;
	__u32 flags;
	__u32 nr_sessions;
	__u32 uid;
};

/**
 * struct ketw_list - list providers, or one provider's events
 * @size:     sizeof(struct ketw_list) as the caller knows it.
 * @capacity: in: entries @entries can hold.
 * @count:    out: entries there are (may exceed @capacity: call again).
 * @reserved: 0.
 * @provider: EVENTS only: the provider's name, or "" to use @guid.
 * @guid:     EVENTS only: the provider's GUID when @provider is "".
 * @entries:  user address of an array of struct ketw_provider_info
 *            (PROVIDERS) or struct ketw_event_info (EVENTS).
 */
struct ketw_list {
	__u32 size;
	__u32 capacity;
	__u32 count;
	__u32 reserved;
	char  provider[KETW_NAME_MAX];
	__u8  guid[KETW_GUID_SIZE];
	__u64 entries;
};

#define KETW_LIST_SIZE_VER0	72

/* Flags of struct ketw_enable. */
#define KETW_ENABLE_DISABLE	_BITUL(0)	/* remove the provider from the session */
#define KETW_ENABLE_USER	_BITUL(1)	/* @guid names a user provider */

/**
 * struct ketw_enable - enable (or disable) a provider in a session
 * @size:     sizeof(struct ketw_enable) as the caller knows it.
 * @flags:    KETW_ENABLE_*.
 * @session:  the session's name.
 * @provider: the provider's name, or "" to name it by @guid.
 * @guid:     the provider's GUID when @provider is "".
 * @filter:   level, keywords and event set (@filter.enabled is ignored).
 *
 * A session that never enabled a provider takes every provider with its
 * own default filter (struct ketw_session_attr). From its first ENABLE on,
 * it takes exactly the providers enabled (none, once all are disabled).
 * A provider need not be registered yet: the session takes its events
 * from when it registers. On a running session a
 * change logs FILTER with the old and new filter.
 */
struct ketw_enable {
	__u32 size;
	__u32 flags;
	char  session[KETW_NAME_MAX];
	char  provider[KETW_NAME_MAX];
	__u8  guid[KETW_GUID_SIZE];
	struct ketw_filter filter;
};

#define KETW_ENABLE_SIZE_VER0	240

#define KETW_MAX_ENABLES	64	/* providers enabled in one session */

/**
 * struct ketw_user_provider - register a provider from user space
 * @size:   sizeof(struct ketw_user_provider) as the caller knows it.
 * @flags:  0.
 * @guid:   not all zero.
 * @name:   1 to KETW_NAME_MAX - 1 characters.
 * @events: user address of an array of @nr_events struct ketw_event_info,
 *          the provider's event descriptors (VER1; 0 with @nr_events 0).
 * @nr_events: at most KETW_USER_MAX_EVENTS (E2BIG above).
 * @reserved: 0.
 *
 * The provider belongs to the file it was registered on, one per file,
 * and goes away when that file is closed.
 *
 * The kernel copies @events: KETW_IOC_EVENTS lists them (name the
 * provider by its name) and rundowns log them, as a kernel provider's.
 * In each entry @provider_guid is all zero or the provider's GUID; @name
 * (of the event and of each field) is 1 to its size - 1 printable ASCII
 * characters, no blank; @level is at most KETW_LEVEL_VERBOSE; @id is
 * unique; @nr_fields is at most KETW_MAX_FIELDS, and each field has a
 * KETW_FIELD_* type, the type's size (any for STRING and BINARY) and
 * lies within KETW_MAX_DATA_SIZE; @flags, reserved words and unused
 * fields are zero. Anything else is EINVAL.
 */
struct ketw_user_provider {
	__u32 size;
	__u32 flags;
	__u8  guid[KETW_GUID_SIZE];
	char  name[KETW_NAME_MAX];
	__u64 events;
	__u32 nr_events;
	__u32 reserved;
};

#define KETW_USER_PROVIDER_SIZE_VER0	56
#define KETW_USER_PROVIDER_SIZE_VER1	72

#define KETW_USER_MAX_EVENTS	256	/* descriptors of one user provider */

/*
 * The enable page. mmap() of one page at offset 0, read-only and shared,
 * on a /dev/ketw_user file with a registered provider maps a struct
 * ketw_user_enable_page the kernel rewrites whenever the sessions that
 * take that provider change (a writable or larger mapping, or one
 * before USER_REGISTER, fails with EPERM, EINVAL and ENODEV). A disabled
 * call site costs a load and a test, with no system call:
 *
 *	if ((page->levels >> level) & 1 &&
 *	    (!keyword || keyword & page->keyword_any))
 *		ioctl(fd, KETW_IOC_USER_WRITE, &ev);
 *
 * The summary errs one way only: when it says no, no session takes the
 * event; when it says yes, one may (USER_WRITE applies each session's
 * exact filter, match_all and event sets included).
 */
#define KETW_USER_PAGE_VERSION	1

/**
 * struct ketw_user_enable_page - what the sessions taking a provider take
 * @version:     KETW_USER_PAGE_VERSION.
 * @seq:         incremented on every update.
 * @levels:      bit L set: some session takes events of level L (bit 0:
 *               level 0, which every session takes); 0 while no running
 *               session takes the provider.
 * @nr_sessions: running sessions that take the provider.
 * @keyword_any: the union of their match_any masks, all ones if one has
 *               none (or the ftrace event ketw:ketw_event is on). An event
 *               with keyword 0 passes every keyword filter.
 */
struct ketw_user_enable_page {
	__u32 version;
	__u32 seq;
	__u32 levels;
	__u32 nr_sessions;
	__u64 keyword_any;
};

/**
 * struct ketw_user_event - log an event through this file's user provider
 * @size:     sizeof(struct ketw_user_event) as the caller knows it.
 * @id:       event id.
 * @type:     KETW_TYPE_*.
 * @level:    KETW_LEVEL_*.
 * @version:  payload layout version.
 * @keyword:  keyword bits.
 * @data:     user address of the payload.
 * @len:      payload bytes, at most KETW_MAX_DATA_SIZE (else EINVAL);
 *            sessions keep up to their max_data_size and flag the rest
 *            KETW_RECORD_TRUNCATED.
 * @reserved: 0.
 *
 * The record's thread and process ids are the caller's, set by the
 * kernel. The ioctl returns the number of sessions that stored it.
 */
struct ketw_user_event {
	__u32 size;
	__u32 id;
	__u8  type;
	__u8  level;
	__u16 version;
	__u32 reserved;
	__u64 keyword;
	__u64 data;
	__u32 len;
	__u32 reserved1;
};

#define KETW_USER_EVENT_SIZE_VER0	40

/*
 * /dev/ketw_user: a second node, mode 0666, that takes only the user
 * provider ioctls. Opening it needs CAP_SYS_ADMIN, or membership of the
 * group given by ketw's module parameter user_gid (default: none).
 */
#define KETW_USER_DEVICE	"/dev/ketw_user"

/* Full policies (POSIX stream-full-policy). */
#define KETW_POLICY_LOOP	1  /* overwrite the oldest records (flight recorder) */
#define KETW_POLICY_UNTIL_FULL	2  /* stop the session when a buffer is full */
#define KETW_POLICY_FLUSH	3  /* stream to a reader; drop and count when it lags */

/* Timestamp clocks. */
#define KETW_CLOCK_MONO		1  /* ktime_get_mono_fast_ns(): CLOCK_MONOTONIC, NMI-safe */
#define KETW_CLOCK_BOOT		2  /* ktime_get_boot_fast_ns(): CLOCK_BOOTTIME */
#define KETW_CLOCK_LOCAL	3  /* local_clock(): per-CPU sched_clock, fastest */

/* Bounds and defaults for session attributes (zero selects the default). */
#define KETW_BUFFER_KB_DEFAULT	1024
#define KETW_BUFFER_KB_MIN	4		/* one page */
#define KETW_BUFFER_KB_MAX	(256 * 1024)	/* 256 MiB per CPU */
/*
 * Bytes of each per-CPU buffer kept for system events: the largest record
 * takes at most half a buffer minus this, and UNTIL_FULL keeps this much
 * free so that its final OVERFLOW, RESUME and STOP always fit.
 */
#define KETW_SYSTEM_RESERVE	1024
#define KETW_MAX_DATA_DEFAULT	4096
#define KETW_POLICY_DEFAULT	KETW_POLICY_LOOP
#define KETW_CLOCK_DEFAULT	KETW_CLOCK_MONO

/**
 * struct ketw_session_attr - attributes of a session (create and get)
 * @size:          sizeof(struct ketw_session_attr) as the caller knows it.
 * @flags:         KETW_SESSION_* flags.
 * @name:          NUL-terminated name: [A-Za-z0-9_.-], 1 to 31 characters.
 * @buffer_kb:     per-CPU data area in KiB, rounded up to a power of two
 *                 pages; KETW_BUFFER_KB_MIN..KETW_BUFFER_KB_MAX, 0 = default.
 * @policy:        KETW_POLICY_*, 0 = default.
 * @max_data_size: payload bytes kept per event (longer payloads are cut and
 *                 flagged KETW_RECORD_TRUNCATED); 1..KETW_MAX_DATA_SIZE,
 *                 0 = default.
 * @clock:         KETW_CLOCK_*, 0 = default.
 * @level:         default filter for every provider: highest level taken,
 *                 KETW_LEVEL_ALL (0) takes all.
 * @reserved0:     must be 0.
 * @match_any:     keyword mask: an event is taken if it has any of these
 *                 bits (0 = any event).
 * @match_all:     keyword mask: and all of these bits (0 = no condition).
 * @watermark:     percent of a per-CPU buffer filled at which poll() and
 *                 epoll report the session readable; 1..100, 0 = 50.
 * @creation_time: out: CLOCK_REALTIME of creation, in ns.
 * @clock_resolution: out: resolution of @clock in ns.
 * @nr_cpus:       out: number of per-CPU buffers (CPU ids 0..nr_cpus-1).
 * @state:         out: KETW_STATE_*.
 * @memory:        out: bytes the session's buffers take, counted against
 *                 ketw's max_buffer_kb (Documentation/ketw-ring-buffer.rst,
 *                 "Memory"); ignored on input.
 */
struct ketw_session_attr {
	__u32 size;
	__u32 flags;
	char  name[KETW_NAME_MAX];
	__u32 buffer_kb;
	__u32 policy;
	__u32 max_data_size;
	__u32 clock;
	__u32 level;
	__u32 reserved0;
	__u64 match_any;
	__u64 match_all;
	__u64 creation_time;
	__u32 clock_resolution;
	__u32 nr_cpus;
	__u32 state;
	__u32 watermark;
	__u64 memory;
};

#define KETW_SESSION_ATTR_SIZE_VER0	112

/*
 * Session flags. By default START is followed by a rundown (PROVIDER,
 * EVENT_DESC and TASK records, type DC_START); NO_RUNDOWN leaves it out,
 * for small flight-recorder buffers. KETW_IOC_RUNDOWN logs one anyway.
 *
 * OWNED (KETW_IOC_CREATE on /dev/ketw only): the session is owned by the
 * open file that created it, and is stopped and destroyed when that file
 * is released (its last descriptor closed: dup() and fork() copies keep
 * it), whoever else is attached: their read() then drains what is left
 * and returns 0. A file owns at most one session: CREATE with OWNED on a
 * file that owns one not yet destroyed fails with EBUSY. A recorder that
 * dies leaves no session behind (Documentation/ketw-lifetimes.rst).
 */
#define KETW_SESSION_NO_RUNDOWN	_BITUL(0)
#define KETW_SESSION_OWNED	_BITUL(1)
#define KETW_SESSION_FLAGS	(KETW_SESSION_NO_RUNDOWN | KETW_SESSION_OWNED)

/* Session states (POSIX stream status). */
#define KETW_STATE_CREATED	0  /* never started */
#define KETW_STATE_RUNNING	1
#define KETW_STATE_SUSPENDED	2  /* stopped, explicitly or by the full policy */

/**
 * struct ketw_session_ref - names the session an ioctl acts on
 * @name: NUL-terminated session name.
 */
struct ketw_session_ref {
	char name[KETW_NAME_MAX];
};

/**
 * struct ketw_cpu_stats - per-CPU counters of a session
 * @size:        sizeof(struct ketw_cpu_stats) as the caller knows it.
 * @cpu:         in: which CPU.
 * @name:        in: the session.
 * @written:     records stored (system events included).
 * @lost_full:   events lost because the buffer was full (UNTIL_FULL, FLUSH).
 * @overwritten: records a LOOP session overwrote before they were read.
 * @lost_busy:   events lost because they would have overwritten a record
 *               still being written (LOOP, tiny buffers, nested writers).
 * @lost_nested: events lost to the recursion guard.
 * @truncated:   records stored with a cut payload.
 * @read:        records consumed through read().
 * @sequence:    the next sequence number.
 * @produced:    byte position of the producer (committed data), mod 2^32.
 * @consumed:    byte position of the consumer (LOOP: oldest), mod 2^32.
 */
struct ketw_cpu_stats {
	__u32 size;
	__u32 cpu;
	char  name[KETW_NAME_MAX];
	__u64 written;
	__u64 lost_full;
	__u64 overwritten;
	__u64 lost_busy;
	__u64 lost_nested;
	__u64 truncated;
	__u64 read;
	__u64 sequence;
	__u64 produced;
	__u64 consumed;
};

#define KETW_CPU_STATS_SIZE_VER0	120

/* POSIX stream status values (struct ketw_session_status). */
#define KETW_FULL_NOT_FULL	0
#define KETW_FULL_FULL		1
#define KETW_OVERRUN_NONE	0
#define KETW_OVERRUN_OVERRUN	1
#define KETW_FLUSH_NOT_FLUSHING	0
#define KETW_FLUSH_FLUSHING	1

/**
 * struct ketw_session_status - POSIX trace stream status, plus totals
 * @size:           sizeof(struct ketw_session_status) as the caller knows it.
 * @reserved0:      must be 0.
 * @name:           in: the session.
 * @state:          KETW_STATE_* (POSIX running / suspended).
 * @full_status:    KETW_FULL_FULL if a buffer is full: for LOOP, once it
 *                  has overwritten a record; otherwise while a buffer has
 *                  no room for the largest record.
 * @overrun_status: KETW_OVERRUN_OVERRUN if an event was lost or overwritten
 *                  since the last STATUS call; reading resets it.
 * @flush_status:   KETW_FLUSH_FLUSHING while a KETW_IOC_FLUSH runs.
 * @flush_error:    the first error of a flush (a negative errno), 0 if
 *                  none; reading resets it.
 * @auto_stopped:   1 if the full policy (UNTIL_FULL) stopped the session.
 * @nr_cpus:        number of per-CPU buffers.
 * @written:        records stored, summed over CPUs.
 * @lost:           events lost, all reasons, summed over CPUs.
 * @overwritten:    records LOOP overwrote, summed over CPUs.
 */
struct ketw_session_status {
	__u32 size;
	__u32 reserved0;
	char  name[KETW_NAME_MAX];
	__u32 state;
	__u32 full_status;
	__u32 overrun_status;
	__u32 flush_status;
	__s32 flush_error;
	__u32 auto_stopped;
	__u32 nr_cpus;
	__u32 reserved1;
	__u64 written;
	__u64 lost;
	__u64 overwritten;
};

#define KETW_SESSION_STATUS_SIZE_VER0	96

/**
 * struct ketw_snapshot - copy one CPU's buffer without consuming it
 * @size:      sizeof(struct ketw_snapshot) as the caller knows it.
 * @cpu:       in: the CPU.
 * @name:      in: the session.
 * @buf:       in: user address of the destination.
 * @buf_len:   in: its size; at least the per-CPU buffer size.
 * @len:       out: bytes copied: whole records (padding records included,
 *             flagged KETW_RECORD_PADDING), oldest first.
 * @dropped:   out: bytes of the oldest records that writers overwrote (or
 *             a reader consumed) while the copy was made, and that were
 *             therefore left out of its front.
 *
 * Meant for LOOP sessions that keep running (a flight recorder); works on
 * any session. The copy is consistent: every record in it is whole.
 */
struct ketw_snapshot {
	__u32 size;
	__u32 cpu;
	char  name[KETW_NAME_MAX];
	__u64 buf;
	__u64 buf_len;
	__u64 len;
	__u64 dropped;
};

#define KETW_SNAPSHOT_SIZE_VER0	72

/*
 * mmap layout. CPU n's area starts at offset KETW_MMAP_CPU(n): first its
 * meta page (one page; map it shared, read-write), then, at the
 * meta page's data_offset, its data area (data_size bytes; map it shared
 * and read-only). Any other offset, length or protection is refused.
 */
#define KETW_MMAP_CPU_SHIFT	32
#define KETW_MMAP_CPU(n)	((__u64)(n) << KETW_MMAP_CPU_SHIFT)
#define KETW_META_VERSION	1

/**
 * struct ketw_meta_page - one CPU's buffer state, shared with the reader
 * @version:     KETW_META_VERSION.
 * @meta_size:   bytes of this struct the kernel maintains.
 * @cpu:         the CPU.
 * @policy:      the session's KETW_POLICY_*.
 * @data_offset: mmap offset of the data area.
 * @data_size:   bytes in the data area, a power of two.
 * @watermark:   bytes pending at which readers are woken.
 * @commit:      kernel: records below this position are complete (a
 *               copy: the kernel never reads it back).
 * @oldest:      LOOP: the reader's claim, the first record neither read
 *               nor overwritten. The reader and writers move it with
 *               compare-and-swap: a reader copies the record at @oldest,
 *               then swaps @oldest to the next record; if the swap fails
 *               a writer took the record (and counted it in
 *               @overwritten) and the copy is void.
 * @reserved0:   0.
 * @written:     kernel: records stored.
 * @lost_full:   kernel: events lost for lack of room.
 * @lost_busy:   kernel: events lost to a record still being written.
 * @lost_nested: kernel: events lost to the recursion guard.
 * @overwritten: kernel: records LOOP overwrote.
 * @truncated:   kernel: records stored with a cut payload.
 * @resyncs:     kernel: times read() found @consumed or @oldest invalid
 *               (misaligned, ahead of @commit, more than a buffer behind
 *               it, or not on a record) and went on from a position it
 *               knows: the writers' oldest in LOOP, @commit otherwise.
 * @reserved1:   0.
 * @consumed:    UNTIL_FULL, FLUSH: the reader (on its own cache line) has
 *               used the records below this position; writers never
 *               overwrite unconsumed bytes. Unused in LOOP.
 * @reserved2:   0.
 * @read:        kernel: records consumed through read().
 *
 * Positions are byte counts modulo 2^32; a record at position p starts at
 * data offset p & (data_size - 1) and never wraps. Load @commit with
 * acquire semantics, store @consumed with release semantics.
 *
 * The page is mapped writable for @consumed and @oldest only; the kernel
 * validates every value it loads from them and trusts nothing else here
 * (Documentation/ketw-lifetimes.rst). A wrong value costs the session's
 * own records, counted in @resyncs, @overwritten or @lost_full.
 */
struct ketw_meta_page {
	__u32 version;
	__u32 meta_size;
	__u32 cpu;
	__u32 policy;
	__u64 data_offset;
	__u32 data_size;
	__u32 watermark;
	__u32 commit;
	__u32 oldest;
	__u32 reserved0[2];
	__u64 written;
	__u64 lost_full;
	__u64 lost_busy;
	__u64 lost_nested;
	__u64 overwritten;
	__u64 truncated;
	__u64 resyncs;
	__u64 reserved1[3];
	__u32 consumed;
	__u32 reserved2;
	__u64 read;
};

#define KETW_IOC_MAGIC	0xE7

/*
 * CREATE makes a session and attaches this file to it; ATTACH attaches
 * this file to an existing session. read(), poll() and mmap() on an
 * attached file drain that session. START, STOP and DESTROY act on the
 * named session; DESTROY fails with EBUSY while another file is attached
 * to it. FLUSH logs FLUSH_START, waits until readers have consumed what
 * was there, and logs FLUSH_STOP (ERROR too if it timed out).
 */
#define KETW_IOC_CREATE		_IOWR(KETW_IOC_MAGIC, 1, struct ketw_session_attr)
#define KETW_IOC_START		_IOW(KETW_IOC_MAGIC, 2, struct ketw_session_ref)
#define KETW_IOC_STOP		_IOW(KETW_IOC_MAGIC, 3, struct ketw_session_ref)
#define KETW_IOC_DESTROY	_IOW(KETW_IOC_MAGIC, 4, struct ketw_session_ref)
#define KETW_IOC_ATTACH		_IOW(KETW_IOC_MAGIC, 5, struct ketw_session_ref)
#define KETW_IOC_GET_ATTR	_IOWR(KETW_IOC_MAGIC, 6, struct ketw_session_attr)
#define KETW_IOC_CPU_STATS	_IOWR(KETW_IOC_MAGIC, 7, struct ketw_cpu_stats)
#define KETW_IOC_STATUS		_IOWR(KETW_IOC_MAGIC, 8, struct ketw_session_status)
#define KETW_IOC_SNAPSHOT	_IOWR(KETW_IOC_MAGIC, 9, struct ketw_snapshot)
#define KETW_IOC_FLUSH		_IOW(KETW_IOC_MAGIC, 10, struct ketw_session_ref)
#define KETW_IOC_ENABLE		_IOW(KETW_IOC_MAGIC, 11, struct ketw_enable)
#define KETW_IOC_GET_FILTER	_IOWR(KETW_IOC_MAGIC, 12, struct ketw_enable)
#define KETW_IOC_PROVIDERS	_IOWR(KETW_IOC_MAGIC, 13, struct ketw_list)
#define KETW_IOC_EVENTS		_IOWR(KETW_IOC_MAGIC, 14, struct ketw_list)
#define KETW_IOC_RUNDOWN	_IOW(KETW_IOC_MAGIC, 15, struct ketw_session_ref)
#define KETW_IOC_USER_REGISTER	_IOW(KETW_IOC_MAGIC, 16, struct ketw_user_provider)
#define KETW_IOC_USER_WRITE	_IOW(KETW_IOC_MAGIC, 17, struct ketw_user_event)

#endif /* _UAPI_LINUX_KETW_H */
