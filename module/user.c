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
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

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

/* Bytes a field of each fixed-size KETW_FIELD_* type has; 0: any. */
static const u8 ketw_field_sizes[] = {
	[KETW_FIELD_U8] = 1, [KETW_FIELD_U16] = 2, [KETW_FIELD_U32] = 4,
	[KETW_FIELD_U64] = 8, [KETW_FIELD_S8] = 1, [KETW_FIELD_S16] = 2,
	[KETW_FIELD_S32] = 4, [KETW_FIELD_S64] = 8, [KETW_FIELD_HEX32] = 4,
	[KETW_FIELD_HEX64] = 8, [KETW_FIELD_STRING] = 0,
	[KETW_FIELD_BINARY] = 0, [KETW_FIELD_GUID] = 16,
};

/* 1 to @size - 1 printable characters, no blank, NUL-terminated. */
static bool ketw_user_name_ok(const char *name, size_t size)
{
	size_t i, n = strnlen(name, size);

	if (!n || n == size)
		return false;
	for (i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	/* Nothing after the NUL: the bytes are copied out as they are. */
	return !memchr_inv(name + n, 0, size - n);
}

static bool ketw_user_field_ok(const struct ketw_field_info *f)
{
	if (f->type < KETW_FIELD_U8 || f->type > KETW_FIELD_GUID ||
	    f->reserved || !ketw_user_name_ok(f->name, sizeof(f->name)))
		return false;
	if (ketw_field_sizes[f->type] && f->size != ketw_field_sizes[f->type])
		return false;
	return (u32)f->offset + f->size <= KETW_MAX_DATA_SIZE;
}

static bool ketw_user_info_ok(const struct ketw_event_info *ei,
			      const u8 *guid)
{
	static const u8 zero[KETW_GUID_SIZE];
	unsigned int i;

	if ((memcmp(ei->provider_guid, zero, KETW_GUID_SIZE) &&
	     memcmp(ei->provider_guid, guid, KETW_GUID_SIZE)) ||
	    ei->level > KETW_LEVEL_VERBOSE || ei->flags ||
	    ei->nr_fields > KETW_MAX_FIELDS ||
	    !ketw_user_name_ok(ei->name, sizeof(ei->name)))
		return false;
	for (i = 0; i < ei->nr_fields; i++)
		if (!ketw_user_field_ok(&ei->fields[i]))
			return false;
	/* Unused fields are zero: room to grow. */
	return !memchr_inv(&ei->fields[i], 0,
			   (KETW_MAX_FIELDS - i) * sizeof(ei->fields[0]));
}

/*
 * Copy, check and convert @up's event descriptors into @u->prov.events.
 * Returns 0, -E2BIG above KETW_USER_MAX_EVENTS, -EFAULT, -EINVAL (see
 * struct ketw_user_provider), -ENOMEM.
 */
static int ketw_user_events_load(struct ketw_user_prov *u,
				 const struct ketw_user_provider *up)
{
	struct ketw_event_info *ei;
	unsigned int i, j, k, nf = 0;

	if (up->reserved || (!up->nr_events && up->events))
		return -EINVAL;
	if (!up->nr_events)
		return 0;
	if (up->nr_events > KETW_USER_MAX_EVENTS)
		return -E2BIG;
	/* Charged to the caller's memory cgroup: user space asks for it. */
	u->infos = kvmalloc_array(up->nr_events, sizeof(*u->infos),
				  GFP_KERNEL_ACCOUNT);
	u->descs = kvcalloc(up->nr_events, sizeof(*u->descs),
			    GFP_KERNEL_ACCOUNT);
	if (!u->infos || !u->descs)
		return -ENOMEM;
	if (copy_from_user(u->infos, u64_to_user_ptr(up->events),
			   array_size(up->nr_events, sizeof(*u->infos))))
		return -EFAULT;
	for (i = 0; i < up->nr_events; i++) {
		ei = &u->infos[i];
		if (!ketw_user_info_ok(ei, up->guid))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (u->infos[j].id == ei->id)
				return -EINVAL;
		nf += ei->nr_fields;
	}
	if (nf) {
		u->fields = kvcalloc(nf, sizeof(*u->fields),
				     GFP_KERNEL_ACCOUNT);
		if (!u->fields)
			return -ENOMEM;
	}
	for (i = 0, k = 0; i < up->nr_events; i++) {
		struct ketw_event_descriptor *d = &u->descs[i];

		ei = &u->infos[i];
		d->id = ei->id;
		d->type = ei->type;
		d->level = ei->level;
		d->version = ei->version;
		d->keyword = ei->keyword;
		d->name = ei->name;
		d->nr_fields = ei->nr_fields;
		d->fields = ei->nr_fields ? &u->fields[k] : NULL;
		for (j = 0; j < ei->nr_fields; j++, k++) {
			u->fields[k].name = ei->fields[j].name;
			u->fields[k].type = ei->fields[j].type;
			u->fields[k].offset = ei->fields[j].offset;
			u->fields[k].size = ei->fields[j].size;
		}
	}
	u->prov.events = u->descs;
	u->prov.nr_events = up->nr_events;
	return 0;
}

static void ketw_user_prov_free(struct ketw_user_prov *u)
{
	kvfree(u->fields);
	kvfree(u->descs);
	kvfree(u->infos);
	if (u->page)
		__free_page(u->page);
	kfree(u);
}

/**
 * ketw_user_mmap() - map a user provider's enable page
 * @prov: the file's provider.
 * @vma:  one page at offset 0, not writable.
 *
 * The mapping can never become writable (no VM_MAYWRITE) and is
 * inherited across fork(), as the file is.
 *
 * Return: 0; -EINVAL for another offset or length; -EPERM if writable.
 */
int ketw_user_mmap(struct ketw_provider *prov, struct vm_area_struct *vma)
{
	struct ketw_user_prov *u = container_of(prov, struct ketw_user_prov,
						prov);

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return vm_insert_page(vma, vma->vm_start, u->page);
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
 * @up->events are copied from user space: call without ketw_mutex (and
 * without any lock mmap() takes).
 *
 * Return: the provider, or ERR_PTR(-EINVAL for a name that is empty or
 * too long with the prefix, or a bad descriptor / -E2BIG for more than
 * KETW_USER_MAX_EVENTS descriptors / -EFAULT / -EEXIST / -ENOSPC at the
 * user's user_max_providers / -ENOMEM).
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
	err = ketw_user_events_load(u, up);
	if (err)
		goto out_free;
	u->page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!u->page) {
		err = -ENOMEM;
		goto out_free;
	}
	((struct ketw_user_enable_page *)page_address(u->page))->version =
		KETW_USER_PAGE_VERSION;
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
	ketw_user_prov_free(u);
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
	ketw_user_prov_free(u);
}

/**
 * ketw_user_write() - log an event of a user provider
 * @prov: from ketw_user_provider_register().
 * @desc: the event's descriptor.
 * @data: the payload, in kernel memory.
 * @len:  its length, at most KETW_MAX_DATA_SIZE.
 * @src:  its program address and activity, for the items.
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
		    const void *data, size_t len,
		    const struct ketw_ext_src *src)
{
	struct ketw_user_prov *u = container_of(prov, struct ketw_user_prov,
						prov);

	if (!static_key_enabled(&prov->key))
		return 0;
	if (u->user && !ketw_user_take(u->user, len))
		return -EAGAIN;
	return ketw_write_flags(prov, desc, data, len, KETW_RECORD_USER,
				src);
}
