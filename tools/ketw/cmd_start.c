// SPDX-License-Identifier: GPL-2.0
/*
 * ketw start: create a session, enable its providers (-p, -x), start it.
 * The enables come before START, so that the rundown and the filters
 * apply from the first event. The options and the starting are shared
 * with ketw record (ketw_start_*()).
 */
#include <errno.h>
#include <stdio.h>
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

int cli_start_option(struct cli_start *s, int c, const char *arg)
{
	const char *cmd = s->cmd;
	int r = cli_triggers_option(&s->trig, c, arg);

	if (r >= 0)
		return r;
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
	case 's':
		s->name = arg;
		return cli_check_session_name(cmd, arg);
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
	return 0;
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
