// SPDX-License-Identifier: GPL-2.0
/*
 * ketw user-space providers (/dev/ketw_user): a file's registration, the
 * provider that registrations of one name by one user share, and what
 * one user may do through them. A file opened without CAP_SYS_ADMIN (by
 * a member of the user_gid group) is limited, per user id: at most
 * user_max_providers registrations at once, and at most user_max_events
 * events and user_max_bytes payload bytes per second that sessions take.
 * Documentation/ketw-providers.rst states the limits,
 * Documentation/ketw-lifetimes.rst the lifetimes.
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
module_param_cb(user_max_providers, &ketw_param_ops_uint,
		&ketw_user_max_providers, 0644);
__MODULE_PARM_TYPE(user_max_providers, "uint");
MODULE_PARM_DESC(user_max_providers, "providers one user (not root) may have registered at once through /dev/ketw_user");

static unsigned int ketw_user_max_events = 10000;
module_param_cb(user_max_events, &ketw_param_ops_uint, &ketw_user_max_events,
		0644);
__MODULE_PARM_TYPE(user_max_events, "uint");
MODULE_PARM_DESC(user_max_events, "events per second one user (not root) may log into sessions");

static unsigned int ketw_user_max_bytes = 1 << 20;
module_param_cb(user_max_bytes, &ketw_param_ops_uint, &ketw_user_max_bytes,
		0644);
__MODULE_PARM_TYPE(user_max_bytes, "uint");
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

/*
 * One file's registration: the provider it shares with the others, and
 * the user id that is charged for it (NULL: the file is not limited).
 */
struct ketw_user_reg {
	struct ketw_user_prov *up;
	struct ketw_user *user;
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

/*
 * May @arg (a struct ketw_user) log an event of @len bytes now? Takes it
 * from the buckets. A ketw_write_gated() gate: called only for an event
 * some session takes.
 */
static bool ketw_user_take(void *arg, size_t len)
{
	struct ketw_user *u = arg;
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

/*
 * The enable page's fault handler: the mapping has no page table entry
 * until it is read, and again after madvise(MADV_DONTNEED). The mapping
 * holds its file, so the registration, so the provider and its page.
 */
static vm_fault_t ketw_user_fault(struct vm_fault *vmf)
{
	struct page *page = vmf->vma->vm_private_data;

	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct ketw_user_vm_ops = {
	.fault = ketw_user_fault,
};

/**
 * ketw_user_mmap() - map a user provider's enable page
 * @reg:  the file's registration.
 * @vma:  one page at offset 0, shared, not writable.
 *
 * Every registration of the provider maps the same page. The mapping can
 * never become writable (no VM_MAYWRITE) and is inherited across fork(),
 * as the file is. Its page is put in on the first read, and again after
 * madvise(MADV_DONTNEED) (ketw_user_fault()).
 *
 * Return: 0; -EINVAL for another offset or length, or a private mapping;
 * -EPERM if writable.
 */
int ketw_user_mmap(struct ketw_user_reg *reg, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	/* The page is the kernel's, shared: no private copy of it. */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_private_data = reg->up->page;
	vma->vm_ops = &ketw_user_vm_ops;
	return 0;
}

/*
 * May a registration like @u share @old, the user provider registered
 * under the same name? KETW_USER_CONFLICT_NONE, or why not.
 */
static u32 ketw_user_conflict(const struct ketw_user_prov *old,
			      const struct ketw_user_prov *u)
{
	if (old->uid != u->uid)
		return KETW_USER_CONFLICT_OTHER_USER;
	if (memcmp(old->prov.guid, u->prov.guid, KETW_GUID_SIZE))
		return KETW_USER_CONFLICT_OTHER_GUID;
	/* Checked: names and unused fields have no stray bytes. */
	if (old->prov.nr_events != u->prov.nr_events ||
	    (u->prov.nr_events &&
	     memcmp(old->infos, u->infos,
		    array_size(u->prov.nr_events, sizeof(*u->infos)))))
		return KETW_USER_CONFLICT_OTHER_EVENTS;
	/* A kernel provider took the GUID since: no new registration. */
	if (ketw_provider_find(NULL, u->prov.guid, false))
		return KETW_USER_CONFLICT_GUID_TAKEN;
	return KETW_USER_CONFLICT_NONE;
}

/*
 * Register @u, or join the provider registered under its name. Returns
 * the provider @reg now holds: @u, or the one it joined (the caller then
 * frees @u); or an ERR_PTR (-EEXIST with *@conflict, -EINVAL).
 */
static struct ketw_user_prov *ketw_user_join(struct ketw_user_prov *u,
					     struct ketw_event_info *ei,
					     u32 *conflict)
{
	struct ketw_user_prov *old;
	struct ketw_provider *prov;
	int err;

	mutex_lock(&ketw_mutex);
	/* Kernel providers' names never start with KETW_USER_PREFIX. */
	prov = ketw_provider_find(u->name, NULL, true);
	if (prov) {
		old = container_of(prov, struct ketw_user_prov, prov);
		*conflict = ketw_user_conflict(old, u);
		if (*conflict == KETW_USER_CONFLICT_NONE)
			old->regs++;
		else
			old = ERR_PTR(-EEXIST);
	} else {
		err = ketw_provider_add(&u->prov, ei);
		/* Not its name (no user provider has it): its GUID. */
		if (err == -EEXIST)
			*conflict = KETW_USER_CONFLICT_GUID_TAKEN;
		if (!err)
			u->regs = 1;
		old = err ? ERR_PTR(err) : u;
	}
	mutex_unlock(&ketw_mutex);
	return old;
}

/**
 * ketw_user_provider_register() - register a provider for a user process
 * @up:       the request (size already checked).
 * @limited:  the file was opened without CAP_SYS_ADMIN: the caller's user
 *            id's limits apply.
 * @conflict: out: KETW_USER_CONFLICT_NONE, or why the result is -EEXIST.
 *
 * The provider is named KETW_USER_PREFIX followed by @up->name, and
 * cannot take a name or GUID a kernel provider has (see
 * ketw_provider_taken()). A registration of a name the same user id
 * registered with the same GUID and descriptors shares that provider.
 *
 * @up->events are copied from user space: call without ketw_mutex (and
 * without any lock mmap() takes).
 *
 * Return: the registration, or ERR_PTR(-EINVAL for a name that is empty
 * or too long with the prefix, or a bad descriptor / -E2BIG for more than
 * KETW_USER_MAX_EVENTS descriptors / -EFAULT / -EEXIST / -ENOSPC at the
 * user's user_max_providers / -ENOMEM).
 */
struct ketw_user_reg *
ketw_user_provider_register(const struct ketw_user_provider *up, bool limited,
			    u32 *conflict)
{
	size_t n = strnlen(up->name, KETW_NAME_MAX);
	struct ketw_event_info *ei = NULL;
	struct ketw_user_prov *u, *got;
	struct ketw_user_reg *reg;
	int err;

	*conflict = KETW_USER_CONFLICT_NONE;
	if (up->flags || !n ||
	    n + sizeof(KETW_USER_PREFIX) - 1 >= KETW_NAME_MAX)
		return ERR_PTR(-EINVAL);
	reg = kzalloc(sizeof(*reg), GFP_KERNEL);
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!reg || !u) {
		err = -ENOMEM;
		goto out_free;
	}
	err = ketw_user_events_load(u, up);
	if (err)
		goto out_free;
	u->page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	ei = kmalloc(sizeof(*ei), GFP_KERNEL);
	if (!u->page || !ei) {
		err = -ENOMEM;
		goto out_free;
	}
	((struct ketw_user_enable_page *)page_address(u->page))->version =
		KETW_USER_PAGE_VERSION;
	if (limited) {
		reg->user = ketw_user_get();
		if (IS_ERR(reg->user)) {
			err = PTR_ERR(reg->user);
			reg->user = NULL;
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
	got = ketw_user_join(u, ei, conflict);
	if (IS_ERR(got)) {
		err = PTR_ERR(got);
		goto out_put;
	}
	reg->up = got;
	if (got != u)
		ketw_user_prov_free(u);
	kfree(ei);
	return reg;

out_put:
	ketw_user_put(reg->user);
out_free:
	kfree(ei);
	if (u)
		ketw_user_prov_free(u);
	kfree(reg);
	return ERR_PTR(err);
}

/**
 * ketw_user_provider_unregister() - end a registration
 * @reg: from ketw_user_provider_register().
 *
 * The last registration of a provider removes and frees it.
 * Context: process; may sleep (a grace period).
 */
void ketw_user_provider_unregister(struct ketw_user_reg *reg)
{
	struct ketw_user_prov *u = reg->up;
	struct ketw_enable_set *old = NULL;
	bool last;

	mutex_lock(&ketw_mutex);
	last = !--u->regs;
	if (last)
		old = ketw_provider_del(&u->prov);
	mutex_unlock(&ketw_mutex);
	if (last) {
		/* Writers that saw it are done after this. */
		synchronize_rcu();
		kfree(old);
		ketw_user_prov_free(u);
	}
	ketw_user_put(reg->user);
	kfree(reg);
}

/**
 * ketw_user_enabled() - may a session take an event of a registration now?
 * @reg: from ketw_user_provider_register().
 *
 * Return: false if no running session (nor the ftrace event) takes the
 * provider: ketw_user_write() would store nothing.
 */
bool ketw_user_enabled(const struct ketw_user_reg *reg)
{
	return static_key_enabled(&reg->up->prov.key);
}

/**
 * ketw_user_write() - log an event of a user provider
 * @reg:  from ketw_user_provider_register().
 * @desc: the event's descriptor.
 * @data: the payload, in kernel memory.
 * @len:  its length, at most KETW_MAX_DATA_SIZE.
 * @src:  its program address and activity, for the items.
 *
 * An event no session takes (after each session's filters) costs nothing
 * and counts for nothing; one that some session takes, or the ftrace
 * event ketw:ketw_event, counts against the user's rates.
 *
 * Return: the number of sessions that stored it; -EAGAIN if the user has
 * logged user_max_events events or user_max_bytes bytes within the last
 * second (nothing is logged).
 */
int ketw_user_write(struct ketw_user_reg *reg,
		    const struct ketw_event_descriptor *desc,
		    const void *data, size_t len,
		    const struct ketw_ext_src *src)
{
	struct ketw_provider *prov = &reg->up->prov;

	if (!ketw_user_enabled(reg))
		return 0;
	if (!reg->user)
		return ketw_write_flags(prov, desc, data, len,
					KETW_RECORD_USER, src);
	return ketw_write_gated(prov, desc, data, len, KETW_RECORD_USER, src,
				ketw_user_take, reg->user);
}
