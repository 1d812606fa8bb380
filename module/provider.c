// SPDX-License-Identifier: GPL-2.0
/*
 * ketw providers: the registry, the per-provider enable sets that running
 * sessions put there, and the write path that follows them.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ketw_internal.h"

static LIST_HEAD(ketw_providers);

/*
 * One bit per context a writer can run in on a CPU (task, softirq,
 * hardirq, NMI): a writer finding its own bit set was called from inside
 * the write path, and its event is counted lost instead of recursing.
 */
static DEFINE_PER_CPU(unsigned int, ketw_recursion);

static bool ketw_enable_match(const struct ketw_enable *e,
			      const struct ketw_event_descriptor *d)
{
	if (e->level && d->level > e->level)
		return false;
	/* ETW: an event with no keyword passes every keyword filter. */
	if (!d->keyword)
		return true;
	if (e->match_any && !(d->keyword & e->match_any))
		return false;
	return (d->keyword & e->match_all) == e->match_all;
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
int __ketw_write(struct ketw_provider *prov,
		 const struct ketw_event_descriptor *desc,
		 const void *data, size_t len)
{
	struct ketw_enable_set *set;
	unsigned int bit, i;
	bool nested;
	int stored = 0;

	/* Also an RCU read-side section for the enable set and sessions. */
	preempt_disable_notrace();
	bit = 1U << interrupt_context_level();
	nested = this_cpu_read(ketw_recursion) & bit;
	if (!nested)
		this_cpu_or(ketw_recursion, bit);

	set = rcu_dereference_sched(prov->enables);
	for (i = 0; set && i < set->nr; i++) {
		const struct ketw_enable *e = &set->e[i];

		if (!ketw_enable_match(e, desc))
			continue;
		if (unlikely(nested))
			ketw_ring_lose(e->session->ring, KETW_LOSS_NESTED);
		else
			stored += ketw_session_log(e->session, prov->guid, desc,
						   data, len, 0);
	}

	if (!nested)
		this_cpu_and(ketw_recursion, ~bit);
	preempt_enable_notrace();
	return stored;
}
EXPORT_SYMBOL_GPL(__ketw_write);

/* Does session @s take provider @prov, and with which filter? */
static bool ketw_session_wants(struct ketw_session *s,
			       struct ketw_provider *prov,
			       struct ketw_enable *e)
{
	/* Every provider, with the session's default filter. */
	e->session = s;
	e->level = s->attr.level;
	e->match_any = s->attr.match_any;
	e->match_all = s->attr.match_all;
	return true;
}

/*
 * Replace @prov's enable set by the old one without @drop and with @add
 * (either may be NULL), and set the static branch to match.
 */
static void ketw_provider_update(struct ketw_provider *prov,
				 struct ketw_session *drop,
				 const struct ketw_enable *add)
{
	struct ketw_enable_set *old, *new = NULL;
	unsigned int i, n = 0, nr;

	lockdep_assert_held(&ketw_mutex);
	old = rcu_dereference_protected(prov->enables,
					lockdep_is_held(&ketw_mutex));
	nr = (old ? old->nr : 0) + (add ? 1 : 0);
	if (nr) {
		/*
		 * At most KETW_MAX_SESSIONS entries (2 KiB): small enough
		 * for __GFP_NOFAIL, so that stopping a session cannot fail
		 * half way through its providers.
		 */
		new = kmalloc(struct_size(new, e, nr),
			      GFP_KERNEL | __GFP_NOFAIL);
		for (i = 0; old && i < old->nr; i++)
			if (old->e[i].session != drop)
				new->e[n++] = old->e[i];
		if (add)
			new->e[n++] = *add;
		new->nr = n;
		if (!n) {
			kfree(new);
			new = NULL;
		}
	}
	if (new && !old)
		static_branch_enable(&prov->key);
	rcu_assign_pointer(prov->enables, new);
	if (!new && old)
		static_branch_disable(&prov->key);
	if (old)
		kfree_rcu(old, rcu);
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
	struct ketw_enable e;

	lockdep_assert_held(&ketw_mutex);
	list_for_each_entry(prov, &ketw_providers, node)
		if (ketw_session_wants(s, prov, &e))
			ketw_provider_update(prov, NULL, &e);
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

static struct ketw_provider *ketw_provider_find(const u8 *guid,
						const char *name)
{
	struct ketw_provider *prov;

	list_for_each_entry(prov, &ketw_providers, node)
		if (!memcmp(prov->guid, guid, KETW_GUID_SIZE) ||
		    !strcmp(prov->name, name))
			return prov;
	return NULL;
}

/**
 * ketw_provider_register() - make a provider known to ketw
 * @prov: the provider, defined with KETW_PROVIDER().
 *
 * Running sessions that take the provider start receiving its events.
 * Context: process; may sleep.
 *
 * Return: 0; -EINVAL for an empty, too long or badly formed name or the
 * all-zero GUID (reserved for system events); -EEXIST if a provider with
 * the same GUID or name is registered.
 */
int ketw_provider_register(struct ketw_provider *prov)
{
	static const u8 zero[KETW_GUID_SIZE];
	struct ketw_session *s;
	struct ketw_enable e;
	size_t n;

	n = prov->name ? strnlen(prov->name, KETW_NAME_MAX) : 0;
	if (!n || n == KETW_NAME_MAX || !memcmp(prov->guid, zero, sizeof(zero)))
		return -EINVAL;

	mutex_lock(&ketw_mutex);
	if (ketw_provider_find(prov->guid, prov->name)) {
		mutex_unlock(&ketw_mutex);
		return -EEXIST;
	}
	RCU_INIT_POINTER(prov->enables, NULL);
	list_add_tail(&prov->node, &ketw_providers);
	list_for_each_entry(s, &ketw_sessions, node)
		if (s->state == KETW_STATE_RUNNING &&
		    ketw_session_wants(s, prov, &e))
			ketw_provider_update(prov, NULL, &e);
	mutex_unlock(&ketw_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(ketw_provider_register);

/**
 * ketw_provider_unregister() - remove a provider
 * @prov: a registered provider.
 *
 * On return no CPU is inside __ketw_write() for @prov, so its module may
 * go away. Context: process; may sleep.
 */
void ketw_provider_unregister(struct ketw_provider *prov)
{
	struct ketw_enable_set *old;

	mutex_lock(&ketw_mutex);
	old = rcu_dereference_protected(prov->enables,
					lockdep_is_held(&ketw_mutex));
	RCU_INIT_POINTER(prov->enables, NULL);
	if (old)
		static_branch_disable(&prov->key);
	list_del_init(&prov->node);
	mutex_unlock(&ketw_mutex);
	/* Writers that saw the old set are done after this. */
	synchronize_rcu();
	kfree(old);
}
EXPORT_SYMBOL_GPL(ketw_provider_unregister);
