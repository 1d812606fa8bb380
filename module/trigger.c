// SPDX-License-Identifier: GPL-2.0
/*
 * ketw triggers (a flight recorder's): "provider P logs event ID at level
 * <= N, and payload field F equals V". A trigger sees the events its
 * session stores; one that matches outside the rate limit logs TRIGGER
 * after the event and asks its session for its action (wake, stop or
 * snapshot), which session.c carries out from process context.
 *
 * Firing is safe in any context, NMI included: atomics, a ring write and
 * irq_work_queue(). Lifetimes: Documentation/ketw-lifetimes.rst.
 */
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "ketw_internal.h"

/**
 * struct ketw_trig - one armed trigger
 * @rcu:        freed after writers are done with it.
 * @id:         its id in its session, from 1.
 * @guid:       the provider it watches.
 * @user:       @guid names a user provider.
 * @name:       the provider's name when armed ("" if it was not
 *              registered), for listing.
 * @event_id:   the event.
 * @level:      fires for levels <= it; 0: any.
 * @action:     KETW_TRIGGER_*.
 * @post_ms:    the delay of STOP and SNAPSHOT.
 * @interval_ms: the rate limit.
 * @interval_ns: the same in ns.
 * @field_size: bytes of the field compared (1, 2, 4, 8), 0 for none.
 * @field_off:  its offset in the payload.
 * @field_signed: sign-extend it before comparing.
 * @field:      its name, for listing.
 * @value:      what it must equal.
 * @last_fire:  ktime_get_mono_fast_ns() of the last fire, 0 for never.
 * @fired:      fires so far.
 * @suppressed: matches the rate limit left out since the last fire.
 * @suppressed_total: all of them, for listing.
 */
struct ketw_trig {
	struct rcu_head rcu;
	u32 id;
	u8 guid[KETW_GUID_SIZE];
	bool user;
	char name[KETW_NAME_MAX];
	u32 event_id;
	u32 level;
	u32 action;
	u32 post_ms;
	u32 interval_ms;
	u64 interval_ns;
	u16 field_size;
	u16 field_off;
	bool field_signed;
	char field[KETW_FIELD_NAME_MAX];
	u64 value;
	atomic64_t last_fire;
	atomic_t fired;
	atomic_t suppressed;
	atomic64_t suppressed_total;
};

/**
 * ketw_trigger_check() - refuse a bad struct ketw_trigger for TRIGGER_ADD
 * @req: the request, copied in.
 *
 * What can be checked without the session and the registry: flags,
 * action, delays, names and the field's presence.
 *
 * Return: 0, or -EINVAL.
 */
int ketw_trigger_check(const struct ketw_trigger *req)
{
	bool field = req->flags & KETW_TRIGGER_FIELD;
	size_t flen = strnlen(req->field, KETW_FIELD_NAME_MAX);

	if (req->flags & ~KETW_TRIGGER_FLAGS)
		return -EINVAL;
	if (req->action < KETW_TRIGGER_WAKE ||
	    req->action > KETW_TRIGGER_SNAPSHOT)
		return -EINVAL;
	if (req->post_ms > KETW_TRIGGER_POST_MAX ||
	    (req->action == KETW_TRIGGER_WAKE && req->post_ms))
		return -EINVAL;
	if (req->min_interval_ms > KETW_TRIGGER_INTERVAL_MAX)
		return -EINVAL;
	if (req->level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	if (strnlen(req->provider, KETW_NAME_MAX) == KETW_NAME_MAX ||
	    flen == KETW_FIELD_NAME_MAX)
		return -EINVAL;
	/* A field named exactly when KETW_TRIGGER_FIELD says so. */
	if (field != !!flen || (!field && req->value))
		return -EINVAL;
	if (!req->provider[0] && !memchr_inv(req->guid, 0, KETW_GUID_SIZE))
		return -EINVAL;
	if (req->provider[0] && (req->flags & KETW_TRIGGER_USER))
		return -EINVAL;
	return 0;
}

/**
 * ketw_trig_field_width() - the size of an integer field type
 * @type: KETW_FIELD_*.
 *
 * Return: 1, 2, 4 or 8 for the types a trigger compares; 0 for the
 * others (string, binary, GUID, unknown).
 */
u32 ketw_trig_field_width(u32 type)
{
	switch (type) {
	case KETW_FIELD_U8:
	case KETW_FIELD_S8:
		return 1;
	case KETW_FIELD_U16:
	case KETW_FIELD_S16:
		return 2;
	case KETW_FIELD_U32:
	case KETW_FIELD_S32:
	case KETW_FIELD_HEX32:
		return 4;
	case KETW_FIELD_U64:
	case KETW_FIELD_S64:
	case KETW_FIELD_HEX64:
		return 8;
	default:
		return 0;
	}
}

/**
 * ketw_trig_new() - a trigger for a checked request
 * @req:   the request (ketw_trigger_check() passed).
 * @id:    its id in the session.
 * @guid:  the provider's GUID.
 * @user:  of a user provider.
 * @name:  the provider's name, or "".
 * @field: the field @req names (an integer field), or NULL.
 *
 * Context: may sleep (ketw_mutex held).
 *
 * Return: the trigger, or NULL without memory.
 */
struct ketw_trig *ketw_trig_new(const struct ketw_trigger *req, u32 id,
				const u8 *guid, bool user, const char *name,
				const struct ketw_field *field)
{
	struct ketw_trig *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->id = id;
	memcpy(t->guid, guid, KETW_GUID_SIZE);
	t->user = user;
	strscpy(t->name, name, sizeof(t->name));
	t->event_id = req->event_id;
	t->level = req->level;
	t->action = req->action;
	t->post_ms = req->post_ms;
	t->interval_ms = req->min_interval_ms ? req->min_interval_ms :
			 KETW_TRIGGER_INTERVAL_DEFAULT;
	t->interval_ns = (u64)t->interval_ms * NSEC_PER_MSEC;
	if (field) {
		t->field_size = field->size;
		t->field_off = field->offset;
		t->field_signed = field->type >= KETW_FIELD_S8 &&
				  field->type <= KETW_FIELD_S64;
		strscpy(t->field, req->field, sizeof(t->field));
		t->value = req->value;
	}
	return t;
}

/**
 * ketw_trig_names() - does @t watch @prov?
 * @t:    a trigger.
 * @prov: a provider.
 *
 * Return: true if @t's GUID (and kind) is @prov's.
 */
bool ketw_trig_names(const struct ketw_trig *t,
		     const struct ketw_provider *prov)
{
	return t->user == !!(prov->flags & KETW_PROVIDER_USER) &&
	       !memcmp(t->guid, prov->guid, KETW_GUID_SIZE);
}

/**
 * ketw_trig_id() - a trigger's id in its session
 * @t: the trigger.
 *
 * Return: the id.
 */
u32 ketw_trig_id(const struct ketw_trig *t)
{
	return t->id;
}

/* Does the payload's field hold @t's value? */
static bool ketw_trig_field_ok(const struct ketw_trig *t, const void *data,
			       size_t len)
{
	const void *p = data + t->field_off;
	u64 v;

	if ((size_t)t->field_off + t->field_size > len)
		return false;
	switch (t->field_size) {
	case 1:
		v = *(const u8 *)p;
		if (t->field_signed)
			v = (s64)(s8)v;
		break;
	case 2:
		v = get_unaligned((const u16 *)p);
		if (t->field_signed)
			v = (s64)(s16)v;
		break;
	case 4:
		v = get_unaligned((const u32 *)p);
		if (t->field_signed)
			v = (s64)(s32)v;
		break;
	default:
		v = get_unaligned((const u64 *)p);
		break;
	}
	return v == t->value;
}

static bool ketw_trig_match(const struct ketw_trig *t,
			    const struct ketw_provider *prov,
			    const struct ketw_event_descriptor *desc,
			    const void *data, size_t len)
{
	if (t->event_id != desc->id || !ketw_trig_names(t, prov))
		return false;
	if (t->level && desc->level > t->level)
		return false;
	return !t->field_size || ketw_trig_field_ok(t, data, len);
}

/*
 * The rate limit: whoever moves last_fire from what it read to now
 * fires; a match within the interval, or one that loses the race, is
 * suppressed. Returns the suppressed count the fire reports, or -1.
 */
static int ketw_trig_claim(struct ketw_trig *t, u64 now)
{
	s64 last = atomic64_read(&t->last_fire);

	if ((last && now - last < t->interval_ns) ||
	    atomic64_cmpxchg(&t->last_fire, last, now) != last) {
		atomic_inc(&t->suppressed);
		atomic64_inc(&t->suppressed_total);
		return -1;
	}
	return atomic_xchg(&t->suppressed, 0);
}

/* Ask @s for @t's action: session.c's irq_work takes it from here. */
static void ketw_trig_request(struct ketw_session *s,
			      const struct ketw_trig *t)
{
	struct ketw_session_trig *st = &s->trig;
	int bit;

	switch (t->action) {
	case KETW_TRIGGER_STOP:
		atomic_set(&st->stop_ms, t->post_ms);
		bit = KETW_TRIG_TODO_STOP;
		break;
	case KETW_TRIGGER_SNAPSHOT:
		atomic_set(&st->snap_ms, t->post_ms);
		bit = KETW_TRIG_TODO_SNAP;
		break;
	default:
		bit = KETW_TRIG_TODO_WAKE;
		break;
	}
	atomic_or(bit, &st->todo);
	irq_work_queue(&st->iw);
}

static void ketw_trig_fire(struct ketw_session *s, struct ketw_trig *t,
			   const struct ketw_provider *prov,
			   const struct ketw_event_descriptor *desc, u64 seq)
{
	struct ketw_sys_trigger p = {};
	int suppressed;

	/* NMI-safe, and monotonic across CPUs. */
	suppressed = ketw_trig_claim(t, ktime_get_mono_fast_ns() | 1);
	if (suppressed < 0)
		return;
	p.trigger_id = t->id;
	p.event_id = desc->id;
	memcpy(p.provider_guid, prov->guid, KETW_GUID_SIZE);
	p.sequence = seq;
	p.cpu = smp_processor_id();
	p.fired = atomic_inc_return(&t->fired);
	p.suppressed = suppressed;
	p.action = t->action;
	atomic_inc(&s->trig.fired);
	ketw_session_log_system(s, KETW_SYS_TRIGGER, KETW_TYPE_INFO, &p,
				sizeof(p));
	ketw_trig_request(s, t);
}

/**
 * ketw_triggers_fire() - fire @s's triggers that an event matches
 * @s:    a running session that has just stored the event.
 * @set:  its triggers, as the writer's enablement saw them.
 * @prov: the event's provider.
 * @desc: its descriptor.
 * @data: its payload, as logged (before any cut).
 * @len:  the payload's length.
 * @seq:  the sequence number of the event's record on this CPU.
 *
 * Context: any, NMI included; preemption off (the RCU read side that
 * keeps @set and its triggers).
 */
void ketw_triggers_fire(struct ketw_session *s,
			const struct ketw_trig_set *set,
			const struct ketw_provider *prov,
			const struct ketw_event_descriptor *desc,
			const void *data, size_t len, u64 seq)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (ketw_trig_match(set->t[i], prov, desc, data, len))
			ketw_trig_fire(s, set->t[i], prov, desc, seq);
}

/**
 * ketw_triggers_show() - @s's triggers, a line each, for ketwfs
 * @m: the file.
 * @s: the session.
 *
 * "ID PROVIDER:EVENT[:LEVEL] [FIELD=VALUE] action=A post=MS interval=MS
 * fired=N suppressed=N".
 * Context: ketw_mutex held.
 */
void ketw_triggers_show(struct seq_file *m, struct ketw_session *s)
{
	const struct ketw_trig_set *set;
	const struct ketw_trig *t;
	unsigned int i;

	lockdep_assert_held(&ketw_mutex);
	set = rcu_dereference_protected(s->triggers,
					lockdep_is_held(&ketw_mutex));
	for (i = 0; set && i < set->nr; i++) {
		t = set->t[i];
		seq_printf(m, "%u ", t->id);
		if (t->name[0])
			seq_puts(m, t->name);
		else
			seq_printf(m, "%s%pUb", t->user ? KETW_USER_PREFIX : "",
				   t->guid);
		seq_printf(m, ":%u", t->event_id);
		if (t->level)
			seq_printf(m, ":%u", t->level);
		if (t->field_size) {
			if (t->field_signed)
				seq_printf(m, " %s=%lld", t->field,
					   (s64)t->value);
			else
				seq_printf(m, " %s=%llu", t->field, t->value);
		}
		seq_printf(m, " action=%s post=%u interval=%u fired=%d suppressed=%lld\n",
			   ketw_trigger_action_name(t->action), t->post_ms,
			   t->interval_ms, atomic_read(&t->fired),
			   atomic64_read(&t->suppressed_total));
	}
}

/**
 * ketw_trig_free_rcu() - free a trigger once writers are done with it
 * @t: a trigger no set of its session holds any more.
 */
void ketw_trig_free_rcu(struct ketw_trig *t)
{
	kfree_rcu(t, rcu);
}

/**
 * ketw_triggers_free() - free a released session's triggers
 * @s: a session no writer can reach.
 */
void ketw_triggers_free(struct ketw_session *s)
{
	struct ketw_trig_set *set = rcu_dereference_protected(s->triggers, 1);
	unsigned int i;

	if (!set)
		return;
	for (i = 0; i < set->nr; i++)
		kfree(set->t[i]);
	kfree(set);
}
