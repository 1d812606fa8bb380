// SPDX-License-Identifier: GPL-2.0
/*
 * ketw process filters: the tables of the processes a session traces,
 * the write path's lookup in them, the translation of SET's and GET's
 * pids between pid namespaces, and the fork and exit probes that keep
 * the tables up to date. The rules are in Documentation/ketw-lifetimes.rst
 * ("process filter"); session.c decides when a filter is set and goes.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "ketw_internal.h"

#define KETW_PID_EMPTY		0U		/* never held an id */
#define KETW_PID_GONE		U32_MAX		/* held one that left */
#define KETW_PIDS_MIN_SLOTS	16
/* An inherit table: half empty when full, so a child always has a slot. */
#define KETW_PIDS_INHERIT_SLOTS	(2 * KETW_PIDS_MAX)

/**
 * struct ketw_pid_table - the processes of a filter, open addressing
 * @rcu:  frees it after the lookups that may still see it.
 * @bits: log2 of the number of slots.
 * @nr:   ids held; under the filter's lock.
 * @gone: slots whose id left; under the filter's lock.
 * @slot: thread group ids in the initial pid namespace, KETW_PID_EMPTY
 *        or KETW_PID_GONE; linear probing from hash_32(id, @bits).
 */
struct ketw_pid_table {
	struct rcu_head rcu;
	u32 bits;
	u32 nr;
	u32 gone;
	u32 slot[];
};

/**
 * struct ketw_pids - a session's process filter
 * @node:    ketw_pids_list, while @listed.
 * @rcu:     frees it after the writers and probes that may still see it.
 * @lock:    serialises the changes of @table's slots and of @table.
 * @table:   the processes (RCU: replaced by the compaction).
 * @flags:   KETW_PIDS_INHERIT or 0.
 * @listed:  on ketw_pids_list (published).
 * @dead:    retired; under @lock.
 * @dropped: children not taken: the filter was full.
 * @compact: replaces @table by one without removed slots.
 */
struct ketw_pids {
	struct list_head node;
	struct rcu_head rcu;
	raw_spinlock_t lock;
	struct ketw_pid_table __rcu *table;
	u32 flags;
	bool listed;
	bool dead;
	atomic_t dropped;
	struct work_struct compact;
};

/* The filters there are, for the probes; changed under ketw_pids_list_lock. */
static LIST_HEAD(ketw_pids_list);
static DEFINE_SPINLOCK(ketw_pids_list_lock);

/* The tracepoints the probes hang on, found at load (NULL: none). */
static struct tracepoint *ketw_tp_fork, *ketw_tp_exit;

/* Probe registration: see "The probes" in ketw-lifetimes.rst. */
static DEFINE_MUTEX(ketw_pids_reg_mutex);
static bool ketw_pids_registered;		/* under ketw_pids_reg_mutex */
static atomic_t ketw_pids_users = ATOMIC_INIT(0);

/* ---- the table ---- */

static u32 ketw_pid_table_slots(const struct ketw_pid_table *t)
{
	return 1U << t->bits;
}

static struct ketw_pid_table *ketw_pid_table_alloc(u32 slots)
{
	struct ketw_pid_table *t;

	t = kzalloc(struct_size(t, slot, slots), GFP_KERNEL);
	if (t)
		t->bits = ilog2(slots);
	return t;
}

/*
 * Is @id in @t? Lock-free: at most one pass over the slots, whatever
 * changes meanwhile (a slot goes from empty to an id, from an id to gone
 * or from gone to an id, never back to empty).
 */
static __always_inline bool ketw_pid_table_has(const struct ketw_pid_table *t,
					       u32 id)
{
	u32 mask = ketw_pid_table_slots(t) - 1, i = hash_32(id, t->bits), n, v;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		v = READ_ONCE(t->slot[i]);
		if (v == id)
			return true;
		if (v == KETW_PID_EMPTY)
			return false;
	}
	return false;
}

/*
 * Add @id to @t (under its filter's lock, or on a table nobody else sees
 * yet); false if it was there already. @t has a free or gone slot: the
 * caller keeps nr below the number of slots.
 */
static bool ketw_pid_table_add(struct ketw_pid_table *t, u32 id)
{
	u32 mask = ketw_pid_table_slots(t) - 1, i = hash_32(id, t->bits), n, v;
	u32 where = U32_MAX;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		v = t->slot[i];
		if (v == id)
			return false;
		if (v == KETW_PID_GONE && where == U32_MAX)
			where = i;
		if (v == KETW_PID_EMPTY) {
			if (where == U32_MAX)
				where = i;
			break;
		}
	}
	if (WARN_ON_ONCE(where == U32_MAX))
		return false;
	if (t->slot[where] == KETW_PID_GONE)
		t->gone--;
	WRITE_ONCE(t->slot[where], id);
	t->nr++;
	return true;
}

/* Take @id out of @t (under its filter's lock); false if it was not there. */
static bool ketw_pid_table_del(struct ketw_pid_table *t, u32 id)
{
	u32 mask = ketw_pid_table_slots(t) - 1, i = hash_32(id, t->bits), n, v;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		v = t->slot[i];
		if (v == id) {
			WRITE_ONCE(t->slot[i], KETW_PID_GONE);
			t->nr--;
			t->gone++;
			return true;
		}
		if (v == KETW_PID_EMPTY)
			return false;
	}
	return false;
}

static bool ketw_pid_valid(u32 v)
{
	return v != KETW_PID_EMPTY && v != KETW_PID_GONE;
}

/* ---- the write path ---- */

/**
 * ketw_pids_match() - does @f take the events of the current task?
 * @f: a filter an enable entry points to.
 *
 * The current task's thread group is looked up, whatever the context (an
 * interrupt or NMI counts for the task it interrupted, as ftrace's
 * set_event_pid): no lock, at most one pass over the table.
 * Context: any, NMI included; preemption disabled (RCU).
 *
 * Return: true if the current process is in @f.
 */
bool ketw_pids_match(const struct ketw_pids *f)
{
	const struct ketw_pid_table *t = rcu_dereference_sched(f->table);

	return ketw_pid_table_has(t, READ_ONCE(current->tgid));
}

/* ---- the probes ---- */

/* Compact when used and removed slots reach three quarters of the table. */
static bool ketw_pid_table_crowded(const struct ketw_pid_table *t)
{
	return t->gone && (t->nr + t->gone) * 4 >= ketw_pid_table_slots(t) * 3;
}

static void ketw_pids_on_fork(void *data, struct task_struct *parent,
			      struct task_struct *child)
{
	u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct ketw_pid_table *t;
	struct ketw_pids *f;

	if (ptgid == ctgid)
		return;		/* a thread: its process's id is traced or not */
	rcu_read_lock();
	list_for_each_entry_rcu(f, &ketw_pids_list, node) {
		if (!(f->flags & KETW_PIDS_INHERIT) ||
		    !ketw_pid_table_has(rcu_dereference(f->table), ptgid))
			continue;
		raw_spin_lock(&f->lock);
		t = rcu_dereference_protected(f->table,
					      lockdep_is_held(&f->lock));
		if (!f->dead && !ketw_pid_table_has(t, ctgid)) {
			/* Room for KETW_PIDS_MAX: never an allocation here. */
			if (t->nr >= KETW_PIDS_MAX)
				atomic_inc(&f->dropped);
			else
				ketw_pid_table_add(t, ctgid);
		}
		raw_spin_unlock(&f->lock);
	}
	rcu_read_unlock();
}

static void ketw_pids_on_exit(void *data, struct task_struct *p)
{
	struct ketw_pid_table *t;
	struct ketw_pids *f;
	u32 tgid = p->tgid;

	/* Fired after do_exit() counted the thread out of its group. */
	if (atomic_read(&p->signal->live))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(f, &ketw_pids_list, node) {
		if (!ketw_pid_table_has(rcu_dereference(f->table), tgid))
			continue;
		raw_spin_lock(&f->lock);
		t = rcu_dereference_protected(f->table,
					      lockdep_is_held(&f->lock));
		if (ketw_pid_table_del(t, tgid) && !f->dead &&
		    (f->flags & KETW_PIDS_INHERIT) && ketw_pid_table_crowded(t))
			queue_work(ketw_wq, &f->compact);
		raw_spin_unlock(&f->lock);
	}
	rcu_read_unlock();
}

/* Replace an inherit filter's table by one without removed slots. */
static void ketw_pids_compact(struct work_struct *work)
{
	struct ketw_pids *f = container_of(work, struct ketw_pids, compact);
	struct ketw_pid_table *old, *new;
	u32 i;

	new = ketw_pid_table_alloc(KETW_PIDS_INHERIT_SLOTS);
	if (!new)
		return;		/* the next exit asks again */
	raw_spin_lock(&f->lock);
	old = rcu_dereference_protected(f->table, lockdep_is_held(&f->lock));
	if (f->dead || !ketw_pid_table_crowded(old)) {
		raw_spin_unlock(&f->lock);
		kfree(new);
		return;
	}
	for (i = 0; i < ketw_pid_table_slots(old); i++)
		if (ketw_pid_valid(old->slot[i]))
			ketw_pid_table_add(new, old->slot[i]);
	rcu_assign_pointer(f->table, new);
	raw_spin_unlock(&f->lock);
	kfree_rcu(old, rcu);
}

static void ketw_pids_unregister(void)
{
	lockdep_assert_held(&ketw_pids_reg_mutex);
	if (!ketw_pids_registered)
		return;
	tracepoint_probe_unregister(ketw_tp_fork, ketw_pids_on_fork, NULL);
	tracepoint_probe_unregister(ketw_tp_exit, ketw_pids_on_exit, NULL);
	ketw_pids_registered = false;
}

/* The last filter went: unregister, unless one came back meanwhile. */
static void ketw_pids_unregister_work(struct work_struct *work)
{
	mutex_lock(&ketw_pids_reg_mutex);
	if (!atomic_read(&ketw_pids_users))
		ketw_pids_unregister();
	mutex_unlock(&ketw_pids_reg_mutex);
}

static DECLARE_WORK(ketw_pids_unreg, ketw_pids_unregister_work);

/*
 * A reference on the probes, registering them for the first. Context:
 * process, not under ketw_mutex (tracepoints_mutex nests outside it).
 */
static int ketw_pids_probes_get(void)
{
	int err = 0;

	if (!ketw_tp_fork || !ketw_tp_exit)
		return -EOPNOTSUPP;
	mutex_lock(&ketw_pids_reg_mutex);
	if (!ketw_pids_registered) {
		err = tracepoint_probe_register(ketw_tp_fork, ketw_pids_on_fork,
						NULL);
		if (!err) {
			err = tracepoint_probe_register(ketw_tp_exit,
							ketw_pids_on_exit, NULL);
			if (err)
				tracepoint_probe_unregister(ketw_tp_fork,
							    ketw_pids_on_fork,
							    NULL);
		}
		ketw_pids_registered = !err;
	}
	if (!err)
		atomic_inc(&ketw_pids_users);
	mutex_unlock(&ketw_pids_reg_mutex);
	return err;
}

/* Drop a reference; any context that may queue work, ketw_mutex or not. */
static void ketw_pids_probes_put(void)
{
	if (atomic_dec_and_test(&ketw_pids_users))
		queue_work(ketw_wq, &ketw_pids_unreg);
}

static void ketw_pids_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ketw_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		ketw_tp_exit = tp;
}

/**
 * ketw_pids_init() - find the tracepoints the probes use
 *
 * Without them (a kernel without tracepoints) process filters cannot be
 * set (EOPNOTSUPP); ketw loads all the same.
 */
void ketw_pids_init(void)
{
	for_each_kernel_tracepoint(ketw_pids_find_tp, NULL);
	if (!ketw_tp_fork || !ketw_tp_exit)
		pr_warn("ketw: no sched_process_fork/exit tracepoints: no process filters\n");
}

/**
 * ketw_pids_exit() - unregister the probes for module exit
 *
 * After every filter was retired and ketw_wq drained: no probe runs
 * after it returns.
 */
void ketw_pids_exit(void)
{
	mutex_lock(&ketw_pids_reg_mutex);
	ketw_pids_unregister();
	mutex_unlock(&ketw_pids_reg_mutex);
	tracepoint_synchronize_unregister();
}

/* ---- SET, GET ---- */

/**
 * ketw_pids_check() - are a SET's count and flags well formed?
 * @count: pids given.
 * @flags: KETW_PIDS_* asked for.
 *
 * Return: 0; -EINVAL for a count above KETW_PIDS_MAX, unknown flags, or
 * KETW_PIDS_INHERIT without pids.
 */
int ketw_pids_check(u32 count, u32 flags)
{
	if (count > KETW_PIDS_MAX || flags & ~KETW_PIDS_INHERIT ||
	    (!count && flags))
		return -EINVAL;
	return 0;
}

/**
 * ketw_pids_new() - a filter of processes named in the caller's pid namespace
 * @vpids: @count process ids, as the current task's pid namespace sees
 *         them.
 * @count: 1 to KETW_PIDS_MAX.
 * @flags: KETW_PIDS_INHERIT or 0.
 *
 * The filter holds a reference on the fork and exit probes (registering
 * them for the first filter), until ketw_pids_retire().
 * Context: process; not under ketw_mutex.
 *
 * Return: the filter, not yet published; ERR_PTR(-EINVAL) for a bad
 * count or flags or a pid below 1; ERR_PTR(-ESRCH) for a pid that is no
 * live process there (or a thread's id that is not its process's);
 * ERR_PTR(-EOPNOTSUPP) without the tracepoints; ERR_PTR(-ENOMEM).
 */
struct ketw_pids *ketw_pids_new(const s32 *vpids, u32 count, u32 flags)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct task_struct *task;
	struct ketw_pid_table *t;
	struct ketw_pids *f;
	struct pid *pid;
	u32 i, slots;
	int err;

	err = ketw_pids_check(count, flags);
	if (!err && !count)
		err = -EINVAL;
	for (i = 0; !err && i < count; i++)
		if (vpids[i] <= 0)
			err = -EINVAL;
	if (err)
		return ERR_PTR(err);
	slots = flags & KETW_PIDS_INHERIT ? KETW_PIDS_INHERIT_SLOTS :
		max_t(u32, roundup_pow_of_two(2 * count), KETW_PIDS_MIN_SLOTS);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	t = ketw_pid_table_alloc(slots);
	if (!f || !t) {
		err = -ENOMEM;
		goto out_free;
	}
	rcu_read_lock();
	for (i = 0; i < count; i++) {
		pid = find_pid_ns(vpids[i], ns);
		task = pid ? pid_task(pid, PIDTYPE_TGID) : NULL;
		if (!task || !atomic_read(&task->signal->live)) {
			err = -ESRCH;
			break;
		}
		ketw_pid_table_add(t, pid_nr(pid));
	}
	rcu_read_unlock();
	if (err)
		goto out_free;
	err = ketw_pids_probes_get();
	if (err)
		goto out_free;
	INIT_LIST_HEAD(&f->node);
	raw_spin_lock_init(&f->lock);
	RCU_INIT_POINTER(f->table, t);
	f->flags = flags;
	atomic_set(&f->dropped, 0);
	INIT_WORK(&f->compact, ketw_pids_compact);
	return f;

out_free:
	kfree(t);
	kfree(f);
	return ERR_PTR(err);
}

/**
 * ketw_pids_publish() - let the probes follow a new filter
 * @f: from ketw_pids_new().
 *
 * Puts @f on the probes' list, then takes out the processes that ended
 * since ketw_pids_new() looked (their exit probe did not see @f).
 * Context: process.
 */
void ketw_pids_publish(struct ketw_pids *f)
{
	struct ketw_pid_table *t;
	struct task_struct *task;
	struct pid *pid;
	u32 i, id;

	spin_lock(&ketw_pids_list_lock);
	list_add_tail_rcu(&f->node, &ketw_pids_list);
	f->listed = true;
	spin_unlock(&ketw_pids_list_lock);
	/*
	 * Pairs with the full barrier of do_exit()'s decrement of
	 * signal->live: either we see it below, or that exit's probe,
	 * which runs after it, sees @f on the list.
	 */
	smp_mb();
	raw_spin_lock(&f->lock);
	t = rcu_dereference_protected(f->table, lockdep_is_held(&f->lock));
	rcu_read_lock();
	for (i = 0; i < ketw_pid_table_slots(t); i++) {
		id = t->slot[i];
		if (!ketw_pid_valid(id))
			continue;
		pid = find_pid_ns(id, &init_pid_ns);
		task = pid ? pid_task(pid, PIDTYPE_TGID) : NULL;
		if (!task || !atomic_read(&task->signal->live))
			ketw_pid_table_del(t, id);
	}
	rcu_read_unlock();
	raw_spin_unlock(&f->lock);
}

/**
 * ketw_pids_retire() - free a filter once nothing can see it
 * @f: a filter from ketw_pids_new(), published or not, or NULL.
 *
 * The enable sets that pointed to it must have been replaced already:
 * it is freed after a grace period, as is its table. Drops its
 * reference on the probes.
 * Context: process; may sleep (waits for its compaction).
 */
void ketw_pids_retire(struct ketw_pids *f)
{
	struct ketw_pid_table *t;

	if (!f)
		return;
	if (f->listed) {
		spin_lock(&ketw_pids_list_lock);
		list_del_rcu(&f->node);
		spin_unlock(&ketw_pids_list_lock);
	}
	raw_spin_lock(&f->lock);
	f->dead = true;
	raw_spin_unlock(&f->lock);
	cancel_work_sync(&f->compact);
	t = rcu_dereference_protected(f->table, true);	/* dead: stays */
	kfree_rcu(t, rcu);
	kfree_rcu(f, rcu);
	ketw_pids_probes_put();
}

/**
 * ketw_pids_flags() - a filter's KETW_PIDS_* flags
 * @f: the filter.
 *
 * Return: KETW_PIDS_INHERIT or 0.
 */
u32 ketw_pids_flags(const struct ketw_pids *f)
{
	return f->flags;
}

/**
 * ketw_pids_dropped() - children a filter could not take
 * @f: the filter, or NULL.
 *
 * Return: how many, 0 for NULL.
 */
u32 ketw_pids_dropped(const struct ketw_pids *f)
{
	return f ? atomic_read(&f->dropped) : 0;
}

/**
 * ketw_pids_count() - processes a filter holds
 * @f: the filter, or NULL.
 *
 * Return: how many (whatever namespace sees them), 0 for NULL.
 */
u32 ketw_pids_count(const struct ketw_pids *f)
{
	const struct ketw_pid_table *t;
	u32 n;

	if (!f)
		return 0;
	rcu_read_lock();
	t = rcu_dereference(f->table);
	n = READ_ONCE(t->nr);
	rcu_read_unlock();
	return n;
}

static int ketw_pids_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/**
 * ketw_pids_ids() - a filter's processes in a pid namespace
 * @f:   the filter.
 * @ns:  the namespace; &init_pid_ns for the ids records carry.
 * @out: room for KETW_PIDS_MAX ids.
 *
 * Processes @ns cannot see are left out. A snapshot: processes that join
 * or leave meanwhile may be in it or not.
 *
 * Return: the number of ids in @out, smallest first.
 */
u32 ketw_pids_ids(const struct ketw_pids *f, struct pid_namespace *ns,
		  u32 *out)
{
	const struct ketw_pid_table *t;
	struct pid *pid;
	u32 i, n = 0, id, v;

	rcu_read_lock();
	t = rcu_dereference(f->table);
	for (i = 0; i < ketw_pid_table_slots(t) && n < KETW_PIDS_MAX; i++) {
		id = READ_ONCE(t->slot[i]);
		if (!ketw_pid_valid(id))
			continue;
		if (ns == &init_pid_ns) {
			out[n++] = id;
			continue;
		}
		pid = find_pid_ns(id, &init_pid_ns);
		v = pid ? pid_nr_ns(pid, ns) : 0;
		if (v)
			out[n++] = v;
	}
	rcu_read_unlock();
	sort(out, n, sizeof(*out), ketw_pids_cmp, NULL);
	return n;
}
