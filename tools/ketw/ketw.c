// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: control ketw tracing sessions and read their traces, in the
 * manner of trace-cmd. This file holds main() and the command table.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct cli_cmd cli_cmds[] = {
	{ "list",    cmd_list,    "list the providers and their events" },
	{ "start",   cmd_start,   "create a session and start tracing" },
	{ "record",  cmd_record,  "start a session, save its records to a trace file until stopped, remove it" },
	{ "stream",  cmd_stream,  "start a session and send its records off the machine as they come" },
	{ "listen",  cmd_listen,  "collect the streams of many machines into trace files" },
	{ "stop",    cmd_stop,    "stop tracing (the session keeps its records)" },
	{ "extract", cmd_extract, "save a session's records to a trace file" },
	{ "report",  cmd_report,  "print a trace file" },
	{ "convert", cmd_convert, "convert a trace file for other viewers (Chrome/Perfetto JSON, CTF)" },
	{ "plot",    cmd_plot,    "draw a trace file's timeline (SVG or HTML)" },
	{ "snapshot", cmd_snapshot, "save a session's records to a trace file without consuming them" },
	{ "flush",   cmd_flush,   "have a session's readers drain its buffers now" },
	{ "status",  cmd_status,  "print a session's POSIX status, totals and counters" },
	{ "show",    cmd_show,    "print a session's attributes, filters and counters" },
	{ "enable",  cmd_enable,  "enable providers in a session, or change their filters" },
	{ "disable", cmd_disable, "remove providers from a session" },
	{ "rundown", cmd_rundown, "log the providers, event layouts and tasks into a session" },
	{ "log",     cmd_log,     "log text events as a user-space provider" },
	{ "reset",   cmd_reset,   "remove a session and its buffers" },
	{ "help",    cmd_help,    "print help on ketw or a command" },
	{ NULL, NULL, NULL },
};

const struct cli_cmd *cli_cmd_find(const char *name)
{
	const struct cli_cmd *c;

	for (c = cli_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cli_cmd *c;

	if (argc < 2)
		return cli_usage_error(NULL, "no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_usage_print(NULL);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ketw (trace file format %u.%u)\n",
		       KETW_FILE_VERSION_MAJOR, KETW_FILE_VERSION_MINOR);
		return CLI_EXIT_OK;
	}
	c = cli_cmd_find(argv[1]);
	if (!c)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	return c->run(argc - 1, argv + 1);
}
