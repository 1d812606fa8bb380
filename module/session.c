// SPDX-License-Identifier: GPL-2.0
/*
 * ketw sessions: named trace streams with their own buffers and filters,
 * living from create to destroy whatever the processes that made them do.
 */
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/oom.h>
#include <linux/pid_namespace.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "context.h"
#include "ketw_internal.h"

LIST_HEAD(ketw_sessions);
static unsigned int ketw_nr_sessions;

/**
 * ketw_name_valid() - can @name be a session's name?
 * @name: NUL-terminated within KETW_NAME_MAX, or not.
 *
 * Return: true for 1 to KETW_NAME_MAX - 1 letters, digits, '_', '.' and
 * '-', other than "." and "..".
 */
bool ketw_name_valid(const char *name)
{
	size_t n = strnlen(name, KETW_NAME_MAX);
	size_t i;

	if (n == 0 || n == KETW_NAME_MAX)
		return false;
	/* Not a directory's own entries: ketwfs lists sessions by name. */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

/*
 * The session named @name (need not be NUL-terminated within
 * KETW_NAME_MAX), without a reference, or NULL. Context: ketw_mutex held;
 * the session is valid while it is. ketw_session_get() is the way in for
 * the other files.
 */
static struct ketw_session *__ketw_session_find(const char *name)
{
	struct ketw_session *s;

	lockdep_assert_held(&ketw_mutex);
	list_for_each_entry(s, &ketw_sessions, node)
		if (!strncmp(s->attr.name, name, KETW_NAME_MAX))
			return s;
	return NULL;
}

static void ketw_session_auto_stop(struct work_struct *work);
static void ketw_session_on_full(void *arg);
static void ketw_session_trig_init(struct ketw_session *s);

/**
 * ketw_default_max_data() - the max_data_size a zero selects
 * @buffer_kb: a normalised per-CPU buffer size.
 *
 * Return: KETW_MAX_DATA_DEFAULT, or less if the largest record would not
 * fit in half a buffer with KETW_SYSTEM_RESERVE to spare.
 */
u32 ketw_default_max_data(u32 buffer_kb)
{
	u32 max_span = buffer_kb * 1024 / 2 - KETW_SYSTEM_RESERVE;

	return min_t(u32, KETW_MAX_DATA_DEFAULT,
		     max_span - KETW_EVENT_HEADER_SIZE);
}

/*
 * Check the caller's attributes and replace zeros by defaults. The largest
 * record, with the OVERFLOW and RESUME records that may precede it, must
 * fit in half a per-CPU buffer, so that padding to the wrap never leaves
 * it without room; KETW_SYSTEM_RESERVE covers those two.
 */
static int ketw_attr_normalise(struct ketw_session_attr *a)
{
	u64 bytes;
	u32 max_span;

	if (a->flags & ~KETW_SESSION_FLAGS || a->ext_items & ~KETW_EXT_ALL ||
	    !ketw_name_valid(a->name))
		return -EINVAL;
	if (!a->buffer_kb)
		a->buffer_kb = KETW_BUFFER_KB_DEFAULT;
	if (a->buffer_kb < KETW_BUFFER_KB_MIN ||
	    a->buffer_kb > KETW_BUFFER_KB_MAX)
		return -EINVAL;
	bytes = roundup_pow_of_two((u64)a->buffer_kb * 1024);
	bytes = max_t(u64, bytes, PAGE_SIZE);
	a->buffer_kb = bytes / 1024;
	max_span = bytes / 2 - KETW_SYSTEM_RESERVE;

	if (!a->policy)
		a->policy = KETW_POLICY_DEFAULT;
	if (a->policy < KETW_POLICY_LOOP || a->policy > KETW_POLICY_FLUSH)
		return -EINVAL;
	if (!a->clock)
		a->clock = KETW_CLOCK_DEFAULT;
	if (a->clock < KETW_CLOCK_MONO || a->clock > KETW_CLOCK_LOCAL)
		return -EINVAL;
	if (a->level > KETW_LEVEL_VERBOSE)
		return -EINVAL;

	if (!a->watermark)
		a->watermark = 50;
	if (a->watermark > 100)
		return -EINVAL;
	a->memory = ketw_mem_need(bytes);
	if (!a->max_data_size)
		a->max_data_size = ketw_default_max_data(a->buffer_kb);
	if (a->max_data_size > KETW_MAX_DATA_SIZE ||
	    KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE + a->max_data_size) >
	    max_span)
		return -EINVAL;
	return 0;
}

/*
 * The ring for normalised attributes @a, its memory charged first
 * (ketw_mem_charge()). Should memory still run out, the OOM killer picks
 * the task that asked, as for ftrace's buffers.
 */
static struct ketw_ring *ketw_session_ring_alloc(struct ketw_session_attr *a,
						 struct ketw_ring_config *cfg)
{
	struct ketw_ring *ring;
	int err;

	err = ketw_mem_charge(a->memory);
	if (err)
		return ERR_PTR(err);
	set_current_oom_origin();
	ring = ketw_ring_alloc(cfg);
	clear_current_oom_origin();
	if (IS_ERR(ring))
		ketw_mem_uncharge(a->memory);
	return ring;
}

/* Free a ring from ketw_session_ring_alloc() (or NULL) of @memory bytes. */
static void ketw_session_ring_free(struct ketw_ring *ring, u64 memory)
{
	if (!ring)
		return;
	ketw_ring_free(ring);
	ketw_mem_uncharge(memory);
}

/* How the ring of session @s with normalised attributes @a behaves. */
static void ketw_session_ring_config(struct ketw_session *s,
				     const struct ketw_session_attr *a,
				     struct ketw_ring_config *cfg)
{
	cfg->size = a->buffer_kb * 1024;
	cfg->policy = a->policy;
	cfg->clock = a->clock;
	cfg->watermark = max_t(u32, (u64)cfg->size * a->watermark / 100,
			       KETW_RECORD_ALIGN);
	cfg->on_full = ketw_session_on_full;
	cfg->arg = s;
}

/**
 * ketw_session_create() - create a stopped session
 * @attr: in: the caller's attributes; out: normalised, with the output
 *        fields filled.
 * @out:  the new session, with a reference for the caller.
 *
 * Holds a reference on the module while the session exists.
 *
 * Return: 0; -EINVAL for bad attributes, -EEXIST if the name is taken,
 * -ENOSPC at KETW_MAX_SESSIONS sessions, -ENOMEM.
 */
int ketw_session_create(struct ketw_session_attr *attr,
			struct ketw_session **out)
{
	struct ketw_ring_config cfg;
	struct ketw_session *s;
	int err;

	err = ketw_attr_normalise(attr);
	if (err)
		return err;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	kref_init(&s->kref);
	mutex_init(&s->read_mutex);
	s->attr = *attr;
	s->attr.size = sizeof(s->attr);
	s->attr.creation_time = ktime_get_real_ns();
	s->attr.clock_resolution = attr->clock == KETW_CLOCK_LOCAL ?
				   1 : hrtimer_resolution;
	s->attr.nr_cpus = nr_cpu_ids;
	s->state = KETW_STATE_CREATED;

	s->max_span = KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE +
				       attr->max_data_size);
	INIT_WORK(&s->auto_stop, ketw_session_auto_stop);
	ketw_session_trig_init(s);
	ketw_session_ring_config(s, attr, &cfg);
	s->ring = ketw_session_ring_alloc(&s->attr, &cfg);
	if (IS_ERR(s->ring)) {
		err = PTR_ERR(s->ring);
		kfree(s);
		return err;
	}

	mutex_lock(&ketw_mutex);
	if (__ketw_session_find(attr->name)) {
		err = -EEXIST;
		goto out_unlock;
	}
	if (ketw_nr_sessions >= KETW_MAX_SESSIONS) {
		err = -ENOSPC;
		goto out_unlock;
	}
	__module_get(THIS_MODULE);
	ketw_nr_sessions++;
	list_add_tail(&s->node, &ketw_sessions);
	kref_get(&s->kref);		/* the list's */
	ketw_session_fill_attr(s, attr);
	mutex_unlock(&ketw_mutex);
	*out = s;
	return 0;

out_unlock:
	mutex_unlock(&ketw_mutex);
	ketw_session_ring_free(s->ring, s->attr.memory);
	kfree(s);
	return err;
}

/* Call with ketw_mutex held, or on a session only the caller can see. */
void ketw_session_fill_attr(struct ketw_session *s,
			    struct ketw_session_attr *attr)
{
	*attr = s->attr;
	attr->state = s->state;
}

/* Do @a and @b differ in what the ring is made of? */
static bool ketw_attr_ring_differs(const struct ketw_session_attr *a,
				   const struct ketw_session_attr *b)
{
	return a->buffer_kb != b->buffer_kb || a->policy != b->policy ||
	       a->clock != b->clock || a->watermark != b->watermark;
}

/**
 * ketw_session_set_attr() - change the attributes of a session not running
 * @s:    the session; the caller holds one reference to it.
 * @attr: in: the attributes wanted, as for ketw_session_create() (the
 *        name and the output fields are ignored); out: the session's,
 *        normalised, whether they changed or not.
 *
 * A new buffer size, policy, clock or watermark takes new buffers: the
 * records in the old ones are dropped and the counters start from zero.
 * A reference to a session is taken under ketw_mutex (the list's,
 * ketw_session_get()'s) or by the holder of another one (a mapping's, by
 * its file's), so when only the list's and the caller's are left while
 * ketw_mutex is held, nothing else can be using the buffers it replaces.
 *
 * Return: 0, also when nothing changes; -EINVAL for bad attributes;
 * -EBUSY while the session runs or anyone else holds it (an attached
 * reader, a mapping, a request under way); -ENOENT if destroyed; -ENOMEM.
 */
int ketw_session_set_attr(struct ketw_session *s,
			  struct ketw_session_attr *attr)
{
	struct ketw_ring *ring = NULL, *old = NULL;
	u64 new_memory, old_memory = 0;
	struct ketw_session_attr cur;
	struct ketw_ring_config cfg;
	bool same;
	int err;

	mutex_lock(&ketw_mutex);
	cur = s->attr;
	mutex_unlock(&ketw_mutex);
	memcpy(attr->name, cur.name, sizeof(attr->name));
	/* Ownership is the creating file's business: it stays as it is. */
	attr->flags = (attr->flags & ~KETW_SESSION_OWNED) |
		      (cur.flags & KETW_SESSION_OWNED);
	err = ketw_attr_normalise(attr);
	if (err)
		return err;
	attr->size = cur.size;
	attr->creation_time = cur.creation_time;
	attr->clock_resolution = attr->clock == KETW_CLOCK_LOCAL ?
				 1 : hrtimer_resolution;
	attr->nr_cpus = cur.nr_cpus;
	if (ketw_attr_ring_differs(attr, &cur)) {
		/* Outside the mutex: buffers may take a while to allocate. */
		ketw_session_ring_config(s, attr, &cfg);
		ring = ketw_session_ring_alloc(attr, &cfg);
		if (IS_ERR(ring))
			return PTR_ERR(ring);
	}

	mutex_lock(&ketw_mutex);
	same = attr->flags == s->attr.flags &&
	       !ketw_attr_ring_differs(attr, &s->attr) &&
	       attr->max_data_size == s->attr.max_data_size &&
	       attr->level == s->attr.level &&
	       attr->ext_items == s->attr.ext_items &&
	       attr->match_any == s->attr.match_any &&
	       attr->match_all == s->attr.match_all;
	if (s->destroyed) {
		err = -ENOENT;
	} else if (same) {
		err = 0;
	} else if (s->state == KETW_STATE_RUNNING ||
		   kref_read(&s->kref) > 2) {
		err = -EBUSY;
	} else if (ketw_attr_ring_differs(attr, &s->attr) && !ring) {
		err = -EBUSY;		/* changed meanwhile */
	} else {
		if (ketw_attr_ring_differs(attr, &s->attr)) {
			old = s->ring;
			old_memory = s->attr.memory;
			s->ring = ring;
			ring = NULL;
			s->auto_stopped = false;
			s->overrun_seen = 0;
		} else {
			attr->memory = s->attr.memory;	/* the same ring */
		}
		s->attr = *attr;
		s->max_span = KETW_RECORD_SPAN(KETW_EVENT_HEADER_SIZE +
					       attr->max_data_size);
	}
	new_memory = attr->memory;
	ketw_session_fill_attr(s, attr);
	mutex_unlock(&ketw_mutex);
	ketw_session_ring_free(ring, new_memory);
	ketw_session_ring_free(old, old_memory);
	return err;
}

/**
 * ketw_session_get() - the session a name names, with a reference
 * @name: the name, as a request carries it (its NUL may be missing).
 *
 * The one way from a name to a session: /dev/ketw's requests, ketwfs's
 * directories and files all look sessions up here.
 *
 * Return: the session with a reference; ERR_PTR(-EINVAL) for a name
 * without its NUL within KETW_NAME_MAX; ERR_PTR(-ENOENT) for none.
 */
struct ketw_session *ketw_session_get(const char *name)
{
	struct ketw_session *s;

	if (strnlen(name, KETW_NAME_MAX) == KETW_NAME_MAX)
		return ERR_PTR(-EINVAL);
	mutex_lock(&ketw_mutex);
	s = __ketw_session_find(name);
	if (s)
		kref_get(&s->kref);
	mutex_unlock(&ketw_mutex);
	return s ? s : ERR_PTR(-ENOENT);
}

/**
 * ketw_sessions_for_each() - call @fn on each session, oldest first
 * @fn:  returns 0 to go on, anything else to stop.
 * @arg: passed to @fn.
 *
 * For ketwfs, which lists the sessions. The sessions stay on the list,
 * and ketw_mutex held, while @fn runs.
 * Context: ketw_mutex held.
 *
 * Return: the first non-zero value @fn returned, or 0.
 */
int ketw_sessions_for_each(int (*fn)(struct ketw_session *s, void *arg),
			   void *arg)
{
	struct ketw_session *s;
	int ret;

	lockdep_assert_held(&ketw_mutex);
	list_for_each_entry(s, &ketw_sessions, node) {
		ret = fn(s, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* @s's line in KETW_IOC_SESSIONS; the caller holds a reference. */
static void ketw_session_info_fill(struct ketw_session *s,
				   struct ketw_session_info *info)
{
	struct ketw_cpu_stats cs;
	int cpu;

	memset(info, 0, sizeof(*info));
	for_each_possible_cpu(cpu) {
		ketw_session_stats_cpu(s, cpu, &cs);
		info->written += cs.written;
		info->overwritten += cs.overwritten;
		info->lost += cs.lost_full + cs.lost_busy + cs.lost_nested;
	}
	mutex_lock(&ketw_mutex);
	memcpy(info->name, s->attr.name, sizeof(info->name));
	info->state = s->state;
	info->policy = s->attr.policy;
	info->clock = s->attr.clock;
	info->buffer_kb = s->attr.buffer_kb;
	info->nr_cpus = s->attr.nr_cpus;
	info->session_flags = s->attr.flags;
	info->info_flags = s->explicit ? 0 : KETW_SESSION_INFO_ALL_PROVIDERS;
	info->nr_providers = s->explicit ? s->nr_enables : 0;
	info->readers = s->attached;
	info->level = s->attr.level;
	info->max_data_size = s->attr.max_data_size;
	info->creation_time = s->attr.creation_time;
	info->memory = s->attr.memory;
	mutex_unlock(&ketw_mutex);
}

/**
 * ketw_sessions_list() - every session's struct ketw_session_info, to user space
 * @l: the request, its size checked; @l->count is set to the number of
 *     sessions.
 *
 * The sessions are taken, with a reference each, under ketw_mutex, then
 * described and copied out without it: a session destroyed meanwhile is
 * still listed, as it was.
 *
 * Return: 0; -EINVAL if @l->entry_size is below
 * KETW_SESSION_INFO_SIZE_VER0; -E2BIG above a page; -EFAULT; -ENOMEM.
 */
int ketw_sessions_list(struct ketw_session_list *l)
{
	u8 __user *out = u64_to_user_ptr(l->entries);
	size_t stride = l->entry_size, len;
	struct ketw_session **ss = NULL;
	struct ketw_session_info info;
	struct ketw_session *s;
	u32 n = 0, i = 0, j, cap;
	int err = 0;

	if (stride < KETW_SESSION_INFO_SIZE_VER0)
		return -EINVAL;
	if (stride > PAGE_SIZE)
		return -E2BIG;
	len = min(stride, sizeof(info));
	/* At most KETW_MAX_SESSIONS: allocated before the lock. */
	cap = min_t(u32, l->capacity, KETW_MAX_SESSIONS);
	if (cap) {
		ss = kcalloc(cap, sizeof(*ss), GFP_KERNEL);
		if (!ss)
			return -ENOMEM;
	}
	mutex_lock(&ketw_mutex);
	list_for_each_entry(s, &ketw_sessions, node) {
		if (i < cap) {
			kref_get(&s->kref);
			ss[i++] = s;
		}
		n++;
	}
	mutex_unlock(&ketw_mutex);
	for (j = 0; j < i; j++) {
		u8 __user *e = out + (size_t)j * stride;

		ketw_session_info_fill(ss[j], &info);
		ketw_session_put(ss[j]);
		if (err)
			continue;	/* put the rest */
		if (copy_to_user(e, &info, len) ||
		    clear_user(e + len, stride - len))
			err = -EFAULT;
	}
	kfree(ss);
	l->count = n;
	return err;
}

/*
 * The last reference went: free everything. This may run inside munmap()
 * (mmap_lock held), in the auto-stop work or in any file operation, so it
 * takes no lock and waits for nothing that does (see
 * Documentation/ketw-lifetimes.rst). No auto-stop or trigger work is
 * queued: a queued one holds a reference.
 */
static void ketw_session_release(struct kref *kref)
{
	struct ketw_session *s = container_of(kref, struct ketw_session, kref);

	/* No on_full call is running or will run. */
	ketw_ring_quiesce(s->ring);
	/* Nor the triggers' irq_work (the last stop synced it already). */
	irq_work_sync(&s->trig.iw);
	ketw_session_ring_free(s->ring, s->attr.memory);
	ketw_session_enables_free(s);
	ketw_triggers_free(s);
	kfree(s);
	/*
	 * Safe: every caller runs code of this module that something else
	 * pins: a file operation or a mapping (the vma holds its file), or
	 * the auto-stop work, which module exit waits for.
	 */
	module_put(THIS_MODULE);
}

void ketw_session_put(struct ketw_session *s)
{
	kref_put(&s->kref, ketw_session_release);
}

/*
 * ETW's DC_START rundown, ThreadX's object registry: every provider with
 * its event descriptors (ketw_providers_rundown()), where code is loaded
 * (MODULE, ketw_modules_rundown()), then every thread
 * (TASK), so that the trace decodes without this machine.
 * Context: ketw_mutex held.
 */
static void ketw_session_log_rundown(struct ketw_session *s)
{
	struct task_struct *p, *t;
	struct ketw_sys_task st;

	lockdep_assert_held(&ketw_mutex);
	ketw_providers_rundown(s);
	ketw_modules_rundown(s);
	rcu_read_lock();
	for_each_process_thread(p, t) {
		memset(&st, 0, sizeof(st));
		st.process_id = task_tgid_nr(t);
		st.thread_id = task_pid_nr(t);
		get_task_comm(st.comm, t);
		ketw_session_log_system(s, KETW_SYS_TASK, KETW_TYPE_DC_START,
					&st, sizeof(st));
	}
	rcu_read_unlock();
}

static void __ketw_session_stop(struct ketw_session *s, u32 auto_stop);

/*
 * The triggers' actions (Documentation/ketw-lifetimes.rst, "trigger
 * actions"): a fire sets a bit in trig.todo and queues trig.iw, whose
 * handler (hard interrupt context) wakes readers or queues the delayed
 * works. A reference taken here is never the last one: the irq_work runs
 * only between a start and the stop that syncs it, and the list's
 * reference goes only after that stop (__ketw_session_destroy()), so the
 * put of a work already pending is safe in interrupt context.
 */
static void ketw_session_trig_queue(struct ketw_session *s,
				    struct delayed_work *dw, int ms)
{
	if (!kref_get_unless_zero(&s->kref))
		return;
	if (!queue_delayed_work(ketw_wq, dw, msecs_to_jiffies(ms)))
		ketw_session_put(s);	/* pending: it keeps its own */
}

static void ketw_session_trig_iw(struct irq_work *iw)
{
	struct ketw_session *s = container_of(iw, struct ketw_session,
					      trig.iw);
	struct ketw_session_trig *st = &s->trig;
	int todo = atomic_xchg(&st->todo, 0);

	if (todo & KETW_TRIG_TODO_WAKE) {
		atomic_inc(&st->wakeups);
		ketw_ring_wake(s->ring);
	}
	if (todo & KETW_TRIG_TODO_STOP) {
		if (!delayed_work_pending(&st->stop_dw))
			WRITE_ONCE(st->stop_gen, READ_ONCE(st->gen));
		ketw_session_trig_queue(s, &st->stop_dw,
					atomic_read(&st->stop_ms));
	}
	if (todo & KETW_TRIG_TODO_SNAP)
		ketw_session_trig_queue(s, &st->snap_dw,
					atomic_read(&st->snap_ms));
}

/* A STOP's post delay is over: stop the run it fired in. */
static void ketw_session_trig_stop_fn(struct work_struct *work)
{
	struct ketw_session *s = container_of(to_delayed_work(work),
					      struct ketw_session,
					      trig.stop_dw);
	u32 gen = READ_ONCE(s->trig.stop_gen);

	mutex_lock(&ketw_mutex);
	if (!s->destroyed && s->state == KETW_STATE_RUNNING &&
	    s->trig.gen == gen)
		__ketw_session_stop(s, KETW_STOP_TRIGGER);
	mutex_unlock(&ketw_mutex);
	ketw_session_put(s);
}

/* A SNAPSHOT's post delay is over: tell the readers. */
static void ketw_session_trig_snap_fn(struct work_struct *work)
{
	struct ketw_session *s = container_of(to_delayed_work(work),
					      struct ketw_session,
					      trig.snap_dw);

	atomic_inc(&s->trig.snapshots_ready);
	ketw_ring_wake(s->ring);
	ketw_session_put(s);
}

static void ketw_session_trig_init(struct ketw_session *s)
{
	init_irq_work(&s->trig.iw, ketw_session_trig_iw);
	INIT_DELAYED_WORK(&s->trig.stop_dw, ketw_session_trig_stop_fn);
	INIT_DELAYED_WORK(&s->trig.snap_dw, ketw_session_trig_snap_fn);
}

/*
 * A stopping session, no writer inside it any more: take what its
 * triggers set in motion. A pending SNAPSHOT is ready now (no more
 * records come), a pending STOP is moot; neither is waited for if it
 * runs already (see ketw_session_trig_stop_fn()).
 */
static void ketw_session_trig_stop(struct ketw_session *s)
{
	struct ketw_session_trig *st = &s->trig;

	lockdep_assert_held(&ketw_mutex);
	irq_work_sync(&st->iw);
	st->gen++;
	if (cancel_delayed_work(&st->stop_dw))
		ketw_session_put(s);	/* not the last: the caller's */
	if (cancel_delayed_work(&st->snap_dw)) {
		atomic_inc(&st->snapshots_ready);
		ketw_session_put(s);
	}
}

static void ketw_session_report_lost(void *arg)
{
	struct ketw_session *s = arg;

	/* Where it runs: the IPI, or on_each_cpu()'s own CPU, irqs off. */
	ketw_ring_report_lost(s->ring,
			      ketw_record_context(preempt_count(), 0));
}

/*
 * Process context: stop an UNTIL_FULL session that filled up, and drop
 * the reference ketw_session_on_full() took for this run.
 */
static void ketw_session_auto_stop(struct work_struct *work)
{
	struct ketw_session *s = container_of(work, struct ketw_session,
					      auto_stop);

	/* A fill after this point queues the work again. */
	atomic_set(&s->auto_stop_queued, 0);
	mutex_lock(&ketw_mutex);
	/*
	 * Only the run that filled: one stopped and started again since
	 * (its START rearmed the ring, under ketw_mutex) is not full, unless
	 * it filled too, and then on_full was called for it.
	 */
	if (!s->destroyed && s->state == KETW_STATE_RUNNING &&
	    ketw_ring_full_called(s->ring)) {
		__ketw_session_stop(s, KETW_STOP_FULL);
		s->auto_stopped = true;
	}
	mutex_unlock(&ketw_mutex);
	ketw_session_put(s);
}

/*
 * From irq_work: a writer lost an event for lack of room in UNTIL_FULL.
 * The work holds a reference while it is queued, so that the release
 * never waits for it. Whoever sets auto_stop_queued queues the work,
 * which is then not pending (the work clears the flag when it starts),
 * so queue_work() succeeds and each queueing carries one reference. A
 * session whose last reference is going needs no stop (its release
 * syncs this irq_work before freeing).
 */
static void ketw_session_on_full(void *arg)
{
	struct ketw_session *s = arg;

	if (atomic_xchg(&s->auto_stop_queued, 1))
		return;
	if (!kref_get_unless_zero(&s->kref)) {
		atomic_set(&s->auto_stop_queued, 0);
		return;
	}
	queue_work(ketw_wq, &s->auto_stop);
}

/**
 * ketw_session_start() - start tracing, or resume a stopped session
 * @s: the session.
 *
 * Logs START (its payload: the session's filter), then enables the
 * session's providers. A stopped session keeps what its buffers hold:
 * the new records follow its STOP (POSIX posix_trace_start() after
 * posix_trace_stop()). The status starts the run afresh only in
 * auto_stopped; the overrun status and the flush error stay until a
 * STATUS reports them.
 *
 * Return: 0; -EBUSY if running, -ENOENT if destroyed; -ENOSPC for an
 * UNTIL_FULL session whose buffers are still full (POSIX: nothing is
 * logged and the status does not change).
 */
int ketw_session_start(struct ketw_session *s)
{
	struct ketw_sys_start st = {};
	int err = 0;

	mutex_lock(&ketw_mutex);
	if (s->destroyed) {
		err = -ENOENT;
	} else if (s->state == KETW_STATE_RUNNING) {
		err = -EBUSY;
	} else if (s->attr.policy == KETW_POLICY_UNTIL_FULL &&
		   ketw_ring_full(s->ring, s->max_span)) {
		err = -ENOSPC;
	} else {
		s->auto_stopped = false;
		ketw_ring_rearm(s->ring);
		st.level = s->attr.level;
		st.match_any = s->attr.match_any;
		st.match_all = s->attr.match_all;
		ketw_session_log_system(s, KETW_SYS_START, KETW_TYPE_INFO,
					&st, sizeof(st));
		/* The registry, so that the trace decodes on its own. */
		if (!(s->attr.flags & KETW_SESSION_NO_RUNDOWN))
			ketw_session_log_rundown(s);
		WRITE_ONCE(s->state, KETW_STATE_RUNNING);
		ketw_providers_attach(s);
	}
	mutex_unlock(&ketw_mutex);
	return err;
}

static void __ketw_session_stop(struct ketw_session *s, u32 auto_stop)
{
	struct ketw_sys_stop st = { .auto_stop = auto_stop };

	lockdep_assert_held(&ketw_mutex);
	ketw_providers_detach(s);
	/* No writer is inside the session's buffers after this. */
	synchronize_rcu();
	ketw_session_trig_stop(s);
	/* Report losses after each CPU's last record, on that CPU. */
	on_each_cpu(ketw_session_report_lost, s, 1);
	ketw_session_log_system(s, KETW_SYS_STOP, KETW_TYPE_INFO, &st, sizeof(st));
	WRITE_ONCE(s->state, KETW_STATE_SUSPENDED);
	ketw_ring_wake(s->ring);
}

/**
 * ketw_session_stop() - stop tracing; the buffers keep their records
 * @s: the session.
 *
 * Return: 0; -EALREADY if not running, -ENOENT if destroyed.
 */
int ketw_session_stop(struct ketw_session *s)
{
	int err = 0;

	mutex_lock(&ketw_mutex);
	if (s->destroyed)
		err = -ENOENT;
	else if (s->state != KETW_STATE_RUNNING)
		err = -EALREADY;
	else
		__ketw_session_stop(s, KETW_STOP_EXPLICIT);
	mutex_unlock(&ketw_mutex);
	return err;
}

static void __ketw_session_destroy(struct ketw_session *s)
{
	lockdep_assert_held(&ketw_mutex);
	if (s->state == KETW_STATE_RUNNING)
		__ketw_session_stop(s, KETW_STOP_EXPLICIT);
	/* In no enable set any more: the filter goes with the session. */
	s->pids_dropped += ketw_pids_dropped(s->pids);
	ketw_pids_retire(s->pids);
	s->pids = NULL;
	s->destroyed = true;
	list_del(&s->node);
	ketw_nr_sessions--;
	ketw_session_put(s);		/* the list's */
}

/**
 * ketw_session_destroy() - stop a session and remove it
 * @s:    the session (the caller holds a reference).
 * @mine: the session the calling file is attached to, or NULL.
 *
 * The memory goes when the last attached file lets go.
 *
 * Return: 0; -EBUSY while a file other than the caller's is attached,
 * -ENOENT if already destroyed.
 */
int ketw_session_destroy(struct ketw_session *s, struct ketw_session *mine)
{
	int err = 0;

	mutex_lock(&ketw_mutex);
	if (s->destroyed)
		err = -ENOENT;
	else if (s->attached > (s == mine ? 1 : 0))
		err = -EBUSY;
	else
		__ketw_session_destroy(s);
	mutex_unlock(&ketw_mutex);
	return err;
}

/**
 * ketw_session_destroyed() - has @s been removed from the list?
 * @s: the session; the caller holds a reference.
 *
 * Return: true once DESTROY, rmdir or its owner's release removed it.
 */
bool ketw_session_destroyed(struct ketw_session *s)
{
	bool ret;

	mutex_lock(&ketw_mutex);
	ret = s->destroyed;
	mutex_unlock(&ketw_mutex);
	return ret;
}

/**
 * ketw_session_destroy_owned() - destroy a session its owner lets go of
 * @s: the session (the caller, the owner file's release, holds a
 *     reference).
 *
 * As ketw_session_destroy(), but whoever else is attached: their files
 * keep their reference to a stopped session that is no longer listed,
 * and their read() drains what is left, then returns 0
 * (Documentation/ketw-lifetimes.rst, "An owned session"). Nothing to do
 * if it is destroyed already.
 */
void ketw_session_destroy_owned(struct ketw_session *s)
{
	mutex_lock(&ketw_mutex);
	if (!s->destroyed)
		__ketw_session_destroy(s);
	mutex_unlock(&ketw_mutex);
}

/* Module exit: nothing can hold a session then, but be thorough. */
void ketw_sessions_destroy_all(void)
{
	struct ketw_session *s;

	mutex_lock(&ketw_mutex);
	while (!list_empty(&ketw_sessions)) {
		s = list_first_entry(&ketw_sessions, struct ketw_session, node);
		kref_get(&s->kref);
		__ketw_session_destroy(s);
		mutex_unlock(&ketw_mutex);
		ketw_session_put(s);	/* the last: outside the mutex */
		mutex_lock(&ketw_mutex);
	}
	mutex_unlock(&ketw_mutex);
}

/**
 * ketw_session_read_begin() - start reading @s's buffers
 * @s: the session; the caller holds a reference.
 *
 * An mmap consumer owns the positions while it maps a data area: a read
 * between this and ketw_session_read_end() keeps one from being mapped.
 *
 * Return: 0; -EBUSY while a data area is mapped.
 */
int ketw_session_read_begin(struct ketw_session *s)
{
	return ketw_ring_read_begin(s->ring);
}

/**
 * ketw_session_read_end() - end what ketw_session_read_begin() started
 * @s: the session.
 */
void ketw_session_read_end(struct ketw_session *s)
{
	ketw_ring_read_end(s->ring);
}

/**
 * ketw_session_read_lock() - be @s's one consuming reader
 * @s: the session; the caller holds a reference.
 *
 * Takes @s's read_mutex: records are consumed (ketw_session_read_cpu(),
 * ketw_session_consume_cpu()) or copied (ketw_session_snapshot_cpu())
 * under it.
 *
 * Return: 0; -ERESTARTSYS on a signal.
 */
int ketw_session_read_lock(struct ketw_session *s)
{
	return mutex_lock_interruptible(&s->read_mutex) ? -ERESTARTSYS : 0;
}

/**
 * ketw_session_read_unlock() - release what ketw_session_read_lock() took
 * @s: the session.
 */
void ketw_session_read_unlock(struct ketw_session *s)
{
	mutex_unlock(&s->read_mutex);
}

/**
 * ketw_session_read_cpu() - drain whole records of one CPU of @s
 * @s:   the session, read begun and locked (ketw_session_read_begin(),
 *       ketw_session_read_lock()).
 * @cpu: a possible CPU.
 * @buf: user buffer.
 * @len: its size.
 *
 * The read of /dev/ketw (every CPU, ketw_session_read()) and of ketwfs's
 * trace_pipe_raw (one CPU) both read through it.
 *
 * Return: bytes read, 0 if the CPU has no record; -EMSGSIZE if the next
 * record is larger than @len; -EFAULT.
 */
ssize_t ketw_session_read_cpu(struct ketw_session *s, int cpu,
			      char __user *buf, size_t len)
{
	return ketw_ring_read_cpu(s->ring, cpu, buf, len);
}

/**
 * ketw_session_peek_cpu() - copy @cpu's next record without consuming it
 * @s:   the session, read begun and locked.
 * @cpu: a possible CPU.
 * @buf: where to copy it.
 * @len: @buf's size.
 * @pos: where the record is, for ketw_session_consume_cpu().
 *
 * Return: the record's span; 0 if there is none; -EMSGSIZE if it is
 * larger than @len.
 */
ssize_t ketw_session_peek_cpu(struct ketw_session *s, int cpu, void *buf,
			      size_t len, u32 *pos)
{
	return ketw_ring_peek_cpu(s->ring, cpu, buf, len, pos);
}

/**
 * ketw_session_consume_cpu() - consume the record ketw_session_peek_cpu() saw
 * @s:    the session, read begun and locked.
 * @cpu:  its CPU.
 * @pos:  the record's position, from ketw_session_peek_cpu().
 * @span: its span.
 *
 * Return: true; false if a LOOP writer took the record meanwhile.
 */
bool ketw_session_consume_cpu(struct ketw_session *s, int cpu, u32 pos,
			      u32 span)
{
	return ketw_ring_consume_cpu(s->ring, cpu, pos, span);
}

/**
 * ketw_session_snapshot_cpu() - copy @cpu's records, consuming none
 * @s:       the session, read locked.
 * @cpu:     a possible CPU.
 * @buf:     kernel buffer.
 * @len:     its size.
 * @copied:  bytes copied.
 * @dropped: bytes of the oldest records LOOP writers took meanwhile.
 *
 * Return: 0 or a negative errno.
 */
int ketw_session_snapshot_cpu(struct ketw_session *s, int cpu, void *buf,
			      size_t len, u64 *copied, u64 *dropped)
{
	return ketw_ring_snapshot_cpu_kernel(s->ring, cpu, buf, len, copied,
					     dropped);
}

/**
 * ketw_session_snapshot_cpu_user() - ketw_session_snapshot_cpu() to user space
 * @s:       the session; the caller holds a reference (KETW_IOC_SNAPSHOT
 *           takes no read lock).
 * @cpu:     a possible CPU.
 * @buf:     user buffer.
 * @len:     its size.
 * @copied:  bytes copied.
 * @dropped: bytes of the oldest records LOOP writers took meanwhile.
 *
 * Return: 0 or a negative errno.
 */
int ketw_session_snapshot_cpu_user(struct ketw_session *s, int cpu,
				   char __user *buf, size_t len,
				   u64 *copied, u64 *dropped)
{
	return ketw_ring_snapshot_cpu(s->ring, cpu, buf, len, copied, dropped);
}

/**
 * ketw_session_stats_cpu() - @cpu's counters of @s
 * @s:   the session; the caller holds a reference.
 * @cpu: a possible CPU.
 * @st:  filled in (all but its name and cpu).
 */
void ketw_session_stats_cpu(struct ketw_session *s, int cpu,
			    struct ketw_cpu_stats *st)
{
	ketw_ring_stats_cpu(s->ring, cpu, st);
}

/**
 * ketw_session_empty() - does no CPU (or @cpu, if not negative) have a record?
 * @s:   the session; the caller holds a reference.
 * @cpu: a possible CPU, or -1 for every CPU.
 */
bool ketw_session_empty(struct ketw_session *s, int cpu)
{
	return cpu < 0 ? ketw_ring_empty(s->ring) :
			 ketw_ring_cpu_empty(s->ring, cpu);
}

/**
 * ketw_session_wait_records() - sleep until @s (or its @cpu) may have records
 * @s:   the session; the caller holds a reference, and not its read lock.
 * @cpu: a possible CPU, or -1 for any CPU.
 *
 * Sleeps at most 100 ms (see ketw_session_wait()).
 *
 * Return: 0, also on a timeout; -ERESTARTSYS on a signal.
 */
int ketw_session_wait_records(struct ketw_session *s, int cpu)
{
	return cpu < 0 ? ketw_ring_wait(s->ring, KETW_WAIT_ANY, HZ / 10) :
			 ketw_ring_wait_cpu(s->ring, cpu, HZ / 10);
}

/**
 * ketw_session_poll_wait() - poll_wait() on every CPU's readers' queue
 * @s:    the session; the caller holds a reference.
 * @file: the polled file.
 * @pt:   its poll table.
 */
void ketw_session_poll_wait(struct ketw_session *s, struct file *file,
			    struct poll_table_struct *pt)
{
	ketw_ring_poll_wait_any(s->ring, file, pt);
}

/**
 * ketw_session_stopped() - is @s stopped (suspended)?
 * @s: the session; the caller holds a reference.
 *
 * Under ketw_mutex, so that the state is seen after the STOP record the
 * stopper logged under it.
 */
bool ketw_session_stopped(struct ketw_session *s)
{
	bool stopped;

	mutex_lock(&ketw_mutex);
	stopped = s->state == KETW_STATE_SUSPENDED;
	mutex_unlock(&ketw_mutex);
	return stopped;
}

/**
 * ketw_session_read() - drain whole records from every CPU, without waiting
 * @s:      the session.
 * @cursor: the caller's CPU to start from; advanced for fairness.
 * @buf:    user buffer.
 * @len:    its size.
 *
 * Return: bytes read; 0 when the session is not running and nothing is
 * left; -EAGAIN when it runs and nothing is there yet (see
 * ketw_session_wait()); -EINVAL if the next record is larger than @len;
 * -EBUSY while a data area is mapped; -ERESTARTSYS; -EFAULT.
 */
ssize_t ketw_session_read(struct ketw_session *s, unsigned int *cursor,
			  char __user *buf, size_t len)
{
	unsigned int i, cpu, first = READ_ONCE(*cursor) % nr_cpu_ids;
	size_t copied = 0;
	ssize_t n, err = 0;

	n = ketw_session_read_begin(s);
	if (n)
		return n;
	n = ketw_session_read_lock(s);
	if (n) {
		ketw_session_read_end(s);
		return n;
	}
	for (i = 0; i < nr_cpu_ids && copied < len; i++) {
		cpu = (first + i) % nr_cpu_ids;
		if (!cpu_possible(cpu))
			continue;
		n = ketw_session_read_cpu(s, cpu, buf + copied, len - copied);
		if (n >= 0) {
			copied += n;
			continue;
		}
		if (!err)
			err = n;
		/* The rest of this CPU does not fit: return what we have. */
		if (n == -EMSGSIZE && copied)
			break;
	}
	/* Threads sharing the file may race here: any CPU will do. */
	WRITE_ONCE(*cursor, (first + 1) % nr_cpu_ids);
	if (copied)
		n = copied;
	else if (err)
		n = err == -EMSGSIZE ? -EINVAL : err;
	else if (READ_ONCE(s->state) != KETW_STATE_RUNNING &&
		 ketw_ring_empty(s->ring))
		n = 0;
	else
		n = -EAGAIN;
	ketw_session_read_unlock(s);
	ketw_session_read_end(s);
	return n;
}

/**
 * ketw_session_wait() - sleep until @s may have records for a reader
 * @s:        the session; the caller holds a reference.
 * @wq:       the caller's wait queue, which @s's ring wakes (an entry of
 *            the caller's on it, see ketw_session_watch()), and which
 *            whoever changes *@attached wakes after the change.
 * @attached: the caller's pointer to the session it reads: the caller
 *            does not sleep, or wakes, once it no longer points to @s.
 *
 * Sleeps at most 100 ms: writers do not order their look at the ring's
 * waiting flag against their commit, so a wakeup can be missed.
 *
 * Return: 0, also on a timeout; -ERESTARTSYS on a signal.
 */
int ketw_session_wait(struct ketw_session *s, wait_queue_head_t *wq,
		      struct ketw_session *const *attached)
{
	DEFINE_WAIT(wait);

	prepare_to_wait(wq, &wait, TASK_INTERRUPTIBLE);
	ketw_ring_arm_wakeup(s->ring, KETW_WAIT_ANY);
	if (READ_ONCE(*attached) == s &&
	    READ_ONCE(s->state) == KETW_STATE_RUNNING &&
	    ketw_ring_empty(s->ring) && !signal_pending(current))
		schedule_timeout(HZ / 10);
	finish_wait(wq, &wait);
	return signal_pending(current) ? -ERESTARTSYS : 0;
}

/**
 * ketw_session_poll() - the poll mask of a reader of @s
 * @s: the session; the caller holds a reference and has called
 *     poll_wait() on a wait queue that @s's ring wakes.
 *
 * Return: EPOLLIN at the watermark (with KETW_SESSION_WAKE_ANY, at any
 * record); when the session is not running, EPOLLIN while records are
 * left and EPOLLHUP once it is drained; else 0.
 */
__poll_t ketw_session_poll(struct ketw_session *s)
{
	if (READ_ONCE(s->attr.flags) & KETW_SESSION_WAKE_ANY) {
		ketw_ring_arm_wakeup(s->ring, KETW_WAIT_ANY);
		if (!ketw_ring_empty(s->ring))
			return EPOLLIN | EPOLLRDNORM;
	} else {
		ketw_ring_arm_wakeup(s->ring, KETW_WAIT_WATERMARK);
		if (ketw_ring_above_watermark(s->ring))
			return EPOLLIN | EPOLLRDNORM;
	}
	if (READ_ONCE(s->state) != KETW_STATE_RUNNING)
		return ketw_ring_empty(s->ring) ? EPOLLHUP :
						  EPOLLIN | EPOLLRDNORM;
	return 0;
}

/**
 * ketw_session_attach() - move a file's attachment from @old to @s
 * @s:   the session the file attaches to, or NULL.
 * @old: the session it leaves, or NULL.
 *
 * Counts what ketw_session_destroy() checks; the caller keeps its
 * references as they are.
 *
 * Return: 0; -ENOENT if @s is destroyed (nothing changes).
 */
int ketw_session_attach(struct ketw_session *s, struct ketw_session *old)
{
	int err = 0;

	mutex_lock(&ketw_mutex);
	if (s && s->destroyed) {
		err = -ENOENT;
	} else {
		if (s)
			s->attached++;
		if (old)
			old->attached--;
	}
	mutex_unlock(&ketw_mutex);
	return err;
}

/**
 * ketw_session_watch() - have @s's ring wake @wq_entry
 * @s:        the session; the caller holds a reference until
 *            ketw_session_unwatch().
 * @wq_entry: an entry whose function runs (interrupts off) at each wakeup
 *            of @s's readers.
 *
 * The ring of a session that someone besides the list and the caller
 * holds is never replaced (ketw_session_set_attr()), so the entry stays
 * on the right ring.
 */
void ketw_session_watch(struct ketw_session *s,
			struct wait_queue_entry *wq_entry)
{
	ketw_ring_wait_add(s->ring, wq_entry);
}

/**
 * ketw_session_unwatch() - undo ketw_session_watch()
 * @s:        the session.
 * @wq_entry: the entry.
 */
void ketw_session_unwatch(struct ketw_session *s,
			  struct wait_queue_entry *wq_entry)
{
	ketw_ring_wait_del(s->ring, wq_entry);
}

/**
 * ketw_session_status() - the POSIX stream status and totals
 * @s:  the session.
 * @st: out: every field but size and name.
 *
 * Reading resets the overrun status and the flush error, as POSIX's
 * posix_trace_get_status() does.
 *
 * Return: 0.
 */
int ketw_session_status(struct ketw_session *s,
			struct ketw_session_status *st)
{
	struct ketw_cpu_stats cs;
	u64 lost = 0;
	int cpu;

	st->written = 0;
	st->overwritten = 0;
	for_each_possible_cpu(cpu) {
		ketw_session_stats_cpu(s, cpu, &cs);
		st->written += cs.written;
		st->overwritten += cs.overwritten;
		lost += cs.lost_full + cs.lost_busy + cs.lost_nested;
	}
	st->lost = lost;
	st->nr_cpus = nr_cpu_ids;
	st->full_status = ketw_ring_full(s->ring, s->max_span) ?
			  KETW_FULL_FULL : KETW_FULL_NOT_FULL;

	mutex_lock(&ketw_mutex);
	st->state = s->state;
	st->auto_stopped = s->auto_stopped;
	st->overrun_status = lost + st->overwritten != s->overrun_seen ?
			     KETW_OVERRUN_OVERRUN : KETW_OVERRUN_NONE;
	s->overrun_seen = lost + st->overwritten;
	st->flush_status = s->flushing ? KETW_FLUSH_FLUSHING :
					 KETW_FLUSH_NOT_FLUSHING;
	st->flush_error = s->flush_error;
	s->flush_error = 0;
	st->pids = ketw_pids_count(s->pids);
	st->pids_dropped = s->pids_dropped + ketw_pids_dropped(s->pids);
	mutex_unlock(&ketw_mutex);
	st->triggers_fired = atomic_read(&s->trig.fired);
	st->snapshots_ready = atomic_read(&s->trig.snapshots_ready);
	st->wakeups = atomic_read(&s->trig.wakeups);
	return 0;
}

/**
 * ketw_session_trigger_add() - arm a trigger on a session
 * @s:   the session; the caller holds a reference.
 * @req: in: a request ketw_trigger_check() passed; out: its id and the
 *       rate limit used.
 *
 * The trigger watches from now if the session runs (its providers'
 * enable sets are rebuilt), else from its next start.
 *
 * Return: 0; -ENOSPC at KETW_MAX_TRIGGERS; -ENOENT if destroyed, or for
 * an unknown provider, event or field; -EINVAL for a field that is not
 * an integer; -ENOMEM.
 */
int ketw_session_trigger_add(struct ketw_session *s, struct ketw_trigger *req)
{
	const struct ketw_field *field = NULL;
	struct ketw_trig_set *old, *new;
	char name[KETW_NAME_MAX] = "";
	u8 guid[KETW_GUID_SIZE];
	struct ketw_trig *t;
	bool user = false;
	int err;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&ketw_mutex);
	old = rcu_dereference_protected(s->triggers,
					lockdep_is_held(&ketw_mutex));
	if (s->destroyed) {
		err = -ENOENT;
		goto out;
	}
	if (old && old->nr >= KETW_MAX_TRIGGERS) {
		err = -ENOSPC;
		goto out;
	}
	err = ketw_provider_trigger_target(req, guid, &user, name, &field);
	if (err)
		goto out;
	t = ketw_trig_new(req, s->next_trigger_id + 1, guid, user, name,
			  field);
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	s->next_trigger_id++;
	if (old) {
		memcpy(new->t, old->t, old->nr * sizeof(new->t[0]));
		new->nr = old->nr;
	}
	new->t[new->nr++] = t;
	rcu_assign_pointer(s->triggers, new);
	if (s->state == KETW_STATE_RUNNING)
		ketw_providers_attach(s);
	mutex_unlock(&ketw_mutex);
	if (old)
		kfree_rcu(old, rcu);
	req->id = ketw_trig_id(t);
	if (!req->min_interval_ms)
		req->min_interval_ms = KETW_TRIGGER_INTERVAL_DEFAULT;
	return 0;
out:
	mutex_unlock(&ketw_mutex);
	kfree(new);
	return err;
}

/**
 * ketw_session_trigger_del() - remove a trigger, or all, from a session
 * @s:  the session; the caller holds a reference.
 * @id: the trigger's id, or 0 for all of them.
 *
 * Writers may still be firing the trigger; it is freed after them. An
 * action it fired already is the session's and goes on.
 *
 * Return: 0 (also for 0 on a session with none); -ENOENT for an unknown
 * @id or a destroyed session; -ENOMEM.
 */
int ketw_session_trigger_del(struct ketw_session *s, u32 id)
{
	struct ketw_trig *gone[KETW_MAX_TRIGGERS];
	struct ketw_trig_set *old, *new;
	unsigned int i, n = 0;
	int err = 0;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&ketw_mutex);
	old = rcu_dereference_protected(s->triggers,
					lockdep_is_held(&ketw_mutex));
	if (s->destroyed) {
		err = -ENOENT;
		goto out;
	}
	for (i = 0; old && i < old->nr; i++) {
		if (!id || ketw_trig_id(old->t[i]) == id)
			gone[n++] = old->t[i];
		else
			new->t[new->nr++] = old->t[i];
	}
	if (!n) {
		err = id ? -ENOENT : 0;
		goto out;
	}
	if (!new->nr) {
		kfree(new);
		new = NULL;
	}
	rcu_assign_pointer(s->triggers, new);
	if (s->state == KETW_STATE_RUNNING)
		ketw_providers_attach(s);
	mutex_unlock(&ketw_mutex);
	/* After the enable sets that pointed to them were replaced. */
	kfree_rcu(old, rcu);
	for (i = 0; i < n; i++)
		ketw_trig_free_rcu(gone[i]);
	return 0;
out:
	mutex_unlock(&ketw_mutex);
	kfree(new);
	return err;
}

/* The payload stays smaller than the struct a version-0 reader expects. */
static_assert(sizeof(struct ketw_sys_filter_pids) +
	      KETW_SYS_FILTER_PIDS_MAX * sizeof(u32) <
	      sizeof(struct ketw_sys_filter));

/*
 * FILTER (version KETW_SYS_FILTER_PIDS) into running session @s, whose
 * filter @old_flags and @old_count described was replaced by @s->pids.
 * Context: ketw_mutex held.
 */
static void ketw_session_log_pids(struct ketw_session *s, u32 old_flags,
				  u32 old_count)
{
	struct ketw_sys_filter_pids *r;
	u32 *ids = NULL, n = 0;

	lockdep_assert_held(&ketw_mutex);
	r = kzalloc(struct_size(r, pids, KETW_SYS_FILTER_PIDS_MAX), GFP_KERNEL);
	if (s->pids)
		ids = kmalloc_array(KETW_PIDS_MAX, sizeof(*ids), GFP_KERNEL);
	if (!r || (s->pids && !ids)) {
		struct ketw_sys_error e = { .error = -ENOMEM };

		ketw_session_log_system(s, KETW_SYS_ERROR, KETW_TYPE_INFO, &e,
					sizeof(e));
		goto out;
	}
	r->old_flags = old_flags;
	r->old_count = old_count;
	if (s->pids) {
		r->new_flags = ketw_pids_flags(s->pids) | KETW_PIDS_ACTIVE;
		n = ketw_pids_ids(s->pids, &init_pid_ns, ids);
		r->new_count = n;
		r->nr = min_t(u32, n, KETW_SYS_FILTER_PIDS_MAX);
		memcpy(r->pids, ids, r->nr * sizeof(*ids));
	}
	ketw_session_log_system_ver(s, KETW_SYS_FILTER, KETW_SYS_FILTER_PIDS,
				    r, struct_size(r, pids, r->nr));
out:
	kfree(ids);
	kfree(r);
}

/**
 * ketw_session_set_pids() - set, replace or clear a session's process filter
 * @s:     the session; the caller holds a reference.
 * @pids:  @count process ids in the caller's pid namespace.
 * @count: 0 to trace every process again, else 1 to KETW_PIDS_MAX.
 * @flags: KETW_PIDS_INHERIT or 0.
 *
 * The new filter is in effect for every provider at once; a running
 * session logs FILTER (struct ketw_sys_filter_pids), unless it had no
 * filter and gets none. Rules:
 * Documentation/ketw-lifetimes.rst, "process filter".
 * Context: process; not under ketw_mutex.
 *
 * Return: 0; -EINVAL, -ESRCH, -EOPNOTSUPP, -ENOMEM (ketw_pids_new());
 * -ENOENT if destroyed.
 */
int ketw_session_set_pids(struct ketw_session *s, const s32 *pids, u32 count,
			  u32 flags)
{
	struct ketw_pids *f = NULL, *old;
	u32 old_flags = 0, old_count;
	int err;

	err = ketw_pids_check(count, flags);
	if (err)
		return err;
	if (count) {
		f = ketw_pids_new(pids, count, flags);
		if (IS_ERR(f))
			return PTR_ERR(f);
	}
	mutex_lock(&ketw_mutex);
	if (s->destroyed) {
		mutex_unlock(&ketw_mutex);
		ketw_pids_retire(f);
		return -ENOENT;
	}
	if (f)
		ketw_pids_publish(f);
	old = s->pids;
	if (old)
		old_flags = ketw_pids_flags(old) | KETW_PIDS_ACTIVE;
	old_count = ketw_pids_count(old);
	s->pids_dropped += ketw_pids_dropped(old);
	s->pids = f;
	if (s->state == KETW_STATE_RUNNING && (old || f)) {
		/* Each provider's set changes in one swap. */
		ketw_providers_attach(s);
		ketw_session_log_pids(s, old_flags, old_count);
	}
	mutex_unlock(&ketw_mutex);
	/* After the enable sets that pointed to it were replaced. */
	ketw_pids_retire(old);
	return 0;
}

/**
 * ketw_session_get_pids() - a session's process filter, as the caller sees it
 * @s:     the session; the caller holds a reference.
 * @out:   room for KETW_PIDS_MAX ids: the processes, in the caller's pid
 *         namespace (those it cannot see left out), smallest first.
 * @count: out: the number of ids in @out.
 * @flags: out: KETW_PIDS_INHERIT and KETW_PIDS_ACTIVE as the filter has
 *         them; 0 without a filter.
 *
 * Return: 0; -ENOENT if destroyed.
 */
int ketw_session_get_pids(struct ketw_session *s, u32 *out, u32 *count,
			  u32 *flags)
{
	int err = 0;

	*count = 0;
	*flags = 0;
	mutex_lock(&ketw_mutex);
	if (s->destroyed) {
		err = -ENOENT;
	} else if (s->pids) {
		*flags = ketw_pids_flags(s->pids) | KETW_PIDS_ACTIVE;
		*count = ketw_pids_ids(s->pids, task_active_pid_ns(current),
				       out);
	}
	mutex_unlock(&ketw_mutex);
	return err;
}

#define KETW_FLUSH_TIMEOUT	(5 * HZ)

/**
 * ketw_session_flush() - have readers drain what is in the buffers now
 * @s: a running session.
 *
 * Logs FLUSH_START, wakes readers and waits until they have consumed
 * every record committed before it (LOOP: or those were overwritten),
 * then logs FLUSH_STOP. After KETW_FLUSH_TIMEOUT it logs ERROR
 * (-ETIMEDOUT), keeps that as the flush error, and logs FLUSH_STOP.
 *
 * Return: 0; -EINVAL if not running; -EALREADY if a flush runs; -ENOENT
 * if destroyed; -ETIMEDOUT; -ERESTARTSYS; -ENOMEM.
 */
int ketw_session_flush(struct ketw_session *s)
{
	unsigned long deadline = jiffies + KETW_FLUSH_TIMEOUT;
	struct ketw_sys_error e = { .error = -ETIMEDOUT };
	u32 *commits;
	int err = 0;

	commits = kcalloc(nr_cpu_ids, sizeof(*commits), GFP_KERNEL);
	if (!commits)
		return -ENOMEM;
	mutex_lock(&ketw_mutex);
	if (s->destroyed)
		err = -ENOENT;
	else if (s->state != KETW_STATE_RUNNING)
		err = -EINVAL;
	else if (s->flushing)
		err = -EALREADY;
	if (err) {
		mutex_unlock(&ketw_mutex);
		kfree(commits);
		return err;
	}
	s->flushing = true;
	ketw_session_log_system(s, KETW_SYS_FLUSH_START, KETW_TYPE_INFO, NULL, 0);
	ketw_ring_commits(s->ring, commits);
	mutex_unlock(&ketw_mutex);

	ketw_ring_wake(s->ring);
	while (!ketw_ring_consumed_all(s->ring, commits)) {
		if (time_after(jiffies, deadline)) {
			err = -ETIMEDOUT;
			break;
		}
		if (msleep_interruptible(10)) {
			err = -ERESTARTSYS;
			break;
		}
	}

	mutex_lock(&ketw_mutex);
	if (err == -ETIMEDOUT) {
		ketw_session_log_system(s, KETW_SYS_ERROR, KETW_TYPE_INFO, &e, sizeof(e));
		if (!s->flush_error)
			s->flush_error = err;
	}
	ketw_session_log_system(s, KETW_SYS_FLUSH_STOP, KETW_TYPE_INFO, NULL, 0);
	s->flushing = false;
	mutex_unlock(&ketw_mutex);
	kfree(commits);
	return err;
}

/**
 * ketw_session_rundown() - log the registry and tasks on request
 * @s: a running session.
 *
 * Return: 0; -EINVAL if not running; -ENOENT if destroyed.
 */
int ketw_session_rundown(struct ketw_session *s)
{
	int err = 0;

	mutex_lock(&ketw_mutex);
	if (s->destroyed)
		err = -ENOENT;
	else if (s->state != KETW_STATE_RUNNING)
		err = -EINVAL;
	else
		ketw_session_log_rundown(s);
	mutex_unlock(&ketw_mutex);
	return err;
}

/*
 * A mapping holds its session (a file may attach elsewhere later), so the
 * ring's counters stay valid until the last part is unmapped.
 */
static void ketw_session_vm_open(struct vm_area_struct *vma)
{
	struct ketw_session *s = vma->vm_private_data;

	kref_get(&s->kref);
	ketw_ring_vma_open(s->ring, vma);
}

static void ketw_session_vm_close(struct vm_area_struct *vma)
{
	struct ketw_session *s = vma->vm_private_data;

	ketw_ring_vma_close(s->ring, vma);
	ketw_session_put(s);
}

static const struct vm_operations_struct ketw_session_vm_ops = {
	.open	= ketw_session_vm_open,
	.close	= ketw_session_vm_close,
};

/**
 * ketw_session_mmap() - map a part of a session's buffers
 * @s:   the session.
 * @vma: the new mapping; vm_pgoff in the layout of KETW_MMAP_CPU().
 *
 * Return: 0; the errors of ketw_ring_mmap().
 */
int ketw_session_mmap(struct ketw_session *s, struct vm_area_struct *vma)
{
	int err = ketw_ring_mmap(s->ring, vma);

	if (err)
		return err;
	vma->vm_ops = &ketw_session_vm_ops;
	vma->vm_private_data = s;
	kref_get(&s->kref);	/* ketw_ring_mmap() counted the area */
	return 0;
}
