// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the template parser (lib/template.c) over arbitrary
 * text. A parse either fails with "file:line:col: message" or gives a set
 * whose every template can be found by its provider and id.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t guid[KETW_GUID_SIZE] = { 0x6b, 0x65 };
	const struct ketw_template *tp;
	struct ketw_templates *t;
	unsigned int p, i, n = 0;
	char err[512];
	int ret;

	ret = ketw_templates_parse((const char *)data, size, "f.tmpl", &t,
				   err, sizeof(err));
	if (ret) {
		/* Every message names the file, a line and a column. */
		if (ret != -EINVAL || strncmp(err, "f.tmpl:", 7))
			abort();
		return 0;
	}
	for (p = 0; p < ketw_templates_nr_providers(t); p++) {
		ketw_templates_bind(t, ketw_templates_provider(t, p), guid);
		for (i = 0; (tp = ketw_templates_template(t, p, i)); i++) {
			if (ketw_template_column(tp) > KETW_TEMPLATE_INT ||
			    !ketw_template_label(tp))
				abort();
			n++;
		}
	}
	if (n != ketw_templates_nr_templates(t))
		abort();
	ketw_templates_free(t);
	return 0;
}
