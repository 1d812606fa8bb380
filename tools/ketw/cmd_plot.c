// SPDX-License-Identifier: GPL-2.0
/*
 * ketw plot [FILE] -o OUT.svg|OUT.html [--from S] [--to S] [--provider P]...
 * [--width PX]: the timeline of a trace file as a picture no other
 * program is needed for (plot_svg.c draws it; Documentation/ketw-viewers.rst).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

enum {
	PLOT_OPT_PROVIDER = 0x200,
	PLOT_OPT_FROM,
	PLOT_OPT_TO,
	PLOT_OPT_WIDTH,
};

static bool plot_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

static int plot_fn(struct ketw_input *in, const char *path, void *arg,
		   FILE *f)
{
	return cli_plot(in, path, arg, f);
}

int cmd_plot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "provider", required_argument, NULL, PLOT_OPT_PROVIDER },
		{ "from", required_argument, NULL, PLOT_OPT_FROM },
		{ "to", required_argument, NULL, PLOT_OPT_TO },
		{ "width", required_argument, NULL, PLOT_OPT_WIDTH },
		{ NULL, 0, NULL, 0 },
	};
	static struct plot_opts o = { .width = 1200 };
	const char *path = CLI_DEFAULT_FILE, *out = NULL;
	int c, ret = CLI_EXIT_OK;
	uint64_t v;

	while ((c = cli_getopt_long(argc, argv, "o:i:", longopts,
				    &ret)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			path = optarg;
			break;
		case PLOT_OPT_PROVIDER:
			ret = cli_opt_provider(argv[0], optarg, o.providers,
					       &o.nr_providers, PLOT_MAX_PROVIDERS);
			if (ret)
				return ret;
			break;
		case PLOT_OPT_FROM:
			ret = cli_opt_seconds(argv[0], "from", optarg, &o.from,
					      &o.from_set);
			if (ret)
				return ret;
			break;
		case PLOT_OPT_TO:
			ret = cli_opt_seconds(argv[0], "to", optarg, &o.to,
					      &o.to_set);
			if (ret)
				return ret;
			break;
		case PLOT_OPT_WIDTH:
			if (ketw_parse_u64(optarg, 20000, &v) || v < 400)
				return cli_usage_error(argv[0],
					"--width: '%s' is not 400..20000 pixels",
					optarg);
			o.width = (unsigned int)v;
			break;
		default:
			return ret;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);
	if (!out)
		return cli_usage_error(argv[0], "-o FILE.svg or FILE.html is needed");
	if (plot_ends_with(out, ".html") || plot_ends_with(out, ".htm"))
		o.html = true;
	else if (!plot_ends_with(out, ".svg") && strcmp(out, "-"))
		return cli_usage_error(argv[0],
			"-o: '%s' is neither .svg nor .html", out);
	if (o.from_set && o.to_set && o.to < o.from)
		return cli_usage_error(argv[0], "--to is before --from");

	return cli_render_file(path, out, "plotting", plot_fn, &o);
}
