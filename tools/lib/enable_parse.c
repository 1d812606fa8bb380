// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: the -p and -x arguments of ketw
 * (PROVIDER[:LEVEL[:KEYWORDS]][:ITEM,...],
 * PROVIDER:ID[,ID...]) parsed into enable requests and event sets.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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
	return ketw_parse_enable_items(s, spec, NULL, err, errlen);
}

int ketw_parse_enable_items(const char *s, struct ketw_enable_spec *spec,
			    uint32_t *items, char *err, size_t errlen)
{
	char *copy, *prov, *level, *kw, *all, *extra, *last;
	uint32_t mask;
	int ret = 0;

	memset(spec, 0, sizeof(*spec));
	if (items)
		*items = 0;
	copy = strdup(s);
	if (!copy) {
		ketw_parse_fail(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* A last field of item words is the extended data items. */
	last = strrchr(copy, ':');
	if (last && !ketw_ext_items_parse(last + 1, &mask)) {
		if (!items) {
			ret = ketw_parse_fail(err, errlen,
				"extended data items ('%s') are not taken here",
				last + 1);
			goto out;
		}
		*items = mask;
		*last = '\0';
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
			"too many ':' in '%s' (PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...])",
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
