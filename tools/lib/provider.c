// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: providers. POSIX event sets, naming a provider by name or
 * GUID, enabling it in a session with a filter (KETW_IOC_ENABLE,
 * KETW_IOC_GET_FILTER), listing the registry (KETW_IOC_PROVIDERS,
 * KETW_IOC_EVENTS) and asking for a rundown (KETW_IOC_RUNDOWN).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "libketw.h"

/* ---- event sets ------------------------------------------------------ */

void ketw_eventset_empty(struct ketw_event_set *set)
{
	memset(set, 0, sizeof(*set));
}

void ketw_eventset_fill(struct ketw_event_set *set)
{
	memset(set, 0xff, sizeof(*set));
}

int ketw_eventset_add(struct ketw_event_set *set, uint32_t id)
{
	if (id >= KETW_EVENT_SET_BITS)
		return -EINVAL;
	set->bits[id / 64] |= 1ull << (id % 64);
	return 0;
}

int ketw_eventset_del(struct ketw_event_set *set, uint32_t id)
{
	if (id >= KETW_EVENT_SET_BITS)
		return -EINVAL;
	set->bits[id / 64] &= ~(1ull << (id % 64));
	return 0;
}

bool ketw_eventset_ismember(const struct ketw_event_set *set, uint32_t id)
{
	if (id >= KETW_EVENT_SET_BITS)
		return false;
	return set->bits[id / 64] & (1ull << (id % 64));
}

unsigned int ketw_eventset_count(const struct ketw_event_set *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < KETW_EVENT_SET_BITS / 64; i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

/* ---- GUIDs and provider references ----------------------------------- */

static int ketw_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ketw_guid_parse(const char *s, uint8_t guid[KETW_GUID_SIZE])
{
	uint8_t g[KETW_GUID_SIZE];
	unsigned int i, n = 0;
	int hi, lo;

	if (!s || strlen(s) != KETW_GUID_STR_LEN - 1)
		return -EINVAL;
	for (i = 0; i < KETW_GUID_STR_LEN - 1;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i++] != '-')
				return -EINVAL;
			continue;
		}
		hi = ketw_hex_digit(s[i]);
		lo = ketw_hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		g[n++] = hi << 4 | lo;
		i += 2;
	}
	memcpy(guid, g, sizeof(g));
	return 0;
}

bool ketw_guid_is_zero(const uint8_t guid[KETW_GUID_SIZE])
{
	unsigned int i;

	for (i = 0; i < KETW_GUID_SIZE; i++)
		if (guid[i])
			return false;
	return true;
}

bool ketw_guid_like(const char *s)
{
	unsigned int hyphens = 0;
	const char *p;

	/* The shape of one, whatever the digits ... */
	if (strlen(s) == KETW_GUID_STR_LEN - 1 && s[8] == '-' &&
	    s[13] == '-' && s[18] == '-' && s[23] == '-')
		return true;
	/* ... or its digits, whatever the lengths. */
	for (p = s; *p; p++) {
		if (*p == '-')
			hyphens++;
		else if (!isxdigit((unsigned char)*p))
			return false;
	}
	return hyphens >= 4;
}

int ketw_provider_ref_parse(const char *s, struct ketw_provider_ref *ref)
{
	size_t n = strlen(s);

	memset(ref, 0, sizeof(*ref));
	if (!n)
		return -EINVAL;
	if (ketw_guid_like(s)) {
		if (ketw_guid_parse(s, ref->guid) ||
		    ketw_guid_is_zero(ref->guid))
			return -EINVAL;
		return 0;
	}
	if (n >= KETW_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(ref->name, s, n);
	return 0;
}

const char *ketw_provider_ref_format(const struct ketw_provider_ref *ref,
				     char buf[KETW_GUID_STR_LEN])
{
	if (ref->name[0]) {
		snprintf(buf, KETW_GUID_STR_LEN, "%.*s", KETW_NAME_MAX - 1,
			 ref->name);
		return buf;
	}
	return ketw_guid_format(ref->guid, buf);
}

bool ketw_provider_ref_names(const struct ketw_provider_ref *ref,
			     const uint8_t guid[KETW_GUID_SIZE],
			     const char *name)
{
	if (ref->name[0])
		return name && !strncmp(ref->name, name, KETW_NAME_MAX);
	return !memcmp(ref->guid, guid, KETW_GUID_SIZE);
}

/* ---- ioctls ---------------------------------------------------------- */

static int ketw_ioctl_retry(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

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
	struct ketw_enable req;
	int err;

	err = ketw_enable_req(&req, session, p);
	if (err)
		return err;
	if (filter->level > KETW_LEVEL_VERBOSE)
		return -EINVAL;
	req.filter = *filter;
	req.filter.enabled = 0;		/* ignored by the kernel */
	return ketw_ioctl_retry(fd, KETW_IOC_ENABLE, &req);
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
	return ketw_ioctl_retry(fd, KETW_IOC_ENABLE, &req);
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
	err = ketw_ioctl_retry(fd, KETW_IOC_GET_FILTER, &req);
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
	return ketw_ioctl_retry(fd, KETW_IOC_RUNDOWN, &ref);
}

/*
 * A list ioctl into an array that grows until it holds every entry: the
 * registry may change between calls, so ask again while the count is
 * above the capacity (a few times at most).
 */
#define KETW_LIST_FIRST		16	/* entries asked for the first time */
#define KETW_LIST_SLACK		8	/* room for what registers meanwhile */
#define KETW_LIST_TRIES		16

static int ketw_list_get(int fd, unsigned long cmd, struct ketw_list *l,
			 size_t entry_size, void **out, unsigned int *nr)
{
	unsigned int cap = KETW_LIST_FIRST, tries;
	void *arr = NULL, *p;
	int err;

	*out = NULL;
	*nr = 0;
	for (tries = 0; tries < KETW_LIST_TRIES; tries++) {
		p = realloc(arr, (size_t)cap * entry_size);
		if (!p) {
			free(arr);
			return -ENOMEM;
		}
		arr = p;
		memset(arr, 0, (size_t)cap * entry_size);
		l->size = sizeof(*l);
		l->capacity = cap;
		l->count = 0;
		l->entries = (uintptr_t)arr;
		err = ketw_ioctl_retry(fd, cmd, l);
		if (err) {
			free(arr);
			return err;
		}
		if (l->count <= cap) {
			if (!l->count) {
				free(arr);
				arr = NULL;
			}
			*out = arr;
			*nr = l->count;
			return 0;
		}
		if (l->count > UINT32_MAX - KETW_LIST_SLACK ||
		    (size_t)l->count + KETW_LIST_SLACK > SIZE_MAX / entry_size) {
			free(arr);
			return -EOVERFLOW;
		}
		cap = l->count + KETW_LIST_SLACK;
	}
	free(arr);
	return -EAGAIN;
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

/* ---- filters --------------------------------------------------------- */

bool ketw_filter_takes(const struct ketw_filter *f, uint32_t id,
		       unsigned int level, uint64_t keyword)
{
	if (f->level && level && level > f->level)
		return false;
	if (ketw_eventset_ismember(&f->filtered, id))
		return false;
	if (!keyword)
		return true;
	if (f->match_any && !(keyword & f->match_any))
		return false;
	return (keyword & f->match_all) == f->match_all;
}

/* ---- parsing -p and -x ----------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int ketw_parse_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Parse @s as a provider into @ref, with a message naming the problem. */
static int ketw_parse_provider(const char *s, struct ketw_provider_ref *ref,
			       char *err, size_t errlen)
{
	int e = ketw_provider_ref_parse(s, ref);

	if (!e)
		return 0;
	if (!*s)
		return ketw_parse_fail(err, errlen, "no provider given");
	if (e == -ENAMETOOLONG)
		return ketw_parse_fail(err, errlen,
			"provider name '%s' is too long (at most %d characters)",
			s, KETW_NAME_MAX - 1);
	if (!ketw_guid_parse(s, ref->guid))
		return ketw_parse_fail(err, errlen,
			"'%s' is the GUID of the system events, not of a provider",
			s);
	return ketw_parse_fail(err, errlen,
		"'%s' is not a GUID (8-4-4-4-12 hex digits, like 6b657477-7361-6d70-6c65-000000000001)",
		s);
}

static int ketw_parse_mask(const char *s, const char *what, __u64 *out,
			   char *err, size_t errlen)
{
	uint64_t v = 0;
	int e = ketw_parse_u64(s, UINT64_MAX, &v);

	*out = v;
	if (e == -ERANGE)
		return ketw_parse_fail(err, errlen,
				       "%s '%s' is out of range (64 bits)",
				       what, s);
	if (e)
		return ketw_parse_fail(err, errlen,
			"'%s' is not a %s (a decimal or 0x-prefixed hex number)",
			s, what);
	return 0;
}

int ketw_parse_enable(const char *s, struct ketw_enable_spec *spec,
		      char *err, size_t errlen)
{
	char *copy, *prov, *level, *kw, *all, *extra;
	int ret = 0;

	memset(spec, 0, sizeof(*spec));
	copy = strdup(s);
	if (!copy) {
		ketw_parse_fail(err, errlen, "out of memory");
		return -ENOMEM;
	}
	prov = copy;
	level = strchr(prov, ':');
	kw = NULL;
	extra = NULL;
	if (level) {
		*level++ = '\0';
		kw = strchr(level, ':');
		if (kw) {
			*kw++ = '\0';
			extra = strchr(kw, ':');
		}
	}
	if (extra) {
		ret = ketw_parse_fail(err, errlen,
			"too many ':' in '%s' (PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]])",
			s);
		goto out;
	}
	ret = ketw_parse_provider(prov, &spec->provider, err, errlen);
	if (ret)
		goto out;
	if (level && *level) {
		if (ketw_parse_level(level, &spec->filter.level)) {
			ret = ketw_parse_fail(err, errlen,
				"'%s' is not a level (critical, error, warning, info, verbose, all, or 0..5)",
				level);
			goto out;
		}
		spec->has_level = true;
	}
	if (!kw || !*kw)
		goto out;
	all = strchr(kw, '/');
	if (all)
		*all++ = '\0';
	if (*kw) {
		ret = ketw_parse_mask(kw, "keyword mask", &spec->filter.match_any,
				      err, errlen);
		if (ret)
			goto out;
		spec->has_any = true;
	}
	if (all && *all) {
		ret = ketw_parse_mask(all, "keyword mask (match_all)",
				      &spec->filter.match_all, err, errlen);
		if (ret)
			goto out;
		spec->has_all = true;
	} else if (all && !*kw) {
		ret = ketw_parse_fail(err, errlen, "no keyword mask in '%s'",
				      s);
	}
out:
	free(copy);
	return ret;
}

int ketw_parse_filter_out(const char *s, struct ketw_provider_ref *p,
			  struct ketw_event_set *set,
			  ketw_event_lookup_fn lookup, void *ctx, char *err,
			  size_t errlen)
{
	char *copy, *list, *tok, *save = NULL, *dash;
	uint64_t a, b, id;
	uint32_t named;
	int ret, e;

	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	list = strchr(copy, ':');
	if (!list) {
		ret = ketw_parse_fail(err, errlen,
			"'%s' has no event ids (PROVIDER:ID[,ID...])", s);
		goto out;
	}
	*list++ = '\0';
	ret = ketw_parse_provider(copy, p, err, errlen);
	if (ret)
		goto out;
	if (!*list) {
		ret = ketw_parse_fail(err, errlen,
			"'%s' has no event ids after ':' (PROVIDER:ID[,ID...])",
			s);
		goto out;
	}
	for (tok = list; tok; tok = save) {
		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		dash = strchr(tok, '-');
		if (dash && dash != tok) {
			*dash = '\0';
			e = ketw_parse_u64(tok, UINT64_MAX, &a);
			if (!e)
				e = ketw_parse_u64(dash + 1, UINT64_MAX, &b);
			if (e) {
				*dash = '-';
				goto name;
			}
			if (a > b) {
				ret = ketw_parse_fail(err, errlen,
					"event id range %s-%s is backwards",
					tok, dash + 1);
				goto out;
			}
			if (b >= KETW_EVENT_SET_BITS) {
				ret = ketw_parse_fail(err, errlen,
					"event ids %s-%s cannot be filtered out (only ids 0..%d can)",
					tok, dash + 1, KETW_EVENT_SET_BITS - 1);
				goto out;
			}
			for (id = a; id <= b; id++)
				ketw_eventset_add(set, id);
			continue;
		}
		e = ketw_parse_u64(tok, UINT64_MAX, &id);
		if (!e || e == -ERANGE) {
			if (e || id >= KETW_EVENT_SET_BITS) {
				ret = ketw_parse_fail(err, errlen,
					"event id %s cannot be filtered out (only ids 0..%d can)",
					tok, KETW_EVENT_SET_BITS - 1);
				goto out;
			}
			ketw_eventset_add(set, id);
			continue;
		}
name:
		if (!*tok) {
			ret = ketw_parse_fail(err, errlen,
					      "empty event id in '%s'", s);
			goto out;
		}
		if (isdigit((unsigned char)*tok) || !lookup) {
			ret = ketw_parse_fail(err, errlen,
					      "'%s' is not an event id", tok);
			goto out;
		}
		e = lookup(p, tok, &named, ctx);
		if (e) {
			ret = ketw_parse_fail(err, errlen,
				"'%s' is not an event id, nor the name of an event of %s%s",
				tok, copy, e == -ENOENT ? "" :
				" (its events could not be listed)");
			goto out;
		}
		if (named >= KETW_EVENT_SET_BITS) {
			ret = ketw_parse_fail(err, errlen,
				"event %s has id %u, which cannot be filtered out (only ids 0..%d can)",
				tok, named, KETW_EVENT_SET_BITS - 1);
			goto out;
		}
		ketw_eventset_add(set, named);
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

int ketw_eventset_format(const struct ketw_event_set *set, char *buf,
			 size_t len)
{
	unsigned int id, end;
	size_t n = 0;
	int w;

	if (len)
		buf[0] = '\0';
	for (id = 0; id < KETW_EVENT_SET_BITS; id++) {
		if (!ketw_eventset_ismember(set, id))
			continue;
		for (end = id; end + 1 < KETW_EVENT_SET_BITS &&
		     ketw_eventset_ismember(set, end + 1); end++)
			;
		if (end == id)
			w = snprintf(n < len ? buf + n : NULL,
				     n < len ? len - n : 0, "%s%u",
				     n ? "," : "", id);
		else
			w = snprintf(n < len ? buf + n : NULL,
				     n < len ? len - n : 0, "%s%u-%u",
				     n ? "," : "", id, end);
		if (w > 0)
			n += w;
		id = end;
	}
	return n;
}
