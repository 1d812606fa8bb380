// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: format templates, the lexer: tokens, with their line and
 * column, and the errors that name them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "template_internal.h"

__attribute__((format(printf, 4, 5), noreturn))
void tpl_perr_at(struct parser *p, unsigned int line, unsigned int col,
		    const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (p->err && p->errlen) {
		n = snprintf(p->err, p->errlen, "%s:%u:%u: ", p->file, line,
			     col);
		if (n >= 0 && (size_t)n < p->errlen) {
			va_start(ap, fmt);
			vsnprintf(p->err + n, p->errlen - n, fmt, ap);
			va_end(ap);
		}
	}
	p->code = -EINVAL;
	longjmp(p->jb, 1);
}

__attribute__((noreturn))
void tpl_poom(struct parser *p)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s: out of memory", p->file);
	p->code = -ENOMEM;
	longjmp(p->jb, 1);
}

void *tpl_palloc(struct parser *p, size_t size)
{
	void *x = tpl_alloc(p->t, size);

	if (!x)
		tpl_poom(p);
	return x;
}

int tpl_peek(const struct parser *p, size_t ahead)
{
	return p->pos + ahead < p->len ? (unsigned char)p->s[p->pos + ahead] :
					 -1;
}

void tpl_advance(struct parser *p)
{
	if (p->pos >= p->len)
		return;
	if (p->s[p->pos] == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->pos++;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_alnum(int c)
{
	return is_alpha(c) || is_digit(c);
}

static void skip_blanks(struct parser *p)
{
	int c;

	while ((c = tpl_peek(p, 0)) >= 0) {
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
		    c == '\f' || c == '\v') {
			tpl_advance(p);
		} else if (c == '#') {
			while ((c = tpl_peek(p, 0)) >= 0 && c != '\n')
				tpl_advance(p);
		} else {
			break;
		}
	}
}

static void lex_string(struct parser *p)
{
	struct tok *t = &p->tok;
	size_t start, cap, n = 0;
	char *s;
	int c, h1, h2;

	tpl_advance(p);		/* the quote */
	/* The decoded string is never longer than the source text. */
	start = p->pos;
	while (p->pos < p->len && p->s[p->pos] != '"' && p->s[p->pos] != '\n') {
		if (p->s[p->pos] == '\\' && p->pos + 1 < p->len)
			p->pos++;
		p->pos++;
	}
	cap = p->pos - start + 1;
	p->pos = start;
	s = tpl_palloc(p, cap);
	for (;;) {
		c = tpl_peek(p, 0);
		if (c < 0 || c == '\n')
			tpl_perr_at(p, t->line, t->col, "string not closed");
		if (c == '"')
			break;
		if (c == '\0')
			tpl_perr_at(p, p->line, p->col,
				"a NUL byte in a string (the text cannot hold one)");
		if (c != '\\') {
			s[n++] = (char)c;
			tpl_advance(p);
			continue;
		}
		c = tpl_peek(p, 1);
		switch (c) {
		case 'n':  s[n++] = '\n'; break;
		case 't':  s[n++] = '\t'; break;
		case '\\': s[n++] = '\\'; break;
		case '"':  s[n++] = '"'; break;
		case 'x':
			h1 = ketw_hex_digit(tpl_peek(p, 2));
			h2 = ketw_hex_digit(tpl_peek(p, 3));
			if (h1 < 0 || h2 < 0)
				tpl_perr_at(p, p->line, p->col,
					"\\x takes two hex digits");
			if (!h1 && !h2)
				tpl_perr_at(p, p->line, p->col,
					"\\x00 would put a NUL in the text");
			s[n++] = (char)(h1 << 4 | h2);
			tpl_advance(p);
			tpl_advance(p);
			break;
		default:
			tpl_perr_at(p, p->line, p->col,
				"unknown escape (\\n, \\t, \\\\, \\\" and \\xHH are known)");
		}
		tpl_advance(p);
		tpl_advance(p);
	}
	tpl_advance(p);		/* the closing quote */
	s[n] = '\0';
	t->type = T_STR;
	t->str = s;
	t->slen = n;
}

static uint64_t lex_uint(struct parser *p, uint64_t max, const char *what)
{
	unsigned int line = p->line, col = p->col;
	uint64_t v = 0;
	int d;

	if (tpl_peek(p, 0) == '0' && (tpl_peek(p, 1) == 'x' || tpl_peek(p, 1) == 'X')) {
		tpl_advance(p);
		tpl_advance(p);
		if (ketw_hex_digit(tpl_peek(p, 0)) < 0)
			tpl_perr_at(p, line, col, "0x needs hex digits");
		while ((d = ketw_hex_digit(tpl_peek(p, 0))) >= 0) {
			if (v > (max - d) / 16)
				tpl_perr_at(p, line, col, "%s too large", what);
			v = v * 16 + d;
			tpl_advance(p);
		}
	} else {
		while (is_digit(d = tpl_peek(p, 0))) {
			d -= '0';
			if (v > (max - d) / 10)
				tpl_perr_at(p, line, col, "%s too large", what);
			v = v * 10 + d;
			tpl_advance(p);
		}
	}
	if (is_alnum(tpl_peek(p, 0)) || tpl_peek(p, 0) == '.')
		tpl_perr_at(p, line, col, "bad %s", what);
	return v;
}

#define CODE_LETTERS	"GORWABXDUQF"
#define CODE_MAX_BYTES	65536	/* a payload is shorter than this */

static void lex_code(struct parser *p)
{
	struct tok *t = &p->tok;
	uint64_t v = 0;
	int c;

	t->type = T_CODE;
	t->code.letter = (char)tpl_peek(p, 0);
	tpl_advance(p);
	while (is_digit(c = tpl_peek(p, 0))) {
		v = v * 10 + (c - '0');
		if (v > CODE_MAX_BYTES)
			tpl_perr_at(p, t->line, t->col, "'%c': size above %d",
				t->code.letter, CODE_MAX_BYTES);
		tpl_advance(p);
	}
	t->code.bytes = (uint32_t)v;
	t->code.bits = 0;
	if (tpl_peek(p, 0) == '.') {
		tpl_advance(p);
		if (!is_digit(tpl_peek(p, 0)))
			tpl_perr_at(p, t->line, t->col,
				"%c%u.: a bit count (0-7) must follow the dot",
				t->code.letter, t->code.bytes);
		c = tpl_peek(p, 0) - '0';
		tpl_advance(p);
		if (c > 7 || is_digit(tpl_peek(p, 0)))
			tpl_perr_at(p, t->line, t->col,
				"%c%u.: the bit count is 0-7", t->code.letter,
				t->code.bytes);
		t->code.bits = (uint32_t)c;
	}
	if (is_alnum(tpl_peek(p, 0)) || tpl_peek(p, 0) == '.')
		tpl_perr_at(p, t->line, t->col, "bad descriptor (a letter and a size, like U4 or G8.3)");
}

static void lex_dollar(struct parser *p)
{
	struct tok *t = &p->tok;
	size_t n = 0, i;
	bool hex = true;
	int c;

	tpl_advance(p);
	while (is_alnum(c = tpl_peek(p, 0))) {
		if (n + 1 >= TNAME_MAX)
			tpl_perr_at(p, t->line, t->col, "macro name too long");
		if (ketw_hex_digit(c) < 0)
			hex = false;
		t->name[n++] = (char)c;
		tpl_advance(p);
	}
	t->name[n] = '\0';
	t->fmt = 0;
	if (!n)
		tpl_perr_at(p, t->line, t->col, "'$' must be followed by a name");
	if (hex && (n == 3 || n == 4)) {
		t->type = T_CALL;
		t->id = 0;
		for (i = 0; i < n; i++)
			t->id = t->id * 16 + (uint32_t)ketw_hex_digit(t->name[i]);
		return;
	}
	if (is_digit(t->name[0]))
		tpl_perr_at(p, t->line, t->col,
			"$%s: a macro name starts with a letter (a call is 3 or 4 hex digits)",
			t->name);
	t->type = T_MACRO;
	if (tpl_peek(p, 0) == '%') {
		c = tpl_peek(p, 1);
		if ((c != 'D' && c != 'U' && c != 'X' && c != 'Q') ||
		    is_alnum(tpl_peek(p, 2)))
			tpl_perr_at(p, p->line, p->col,
				"a macro's format is %%D, %%U, %%X or %%Q");
		t->fmt = (char)c;
		tpl_advance(p);
		tpl_advance(p);
	}
}

static void lex_raw(struct parser *p)
{
	struct tok *t = &p->tok;
	size_t n = 0;
	int c;

	skip_blanks(p);
	t->line = p->line;
	t->col = p->col;
	t->str = NULL;
	c = tpl_peek(p, 0);
	if (c < 0) {
		t->type = T_EOF;
		return;
	}
	if (c == '"') {
		lex_string(p);
		return;
	}
	if (c == '$') {
		lex_dollar(p);
		return;
	}
	if (is_digit(c)) {
		t->type = T_NUM;
		t->num = lex_uint(p, UINT64_MAX, "number");
		return;
	}
	if (is_alpha(c)) {
		if (strchr(CODE_LETTERS, c) && is_digit(tpl_peek(p, 1))) {
			lex_code(p);
			return;
		}
		while (is_alnum(c = tpl_peek(p, 0))) {
			if (n + 1 >= TNAME_MAX)
				tpl_perr_at(p, t->line, t->col, "word too long");
			t->name[n++] = (char)c;
			tpl_advance(p);
		}
		t->name[n] = '\0';
		t->type = T_WORD;
		return;
	}
	switch (c) {
	case '{':
		t->type = T_LBRACE;
		if (tpl_peek(p, 1) == '{') {
			t->type = T_LL;
			tpl_advance(p);
		}
		break;
	case '}':
		t->type = T_RBRACE;
		if (tpl_peek(p, 1) == '}') {
			t->type = T_RR;
			tpl_advance(p);
		}
		break;
	case ',': t->type = T_COMMA; break;
	case '*': t->type = T_STAR; break;
	case '&': t->type = T_AMP; break;
	case '|': t->type = T_PIPE; break;
	case '=': t->type = T_EQ; break;
	case '+': t->type = T_PLUS; break;
	case '-': t->type = T_MINUS; break;
	case '/': t->type = T_DIV; break;
	case '(': t->type = T_LPAREN; break;
	case ')': t->type = T_RPAREN; break;
	case '\\':
		if (tpl_peek(p, 1) == '*') {
			t->type = T_DEFAULT;
			tpl_advance(p);
			break;
		}
		/* fall through */
	default:
		if (c > ' ' && c < 0x7f)
			tpl_perr_at(p, t->line, t->col, "unexpected character '%c'",
				c);
		tpl_perr_at(p, t->line, t->col, "unexpected byte 0x%02x", c);
	}
	tpl_advance(p);
}

void tpl_lex(struct parser *p)
{
	lex_raw(p);
	if (p->in_tmpl && p->tok.col == 1 && p->tok.type != T_EOF) {
		p->tok.saved = p->tok.type;
		p->tok.type = T_END;
	}
}

const char *tpl_tok_desc(const struct tok *t, char *buf, size_t len)
{
	static const char *const punct[] = {
		[T_LBRACE] = "'{'", [T_RBRACE] = "'}'", [T_LL] = "'{{'",
		[T_RR] = "'}}'", [T_COMMA] = "','", [T_STAR] = "'*'",
		[T_DEFAULT] = "'\\*'", [T_AMP] = "'&'", [T_PIPE] = "'|'",
		[T_EQ] = "'='", [T_PLUS] = "'+'", [T_MINUS] = "'-'",
		[T_DIV] = "'/'", [T_LPAREN] = "'('", [T_RPAREN] = "')'",
	};

	switch (t->type) {
	case T_EOF:
		return "the end of the file";
	case T_END:
		return "the end of the template (a line starting in column 1)";
	case T_NUM:
		snprintf(buf, len, "number %llu", (unsigned long long)t->num);
		return buf;
	case T_STR:
		return "a string";
	case T_CODE:
		if (t->code.bits)
			snprintf(buf, len, "'%c%u.%u'", t->code.letter,
				 t->code.bytes, t->code.bits);
		else
			snprintf(buf, len, "'%c%u'", t->code.letter,
				 t->code.bytes);
		return buf;
	case T_MACRO:
		snprintf(buf, len, "'$%s'", t->name);
		return buf;
	case T_CALL:
		snprintf(buf, len, "call '$%s'", t->name);
		return buf;
	case T_WORD:
		snprintf(buf, len, "'%s'", t->name);
		return buf;
	default:
		return punct[t->type];
	}
}

__attribute__((noreturn))
void tpl_perr_unexpected(struct parser *p, const char *wanted)
{
	char buf[TNAME_MAX + 16];

	if (wanted)
		tpl_perr(p, "expected %s, found %s", wanted,
		     tpl_tok_desc(&p->tok, buf, sizeof(buf)));
	tpl_perr(p, "unexpected %s", tpl_tok_desc(&p->tok, buf, sizeof(buf)));
}

void tpl_expect(struct parser *p, enum ttype type, const char *wanted)
{
	if (p->tok.type != type)
		tpl_perr_unexpected(p, wanted);
	tpl_lex(p);
}
