/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketwfs - declarations shared by its files (not an API): fs.c (the
 * filesystem), fs_ctl.c (the control files), fs_trace.c (the trace
 * readers).
 */
#ifndef _KETW_FS_H
#define _KETW_FS_H

#include <linux/fs.h>

#include "ketw_internal.h"

/* What an inode is. */
enum ketwfs_kind {
	KFS_ROOT,
	KFS_HEADER_FORMAT,
	KFS_BUFFER_USED,	/* buffer_used_kb */
	KFS_MAX_BUFFER,		/* max_buffer_kb */
	KFS_ERROR_LOG,
	KFS_BRIDGE_ITEMS,	/* bridge_items */
	KFS_SESSIONS,		/* sessions/ */
	KFS_SESSION,		/* sessions/NAME/ */
	KFS_ENABLE,
	KFS_BUFFER_SIZE_KB,
	KFS_POLICY,
	KFS_MAX_DATA_SIZE,
	KFS_CLOCK,
	KFS_ITEMS,		/* sessions/NAME/items */
	KFS_RUNDOWN,
	KFS_SESSION_PROVIDERS,
	KFS_EVENT_SET,
	KFS_TRIGGER,
	KFS_PIDS,
	KFS_STATUS,
	KFS_STATS,
	KFS_BUFFER_TOTAL,	/* buffer_total_size_kb */
	KFS_TRACE,
	KFS_TRACE_PIPE,
	KFS_PER_CPU,		/* sessions/NAME/per_cpu/ */
	KFS_CPU,		/* sessions/NAME/per_cpu/cpuN/ */
	KFS_CPU_RAW,
	KFS_CPU_STATS,
	KFS_PROVIDERS,		/* providers/ */
	KFS_PROVIDER,		/* providers/NAME/ */
	KFS_PROVIDER_GUID,
	KFS_EVENTS,		/* providers/NAME/events/ */
	KFS_EVENT,		/* providers/NAME/events/EVENT/ */
	KFS_EVENT_ID,
	KFS_EVENT_FORMAT,
};

/**
 * struct ketwfs_sid - which session of a name an inode stands for
 * @s:    the session when the inode was made; compared, never followed.
 * @time: its creation_time, should another session get its address.
 *
 * A name outlives its session: once "demo" is destroyed and made again,
 * a file opened (or a directory held) before must not act on the new
 * "demo". The pair tells them apart without holding the session.
 */
struct ketwfs_sid {
	const struct ketw_session *s;
	u64 time;
};

/**
 * struct ketwfs_inode - an inode and what it stands for
 * @kind:     KFS_*.
 * @cpu:      per_cpu/cpuN and below: N.
 * @sid:      sessions/NAME and below: which session named NAME.
 * @session:  sessions/NAME and below: NAME.
 * @provider: providers/NAME and below: NAME.
 * @event:    providers/NAME/events/EVENT and below: EVENT.
 * @vfs:      the inode.
 *
 * Children copy their parent's names: a file finds its session, provider
 * or event by name each time it is used (and its session only if it is
 * still the one of @sid).
 */
struct ketwfs_inode {
	u8 kind;
	int cpu;
	struct ketwfs_sid sid;
	char session[KETW_NAME_MAX];
	char provider[KETW_NAME_MAX];
	char event[KETW_NAME_MAX];
	struct inode vfs;
};

static inline struct ketwfs_inode *ketwfs_i(const struct inode *inode)
{
	return container_of(inode, struct ketwfs_inode, vfs);
}

/* fs.c */
const struct ketw_event_descriptor *
ketwfs_find_event(const struct ketw_provider *prov, const char *dname);
struct ketw_session *ketwfs_session_get(const struct ketwfs_inode *ki);
struct ketw_session *ketwfs_session(struct ketwfs_inode *ki);
int ketwfs_open_check(void);
void ketwfs_log_memory(const char *name, const char *what, u64 need, int err);

/* fs_ctl.c */
extern const struct file_operations ketwfs_ro_fops;
extern const struct file_operations ketwfs_ctl_fops;

/* fs_trace.c */
extern const struct file_operations ketwfs_trace_fops;
extern const struct file_operations ketwfs_pipe_fops;
extern const struct file_operations ketwfs_raw_fops;

#endif /* _KETW_FS_H */
