// SPDX-License-Identifier: GPL-2.0
/*
 * ketw user-space providers (/dev/ketw_user): registering one for a file,
 * and what one user may do through them. A file opened without
 * CAP_SYS_ADMIN (by a member of the user_gid group) is limited, per user
 * id: at most user_max_providers providers at once, and at most
 * user_max_events events and user_max_bytes payload bytes per second
 * reaching sessions. Documentation/ketw-providers.rst states the limits.
 */
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/jump_label.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "ketw_internal.h"

static unsigned int ketw_user_max_providers = 16;
module_param_named(user_max_providers, ketw_user_max_providers, uint, 0644);
MODULE_PARM_DESC(user_max_providers, "providers one user (not root) may have registered at once through /dev/ketw_user");

static unsigned int ketw_user_max_events = 10000;
module_param_named(user_max_events, ketw_user_max_events, uint, 0644);
MODULE_PARM_DESC(user_max_events, "events per second one user (not root) may log into sessions");

static unsigned int ketw_user_max_bytes = 1 << 20;
module_param_named(user_max_bytes, ketw_user_max_bytes, uint, 0644);
MODULE_PARM_DESC(user_max_bytes, "payload bytes per second one user (not root) may log into sessions");

/*
 * One user id that has limited providers: counted by them, and freed with
 * the last. The buckets hold rate * nanoseconds: a second's worth at most,
 * refilled with the time since the last event, an event taking one second
 * of the events bucket and its length in seconds of the bytes bucket.
 */
struct ketw_user {
	struct hlist_node node;		/* ketw_users, under ketw_users_mutex */
	kuid_t uid;
	unsigned int providers;		/* under ketw_users_mutex */
	spinlock_t lock;		/* the buckets */
	u64 last_ns;
	u64 events;
	u64 bytes;
};

static DEFINE_HASHTABLE(ketw_users, 6);
static DEFINE_MUTEX(ketw_users_mutex);

/* Count one more provider of the caller's user id. */
static struct ketw_user *ketw_user_get(void)
{
	kuid_t uid = current_euid();
	struct ketw_user *u;

	mutex_lock(&ketw_users_mutex);
	hash_for_each_possible(ketw_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u) {
		u = ERR_PTR(-ENOMEM);
		goto out;
	}
	u->uid = uid;
	spin_lock_init(&u->lock);
	u->last_ns = ktime_get_mono_fast_ns();
	u->events = (u64)READ_ONCE(ketw_user_max_events) * NSEC_PER_SEC;
	u->bytes = (u64)READ_ONCE(ketw_user_max_bytes) * NSEC_PER_SEC;
	hash_add(ketw_users, &u->node, __kuid_val(uid));
found:
	if (u->providers >= READ_ONCE(ketw_user_max_providers)) {
		u = ERR_PTR(-ENOSPC);
		goto out;
	}
	u->providers++;
out:
	mutex_unlock(&ketw_users_mutex);
	return u;
}

static void ketw_user_put(struct ketw_user *u)
{
	if (!u)
		return;
	mutex_lock(&ketw_users_mutex);
	if (!--u->providers) {
		hash_del(&u->node);
		kfree(u);
	}
	mutex_unlock(&ketw_users_mutex);
}

/* May @u log an event of @len bytes now? Takes it from the buckets. */
static bool ketw_user_take(struct ketw_user *u, size_t len)
{
	u64 ev_rate = READ_ONCE(ketw_user_max_events);
	u64 by_rate = READ_ONCE(ketw_user_max_bytes);
	u64 now = ktime_get_mono_fast_ns(), dt;
	bool ok;

	spin_lock(&u->lock);
	dt = min_t(u64, now - u->last_ns, NSEC_PER_SEC);
	u->last_ns = now;
	u->events = min(u->events + dt * ev_rate, ev_rate * NSEC_PER_SEC);
	u->bytes = min(u->bytes + dt * by_rate, by_rate * NSEC_PER_SEC);
	ok = u->events >= NSEC_PER_SEC && u->bytes >= len * NSEC_PER_SEC;
	if (ok) {
		u->events -= NSEC_PER_SEC;
		u->bytes -= len * NSEC_PER_SEC;
	}
	spin_unlock(&u->lock);
	return ok;
}

/**
 * ketw_user_provider_register() - register a provider for a user process
 * @up:      the request (size already checked).
 * @limited: the file was opened without CAP_SYS_ADMIN: the caller's user
 *           id's limits apply.
 *
 * The provider is named KETW_USER_PREFIX followed by @up->name, and
 * cannot take a name or GUID a kernel provider has (see
 * ketw_provider_taken()).
 *
 * Return: the provider, or ERR_PTR(-EINVAL for a name that is empty or
 * too long with the prefix / -EEXIST / -ENOSPC at the user's
 * user_max_providers / -ENOMEM).
 */
struct ketw_provider *
ketw_user_provider_register(const struct ketw_user_provider *up, bool limited)
{
	struct ketw_user_prov *u;
	int err;

	size_t n = strnlen(up->name, KETW_NAME_MAX);

	if (up->flags || !n ||
	    n + sizeof(KETW_USER_PREFIX) - 1 >= KETW_NAME_MAX)
		return ERR_PTR(-EINVAL);
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return ERR_PTR(-ENOMEM);
	if (limited) {
		u->user = ketw_user_get();
		if (IS_ERR(u->user)) {
			err = PTR_ERR(u->user);
			goto out_free;
		}
	}
	u->prov.key = STATIC_KEY_FALSE_INIT;
	memcpy(u->prov.guid, up->guid, KETW_GUID_SIZE);
	snprintf(u->name, sizeof(u->name), "%s%.*s", KETW_USER_PREFIX,
		 (int)n, up->name);
	u->uid = from_kuid_munged(&init_user_ns, current_euid());
	u->prov.name = u->name;
	u->prov.flags = KETW_PROVIDER_USER;
	err = ketw_provider_register(&u->prov);
	if (err)
		goto out_put;
	return &u->prov;

out_put:
	ketw_user_put(u->user);
out_free:
	kfree(u);
	return ERR_PTR(err);
}

/**
 * ketw_user_provider_unregister() - remove and free a user provider
 * @prov: from ketw_user_provider_register().
 */
void ketw_user_provider_unregister(struct ketw_provider *prov)
{
	struct ketw_user_prov *u = container_of(prov, struct ketw_user_prov,
						prov);

	ketw_provider_unregister(prov);
	ketw_user_put(u->user);
	kfree(u);
}

/**
 * ketw_user_write() - log an event of a user provider
 * @prov: from ketw_user_provider_register().
 * @desc: the event's descriptor.
 * @data: the payload, in kernel memory.
 * @len:  its length, at most KETW_MAX_DATA_SIZE.
 *
 * An event no session takes costs nothing and counts for nothing; one
 * that would reach sessions counts against the user's rates.
 *
 * Return: the number of sessions that stored it; -EAGAIN if the user has
 * logged user_max_events events or user_max_bytes bytes within the last
 * second (nothing is logged).
 */
int ketw_user_write(struct ketw_provider *prov,
		    const struct ketw_event_descriptor *desc,
		    const void *data, size_t len)
{
	struct ketw_user_prov *u = container_of(prov, struct ketw_user_prov,
						prov);

	if (!static_key_enabled(&prov->key))
		return 0;
	if (u->user && !ketw_user_take(u->user, len))
		return -EAGAIN;
	return ketw_write_flags(prov, desc, data, len, KETW_RECORD_USER);
}
