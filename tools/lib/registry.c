// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: a registry of what PROVIDER and EVENT_DESC records (or the
 * PROVIDERS and EVENTS ioctls) say: provider names by GUID, and event
 * descriptors (id, name, payload layout) by GUID, id and version.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ketw_registry {
	struct ketw_sys_provider *provs;	/* sorted by GUID */
	unsigned int nr_provs;
	unsigned int cap_provs;
	struct ketw_event_info *events;		/* sorted by GUID, id, version */
	unsigned int nr_events;
	unsigned int cap_events;
};

struct ketw_registry *ketw_registry_new(void)
{
	return calloc(1, sizeof(struct ketw_registry));
}

void ketw_registry_free(struct ketw_registry *reg)
{
	if (!reg)
		return;
	free(reg->provs);
	free(reg->events);
	free(reg);
}

unsigned int ketw_registry_nr_providers(const struct ketw_registry *reg)
{
	return reg->nr_provs;
}

unsigned int ketw_registry_nr_events(const struct ketw_registry *reg)
{
	return reg->nr_events;
}

/* Make room for one more entry of @size bytes in *@arr. */
static int ketw_grow(void **arr, unsigned int nr, unsigned int *cap,
		     size_t size)
{
	unsigned int n;
	void *p;

	if (nr < *cap)
		return 0;
	n = *cap ? *cap * 2 : 8;
	if (n < *cap || (size_t)n > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, (size_t)n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

/*
 * Providers are keyed by GUID and namespace: a user provider may carry a
 * GUID a kernel provider registers later (uapi: KETW_USER_PREFIX).
 */
static int ketw_prov_cmp(const struct ketw_sys_provider *p,
			 const uint8_t *guid, bool user)
{
	int c = memcmp(p->provider_guid, guid, KETW_GUID_SIZE);

	if (c)
		return c;
	return (int)!!(p->flags & KETW_PROVIDER_USER) - (int)user;
}

/* The first provider not below (@guid, @user). */
static unsigned int ketw_prov_pos(const struct ketw_registry *reg,
				  const uint8_t *guid, bool user)
{
	unsigned int lo = 0, hi = reg->nr_provs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ketw_prov_cmp(&reg->provs[mid], guid, user) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ketw_registry_add_provider(struct ketw_registry *reg,
			       const struct ketw_sys_provider *p)
{
	bool user = p->flags & KETW_PROVIDER_USER;
	unsigned int i = ketw_prov_pos(reg, p->provider_guid, user);
	struct ketw_sys_provider *dst;

	if (i == reg->nr_provs ||
	    ketw_prov_cmp(&reg->provs[i], p->provider_guid, user)) {
		if (ketw_grow((void **)&reg->provs, reg->nr_provs,
			      &reg->cap_provs, sizeof(*reg->provs)))
			return -ENOMEM;
		memmove(&reg->provs[i + 1], &reg->provs[i],
			(reg->nr_provs - i) * sizeof(*reg->provs));
		reg->nr_provs++;
	}
	/* The latest word on a GUID wins (a provider may come back). */
	dst = &reg->provs[i];
	*dst = *p;
	dst->name[KETW_NAME_MAX - 1] = '\0';
	return 0;
}

/*
 * Descriptors too are keyed by namespace (KETW_PROVIDER_USER in their
 * flags): a user provider's must never decode a kernel provider's
 * events, whatever GUID it took.
 */
static int ketw_event_cmp(const struct ketw_event_info *e, const uint8_t *guid,
			  bool user, uint32_t id, uint16_t version)
{
	int c = memcmp(e->provider_guid, guid, KETW_GUID_SIZE);

	if (c)
		return c;
	c = (int)!!(e->flags & KETW_PROVIDER_USER) - (int)user;
	if (c)
		return c;
	if (e->id != id)
		return e->id < id ? -1 : 1;
	if (e->version != version)
		return e->version < version ? -1 : 1;
	return 0;
}

static unsigned int ketw_event_pos(const struct ketw_registry *reg,
				   const uint8_t *guid, bool user, uint32_t id,
				   uint16_t version)
{
	unsigned int lo = 0, hi = reg->nr_events, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ketw_event_cmp(&reg->events[mid], guid, user, id,
				   version) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ketw_registry_add_event(struct ketw_registry *reg,
			    const struct ketw_event_info *ev)
{
	bool user = ev->flags & KETW_PROVIDER_USER;
	unsigned int i = ketw_event_pos(reg, ev->provider_guid, user, ev->id,
					ev->version), k;
	struct ketw_event_info *dst;

	if (i == reg->nr_events ||
	    ketw_event_cmp(&reg->events[i], ev->provider_guid, user, ev->id,
			   ev->version)) {
		if (ketw_grow((void **)&reg->events, reg->nr_events,
			      &reg->cap_events, sizeof(*reg->events)))
			return -ENOMEM;
		memmove(&reg->events[i + 1], &reg->events[i],
			(reg->nr_events - i) * sizeof(*reg->events));
		reg->nr_events++;
	}
	dst = &reg->events[i];
	*dst = *ev;
	dst->flags &= KETW_PROVIDER_USER;	/* the key; nothing else */
	/* Names become strings; the field count stays within the array. */
	dst->name[KETW_NAME_MAX - 1] = '\0';
	if (dst->nr_fields > KETW_MAX_FIELDS)
		dst->nr_fields = KETW_MAX_FIELDS;
	for (k = 0; k < KETW_MAX_FIELDS; k++)
		dst->fields[k].name[KETW_FIELD_NAME_MAX - 1] = '\0';
	return 0;
}

bool ketw_record_is_rundown(const struct ketw_record *rec)
{
	const struct ketw_event_header *h = rec->hdr;

	return (h->flags & KETW_RECORD_SYSTEM) &&
	       (h->event_id == KETW_SYS_PROVIDER ||
		h->event_id == KETW_SYS_EVENT_DESC ||
		h->event_id == KETW_SYS_TASK ||
		h->event_id == KETW_SYS_MODULE);
}

int ketw_registry_add_record(struct ketw_registry *reg,
			     const struct ketw_record *rec)
{
	const struct ketw_event_header *h = rec->hdr;
	struct ketw_sys_provider p;
	struct ketw_event_info ev;
	int err;

	if (!(h->flags & KETW_RECORD_SYSTEM))
		return 0;
	switch (h->event_id) {
	case KETW_SYS_PROVIDER:
		if (rec->data_len < sizeof(p))
			return 0;
		memcpy(&p, rec->data, sizeof(p));
		err = ketw_registry_add_provider(reg, &p);
		return err ? err : 1;
	case KETW_SYS_EVENT_DESC:
		if (rec->data_len < sizeof(ev))
			return 0;
		memcpy(&ev, rec->data, sizeof(ev));
		err = ketw_registry_add_event(reg, &ev);
		return err ? err : 1;
	default:
		return 0;
	}
}

static const char *ketw_registry_name_in(const struct ketw_registry *reg,
					 const uint8_t *guid, bool user)
{
	unsigned int i;

	if (!reg)
		return NULL;
	i = ketw_prov_pos(reg, guid, user);
	if (i == reg->nr_provs || ketw_prov_cmp(&reg->provs[i], guid, user) ||
	    !reg->provs[i].name[0])
		return NULL;
	return reg->provs[i].name;
}

const char *ketw_registry_provider_name(const struct ketw_registry *reg,
					const uint8_t guid[KETW_GUID_SIZE])
{
	const char *name = ketw_registry_name_in(reg, guid, false);

	return name ? name : ketw_registry_name_in(reg, guid, true);
}

const char *ketw_registry_record_provider(const struct ketw_registry *reg,
					  const struct ketw_event_header *h)
{
	return ketw_registry_name_in(reg, h->provider_guid,
				     h->flags & KETW_RECORD_USER);
}

static const struct ketw_event_info *
ketw_registry_event_in(const struct ketw_registry *reg, const uint8_t *guid,
		       bool user, uint32_t id, uint16_t version)
{
	unsigned int i;

	if (!reg)
		return NULL;
	i = ketw_event_pos(reg, guid, user, id, version);
	if (i == reg->nr_events ||
	    ketw_event_cmp(&reg->events[i], guid, user, id, version))
		return NULL;
	return &reg->events[i];
}

const struct ketw_event_info *
ketw_registry_event(const struct ketw_registry *reg,
		    const uint8_t guid[KETW_GUID_SIZE], uint32_t id,
		    uint16_t version)
{
	const struct ketw_event_info *ev;

	ev = ketw_registry_event_in(reg, guid, false, id, version);
	return ev ? ev : ketw_registry_event_in(reg, guid, true, id, version);
}

const struct ketw_event_info *
ketw_registry_record_event(const struct ketw_registry *reg,
			   const struct ketw_event_header *h)
{
	const struct ketw_event_info *ev;

	if (!(h->flags & KETW_RECORD_USER))
		return ketw_registry_event_in(reg, h->provider_guid, false,
					      h->event_id, h->version);
	ev = ketw_registry_event_in(reg, h->provider_guid, true, h->event_id,
				    h->version);
	/* Traces from before descriptors carried their namespace. */
	return ev ? ev : ketw_registry_event_in(reg, h->provider_guid, false,
						h->event_id, h->version);
}
