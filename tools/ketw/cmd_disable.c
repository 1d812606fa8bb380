// SPDX-License-Identifier: GPL-2.0
/*
 * ketw disable: stop a session from taking providers; ketw enable's code
 * with -p alone (cmd_enable.c).
 */
#include "cli.h"

int cmd_disable(int argc, char **argv)
{
	return cli_enable_or_disable(argc, argv, true);
}
