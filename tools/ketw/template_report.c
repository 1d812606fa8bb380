// SPDX-License-Identifier: GPL-2.0
/*
 * ketw report -t FILE: decode payloads with format templates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "template.h"
#include "template_report.h"

/* The sets loaded with -t, in the order given. */
static struct ketw_templates **tr_sets;
static unsigned int tr_nsets;
static bool tr_swapped;
static struct ketw_template_buf tr_buf;

void cli_template_report_free(void)
{
	unsigned int i;

	for (i = 0; i < tr_nsets; i++)
		ketw_templates_free(tr_sets[i]);
	free(tr_sets);
	tr_sets = NULL;
	tr_nsets = 0;
	ketw_template_buf_free(&tr_buf);
}

int cli_template_report_load(const char *path)
{
	static bool registered;
	struct ketw_templates *t, **v;
	char err[512];
	int ret;

	ret = ketw_templates_load(path, &t, err, sizeof(err));
	if (ret)
		return cli_error("%s", err);
	v = realloc(tr_sets, (tr_nsets + 1) * sizeof(*v));
	if (!v) {
		ketw_templates_free(t);
		return cli_error("%s: out of memory", path);
	}
	tr_sets = v;
	tr_sets[tr_nsets++] = t;
	if (!registered) {
		atexit(cli_template_report_free);
		registered = true;
	}
	return 0;
}

void cli_template_report_bind(struct ketw_input *in)
{
	struct ketw_templates *t;
	unsigned int i, k;

	if (!tr_nsets)
		return;
	tr_swapped = ketw_input_swapped(in);
	for (i = 0; i < tr_nsets; i++) {
		t = tr_sets[i];
		ketw_templates_bind_input(t, in);
		for (k = 0; k < ketw_templates_nr_providers(t); k++)
			if (!ketw_templates_provider_bound(t, k))
				fprintf(stderr,
					"ketw: note: templates of provider '%s' are not used: the trace has no rundown naming it (name it by its GUID)\n",
					ketw_templates_provider(t, k));
	}
}

int cli_template_report_record(const struct ketw_record *rec, FILE *out)
{
	unsigned int i;
	int ret;

	for (i = 0; i < tr_nsets; i++) {
		ret = ketw_template_print(tr_sets[i], rec, tr_swapped, "    ",
					  &tr_buf, out);
		if (ret)
			return ret < 0 ? -EIO : 1;
	}
	return 0;
}
