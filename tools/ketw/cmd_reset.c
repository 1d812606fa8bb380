// SPDX-License-Identifier: GPL-2.0
/*
 * ketw reset: remove a session (stopping it first if it runs), or, with
 * --all, every session after one question.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"

/* "y" or "yes" on standard input; anything else, or nothing, is no. */
static bool reset_confirm(const struct ketw_session_info *si, unsigned int nr)
{
	char line[64];
	unsigned int i;

	fprintf(stderr, "ketw: remove %u session%s (", nr, nr == 1 ? "" : "s");
	for (i = 0; i < nr; i++)
		fprintf(stderr, "%s%.*s", i ? ", " : "", KETW_NAME_MAX,
			si[i].name);
	fprintf(stderr, ") and their records? [y/N] ");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "\n");
		return false;
	}
	line[strcspn(line, "\r\n")] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

static int reset_all(int fd, bool yes)
{
	struct ketw_session_info *si = NULL;
	char name[KETW_NAME_MAX];
	unsigned int nr = 0, i;
	int err, ret = CLI_EXIT_OK;

	err = ketw_sessions_get(fd, &si, &nr);
	if (err == -ENOTTY)
		return cli_error("this ketw module cannot list sessions: reset them one by one with -s");
	if (err)
		return cli_error("cannot list the sessions: %s", strerror(-err));
	if (!nr) {
		printf("no sessions\n");
		return CLI_EXIT_OK;
	}
	if (!yes && !reset_confirm(si, nr)) {
		free(si);
		return cli_error("nothing removed");
	}
	for (i = 0; i < nr; i++) {
		memcpy(name, si[i].name, KETW_NAME_MAX);
		name[KETW_NAME_MAX - 1] = '\0';
		err = ketw_session_destroy(fd, name);
		if (err == -ENOENT)
			continue;	/* gone meanwhile */
		if (err)
			ret = cli_session_error("remove", name, err);
		else
			printf("removed %s\n", name);
	}
	free(si);
	return ret;
}

int cmd_reset(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, CLI_OPT_ALL },
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	bool all = false, yes = false;
	int c, fd, err, ret = CLI_EXIT_OK;

	while ((c = cli_getopt_long(argc, argv, "s:y", longopts, &ret)) != -1) {
		switch (c) {
		case 's':
			name = optarg;
			ret = cli_check_session_name(argv[0], name);
			break;
		case CLI_OPT_ALL:
			all = true;
			break;
		case 'y':
			yes = true;
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
	if (all && name)
		return cli_usage_error(argv[0], "--all and -s exclude each other");
	if (yes && !all)
		return cli_usage_error(argv[0], "-y goes with --all");
	fd = cli_open_device(0);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	if (all) {
		ret = reset_all(fd, yes);
	} else {
		if (!name)
			name = CLI_DEFAULT_SESSION;
		err = ketw_session_destroy(fd, name);
		if (err)
			ret = cli_session_error("remove", name, err);
	}
	close(fd);
	return ret;
}
