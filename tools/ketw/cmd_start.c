// SPDX-License-Identifier: GPL-2.0
/*
 * ketw start: create a session, enable its providers (-p, -x), start it.
 * The enables come before START, so that the rundown and the filters
 * apply from the first event.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "ketw.h"

int cmd_start(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "no-rundown", no_argument, NULL, KETW_OPT_NO_RUNDOWN },
		{ "provider", required_argument, NULL, 'p' },
		{ "filter-out", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = KETW_DEFAULT_SESSION;
	static struct ketw_enables en;
	struct ketw_session_attr attr;
	unsigned int level = 0, policy = 0, clock = 0, flags = 0;
	uint64_t buffer_kb = 0, max_data = 0, any = 0, all = 0, watermark = 0;
	int c, fd, err, ret = KETW_EXIT_OK;

	ketw_enables_init(&en, argv[0], false);
	while ((c = ketw_getopt_long(argc, argv, "s:b:l:k:K:m:P:C:w:p:x:",
				     longopts, &ret)) != -1) {
		switch (c) {
		case 'p':
			ret = ketw_enables_add(&en, optarg);
			break;
		case 'x':
			ret = ketw_enables_add_x(&en, optarg);
			break;
		case KETW_OPT_NO_RUNDOWN:
			flags |= KETW_SESSION_NO_RUNDOWN;
			break;
		case 's':
			name = optarg;
			ret = ketw_check_session_name(argv[0], name);
			break;
		case 'b':
			ret = ketw_opt_u64(argv[0], c, optarg,
					   "a number of KiB", KETW_BUFFER_KB_MIN,
					   KETW_BUFFER_KB_MAX, &buffer_kb);
			break;
		case 'l':
			if (ketw_parse_level(optarg, &level))
				ret = ketw_usage_error(argv[0],
					"-l: '%s' is not a level (critical, error, warning, info, verbose, all, or 0..5)",
					optarg);
			break;
		case 'k':
			ret = ketw_opt_u64(argv[0], c, optarg,
					   "a keyword mask", 0, UINT64_MAX, &any);
			break;
		case 'K':
			ret = ketw_opt_u64(argv[0], c, optarg,
					   "a keyword mask", 0, UINT64_MAX, &all);
			break;
		case 'm':
			ret = ketw_opt_u64(argv[0], c, optarg,
					   "a number of bytes", 1,
					   KETW_MAX_DATA_SIZE, &max_data);
			break;
		case 'P':
			if (ketw_parse_policy(optarg, &policy))
				ret = ketw_usage_error(argv[0],
					"-P: '%s' is not a policy (loop, until-full, flush)",
					optarg);
			break;
		case 'w':
			ret = ketw_opt_u64(argv[0], c, optarg,
					   "a percentage", 1, 100, &watermark);
			break;
		case 'C':
			if (ketw_parse_clock(optarg, &clock))
				ret = ketw_usage_error(argv[0],
					"-C: '%s' is not a clock (mono, boot, local)",
					optarg);
			break;
		default:
			return ret;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return ketw_usage_error(argv[0], "unexpected argument '%s'",
					argv[optind]);
	if (en.nr_x && !en.nr)
		return ketw_usage_error(argv[0],
					"-x needs its provider enabled with -p");

	ketw_session_attr_init(&attr, name);
	attr.flags = flags;
	attr.buffer_kb = buffer_kb;
	attr.level = level;
	attr.match_any = any;
	attr.match_all = all;
	attr.max_data_size = max_data;
	attr.policy = policy;
	attr.clock = clock;
	attr.watermark = watermark;

	fd = ketw_open_device(0);
	if (fd < 0)
		return KETW_EXIT_ERROR;
	if (en.nr) {
		ret = ketw_enables_resolve(&en, fd, name, level, any, all);
		if (ret)
			goto out_close;
	}
	err = ketw_session_create(fd, &attr);
	if (err) {
		if (err == -EINVAL)
			ret = ketw_error("cannot create session '%s': the kernel refused its attributes (buffer %llu KiB, max data %llu bytes: the largest record must fit in half a buffer)",
					 name, (unsigned long long)buffer_kb,
					 (unsigned long long)max_data);
		else
			ret = ketw_session_error("create", name, err);
		goto out_close;
	}
	ret = ketw_enables_apply(&en, fd, name);
	if (ret) {
		ketw_session_destroy(fd, name);
		goto out_close;
	}
	err = ketw_session_start(fd, name);
	if (err) {
		ret = ketw_session_error("start", name, err);
		/* Leave nothing half made behind. */
		ketw_session_destroy(fd, name);
		goto out_close;
	}
	printf("session %s: running (policy %s, %u KiB x %u cpus, clock %s, max data %u, ",
	       attr.name, ketw_or(ketw_policy_name(attr.policy), "?"),
	       attr.buffer_kb, attr.nr_cpus,
	       ketw_or(ketw_clock_name(attr.clock), "?"), attr.max_data_size);
	if (!en.nr)
		printf("level %s, match_any 0x%llx, match_all 0x%llx, ",
		       attr.level ? ketw_or(ketw_level_name(attr.level), "?") :
				    "all",
		       (unsigned long long)attr.match_any,
		       (unsigned long long)attr.match_all);
	printf("watermark %u%%%s)%s\n", attr.watermark,
	       attr.flags & KETW_SESSION_NO_RUNDOWN ? ", no rundown" : "",
	       en.nr ? ", taking only these providers:" : "");
	ketw_enables_print(&en, fd, name);
out_close:
	ketw_enables_free(&en);
	close(fd);
	return ret;
}
