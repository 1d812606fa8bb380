// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: user-space providers (ketw_provider.h). Registering one opens
 * /dev/ketw_user, hands the kernel its descriptors (KETW_IOC_USER_REGISTER)
 * and maps the file's enable page; writing one is KETW_IOC_USER_WRITEV,
 * or KETW_IOC_USER_WRITE on a module older than it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ketw_provider.h"

const struct ketw_user_enable_page ketw_provider_off = {
	.version = KETW_USER_PAGE_VERSION,
};

/* Why this thread's last registration was -EEXIST (KETW_USER_CONFLICT_*). */
static _Thread_local int ketw_last_conflict;

int ketw_provider_conflict(void)
{
	return ketw_last_conflict;
}

const char *ketw_provider_conflict_str(int reason)
{
	switch (reason) {
	case KETW_USER_CONFLICT_NONE:
		return "no conflict";
	case KETW_USER_CONFLICT_OTHER_USER:
		return "another user has registered a provider of this name";
	case KETW_USER_CONFLICT_OTHER_GUID:
		return "a provider of this name is registered with another GUID";
	case KETW_USER_CONFLICT_OTHER_EVENTS:
		return "a provider of this name and GUID is registered with other event descriptors";
	case KETW_USER_CONFLICT_GUID_TAKEN:
		return "another provider (a driver's, or one of another name) has this GUID";
	default:
		return "unknown conflict";
	}
}

/* After an EEXIST on @fd: which rule the registration broke, or 0. */
static int ketw_conflict_of(int fd)
{
	struct ketw_user_conflict c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (ioctl(fd, KETW_IOC_USER_CONFLICT, &c))
		return KETW_USER_CONFLICT_NONE;	/* an older module */
	return (int)c.reason;
}

/* Copy a name into a fixed field; -EINVAL if it does not fit. */
static int ketw_name_put(char *dst, size_t size, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n >= size)
		return -EINVAL;
	memcpy(dst, name, n);
	return 0;
}

/* @prov's descriptors as the kernel takes them; *out NULL if none. */
static int ketw_provider_infos(const struct ketw_provider *prov,
			       struct ketw_event_info **out)
{
	struct ketw_event_info *ei;
	uint32_t i, j;

	*out = NULL;
	if (!prov->nr_events)
		return 0;
	if (!prov->events)
		return -EINVAL;
	if (prov->nr_events > KETW_USER_MAX_EVENTS)
		return -E2BIG;
	ei = calloc(prov->nr_events, sizeof(*ei));
	if (!ei)
		return -ENOMEM;
	for (i = 0; i < prov->nr_events; i++) {
		const struct ketw_event_descriptor *d = &prov->events[i];

		if (d->nr_fields > KETW_MAX_FIELDS ||
		    (d->nr_fields && !d->fields) ||
		    ketw_name_put(ei[i].name, sizeof(ei[i].name), d->name))
			goto inval;
		ei[i].id = d->id;
		ei[i].type = d->type;
		ei[i].level = d->level;
		ei[i].version = d->version;
		ei[i].keyword = d->keyword;
		ei[i].nr_fields = d->nr_fields;
		for (j = 0; j < d->nr_fields; j++) {
			const struct ketw_field *f = &d->fields[j];
			struct ketw_field_info *fi = &ei[i].fields[j];

			if (ketw_name_put(fi->name, sizeof(fi->name), f->name))
				goto inval;
			fi->type = f->type;
			fi->offset = f->offset;
			fi->size = f->size;
		}
	}
	*out = ei;
	return 0;
inval:
	free(ei);
	return -EINVAL;
}

/* Registered: its page is a mapped enable page, not the static one. */
static bool ketw_provider_registered(const struct ketw_provider *prov)
{
	return prov->page && prov->page != &ketw_provider_off;
}

int ketw_provider_register_at(struct ketw_provider *prov, const char *path)
{
	struct ketw_user_provider up;
	struct ketw_event_info *ei;
	void *page;
	int fd, err;

	ketw_last_conflict = KETW_USER_CONFLICT_NONE;
	if (ketw_provider_registered(prov))
		return -EBUSY;
	/* A provider left zeroed is not registered, nor ever enabled. */
	prov->page = &ketw_provider_off;
	prov->fd = -1;
	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	memcpy(up.guid, prov->guid, KETW_GUID_SIZE);
	err = ketw_name_put(up.name, sizeof(up.name), prov->name);
	if (err)
		return err;
	err = ketw_provider_infos(prov, &ei);
	if (err)
		return err;
	up.events = (uintptr_t)ei;
	up.nr_events = ei ? prov->nr_events : 0;

	fd = open(path ? path : KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (ioctl(fd, KETW_IOC_USER_REGISTER, &up)) {
		err = -errno;
		if (err == -EEXIST)
			ketw_last_conflict = ketw_conflict_of(fd);
		goto out_close;
	}
	page = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	prov->fd = fd;
	__atomic_store_n(&prov->page, page, __ATOMIC_RELEASE);
	free(ei);
	return 0;

out_close:
	close(fd);
out:
	free(ei);
	return err;
}

int ketw_provider_register(struct ketw_provider *prov)
{
	return ketw_provider_register_at(prov, NULL);
}

void ketw_provider_unregister(struct ketw_provider *prov)
{
	const struct ketw_user_enable_page *page = prov->page;

	if (!ketw_provider_registered(prov)) {
		prov->page = &ketw_provider_off;
		prov->fd = -1;
		return;
	}
	__atomic_store_n(&prov->page, &ketw_provider_off, __ATOMIC_RELEASE);
	munmap((void *)page, sysconf(_SC_PAGESIZE));
	close(prov->fd);
	prov->fd = -1;
}

/*
 * The USER_WRITE request, with the program address of the call site and
 * an activity (both VER1 fields). A kernel that knows only VER0 refuses
 * them with E2BIG: the event then goes without them. For a module older
 * than USER_WRITEV; @iov's pieces are gathered into one buffer.
 */
static int ketw_user_write_old(const struct ketw_provider *prov,
			       const struct ketw_event_descriptor *desc,
			       const struct iovec *iov, int iovcnt,
			       size_t len, void *prog_addr,
			       const uint8_t *activity, const uint8_t *related)
{
	struct ketw_user_event ue;
	void *buf = NULL;
	size_t off = 0;
	int ret, i;

	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.prog_addr = (uintptr_t)prog_addr;
	if (activity)
		memcpy(ue.activity, activity, sizeof(ue.activity));
	if (activity && related)
		memcpy(ue.related, related, sizeof(ue.related));
	ue.id = desc->id;
	ue.type = desc->type;
	ue.level = desc->level;
	ue.version = desc->version;
	ue.keyword = desc->keyword;
	ue.len = len;
	if (iovcnt == 1) {
		ue.data = (uintptr_t)iov[0].iov_base;
	} else if (len) {
		buf = malloc(len);
		if (!buf)
			return -ENOMEM;
		for (i = 0; i < iovcnt; i++) {
			if (!iov[i].iov_len)
				continue;
			memcpy((char *)buf + off, iov[i].iov_base,
			       iov[i].iov_len);
			off += iov[i].iov_len;
		}
		ue.data = (uintptr_t)buf;
	}
	ret = ioctl(prov->fd, KETW_IOC_USER_WRITE, &ue);
	if (ret < 0 && errno == E2BIG) {
		ue.size = KETW_USER_EVENT_SIZE_VER0;
		ret = ioctl(prov->fd, KETW_IOC_USER_WRITE, &ue);
	}
	ret = ret < 0 ? -errno : ret;
	free(buf);
	return ret;
}

/* Set once the module has answered USER_WRITEV with ENOTTY: older than it. */
static int ketw_no_writev;

/*
 * Log an event: KETW_IOC_USER_WRITEV, the request on the stack and the
 * payload straight from @iov. A module that does not know it (ENOTTY,
 * remembered for the process: one module serves every provider) or
 * refuses the request (EINVAL) gets KETW_IOC_USER_WRITE instead, whose
 * answer stands.
 */
static int ketw_user_write(const struct ketw_provider *prov,
			   const struct ketw_event_descriptor *desc,
			   const struct iovec *iov, int iovcnt,
			   void *prog_addr, const uint8_t *activity,
			   const uint8_t *related)
{
	size_t len = 0;
	int i, ret;

	if (iovcnt < 0 || iovcnt > KETW_USER_IOV_MAX || (iovcnt && !iov))
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > KETW_MAX_DATA_SIZE - len)
			return -EINVAL;
		len += iov[i].iov_len;
	}
	if (!__atomic_load_n(&ketw_no_writev, __ATOMIC_RELAXED)) {
		struct ketw_user_writev w = {
			.id = desc->id,
			.type = desc->type,
			.level = desc->level,
			.version = desc->version,
			.keyword = desc->keyword,
			.iov = (uintptr_t)iov,
			.iovcnt = (uint32_t)iovcnt,
			.prog_addr = (uintptr_t)prog_addr,
		};

		if (activity) {
			w.flags = KETW_USER_WRITEV_ACTIVITY;
			memcpy(w.activity, activity, sizeof(w.activity));
			if (related)
				memcpy(w.related, related, sizeof(w.related));
		}
		ret = ioctl(prov->fd, KETW_IOC_USER_WRITEV, &w);
		if (ret >= 0)
			return ret;
		if (errno == ENOTTY)
			__atomic_store_n(&ketw_no_writev, 1, __ATOMIC_RELAXED);
		else if (errno != EINVAL)
			return -errno;
	}
	return ketw_user_write_old(prov, desc, iov, iovcnt, len, prog_addr,
				   activity, related);
}

/* The program address is where the caller goes back to: its trace point. */
__attribute__((noinline))
int __ketw_write(const struct ketw_provider *prov,
		 const struct ketw_event_descriptor *desc,
		 const void *data, size_t len)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	return ketw_user_write(prov, desc, &iov, 1,
			       __builtin_return_address(0), NULL, NULL);
}

__attribute__((noinline))
int __ketw_writev(const struct ketw_provider *prov,
		  const struct ketw_event_descriptor *desc,
		  const struct iovec *iov, int iovcnt)
{
	return ketw_user_write(prov, desc, iov, iovcnt,
			       __builtin_return_address(0), NULL, NULL);
}

int __ketw_write_addr(const struct ketw_provider *prov,
		      const struct ketw_event_descriptor *desc,
		      const void *data, size_t len, const void *prog_addr)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	return ketw_user_write(prov, desc, &iov, 1, (void *)prog_addr, NULL,
			       NULL);
}

__attribute__((noinline))
int __ketw_write_activity(const struct ketw_provider *prov,
			  const struct ketw_event_descriptor *desc,
			  const uint8_t activity[KETW_ACTIVITY_ID_SIZE],
			  const uint8_t *related,
			  const void *data, size_t len)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	return ketw_user_write(prov, desc, &iov, 1,
			       __builtin_return_address(0), activity,
			       related);
}
