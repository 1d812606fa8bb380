// SPDX-License-Identifier: GPL-2.0
/*
 * ketw start: create a session, enable its providers (-p, -x), set its
 * process filter (--pid), start it; or start a stopped session again.
 * The enables come before START, so that the rundown and the filters
 * apply from the first event. The options and the starting are shared
 * with ketw record (ketw_start_*()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void cli_start_init(struct cli_start *s, const char *cmd)
{
	*s = (struct cli_start){ .cmd = cmd, .name = CLI_DEFAULT_SESSION };
	cli_enables_init(&s->en, cmd, false);
	s->trig.cmd = cmd;
}

void cli_start_free(struct cli_start *s)
{
	cli_enables_free(&s->en);
}

/* --pid PID[,PID...]: added to those of earlier --pid options. */
static int cli_start_pids(struct cli_start *s, const char *arg)
{
	const char *p = arg;
	char *end;
	long v;

	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v < 1 || v > INT32_MAX ||
		    (*end && *end != ','))
			return cli_usage_error(s->cmd,
				"--pid: '%s' is not a list of process ids (1 or more, separated by commas)",
				arg);
		if (s->nr_pids == KETW_PIDS_MAX)
			return cli_usage_error(s->cmd,
				"--pid: at most %d processes", KETW_PIDS_MAX);
		s->pids[s->nr_pids++] = v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int cli_start_option(struct cli_start *s, int c, const char *arg)
{
	const char *cmd = s->cmd;
	int r = cli_triggers_option(&s->trig, c, arg);

	if (r >= 0) {
		s->shaped = true;
		return r;
	}
	switch (c) {
	case CLI_OPT_PID:
		return cli_start_pids(s, arg);
	case CLI_OPT_INHERIT:
		s->pid_flags |= KETW_PIDS_INHERIT;
		return 0;
	case 's':
		s->name = arg;
		return cli_check_session_name(cmd, arg);
	}
	s->shaped = true;
	switch (c) {
	case 'p':
		return cli_enables_add(&s->en, arg);
	case 'x':
		return cli_enables_add_x(&s->en, arg);
	case CLI_OPT_NO_RUNDOWN:
		s->flags |= KETW_SESSION_NO_RUNDOWN;
		return 0;
	case CLI_OPT_ITEMS:
		if (ketw_ext_items_parse(arg, &s->ext_items))
			return cli_usage_error(cmd,
				"--items: '%s' is not a list of stack, ustack, cputime, progaddr, pidns, activity",
				arg);
		return 0;
	case 'b':
		return cli_opt_u64(cmd, c, arg, "a number of KiB",
				   KETW_BUFFER_KB_MIN, KETW_BUFFER_KB_MAX,
				   &s->buffer_kb);
	case 'l':
		if (ketw_parse_level(arg, &s->level))
			return cli_usage_error(cmd,
				"-l: '%s' is not a level (critical, error, warning, info, verbose, all, or 0..5)",
				arg);
		return 0;
	case 'k':
		return cli_opt_u64(cmd, c, arg, "a keyword mask", 0,
				   UINT64_MAX, &s->any);
	case 'K':
		return cli_opt_u64(cmd, c, arg, "a keyword mask", 0,
				   UINT64_MAX, &s->all);
	case 'm':
		return cli_opt_u64(cmd, c, arg, "a number of bytes", 1,
				   KETW_MAX_DATA_SIZE, &s->max_data);
	case 'P':
		if (ketw_parse_policy(arg, &s->policy))
			return cli_usage_error(cmd,
				"-P: '%s' is not a policy (loop, until-full, flush)",
				arg);
		return 0;
	case 'w':
		return cli_opt_u64(cmd, c, arg, "a percentage", 1, 100,
				   &s->watermark);
	case 'C':
		if (ketw_parse_clock(arg, &s->clock))
			return cli_usage_error(cmd,
				"-C: '%s' is not a clock (mono, boot, local)",
				arg);
		return 0;
	default:
		return -1;
	}
}

int cli_start_check(struct cli_start *s)
{
	if (s->en.nr_x && !s->en.nr)
		return cli_usage_error(s->cmd,
				       "-x needs its provider enabled with -p");
	if (s->pid_flags && !s->nr_pids)
		return cli_usage_error(s->cmd,
				       "--inherit needs the processes given with --pid");
	return 0;
}

bool cli_pids_describe(int fd, const char *name,
		       const struct ketw_session_status *ss, char *buf,
		       size_t len)
{
	static int32_t pids[KETW_PIDS_MAX];
	uint32_t count, flags, i;
	size_t n = 0;

	if (ketw_session_get_pids(fd, name, pids, KETW_PIDS_MAX, &count,
				  &flags))
		return false;
	buf[0] = '\0';
	if (!(flags & KETW_PIDS_ACTIVE))
		n += snprintf(buf, len, "all (no process filter)");
	else if (!count)
		n += snprintf(buf, len,
			      "none left (the session takes no provider event)");
	for (i = 0; i < count && i < KETW_PIDS_MAX && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%d", i ? " " : "",
			      pids[i]);
	if (n < len && (flags & KETW_PIDS_INHERIT))
		n += snprintf(buf + n, len - n,
			      ", inherit (and the children they fork)");
	if (n < len && ss && ss->pids_dropped)
		snprintf(buf + n, len - n,
			 ", %u children not taken (the filter was full)",
			 ss->pids_dropped);
	return true;
}

/* --pid: set the process filter of @name; 0, or 1 after a message. */
static int cli_start_set_pids(struct cli_start *s, int fd, const char *name)
{
	int err;

	if (!s->nr_pids)
		return 0;
	err = ketw_session_set_pids(fd, name, s->pids, s->nr_pids,
				    s->pid_flags);
	if (err == -ESRCH)
		return cli_error("--pid: a process given is not running (or is a thread id, not its process's)");
	if (err == -ENOTTY)
		return cli_error("--pid: this ketw module has no process filters");
	if (err)
		return cli_session_error("set the process filter of", name,
					 err);
	return 0;
}

/*
 * START on session @name, which exists: resume it if it is stopped
 * and this command only names it (and its processes).
 */
static int cli_start_resume(struct cli_start *s, int fd)
{
	const char *name = s->name;
	struct ketw_session_attr *attr = &s->attr;
	char what[128];
	int err, ret;

	err = ketw_session_get_attr(fd, name, attr);
	if (err)
		return cli_session_error("start", name, err);
	if (attr->state == KETW_STATE_RUNNING && s->shaped)
		return cli_session_error("create", name, -EEXIST);
	if (attr->state == KETW_STATE_RUNNING)
		return cli_error("session '%s' is already running", name);
	if (s->shaped)
		return cli_error("session '%s' exists (stopped): 'ketw start -s %s' alone starts it again as it is (--pid may change its processes); remove it with 'ketw reset -s %s' to make it anew",
				 name, name, name);
	ret = cli_start_set_pids(s, fd, name);
	if (ret)
		return ret;
	err = ketw_session_start(fd, name);
	if (err == -ENOSPC)
		return cli_error("session '%s' is full (until-full): read it ('ketw extract -s %s') before starting it again",
				 name, name);
	if (err)
		return cli_session_error("start", name, err);
	printf("session %s: running again (it was %s; its buffers keep the records they held, new ones follow a START record)\n",
	       name, attr->state == KETW_STATE_CREATED ? "never started" :
	       "stopped");
	if (cli_pids_describe(fd, name, NULL, what, sizeof(what)) &&
	    s->nr_pids)
		printf("processes: %s\n", what);
	return CLI_EXIT_OK;
}

int cli_start_session(struct cli_start *s, int fd)
{
	struct ketw_session_attr *attr = &s->attr;
	const char *name = s->name;
	int err, ret;

	ketw_session_attr_init(attr, name);
	attr->flags = s->flags;
	attr->buffer_kb = s->buffer_kb;
	attr->level = s->level;
	attr->ext_items = s->ext_items;
	attr->match_any = s->any;
	attr->match_all = s->all;
	attr->max_data_size = s->max_data;
	attr->policy = s->policy;
	attr->clock = s->clock;
	attr->watermark = s->watermark;

	if (s->en.nr) {
		ret = cli_enables_resolve(&s->en, fd, name, s->level, s->any,
					  s->all);
		if (ret)
			return ret;
	}
	err = ketw_session_create(fd, attr);
	if (err == -EEXIST && s->may_resume)
		return cli_start_resume(s, fd);
	if (err) {
		if (err == -EINVAL && attr->flags & KETW_SESSION_OWNED)
			return cli_error("cannot create session '%s': the kernel refused its attributes (buffer %llu KiB, max data %llu bytes: the largest record must fit in half a buffer; or a ketw module older than KETW_SESSION_OWNED: try --detach)",
					 name, (unsigned long long)s->buffer_kb,
					 (unsigned long long)s->max_data);
		if (err == -EINVAL)
			return cli_error("cannot create session '%s': the kernel refused its attributes (buffer %llu KiB, max data %llu bytes: the largest record must fit in half a buffer)",
					 name, (unsigned long long)s->buffer_kb,
					 (unsigned long long)s->max_data);
		if (err == -ENOMEM || err == -ENOBUFS)
			return cli_memory_error(name, s->buffer_kb, err);
		return cli_session_error("create", name, err);
	}
	ret = cli_enables_apply(&s->en, fd, name);
	if (!ret)
		ret = cli_triggers_arm(&s->trig, fd, name);
	if (!ret)
		ret = cli_start_set_pids(s, fd, name);
	if (ret) {
		ketw_session_destroy(fd, name);
		return ret;
	}
	err = ketw_session_start(fd, name);
	if (err) {
		ret = cli_session_error("start", name, err);
		/* Leave nothing half made behind. */
		ketw_session_destroy(fd, name);
		return ret;
	}
	printf("session %s: running (policy %s, %u KiB x %u cpus, clock %s, max data %u, ",
	       attr->name, cli_or(ketw_policy_name(attr->policy), "?"),
	       attr->buffer_kb, attr->nr_cpus,
	       cli_or(ketw_clock_name(attr->clock), "?"),
	       attr->max_data_size);
	if (!s->en.nr)
		printf("level %s, match_any 0x%llx, match_all 0x%llx, ",
		       attr->level ?
		       cli_or(ketw_level_name(attr->level), "?") : "all",
		       (unsigned long long)attr->match_any,
		       (unsigned long long)attr->match_all);
	printf("watermark %u%%%s)%s\n", attr->watermark,
	       attr->flags & KETW_SESSION_NO_RUNDOWN ? ", no rundown" : "",
	       s->en.nr ? ", taking only these providers:" : "");
	cli_enables_print(&s->en, fd, name);
	if (s->nr_pids) {
		char what[256];

		if (cli_pids_describe(fd, name, NULL, what, sizeof(what)))
			printf("processes: %s\n", what);
	}
	return CLI_EXIT_OK;
}

int cmd_start(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_START_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_start s;
	int c, fd, r, ret = CLI_EXIT_OK;

	cli_start_init(&s, argv[0]);
	s.may_resume = true;
	while ((c = cli_getopt_long(argc, argv, CLI_START_OPTSTRING,
				    longopts, &ret)) != -1) {
		r = cli_start_option(&s, c, optarg);
		if (r < 0)	/* '?': cli_getopt_long() set ret */
			goto out;
		ret = r;
		if (ret)
			goto out;
	}
	if (optind < argc) {
		ret = cli_usage_error(argv[0], "unexpected argument '%s'",
				      argv[optind]);
		goto out;
	}
	ret = cli_start_check(&s);
	if (ret)
		goto out;
	fd = cli_open_device(0);
	if (fd < 0) {
		ret = CLI_EXIT_ERROR;
		goto out;
	}
	ret = cli_start_session(&s, fd);
	close(fd);
out:
	cli_start_free(&s);
	return ret;
}
