/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ketw - ETW-class event tracing for Linux: the user-space ABI.
 *
 * This is the only header shared by the kernel module and user space.
 * Everything here is fixed-width, naturally aligned and explicitly padded.
 * Extensible structures have a __u32 size, first (but in struct
 * ketw_pid_filter, which names its session first): the kernel accepts
 * older (shorter) and newer (longer) versions; a longer one must have a
 * zeroed tail, otherwise the ioctl fails with E2BIG.
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
 * (size - KETW_EVENT_HEADER_SIZE) bytes: the payload, preceded by an area
 * of extended data items when @flags has KETW_RECORD_EXT (see struct
 * ketw_ext_header). Records start on
 * KETW_RECORD_ALIGN boundaries: the next record begins at
 * KETW_RECORD_SPAN(size) bytes after this one.
 *
 * @size:          header, items and payload in bytes (ETW's Size). The
 *                 payload is never more than the session's max_data_size.
 * @type:          event type (ETW Class.Type): KETW_TYPE_*.
 * @level:         event level (ETW Class.Level): KETW_LEVEL_*.
 * @version:       version of the event's payload layout (ETW Class.Version).
 * @flags:         KETW_RECORD_* flags, and the execution context the
 *                 event was logged from (see "Record flags" below).
 * @event_id:      the provider's id of the event (descriptor id), or a
 *                 KETW_SYS_* id when KETW_RECORD_SYSTEM is set.
 * @cpu:           the CPU whose buffer holds the record, i.e. the CPU that
 *                 logged it.
 * @thread_id:     the logging task's thread id (kernel pid) in the initial
 *                 pid namespace; 0 in interrupt context.
 * @process_id:    the logging task's process id (kernel tgid) in the
 *                 initial pid namespace; 0 in interrupt context. A task
 *                 in another pid namespace (a container) sees itself
 *                 under other numbers (getpid(), gettid()): these are
 *                 the host's, as in the rundown's KETW_SYS_TASK.
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
#define KETW_RECORD_EXT		_BITUL(8)  /* extended data items precede the payload */

/*
 * Extended data items (ETW's EVENT_HEADER_EXTENDED_DATA_ITEM), in records
 * flagged KETW_RECORD_EXT: right after the record header comes an items
 * area, a struct ketw_ext_header and @count items, then the payload. Each
 * item is a struct ketw_ext_item and @size bytes of data, padded with
 * zeros to a multiple of 8. The payload is the record's last
 * (size - KETW_EVENT_HEADER_SIZE - ext.size) bytes. A reader skips items
 * of a type it does not know: it has their size.
 *
 * Items are opt-in, per session and per enabled provider (ETW's
 * EnableProperty): struct ketw_enable's @ext_items, and for providers a
 * session takes without an ENABLE, struct ketw_session_attr's
 * @ext_items; both are masks of KETW_EXT_BIT(type). The kernel logs the
 * items it can in the event's context: those marked "task" below are
 * left out of events logged in interrupt context (softirq, hardirq,
 * NMI). Items are never cut: a session's max_data_size bounds the
 * payload alone. Only when items and payload together would make a
 * record larger than the session allows (half a per-CPU buffer minus
 * KETW_SYSTEM_RESERVE, and 0xfff8 bytes) is the payload cut to fit and
 * the record flagged KETW_RECORD_TRUNCATED.
 *
 * Kernel addresses in items (stacks, program addresses) are as they are
 * in the running kernel: only CAP_SYS_ADMIN reads sessions.
 *
 * @size:     bytes of the whole area, this header included; a multiple
 *            of 8, at most KETW_EXT_MAX_SIZE.
 * @count:    items that follow.
 * @reserved: 0.
 */
struct ketw_ext_header {
	__u16 size;
	__u16 count;
	__u32 reserved;
};

/**
 * struct ketw_ext_item - the header of one extended data item
 * @type:     KETW_EXT_*.
 * @size:     bytes of data that follow (the padding to 8 not included).
 * @reserved: 0.
 */
struct ketw_ext_item {
	__u16 type;
	__u16 size;
	__u32 reserved;
};

/*
 * Item types. Items come in increasing order of type, each at most once.
 *
 * KSTACK     __u64 return addresses of the kernel stack where the event
 *            was logged, innermost first, at most KETW_EXT_STACK_MAX;
 *            ketw's own frames are left out, so the first is in the
 *            provider's function that called ketw_write().
 * USTACK     (task) __u64 user-space return addresses of the logging task,
 *            innermost first (the first is where it entered the kernel),
 *            at most KETW_EXT_STACK_MAX; walked through frame pointers.
 * CPU_TIME   (task) struct ketw_ext_cpu_time.
 * PROG_ADDR  __u64, the trace point's program address (POSIX
 *            posix_prog_address): for kernel providers the return address
 *            into the function that called ketw_write(); for user
 *            providers struct ketw_user_event's @prog_addr (left out if 0).
 * PID_NS     (task) struct ketw_ext_pid_ns.
 * ACTIVITY   struct ketw_ext_activity, only on events logged with an
 *            activity id (ketw_write_activity(), struct ketw_user_event).
 */
#define KETW_EXT_KSTACK		1
#define KETW_EXT_USTACK		2
#define KETW_EXT_CPU_TIME	3
#define KETW_EXT_PROG_ADDR	4
#define KETW_EXT_PID_NS		5
#define KETW_EXT_ACTIVITY	6
#define KETW_EXT_MAX_TYPE	KETW_EXT_ACTIVITY

#define KETW_EXT_BIT(type)	_BITUL(type)
#define KETW_EXT_ALL		(_BITUL(KETW_EXT_MAX_TYPE + 1) - 2)
#define KETW_EXT_STACK_MAX	32

/**
 * struct ketw_ext_cpu_time - the logging thread's CPU time (ETW's
 * KernelTime and UserTime): the difference between two events of one
 * thread is the CPU it used between them.
 * @kernel_ns:  time spent in the kernel (stime), sampled by the tick.
 * @user_ns:    time spent in user space (utime), sampled by the tick.
 * @runtime_ns: time on a CPU (the scheduler's sum_exec_runtime), exact at
 *              the last tick or context switch.
 */
struct ketw_ext_cpu_time {
	__u64 kernel_ns;
	__u64 user_ns;
	__u64 runtime_ns;
};

/**
 * struct ketw_ext_pid_ns - the logging task as its own pid namespace sees
 * it (LTTng's vpid, vtid and pid_ns contexts)
 * @vpid:        its process id (tgid) there.
 * @vtid:        its thread id there.
 * @pid_ns_inum: the namespace's inode number (as /proc/PID/ns/pid shows).
 */
struct ketw_ext_pid_ns {
	__u32 vpid;
	__u32 vtid;
	__u64 pid_ns_inum;
};

#define KETW_ACTIVITY_ID_SIZE	16

/**
 * struct ketw_ext_activity - the event's activity (ETW's ActivityId and
 * RelatedActivityId): one piece of work followed across threads and CPUs
 * @activity: the activity the event belongs to.
 * @related:  the activity that started it, or all zero.
 */
struct ketw_ext_activity {
	__u8 activity[KETW_ACTIVITY_ID_SIZE];
	__u8 related[KETW_ACTIVITY_ID_SIZE];
};

/* The largest items area: every item, stacks full. */
#define KETW_EXT_ITEM_SPAN(size)	(8 + (((size) + 7) & ~7))
#define KETW_EXT_MAX_SIZE					\
	(8 + 2 * KETW_EXT_ITEM_SPAN(8 * KETW_EXT_STACK_MAX) +	\
	 KETW_EXT_ITEM_SPAN(sizeof(struct ketw_ext_cpu_time)) +	\
	 KETW_EXT_ITEM_SPAN(8) +				\
	 KETW_EXT_ITEM_SPAN(sizeof(struct ketw_ext_pid_ns)) +	\
	 KETW_EXT_ITEM_SPAN(sizeof(struct ketw_ext_activity)))

/*
 * The execution context of the call that logged the record, as ftrace's
 * latency fields: set in every record but padding, system events and
 * rundown records included (theirs is where the kernel logged them).
 *
 * KETW_RECORD_CTX_MASK (bits 4-5): the innermost context, KETW_CTX_*:
 * TASK; SOFTIRQ while serving a softirq (in_serving_softirq(): a task
 * with bottom halves only disabled is TASK); HARDIRQ; NMI.
 * KETW_RECORD_IRQS_OFF: local interrupts were disabled at the call site.
 * KETW_RECORD_NEED_RESCHED: the task had TIF_NEED_RESCHED set (ftrace's
 * 'N').
 * KETW_RECORD_PREEMPT_MASK (bits 12-15): the caller's preemption depth
 * (preempt_count() & PREEMPT_MASK, without what ketw's write path adds),
 * 15 for 15 and more.
 *
 * Bit 8 is reserved for extended data items (KETW_RECORD_EXT); bits 9-11
 * are 0. Files say whether these bits are valid (an older writer left
 * them 0): Documentation/ketw-file-format.rst, KETW_FILE_F_RECORD_CTX.
 */
#define KETW_RECORD_CTX_SHIFT	4
#define KETW_RECORD_CTX_MASK	(3U << KETW_RECORD_CTX_SHIFT)
#define KETW_RECORD_IRQS_OFF	_BITUL(6)
#define KETW_RECORD_NEED_RESCHED _BITUL(7)
/* _BITUL(8): reserved for KETW_RECORD_EXT (extended data items follow). */
#define KETW_RECORD_PREEMPT_SHIFT 12
#define KETW_RECORD_PREEMPT_MASK (15U << KETW_RECORD_PREEMPT_SHIFT)
#define KETW_RECORD_PREEMPT_MAX	15

/* Every context bit of @flags, as a mask. */
#define KETW_RECORD_CONTEXT_BITS \
	(KETW_RECORD_CTX_MASK | KETW_RECORD_IRQS_OFF | \
	 KETW_RECORD_NEED_RESCHED | KETW_RECORD_PREEMPT_MASK)

/* Decoding: the KETW_CTX_* and the preemption depth of a record's flags. */
#define KETW_RECORD_CTX(flags) \
	(((flags) & KETW_RECORD_CTX_MASK) >> KETW_RECORD_CTX_SHIFT)
#define KETW_RECORD_PREEMPT_DEPTH(flags) \
	(((flags) & KETW_RECORD_PREEMPT_MASK) >> KETW_RECORD_PREEMPT_SHIFT)

/* Execution contexts (KETW_RECORD_CTX()). */
#define KETW_CTX_TASK		0
#define KETW_CTX_SOFTIRQ	1  /* serving a softirq */
#define KETW_CTX_HARDIRQ	2
#define KETW_CTX_NMI		3

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
#define KETW_SYS_TRIGGER	9  /* payload: struct ketw_sys_trigger */
/* Rundown (type KETW_TYPE_DC_START): the registry, so a trace decodes alone. */
#define KETW_SYS_PROVIDER	16 /* payload: struct ketw_sys_provider */
#define KETW_SYS_EVENT_DESC	17 /* payload: struct ketw_event_info */
#define KETW_SYS_TASK		18 /* payload: struct ketw_sys_task */
#define KETW_SYS_MODULE		19 /* payload: struct ketw_sys_module */

/* The all-zero GUID stamped on system events. */
#define KETW_SYSTEM_PROVIDER_NAME "ketw"

struct ketw_sys_start {
	__u32 level;		/* the session's default filter */
	__u32 reserved;
	__u64 match_any;
	__u64 match_all;
};

struct ketw_sys_stop {
	__u32 auto_stop;	/* KETW_STOP_*: who stopped the session */
	__u32 reserved;
};

#define KETW_STOP_EXPLICIT	0	/* STOP, DESTROY, ketwfs enable 0 */
#define KETW_STOP_FULL		1	/* the full policy (UNTIL_FULL) */
#define KETW_STOP_TRIGGER	2	/* a trigger's KETW_TRIGGER_STOP */

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

/**
 * struct ketw_sys_trigger - TRIGGER: a trigger fired (struct ketw_trigger)
 * @trigger_id:    the trigger's id in its session.
 * @event_id:      the id of the event that fired it.
 * @provider_guid: that event's provider.
 * @sequence:      that event's record's sequence number on @cpu.
 * @cpu:           the CPU that logged it; the TRIGGER record follows it
 *                 in that CPU's buffer.
 * @fired:         times this trigger fired so far, this one included.
 * @suppressed:    matching events the rate limit left out since the
 *                 trigger last fired.
 * @action:        KETW_TRIGGER_WAKE, _STOP or _SNAPSHOT: what follows.
 */
struct ketw_sys_trigger {
	__u32 trigger_id;
	__u32 event_id;
	__u8  provider_guid[KETW_GUID_SIZE];
	__u64 sequence;
	__u32 cpu;
	__u32 fired;
	__u32 suppressed;
	__u32 action;
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

/*
 * FILTER: a running session's filter for a provider changed. Its
 * record's version is 0 (KETW_SYS_FILTER_PROVIDER) and its payload a
 * struct ketw_sys_filter.
 */
struct ketw_sys_filter {
	__u8  provider_guid[KETW_GUID_SIZE];
	struct ketw_filter old_filter;
	struct ketw_filter new_filter;
};

/* FILTER records' version: which filter changed, so which payload. */
#define KETW_SYS_FILTER_PROVIDER	0	/* struct ketw_sys_filter */
#define KETW_SYS_FILTER_PIDS		1	/* struct ketw_sys_filter_pids */

/* Process ids a FILTER record of a process filter lists, at most. */
#define KETW_SYS_FILTER_PIDS_MAX	64

/**
 * struct ketw_sys_filter_pids - FILTER: a session's process filter changed
 * @old_flags: the filter replaced: KETW_PIDS_INHERIT, and
 *             KETW_PIDS_ACTIVE if there was one (else the session traced
 *             every process).
 * @old_count: processes it held.
 * @new_flags: the new filter, as @old_flags (no KETW_PIDS_ACTIVE: the
 *             session traces every process from now on).
 * @new_count: processes it holds.
 * @nr:        entries of @pids: @new_count, at most
 *             KETW_SYS_FILTER_PIDS_MAX (so that the payload stays
 *             smaller than a struct ketw_sys_filter, which a reader that
 *             does not look at the version would take it for).
 * @reserved:  0.
 * @pids:      the first @nr processes of the new filter, by process id in
 *             the initial pid namespace, as records' process_id.
 *
 * Logged (record version KETW_SYS_FILTER_PIDS) by each KETW_IOC_SET_PIDS
 * on a running session, not when a child joins or a process leaves.
 */
struct ketw_sys_filter_pids {
	__u32 old_flags;
	__u32 old_count;
	__u32 new_flags;
	__u32 new_count;
	__u32 nr;
	__u32 reserved;
	__u32 pids[];
};

struct ketw_sys_provider {
	__u8  provider_guid[KETW_GUID_SIZE];
	char  name[KETW_NAME_MAX];
	__u32 nr_events;
	__u32 flags;			/* KETW_PROVIDER_* */
};

/*
 * A rundown's KETW_SYS_TASK: one per thread, with its ids in the initial
 * pid namespace (as the records' process_id and thread_id), whatever
 * namespace the thread or the session's controller is in.
 */
#define KETW_TASK_COMM_LEN	16
struct ketw_sys_task {
	__u32 process_id;
	__u32 thread_id;
	char  comm[KETW_TASK_COMM_LEN];
};

/**
 * struct ketw_sys_module - where code is loaded, for decoders of addresses
 * @name: "vmlinux", or a module's name; NUL-terminated.
 * @base: the start of its core text (vmlinux: of the range the kernel
 *        image may lie in).
 * @size: bytes of it.
 *
 * The rundown lists vmlinux and every loaded module, so that addresses in
 * stack and program address items can be shown as module+offset from the
 * trace alone (and symbolised with the module's symbols).
 */
#define KETW_MODULE_NAME_MAX	56
struct ketw_sys_module {
	char  name[KETW_MODULE_NAME_MAX];
	__u64 base;
	__u64 size;
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
 * @ext_items: VER1: the extended data items the session's records of the
 *            provider carry, a mask of KETW_EXT_BIT(KETW_EXT_*); unknown
 *            bits are EINVAL. GET_FILTER returns it.
 * @reserved: 0.
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
	__u32 ext_items;
	__u32 reserved;
};

#define KETW_ENABLE_SIZE_VER0	240
#define KETW_ENABLE_SIZE_VER1	248

#define KETW_MAX_ENABLES	64	/* providers enabled in one session */

/* Flags of struct ketw_trigger. */
#define KETW_TRIGGER_FIELD	_BITUL(0)	/* also match @field == @value */
#define KETW_TRIGGER_USER	_BITUL(1)	/* @guid names a user provider */
#define KETW_TRIGGER_FLAGS	(KETW_TRIGGER_FIELD | KETW_TRIGGER_USER)

/* Actions of struct ketw_trigger. */
#define KETW_TRIGGER_WAKE	1	/* only wake the session's readers */
#define KETW_TRIGGER_STOP	2	/* stop the session after post_ms */
#define KETW_TRIGGER_SNAPSHOT	3	/* after post_ms, a snapshot is ready */

#define KETW_TRIGGER_POST_MAX		60000	/* ms */
#define KETW_TRIGGER_INTERVAL_DEFAULT	1000	/* ms, for min_interval_ms 0 */
#define KETW_TRIGGER_INTERVAL_MAX	3600000	/* ms */
#define KETW_MAX_TRIGGERS		16	/* per session */

/**
 * struct ketw_trigger - arm (TRIGGER_ADD) or remove (TRIGGER_DEL) a trigger
 * @size:     sizeof(struct ketw_trigger) as the caller knows it.
 * @flags:    KETW_TRIGGER_*.
 * @session:  the session's name.
 * @provider: the provider's name, or "" to name it by @guid (a user
 *            provider's with KETW_TRIGGER_USER), as struct ketw_enable.
 * @guid:     the provider's GUID when @provider is "".
 * @event_id: the event that fires it.
 * @level:    fires only for an event of level <= @level; 0: any level.
 * @action:   KETW_TRIGGER_WAKE, _STOP or _SNAPSHOT.
 * @post_ms:  STOP, SNAPSHOT: the delay after the firing event, 0 to
 *            KETW_TRIGGER_POST_MAX; 0 for WAKE.
 * @min_interval_ms: the rate limit: after a fire, matching events within
 *            this many ms are counted as suppressed, not fired; 0 means
 *            KETW_TRIGGER_INTERVAL_DEFAULT (ADD returns the value used).
 * @id:       ADD: out (ignored in), the trigger's id in its session,
 *            from 1; DEL: in, the trigger to remove, 0 for all of the
 *            session's. DEL reads only @session and @id.
 * @field:    KETW_TRIGGER_FIELD: the name of an integer field of the
 *            event's descriptor (u8..s64, hex32, hex64); "" otherwise.
 * @value:    KETW_TRIGGER_FIELD: fires only when @field equals it (a
 *            signed field sign-extended to 64 bits).
 *
 * A trigger sees the events its session takes (after the session's
 * filters) and stores; it fires on each outside the rate limit, logs
 * TRIGGER (struct ketw_sys_trigger) right after the event, on its CPU,
 * and then does @action, from process context. A provider named by
 * name must be registered when the trigger is armed; so must one whose
 * @field is looked up. ADD fails with ENOENT for an unknown provider,
 * event or field, EINVAL for a non-integer field or a bad value, ENOSPC
 * past KETW_MAX_TRIGGERS. Triggers stay armed across STOP and START,
 * until DEL or DESTROY; ketwfs lists them (sessions/NAME/trigger).
 */
struct ketw_trigger {
	__u32 size;
	__u32 flags;
	char  session[KETW_NAME_MAX];
	char  provider[KETW_NAME_MAX];
	__u8  guid[KETW_GUID_SIZE];
	__u32 event_id;
	__u32 level;
	__u32 action;
	__u32 post_ms;
	__u32 min_interval_ms;
	__u32 id;
	char  field[KETW_FIELD_NAME_MAX];
	__u64 value;
};

#define KETW_TRIGGER_SIZE_VER0	144

/*
 * Process filter (ETW's PID filter, ftrace's set_event_pid, the pid of
 * POSIX's posix_trace_create() and its POSIX_TRACE_INHERITED): a session
 * with one stores only the events logged while the current task belongs
 * to one of its processes (thread groups), whatever the context the
 * event is logged from (an interrupt counts for the task it
 * interrupted), from kernel and user providers alike. System events are
 * never filtered. Processes leave the filter when they end (their last
 * thread exits), so a recycled pid is not traced; a filter whose
 * processes all ended takes no event until it is set again.
 */
#define KETW_PIDS_MAX		1024	/* processes a filter holds, inherited children included */
#define KETW_PIDS_INHERIT	_BITUL(0)	/* also trace children forked after the set */
#define KETW_PIDS_ACTIVE	_BITUL(31)	/* GET: the session has a process filter */

/**
 * struct ketw_pid_filter - set (SET_PIDS) or read (GET_PIDS) a session's
 * process filter
 * @session:  the session's name.
 * @size:     sizeof(struct ketw_pid_filter) as the caller knows it
 *            (extensible, though not the first field).
 * @flags:    SET: KETW_PIDS_INHERIT or 0; GET: out, KETW_PIDS_INHERIT
 *            and KETW_PIDS_ACTIVE as the filter has them (0: the session
 *            traces every process).
 * @count:    SET: pids given, at most KETW_PIDS_MAX; 0 = trace every
 *            process again. GET: out, processes the filter holds now
 *            that the caller's pid namespace can see (may exceed
 *            @capacity: call again with more room).
 * @capacity: GET: entries @pids has room for (0: only learn @count);
 *            SET: ignored.
 * @pids:     user address of an array of __s32, process ids (thread
 *            group ids) in the caller's pid namespace. GET writes the
 *            first min(@count, @capacity), smallest first.
 *
 * SET replaces the filter whole, at once for every provider, running or
 * not; on a running session it logs FILTER (struct ketw_sys_filter_pids),
 * unless it clears a session that had no filter.
 * Every pid must name a live process the caller's pid namespace sees
 * (its process id, not another thread's id): ESRCH otherwise; a pid
 * given twice counts once. With KETW_PIDS_INHERIT, a process forked by
 * a process of the filter after the set joins it, up to KETW_PIDS_MAX
 * (children beyond are counted in struct ketw_session_status's
 * @pids_dropped). GET reports ids in the caller's pid namespace: a
 * process it cannot see (a parent namespace's) is left out of @count
 * and @pids. SET: EINVAL for @count above KETW_PIDS_MAX, a pid 0 or
 * negative, unknown @flags or KETW_PIDS_INHERIT with @count 0; ESRCH;
 * EFAULT; ENOENT for no such session; ENOMEM. The filter goes with its
 * session (DESTROY).
 */
struct ketw_pid_filter {
	char  session[KETW_NAME_MAX];
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 capacity;
	__u64 pids;
};

#define KETW_PID_FILTER_SIZE_VER0	56

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
 * The registration belongs to the file it was made on, one per file
 * (EBUSY for a second), and goes away when that file is closed.
 * Registrations of the same @name by the same user id (in the initial
 * user namespace) with the same @guid and byte-identical @events share
 * one provider, whatever process makes them: it stays while any of them
 * does, takes every registration's events (each record with the
 * writer's own process and thread ids) and has one enable page, which
 * every registration maps. Each registration counts against the user's
 * user_max_providers (ENOSPC). Another user id, another GUID or other
 * descriptors under a registered name, or a GUID another provider has
 * (a kernel provider's, or a user provider's of another name), is
 * EEXIST: KETW_IOC_USER_CONFLICT then says which.
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

/**
 * struct ketw_user_conflict - why this file's last USER_REGISTER was EEXIST
 * @size:   sizeof(struct ketw_user_conflict) as the caller knows it.
 * @reason: out: KETW_USER_CONFLICT_*; KETW_USER_CONFLICT_NONE if the
 *          file's last KETW_IOC_USER_REGISTER did not fail with EEXIST
 *          (or it made none).
 *
 * An errno cannot say which rule a registration broke; this can, for
 * the registration this file just tried. It says nothing about other
 * users' providers beyond that.
 */
struct ketw_user_conflict {
	__u32 size;
	__u32 reason;
};

#define KETW_USER_CONFLICT_SIZE_VER0	8

#define KETW_USER_CONFLICT_NONE		0
#define KETW_USER_CONFLICT_OTHER_USER	1  /* the name is another user id's */
#define KETW_USER_CONFLICT_OTHER_GUID	2  /* the name has another GUID */
#define KETW_USER_CONFLICT_OTHER_EVENTS	3  /* the name has other descriptors */
#define KETW_USER_CONFLICT_GUID_TAKEN	4  /* another provider has the GUID */

/*
 * The enable page. mmap() of one page at offset 0, read-only and shared
 * (MAP_SHARED), on a /dev/ketw_user file with a registered provider maps
 * a struct ketw_user_enable_page the kernel rewrites whenever the
 * sessions that take that provider change. Every registration of a
 * provider maps the same page. A writable mapping fails with EPERM; a
 * private (MAP_PRIVATE), larger or offset one with EINVAL; one before
 * USER_REGISTER with ENODEV. madvise(MADV_DONTNEED) on it is harmless:
 * the next read maps the page again. A disabled call site costs a load
 * and a test, with no system call:
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
 * @prog_addr: VER1: the trace point's program address (the PROG_ADDR
 *            item), or 0.
 * @activity: VER1: the event's activity id (the ACTIVITY item), or all
 *            zero for none.
 * @related:  VER1: the activity that started @activity, or all zero.
 *
 * The record's thread and process ids are the caller's (in the initial
 * pid namespace), set by the kernel, as are the items that describe it
 * (stacks, CPU time, pid namespace). The ioctl returns the number of
 * sessions that stored it. A file opened without CAP_SYS_ADMIN is held
 * to its user id's event and byte rates (module parameters
 * user_max_events, user_max_bytes): an event past them is EAGAIN and
 * not logged. Only an event some session takes after its filters (level,
 * keywords, event set), or that the ftrace event ketw:ketw_event takes,
 * counts against them.
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
	__u64 prog_addr;
	__u8  activity[KETW_ACTIVITY_ID_SIZE];
	__u8  related[KETW_ACTIVITY_ID_SIZE];
};

#define KETW_USER_EVENT_SIZE_VER0	40
#define KETW_USER_EVENT_SIZE_VER1	80

/**
 * struct ketw_user_writev - log an event through this file's user
 * provider, its payload gathered from iovecs (KETW_IOC_USER_WRITEV)
 * @id:        event id.
 * @type:      KETW_TYPE_*.
 * @level:     KETW_LEVEL_* (EINVAL above KETW_LEVEL_VERBOSE).
 * @version:   payload layout version.
 * @keyword:   keyword bits.
 * @iov:       user address of @iovcnt struct iovec: the payload is their
 *             bytes one after the other, at most KETW_MAX_DATA_SIZE in
 *             all (EINVAL above).
 * @iovcnt:    entries in @iov, at most KETW_USER_IOV_MAX (EINVAL above);
 *             0: no payload.
 * @flags:     KETW_USER_WRITEV_* (EINVAL for another bit).
 * @prog_addr: the trace point's program address (the PROG_ADDR item), or
 *             0.
 * @activity:  with KETW_USER_WRITEV_ACTIVITY: the event's activity id
 *             (the ACTIVITY item), all zero for none; not read without.
 * @related:   with it: the activity that started @activity, or all zero.
 *
 * The same event as struct ketw_user_event's, with one difference: while
 * no running session takes the provider, the request returns 0 without
 * reading @iov or the payload (libketw's enable page test says as much
 * without a system call). The request is fixed in size: a new field
 * comes with a new flag, or a new ioctl.
 */
struct ketw_user_writev {
	__u32 id;
	__u8  type;
	__u8  level;
	__u16 version;
	__u64 keyword;
	__u64 iov;
	__u32 iovcnt;
	__u32 flags;
	__u64 prog_addr;
	__u8  activity[KETW_ACTIVITY_ID_SIZE];
	__u8  related[KETW_ACTIVITY_ID_SIZE];
};

/* The request has @activity and @related. */
#define KETW_USER_WRITEV_ACTIVITY	_BITUL(0)
#define KETW_USER_WRITEV_FLAGS		KETW_USER_WRITEV_ACTIVITY

/* Most iovecs in one KETW_IOC_USER_WRITEV (as writev()'s UIO_MAXIOV). */
#define KETW_USER_IOV_MAX	1024

/*
 * /dev/ketw_user: a second node, mode 0666, that takes only the user
 * provider ioctls (USER_REGISTER, USER_WRITE, USER_WRITEV,
 * USER_CONFLICT). Opening it needs CAP_SYS_ADMIN in the initial user
 * namespace, or membership of the group given by ketw's module parameter
 * user_gid (default: none).
 * /dev/ketw (0600), which controls sessions, and ketwfs need
 * CAP_SYS_ADMIN in the initial user namespace: a process that is root
 * only in its own user namespace (a container's) controls nothing.
 * Capabilities are checked when the file is opened.
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
 * @ext_items:     extended data items of the records of the providers the
 *                 session takes without an ENABLE (struct ketw_enable's
 *                 @ext_items for those it enables); unknown bits EINVAL.
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
	__u32 ext_items;
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
 *
 * WAKE_ANY: poll() and epoll report the session readable as soon as any
 * record is pending, not at the watermark: for a live reader that wants
 * each event at once (an analyzer's getnext) more than it minds being
 * woken per record. Writers then queue a wakeup for each record they
 * commit while a reader sleeps. Like the watermark, a wakeup a writer
 * races with can be missed, so a reader also bounds its wait.
 */
#define KETW_SESSION_NO_RUNDOWN	_BITUL(0)
#define KETW_SESSION_OWNED	_BITUL(1)
#define KETW_SESSION_WAKE_ANY	_BITUL(2)
#define KETW_SESSION_FLAGS	(KETW_SESSION_NO_RUNDOWN | KETW_SESSION_OWNED | \
				 KETW_SESSION_WAKE_ANY)

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
 * @triggers_fired: (VER1) times the session's triggers fired, all of
 *                  them, since it was created.
 * @snapshots_ready: (VER1) snapshots that triggers made ready: incremented
 *                  when a KETW_TRIGGER_SNAPSHOT's post delay ends (or its
 *                  session stops first).
 * @wakeups:        (VER1) KETW_TRIGGER_WAKE actions done.
 * @reserved2:      0.
 * @pids:           (VER2) processes the session's process filter holds
 *                  (all of them, whatever the caller's pid namespace
 *                  sees); 0 without a filter (struct ketw_pid_filter).
 * @pids_dropped:   (VER2) children its KETW_PIDS_INHERIT filters could
 *                  not take, being full (KETW_PIDS_MAX), since the
 *                  session was created.
 *
 * poll() on a /dev/ketw file attached to the session reports EPOLLPRI
 * while @snapshots_ready or @wakeups is above what the file last read
 * here: reading the status of the session it is attached to, through
 * that file, acknowledges what it reports. Attaching resets it to 0.
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
	__u32 triggers_fired;
	__u32 snapshots_ready;
	__u32 wakeups;
	__u32 reserved2;
	__u32 pids;
	__u32 pids_dropped;
};

#define KETW_SESSION_STATUS_SIZE_VER0	96
#define KETW_SESSION_STATUS_SIZE_VER1	112
#define KETW_SESSION_STATUS_SIZE_VER2	120

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

/* struct ketw_session_info flags. */
#define KETW_SESSION_INFO_ALL_PROVIDERS	_BITUL(0) /* never ENABLEd: takes every provider */

/**
 * struct ketw_session_info - one session, as KETW_IOC_SESSIONS lists it
 * @name:          the session's name.
 * @state:         KETW_STATE_*.
 * @policy:        KETW_POLICY_*.
 * @clock:         KETW_CLOCK_*.
 * @buffer_kb:     per-CPU data area in KiB.
 * @nr_cpus:       number of per-CPU buffers.
 * @session_flags: its KETW_SESSION_* flags (struct ketw_session_attr).
 * @info_flags:    KETW_SESSION_INFO_*.
 * @nr_providers:  providers the session enabled (0 with
 *                 KETW_SESSION_INFO_ALL_PROVIDERS: it takes them all).
 * @readers:       files attached to it (CREATE or ATTACH).
 * @level:         its default level (struct ketw_session_attr).
 * @max_data_size: payload bytes kept per event.
 * @reserved:      0.
 * @creation_time: CLOCK_REALTIME of creation, in ns.
 * @written:       records stored, summed over CPUs.
 * @lost:          events lost, all reasons, summed over CPUs.
 * @overwritten:   records LOOP overwrote, summed over CPUs.
 * @memory:        bytes its buffers take (struct ketw_session_attr).
 *
 * Listing resets nothing: the POSIX overrun status and flush error stay
 * for KETW_IOC_STATUS to report.
 */
struct ketw_session_info {
	char  name[KETW_NAME_MAX];
	__u32 state;
	__u32 policy;
	__u32 clock;
	__u32 buffer_kb;
	__u32 nr_cpus;
	__u32 session_flags;
	__u32 info_flags;
	__u32 nr_providers;
	__u32 readers;
	__u32 level;
	__u32 max_data_size;
	__u32 reserved;
	__u64 creation_time;
	__u64 written;
	__u64 lost;
	__u64 overwritten;
	__u64 memory;
};

#define KETW_SESSION_INFO_SIZE_VER0	120

/**
 * struct ketw_session_list - list every session (KETW_IOC_SESSIONS)
 * @size:       sizeof(struct ketw_session_list) as the caller knows it.
 * @capacity:   in: entries @entries can hold.
 * @count:      out: sessions there are (may exceed @capacity: call
 *              again with more room; sessions come and go meanwhile).
 * @entry_size: in: the caller's sizeof(struct ketw_session_info), at
 *              least KETW_SESSION_INFO_SIZE_VER0 and at most a page. Entry
 *              i is written at @entries + i * @entry_size: the fields the
 *              kernel knows, then zeroes up to @entry_size.
 * @entries:    user address of the array.
 *
 * Sessions come oldest first. Every session is listed, whoever created
 * it: /dev/ketw is for CAP_SYS_ADMIN only.
 */
struct ketw_session_list {
	__u32 size;
	__u32 capacity;
	__u32 count;
	__u32 entry_size;
	__u64 entries;
};

#define KETW_SESSION_LIST_SIZE_VER0	24

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

/*
 * The words for ketw's numbers, spelled once: ketwfs prints and parses
 * them, the "boot" module parameter takes them, and the tool reads and
 * shows them, so the module and libketw both build their tables from
 * these lists. Each list calls FN(value, "word") once per member, in
 * increasing order of value (the bpf.h mapper idiom):
 *
 *	#define KETW_WORD(v, w) [v] = w,
 *	static const char *const policies[] = { KETW_POLICY_WORDS(KETW_WORD) };
 *
 * A word never changes once released; a new value gets a new word.
 */
#define KETW_TYPE_WORDS(FN)				\
	FN(KETW_TYPE_INFO,		"INFO")		\
	FN(KETW_TYPE_START,		"START")	\
	FN(KETW_TYPE_END,		"END")		\
	FN(KETW_TYPE_DC_START,		"DC_START")	\
	FN(KETW_TYPE_DC_END,		"DC_END")	\
	FN(KETW_TYPE_EXTENSION,		"EXTENSION")	\
	FN(KETW_TYPE_REPLY,		"REPLY")	\
	FN(KETW_TYPE_DEQUEUE,		"DEQUEUE")	\
	FN(KETW_TYPE_CHECKPOINT,	"CHECKPOINT")

#define KETW_LEVEL_WORDS(FN)				\
	FN(KETW_LEVEL_CRITICAL,		"CRITICAL")	\
	FN(KETW_LEVEL_ERROR,		"ERROR")	\
	FN(KETW_LEVEL_WARNING,		"WARNING")	\
	FN(KETW_LEVEL_INFO,		"INFO")		\
	FN(KETW_LEVEL_VERBOSE,		"VERBOSE")

#define KETW_SYS_WORDS(FN)				\
	FN(KETW_SYS_START,		"START")	\
	FN(KETW_SYS_STOP,		"STOP")		\
	FN(KETW_SYS_FILTER,		"FILTER")	\
	FN(KETW_SYS_OVERFLOW,		"OVERFLOW")	\
	FN(KETW_SYS_RESUME,		"RESUME")	\
	FN(KETW_SYS_FLUSH_START,	"FLUSH_START")	\
	FN(KETW_SYS_FLUSH_STOP,		"FLUSH_STOP")	\
	FN(KETW_SYS_ERROR,		"ERROR")	\
	FN(KETW_SYS_TRIGGER,		"TRIGGER")	\
	FN(KETW_SYS_PROVIDER,		"PROVIDER")	\
	FN(KETW_SYS_EVENT_DESC,		"EVENT_DESC")	\
	FN(KETW_SYS_TASK,		"TASK")		\
	FN(KETW_SYS_MODULE,		"MODULE")

#define KETW_FIELD_WORDS(FN)				\
	FN(KETW_FIELD_U8,		"u8")		\
	FN(KETW_FIELD_U16,		"u16")		\
	FN(KETW_FIELD_U32,		"u32")		\
	FN(KETW_FIELD_U64,		"u64")		\
	FN(KETW_FIELD_S8,		"s8")		\
	FN(KETW_FIELD_S16,		"s16")		\
	FN(KETW_FIELD_S32,		"s32")		\
	FN(KETW_FIELD_S64,		"s64")		\
	FN(KETW_FIELD_HEX32,		"hex32")	\
	FN(KETW_FIELD_HEX64,		"hex64")	\
	FN(KETW_FIELD_STRING,		"string")	\
	FN(KETW_FIELD_BINARY,		"binary")	\
	FN(KETW_FIELD_GUID,		"guid")

#define KETW_POLICY_WORDS(FN)				\
	FN(KETW_POLICY_LOOP,		"loop")		\
	FN(KETW_POLICY_UNTIL_FULL,	"until-full")	\
	FN(KETW_POLICY_FLUSH,		"flush")

#define KETW_CLOCK_WORDS(FN)				\
	FN(KETW_CLOCK_MONO,		"mono")		\
	FN(KETW_CLOCK_BOOT,		"boot")		\
	FN(KETW_CLOCK_LOCAL,		"local")

#define KETW_TRIGGER_ACTION_WORDS(FN)			\
	FN(KETW_TRIGGER_WAKE,		"wake")		\
	FN(KETW_TRIGGER_STOP,		"stop")		\
	FN(KETW_TRIGGER_SNAPSHOT,	"snapshot")

#define KETW_STATE_WORDS(FN)				\
	FN(KETW_STATE_CREATED,		"created")	\
	FN(KETW_STATE_RUNNING,		"running")	\
	FN(KETW_STATE_SUSPENDED,	"suspended")

/* Extended data item types, as ketwfs and ketw's -p PROV:...,ITEM take them. */
#define KETW_EXT_WORDS(FN)				\
	FN(KETW_EXT_KSTACK,		"stack")	\
	FN(KETW_EXT_USTACK,		"ustack")	\
	FN(KETW_EXT_CPU_TIME,		"cputime")	\
	FN(KETW_EXT_PROG_ADDR,		"progaddr")	\
	FN(KETW_EXT_PID_NS,		"pidns")	\
	FN(KETW_EXT_ACTIVITY,		"activity")

/* Execution contexts (KETW_RECORD_CTX()), as report and ketwfs name them. */
#define KETW_CTX_WORDS(FN)				\
	FN(KETW_CTX_TASK,		"task")		\
	FN(KETW_CTX_SOFTIRQ,		"softirq")	\
	FN(KETW_CTX_HARDIRQ,		"hardirq")	\
	FN(KETW_CTX_NMI,		"nmi")

#define KETW_IOC_MAGIC	0xE7

/*
 * CREATE makes a session and attaches this file to it; ATTACH attaches
 * this file to an existing session. read(), poll() and mmap() on an
 * attached file drain that session. START, STOP and DESTROY act on the
 * named session; DESTROY fails with EBUSY while another file is attached
 * to it. FLUSH logs FLUSH_START, waits until readers have consumed what
 * was there, and logs FLUSH_STOP (ERROR too if it timed out). SESSIONS
 * lists every session (struct ketw_session_list). TRIGGER_ADD arms a
 * trigger on a session, TRIGGER_DEL removes one or all (struct
 * ketw_trigger). SET_PIDS sets or clears a session's process filter,
 * GET_PIDS reads it (struct ketw_pid_filter).
 *
 * START on a stopped session resumes it: its buffers keep what they
 * hold, and START (and the rundown, unless NO_RUNDOWN) follows the STOP
 * in them. An UNTIL_FULL session whose buffers are still full (a reader
 * has not made room since it stopped) is not resumed: ENOSPC, and
 * nothing is logged (POSIX: "the status of the trace stream shall not
 * be changed"). START on a running session is EBUSY.
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
#define KETW_IOC_SESSIONS	_IOWR(KETW_IOC_MAGIC, 18, struct ketw_session_list)
#define KETW_IOC_USER_CONFLICT	_IOWR(KETW_IOC_MAGIC, 19, struct ketw_user_conflict)
#define KETW_IOC_TRIGGER_ADD	_IOWR(KETW_IOC_MAGIC, 20, struct ketw_trigger)
#define KETW_IOC_TRIGGER_DEL	_IOW(KETW_IOC_MAGIC, 21, struct ketw_trigger)
#define KETW_IOC_SET_PIDS	_IOW(KETW_IOC_MAGIC, 22, struct ketw_pid_filter)
#define KETW_IOC_GET_PIDS	_IOWR(KETW_IOC_MAGIC, 23, struct ketw_pid_filter)
#define KETW_IOC_USER_WRITEV	_IOW(KETW_IOC_MAGIC, 24, struct ketw_user_writev)

#endif /* _UAPI_LINUX_KETW_H */
