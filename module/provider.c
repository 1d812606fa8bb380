// SPDX-License-Identifier: GPL-2.0
/*
 * ketw providers: the registry, session filters (ETW enable semantics
 * plus POSIX event sets), the per-provider enable sets that running
 * sessions put there, the write path that follows them, rundown and
 * user-space providers.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "context.h"
#include "ketw_internal.h"
#include "ketw_trace.h"

static LIST_HEAD(ketw_providers);

/* An enable set of every session stays within order 1 (__GFP_NOFAIL). */
static_assert(sizeof(struct ketw_enable_set) +
	      KETW_MAX_SESSIONS * sizeof(struct ketw_enablement) <=
	      2 * PAGE_SIZE);

/* The ketw_event ftrace event has a probe (ketw_trace_reg()); ketw_mutex. */
static bool ketw_bridge_on;

static const u8 ketw_zero_guid[KETW_GUID_SIZE];

/*
 * The context of the innermost writer in the write path on this CPU, as
 * KETW_CTX(): 0 when there is none. Contexts nest strictly (task <
 * softirq < hardirq < NMI) and the same one never interrupts itself, so a
 * writer that finds its own context there was called from inside the
 * write path, and its event is counted lost instead of recursing. A
 * writer that interrupts another saves its context and puts it back.
 */
static DEFINE_PER_CPU(unsigned int, ketw_writer_ctx);

#define KETW_CTX(pc)	(((pc) & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)) + 1)

/*
 * Does the session of @e take @d, logged now? Its level, event set and
 * keywords, then its process filter: a session without one pays a test
 * of a pointer in the entry it reads already.
 */
static __always_inline bool
ketw_enable_match(const struct ketw_enablement *e,
		  const struct ketw_event_descriptor *d)
{
	if (e->level && d->level > e->level)
		return false;
	if (e->filtered && d->id < KETW_EVENT_SET_BITS &&
	    test_bit(d->id, e->filtered->bits))
		return false;
	/* ETW: an event with no keyword passes every keyword filter. */
	if (d->keyword) {
		if (e->match_any && !(d->keyword & e->match_any))
			return false;
		if ((d->keyword & e->match_all) != e->match_all)
			return false;
	}
	return likely(!e->pids) || ketw_pids_match(e->pids);
}

/*
 * ketw_enable_match() for the entries of an enable set in order: an entry
 * in a run of sessions with one filter (same_filter) takes the verdict
 * @take of the entry before, so the filter is evaluated once per run.
 */
static __always_inline bool
ketw_enable_take(const struct ketw_enablement *e,
		 const struct ketw_event_descriptor *d, bool take)
{
	return e->same_filter ? take : ketw_enable_match(e, d);
}

/*
 * A session with triggers on @prov: store the event, then let its
 * triggers see it (the whole payload) with its record's number. Out of
 * line, so that a session without triggers pays a test of a pointer it
 * has in cache.
 */
static noinline bool ketw_write_triggers(const struct ketw_enablement *e,
					 struct ketw_provider *prov,
					 const struct ketw_event_descriptor *desc,
					 struct ketw_ring_event *ev,
					 const void *ext, u32 ext_len,
					 const void *data, size_t wlen,
					 u16 wflags, size_t len)
{
	struct ketw_ring_event one __uninitialized;
	u64 seq;

	if (!ev) {
		ketw_ring_event_init(&one, prov->guid, desc, 1);
		ev = &one;
	}
	if (!ketw_ring_store_ext(e->ring, ev, ext, ext_len, data, wlen,
				 wflags, &seq))
		return false;
	ketw_triggers_fire(e->session, e->triggers, prov, desc, data, len,
			   seq);
	return true;
}

/*
 * Capture the items of @possible that the sessions of @set (may be NULL)
 * that take @desc want, and those the ftrace bridge shows (@bridged),
 * into @x: one capture for all; returns @x, or NULL if none is wanted.
 */
static noinline struct ketw_ext_blob *
ketw_ext_prepare(const struct ketw_enable_set *set,
		 const struct ketw_event_descriptor *desc,
		 const struct ketw_ext_src *src, u32 possible, u32 bridged,
		 struct ketw_ext_blob *x)
{
	const struct ketw_enablement *e, *end;
	u32 want = bridged;
	bool take = false;

	for (e = set ? set->e : NULL, end = e + (set ? set->nr : 0); e < end;
	     e++) {
		take = ketw_enable_take(e, desc, take);
		if (take)
			want |= e->ext_items;
	}
	want &= possible;
	if (!want)
		return NULL;
	ketw_ext_capture(want, src, x);
	return x->len ? x : NULL;
}

/*
 * Store an event in one session: its items (those of @x it wants), and
 * the payload cut to its max_data_size, and to what room the items leave
 * in its largest record. @ev: the event as every session takes it, or
 * NULL when only this session may and there are no items (@x is NULL).
 */
static __always_inline int ketw_enable_write(const struct ketw_enablement *e,
					     struct ketw_provider *prov,
					     const struct ketw_event_descriptor *desc,
					     struct ketw_ring_event *ev,
					     const void *data, size_t len,
					     u16 flags,
					     const struct ketw_ext_blob *x)
{
	const void *ext = NULL;
	u32 ext_len = 0, cap = e->max_data;
	size_t whole = len;

	if (unlikely(x)) {
		ext_len = ketw_ext_subset(x, e->ext_items, &ext);
		if (ext_len) {
			flags |= KETW_RECORD_EXT;
			cap = min(cap, e->room - ext_len);
		}
	}
	if (unlikely(len > cap)) {
		len = cap;
		flags |= KETW_RECORD_TRUNCATED;
	}
	if (unlikely(e->triggers))
		return ketw_write_triggers(e, prov, desc, ev, ext, ext_len,
					   data, len, flags, whole);
	if (unlikely(ext_len))
		return ketw_ring_store_ext(e->ring, ev, ext, ext_len, data,
					   len, flags, NULL);
	if (ev)
		return ketw_ring_store(e->ring, ev, data, len, flags);
	return ketw_ring_write(e->ring, prov->guid, desc, data, len, flags);
}

/*
 * The write path. @context: add the caller's context bits to @flags
 * (only the bench's __ketw_write_bench() leaves them out, to time them).
 * A @gate, if any, is asked once, and only when some session takes the
 * event after its filters (or the ftrace event is on): if it refuses,
 * nothing is logged and the result is -EAGAIN.
 */
static __always_inline int
ketw_write_path(struct ketw_provider *prov,
		const struct ketw_event_descriptor *desc, const void *data,
		size_t len, u16 flags, const struct ketw_ext_src *src,
		bool context, bool (*gate)(void *arg, size_t len), void *arg)
{
	const struct ketw_enablement *e = NULL, *end = NULL;
	struct ketw_ext_blob xb __uninitialized, *x = NULL;
	struct ketw_enable_set *set;
	struct ketw_ring_event ev __uninitialized, *shared = NULL;
	/* Read before the barrier below: a constant for most callers. */
	unsigned int own = 1 + src->held;
	unsigned int pc, ctx, outer;
	bool nested, traced, take = false;
	int stored = 0;
	u32 bridged;

	/* Also an RCU read-side section for the enable set and sessions. */
	preempt_disable_notrace();
	pc = preempt_count();
	ctx = KETW_CTX(pc);
	/* Once per event, for every session and the ftrace bridge. */
	if (context)
		flags |= ketw_record_context(pc, own);
	outer = this_cpu_read(ketw_writer_ctx);
	nested = outer == ctx;
	this_cpu_write(ketw_writer_ctx, ctx);

	set = rcu_dereference_sched(prov->enables);
	if (likely(set)) {
		e = set->e;
		end = e + set->nr;
	}
	/* A patched NOP while the ftrace event is off. */
	traced = trace_ketw_event_enabled() && !nested;
	/* Another while ketw_items is off; else the items it shows. */
	bridged = traced && trace_ketw_items_enabled() ?
		  READ_ONCE(ketw_bridge_items) : 0;
	/*
	 * The most common event: one session takes the provider, without
	 * items, a gate, the ftrace event or a writer to nest in. The loop
	 * below does the same; this saves it the shared event's state.
	 */
	if (!gate && likely(set) && set->nr == 1 && !set->ext_items &&
	    !traced && !nested) {
		if (ketw_enable_match(e, desc))
			stored = ketw_enable_write(e, prov, desc, NULL, data,
						   len, flags, NULL);
		goto out;
	}
	if (gate) {
		for (; e < end; e++) {
			take = ketw_enable_take(e, desc, take);
			if (take)
				break;
		}
		if ((e < end || traced) && !gate(arg, len)) {
			stored = -EAGAIN;
			goto out;
		}
	}
	if (((e < end && unlikely(set->ext_items)) || unlikely(bridged)) &&
	    !nested) {
		u32 possible = ketw_ext_possible(pc, src);

		if (((e < end ? set->ext_items : 0) | bridged) & possible)
			x = ketw_ext_prepare(e < end ? set : NULL, desc, src,
					     possible, bridged, &xb);
	}
	/*
	 * With more than one session on the provider, the header's shared
	 * words are built and each clock read once for all that take the
	 * event; so they are for items, which only ketw_ring_store_ext()
	 * takes.
	 * One session alone without items writes its header straight.
	 */
	if (e < end && (set->nr > 1 || unlikely(x))) {
		ketw_ring_event_init(&ev, prov->guid, desc, set->nr);
		shared = &ev;
	}
	/*
	 * A run of sessions with the same filter takes the first one's
	 * verdict. The gate's walk above, if any, stopped at an entry that
	 * takes the event, with @take true; else @e is the set's first entry,
	 * which is evaluated.
	 */
	for (; e < end; e++) {
		take = ketw_enable_take(e, desc, take);
		if (!take)
			continue;
		if (unlikely(nested)) {
			ketw_ring_lose(e->ring, KETW_LOSS_NESTED);
			continue;
		}
		stored += ketw_enable_write(e, prov, desc, shared, data, len,
					    flags, x);
	}
	if (traced) {
		trace_ketw_event(prov, desc, data, len, flags);
		if (unlikely(bridged))
			ketw_trace_items(x, bridged);
	}
out:
	this_cpu_write(ketw_writer_ctx, outer);
	preempt_enable_notrace();
	return stored;
}

/**
 * ketw_write_flags() - log an event into every session that takes it
 * @prov:  a registered provider.
 * @desc:  the event's descriptor.
 * @data:  the payload.
 * @len:   its length in bytes.
 * @flags: KETW_RECORD_* flags for the records; the context bits are
 *         added here, once for every session.
 * @src:   what the extended data items need from the caller.
 *
 * Context: any, NMI included; takes no lock.
 *
 * Return: the number of sessions that stored the event.
 */
int ketw_write_flags(struct ketw_provider *prov,
		     const struct ketw_event_descriptor *desc,
		     const void *data, size_t len, u16 flags,
		     const struct ketw_ext_src *src)
{
	return ketw_write_path(prov, desc, data, len, flags, src, true, NULL,
			       NULL);
}

/**
 * ketw_write_gated() - log an event if it is taken and @gate lets it
 * @prov:  a registered provider.
 * @desc:  the event's descriptor.
 * @data:  the payload.
 * @len:   its length in bytes.
 * @flags: KETW_RECORD_* flags for the records.
 * @src:   what the extended data items need from the caller.
 * @gate:  called with @arg and @len, preemption off, only if some
 *         running session takes the event after its filters (level,
 *         keywords, event set) or the ftrace event ketw:ketw_event is
 *         on; false: log nothing. An event nobody takes never reaches it.
 * @arg:   for @gate.
 *
 * Context: process or softirq (@gate's); takes no lock of ketw's.
 *
 * Return: the number of sessions that stored the event; -EAGAIN if
 * @gate refused it.
 */
int ketw_write_gated(struct ketw_provider *prov,
		     const struct ketw_event_descriptor *desc,
		     const void *data, size_t len, u16 flags,
		     const struct ketw_ext_src *src,
		     bool (*gate)(void *arg, size_t len), void *arg)
{
	return ketw_write_path(prov, desc, data, len, flags, src, true, gate,
			       arg);
}

/**
 * __ketw_write() - log an event into every session that takes it
 * @prov: a registered provider.
 * @desc: the event's descriptor.
 * @data: the payload.
 * @len:  its length in bytes.
 *
 * Called by ketw_write() once the provider's static branch is on.
 * Context: any, NMI included; takes no lock.
 *
 * Return: the number of sessions that stored the event.
 */
KETW_HOT_TEXT
int __ketw_write(struct ketw_provider *prov,
		 const struct ketw_event_descriptor *desc,
		 const void *data, size_t len)
{
	struct ketw_ext_src src = { .prog_addr = _RET_IP_ };

	/* The path inline: the most common call saves a call and a return. */
	return ketw_write_path(prov, desc, data, len, 0, &src, true, NULL,
			       NULL);
}
EXPORT_SYMBOL_GPL(__ketw_write);

/**
 * __ketw_write_activity() - log an event of an activity
 * @prov:     a registered provider.
 * @desc:     the event's descriptor.
 * @activity: the activity's id, KETW_ACTIVITY_ID_SIZE bytes.
 * @related:  the id of the activity that started it, or NULL.
 * @data:     the payload.
 * @len:      its length in bytes.
 *
 * Called by ketw_write_activity() once the provider's static branch is
 * on. Context: any, NMI included; takes no lock.
 *
 * Return: the number of sessions that stored the event.
 */
int __ketw_write_activity(struct ketw_provider *prov,
			  const struct ketw_event_descriptor *desc,
			  const u8 *activity, const u8 *related,
			  const void *data, size_t len)
{
	struct ketw_ext_src src = {
		.prog_addr = _RET_IP_,
		.activity = activity,
		.related = related,
	};

	return ketw_write_flags(prov, desc, data, len, 0, &src);
}
EXPORT_SYMBOL_GPL(__ketw_write_activity);

/**
 * __ketw_write_bench() - __ketw_write(), with or without the context bits
 * @prov:    a registered provider.
 * @desc:    the event's descriptor.
 * @data:    the payload.
 * @len:     its length in bytes.
 * @context: compute the context bits, or leave them out.
 *
 * For ketw_bench only, which times the write path with and without the
 * computation of the execution context through this one function, so
 * that both run the same code from the same place (__ketw_write() sits in
 * a page of its own with ketw_ring_write(), which would favour it).
 * Records written with @context false claim task context, interrupts on,
 * depth 0, whatever the truth. Nothing else may call it.
 * Context: any, NMI included; takes no lock.
 *
 * Return: the number of sessions that stored the event.
 */
int __ketw_write_bench(struct ketw_provider *prov,
		       const struct ketw_event_descriptor *desc,
		       const void *data, size_t len, bool context)
{
	struct ketw_ext_src src = { .prog_addr = _RET_IP_ };

	return ketw_write_path(prov, desc, data, len, 0, &src, context, NULL,
			       NULL);
}
EXPORT_SYMBOL_GPL(__ketw_write_bench);

static bool ketw_is_user(const struct ketw_provider *prov)
{
	return prov->flags & KETW_PROVIDER_USER;
}

/*
 * Does a GUID (of a user provider if @user) name @prov? Kernel and user
 * providers are apart: a user provider may carry a kernel provider's GUID
 * (registered before the kernel's), and never stands for it. Names are
 * apart by construction: a user provider's starts with KETW_USER_PREFIX,
 * a kernel provider's cannot.
 */
static bool ketw_guid_names(const u8 *guid, bool user,
			    const struct ketw_provider *prov)
{
	return user == ketw_is_user(prov) &&
	       !memcmp(guid, prov->guid, KETW_GUID_SIZE);
}

static bool ketw_enable_names(const struct ketw_session_enable *se,
			      const struct ketw_provider *prov)
{
	if (memcmp(se->guid, ketw_zero_guid, KETW_GUID_SIZE))
		return ketw_guid_names(se->guid, se->user, prov);
	return !strncmp(se->name, prov->name, KETW_NAME_MAX);
}

/*
 * Is @prov the provider named @name, or if that is NULL or empty the one
 * with @guid (of a user provider if @user)?
 */
static bool ketw_provider_is(const struct ketw_provider *prov,
			     const char *name, const u8 *guid, bool user)
{
	if (name && name[0])
		return !strncmp(name, prov->name, KETW_NAME_MAX);
	return ketw_guid_names(guid, user, prov);
}

/**
 * ketw_provider_find() - a registered provider by name or by GUID
 * @name: its name, or NULL or "" to look for @guid.
 * @guid: its GUID, when @name is NULL or "".
 * @user: @guid is a user provider's (KETW_ENABLE_USER, "user." GUIDs).
 *
 * A GUID may be a kernel provider's and a user provider's at once (@user
 * says which); names never clash (Documentation/ketw-providers.rst).
 * Context: ketw_mutex held; the provider stays registered while it is.
 *
 * Return: the provider, or NULL.
 */
struct ketw_provider *ketw_provider_find(const char *name, const u8 *guid,
					 bool user)
{
	struct ketw_provider *prov;

	lockdep_assert_held(&ketw_mutex);
	if (!(name && name[0]) && !guid)
		return NULL;
	list_for_each_entry(prov, &ketw_providers, node)
		if (ketw_provider_is(prov, name, guid, user))
			return prov;
	return NULL;
}

/**
 * ketw_provider_trigger_target() - what a trigger request watches
 * @req:   a request ketw_trigger_check() passed.
 * @guid:  out: the provider's GUID.
 * @user:  out: of a user provider.
 * @name:  out: the provider's name if it is registered, else "".
 * @field: out: with KETW_TRIGGER_FIELD, the field of @req's event the
 *         provider declared under that name (valid under ketw_mutex).
 *
 * A provider named by name, or one whose field is looked up, must be
 * registered; one named by GUID alone need not be.
 * Context: ketw_mutex held.
 *
 * Return: 0; -ENOENT for no such provider, event or field; -EINVAL for a
 * field that is not an integer.
 */
int ketw_provider_trigger_target(const struct ketw_trigger *req,
				 u8 *guid, bool *user, char *name,
				 const struct ketw_field **field)
{
	const struct ketw_event_descriptor *d = NULL;
	const struct ketw_field *f;
	struct ketw_provider *prov;
	u32 i;

	lockdep_assert_held(&ketw_mutex);
	prov = ketw_provider_find(req->provider, req->guid,
				  req->flags & KETW_TRIGGER_USER);
	*field = NULL;
	name[0] = 0;
	if (!prov) {
		if (req->provider[0] || (req->flags & KETW_TRIGGER_FIELD))
			return -ENOENT;
		memcpy(guid, req->guid, KETW_GUID_SIZE);
		*user = req->flags & KETW_TRIGGER_USER;
		return 0;
	}
	memcpy(guid, prov->guid, KETW_GUID_SIZE);
	*user = ketw_is_user(prov);
	strscpy(name, prov->name, KETW_NAME_MAX);
	if (!(req->flags & KETW_TRIGGER_FIELD))
		return 0;
	for (i = 0; prov->events && i < prov->nr_events; i++)
		if (prov->events[i].id == req->event_id)
			d = &prov->events[i];
	if (!d)
		return -ENOENT;
	for (i = 0; d->fields && i < d->nr_fields; i++) {
		f = &d->fields[i];
		if (!f->name ||
		    strncmp(f->name, req->field, KETW_FIELD_NAME_MAX))
			continue;
		if (!ketw_trig_field_width(f->type) ||
		    f->size != ketw_trig_field_width(f->type))
			return -EINVAL;
		*field = f;
		return 0;
	}
	return -ENOENT;
}

/**
 * ketw_session_enable_find() - a session's enable entry for a provider
 * @s:    the session.
 * @name: the entry's provider name, "" for @guid, or NULL for @prov's
 *        entry however it names @prov.
 * @guid: its GUID, when @name is "".
 * @user: @guid is a user provider's.
 * @prov: the registered provider @name or @guid names, or NULL: an entry
 *        that names it the other way (by GUID rather than name, or the
 *        reverse) is its entry too.
 *
 * Context: ketw_mutex held.
 *
 * Return: the first entry that matches, or NULL.
 */
struct ketw_session_enable *
ketw_session_enable_find(struct ketw_session *s, const char *name,
			 const u8 *guid, bool user,
			 const struct ketw_provider *prov)
{
	struct ketw_session_enable *se;
	unsigned int i;

	lockdep_assert_held(&ketw_mutex);
	for (i = 0; i < s->nr_enables; i++) {
		se = &s->enables[i];
		if (name && (name[0] ? !strncmp(se->name, name, KETW_NAME_MAX) :
				       !se->name[0] && se->user == user &&
				       !memcmp(se->guid, guid, KETW_GUID_SIZE)))
			return se;
		if (prov && ketw_enable_names(se, prov))
			return se;
	}
	return NULL;
}

/**
 * ketw_session_enables_for_each() - call @fn on each of @s's enable entries
 * @s:   the session.
 * @fn:  called with each entry, in order, until it returns non-zero.
 * @arg: passed to @fn.
 *
 * Context: ketw_mutex held.
 *
 * Return: what @fn last returned (0 if there is no entry).
 */
int ketw_session_enables_for_each(struct ketw_session *s,
				  int (*fn)(const struct ketw_session_enable *se,
					    void *arg),
				  void *arg)
{
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&ketw_mutex);
	for (i = 0; i < s->nr_enables && !ret; i++)
		ret = fn(&s->enables[i], arg);
	return ret;
}

/*
 * The filter session @s applies to @prov: its explicit enable for it, or,
 * for a session that never enabled a provider, the session's default
 * filter. Returns false (and filter->enabled = 0) if the session does not
 * take the provider.
 */
static bool ketw_session_filter(struct ketw_session *s,
				const struct ketw_provider *prov,
				struct ketw_filter *f)
{
	struct ketw_session_enable *se;

	memset(f, 0, sizeof(*f));
	if (!s->explicit) {
		f->enabled = 1;
		f->level = s->attr.level;
		f->match_any = s->attr.match_any;
		f->match_all = s->attr.match_all;
		return true;
	}
	se = ketw_session_enable_find(s, NULL, NULL, false, prov);
	if (!se)
		return false;
	*f = se->filter;
	f->enabled = 1;
	return true;
}

/* The items session @s's records of @prov carry (0 if it does not take it). */
static u32 ketw_session_items(struct ketw_session *s,
			      const struct ketw_provider *prov)
{
	struct ketw_session_enable *se;

	if (!s->explicit)
		return s->attr.ext_items;
	se = ketw_session_enable_find(s, NULL, NULL, false, prov);
	return se ? se->ext_items : 0;
}

/**
 * ketw_session_enables_free() - free a session's enable entries
 * @s: a session in no provider's enable set any more.
 */
void ketw_session_enables_free(struct ketw_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_enables; i++)
		kfree_rcu(s->enables[i].idset, rcu);
	kfree(s->enables);
}

/*
 * A provider's static branch is on while running sessions enable it
 * (@sessions: its enable set is, or is about to become, non-empty) or the
 * ketw_event ftrace event is on: ketw_write() must then reach the write
 * path.
 */
static void ketw_provider_key_sync(struct ketw_provider *prov, bool sessions)
{
	bool on = sessions || ketw_bridge_on;

	lockdep_assert_held(&ketw_mutex);
	if (on == static_key_enabled(&prov->key))
		return;
	if (on)
		static_branch_enable(&prov->key);
	else
		static_branch_disable(&prov->key);
}

/*
 * Rewrite a user provider's enable page from its enable set @set (may be
 * NULL); @all: the ftrace event ketw:ketw_event is on and takes every
 * event. The page is the user-space side of the static branch: it says
 * which levels and keywords some session may take (struct
 * ketw_user_enable_page). Called wherever the enable set is replaced.
 */
static void ketw_user_page_sync(struct ketw_provider *prov,
				const struct ketw_enable_set *set, bool all)
{
	struct ketw_user_prov *u = container_of(prov, struct ketw_user_prov,
						prov);
	struct ketw_user_enable_page *pg = page_address(u->page);
	const u32 every = GENMASK(KETW_LEVEL_VERBOSE, 0);
	u32 levels = all ? every : 0, nr = set ? set->nr : 0, i;
	u64 kw = all ? ~0ULL : 0;

	lockdep_assert_held(&ketw_mutex);
	for (i = 0; i < nr; i++) {
		const struct ketw_enablement *e = &set->e[i];

		levels |= e->level ? GENMASK(min_t(u32, e->level,
						   KETW_LEVEL_VERBOSE), 0) :
				     every;
		kw |= e->match_any ? e->match_any : ~0ULL;
	}
	WRITE_ONCE(pg->nr_sessions, nr);
	WRITE_ONCE(pg->keyword_any, kw);
	WRITE_ONCE(pg->levels, levels);
	smp_wmb();	/* a reader that sees the new seq sees the rest */
	WRITE_ONCE(pg->seq, pg->seq + 1);
}

/* A user provider's enable page follows its enable set. */
static void ketw_provider_enables_changed(struct ketw_provider *prov)
{
	struct ketw_enable_set *set;

	set = rcu_dereference_protected(prov->enables,
					lockdep_is_held(&ketw_mutex));
	if (ketw_is_user(prov))
		ketw_user_page_sync(prov, set, ketw_bridge_on);
}

/*
 * Do @a and @b take the same events? The same level, keywords, and event
 * set and process filter objects (each session has its own; two alike
 * but apart are told apart here, and each evaluated).
 */
static bool ketw_same_filter(const struct ketw_enablement *a,
			     const struct ketw_enablement *b)
{
	return a->level == b->level && a->match_any == b->match_any &&
	       a->match_all == b->match_all && a->filtered == b->filtered &&
	       a->pids == b->pids;
}

/*
 * Replace @prov's enable set by the old one without @drop's entry and
 * with @add (either may be NULL), in one swap, and set the static branch
 * to match.
 */
static void ketw_provider_update(struct ketw_provider *prov,
				 struct ketw_session *drop,
				 const struct ketw_enablement *add)
{
	struct ketw_enable_set *old, *new = NULL;
	unsigned int i, n = 0, nr;

	lockdep_assert_held(&ketw_mutex);
	old = rcu_dereference_protected(prov->enables,
					lockdep_is_held(&ketw_mutex));
	nr = (old ? old->nr : 0) + (add ? 1 : 0);
	if (nr) {
		/*
		 * At most KETW_MAX_SESSIONS entries: small enough for
		 * __GFP_NOFAIL (order 1 at most, asserted at the top), so
		 * that stopping a session cannot fail half way through its
		 * providers.
		 */
		new = kmalloc(struct_size(new, e, nr),
			      GFP_KERNEL | __GFP_NOFAIL);
		new->ext_items = 0;
		for (i = 0; old && i < old->nr; i++)
			if (old->e[i].session != drop)
				new->e[n++] = old->e[i];
		if (add)
			new->e[n++] = *add;
		new->nr = n;
		for (i = 0; i < n; i++) {
			new->ext_items |= new->e[i].ext_items;
			new->e[i].same_filter =
				i && ketw_same_filter(&new->e[i - 1], &new->e[i]);
		}
		if (!n) {
			kfree(new);
			new = NULL;
		}
	}
	if (new)
		ketw_provider_key_sync(prov, true);
	rcu_assign_pointer(prov->enables, new);
	if (!new)
		ketw_provider_key_sync(prov, false);
	ketw_provider_enables_changed(prov);
	if (old)
		kfree_rcu(old, rcu);
}

/* @s's triggers if one of them watches @prov, else NULL. */
static const struct ketw_trig_set *
ketw_session_triggers_for(struct ketw_session *s,
			  const struct ketw_provider *prov)
{
	const struct ketw_trig_set *set;
	unsigned int i;

	set = rcu_dereference_protected(s->triggers,
					lockdep_is_held(&ketw_mutex));
	for (i = 0; set && i < set->nr; i++)
		if (ketw_trig_names(set->t[i], prov))
			return set;
	return NULL;
}

/*
 * ketw_session_room() - bytes for items and payload in @s's largest record
 * @s: the session.
 *
 * Half a per-CPU buffer minus KETW_SYSTEM_RESERVE (the rule
 * ketw_attr_normalise() applies to max_data_size), and what a record's
 * __u16 size allows: items never get cut, so they take from this first.
 *
 * Return: bytes after the record header.
 */
static u32 ketw_session_room(const struct ketw_session *s)
{
	u32 max_span = s->attr.buffer_kb * 1024 / 2 - KETW_SYSTEM_RESERVE;

	return min_t(u32, max_span, KETW_EVENT_HEADER_SIZE +
		     KETW_MAX_DATA_SIZE) - KETW_EVENT_HEADER_SIZE;
}

/* Put @s into @prov's enable set with its current filter, or take it out. */
static void ketw_provider_resync(struct ketw_provider *prov,
				 struct ketw_session *s)
{
	struct ketw_session_enable *se = NULL;
	struct ketw_enablement e;
	struct ketw_filter f;

	if (!ketw_session_filter(s, prov, &f)) {
		ketw_provider_update(prov, s, NULL);
		return;
	}
	if (s->explicit)
		se = ketw_session_enable_find(s, NULL, NULL, false, prov);
	e.session = s;
	e.ring = s->ring;
	e.level = f.level;
	e.max_data = s->attr.max_data_size;
	e.match_any = f.match_any;
	e.match_all = f.match_all;
	e.filtered = se ? se->idset : NULL;
	e.ext_items = ketw_session_items(s, prov);
	e.room = ketw_session_room(s);
	e.triggers = ketw_session_triggers_for(s, prov);
	e.pids = s->pids;
	ketw_provider_update(prov, s, &e);
}

/**
 * ketw_providers_attach() - enable a starting session in its providers
 * @s: the session.
 *
 * Context: ketw_mutex held.
 */
void ketw_providers_attach(struct ketw_session *s)
{
	struct ketw_provider *prov;

	lockdep_assert_held(&ketw_mutex);
	list_for_each_entry(prov, &ketw_providers, node)
		ketw_provider_resync(prov, s);
}

/**
 * ketw_providers_detach() - remove a stopping session from every provider
 * @s: the session.
 *
 * Writers may still be inside @s until the caller's synchronize_rcu().
 * Context: ketw_mutex held.
 */
void ketw_providers_detach(struct ketw_session *s)
{
	struct ketw_provider *prov;

	lockdep_assert_held(&ketw_mutex);
	list_for_each_entry(prov, &ketw_providers, node)
		ketw_provider_update(prov, s, NULL);
}

static void ketw_event_info_fill(struct ketw_event_info *ei,
				 const struct ketw_provider *prov,
				 const struct ketw_event_descriptor *d)
{
	unsigned int i;

	memset(ei, 0, sizeof(*ei));
	memcpy(ei->provider_guid, prov->guid, KETW_GUID_SIZE);
	ei->id = d->id;
	ei->type = d->type;
	ei->level = d->level;
	ei->version = d->version;
	ei->keyword = d->keyword;
	ei->flags = prov->flags;
	strscpy(ei->name, d->name ? d->name : "", sizeof(ei->name));
	ei->nr_fields = min_t(u32, d->nr_fields, KETW_MAX_FIELDS);
	for (i = 0; d->fields && i < ei->nr_fields; i++) {
		const struct ketw_field *f = &d->fields[i];

		strscpy(ei->fields[i].name, f->name ? f->name : "",
			sizeof(ei->fields[i].name));
		ei->fields[i].type = f->type;
		ei->fields[i].offset = f->offset;
		ei->fields[i].size = f->size;
	}
}

static void ketw_provider_info_fill(struct ketw_provider_info *pi,
				    struct ketw_provider *prov)
{
	struct ketw_enable_set *set;

	memset(pi, 0, sizeof(*pi));
	memcpy(pi->provider_guid, prov->guid, KETW_GUID_SIZE);
	strscpy(pi->name, prov->name, sizeof(pi->name));
	pi->nr_events = prov->nr_events;
	pi->flags = prov->flags;
	if (ketw_is_user(prov))
		pi->uid = ketw_user_provider_uid(prov);
	set = rcu_dereference_protected(prov->enables,
					lockdep_is_held(&ketw_mutex));
	pi->nr_sessions = set ? set->nr : 0;
}

/* Rundown of one provider: PROVIDER, then one EVENT_DESC per descriptor. */
static void ketw_provider_rundown(struct ketw_session *s,
				  struct ketw_provider *prov,
				  struct ketw_event_info *ei)
{
	struct ketw_sys_provider sp = {};
	unsigned int i;

	memcpy(sp.provider_guid, prov->guid, KETW_GUID_SIZE);
	strscpy(sp.name, prov->name, sizeof(sp.name));
	sp.nr_events = prov->nr_events;
	sp.flags = prov->flags;
	ketw_session_log_system(s, KETW_SYS_PROVIDER, KETW_TYPE_DC_START,
				&sp, sizeof(sp));
	for (i = 0; i < prov->nr_events; i++) {
		ketw_event_info_fill(ei, prov, &prov->events[i]);
		ketw_session_log_system(s, KETW_SYS_EVENT_DESC,
					KETW_TYPE_DC_START, ei, sizeof(*ei));
	}
}

/**
 * ketw_providers_rundown() - log the registry into a session
 * @s: the session.
 *
 * The providers' part of a session's rundown: every provider (PROVIDER)
 * and its event descriptors (EVENT_DESC); the session logs the threads.
 * Context: ketw_mutex held.
 */
void ketw_providers_rundown(struct ketw_session *s)
{
	struct ketw_provider *prov;
	struct ketw_event_info *ei;

	lockdep_assert_held(&ketw_mutex);
	ei = kmalloc(sizeof(*ei), GFP_KERNEL);
	if (ei) {
		list_for_each_entry(prov, &ketw_providers, node)
			ketw_provider_rundown(s, prov, ei);
		kfree(ei);
	} else {
		struct ketw_sys_error e = { .error = -ENOMEM };

		ketw_session_log_system(s, KETW_SYS_ERROR, KETW_TYPE_INFO,
					&e, sizeof(e));
	}
}

/*
 * Is @prov's GUID or name taken? A kernel provider's only by another
 * kernel provider: user space can never keep a driver from registering.
 * A user provider's by another user provider, or by a kernel provider's
 * GUID: it cannot impersonate a kernel provider that is there.
 */
static bool ketw_provider_taken(const struct ketw_provider *prov)
{
	struct ketw_provider *p;

	list_for_each_entry(p, &ketw_providers, node) {
		if (ketw_is_user(p) && !ketw_is_user(prov))
			continue;
		if (!memcmp(p->guid, prov->guid, KETW_GUID_SIZE) ||
		    !strncmp(p->name, prov->name, KETW_NAME_MAX))
			return true;
	}
	return false;
}

static int ketw_req_check(const char *name, const u8 *guid)
{
	size_t n = strnlen(name, KETW_NAME_MAX);

	if (n == KETW_NAME_MAX)
		return -EINVAL;
	if (!n && !memcmp(guid, ketw_zero_guid, KETW_GUID_SIZE))
		return -EINVAL;
	return 0;
}

/* Log FILTER for each registered provider whose filter in @s changed. */
static void ketw_log_filter_changes(struct ketw_session *s,
				    struct ketw_filter *old, unsigned int nr,
				    const struct ketw_enable *req)
{
	struct ketw_provider *prov;
	struct ketw_sys_filter *sf;
	bool named_seen = false;
	unsigned int i = 0;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return;
	list_for_each_entry(prov, &ketw_providers, node) {
		if (i >= nr)
			break;
		ketw_session_filter(s, prov, &sf->new_filter);
		sf->old_filter = old[i++];
		if (ketw_provider_is(prov, req->provider, req->guid,
				     req->flags & KETW_ENABLE_USER))
			named_seen = true;
		if (!memcmp(&sf->old_filter, &sf->new_filter,
			    sizeof(sf->new_filter)))
			continue;
		memcpy(sf->provider_guid, prov->guid, KETW_GUID_SIZE);
		ketw_session_log_system(s, KETW_SYS_FILTER, KETW_TYPE_INFO,
					sf, sizeof(*sf));
	}
	if (!named_seen && req->provider[0] == 0) {
		/* Not registered yet: say what changed for its GUID. */
		memset(sf, 0, sizeof(*sf));
		memcpy(sf->provider_guid, req->guid, KETW_GUID_SIZE);
		sf->new_filter = req->filter;
		sf->new_filter.enabled = !(req->flags & KETW_ENABLE_DISABLE);
		ketw_session_log_system(s, KETW_SYS_FILTER, KETW_TYPE_INFO,
					sf, sizeof(*sf));
	}
	kfree(sf);
}

/*
 * Add, replace or remove @req's entry in @s->enables. The id set it
 * replaces goes to *@old_set, to be freed after the providers no longer
 * point to it. Returns -ENOENT when removing one that is not there,
 * -ENOSPC past KETW_MAX_ENABLES, -ENOMEM.
 */
static int ketw_session_enables_edit(struct ketw_session *s,
				     const struct ketw_enable *req,
				     struct ketw_idset **old_set)
{
	bool user = req->flags & KETW_ENABLE_USER;
	struct ketw_session_enable *se, *arr;
	struct ketw_idset *set = NULL;
	struct ketw_provider *prov;
	unsigned int i, w;

	/* A registered provider may be named by GUID now, by name before. */
	prov = ketw_provider_find(req->provider, req->guid, user);
	se = ketw_session_enable_find(s, req->provider, req->guid, user, prov);
	i = se ? se - s->enables : s->nr_enables;
	if (req->flags & KETW_ENABLE_DISABLE) {
		if (i == s->nr_enables)
			return -ENOENT;
		*old_set = s->enables[i].idset;
		s->enables[i] = s->enables[--s->nr_enables];
		return 0;
	}
	for (w = 0; w < ARRAY_SIZE(req->filter.filtered.bits); w++)
		if (req->filter.filtered.bits[w])
			break;
	if (w < ARRAY_SIZE(req->filter.filtered.bits)) {
		set = kzalloc(sizeof(*set), GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		bitmap_from_arr64(set->bits, req->filter.filtered.bits,
				  KETW_EVENT_SET_BITS);
	}
	if (i == s->nr_enables) {
		if (s->nr_enables == KETW_MAX_ENABLES) {
			kfree(set);
			return -ENOSPC;
		}
		arr = krealloc_array(s->enables, s->nr_enables + 1,
				     sizeof(*arr), GFP_KERNEL);
		if (!arr) {
			kfree(set);
			return -ENOMEM;
		}
		s->enables = arr;
		s->enables[s->nr_enables++].idset = NULL;
	}
	se = &s->enables[i];
	*old_set = se->idset;
	memset(se, 0, sizeof(*se));
	se->idset = set;
	if (req->provider[0]) {
		strscpy(se->name, req->provider, sizeof(se->name));
	} else {
		memcpy(se->guid, req->guid, KETW_GUID_SIZE);
		se->user = user;
	}
	se->filter = req->filter;
	se->filter.enabled = 1;
	se->ext_items = req->ext_items;
	s->explicit = true;
	return 0;
}

/**
 * ketw_enable_check() - is a request to enable or read a filter well formed?
 * @req:    the request (struct ketw_enable, size already checked); its
 *          session is not looked at.
 * @enable: for ketw_session_enable() (else ketw_session_get_filter()).
 *
 * Both check it; /dev/ketw checks it before it looks the session up, so
 * that a bad request is -EINVAL whether the session exists or not.
 *
 * Return: 0; -EINVAL for a level above 5, unknown flags or items, a
 * reserved word not zero, or no provider named.
 */
int ketw_enable_check(const struct ketw_enable *req, bool enable)
{
	u32 flags = KETW_ENABLE_USER | (enable ? KETW_ENABLE_DISABLE : 0);

	if (req->flags & ~flags ||
	    (enable && req->filter.level > KETW_LEVEL_VERBOSE) ||
	    (enable && req->ext_items & ~KETW_EXT_ALL) || req->reserved)
		return -EINVAL;
	return ketw_req_check(req->provider, req->guid);
}

/**
 * ketw_session_enable() - enable or disable a provider in a session
 * @s:   the session; the caller holds a reference.
 * @req: the request (struct ketw_enable, size already checked); its
 *       session name is not looked at.
 *
 * Return: 0; -EINVAL for a bad request (ketw_enable_check()); -ENOENT if
 * @s is destroyed, or when disabling a provider the session does not
 * enable; -ENOSPC past KETW_MAX_ENABLES; -ENOMEM.
 */
int ketw_session_enable(struct ketw_session *s, const struct ketw_enable *req)
{
	struct ketw_idset *old_set = NULL;
	struct ketw_filter *old = NULL;
	struct ketw_provider *prov;
	unsigned int nr = 0;
	int err;

	err = ketw_enable_check(req, true);
	if (err)
		return err;

	mutex_lock(&ketw_mutex);
	if (s->destroyed) {
		err = -ENOENT;
		goto out;
	}
	if (s->state == KETW_STATE_RUNNING) {
		list_for_each_entry(prov, &ketw_providers, node)
			nr++;
		old = kcalloc(nr, sizeof(*old), GFP_KERNEL);
		if (nr && !old) {
			err = -ENOMEM;
			goto out;
		}
		nr = 0;
		list_for_each_entry(prov, &ketw_providers, node)
			ketw_session_filter(s, prov, &old[nr++]);
	}
	err = ketw_session_enables_edit(s, req, &old_set);
	if (err || s->state != KETW_STATE_RUNNING)
		goto out;
	/* Each provider's set changes in one swap: no event falls between. */
	list_for_each_entry(prov, &ketw_providers, node)
		ketw_provider_resync(prov, s);
	ketw_log_filter_changes(s, old, nr, req);
out:
	mutex_unlock(&ketw_mutex);
	/* Enable sets that pointed to it are gone after a grace period. */
	if (old_set)
		kfree_rcu(old_set, rcu);
	kfree(old);
	return err;
}

/**
 * ketw_session_get_filter() - the filter a session applies to a provider
 * @s:   the session; the caller holds a reference.
 * @req: in: the provider; out: @req->filter (enabled = 0 if the session
 *       does not take the provider). Its session name is not looked at.
 *
 * Return: 0; -EINVAL for a bad request (ketw_enable_check()).
 */
int ketw_session_get_filter(struct ketw_session *s, struct ketw_enable *req)
{
	struct ketw_provider tmp = {}, *prov;
	int err;

	err = ketw_enable_check(req, false);
	if (err)
		return err;
	mutex_lock(&ketw_mutex);
	/* A stand-in: the provider need not be registered. */
	memcpy(tmp.guid, req->guid, KETW_GUID_SIZE);
	tmp.name = req->provider;
	if (req->flags & KETW_ENABLE_USER ||
	    !strncmp(req->provider, KETW_USER_PREFIX,
		     sizeof(KETW_USER_PREFIX) - 1))
		tmp.flags = KETW_PROVIDER_USER;
	prov = ketw_provider_find(req->provider, req->guid, ketw_is_user(&tmp));
	if (!req->provider[0])
		tmp.name = prov ? prov->name : "";
	else if (prov)
		memcpy(tmp.guid, prov->guid, KETW_GUID_SIZE);
	ketw_session_filter(s, &tmp, &req->filter);
	req->ext_items = req->filter.enabled ? ketw_session_items(s, &tmp) : 0;
	mutex_unlock(&ketw_mutex);
	return 0;
}

/*
 * The list ioctls fill a kernel buffer under ketw_mutex and copy it out
 * after: a copy to user space may fault and take mmap_lock, and munmap()
 * (mmap_lock held) may drop a session's last reference, whose release
 * must never wait for ketw_mutex behind us.
 */

/**
 * ketw_providers_list() - copy the registry to user space
 * @l: the request; @l->count is set to the number of providers.
 *
 * Return: 0; -EFAULT; -ENOMEM.
 */
int ketw_providers_list(struct ketw_list *l)
{
	struct ketw_provider_info __user *out = u64_to_user_ptr(l->entries);
	struct ketw_provider_info *pi = NULL;
	struct ketw_provider *prov;
	u32 n = 0, i = 0, cap;
	int err = 0;

	mutex_lock(&ketw_mutex);
	list_for_each_entry(prov, &ketw_providers, node)
		n++;
	cap = min(n, l->capacity);
	if (cap) {
		pi = kvmalloc_array(cap, sizeof(*pi), GFP_KERNEL);
		if (!pi)
			err = -ENOMEM;
	}
	list_for_each_entry(prov, &ketw_providers, node) {
		if (!pi || i == cap)
			break;
		ketw_provider_info_fill(&pi[i++], prov);
	}
	mutex_unlock(&ketw_mutex);
	if (!err && copy_to_user(out, pi, array_size(cap, sizeof(*pi))))
		err = -EFAULT;
	kvfree(pi);
	l->count = n;
	return err;
}

/**
 * ketw_events_list() - copy one provider's event descriptors to user space
 * @l: the request; @l->count is set to the number of descriptors.
 *
 * Return: 0; -EINVAL; -ENOENT for no such provider; -EFAULT; -ENOMEM.
 */
int ketw_events_list(struct ketw_list *l)
{
	struct ketw_event_info __user *out = u64_to_user_ptr(l->entries);
	struct ketw_event_info *ei = NULL;
	struct ketw_provider *found;
	u32 i, cap = 0;
	int err;

	err = ketw_req_check(l->provider, l->guid);
	if (err)
		return err;
	mutex_lock(&ketw_mutex);
	/* By GUID: the kernel's (user providers are named by name). */
	found = ketw_provider_find(l->provider, l->guid, false);
	err = found ? 0 : -ENOENT;
	if (found)
		cap = min(found->nr_events, l->capacity);
	if (cap) {
		ei = kvmalloc_array(cap, sizeof(*ei), GFP_KERNEL);
		if (!ei) {
			err = -ENOMEM;
			cap = 0;
		}
	}
	for (i = 0; i < cap; i++)
		ketw_event_info_fill(&ei[i], found, &found->events[i]);
	l->count = found ? found->nr_events : 0;
	mutex_unlock(&ketw_mutex);
	if (!err && copy_to_user(out, ei, array_size(cap, sizeof(*ei))))
		err = -EFAULT;
	kvfree(ei);
	return err;
}

/**
 * ketw_providers_for_each() - call @fn on each registered provider
 * @fn:  returns 0 to go on, anything else to stop.
 * @arg: passed to @fn.
 *
 * For ketwfs, which lists the registry. @fn must not sleep for long: the
 * providers stay registered, and ketw_mutex held, while it runs.
 * Context: ketw_mutex held.
 *
 * Return: the first non-zero value @fn returned, or 0.
 */
int ketw_providers_for_each(int (*fn)(struct ketw_provider *prov, void *arg),
			    void *arg)
{
	struct ketw_provider *prov;
	int ret;

	lockdep_assert_held(&ketw_mutex);
	list_for_each_entry(prov, &ketw_providers, node) {
		ret = fn(prov, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int ketw_provider_check(const struct ketw_provider *prov)
{
	size_t n = prov->name ? strnlen(prov->name, KETW_NAME_MAX) : 0;
	unsigned int i;

	if (!n || n == KETW_NAME_MAX ||
	    !memcmp(prov->guid, ketw_zero_guid, KETW_GUID_SIZE) ||
	    (prov->nr_events && !prov->events))
		return -EINVAL;
	/* Printable, no blank: names go into text lines and file names. */
	for (i = 0; i < n; i++)
		if (prov->name[i] <= ' ' || prov->name[i] > '~' ||
		    prov->name[i] == '/')
			return -EINVAL;
	/* The user providers' namespace. */
	if (!ketw_is_user(prov) &&
	    !strncmp(prov->name, KETW_USER_PREFIX, sizeof(KETW_USER_PREFIX) - 1))
		return -EINVAL;
	for (i = 0; i < prov->nr_events; i++)
		if (prov->events[i].nr_fields > KETW_MAX_FIELDS ||
		    (prov->events[i].nr_fields && !prov->events[i].fields))
			return -EINVAL;
	return 0;
}

/**
 * ketw_provider_add() - ketw_provider_register() under ketw_mutex
 * @prov: the provider.
 * @ei:   a buffer for its rundown.
 *
 * For a caller that must look at the registry and register in one
 * critical section (user.c: registrations that share a provider).
 * Context: ketw_mutex held.
 *
 * Return: as ketw_provider_register(), but never -ENOMEM.
 */
int ketw_provider_add(struct ketw_provider *prov, struct ketw_event_info *ei)
{
	struct ketw_session *s;
	struct ketw_filter f;
	int err;

	lockdep_assert_held(&ketw_mutex);
	err = ketw_provider_check(prov);
	if (err)
		return err;
	if (ketw_provider_taken(prov))
		return -EEXIST;
	RCU_INIT_POINTER(prov->enables, NULL);
	list_add_tail(&prov->node, &ketw_providers);
	list_for_each_entry(s, &ketw_sessions, node) {
		if (s->state != KETW_STATE_RUNNING ||
		    !ketw_session_filter(s, prov, &f))
			continue;
		ketw_provider_rundown(s, prov, ei);
		ketw_provider_resync(prov, s);
	}
	/* On from the start while the ftrace event is on. */
	ketw_provider_key_sync(prov, !!rcu_access_pointer(prov->enables));
	ketw_provider_enables_changed(prov);
	return 0;
}

/**
 * ketw_provider_register() - make a provider known to ketw
 * @prov: the provider, defined with KETW_PROVIDER() or
 *        KETW_PROVIDER_EVENTS().
 *
 * Running sessions that take the provider log its rundown (PROVIDER and
 * EVENT_DESC) and start receiving its events, including sessions that
 * enabled it by name or GUID before it was registered.
 * Context: process; may sleep.
 *
 * Return: 0; -EINVAL for an empty or too long name, one with a blank, a
 * slash or a byte outside printable ASCII, a name in the user providers'
 * namespace (KETW_USER_PREFIX), the all-zero GUID (reserved
 * for system events), or descriptors with more than KETW_MAX_FIELDS
 * fields; -EEXIST if another provider with the same GUID or name is
 * registered (user providers never count: see ketw_provider_taken());
 * -ENOMEM.
 */
int ketw_provider_register(struct ketw_provider *prov)
{
	struct ketw_event_info *ei;
	int err;

	err = ketw_provider_check(prov);
	if (err)
		return err;
	ei = kmalloc(sizeof(*ei), GFP_KERNEL);
	if (!ei)
		return -ENOMEM;
	mutex_lock(&ketw_mutex);
	err = ketw_provider_add(prov, ei);
	mutex_unlock(&ketw_mutex);
	kfree(ei);
	return err;
}
EXPORT_SYMBOL_GPL(ketw_provider_register);

/**
 * ketw_provider_del() - take a provider off the registry
 * @prov: a registered provider.
 *
 * Writers may still be in its write path: the caller waits for a grace
 * period (synchronize_rcu()) before it frees the returned set, or @prov.
 * Context: ketw_mutex held.
 *
 * Return: its last enable set, or NULL.
 */
struct ketw_enable_set *ketw_provider_del(struct ketw_provider *prov)
{
	struct ketw_enable_set *old;

	lockdep_assert_held(&ketw_mutex);
	old = rcu_dereference_protected(prov->enables,
					lockdep_is_held(&ketw_mutex));
	RCU_INIT_POINTER(prov->enables, NULL);
	if (static_key_enabled(&prov->key))
		static_branch_disable(&prov->key);
	list_del_init(&prov->node);
	return old;
}

/**
 * ketw_provider_unregister() - remove a provider
 * @prov: a registered provider.
 *
 * On return no CPU is inside the write path for @prov, so its module may
 * go away. Context: process; may sleep.
 */
void ketw_provider_unregister(struct ketw_provider *prov)
{
	struct ketw_enable_set *old;

	mutex_lock(&ketw_mutex);
	old = ketw_provider_del(prov);
	mutex_unlock(&ketw_mutex);
	/* Writers that saw the old set are done after this. */
	synchronize_rcu();
	kfree(old);
}
EXPORT_SYMBOL_GPL(ketw_provider_unregister);

/**
 * ketw_providers_bridge() - follow the ketw_event ftrace event
 * @on: the event is getting its first probe (true) or lost its last.
 *
 * While the event is on, every provider's static branch is on, so that
 * ketw_write() reaches ketw_write_flags() and emits it; after, only the
 * branches of providers that running sessions enable stay on.
 * Context: process; from the tracepoint's registration callbacks, with
 * tracepoints_mutex held. ketw_mutex nests inside it: ketw never takes
 * tracepoint or trace event locks while holding ketw_mutex.
 */
void ketw_providers_bridge(bool on)
{
	struct ketw_provider *prov;

	mutex_lock(&ketw_mutex);
	ketw_bridge_on = on;
	list_for_each_entry(prov, &ketw_providers, node) {
		ketw_provider_key_sync(prov, !!rcu_access_pointer(prov->enables));
		ketw_provider_enables_changed(prov);
	}
	mutex_unlock(&ketw_mutex);
}
