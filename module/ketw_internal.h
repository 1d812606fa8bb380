/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw - declarations shared by the module's files (not an API).
 *
 * Roles: ring.c (buffer core), clock.c (the MONO clock), memory.c
 * (buffer memory and its cap), session.c (sessions: their lifetime,
 * states, readers and rundown), sysevent.c (system events), provider.c
 * (registry, filters, the write path), ext.c (extended data items and
 * the MODULE rundown), trigger.c (triggers: their checks, matching and
 * firing), user.c (user-space providers and their limits), boot.c
 * (boot-time sessions), pids.c (process filters: their tables, the
 * write path's lookup, the fork and exit probes), sysfs.c (the module
 * parameters' setters, the
 * reports in /sys/module/ketw), chardev.c (/dev/ketw and
 * /dev/ketw_user), fs.c, fs_ctl.c and fs_trace.c (ketwfs: the
 * filesystem, its control files, its trace readers; fs.h), errlog.c
 * (ketwfs's error_log), names.c (the words for attributes and system
 * events), trace_bridge.c (the ftrace events ketw:ketw_event and
 * ketw:ketw_items, and the items the latter shows), main.c (init and
 * exit).
 */
#ifndef _KETW_INTERNAL_H
#define _KETW_INTERNAL_H

#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <ketw.h>

struct seq_file;

#include "ring.h"

#define KETW_MAX_SESSIONS	64

/*
 * ketw_mutex serialises every control operation: the session and provider
 * lists, session state changes and the providers' enable sets. The write
 * path takes no lock: it reads enable sets under RCU (preemption off).
 */
extern struct mutex ketw_mutex;
extern struct list_head ketw_sessions;

/* The module's own work (auto-stop, triggers): module exit drains it. */
extern struct workqueue_struct *ketw_wq;

struct ketw_trig;
struct ketw_pids;
struct pid_namespace;

/*
 * A session's triggers: replaced whole under ketw_mutex, read under RCU
 * by writers (through their enablements), freed with kfree_rcu().
 */
struct ketw_trig_set {
	struct rcu_head rcu;
	unsigned int nr;
	struct ketw_trig *t[KETW_MAX_TRIGGERS];
};

/* struct ketw_session_trig todo bits: actions fired and not yet taken. */
#define KETW_TRIG_TODO_WAKE	BIT(0)
#define KETW_TRIG_TODO_STOP	BIT(1)
#define KETW_TRIG_TODO_SNAP	BIT(2)

/**
 * struct ketw_session_trig - what a session's triggers set in motion
 * @iw:       queued by a fire (any context): takes @todo.
 * @todo:     KETW_TRIG_TODO_* fired, not yet taken by @iw.
 * @stop_ms:  the post delay of the STOP in @todo.
 * @snap_ms:  the post delay of the SNAPSHOT in @todo.
 * @stop_dw:  stops the session; holds a reference while queued.
 * @snap_dw:  marks a snapshot ready; holds a reference while queued.
 * @gen:      bumped by every stop, under ketw_mutex: a STOP from an
 *            earlier run is void.
 * @stop_gen: the run @stop_dw was queued for.
 * @fired:    fires of all the session's triggers.
 * @snapshots_ready: SNAPSHOT actions done.
 * @wakeups:  WAKE actions done.
 *
 * Rules: Documentation/ketw-lifetimes.rst, "trigger actions".
 */
struct ketw_session_trig {
	struct irq_work iw;
	atomic_t todo;
	atomic_t stop_ms;
	atomic_t snap_ms;
	struct delayed_work stop_dw;
	struct delayed_work snap_dw;
	u32 gen;
	u32 stop_gen;
	atomic_t fired;
	atomic_t snapshots_ready;
	atomic_t wakeups;
};

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
 * @triggers:   its triggers, or NULL; changed under ketw_mutex.
 * @next_trigger_id: the id the next trigger gets; under ketw_mutex.
 * @trig:       what its triggers fired.
 * @pids:       its process filter, or NULL: it traces every process;
 *              replaced under ketw_mutex (ketw-lifetimes.rst).
 * @pids_dropped: children the filters it had before @pids could not
 *              take; under ketw_mutex.
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
	struct ketw_trig_set __rcu *triggers;
	u32 next_trigger_id;
	struct ketw_session_trig trig;
	struct ketw_pids *pids;
	u32 pids_dropped;
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
 * @triggers:  the session's triggers if one names the provider, or NULL:
 *             the write path looks at them only then.
 * @pids:      the session's process filter, or NULL: the write path
 *             looks the current process up in it only then.
 * @same_filter: @level, the keywords, @filtered and @pids are the
 *             entry before's, in the same set: an event takes its verdict,
 *             and the filter is evaluated once for the run of them.
 *
 * Kept small: a provider's set holds one per running session, and is
 * allocated with __GFP_NOFAIL, which must stay within order 1.
 */
struct ketw_enablement {
	struct ketw_session *session;
	struct ketw_ring *ring;
	u16 level;
	bool same_filter;
	u32 max_data;
	u64 match_any;
	u64 match_all;
	const struct ketw_idset *filtered;
	u32 ext_items;
	u32 room;
	const struct ketw_trig_set *triggers;
	const struct ketw_pids *pids;
};

/*
 * A provider's enablements, replaced whole under ketw_mutex, read under
 * RCU; @ext_items: the union of theirs (0: no item to capture).
 */
struct ketw_enable_set {
	struct rcu_head rcu;
	unsigned int nr;
	u32 ext_items;
	struct ketw_enablement e[];
};

/**
 * struct ketw_ext_src - what the logger knows of an event, for its items
 * and its record's context
 * @prog_addr: the trace point's program address, or 0.
 * @activity:  its activity id (KETW_ACTIVITY_ID_SIZE bytes), or NULL.
 * @related:   the related activity id, or NULL.
 * @held:      preemption levels ketw itself holds around the write, on
 *             the logger's behalf (a long user payload's per-CPU
 *             buffer): the record's preemption depth leaves them out.
 */
struct ketw_ext_src {
	unsigned long prog_addr;
	const u8 *activity;
	const u8 *related;
	unsigned int held;
};

/**
 * ketw_ext_possible() - the items an event logged here can have at all
 * @pc:  preempt_count(), read by the caller.
 * @src: what the logger knows of the event.
 *
 * The task items (user stack, CPU times, pid namespace) need task
 * context, the user stack a user task, the program address and the
 * activity the logger's. Tested before anything is captured, so that a
 * session whose items can capture nothing here (a user stack asked of
 * a kernel thread, CPU times in a hardirq) pays these few tests only.
 *
 * Return: KETW_EXT_BIT()s.
 */
static __always_inline u32 ketw_ext_possible(unsigned int pc,
					     const struct ketw_ext_src *src)
{
	u32 m = KETW_EXT_BIT(KETW_EXT_KSTACK);

	if (!(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))) {
		m |= KETW_EXT_BIT(KETW_EXT_CPU_TIME) |
		     KETW_EXT_BIT(KETW_EXT_PID_NS);
		if (!(current->flags & PF_KTHREAD))
			m |= KETW_EXT_BIT(KETW_EXT_USTACK);
	}
	if (src->prog_addr)
		m |= KETW_EXT_BIT(KETW_EXT_PROG_ADDR);
	if (src->activity)
		m |= KETW_EXT_BIT(KETW_EXT_ACTIVITY);
	return m;
}

/**
 * struct ketw_ext_blob - the items captured for one event (ext.c)
 * @blob: the items area (struct ketw_ext_header first).
 * @len:  its bytes; 0 if no item could be captured.
 * @mask: the types present, KETW_EXT_BIT()s.
 * @sub:  scratch for a session's subset.
 */
struct ketw_ext_blob {
	const void *blob;
	u32 len;
	u32 mask;
	void *sub;
};

/**
 * struct ketw_session_enable - a provider a session enables (by GUID or name)
 * @guid:   the provider's GUID, or all zero to match @name.
 * @name:   the provider's name when @guid is zero.
 * @filter: what the session takes from it.
 * @idset:  @filter.filtered as a bitmap, or NULL if empty.
 * @user:   @guid names a user provider (KETW_ENABLE_USER).
 * @ext_items: the extended data items its records carry.
 */
struct ketw_session_enable {
	u8 guid[KETW_GUID_SIZE];
	char name[KETW_NAME_MAX];
	struct ketw_filter filter;
	struct ketw_idset *idset;
	bool user;
	u32 ext_items;
};

/* session.c */
bool ketw_name_valid(const char *name);
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
int ketw_sessions_list(struct ketw_session_list *l);
int ketw_sessions_for_each(int (*fn)(struct ketw_session *s, void *arg),
			   void *arg);
int ketw_session_trigger_add(struct ketw_session *s, struct ketw_trigger *req);
int ketw_session_trigger_del(struct ketw_session *s, u32 id);
int ketw_session_set_pids(struct ketw_session *s, const s32 *pids, u32 count,
			  u32 flags);
int ketw_session_get_pids(struct ketw_session *s, u32 *out, u32 *count,
			  u32 *flags);

/* sysevent.c */
bool ketw_session_log(struct ketw_session *s, const u8 *guid,
		      const struct ketw_event_descriptor *desc,
		      const void *data, size_t len, u16 flags);
void ketw_session_log_system(struct ketw_session *s, u32 id, u8 type,
			     const void *data, size_t len);
void ketw_session_log_system_ver(struct ketw_session *s, u32 id, u16 version,
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
		     const void *data, size_t len, u16 flags,
		     const struct ketw_ext_src *src);
int ketw_write_gated(struct ketw_provider *prov,
		     const struct ketw_event_descriptor *desc,
		     const void *data, size_t len, u16 flags,
		     const struct ketw_ext_src *src,
		     bool (*gate)(void *arg, size_t len), void *arg);
int ketw_provider_add(struct ketw_provider *prov, struct ketw_event_info *ei);
struct ketw_enable_set *ketw_provider_del(struct ketw_provider *prov);

/* ext.c */
int ketw_ext_init(void);
void ketw_ext_exit(void);
void ketw_ext_capture(u32 mask, const struct ketw_ext_src *src,
		      struct ketw_ext_blob *x);
u32 ketw_ext_subset(const struct ketw_ext_blob *x, u32 want, const void **out);
void ketw_modules_rundown(struct ketw_session *s);

int ketw_provider_trigger_target(const struct ketw_trigger *req,
				 u8 *guid, bool *user, char *name,
				 const struct ketw_field **field);

/* trigger.c */
int ketw_trigger_check(const struct ketw_trigger *req);
u32 ketw_trig_field_width(u32 type);
struct ketw_trig *ketw_trig_new(const struct ketw_trigger *req, u32 id,
				const u8 *guid, bool user, const char *name,
				const struct ketw_field *field);
bool ketw_trig_names(const struct ketw_trig *t,
		     const struct ketw_provider *prov);
u32 ketw_trig_id(const struct ketw_trig *t);
void ketw_triggers_fire(struct ketw_session *s,
			const struct ketw_trig_set *set,
			const struct ketw_provider *prov,
			const struct ketw_event_descriptor *desc,
			const void *data, size_t len, u64 seq);
void ketw_triggers_show(struct seq_file *m, struct ketw_session *s);
void ketw_trig_free_rcu(struct ketw_trig *t);
void ketw_triggers_free(struct ketw_session *s);

/* pids.c */
void ketw_pids_init(void);
void ketw_pids_exit(void);
int ketw_pids_check(u32 count, u32 flags);
struct ketw_pids *ketw_pids_new(const s32 *vpids, u32 count, u32 flags);
void ketw_pids_publish(struct ketw_pids *f);
void ketw_pids_retire(struct ketw_pids *f);
bool ketw_pids_match(const struct ketw_pids *f);
u32 ketw_pids_flags(const struct ketw_pids *f);
u32 ketw_pids_dropped(const struct ketw_pids *f);
u32 ketw_pids_count(const struct ketw_pids *f);
u32 ketw_pids_ids(const struct ketw_pids *f, struct pid_namespace *ns,
		  u32 *out);

/* boot.c */
int ketw_boot_sessions_start(void);

/* sysfs.c */
struct kernel_param;
extern const struct kernel_param_ops ketw_param_ops_uint;
extern const struct kernel_param_ops ketw_param_ops_int;
extern const struct kernel_param_ops ketw_param_ops_charp;
void ketw_param_refused(const struct kernel_param *kp, const char *val,
			const char *why);
int ketw_sysfs_init(void);
void ketw_sysfs_exit(void);

/* names.c */
const char *ketw_policy_name(u32 policy);
int ketw_policy_parse(const char *s);
const char *ketw_clock_name(u32 clock);
int ketw_clock_parse(const char *s);
const char *ketw_state_name(u32 state);
const char *ketw_sys_event_name(u32 id);
const char *ketw_field_type_name(u32 type);
int ketw_ext_items_parse(const char *s, u32 *mask);
struct seq_file;
void ketw_ext_items_list(struct seq_file *m, u32 mask);
void ketw_ext_items_show(struct seq_file *m, u32 mask);
const char *ketw_trigger_action_name(u32 action);
int ketw_trigger_action_parse(const char *s);

/* errlog.c */
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
struct ketw_user_reg;

/*
 * A provider registered from user space; its name is KETW_USER_PREFIX and
 * the name asked for. Shared by every registration (file) of that name by
 * the same user id with the same GUID and descriptors, and freed with the
 * last (Documentation/ketw-lifetimes.rst). Here, not in user.c: the
 * registry (provider.c) reads its uid and writes its enable page, and
 * user.c registers through the registry.
 */
struct ketw_user_prov {
	struct ketw_provider prov;
	u32 uid;			/* who registered it */
	unsigned int regs;		/* registrations; under ketw_mutex */
	char name[KETW_NAME_MAX];
	struct ketw_event_info *infos;	/* the descriptors as copied; names */
	struct ketw_event_descriptor *descs; /* prov.events: point into @infos */
	struct ketw_field *fields;	/* the descriptors' fields */
	struct page *page;		/* the enable page (provider.c writes it) */
};

/**
 * ketw_user_provider_uid() - who registered a user provider
 * @prov: a user provider (KETW_PROVIDER_USER).
 *
 * Return: the user id, in the initial user namespace.
 */
static inline u32 ketw_user_provider_uid(const struct ketw_provider *prov)
{
	return container_of(prov, struct ketw_user_prov, prov)->uid;
}

struct ketw_user_reg *
ketw_user_provider_register(const struct ketw_user_provider *up, bool limited,
			    u32 *conflict);
void ketw_user_provider_unregister(struct ketw_user_reg *reg);
int ketw_user_mmap(struct ketw_user_reg *reg, struct vm_area_struct *vma);
int ketw_user_write(struct ketw_user_reg *reg,
		    const struct ketw_event_descriptor *desc,
		    const void *data, size_t len,
		    const struct ketw_ext_src *src);
bool ketw_user_enabled(const struct ketw_user_reg *reg);

/* user_write.c */
int ketw_user_writev(struct ketw_user_reg *reg,
		     const struct ketw_user_writev __user *u);
void ketw_user_writev_exit(void);

/* trace_items.c (the rest: ketw_trace.h) */
u32 ketw_bridge_items_get(void);
int ketw_bridge_items_set(u32 mask);

/* fs.c (fs_ctl.c, fs_trace.c: fs.h) */
int ketwfs_init(void);
void ketwfs_exit(void);

/* chardev.c */
extern int ketw_user_gid;
int ketw_dev_init(void);
void ketw_dev_exit(void);

#endif /* _KETW_INTERNAL_H */
