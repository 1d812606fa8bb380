// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: appending to a text buffer (snprintf semantics), and fixed-size
 * name fields as strings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void ketw_fmt(struct ketw_fmt *f, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(f->n < f->len ? f->buf + f->n : NULL,
		      f->n < f->len ? f->len - f->n : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		f->n += w;
}

/* A fixed-size name field as a string: up to its size, NUL or not. */
const char *ketw_fixed(const char *s, size_t size, char *tmp)
{
	size_t n = strnlen(s, size);

	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return tmp;
}
