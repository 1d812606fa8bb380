/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw - declarations shared by the module's files (not an API).
 *
 * Roles: ring.c (buffer core), clock.c (the MONO clock), memory.c
 * (buffer memory and its cap), session.c (sessions: their lifetime,
 * states, readers and rundown), sysevent.c (system events), provider.c
 * (registry, filters, the write path), user.c (user-space providers and
 * their limits), boot.c (boot-time sessions), chardev.c (/dev/ketw and
 * /dev/ketw_user), fs.c, fs_ctl.c and fs_trace.c (ketwfs: the
 * filesystem, its control files, its trace readers; fs.h), errlog.c
 * (ketwfs's error_log), names.c (the words for attributes and system
 * events), trace_bridge.c (the ketw:ketw_event ftrace event), main.c
 * (init and exit).
 */
#ifndef _KETW_INTERNAL_H
#define _KETW_INTERNAL_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <ketw.h>

#include "ring.h"

#define KETW_MAX_SESSIONS	64

/*
 * ketw_mutex serialises every control operation: the session and provider
 * lists, session state changes and the providers' enable sets. The write
 * path takes no lock: it reads enable sets under RCU (preemption off).
 */
extern struct mutex ketw_mutex;
extern struct list_head ketw_sessions;

/* The module's own work (sessions' auto-stop): module exit drains it. */
extern struct workqueue_struct *ketw_wq;

/**
 * struct ketw_session - a trace stream (ETW session, POSIX trace stream)
 * @node:       ketw_sessions, under ketw_mutex.
 * @kref:       the list's reference, one per attached file, one for the
 *              file that owns it (KETW_SESSION_OWNED), and others (see
 *              Documentation/ketw-lifetimes.rst).
 * @attr:       attributes, normalised (no zero defaults left).
 * @ring:       the per-CPU buffers.
 * @state:      KETW_STATE_*; changed under ketw_mutex.
 * @attached:   files attached to the session, under ketw_mutex.
 * @destroyed:  removed from the list; only attached files, mappings and
 *              the owner file (KETW_SESSION_OWNED) still hold it.
 * @read_mutex: one reader at a time.
 * @max_span:   the largest record the session stores, in bytes.
 * @auto_stop:  UNTIL_FULL: stops the session from process context;
 *              holds a reference while queued.
 * @auto_stop_queued: @auto_stop is queued and not yet started.
 * @auto_stopped: the full policy stopped the session; under ketw_mutex.
 * @overrun_seen: losses reported by the last STATUS; under ketw_mutex.
 * @flushing:   a FLUSH is running; under ketw_mutex.
 * @flush_error: first error of a flush not yet reported; under ketw_mutex.
 * @explicit:   a provider was ever enabled: the session takes only
 *              those in @enables, else every provider with @attr's
 *              filter; under ketw_mutex.
 * @enables:    providers enabled explicitly; under ketw_mutex.
 * @nr_enables: entries in @enables.
 */
struct ketw_session {
	struct list_head node;
	struct kref kref;
	struct ketw_session_attr attr;
	struct ketw_ring *ring;
	u32 state;
	unsigned int attached;
	bool destroyed;
	struct mutex read_mutex;	/* one reader at a time */
	u32 max_span;
	struct work_struct auto_stop;
	atomic_t auto_stop_queued;
	bool auto_stopped;
	u64 overrun_seen;
	bool flushing;
	int flush_error;
	bool explicit;
	struct ketw_session_enable *enables;
	unsigned int nr_enables;
};

/*
 * Event ids a session filters out of a provider: owned by the session's
 * enable entry, pointed to by the providers' enable sets, freed after a
 * grace period once no set points to it.
 */
struct ketw_idset {
	struct rcu_head rcu;
	DECLARE_BITMAP(bits, KETW_EVENT_SET_BITS);
};

/**
 * struct ketw_enablement - one running session's filter for one provider
 * @session:   the session (running while it is in an enable set).
 * @ring:      its ring (replaced only while it is not running).
 * @level:     highest level taken; 0 takes all.
 * @max_data:  its max_data_size: longer payloads are cut.
 * @match_any: an event's keyword must share a bit with it (0: no test).
 * @match_all: an event's keyword must hold all its bits.
 * @filtered:  event ids filtered out (POSIX event set filter), or NULL.
 *
 * Kept small: a provider's set holds one per running session, and is
 * allocated with __GFP_NOFAIL, which must stay within order 1.
 */
struct ketw_enablement {
	struct ketw_session *session;
	struct ketw_ring *ring;
	u32 level;
	u32 max_data;
	u64 match_any;
	u64 match_all;
	const struct ketw_idset *filtered;
};

/* A provider's enablements, replaced whole under ketw_mutex, read under RCU. */
struct ketw_enable_set {
	struct rcu_head rcu;
	unsigned int nr;
	struct ketw_enablement e[];
};

/**
 * struct ketw_session_enable - a provider a session enables (by GUID or name)
 * @guid:   the provider's GUID, or all zero to match @name.
 * @name:   the provider's name when @guid is zero.
 * @filter: what the session takes from it.
 * @idset:  @filter.filtered as a bitmap, or NULL if empty.
 * @user:   @guid names a user provider (KETW_ENABLE_USER).
 */
struct ketw_session_enable {
	u8 guid[KETW_GUID_SIZE];
	char name[KETW_NAME_MAX];
	struct ketw_filter filter;
	struct ketw_idset *idset;
	bool user;
};

/* session.c */
int ketw_session_create(struct ketw_session_attr *attr,
			struct ketw_session **out);
struct ketw_session *ketw_session_get(const char *name);
void ketw_session_put(struct ketw_session *s);
int ketw_session_start(struct ketw_session *s);
int ketw_session_stop(struct ketw_session *s);
int ketw_session_destroy(struct ketw_session *s, struct ketw_session *mine);
void ketw_session_destroy_owned(struct ketw_session *s);
bool ketw_session_destroyed(struct ketw_session *s);
void ketw_session_fill_attr(struct ketw_session *s,
			    struct ketw_session_attr *attr);
int ketw_session_set_attr(struct ketw_session *s,
			  struct ketw_session_attr *attr);
u32 ketw_default_max_data(u32 buffer_kb);
ssize_t ketw_session_read(struct ketw_session *s, unsigned int *cursor,
			  char __user *buf, size_t len);
int ketw_session_read_begin(struct ketw_session *s);
void ketw_session_read_end(struct ketw_session *s);
int ketw_session_read_lock(struct ketw_session *s);
void ketw_session_read_unlock(struct ketw_session *s);
ssize_t ketw_session_read_cpu(struct ketw_session *s, int cpu,
			      char __user *buf, size_t len);
ssize_t ketw_session_peek_cpu(struct ketw_session *s, int cpu, void *buf,
			      size_t len, u32 *pos);
bool ketw_session_consume_cpu(struct ketw_session *s, int cpu, u32 pos,
			      u32 span);
int ketw_session_snapshot_cpu(struct ketw_session *s, int cpu, void *buf,
			      size_t len, u64 *copied, u64 *dropped);
int ketw_session_snapshot_cpu_user(struct ketw_session *s, int cpu,
				   char __user *buf, size_t len,
				   u64 *copied, u64 *dropped);
void ketw_session_stats_cpu(struct ketw_session *s, int cpu,
			    struct ketw_cpu_stats *st);
bool ketw_session_empty(struct ketw_session *s, int cpu);
int ketw_session_wait_records(struct ketw_session *s, int cpu);
void ketw_session_poll_wait(struct ketw_session *s, struct file *file,
			    struct poll_table_struct *pt);
bool ketw_session_stopped(struct ketw_session *s);
int ketw_session_wait(struct ketw_session *s, wait_queue_head_t *wq,
		      struct ketw_session *const *attached);
__poll_t ketw_session_poll(struct ketw_session *s);
int ketw_session_attach(struct ketw_session *s, struct ketw_session *old);
void ketw_session_watch(struct ketw_session *s,
			struct wait_queue_entry *wq_entry);
void ketw_session_unwatch(struct ketw_session *s,
			  struct wait_queue_entry *wq_entry);
int ketw_session_status(struct ketw_session *s,
			struct ketw_session_status *st);
int ketw_session_flush(struct ketw_session *s);
int ketw_session_rundown(struct ketw_session *s);
int ketw_session_mmap(struct ketw_session *s, struct vm_area_struct *vma);
void ketw_sessions_destroy_all(void);
int ketw_sessions_for_each(int (*fn)(struct ketw_session *s, void *arg),
			   void *arg);

/* sysevent.c */
bool ketw_session_log(struct ketw_session *s, const u8 *guid,
		      const struct ketw_event_descriptor *desc,
		      const void *data, size_t len, u16 flags);
void ketw_session_log_system(struct ketw_session *s, u32 id, u8 type,
			     const void *data, size_t len);

/* provider.c */
void ketw_providers_attach(struct ketw_session *s);
void ketw_providers_detach(struct ketw_session *s);
void ketw_providers_rundown(struct ketw_session *s);
void ketw_session_enables_free(struct ketw_session *s);
int ketw_enable_check(const struct ketw_enable *req, bool enable);
int ketw_session_enable(struct ketw_session *s, const struct ketw_enable *req);
int ketw_session_get_filter(struct ketw_session *s, struct ketw_enable *req);
struct ketw_provider *ketw_provider_find(const char *name, const u8 *guid,
					 bool user);
struct ketw_session_enable *
ketw_session_enable_find(struct ketw_session *s, const char *name,
			 const u8 *guid, bool user,
			 const struct ketw_provider *prov);
int ketw_session_enables_for_each(struct ketw_session *s,
				  int (*fn)(const struct ketw_session_enable *se,
					    void *arg),
				  void *arg);
int ketw_providers_list(struct ketw_list *l);
int ketw_events_list(struct ketw_list *l);
int ketw_providers_for_each(int (*fn)(struct ketw_provider *prov, void *arg),
			    void *arg);
int ketw_write_flags(struct ketw_provider *prov,
		     const struct ketw_event_descriptor *desc,
		     const void *data, size_t len, u16 flags);

/* boot.c */
int ketw_boot_sessions_start(void);

/* names.c */
const char *ketw_policy_name(u32 policy);
int ketw_policy_parse(const char *s);
const char *ketw_clock_name(u32 clock);
int ketw_clock_parse(const char *s);
const char *ketw_state_name(u32 state);
const char *ketw_sys_event_name(u32 id);
const char *ketw_field_type_name(u32 type);

/* errlog.c */
struct seq_file;
__printf(1, 2) void ketw_errlog_add(const char *fmt, ...);
void ketw_errlog_show(struct seq_file *m);
void ketw_errlog_clear(void);

/* memory.c */
u64 ketw_mem_need(u32 size);
int ketw_mem_set_cap(const char *val);
int ketw_mem_explain(char *buf, size_t len, u64 need, int err);
u64 ketw_mem_cap(void);
int ketw_mem_charge(u64 need);
void ketw_mem_uncharge(u64 need);
u64 ketw_mem_used_bytes(void);

/* user.c */
struct ketw_user;

/*
 * A provider registered from user space, owned by one file; its name is
 * KETW_USER_PREFIX and the name asked for. Here, not in user.c: the
 * registry (provider.c) reads its uid and writes its enable page, and
 * user.c registers through the registry.
 */
struct ketw_user_prov {
	struct ketw_provider prov;
	struct ketw_user *user;		/* NULL: not limited */
	u32 uid;			/* who registered it */
	char name[KETW_NAME_MAX];
	struct ketw_event_info *infos;	/* the descriptors as copied; names */
	struct ketw_event_descriptor *descs; /* prov.events: point into @infos */
	struct ketw_field *fields;	/* the descriptors' fields */
	struct page *page;		/* the enable page (provider.c writes it) */
};

/**
 * ketw_user_provider_uid() - who registered a user provider
 * @prov: from ketw_user_provider_register().
 *
 * Return: the user id, in the initial user namespace.
 */
static inline u32 ketw_user_provider_uid(const struct ketw_provider *prov)
{
	return container_of(prov, struct ketw_user_prov, prov)->uid;
}

struct ketw_provider *
ketw_user_provider_register(const struct ketw_user_provider *up, bool limited);
void ketw_user_provider_unregister(struct ketw_provider *prov);
int ketw_user_mmap(struct ketw_provider *prov, struct vm_area_struct *vma);
int ketw_user_write(struct ketw_provider *prov,
		    const struct ketw_event_descriptor *desc,
		    const void *data, size_t len);

/* fs.c (fs_ctl.c, fs_trace.c: fs.h) */
int ketwfs_init(void);
void ketwfs_exit(void);

/* chardev.c */
extern int ketw_user_gid;
int ketw_dev_init(void);
void ketw_dev_exit(void);

#endif /* _KETW_INTERNAL_H */
