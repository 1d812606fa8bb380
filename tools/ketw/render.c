// SPDX-License-Identifier: GPL-2.0
/*
 * ketw convert and ketw plot: one trace file in, one file out. Opening
 * the trace (a truncated one too, said once), creating the output ("-"
 * for stdout) and closing both, around the converter that writes it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_render_file(const char *path, const char *out, const char *verb,
		    int (*fn)(struct ketw_input *in, const char *path,
			      void *arg, FILE *f),
		    void *arg)
{
	int err, ret = CLI_EXIT_OK;
	struct ketw_input *in;
	char err_msg[256];
	FILE *f;

	err = ketw_input_open_flags(path, KETW_INPUT_PARTIAL, &in, err_msg,
				    sizeof(err_msg));
	if (err)
		return cli_error("cannot read %s: %s", path, err_msg);
	if (ketw_input_truncated(in)) {
		cli_error("%s: truncated at byte %llu: %s its %llu complete sections",
			  path, (unsigned long long)ketw_input_truncated(in),
			  verb, (unsigned long long)ketw_input_nr_sections(in));
		ret = CLI_EXIT_TRUNCATED;
	}
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		err = errno;
		ketw_input_close(in);
		return cli_error("cannot create %s: %s", out, strerror(err));
	}
	err = fn(in, path, arg, f);
	if (f != stdout ? fclose(f) : fflush(f))
		err = err ? err : -EIO;
	ketw_input_close(in);
	if (err)
		return cli_error("%s %s: %s", verb, path, strerror(-err));
	return ret;
}
