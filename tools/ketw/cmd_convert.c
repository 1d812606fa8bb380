// SPDX-License-Identifier: GPL-2.0
/*
 * ketw convert FILE --to chrome|ctf -o OUT: a trace file for other
 * viewers (Documentation/ketw-viewers.rst).
 *
 *   chrome  the Chrome Trace Event Format, JSON (convert_chrome.c), for
 *           ui.perfetto.dev and chrome://tracing; OUT "-" is stdout
 *   ctf     CTF 1.8 in directory OUT, for Trace Compass and LTTng's
 *           tools, written by babeltrace2's own sink.ctf.fs reading FILE
 *           through ketw's babeltrace2 plugin: this runs
 *             babeltrace2 [--plugin-path DIR] FILE --output-format=ctf
 *                         --output OUT
 *           with DIR the build tree's tools/babeltrace2 when this ketw
 *           runs from a build tree that has the plugin
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"

#define CONVERT_PLUGIN	"babeltrace-plugin-ketw.so"

/* The build tree's plugin directory next to this binary, or NULL. */
static const char *convert_plugin_dir(char *buf, size_t len)
{
	char exe[PATH_MAX - 64], *slash;
	struct stat st;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	snprintf(buf, len, "%s/../babeltrace2/%s", exe, CONVERT_PLUGIN);
	if (stat(buf, &st) || !S_ISREG(st.st_mode))
		return NULL;
	snprintf(buf, len, "%s/../babeltrace2", exe);
	return buf;
}

static int convert_ctf(const char *path, const char *out)
{
	char dir[PATH_MAX + 64];
	const char *argv[10];
	const char *pdir = convert_plugin_dir(dir, sizeof(dir));
	int n = 0, status;
	pid_t pid;

	argv[n++] = "babeltrace2";
	if (pdir) {
		argv[n++] = "--plugin-path";
		argv[n++] = pdir;
	}
	argv[n++] = path;
	argv[n++] = "--output-format=ctf";
	argv[n++] = "--output";
	argv[n++] = out;
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return cli_error("fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "ketw: cannot run babeltrace2: %s (Debian: apt-get install babeltrace2)\n",
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cli_error("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
		       CLI_EXIT_ERROR :
		       cli_error("babeltrace2 failed converting %s to CTF", path);
	return CLI_EXIT_OK;
}

static int convert_chrome_fn(struct ketw_input *in, const char *path,
			     void *arg, FILE *f)
{
	(void)arg;
	return cli_convert_chrome(in, path, f);
}

static int convert_chrome(const char *path, const char *out)
{
	return cli_render_file(path, out, "converting", convert_chrome_fn,
			       NULL);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CLI_DEFAULT_FILE, *to = NULL, *out = NULL;
	int c, ret = CLI_EXIT_OK;

	while ((c = cli_getopt_long(argc, argv, "t:o:i:", longopts,
				    &ret)) != -1) {
		switch (c) {
		case 't':
			to = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'i':
			path = optarg;
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
	if (!to)
		return cli_usage_error(argv[0], "--to chrome or --to ctf is needed");
	if (!out)
		return cli_usage_error(argv[0], "-o OUT is needed");
	if (!strcmp(to, "chrome"))
		return convert_chrome(path, out);
	if (!strcmp(to, "ctf"))
		return convert_ctf(path, out);
	return cli_usage_error(argv[0], "--to: '%s' is not chrome or ctf", to);
}
