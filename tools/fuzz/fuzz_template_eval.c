// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the template evaluator (lib/template.c).
 *
 * Input: template text, a NUL byte, then the payload. Without a NUL the
 * whole input is a payload for a fixed set that uses every construct.
 * Every template of the set decodes the payload in both byte orders;
 * the evaluator must stay inside the payload and within its bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

static const char fixed[] =
	"provider fixed\n"
	"1 L=KERN \"all\" U1 \" \" D2 \" \" X4 \" \" Q1 \" \" F4 \" \" A4 \" \" B0.3\n"
	"  G1.2 B1.1 O0.4 R0.2 W1 X0\n"
	"2 L=SVC \"ctl\" {{ $n = U1 & 7 }} LOOP $n { U2 \" \" }\n"
	"  SWITCH U1, 0 { \"zero\" }, 1 { $0003 }, -1 { A0 }, \\* { $V%X }\n"
	"  BITFLAGS U2, 0x1 \"A\" \"a\", 0x2 \"B\", & 0xc 0x4 \"M1\", & 0xc 0x8 \"M2\"\n"
	"3 L=INT \"sub\" {{ $d = $D1 / ($D2 | 1) - $D3 * $D4 + $D5 }} $d $d%U\n"
	"  SWITCH (U1 / 2), 3 { $0002 }, 4 { $0003 } F8 A0 $POS $LEN $ID $VER\n"
	"4 L=APPL \"rec\" U1 SWITCH $V, 0 { }, \\* { $0004 }\n"
	"5 \"loops\" LOOP U2 { LOOP U1 { X1 } \"|\" }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void eval_all(const struct ketw_templates *t, const uint8_t *p,
		     size_t len)
{
	static struct ketw_template_buf buf;
	struct ketw_template_data d = { .payload = p, .len = len };
	const struct ketw_template *tp;
	unsigned int prov, i, sw;
	int ret;

	for (prov = 0; prov < ketw_templates_nr_providers(t); prov++)
		for (i = 0; (tp = ketw_templates_template(t, prov, i)); i++)
			for (sw = 0; sw < 2; sw++) {
				d.swapped = sw;
				d.version = sw + 1;
				ret = ketw_template_eval(t, tp, &d, &buf);
				if (ret < 0 || ret > 1 ||
				    strlen(buf.s) != buf.len ||
				    buf.len > KETW_TEMPLATE_MAX_OUTPUT + 64)
					abort();
			}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ketw_templates *fixed_set;
	const uint8_t *nul = memchr(data, 0, size);
	struct ketw_templates *t;
	char err[512];
	uint8_t *payload;
	size_t start, len;

	if (!nul) {
		if (!fixed_set &&
		    ketw_templates_parse(fixed, sizeof(fixed) - 1, "fixed",
					 &fixed_set, err, sizeof(err))) {
			fprintf(stderr, "fuzz_template_eval: %s\n", err);
			abort();
		}
		t = fixed_set;
		start = 0;
	} else if (ketw_templates_parse((const char *)data, nul - data,
					"f.tmpl", &t, err, sizeof(err))) {
		return 0;
	} else {
		start = (size_t)(nul - data) + 1;
	}
	/* A copy of exactly the payload's size: ASan sees any overread. */
	len = size - start;
	payload = malloc(len ? len : 1);
	if (!payload)
		abort();
	memcpy(payload, data + start, len);
	eval_all(t, len ? payload : NULL, len);
	free(payload);
	if (t != fixed_set)
		ketw_templates_free(t);
	return 0;
}
