// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: providers through ioctls: enabling one in a session with a
 * filter (KETW_IOC_ENABLE, KETW_IOC_GET_FILTER), listing the registry
 * (KETW_IOC_PROVIDERS, KETW_IOC_EVENTS) into arrays that grow until every
 * entry fits, and asking for a rundown (KETW_IOC_RUNDOWN).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

static int ketw_enable_req(struct ketw_enable *req, const char *session,
			   const struct ketw_provider_ref *p)
{
	if (!ketw_session_name_valid(session))
		return -EINVAL;
	if (!p->name[0] && ketw_guid_is_zero(p->guid))
		return -EINVAL;
	if (strnlen(p->name, KETW_NAME_MAX) == KETW_NAME_MAX)
		return -EINVAL;
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	strncpy(req->session, session, KETW_NAME_MAX - 1);
	memcpy(req->provider, p->name, KETW_NAME_MAX);
	if (!p->name[0])
		memcpy(req->guid, p->guid, KETW_GUID_SIZE);
	return 0;
}

int ketw_session_enable(int fd, const char *session,
			const struct ketw_provider_ref *p,
			const struct ketw_filter *filter)
{
	return ketw_session_enable_items(fd, session, p, filter, 0);
}

int ketw_session_enable_items(int fd, const char *session,
			      const struct ketw_provider_ref *p,
			      const struct ketw_filter *filter,
			      uint32_t ext_items)
{
	struct ketw_enable req;
	int err;

	err = ketw_enable_req(&req, session, p);
	if (err)
		return err;
	if (filter->level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	req.filter = *filter;
	req.filter.enabled = 0;		/* ignored by the kernel */
	req.ext_items = ext_items;
	return ketw_ioctl(fd, KETW_IOC_ENABLE, &req);
}

int ketw_session_get_items(int fd, const char *session,
			   const struct ketw_provider_ref *p,
			   uint32_t *ext_items)
{
	struct ketw_enable req;
	int err;

	err = ketw_enable_req(&req, session, p);
	if (err)
		return err;
	err = ketw_ioctl(fd, KETW_IOC_GET_FILTER, &req);
	if (!err)
		*ext_items = req.ext_items;
	return err;
}

int ketw_session_disable(int fd, const char *session,
			 const struct ketw_provider_ref *p)
{
	struct ketw_enable req;
	int err;

	err = ketw_enable_req(&req, session, p);
	if (err)
		return err;
	req.flags = KETW_ENABLE_DISABLE;
	return ketw_ioctl(fd, KETW_IOC_ENABLE, &req);
}

int ketw_session_get_filter(int fd, const char *session,
			    const struct ketw_provider_ref *p,
			    struct ketw_filter *filter)
{
	struct ketw_enable req;
	int err;

	err = ketw_enable_req(&req, session, p);
	if (err)
		return err;
	err = ketw_ioctl(fd, KETW_IOC_GET_FILTER, &req);
	if (!err)
		*filter = req.filter;
	return err;
}

int ketw_session_rundown(int fd, const char *name)
{
	struct ketw_session_ref ref;

	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(&ref, 0, sizeof(ref));
	strncpy(ref.name, name, KETW_NAME_MAX - 1);
	return ketw_ioctl(fd, KETW_IOC_RUNDOWN, &ref);
}

/* KETW_IOC_PROVIDERS or KETW_IOC_EVENTS, with its struct ketw_list. */
struct ketw_list_req {
	unsigned long cmd;
	struct ketw_list *l;
};

static int ketw_list_ask(int fd, void *ctx, void *arr, unsigned int cap,
			 unsigned int *count)
{
	struct ketw_list_req *req = ctx;
	struct ketw_list *l = req->l;
	int err;

	l->size = sizeof(*l);
	l->capacity = cap;
	l->count = 0;
	l->entries = (uintptr_t)arr;
	err = ketw_ioctl(fd, req->cmd, l);
	*count = l->count;
	return err;
}

static int ketw_list_get(int fd, unsigned long cmd, struct ketw_list *l,
			 size_t entry_size, void **out, unsigned int *nr)
{
	struct ketw_list_req req = { .cmd = cmd, .l = l };

	return ketw_array_get(fd, entry_size, ketw_list_ask, &req, out, nr);
}

int ketw_providers_get(int fd, struct ketw_provider_info **out,
		       unsigned int *nr)
{
	struct ketw_list l;

	memset(&l, 0, sizeof(l));
	return ketw_list_get(fd, KETW_IOC_PROVIDERS, &l, sizeof(**out),
			     (void **)out, nr);
}

int ketw_provider_events_get(int fd, const struct ketw_provider_ref *p,
			     struct ketw_event_info **out, unsigned int *nr)
{
	struct ketw_list l;

	*out = NULL;
	*nr = 0;
	if (!p->name[0] && ketw_guid_is_zero(p->guid))
		return -EINVAL;
	if (strnlen(p->name, KETW_NAME_MAX) == KETW_NAME_MAX)
		return -EINVAL;
	memset(&l, 0, sizeof(l));
	memcpy(l.provider, p->name, KETW_NAME_MAX);
	if (!p->name[0])
		memcpy(l.guid, p->guid, KETW_GUID_SIZE);
	return ketw_list_get(fd, KETW_IOC_EVENTS, &l, sizeof(**out),
			     (void **)out, nr);
}
