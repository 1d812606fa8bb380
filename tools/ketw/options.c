// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: the option loop of the subcommands and the checks of option values.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_getopt(int argc, char **argv, const char *optstring,
	       int *exit_code)
{
	return cli_getopt_long(argc, argv, optstring, NULL, exit_code);
}

int cli_getopt_long(int argc, char **argv, const char *optstring,
		    const struct option *extra, int *exit_code)
{
	struct option longopts[CLI_MAX_LONGOPTS + 2] = {
		{ "help", no_argument, NULL, 'h' },
	};
	unsigned int n = 1;
	char opts[64];
	int c;

	for (; extra && extra[n - 1].name; n++) {
		if (n > CLI_MAX_LONGOPTS) {	/* a command's table too long */
			*exit_code = cli_error("%s: too many long options",
					       argv[0]);
			return '?';
		}
		longopts[n] = extra[n - 1];
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	/* ':' first: tell a missing argument from an unknown option. */
	snprintf(opts, sizeof(opts), ":%sh", optstring);
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, NULL);
	switch (c) {
	case 'h':
		cli_usage_print(argv[0]);
		*exit_code = CLI_EXIT_OK;
		return '?';
	case ':':
		if (optopt && optopt < 0x100)
			*exit_code = cli_usage_error(argv[0],
						     "option -%c needs an argument",
						     optopt);
		else
			*exit_code = cli_usage_error(argv[0],
						     "option %s needs an argument",
						     argv[optind - 1]);
		return '?';
	case '?':
		if (optopt && optopt < 0x100)
			*exit_code = cli_usage_error(argv[0],
						     "unknown option -%c",
						     optopt);
		else
			*exit_code = cli_usage_error(argv[0],
						     "unknown option %s",
						     argv[optind - 1]);
		return '?';
	default:
		return c;
	}
}

int cli_check_session_name(const char *cmd, const char *name)
{
	if (ketw_session_name_valid(name))
		return 0;
	return cli_usage_error(cmd,
		"-s: '%s' is not a session name (1 to %d characters of A-Z a-z 0-9 _ . -)",
		name, KETW_NAME_MAX - 1);
}

int cli_opt_u64_named(const char *cmd, const char *opt, const char *arg,
		      const char *what, uint64_t min, uint64_t max,
		      uint64_t *out)
{
	int err = ketw_parse_u64(arg, UINT64_MAX, out);

	if (err == -EINVAL)
		return cli_usage_error(cmd, "%s: '%s' is not %s", opt, arg,
				       what);
	if (err || *out < min || *out > max)
		return cli_usage_error(cmd,
			"%s: %s is out of range (%llu to %llu)", opt, arg,
			(unsigned long long)min, (unsigned long long)max);
	return 0;
}

int cli_opt_u64(const char *cmd, char opt, const char *arg, const char *what,
		uint64_t min, uint64_t max, uint64_t *out)
{
	char name[3] = { '-', opt, '\0' };

	return cli_opt_u64_named(cmd, name, arg, what, min, max, out);
}

int cli_session_only(int argc, char **argv, const char **name, int *fd)
{
	int c, ret = CLI_EXIT_OK;

	*name = CLI_DEFAULT_SESSION;
	*fd = -1;
	while ((c = cli_getopt(argc, argv, "s:", &ret)) != -1) {
		if (c != 's')
			return ret;
		*name = optarg;
		ret = cli_check_session_name(argv[0], *name);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);
	*fd = cli_open_device(0);
	return *fd < 0 ? CLI_EXIT_ERROR : 0;
}

/*
 * "SECONDS[.FRACTION]" (up to 9 digits of fraction) as nanoseconds;
 * -EINVAL if it is not that.
 */
int cli_parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	unsigned int digits = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (++digits > 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (!digits)
			return -EINVAL;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*p)
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

int cli_opt_seconds(const char *cmd, const char *opt, const char *arg,
		    uint64_t *ns, bool *set)
{
	if (cli_parse_seconds(arg, ns))
		return cli_usage_error(cmd, "--%s: '%s' is not SECONDS[.FRACTION]",
				       opt, arg);
	*set = true;
	return CLI_EXIT_OK;
}

int cli_opt_provider(const char *cmd, const char *arg,
		     struct ketw_provider_ref *refs, unsigned int *nr,
		     unsigned int max)
{
	if (*nr == max)
		return cli_usage_error(cmd, "--provider: at most %u", max);
	if (ketw_provider_ref_parse(arg, &refs[*nr]))
		return cli_usage_error(cmd,
			"--provider: '%s' is not a provider name or GUID",
			arg);
	(*nr)++;
	return CLI_EXIT_OK;
}
