// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: a JSON string on stdout.
 */
#include <stdio.h>

#include "ketw.h"

void ketw_json_string(const char *s, size_t max)
{
	size_t i;

	putchar('"');
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}
