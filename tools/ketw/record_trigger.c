// SPDX-License-Identifier: GPL-2.0
/*
 * ketw record --trigger: the flight recorder. A LOOP session, started
 * with its triggers armed (cmd_start.c, trigger.c), whose triggers'
 * snapshots are written as they become ready (poll() for POLLPRI, no
 * busy loop), to FILE, then FILE.1, FILE.2, ...
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
