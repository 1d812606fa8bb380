// SPDX-License-Identifier: GPL-2.0
/*
 * ketw enable: change which providers an existing session takes, and with
 * what filter (KETW_IOC_ENABLE). ketw disable (cmd_disable.c) runs the
 * same code. The kernel logs a FILTER event into a running session for
 * each provider whose filter changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Does the session take any registered provider now? */
static bool session_takes_any(const struct cli_enables *e, int fd,
			      const char *name)
{
	struct ketw_provider_ref ref;
	struct ketw_filter f;
	unsigned int i;

	for (i = 0; i < e->nr_providers; i++) {
		memset(&ref, 0, sizeof(ref));
		memcpy(ref.guid, e->providers[i].provider_guid, KETW_GUID_SIZE);
		if (!ketw_session_get_filter(fd, name, &ref, &f) && f.enabled)
			return true;
	}
	return false;
}

int cli_enable_or_disable(int argc, char **argv, bool disable)
{
	static const struct option longopts[] = {
		{ "provider", required_argument, NULL, 'p' },
		{ "filter-out", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = CLI_DEFAULT_SESSION;
	static struct cli_enables en;
	struct ketw_session_attr attr;
	unsigned int level = 0;
	uint64_t any = 0, all = 0;
	int c, fd, err, ret = CLI_EXIT_OK;

	cli_enables_init(&en, argv[0], disable);
	while ((c = cli_getopt_long(argc, argv,
				    disable ? "s:p:" : "s:p:x:l:k:K:",
				    longopts, &ret)) != -1) {
		switch (c) {
		case 's':
			name = optarg;
			ret = cli_check_session_name(argv[0], name);
			break;
		case 'p':
			ret = cli_enables_add(&en, optarg);
			break;
		case 'x':
			ret = cli_enables_add_x(&en, optarg);
			break;
		case 'l':
			if (ketw_parse_level(optarg, &level))
				ret = cli_usage_error(argv[0],
					"-l: '%s' is not a level (critical, error, warning, info, verbose, all, or 0..5)",
					optarg);
			break;
		case 'k':
			ret = cli_opt_u64(argv[0], c, optarg,
					  "a keyword mask", 0, UINT64_MAX, &any);
			break;
		case 'K':
			ret = cli_opt_u64(argv[0], c, optarg,
					  "a keyword mask", 0, UINT64_MAX, &all);
			break;
		default:
			return ret;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);
	if (!en.nr)
		return cli_usage_error(argv[0],
				       "no provider given (-p PROVIDER)");

	fd = cli_open_device(0);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	err = ketw_session_get_attr(fd, name, &attr);
	if (err) {
		ret = cli_session_error(disable ? "disable a provider in" :
					"enable a provider in", name, err);
		goto out;
	}
	ret = cli_enables_resolve(&en, fd, name, level, any, all);
	if (!ret)
		ret = cli_enables_apply(&en, fd, name);
	if (ret)
		goto out;
	printf("session %s (%s): %s %u provider%s%s\n", name,
	       cli_or(ketw_state_name(attr.state), "?"),
	       disable ? "disabled" : "enabled", en.nr, en.nr > 1 ? "s" : "",
	       attr.state == KETW_STATE_RUNNING ?
	       " (the kernel logged a FILTER event for each change)" : "");
	cli_enables_print(&en, fd, name);
	if (disable && !session_takes_any(&en, fd, name))
		printf("session %s now takes no registered provider (enable one with 'ketw enable -s %s -p PROVIDER')\n",
		       name, name);
out:
	cli_enables_free(&en);
	close(fd);
	return ret;
}

int cmd_enable(int argc, char **argv)
{
	return cli_enable_or_disable(argc, argv, false);
}
