// SPDX-License-Identifier: GPL-2.0
/*
 * Triggers from the command line: the --trigger options of ketw start and
 * ketw record, and arming them (KETW_IOC_TRIGGER_ADD). ketw record's
 * flight recorder that waits for them is record_trigger.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* PROVIDER:ID[:LEVEL], PROVIDER a name or a GUID (which has no colon). */
static int trigger_parse(struct cli_triggers *t, const char *arg)
{
	struct ketw_trigger *tr = &t->v[t->nr];
	struct ketw_provider_ref ref;
	char buf[128], *id, *level;
	unsigned int lvl = 0;
	uint64_t v;

	if (t->nr >= KETW_MAX_TRIGGERS)
		return cli_usage_error(t->cmd, "--trigger: at most %d triggers",
				       KETW_MAX_TRIGGERS);
	if (strlen(arg) >= sizeof(buf))
		return cli_usage_error(t->cmd, "--trigger: '%s' is too long",
				       arg);
	strcpy(buf, arg);
	id = strchr(buf, ':');
	if (!id)
		return cli_usage_error(t->cmd,
				       "--trigger: '%s' is not PROVIDER:ID[:LEVEL]",
				       arg);
	*id++ = 0;
	level = strchr(id, ':');
	if (level)
		*level++ = 0;
	if (ketw_provider_ref_parse(buf, &ref))
		return cli_usage_error(t->cmd,
				       "--trigger: '%s' is not a provider's name or GUID",
				       buf);
	if (ketw_parse_u64(id, UINT32_MAX, &v))
		return cli_usage_error(t->cmd,
				       "--trigger: '%s' is not an event id", id);
	if (level && ketw_parse_level(level, &lvl))
		return cli_usage_error(t->cmd,
				       "--trigger: '%s' is not a level (critical, error, warning, info, verbose, all, or 0..5)",
				       level);
	memset(tr, 0, sizeof(*tr));
	memcpy(tr->provider, ref.name, sizeof(tr->provider));
	memcpy(tr->guid, ref.guid, sizeof(tr->guid));
	tr->event_id = v;
	tr->level = lvl;
	t->nr++;
	return 0;
}

/* FIELD=VALUE for the last --trigger; VALUE signed or not, any base. */
static int trigger_field(struct cli_triggers *t, const char *arg)
{
	struct ketw_trigger *tr = &t->v[t->nr - 1];
	const char *eq = strchr(arg, '=');
	bool neg;
	uint64_t v;

	if (!t->nr)
		return cli_usage_error(t->cmd,
				       "--trigger-field comes after its --trigger");
	if (tr->flags & KETW_TRIGGER_FIELD)
		return cli_usage_error(t->cmd,
				       "--trigger-field: one field per trigger");
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(tr->field))
		return cli_usage_error(t->cmd,
				       "--trigger-field: '%s' is not FIELD=VALUE",
				       arg);
	neg = eq[1] == '-';
	if (ketw_parse_u64(eq + 1 + neg, UINT64_MAX, &v))
		return cli_usage_error(t->cmd,
				       "--trigger-field: '%s' is not a number",
				       eq + 1);
	memcpy(tr->field, arg, eq - arg);
	tr->field[eq - arg] = 0;
	tr->value = neg ? -v : v;
	tr->flags |= KETW_TRIGGER_FIELD;
	return 0;
}

int cli_triggers_option(struct cli_triggers *t, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_TRIGGER:
		return trigger_parse(t, arg);
	case CLI_OPT_TRIGGER_FIELD:
		return trigger_field(t, arg);
	case CLI_OPT_POST:
		if (ketw_parse_u64(arg, KETW_TRIGGER_POST_MAX, &t->post_ms))
			return cli_usage_error(t->cmd,
					       "--post: '%s' is not a number of ms (0 to %d)",
					       arg, KETW_TRIGGER_POST_MAX);
		return 0;
	case CLI_OPT_INTERVAL:
		if (ketw_parse_u64(arg, KETW_TRIGGER_INTERVAL_MAX,
				   &t->interval_ms))
			return cli_usage_error(t->cmd,
					       "--interval: '%s' is not a number of ms (0 to %d)",
					       arg, KETW_TRIGGER_INTERVAL_MAX);
		return 0;
	case CLI_OPT_ACTION:
		if (ketw_parse_trigger_action(arg, &t->action))
			return cli_usage_error(t->cmd,
					       "--action: '%s' is not wake, stop or snapshot",
					       arg);
		return 0;
	default:
		return -1;
	}
}

int cli_triggers_arm(struct cli_triggers *t, int fd, const char *session)
{
	unsigned int i, action = t->action ? t->action : KETW_TRIGGER_SNAPSHOT;
	char gbuf[KETW_GUID_STR_LEN];
	struct ketw_provider_ref ref;
	struct ketw_trigger *tr;
	int err;

	if (action == KETW_TRIGGER_WAKE && t->post_ms && t->nr)
		return cli_error("--post: a wake trigger has no delay");
	for (i = 0; i < t->nr; i++) {
		tr = &t->v[i];
		snprintf(tr->session, sizeof(tr->session), "%s", session);
		tr->action = action;
		tr->post_ms = t->post_ms;
		tr->min_interval_ms = t->interval_ms;
		memcpy(ref.name, tr->provider, sizeof(ref.name));
		memcpy(ref.guid, tr->guid, sizeof(ref.guid));
		err = ketw_trigger_add(fd, tr);
		if (err == -ENOENT && (tr->flags & KETW_TRIGGER_FIELD))
			return cli_error("trigger on %s:%u: no such registered provider, event or field '%s'",
					 ketw_provider_ref_format(&ref, gbuf),
					 tr->event_id, tr->field);
		if (err == -ENOENT)
			return cli_error("trigger on %s:%u: no such registered provider (name it by GUID to watch one not loaded yet)",
					 ketw_provider_ref_format(&ref, gbuf),
					 tr->event_id);
		if (err == -EINVAL && (tr->flags & KETW_TRIGGER_FIELD))
			return cli_error("trigger on %s:%u: field '%s' is not an integer field",
					 ketw_provider_ref_format(&ref, gbuf),
					 tr->event_id, tr->field);
		if (err)
			return cli_session_error("arm a trigger on", session,
						 err);
		printf("session %s: trigger %u on %s:%u", session, tr->id,
		       ketw_provider_ref_format(&ref, gbuf), tr->event_id);
		if (tr->level)
			printf(" at level <= %s",
			       cli_or(ketw_level_name(tr->level), "?"));
		if (tr->flags & KETW_TRIGGER_FIELD)
			printf(" with %s == %lld", tr->field,
			       (long long)tr->value);
		printf(": %s", cli_or(ketw_trigger_action_name(action), "?"));
		if (action != KETW_TRIGGER_WAKE)
			printf(" %u ms after", tr->post_ms);
		printf(", at most once per %u ms\n", tr->min_interval_ms);
	}
	return 0;
}
