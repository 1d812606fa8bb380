// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: the -p and -x options of start, enable and disable: providers
 * and their filters, checked, completed from the registry and applied
 * with KETW_IOC_ENABLE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_enables_init(struct cli_enables *e, const char *cmd, bool disable)
{
	memset(e, 0, sizeof(*e));
	e->cmd = cmd;
	e->disable = disable;
}

void cli_enables_free(struct cli_enables *e)
{
	unsigned int i;

	for (i = 0; i < e->nr; i++)
		free(e->v[i].events);
	free(e->providers);
	e->providers = NULL;
	e->nr_providers = 0;
}

static bool cli_ref_equal(const struct ketw_provider_ref *a,
			  const struct ketw_provider_ref *b)
{
	if (a->name[0] || b->name[0])
		return !strncmp(a->name, b->name, KETW_NAME_MAX);
	return !memcmp(a->guid, b->guid, KETW_GUID_SIZE);
}

int cli_enables_add(struct cli_enables *e, const char *arg)
{
	struct cli_enable_opt *o;
	char err[256];
	unsigned int i;

	if (e->nr == KETW_MAX_ENABLES)
		return cli_usage_error(e->cmd,
			"-p: too many providers (a session enables at most %d)",
			KETW_MAX_ENABLES);
	o = &e->v[e->nr];
	memset(o, 0, sizeof(*o));
	if (ketw_parse_enable_items(arg, &o->spec, &o->ext_items, err,
				    sizeof(err)))
		return cli_usage_error(e->cmd, "-p: %s", err);
	if (e->disable && (strchr(arg, ':')))
		return cli_usage_error(e->cmd,
			"-p: '%s': disable takes a provider only, without a level or keywords",
			arg);
	for (i = 0; i < e->nr; i++)
		if (cli_ref_equal(&e->v[i].spec.provider, &o->spec.provider))
			return cli_usage_error(e->cmd,
				"-p: provider '%s' given twice ('%s' and '%s')",
				ketw_provider_ref_format(&o->spec.provider,
							 (char[KETW_GUID_STR_LEN]){ 0 }),
				e->v[i].arg, arg);
	o->arg = arg;
	e->nr++;
	return 0;
}

/* At option time names cannot be looked up yet: any name will do. */
static int cli_lookup_any(const struct ketw_provider_ref *p,
			  const char *name, uint32_t *id, void *ctx)
{
	(void)p;
	(void)name;
	(void)ctx;
	*id = 0;
	return 0;
}

int cli_enables_add_x(struct cli_enables *e, const char *arg)
{
	struct ketw_provider_ref ref;
	struct ketw_event_set set;
	char err[256];

	if (e->disable)
		return cli_usage_error(e->cmd,
				       "-x: disable takes no event ids");
	if (e->nr_x == KETW_MAX_ENABLES * 4)
		return cli_usage_error(e->cmd, "-x: too many");
	ketw_eventset_empty(&set);
	if (ketw_parse_filter_out(arg, &ref, &set, cli_lookup_any, NULL, err,
				  sizeof(err)))
		return cli_usage_error(e->cmd, "-x: %s", err);
	e->x[e->nr_x++] = arg;
	return 0;
}

/* The registered provider @ref names, or NULL. */
static const struct ketw_provider_info *
ketw_enables_find(const struct cli_enables *e,
		  const struct ketw_provider_ref *ref)
{
	char name[KETW_NAME_MAX + 1];
	unsigned int i;

	for (i = 0; i < e->nr_providers; i++) {
		const struct ketw_provider_info *pi = &e->providers[i];

		snprintf(name, sizeof(name), "%.*s", KETW_NAME_MAX,
			 pi->name);
		if (ketw_provider_ref_names(ref, pi->provider_guid, name))
			return pi;
	}
	return NULL;
}

/* Do two references name the same provider, by text or registration? */
static bool cli_enables_same(const struct cli_enables *e,
			     const struct ketw_provider_ref *a,
			     const struct ketw_provider_ref *b)
{
	const struct ketw_provider_info *pa, *pb;

	if (cli_ref_equal(a, b))
		return true;
	pa = ketw_enables_find(e, a);
	pb = ketw_enables_find(e, b);
	return pa && pa == pb;
}

struct cli_lookup_ctx {
	int fd;
};

static int cli_lookup_event(const struct ketw_provider_ref *p,
			    const char *name, uint32_t *id, void *ctx)
{
	struct cli_lookup_ctx *lc = ctx;
	struct ketw_event_info *ev;
	unsigned int i, nr;
	int err;

	err = ketw_provider_events_get(lc->fd, p, &ev, &nr);
	if (err)
		return err;
	err = -ENOENT;
	for (i = 0; i < nr; i++) {
		if (!strncmp(ev[i].name, name, KETW_NAME_MAX)) {
			*id = ev[i].id;
			err = 0;
			break;
		}
	}
	free(ev);
	return err;
}

int cli_enables_resolve(struct cli_enables *e, int fd, const char *session,
			unsigned int level, uint64_t any, uint64_t all)
{
	struct cli_lookup_ctx lc = { .fd = fd };
	struct ketw_provider_ref ref;
	struct ketw_event_set set;
	char err[256], a[KETW_GUID_STR_LEN];
	unsigned int i, k, w;
	int r;

	r = ketw_providers_get(fd, &e->providers, &e->nr_providers);
	if (r == -ENOTTY)
		return cli_error("this ketw module has no providers (KETW_IOC_PROVIDERS: %s); is it older than this tool?",
				 strerror(-r));
	if (r)
		return cli_error("cannot list the providers: %s",
				 strerror(-r));
	for (i = 0; i < e->nr; i++) {
		struct cli_enable_opt *o = &e->v[i];
		const struct ketw_provider_info *pi;

		pi = ketw_enables_find(e, &o->spec.provider);
		o->registered = pi != NULL;
		if (pi)
			o->info = *pi;
		for (k = 0; k < i; k++)
			if (pi && ketw_enables_find(e, &e->v[k].spec.provider) == pi)
				return cli_usage_error(e->cmd,
					"-p: '%s' and '%s' name the same provider (%.*s %s)",
					e->v[k].arg, o->arg, KETW_NAME_MAX,
					pi->name,
					ketw_guid_format(pi->provider_guid, a));
		if (!o->spec.has_level)
			o->spec.filter.level = level;
		if (!o->spec.has_any)
			o->spec.filter.match_any = any;
		if (!o->spec.has_all)
			o->spec.filter.match_all = all;
		if (pi && pi->nr_events) {
			r = ketw_provider_events_get(fd, &o->spec.provider,
						     &o->events, &o->nr_events);
			if (r && r != -ENOENT)
				return cli_error("cannot list the events of provider '%s': %s",
						 o->arg, strerror(-r));
		}
	}
	for (i = 0; i < e->nr_x; i++) {
		ketw_eventset_empty(&set);
		if (ketw_parse_filter_out(e->x[i], &ref, &set,
					  cli_lookup_event, &lc, err,
					  sizeof(err)))
			return cli_usage_error(e->cmd, "-x: %s", err);
		for (k = 0; k < e->nr; k++)
			if (cli_enables_same(e, &e->v[k].spec.provider, &ref))
				break;
		if (k == e->nr)
			return cli_usage_error(e->cmd,
				"-x: provider '%s' is not enabled with -p (its filter comes with it: add -p %s)",
				ketw_provider_ref_format(&ref, a), a);
		for (w = 0; w < KETW_EVENT_SET_BITS / 64; w++)
			e->v[k].spec.filter.filtered.bits[w] |= set.bits[w];
	}
	for (i = 0; i < e->nr; i++)
		if (!e->v[i].registered && !e->disable)
			fprintf(stderr,
				"ketw: note: provider '%s' is not registered now; session '%s' takes its events once it registers\n",
				ketw_provider_ref_format(&e->v[i].spec.provider,
							 a), session);
	return 0;
}

/* An error of ENABLE for provider @o of session @session. */
static int cli_enable_error(struct cli_enables *e, int fd,
			    const char *session,
			    const struct cli_enable_opt *o, int err)
{
	struct ketw_session_attr attr;
	char p[KETW_GUID_STR_LEN];

	ketw_provider_ref_format(&o->spec.provider, p);
	switch (-err) {
	case ENOENT:
		if (e->disable &&
		    !ketw_session_get_attr(fd, session, &attr))
			return cli_error("session '%s' does not enable provider '%s' (nothing to disable)",
					 session, p);
		return cli_session_error(e->disable ? "disable a provider in" :
					 "enable a provider in", session, err);
	case ENOSPC:
		return cli_error("cannot enable provider '%s' in session '%s': it enables %d providers already, the most it can",
				 p, session, KETW_MAX_ENABLES);
	case ENOTTY:
		return cli_error("cannot %s provider '%s': this ketw module has no providers (is it older than this tool?)",
				 e->disable ? "disable" : "enable", p);
	default:
		return cli_error("cannot %s provider '%s' in session '%s': %s",
				 e->disable ? "disable" : "enable", p,
				 session, strerror(-err));
	}
}

int cli_enables_apply(struct cli_enables *e, int fd, const char *session)
{
	unsigned int i;
	int err;

	for (i = 0; i < e->nr; i++) {
		const struct cli_enable_opt *o = &e->v[i];

		if (e->disable) {
			err = ketw_session_disable(fd, session,
						   &o->spec.provider);
			/*
			 * The kernel keeps an enable by the name or the GUID
			 * it was given: try the registered provider's other.
			 */
			if (err == -ENOENT && o->registered) {
				struct ketw_provider_ref alt;

				memset(&alt, 0, sizeof(alt));
				if (o->spec.provider.name[0])
					memcpy(alt.guid, o->info.provider_guid,
					       KETW_GUID_SIZE);
				else
					memcpy(alt.name, o->info.name,
					       KETW_NAME_MAX - 1);
				err = ketw_session_disable(fd, session, &alt);
			}
		} else
			err = ketw_session_enable_items(fd, session,
							&o->spec.provider,
							&o->spec.filter,
							o->ext_items);
		if (err)
			return cli_enable_error(e, fd, session, o, err);
	}
	return 0;
}

char *cli_filter_text(const struct ketw_filter *f, char *buf, size_t len)
{
	char ids[256];
	int n;

	if (!f->enabled) {
		snprintf(buf, len, "not taken");
		return buf;
	}
	n = snprintf(buf, len, "level %s, match_any 0x%llx, match_all 0x%llx",
		     f->level ? cli_or(ketw_level_name(f->level), "?") : "all",
		     (unsigned long long)f->match_any,
		     (unsigned long long)f->match_all);
	if (n < 0 || (size_t)n >= len ||
	    !ketw_eventset_count(&f->filtered))
		return buf;
	if (ketw_eventset_format(&f->filtered, ids, sizeof(ids)) >=
	    (int)sizeof(ids))
		strcpy(ids + sizeof(ids) - 4, "...");
	snprintf(buf + n, len - n, ", ids filtered out %s", ids);
	return buf;
}

void cli_print_events_taken(const struct ketw_filter *f,
			    const struct ketw_event_info *ev, unsigned int nr)
{
	unsigned int i, k;
	bool any;

	if (!nr || !f->enabled)
		return;
	for (k = 0; k < 2; k++) {
		any = false;
		for (i = 0; i < nr; i++) {
			bool takes = ketw_filter_takes(f, ev[i].id,
						       ev[i].level,
						       ev[i].keyword);

			if (takes != !k)
				continue;
			printf("%s%.*s(%u)", any ? " " :
			       k ? "; leaves out " : "    takes ",
			       KETW_NAME_MAX, ev[i].name, ev[i].id);
			any = true;
		}
		if (!any && !k)
			printf("    takes none of its %u events", nr);
	}
	printf("\n");
}

void cli_enables_print(const struct cli_enables *e, int fd,
		       const char *session)
{
	struct ketw_filter f;
	char p[KETW_GUID_STR_LEN], text[512];
	unsigned int i;

	for (i = 0; i < e->nr; i++) {
		const struct cli_enable_opt *o = &e->v[i];

		ketw_provider_ref_format(&o->spec.provider, p);
		if (e->disable) {
			printf("  provider %s: disabled\n", p);
			continue;
		}
		/* What the kernel applies now. */
		if (ketw_session_get_filter(fd, session, &o->spec.provider,
					    &f)) {
			f = o->spec.filter;
			f.enabled = 1;
		}
		printf("  provider %s: %s%s", p,
		       cli_filter_text(&f, text, sizeof(text)),
		       o->registered ? "" : " (not registered now)");
		if (o->ext_items)
			printf(" items=%s", ketw_ext_items_format(o->ext_items,
								  text,
								  sizeof(text)));
		printf("\n");
		cli_print_events_taken(&f, o->events, o->nr_events);
	}
}
