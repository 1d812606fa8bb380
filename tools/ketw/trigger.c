// SPDX-License-Identifier: GPL-2.0
/*
 * Triggers from the command line: the --trigger options of ketw start and
 * ketw record, arming them (KETW_IOC_TRIGGER_ADD), and ketw record's
 * flight recorder: a LOOP session whose triggers' snapshots are written
 * as they become ready (poll() for POLLPRI, no busy loop), to FILE, then
 * FILE.1, FILE.2, ...
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static volatile sig_atomic_t trigger_stop;

static void trigger_signal(int sig)
{
	(void)sig;
	trigger_stop = 1;
}

static uint64_t trigger_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* FILE for the first snapshot, FILE.N for the (N+1)th. */
static int trigger_write(int fd, const char *name, const char *path,
			 unsigned int n)
{
	char file[PATH_MAX];

	if (!n)
		return cli_snapshot_write(fd, name, path);
	if ((size_t)snprintf(file, sizeof(file), "%s.%u", path, n) >=
	    sizeof(file))
		return cli_error("%s.%u: file name too long", path, n);
	return cli_snapshot_write(fd, name, file);
}

int cli_record_triggered(struct cli_start *s, const char *path,
			 uint64_t seconds)
{
	struct sigaction sa, old_int, old_term, old_hup;
	struct ketw_session_status st;
	unsigned int written = 0, seen = 0;
	uint64_t deadline = 0, now;
	struct pollfd pfd;
	int fd, err, ret, timeout;

	if (s->policy && s->policy != KETW_POLICY_LOOP)
		return cli_usage_error(s->cmd,
				       "--trigger records a loop session (-P loop)");
	if (s->trig.action && s->trig.action != KETW_TRIGGER_SNAPSHOT)
		return cli_usage_error(s->cmd,
				       "--trigger in record takes snapshots (--action snapshot)");
	s->policy = KETW_POLICY_LOOP;
	s->trig.action = KETW_TRIGGER_SNAPSHOT;

	/* The session is attached to this file: its POLLPRI is ours. */
	fd = cli_open_device(O_RDWR);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	ret = cli_start_session(s, fd);
	if (ret) {
		close(fd);
		return ret;
	}
	fflush(stdout);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = trigger_signal;
	sigemptyset(&sa.sa_mask);
	trigger_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (seconds)
		deadline = trigger_now_ms() + seconds * 1000;

	while (!trigger_stop) {
		now = trigger_now_ms();
		if (deadline && now >= deadline)
			break;
		timeout = deadline ? (int)(deadline - now < 1000 ?
					   deadline - now : 1000) : 1000;
		pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR) {
			ret = cli_error("poll: %s", strerror(errno));
			break;
		}
		if (pfd.revents & (POLLERR | POLLNVAL)) {
			ret = cli_error("session '%s' went away", s->name);
			break;
		}
		if (!(pfd.revents & POLLPRI))
			continue;
		/* Reading the status through this file acknowledges it. */
		err = ketw_session_get_status(fd, s->name, &st);
		if (err) {
			ret = cli_session_error("read the status of", s->name,
						err);
			break;
		}
		/* Snapshots that came together are one: the records now. */
		if (st.snapshots_ready != seen) {
			seen = st.snapshots_ready;
			ret = trigger_write(fd, s->name, path, written++);
			if (ret)
				break;
			fflush(stdout);
		}
		if (st.state != KETW_STATE_RUNNING)
			break;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	printf("session %s: %u snapshot%s written\n", s->name, written,
	       written == 1 ? "" : "s");
	/* An owned session (record without --detach) goes with this file. */
	close(fd);
	if (s->flags & KETW_SESSION_OWNED)
		return ret;
	/* Destroy from a file not attached to it. */
	fd = cli_open_device(0);
	if (fd >= 0) {
		err = ketw_session_destroy(fd, s->name);
		if (err && !ret)
			ret = cli_session_error("remove", s->name, err);
		close(fd);
	}
	return ret;
}
