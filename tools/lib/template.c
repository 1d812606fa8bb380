// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: format templates (template.h; the language is described in
 * Documentation/ketw-templates.rst).
 *
 * Parsing turns each template into a list of descriptor nodes allocated
 * from an arena owned by the set (freed all at once; a syntax error
 * longjmp()s out of the recursive descent and leaves nothing to undo).
 * Evaluation walks the nodes over a payload with a bit-granular data
 * pointer; every read is checked against the payload's length, and steps,
 * loop counts, call depth and output are bounded.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "template.h"

/* ---- the parsed form ------------------------------------------------ */

/* A code as written: letter, bytes m and bits n of "Lm.n". */
struct tcode {
	char letter;
	uint32_t bytes;
	uint32_t bits;
};

enum texpr_op {
	TE_NUM, TE_MACRO, TE_CODE, TE_NEG,
	TE_ADD, TE_SUB, TE_MUL, TE_DIV, TE_AND, TE_OR,
};

struct texpr {
	enum texpr_op op;
	int64_t num;
	int macro;		/* >= 0: user macro; < 0: MB_* */
	struct tcode code;
	struct texpr *l, *r;
};

/* Built-in macros (negative indexes). */
enum {
	MB_V = -1, MB_POS = -2, MB_LEN = -3, MB_ID = -4, MB_VER = -5,
	MB_D1 = -6,		/* .. MB_D5 = -10 */
};

enum tnode_kind {
	TN_TEXT,		/* "string" */
	TN_MOVE,		/* G O R W */
	TN_OUT,			/* A B X D U Q F */
	TN_SET,			/* {{ $x = EXPR }} */
	TN_PRINT,		/* $x, $x%X */
	TN_CALL,		/* $0102 */
	TN_SWITCH,
	TN_LOOP,
	TN_BITFLAGS,
};

struct tnode;

struct tcase {
	bool dflt;
	int64_t match;
	struct tnode *body;
	struct tcase *next;
};

struct tflag {
	bool mask;		/* "& mask value" form */
	uint64_t m, v;
	const char *set, *clear;
	struct tflag *next;
};

struct tnode {
	enum tnode_kind kind;
	struct tnode *next;
	union {
		struct { const char *s; size_t n; } text;
		struct tcode code;
		struct { int macro; struct texpr *e; } set;
		struct { int macro; char fmt; } print;
		struct { uint32_t id; const struct ketw_template *tp; } call;
		struct { struct texpr *src; struct tcase *cases; } sw;
		struct { struct texpr *src; struct tnode *body; } loop;
		struct { struct texpr *src; struct tflag *flags; } bf;
	} u;
};

struct ketw_template {
	uint32_t id;
	enum ketw_template_column column;
	const char *label;
	size_t label_len;
	struct tnode *body;
	unsigned int line, col;	/* of its id, for messages */
	unsigned int order;	/* in the file */
};

struct tprov {
	char *name;		/* as written */
	bool bound;		/* guid is valid */
	bool by_guid;		/* written as a GUID */
	uint8_t guid[KETW_GUID_SIZE];
	struct ketw_template **tmpls;	/* sorted by id after parsing */
	size_t n, cap;
};

struct tchunk {
	struct tchunk *next;
	size_t used, size;
	alignas(max_align_t) unsigned char mem[];
};

struct ketw_templates {
	struct tprov *provs;
	unsigned int nprovs, capprovs;
	char **macros;
	unsigned int nmacros;
	unsigned int ntemplates;
	struct tchunk *arena;
};

#define TCHUNK_SIZE	65536

static void *tpl_alloc(struct ketw_templates *t, size_t size)
{
	struct tchunk *c = t->arena;
	size_t a = alignof(max_align_t), need;
	void *p;

	size = (size + a - 1) & ~(a - 1);
	if (!c || c->size - c->used < size) {
		need = size > TCHUNK_SIZE ? size : TCHUNK_SIZE;
		c = malloc(sizeof(*c) + need);
		if (!c)
			return NULL;
		c->size = need;
		c->used = 0;
		c->next = t->arena;
		t->arena = c;
	}
	p = c->mem + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

void ketw_templates_free(struct ketw_templates *t)
{
	struct tchunk *c, *n;
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nprovs; i++)
		free(t->provs[i].tmpls);
	free(t->provs);
	free(t->macros);	/* the names are in the arena */
	for (c = t->arena; c; c = n) {
		n = c->next;
		free(c);
	}
	free(t);
}

/* ---- lexer ----------------------------------------------------------- */

enum ttype {
	T_EOF, T_NUM, T_STR, T_CODE, T_MACRO, T_CALL, T_WORD,
	T_LBRACE, T_RBRACE, T_LL, T_RR, T_COMMA, T_STAR, T_DEFAULT,
	T_AMP, T_PIPE, T_EQ, T_PLUS, T_MINUS, T_DIV, T_LPAREN, T_RPAREN,
	T_END,			/* in a template: a token in column 1 */
};

#define TNAME_MAX	64

struct tok {
	enum ttype type;
	unsigned int line, col;
	uint64_t num;
	char *str;		/* T_STR: in the arena, NUL-terminated */
	size_t slen;
	struct tcode code;
	char name[TNAME_MAX];	/* T_WORD, T_MACRO (without '$') */
	char fmt;		/* T_MACRO: 0 or D U X Q */
	uint32_t id;		/* T_CALL */
	enum ttype saved;	/* T_END: the token's own type */
};

struct tcall_ref {
	struct tnode *node;
	unsigned int prov;
	unsigned int line, col;
};

struct parser {
	const char *s;
	size_t len, pos;
	unsigned int line, col;	/* of s[pos] */
	const char *file;
	struct ketw_templates *t;
	struct tok tok;
	int prov;		/* current provider, -1 before any */
	bool in_tmpl;		/* column 1 ends the template: T_END */
	unsigned int depth;	/* nested constructs */
	unsigned int edepth;	/* nested expressions */
	struct tcall_ref *calls;
	size_t ncalls, capcalls;
	char *err;
	size_t errlen;
	int code;		/* what longjmp() returns with */
	jmp_buf jb;
};

#define EXPR_MAX_DEPTH	64

__attribute__((format(printf, 4, 5), noreturn))
static void perr_at(struct parser *p, unsigned int line, unsigned int col,
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

#define perr(p, ...) perr_at((p), (p)->tok.line, (p)->tok.col, __VA_ARGS__)

__attribute__((noreturn))
static void poom(struct parser *p)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s: out of memory", p->file);
	p->code = -ENOMEM;
	longjmp(p->jb, 1);
}

static void *palloc(struct parser *p, size_t size)
{
	void *x = tpl_alloc(p->t, size);

	if (!x)
		poom(p);
	return x;
}

static int peek(const struct parser *p, size_t ahead)
{
	return p->pos + ahead < p->len ? (unsigned char)p->s[p->pos + ahead] :
					 -1;
}

static void advance(struct parser *p)
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

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void skip_blanks(struct parser *p)
{
	int c;

	while ((c = peek(p, 0)) >= 0) {
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
		    c == '\f' || c == '\v') {
			advance(p);
		} else if (c == '#') {
			while ((c = peek(p, 0)) >= 0 && c != '\n')
				advance(p);
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

	advance(p);		/* the quote */
	/* The decoded string is never longer than the source text. */
	start = p->pos;
	while (p->pos < p->len && p->s[p->pos] != '"' && p->s[p->pos] != '\n') {
		if (p->s[p->pos] == '\\' && p->pos + 1 < p->len)
			p->pos++;
		p->pos++;
	}
	cap = p->pos - start + 1;
	p->pos = start;
	s = palloc(p, cap);
	for (;;) {
		c = peek(p, 0);
		if (c < 0 || c == '\n')
			perr_at(p, t->line, t->col, "string not closed");
		if (c == '"')
			break;
		if (c == '\0')
			perr_at(p, p->line, p->col,
				"a NUL byte in a string (the text cannot hold one)");
		if (c != '\\') {
			s[n++] = (char)c;
			advance(p);
			continue;
		}
		c = peek(p, 1);
		switch (c) {
		case 'n':  s[n++] = '\n'; break;
		case 't':  s[n++] = '\t'; break;
		case '\\': s[n++] = '\\'; break;
		case '"':  s[n++] = '"'; break;
		case 'x':
			h1 = hexval(peek(p, 2));
			h2 = hexval(peek(p, 3));
			if (h1 < 0 || h2 < 0)
				perr_at(p, p->line, p->col,
					"\\x takes two hex digits");
			if (!h1 && !h2)
				perr_at(p, p->line, p->col,
					"\\x00 would put a NUL in the text");
			s[n++] = (char)(h1 << 4 | h2);
			advance(p);
			advance(p);
			break;
		default:
			perr_at(p, p->line, p->col,
				"unknown escape (\\n, \\t, \\\\, \\\" and \\xHH are known)");
		}
		advance(p);
		advance(p);
	}
	advance(p);		/* the closing quote */
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

	if (peek(p, 0) == '0' && (peek(p, 1) == 'x' || peek(p, 1) == 'X')) {
		advance(p);
		advance(p);
		if (hexval(peek(p, 0)) < 0)
			perr_at(p, line, col, "0x needs hex digits");
		while ((d = hexval(peek(p, 0))) >= 0) {
			if (v > (max - d) / 16)
				perr_at(p, line, col, "%s too large", what);
			v = v * 16 + d;
			advance(p);
		}
	} else {
		while (is_digit(d = peek(p, 0))) {
			d -= '0';
			if (v > (max - d) / 10)
				perr_at(p, line, col, "%s too large", what);
			v = v * 10 + d;
			advance(p);
		}
	}
	if (is_alnum(peek(p, 0)) || peek(p, 0) == '.')
		perr_at(p, line, col, "bad %s", what);
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
	t->code.letter = (char)peek(p, 0);
	advance(p);
	while (is_digit(c = peek(p, 0))) {
		v = v * 10 + (c - '0');
		if (v > CODE_MAX_BYTES)
			perr_at(p, t->line, t->col, "'%c': size above %d",
				t->code.letter, CODE_MAX_BYTES);
		advance(p);
	}
	t->code.bytes = (uint32_t)v;
	t->code.bits = 0;
	if (peek(p, 0) == '.') {
		advance(p);
		if (!is_digit(peek(p, 0)))
			perr_at(p, t->line, t->col,
				"%c%u.: a bit count (0-7) must follow the dot",
				t->code.letter, t->code.bytes);
		c = peek(p, 0) - '0';
		advance(p);
		if (c > 7 || is_digit(peek(p, 0)))
			perr_at(p, t->line, t->col,
				"%c%u.: the bit count is 0-7", t->code.letter,
				t->code.bytes);
		t->code.bits = (uint32_t)c;
	}
	if (is_alnum(peek(p, 0)) || peek(p, 0) == '.')
		perr_at(p, t->line, t->col, "bad descriptor (a letter and a size, like U4 or G8.3)");
}

static void lex_dollar(struct parser *p)
{
	struct tok *t = &p->tok;
	size_t n = 0, i;
	bool hex = true;
	int c;

	advance(p);
	while (is_alnum(c = peek(p, 0))) {
		if (n + 1 >= TNAME_MAX)
			perr_at(p, t->line, t->col, "macro name too long");
		if (hexval(c) < 0)
			hex = false;
		t->name[n++] = (char)c;
		advance(p);
	}
	t->name[n] = '\0';
	t->fmt = 0;
	if (!n)
		perr_at(p, t->line, t->col, "'$' must be followed by a name");
	if (hex && (n == 3 || n == 4)) {
		t->type = T_CALL;
		t->id = 0;
		for (i = 0; i < n; i++)
			t->id = t->id * 16 + (uint32_t)hexval(t->name[i]);
		return;
	}
	if (is_digit(t->name[0]))
		perr_at(p, t->line, t->col,
			"$%s: a macro name starts with a letter (a call is 3 or 4 hex digits)",
			t->name);
	t->type = T_MACRO;
	if (peek(p, 0) == '%') {
		c = peek(p, 1);
		if ((c != 'D' && c != 'U' && c != 'X' && c != 'Q') ||
		    is_alnum(peek(p, 2)))
			perr_at(p, p->line, p->col,
				"a macro's format is %%D, %%U, %%X or %%Q");
		t->fmt = (char)c;
		advance(p);
		advance(p);
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
	c = peek(p, 0);
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
		if (strchr(CODE_LETTERS, c) && is_digit(peek(p, 1))) {
			lex_code(p);
			return;
		}
		while (is_alnum(c = peek(p, 0))) {
			if (n + 1 >= TNAME_MAX)
				perr_at(p, t->line, t->col, "word too long");
			t->name[n++] = (char)c;
			advance(p);
		}
		t->name[n] = '\0';
		t->type = T_WORD;
		return;
	}
	switch (c) {
	case '{':
		t->type = T_LBRACE;
		if (peek(p, 1) == '{') {
			t->type = T_LL;
			advance(p);
		}
		break;
	case '}':
		t->type = T_RBRACE;
		if (peek(p, 1) == '}') {
			t->type = T_RR;
			advance(p);
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
		if (peek(p, 1) == '*') {
			t->type = T_DEFAULT;
			advance(p);
			break;
		}
		/* fall through */
	default:
		if (c > ' ' && c < 0x7f)
			perr_at(p, t->line, t->col, "unexpected character '%c'",
				c);
		perr_at(p, t->line, t->col, "unexpected byte 0x%02x", c);
	}
	advance(p);
}

static void lex(struct parser *p)
{
	lex_raw(p);
	if (p->in_tmpl && p->tok.col == 1 && p->tok.type != T_EOF) {
		p->tok.saved = p->tok.type;
		p->tok.type = T_END;
	}
}

static const char *tok_desc(const struct tok *t, char *buf, size_t len)
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
static void perr_unexpected(struct parser *p, const char *wanted)
{
	char buf[TNAME_MAX + 16];

	if (wanted)
		perr(p, "expected %s, found %s", wanted,
		     tok_desc(&p->tok, buf, sizeof(buf)));
	perr(p, "unexpected %s", tok_desc(&p->tok, buf, sizeof(buf)));
}

static void expect(struct parser *p, enum ttype type, const char *wanted)
{
	if (p->tok.type != type)
		perr_unexpected(p, wanted);
	lex(p);
}

/* ---- macros ---------------------------------------------------------- */

static int builtin_macro(const char *name)
{
	static const char *const names[] = {
		"V", "POS", "LEN", "ID", "VER", "D1", "D2", "D3", "D4", "D5",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return -1 - (int)i;
	return 0;
}

static int macro_index(struct parser *p)
{
	struct ketw_templates *t = p->t;
	unsigned int i;
	char **m;
	size_t n;
	int b = builtin_macro(p->tok.name);

	if (b)
		return b;
	for (i = 0; i < t->nmacros; i++)
		if (!strcmp(t->macros[i], p->tok.name))
			return (int)i;
	if (t->nmacros >= KETW_TEMPLATE_MAX_MACROS)
		perr(p, "more than %u macro names", KETW_TEMPLATE_MAX_MACROS);
	if (!(t->nmacros & (t->nmacros - 1))) {	/* 0, 1, 2, 4, ...: grow */
		m = realloc(t->macros, (t->nmacros ? 2 * t->nmacros : 1) *
			    sizeof(*m));
		if (!m)
			poom(p);
		t->macros = m;
	}
	n = strlen(p->tok.name) + 1;
	t->macros[t->nmacros] = palloc(p, n);
	memcpy(t->macros[t->nmacros], p->tok.name, n);
	return (int)t->nmacros++;
}

/* ---- expressions ----------------------------------------------------- */

static struct texpr *parse_expr(struct parser *p);

static bool value_code_ok(const struct tcode *c)
{
	switch (c->letter) {
	case 'D': case 'U': case 'X': case 'Q':
		return !c->bits && (c->bytes == 1 || c->bytes == 2 ||
				    c->bytes == 4 || c->bytes == 8);
	case 'B':
		return c->bytes * 8 + c->bits > 0 &&
		       c->bytes * 8 + c->bits <= 64;
	default:
		return false;
	}
}

static struct texpr *parse_primary(struct parser *p)
{
	struct texpr *e;

	if (++p->edepth > EXPR_MAX_DEPTH)
		perr(p, "expression nested too deeply (more than %d levels)",
		     EXPR_MAX_DEPTH);
	e = palloc(p, sizeof(*e));
	switch (p->tok.type) {
	case T_NUM:
		e->op = TE_NUM;
		e->num = (int64_t)p->tok.num;
		lex(p);
		break;
	case T_MACRO:
		if (p->tok.fmt)
			perr(p, "a macro in an expression takes no format");
		e->op = TE_MACRO;
		e->macro = macro_index(p);
		lex(p);
		break;
	case T_CODE:
		if (!value_code_ok(&p->tok.code))
			perr(p, "a value here is read with D, U, X or Q of 1, 2, 4 or 8 bytes, or B of 1 to 64 bits");
		e->op = TE_CODE;
		e->code = p->tok.code;
		lex(p);
		break;
	case T_MINUS:
		lex(p);
		e->op = TE_NEG;
		e->l = parse_primary(p);
		break;
	case T_LPAREN:
		lex(p);
		e = parse_expr(p);
		expect(p, T_RPAREN, "')'");
		break;
	default:
		perr_unexpected(p, "a number, a $macro, a value code or '('");
	}
	p->edepth--;
	return e;
}

static struct texpr *binop(struct parser *p, enum texpr_op op,
			   struct texpr *l, struct texpr *r)
{
	struct texpr *e = palloc(p, sizeof(*e));

	e->op = op;
	e->l = l;
	e->r = r;
	return e;
}

static struct texpr *parse_mul(struct parser *p)
{
	struct texpr *e = parse_primary(p);
	enum texpr_op op;

	while (p->tok.type == T_STAR || p->tok.type == T_DIV) {
		op = p->tok.type == T_STAR ? TE_MUL : TE_DIV;
		lex(p);
		e = binop(p, op, e, parse_primary(p));
	}
	return e;
}

static struct texpr *parse_add(struct parser *p)
{
	struct texpr *e = parse_mul(p);
	enum texpr_op op;

	while (p->tok.type == T_PLUS || p->tok.type == T_MINUS) {
		op = p->tok.type == T_PLUS ? TE_ADD : TE_SUB;
		lex(p);
		e = binop(p, op, e, parse_mul(p));
	}
	return e;
}

static struct texpr *parse_and(struct parser *p)
{
	struct texpr *e = parse_add(p);

	while (p->tok.type == T_AMP) {
		lex(p);
		e = binop(p, TE_AND, e, parse_add(p));
	}
	return e;
}

static struct texpr *parse_expr(struct parser *p)
{
	struct texpr *e;

	if (++p->edepth > EXPR_MAX_DEPTH)
		perr(p, "expression nested too deeply (more than %d levels)",
		     EXPR_MAX_DEPTH);
	e = parse_and(p);
	while (p->tok.type == T_PIPE) {
		lex(p);
		e = binop(p, TE_OR, e, parse_and(p));
	}
	p->edepth--;
	return e;
}

/* ---- descriptors ----------------------------------------------------- */

static struct tnode *parse_seq(struct parser *p, bool nested);

static struct tnode *new_node(struct parser *p, enum tnode_kind kind)
{
	struct tnode *n = palloc(p, sizeof(*n));

	n->kind = kind;
	return n;
}

static void check_code(struct parser *p)
{
	const struct tcode *c = &p->tok.code;
	char l = c->letter;

	switch (l) {
	case 'G': case 'O': case 'R':
		return;
	case 'W':
		if (c->bits || !c->bytes)
			perr(p, "W takes a word number from 1 (W1 is byte 0)");
		return;
	case 'A':
	case 'X':
		if (c->bits)
			perr(p, "%c counts whole bytes", l);
		return;
	case 'B':
		if (!c->bytes && !c->bits)
			perr(p, "B0 reads nothing (B0.4 is four bits)");
		return;
	case 'D': case 'U': case 'Q':
		if (c->bits || (c->bytes != 1 && c->bytes != 2 &&
				c->bytes != 4 && c->bytes != 8))
			perr(p, "%c takes 1, 2, 4 or 8 bytes", l);
		return;
	case 'F':
		if (c->bits || (c->bytes != 4 && c->bytes != 8))
			perr(p, "F takes 4 or 8 bytes");
		return;
	}
}

static unsigned int open_brace(struct parser *p, unsigned int *col)
{
	unsigned int line = p->tok.line;

	*col = p->tok.col;
	expect(p, T_LBRACE, "'{'");
	return line;
}

static void close_brace(struct parser *p, unsigned int line, unsigned int col)
{
	char buf[TNAME_MAX + 16];

	if (p->tok.type != T_RBRACE) {
		if (p->tok.type == T_EOF || p->tok.type == T_END)
			perr_at(p, line, col, "'{' is not closed");
		perr(p, "expected '}' to close the '{' at %u:%u, found %s",
		     line, col, tok_desc(&p->tok, buf, sizeof(buf)));
	}
	lex(p);
}

static struct tnode *parse_block(struct parser *p)
{
	unsigned int line, col;
	struct tnode *body;

	line = open_brace(p, &col);
	body = parse_seq(p, true);
	close_brace(p, line, col);
	return body;
}

static void enter(struct parser *p)
{
	if (++p->depth > KETW_TEMPLATE_MAX_DEPTH)
		perr(p, "SWITCH, LOOP and BITFLAGS nested too deeply (more than %d levels)",
		     KETW_TEMPLATE_MAX_DEPTH);
}

static struct tnode *parse_switch(struct parser *p)
{
	struct tnode *n = new_node(p, TN_SWITCH);
	struct tcase **tail = &n->u.sw.cases, *c;
	bool have_default = false;

	enter(p);
	lex(p);
	n->u.sw.src = parse_primary(p);
	expect(p, T_COMMA, "',' after the SWITCH's value");
	for (;;) {
		c = palloc(p, sizeof(*c));
		if (p->tok.type == T_DEFAULT || p->tok.type == T_STAR) {
			if (have_default)
				perr(p, "a second default case");
			have_default = true;
			c->dflt = true;
			lex(p);
		} else if (p->tok.type == T_MINUS) {
			lex(p);
			if (p->tok.type != T_NUM)
				perr_unexpected(p, "a number");
			c->match = (int64_t)(0 - p->tok.num);
			lex(p);
		} else if (p->tok.type == T_NUM) {
			c->match = (int64_t)p->tok.num;
			lex(p);
		} else {
			perr_unexpected(p, "a case: a number or \\*");
		}
		c->body = parse_block(p);
		*tail = c;
		tail = &c->next;
		if (p->tok.type != T_COMMA)
			break;
		lex(p);
	}
	p->depth--;
	return n;
}

static struct tnode *parse_loop(struct parser *p)
{
	struct tnode *n = new_node(p, TN_LOOP);

	enter(p);
	lex(p);
	n->u.loop.src = parse_primary(p);
	n->u.loop.body = parse_block(p);
	p->depth--;
	return n;
}

static const char *take_string(struct parser *p, const char *wanted)
{
	const char *s;

	if (p->tok.type != T_STR)
		perr_unexpected(p, wanted);
	s = p->tok.str;
	lex(p);
	return s;
}

static struct tnode *parse_bitflags(struct parser *p)
{
	struct tnode *n = new_node(p, TN_BITFLAGS);
	struct tflag **tail = &n->u.bf.flags, *f;

	enter(p);
	lex(p);
	n->u.bf.src = parse_primary(p);
	expect(p, T_COMMA, "',' after the BITFLAGS' value");
	for (;;) {
		f = palloc(p, sizeof(*f));
		if (p->tok.type == T_AMP) {
			f->mask = true;
			lex(p);
			if (p->tok.type != T_NUM)
				perr_unexpected(p, "a mask after '&'");
			f->m = p->tok.num;
			lex(p);
			if (p->tok.type != T_NUM)
				perr_unexpected(p, "the value under the mask");
			f->v = p->tok.num;
			if (f->v & ~f->m)
				perr(p, "value 0x%llx has bits outside mask 0x%llx",
				     (unsigned long long)f->v,
				     (unsigned long long)f->m);
			lex(p);
			f->set = take_string(p, "the string of the value");
		} else if (p->tok.type == T_NUM) {
			f->m = p->tok.num;
			if (!f->m)
				perr(p, "flag 0 is never set");
			lex(p);
			f->set = take_string(p, "the string of the flag when set");
			if (p->tok.type == T_STR)
				f->clear = take_string(p, NULL);
		} else {
			perr_unexpected(p, "a flag or '& mask value'");
		}
		*tail = f;
		tail = &f->next;
		if (p->tok.type != T_COMMA)
			break;
		lex(p);
	}
	p->depth--;
	return n;
}

static struct tnode *parse_item(struct parser *p)
{
	struct tcall_ref *r;
	struct tnode *n;
	size_t cap;

	switch (p->tok.type) {
	case T_STR:
		n = new_node(p, TN_TEXT);
		n->u.text.s = p->tok.str;
		n->u.text.n = p->tok.slen;
		lex(p);
		return n;
	case T_CODE:
		check_code(p);
		n = new_node(p, strchr("GORW", p->tok.code.letter) ? TN_MOVE :
								   TN_OUT);
		n->u.code = p->tok.code;
		lex(p);
		return n;
	case T_LL:
		n = new_node(p, TN_SET);
		lex(p);
		if (p->tok.type != T_MACRO || p->tok.fmt)
			perr_unexpected(p, "'$name =' after '{{'");
		n->u.set.macro = macro_index(p);
		if (n->u.set.macro < 0)
			perr(p, "$%s is built in: it cannot be assigned",
			     p->tok.name);
		lex(p);
		expect(p, T_EQ, "'='");
		n->u.set.e = parse_expr(p);
		expect(p, T_RR, "'}}' or an operator");
		return n;
	case T_MACRO:
		n = new_node(p, TN_PRINT);
		n->u.print.macro = macro_index(p);
		n->u.print.fmt = p->tok.fmt ? p->tok.fmt : 'D';
		lex(p);
		return n;
	case T_CALL:
		n = new_node(p, TN_CALL);
		n->u.call.id = p->tok.id;
		if (p->ncalls == p->capcalls) {
			cap = p->capcalls ? 2 * p->capcalls : 16;
			r = realloc(p->calls, cap * sizeof(*r));
			if (!r)
				poom(p);
			p->calls = r;
			p->capcalls = cap;
		}
		r = &p->calls[p->ncalls++];
		r->node = n;
		r->prov = (unsigned int)p->prov;
		r->line = p->tok.line;
		r->col = p->tok.col;
		lex(p);
		return n;
	case T_WORD:
		if (!strcmp(p->tok.name, "SWITCH"))
			return parse_switch(p);
		if (!strcmp(p->tok.name, "LOOP"))
			return parse_loop(p);
		if (!strcmp(p->tok.name, "BITFLAGS"))
			return parse_bitflags(p);
		perr(p, "unknown descriptor '%s'", p->tok.name);
	default:
		perr_unexpected(p, NULL);
	}
}

/*
 * Descriptors up to the end of the template (a token in column 1) or, in
 * braces, up to the '}'.
 */
static struct tnode *parse_seq(struct parser *p, bool nested)
{
	struct tnode *head = NULL, **tail = &head;

	for (;;) {
		if (p->tok.type == T_EOF || p->tok.type == T_END)
			break;
		if (nested && p->tok.type == T_RBRACE)
			break;
		*tail = parse_item(p);
		tail = &(*tail)->next;
	}
	return head;
}

/* ---- templates and providers ---------------------------------------- */

static void parse_provider(struct parser *p)
{
	struct ketw_templates *t = p->t;
	unsigned int line = p->tok.line, col, i;
	uint8_t guid[KETW_GUID_SIZE];
	char text[KETW_GUID_STR_LEN];
	struct tprov *pv;
	size_t start, n;
	bool by_guid;
	int c;

	/* The name is raw text up to a blank: a GUID is not a token. */
	while ((c = peek(p, 0)) == ' ' || c == '\t')
		advance(p);
	col = p->col;
	start = p->pos;
	while ((c = peek(p, 0)) > ' ' && c != '#' && c != 0x7f)
		advance(p);
	n = p->pos - start;
	if (!n)
		perr_at(p, line, col, "'provider' needs a name or a GUID");
	by_guid = false;
	if (n == KETW_GUID_STR_LEN - 1) {
		memcpy(text, p->s + start, n);
		text[n] = '\0';
		by_guid = !ketw_guid_parse(text, guid);
	}
	if (!by_guid && n >= KETW_NAME_MAX)
		perr_at(p, line, col, "provider name longer than %d characters",
			KETW_NAME_MAX - 1);
	for (i = 0; i < t->nprovs; i++) {
		pv = &t->provs[i];
		if (strlen(pv->name) == n && !memcmp(pv->name, p->s + start, n))
			break;
		if (by_guid && pv->by_guid && !memcmp(pv->guid, guid, sizeof(guid)))
			break;
	}
	if (i == t->nprovs) {
		if (t->nprovs == t->capprovs) {
			unsigned int cap = t->capprovs ? 2 * t->capprovs : 4;

			pv = realloc(t->provs, cap * sizeof(*pv));
			if (!pv)
				poom(p);
			t->provs = pv;
			t->capprovs = cap;
		}
		pv = &t->provs[t->nprovs];
		memset(pv, 0, sizeof(*pv));
		pv->name = palloc(p, n + 1);
		memcpy(pv->name, p->s + start, n);
		pv->name[n] = '\0';
		pv->by_guid = by_guid;
		pv->bound = by_guid;
		if (by_guid)
			memcpy(pv->guid, guid, sizeof(guid));
		t->nprovs++;
	}
	p->prov = (int)i;
	lex(p);
	if (p->tok.type != T_EOF && p->tok.col != 1)
		perr_unexpected(p, "the end of the line after the provider");
}

static void parse_template(struct parser *p)
{
	struct ketw_templates *t = p->t;
	struct ketw_template *tp, **v;
	struct tprov *pv;
	size_t cap;

	if (p->tok.num > UINT32_MAX)
		perr(p, "event id above 0xffffffff");
	if (p->prov < 0)
		perr(p, "a template before any 'provider' line");
	tp = palloc(p, sizeof(*tp));
	tp->id = (uint32_t)p->tok.num;
	tp->line = p->tok.line;
	tp->col = p->tok.col;
	tp->order = t->ntemplates;
	tp->column = KETW_TEMPLATE_APPL;
	p->in_tmpl = true;
	lex(p);
	if (p->tok.type == T_WORD && !strcmp(p->tok.name, "L")) {
		lex(p);
		expect(p, T_EQ, "'=' after L");
		if (p->tok.type != T_WORD)
			perr_unexpected(p, "APPL, SVC, KERN or INT");
		if (!strcmp(p->tok.name, "APPL"))
			tp->column = KETW_TEMPLATE_APPL;
		else if (!strcmp(p->tok.name, "SVC"))
			tp->column = KETW_TEMPLATE_SVC;
		else if (!strcmp(p->tok.name, "KERN"))
			tp->column = KETW_TEMPLATE_KERN;
		else if (!strcmp(p->tok.name, "INT"))
			tp->column = KETW_TEMPLATE_INT;
		else
			perr(p, "L= takes APPL, SVC, KERN or INT, not '%s'",
			     p->tok.name);
		lex(p);
	}
	if (p->tok.type != T_STR)
		perr_unexpected(p, "the template's label (a string)");
	tp->label = p->tok.str;
	tp->label_len = p->tok.slen;
	lex(p);
	tp->body = parse_seq(p, false);
	p->in_tmpl = false;
	if (p->tok.type == T_END)
		p->tok.type = p->tok.saved;

	pv = &t->provs[p->prov];
	if (pv->n == pv->cap) {
		cap = pv->cap ? 2 * pv->cap : 16;
		v = realloc(pv->tmpls, cap * sizeof(*v));
		if (!v)
			poom(p);
		pv->tmpls = v;
		pv->cap = cap;
	}
	pv->tmpls[pv->n++] = tp;
	t->ntemplates++;
}

static int tmpl_cmp(const void *a, const void *b)
{
	const struct ketw_template *x = *(const struct ketw_template *const *)a;
	const struct ketw_template *y = *(const struct ketw_template *const *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const struct ketw_template *prov_find(const struct tprov *pv,
					     uint32_t id)
{
	size_t lo = 0, hi = pv->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pv->tmpls[mid]->id == id)
			return pv->tmpls[mid];
		if (pv->tmpls[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Sort, refuse duplicates, resolve calls. */
static void parse_finish(struct parser *p)
{
	struct ketw_templates *t = p->t;
	const struct ketw_template *a, *b;
	struct tcall_ref *r;
	struct tprov *pv;
	unsigned int i;
	size_t k;

	for (i = 0; i < t->nprovs; i++) {
		pv = &t->provs[i];
		if (pv->n > 1)
			qsort(pv->tmpls, pv->n, sizeof(*pv->tmpls), tmpl_cmp);
		for (k = 1; k < pv->n; k++) {
			a = pv->tmpls[k - 1];
			b = pv->tmpls[k];
			if (a->id == b->id)
				perr_at(p, b->line, b->col,
					"event %u (0x%x) of provider %s already has a template (line %u)",
					b->id, b->id, pv->name, a->line);
		}
	}
	for (k = 0; k < p->ncalls; k++) {
		r = &p->calls[k];
		pv = &t->provs[r->prov];
		r->node->u.call.tp = prov_find(pv, r->node->u.call.id);
		if (!r->node->u.call.tp)
			perr_at(p, r->line, r->col,
				"no template for event 0x%x of provider %s to call",
				r->node->u.call.id, pv->name);
	}
}

/* The parse proper: errors longjmp() back here. */
static int parse_run(struct parser *p)
{
	if (setjmp(p->jb))
		return p->code;
	if (p->len > KETW_TEMPLATE_MAX_FILE)
		perr_at(p, 1, 1, "larger than %u bytes", KETW_TEMPLATE_MAX_FILE);
	lex(p);
	while (p->tok.type != T_EOF) {
		if (p->tok.col != 1)
			perr(p, "a provider line or a template starts in column 1 (continuation lines are indented)");
		if (p->tok.type == T_WORD && !strcmp(p->tok.name, "provider"))
			parse_provider(p);
		else if (p->tok.type == T_NUM)
			parse_template(p);
		else
			perr_unexpected(p, "'provider' or an event id");
	}
	parse_finish(p);
	return 0;
}

int ketw_templates_parse(const char *text, size_t len, const char *file,
			 struct ketw_templates **out, char *err, size_t errlen)
{
	struct parser *p;
	struct ketw_templates *t;
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	t = calloc(1, sizeof(*t));
	p = calloc(1, sizeof(*p));
	if (!t || !p) {
		free(t);
		free(p);
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory",
				 file ? file : "<template>");
		return -ENOMEM;
	}
	p->s = text;
	p->len = len;
	p->line = 1;
	p->col = 1;
	p->file = file ? file : "<template>";
	p->t = t;
	p->prov = -1;
	p->err = err;
	p->errlen = errlen;
	ret = parse_run(p);
	free(p->calls);
	free(p);
	if (ret) {
		ketw_templates_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int ketw_templates_load(const char *path, struct ketw_templates **out,
			char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t done = 0;
	ssize_t r;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		goto out_err;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		if (err && errlen)
			snprintf(err, errlen, "%s: not a regular file", path);
		goto out_close;
	}
	if ((uint64_t)st.st_size > KETW_TEMPLATE_MAX_FILE) {
		ret = -EFBIG;
		if (err && errlen)
			snprintf(err, errlen, "%s: larger than %u bytes", path,
				 KETW_TEMPLATE_MAX_FILE);
		goto out_close;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out_err;
	}
	while (done < (size_t)st.st_size) {
		r = read(fd, buf + done, st.st_size - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto out_err;
		}
		if (!r)
			break;
		done += r;
	}
	close(fd);
	ret = ketw_templates_parse(buf, done, path, out, err, errlen);
	free(buf);
	return ret;

out_err:
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
out_close:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

unsigned int ketw_templates_nr_providers(const struct ketw_templates *t)
{
	return t->nprovs;
}

const char *ketw_templates_provider(const struct ketw_templates *t,
				    unsigned int i)
{
	return i < t->nprovs ? t->provs[i].name : NULL;
}

bool ketw_templates_provider_bound(const struct ketw_templates *t,
				   unsigned int i)
{
	return i < t->nprovs && t->provs[i].bound;
}

unsigned int ketw_templates_nr_templates(const struct ketw_templates *t)
{
	return t->ntemplates;
}

const struct ketw_template *
ketw_templates_template(const struct ketw_templates *t, unsigned int prov,
			unsigned int i)
{
	if (prov >= t->nprovs || i >= t->provs[prov].n)
		return NULL;
	return t->provs[prov].tmpls[i];
}

int ketw_templates_bind(struct ketw_templates *t, const char *name,
			const uint8_t guid[KETW_GUID_SIZE])
{
	unsigned int i;

	for (i = 0; i < t->nprovs; i++) {
		if (t->provs[i].by_guid || strcmp(t->provs[i].name, name))
			continue;
		memcpy(t->provs[i].guid, guid, KETW_GUID_SIZE);
		t->provs[i].bound = true;
		return 1;
	}
	return 0;
}

int ketw_templates_bind_input(struct ketw_templates *t, struct ketw_input *in)
{
	struct ketw_sys_provider prov;
	char name[KETW_NAME_MAX + 1];
	struct ketw_record rec;
	unsigned int i;
	int n = 0;

	ketw_input_rewind(in);
	while (ketw_input_next(in, &rec) > 0) {
		if (!(rec.hdr->flags & KETW_RECORD_SYSTEM) ||
		    rec.hdr->event_id != KETW_SYS_PROVIDER ||
		    rec.data_len < sizeof(prov))
			continue;
		memcpy(&prov, rec.data, sizeof(prov));
		memcpy(name, prov.name, KETW_NAME_MAX);
		name[KETW_NAME_MAX] = '\0';
		ketw_templates_bind(t, name, prov.provider_guid);
	}
	ketw_input_rewind(in);
	for (i = 0; i < t->nprovs; i++)
		n += !t->provs[i].by_guid && t->provs[i].bound;
	return n;
}

const struct ketw_template *
ketw_templates_find(const struct ketw_templates *t,
		    const uint8_t guid[KETW_GUID_SIZE], uint32_t id)
{
	unsigned int i;

	for (i = 0; i < t->nprovs; i++)
		if (t->provs[i].bound &&
		    !memcmp(t->provs[i].guid, guid, KETW_GUID_SIZE))
			return prov_find(&t->provs[i], id);
	return NULL;
}

uint32_t ketw_template_id(const struct ketw_template *tp)
{
	return tp->id;
}

const char *ketw_template_label(const struct ketw_template *tp)
{
	return tp->label;
}

enum ketw_template_column ketw_template_column(const struct ketw_template *tp)
{
	return tp->column;
}

/* ---- evaluation ------------------------------------------------------ */

struct teval {
	const unsigned char *d;
	size_t len;
	uint64_t pos;		/* in bits */
	bool swapped;
	int64_t v;
	int64_t *m;
	int64_t words[5];
	uint32_t id;
	unsigned int version;
	unsigned int depth;
	uint64_t steps;
	struct ketw_template_buf *out;
};

#define EV_STOP	1

void ketw_template_buf_free(struct ketw_template_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static int buf_put(struct ketw_template_buf *b, const char *s, size_t n)
{
	size_t cap;
	char *x;

	if (b->cap - b->len <= n) {
		cap = b->cap ? b->cap : 256;
		while (cap - b->len <= n)
			cap *= 2;
		x = realloc(b->s, cap);
		if (!x)
			return -ENOMEM;
		b->s = x;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* End the record's decoding with a message. */
static int stop(struct teval *e, const char *msg)
{
	int err = buf_put(e->out, msg, strlen(msg));

	return err ? err : EV_STOP;
}

static int emit(struct teval *e, const char *s, size_t n)
{
	size_t room = KETW_TEMPLATE_MAX_OUTPUT - e->out->len;
	int err;

	if (e->out->len + n > KETW_TEMPLATE_MAX_OUTPUT) {
		if (e->out->len < KETW_TEMPLATE_MAX_OUTPUT) {
			err = buf_put(e->out, s, room);
			if (err)
				return err;
		}
		return stop(e, "<output truncated>");
	}
	return buf_put(e->out, s, n);
}

__attribute__((format(printf, 2, 3)))
static int emitf(struct teval *e, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return emit(e, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n :
			 sizeof(buf) - 1);
}

static int step(struct teval *e)
{
	if (++e->steps > KETW_TEMPLATE_MAX_STEPS)
		return stop(e, "<too many steps>");
	return 0;
}

/* The next @n bytes, from the next byte boundary. */
static int take_bytes(struct teval *e, size_t n, const unsigned char **pp)
{
	uint64_t pos = (e->pos + 7) & ~(uint64_t)7;

	if (pos / 8 > e->len || n > e->len - pos / 8)
		return stop(e, "<short>");
	*pp = e->d + pos / 8;
	e->pos = pos + 8 * (uint64_t)n;
	return 0;
}

static uint64_t load(const struct teval *e, const unsigned char *p,
		     unsigned int n)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return e->swapped ? bswap_16(v16) : v16;
	case 4:
		memcpy(&v32, p, 4);
		return e->swapped ? bswap_32(v32) : v32;
	default:
		memcpy(&v64, p, 8);
		return e->swapped ? bswap_64(v64) : v64;
	}
}

static int64_t sign_extend(uint64_t v, unsigned int bytes)
{
	switch (bytes) {
	case 1: return (int8_t)v;
	case 2: return (int16_t)v;
	case 4: return (int32_t)v;
	default: return (int64_t)v;
	}
}

static int bit_at(const struct teval *e, uint64_t b)
{
	return (e->d[b / 8] >> (7 - b % 8)) & 1;
}

/* Read a value code (D U X Q, B of at most 64 bits) into *@v. */
static int read_value(struct teval *e, const struct tcode *c, int64_t *v)
{
	const unsigned char *p;
	uint64_t nbits, x = 0, i;
	int err;

	if (c->letter == 'B') {
		nbits = 8 * (uint64_t)c->bytes + c->bits;
		if (nbits > (uint64_t)e->len * 8 - e->pos)
			return stop(e, "<short>");
		for (i = 0; i < nbits; i++)
			x = x << 1 | (uint64_t)bit_at(e, e->pos + i);
		e->pos += nbits;
		*v = (int64_t)x;
		return 0;
	}
	err = take_bytes(e, c->bytes, &p);
	if (err)
		return err;
	x = load(e, p, c->bytes);
	*v = c->letter == 'D' ? sign_extend(x, c->bytes) : (int64_t)x;
	return 0;
}

static int64_t macro_get(const struct teval *e, int m)
{
	if (m >= 0)
		return e->m[m];
	switch (m) {
	case MB_V:   return e->v;
	case MB_POS: return (int64_t)(e->pos / 8);
	case MB_LEN: return (int64_t)e->len;
	case MB_ID:  return (int64_t)e->id;
	case MB_VER: return (int64_t)e->version;
	default:     return e->words[MB_D1 - m];
	}
}

static int eval_expr(struct teval *e, const struct texpr *x, int64_t *out)
{
	uint64_t a, b;
	int64_t l, r;
	int err;

	err = step(e);
	if (err)
		return err;
	switch (x->op) {
	case TE_NUM:
		*out = x->num;
		return 0;
	case TE_MACRO:
		*out = macro_get(e, x->macro);
		return 0;
	case TE_CODE:
		return read_value(e, &x->code, out);
	case TE_NEG:
		err = eval_expr(e, x->l, &l);
		if (!err)
			*out = (int64_t)(0 - (uint64_t)l);
		return err;
	default:
		break;
	}
	err = eval_expr(e, x->l, &l);
	if (!err)
		err = eval_expr(e, x->r, &r);
	if (err)
		return err;
	/* Two's complement, wrapping: computed unsigned, no overflow. */
	a = (uint64_t)l;
	b = (uint64_t)r;
	switch (x->op) {
	case TE_ADD: *out = (int64_t)(a + b); break;
	case TE_SUB: *out = (int64_t)(a - b); break;
	case TE_MUL: *out = (int64_t)(a * b); break;
	case TE_AND: *out = (int64_t)(a & b); break;
	case TE_OR:  *out = (int64_t)(a | b); break;
	default:	/* TE_DIV */
		if (!r)
			return stop(e, "<division by zero>");
		if (r == -1)
			*out = (int64_t)(0 - a);	/* INT64_MIN / -1 wraps */
		else
			*out = l / r;
		break;
	}
	return 0;
}

static int exec(struct teval *e, const struct tnode *n);

static int out_ascii(struct teval *e, const struct tcode *c)
{
	const unsigned char *p;
	size_t n, i, start;
	char buf[8];
	int err;

	if (c->bytes) {
		err = take_bytes(e, c->bytes, &p);
		if (err)
			return err;
		n = strnlen((const char *)p, c->bytes);
	} else {
		/* To the NUL (passed over) or the end of the payload. */
		err = take_bytes(e, 0, &p);
		if (err)
			return err;
		start = e->pos / 8;
		n = strnlen((const char *)p, e->len - start);
		e->pos = 8 * (uint64_t)(start + n + (start + n < e->len));
	}
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			err = emit(e, (const char *)p + i, 1);
		} else {
			snprintf(buf, sizeof(buf), "\\x%02x", p[i]);
			err = emit(e, buf, 4);
		}
		if (err)
			return err;
	}
	return 0;
}

static int out_bits(struct teval *e, const struct tcode *c)
{
	uint64_t nbits = 8 * (uint64_t)c->bytes + c->bits, i, x = 0;
	char bit;
	int err;

	if (nbits > (uint64_t)e->len * 8 - e->pos)
		return stop(e, "<short>");
	for (i = 0; i < nbits; i++) {
		bit = (char)('0' + bit_at(e, e->pos + i));
		x = x << 1 | (uint64_t)(bit - '0');
		err = emit(e, &bit, 1);
		if (err)
			return err;
	}
	e->pos += nbits;
	e->v = (int64_t)x;
	return 0;
}

static int out_hex(struct teval *e, const struct tcode *c)
{
	const unsigned char *p;
	size_t n = c->bytes, i;
	uint64_t start;
	int err;

	if (n == 1 || n == 2 || n == 4 || n == 8) {
		err = take_bytes(e, n, &p);
		if (err)
			return err;
		e->v = (int64_t)load(e, p, n);
		return emitf(e, "%0*llx", (int)(2 * n),
			     (unsigned long long)e->v);
	}
	if (!n) {		/* X0: the rest of the payload */
		start = (e->pos + 7) / 8;
		n = start <= e->len ? e->len - start : 0;
	}
	err = take_bytes(e, n, &p);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		err = emitf(e, "%02x", p[i]);
		if (err)
			return err;
	}
	return 0;
}

static int out_float(struct teval *e, const struct tcode *c)
{
	const unsigned char *p;
	uint64_t x;
	uint32_t x32;
	double d;
	float f;
	int err;

	err = take_bytes(e, c->bytes, &p);
	if (err)
		return err;
	x = load(e, p, c->bytes);
	if (c->bytes == 4) {
		x32 = (uint32_t)x;
		memcpy(&f, &x32, sizeof(f));
		d = f;
	} else {
		memcpy(&d, &x, sizeof(d));
	}
	return emitf(e, "%g", d);
}

static int out_code(struct teval *e, const struct tcode *c)
{
	int64_t v;
	int err;

	switch (c->letter) {
	case 'A':
		return out_ascii(e, c);
	case 'B':
		return out_bits(e, c);
	case 'X':
		return out_hex(e, c);
	case 'F':
		return out_float(e, c);
	default:
		break;
	}
	err = read_value(e, c, &v);
	if (err)
		return err;
	e->v = v;
	if (c->letter == 'D')
		return emitf(e, "%lld", (long long)v);
	if (c->letter == 'Q')
		return emitf(e, "%llo", (unsigned long long)v);
	return emitf(e, "%llu", (unsigned long long)v);
}

static int move(struct teval *e, const struct tcode *c)
{
	uint64_t delta = 8 * (uint64_t)c->bytes + c->bits, to;

	switch (c->letter) {
	case 'G':
		to = delta;
		break;
	case 'O':
		to = e->pos + delta;
		break;
	case 'R':
		if (delta > e->pos)
			return stop(e, "<before start>");
		to = e->pos - delta;
		break;
	default:		/* W: 64-bit word m, from 1 */
		to = 64 * ((uint64_t)c->bytes - 1);
		break;
	}
	if (to > 8 * (uint64_t)e->len)
		return stop(e, "<short>");
	e->pos = to;
	return 0;
}

static int print_macro(struct teval *e, int m, char fmt)
{
	int64_t v = macro_get(e, m);

	switch (fmt) {
	case 'U': return emitf(e, "%llu", (unsigned long long)v);
	case 'X': return emitf(e, "%llx", (unsigned long long)v);
	case 'Q': return emitf(e, "%llo", (unsigned long long)v);
	default:  return emitf(e, "%lld", (long long)v);
	}
}

static int call(struct teval *e, const struct ketw_template *tp)
{
	int err;

	if (e->depth >= KETW_TEMPLATE_MAX_NESTING)
		return stop(e, "<calls nested deeper than 10>");
	e->depth++;
	err = exec(e, tp->body);
	e->depth--;
	return err;
}

static int do_switch(struct teval *e, const struct tnode *n)
{
	const struct tcase *c, *dflt = NULL;
	int64_t v;
	int err;

	err = eval_expr(e, n->u.sw.src, &v);
	if (err)
		return err;
	e->v = v;
	for (c = n->u.sw.cases; c; c = c->next) {
		if (c->dflt && !dflt)
			dflt = c;
		else if (!c->dflt && c->match == v)
			return exec(e, c->body);
	}
	return dflt ? exec(e, dflt->body) : 0;
}

static int do_loop(struct teval *e, const struct tnode *n)
{
	int64_t count, i;
	int err;

	err = eval_expr(e, n->u.loop.src, &count);
	if (err)
		return err;
	if (count < 0 || count > KETW_TEMPLATE_MAX_LOOP) {
		char msg[64];

		snprintf(msg, sizeof(msg), "<loop count %lld out of 0..%d>",
			 (long long)count, KETW_TEMPLATE_MAX_LOOP);
		return stop(e, msg);
	}
	for (i = 0; i < count; i++) {
		err = step(e);
		if (!err)
			err = exec(e, n->u.loop.body);
		if (err)
			return err;
	}
	return 0;
}

static int do_bitflags(struct teval *e, const struct tnode *n)
{
	const struct tflag *f;
	uint64_t v, known = 0;
	const char *s;
	bool any = false;
	int64_t x;
	int err;

	err = eval_expr(e, n->u.bf.src, &x);
	if (err)
		return err;
	e->v = x;
	v = (uint64_t)x;
	for (f = n->u.bf.flags; f; f = f->next) {
		known |= f->m;
		if (f->mask)
			s = (v & f->m) == f->v ? f->set : NULL;
		else
			s = (v & f->m) == f->m ? f->set : f->clear;
		if (!s || !*s)
			continue;
		if (any)
			err = emit(e, "|", 1);
		if (!err)
			err = emit(e, s, strlen(s));
		if (err)
			return err;
		any = true;
	}
	if (v & ~known) {
		err = emitf(e, "%s0x%llx", any ? "|" : "",
			    (unsigned long long)(v & ~known));
		any = true;
	}
	if (!err && !any)
		err = emit(e, "0", 1);
	return err;
}

static int exec(struct teval *e, const struct tnode *n)
{
	int64_t v;
	int err = 0;

	for (; n && !err; n = n->next) {
		err = step(e);
		if (err)
			break;
		switch (n->kind) {
		case TN_TEXT:
			err = emit(e, n->u.text.s, n->u.text.n);
			break;
		case TN_MOVE:
			err = move(e, &n->u.code);
			break;
		case TN_OUT:
			err = out_code(e, &n->u.code);
			break;
		case TN_SET:
			err = eval_expr(e, n->u.set.e, &v);
			if (!err)
				e->m[n->u.set.macro] = v;
			break;
		case TN_PRINT:
			err = print_macro(e, n->u.print.macro, n->u.print.fmt);
			break;
		case TN_CALL:
			err = call(e, n->u.call.tp);
			break;
		case TN_SWITCH:
			err = do_switch(e, n);
			break;
		case TN_LOOP:
			err = do_loop(e, n);
			break;
		case TN_BITFLAGS:
			err = do_bitflags(e, n);
			break;
		}
	}
	return err;
}

int ketw_template_eval(const struct ketw_templates *t,
		       const struct ketw_template *tp,
		       const struct ketw_template_data *d,
		       struct ketw_template_buf *out)
{
	int64_t macros[KETW_TEMPLATE_MAX_MACROS];
	struct teval e;
	size_t mark, body, i, n;
	uint64_t w;
	int err;

	memset(&e, 0, sizeof(e));
	/* Never NULL: d + 0 must be valid pointer arithmetic. */
	e.d = d->payload ? d->payload : (const unsigned char *)"";
	e.len = d->payload ? d->len : 0;
	e.swapped = d->swapped;
	e.m = macros;
	e.id = tp->id;
	e.version = d->version;
	e.out = out;
	memset(macros, 0, t->nmacros * sizeof(macros[0]));
	for (i = 0; i < 5; i++) {
		w = 0;
		n = e.len > 8 * i ? e.len - 8 * i : 0;
		if (!n)
			break;
		memcpy(&w, e.d + 8 * i, n < 8 ? n : 8);
		e.words[i] = (int64_t)(e.swapped ? bswap_64(w) : w);
	}

	out->len = 0;
	err = buf_put(out, "", 0);
	if (!err)
		err = emit(&e, tp->label, tp->label_len);
	if (err)
		return err;
	mark = out->len;
	if (tp->label_len) {
		err = emit(&e, " ", 1);
		if (err)
			return err;
	}
	body = out->len;
	err = exec(&e, tp->body);
	if (err >= 0 && out->len == body) {
		out->len = mark;	/* no text after the label: no blank */
		out->s[mark] = '\0';
	}
	return err;
}

int ketw_template_print(const struct ketw_templates *t,
			const struct ketw_record *rec, bool swapped,
			const char *prefix, struct ketw_template_buf *buf,
			FILE *f)
{
	const struct ketw_template *tp;
	struct ketw_template_data d;
	const char *s, *nl;
	int err, indent;

	if (rec->hdr->flags & (KETW_RECORD_SYSTEM | KETW_RECORD_PADDING))
		return 0;
	tp = ketw_templates_find(t, rec->hdr->provider_guid,
				 rec->hdr->event_id);
	if (!tp)
		return 0;
	d.payload = rec->data;
	d.len = rec->data_len;
	d.version = rec->hdr->version;
	d.swapped = swapped;
	err = ketw_template_eval(t, tp, &d, buf);
	if (err < 0)
		return err;
	indent = (int)tp->column * KETW_TEMPLATE_COLUMN_WIDTH;
	for (s = buf->s; *s || s == buf->s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		if (fprintf(f, "%s%*s%.*s\n", prefix ? prefix : "", indent, "",
			    (int)(nl - s), s) < 0)
			return -EIO;
		if (!*nl)
			break;
	}
	return 1;
}
