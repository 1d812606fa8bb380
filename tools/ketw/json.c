// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: a JSON writer for --json. The caller says what comes (objects,
 * arrays, keys, values); the writer puts the commas, the quotes and the
 * escapes, and the layout: compact (JSON Lines: no blanks), or pretty,
 * where each container says whether its members go one per line
 * (indented two more than the line its opener is on) or inline (", ").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_json_init(struct cli_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static void json_indent(struct cli_json *j, unsigned int n)
{
	fputc('\n', j->f);
	fprintf(j->f, "%*s", (int)n, "");
}

/* Before a key, or a value that is not a key's: separator and layout. */
static void json_member(struct cli_json *j)
{
	struct cli_json_level *c;

	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->depth)
		return;
	c = &j->c[j->depth - 1];
	if (!c->empty)
		fputc(',', j->f);
	if (c->multiline)
		json_indent(j, c->indent + 2);
	else if (!c->empty && j->pretty)
		fputc(' ', j->f);
	c->empty = false;
}

/* The indentation of the line the next container's opener sits on. */
static unsigned int json_line_indent(const struct cli_json *j)
{
	const struct cli_json_level *c;

	if (!j->depth)
		return 0;
	c = &j->c[j->depth - 1];
	return c->multiline ? c->indent + 2 : c->indent;
}

static void json_open(struct cli_json *j, char open, char close,
		      bool multiline)
{
	unsigned int indent = json_line_indent(j);
	struct cli_json_level *c;

	/* The nesting of ketw's output is fixed: deeper is a bug here. */
	if (j->depth == CLI_JSON_MAX_DEPTH)
		abort();
	json_member(j);
	fputc(open, j->f);
	c = &j->c[j->depth++];
	c->close = close;
	c->multiline = multiline && j->pretty;
	c->indent = indent;
	c->empty = true;
}

void cli_json_object(struct cli_json *j, bool multiline)
{
	json_open(j, '{', '}', multiline);
}

void cli_json_array(struct cli_json *j, bool multiline)
{
	json_open(j, '[', ']', multiline);
}

void cli_json_end(struct cli_json *j)
{
	struct cli_json_level *c;

	if (!j->depth)
		return;
	c = &j->c[--j->depth];
	if (c->multiline && !c->empty)
		json_indent(j, c->indent);
	fputc(c->close, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void cli_json_key(struct cli_json *j, const char *key)
{
	json_member(j);
	cli_json_escaped(j->f, (const unsigned char *)key, strlen(key),
			 false);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void cli_json_escaped(FILE *f, const unsigned char *p, size_t max,
		      bool stop_at_nul)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < max && (p[i] || !stop_at_nul); i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			fprintf(f, "\\u%04x", p[i]);
		else
			fputc(p[i], f);
	}
	fputc('"', f);
}

void cli_json_string(struct cli_json *j, const char *s, size_t max)
{
	json_member(j);
	cli_json_escaped(j->f, (const unsigned char *)s, max, true);
}

void cli_json_hex(struct cli_json *j, const unsigned char *p, size_t n)
{
	size_t i;

	json_member(j);
	fputc('"', j->f);
	for (i = 0; i < n; i++)
		fprintf(j->f, "%02x", p[i]);
	fputc('"', j->f);
}

void cli_json_stringf(struct cli_json *j, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cli_json_string(j, buf, sizeof(buf));
}

void cli_json_u64(struct cli_json *j, uint64_t v)
{
	json_member(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void cli_json_us(struct cli_json *j, uint64_t ns)
{
	json_member(j);
	fprintf(j->f, "%llu.%03llu", (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

void cli_json_s64(struct cli_json *j, int64_t v)
{
	json_member(j);
	fprintf(j->f, "%lld", (long long)v);
}

void cli_json_bool(struct cli_json *j, bool v)
{
	json_member(j);
	fputs(v ? "true" : "false", j->f);
}

void cli_json_null(struct cli_json *j)
{
	json_member(j);
	fputs("null", j->f);
}

void cli_json_string_or_null(struct cli_json *j, const char *s)
{
	if (s)
		cli_json_string(j, s, strlen(s));
	else
		cli_json_null(j);
}
