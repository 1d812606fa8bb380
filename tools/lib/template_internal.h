/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libketw's format templates, inside: the parsed form that
 * template_parse.c builds and template_eval.c walks, and the parser's
 * state that template_lex.c and template_parse.c share. Not installed.
 */
#ifndef _KETW_TEMPLATE_INTERNAL_H
#define _KETW_TEMPLATE_INTERNAL_H

#include <setjmp.h>
#include <stdalign.h>
#include <stddef.h>

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

/* ---- the parser's state (template_lex.c, template_parse.c) ------- */

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

/* template.c: @size zeroed bytes from the set's arena, or NULL. */
void *tpl_alloc(struct ketw_templates *t, size_t size);

/* template.c: provider @pv's template @id (its array is sorted), or NULL. */
const struct ketw_template *tpl_prov_find(const struct tprov *pv, uint32_t id);

/* template_lex.c: errors (they longjmp() out of the parse), tokens. */
__attribute__((format(printf, 4, 5), noreturn))
void tpl_perr_at(struct parser *p, unsigned int line, unsigned int col,
		 const char *fmt, ...);
#define tpl_perr(p, ...) \
	tpl_perr_at((p), (p)->tok.line, (p)->tok.col, __VA_ARGS__)
__attribute__((noreturn))
void tpl_poom(struct parser *p);
__attribute__((noreturn))
void tpl_perr_unexpected(struct parser *p, const char *wanted);
void *tpl_palloc(struct parser *p, size_t size);
/* The type of the token @ahead after the current one (0: the current). */
int tpl_peek(const struct parser *p, size_t ahead);
/* Past one character of the text (the parser skips raw text with it). */
void tpl_advance(struct parser *p);
/* A token as an error message names it ("number 3", "'{'"), in @buf. */
const char *tpl_tok_desc(const struct tok *t, char *buf, size_t len);
/* The next token into p->tok. */
void tpl_lex(struct parser *p);
/* The current token must be @type (else "expected @wanted"); then lex. */
void tpl_expect(struct parser *p, enum ttype type, const char *wanted);

#endif /* _KETW_TEMPLATE_INTERNAL_H */
