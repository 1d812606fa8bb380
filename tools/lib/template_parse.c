// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: format templates, the parser: a recursive descent from the
 * lexer's tokens (template_lex.c) to the nodes of each template, and the
 * loading of a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "template_internal.h"

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
		tpl_perr(p, "more than %u macro names", KETW_TEMPLATE_MAX_MACROS);
	if (!(t->nmacros & (t->nmacros - 1))) {	/* 0, 1, 2, 4, ...: grow */
		m = realloc(t->macros, (t->nmacros ? 2 * t->nmacros : 1) *
			    sizeof(*m));
		if (!m)
			tpl_poom(p);
		t->macros = m;
	}
	n = strlen(p->tok.name) + 1;
	t->macros[t->nmacros] = tpl_palloc(p, n);
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
		tpl_perr(p, "expression nested too deeply (more than %d levels)",
		     EXPR_MAX_DEPTH);
	e = tpl_palloc(p, sizeof(*e));
	switch (p->tok.type) {
	case T_NUM:
		e->op = TE_NUM;
		e->num = (int64_t)p->tok.num;
		tpl_lex(p);
		break;
	case T_MACRO:
		if (p->tok.fmt)
			tpl_perr(p, "a macro in an expression takes no format");
		e->op = TE_MACRO;
		e->macro = macro_index(p);
		tpl_lex(p);
		break;
	case T_CODE:
		if (!value_code_ok(&p->tok.code))
			tpl_perr(p, "a value here is read with D, U, X or Q of 1, 2, 4 or 8 bytes, or B of 1 to 64 bits");
		e->op = TE_CODE;
		e->code = p->tok.code;
		tpl_lex(p);
		break;
	case T_MINUS:
		tpl_lex(p);
		e->op = TE_NEG;
		e->l = parse_primary(p);
		break;
	case T_LPAREN:
		tpl_lex(p);
		e = parse_expr(p);
		tpl_expect(p, T_RPAREN, "')'");
		break;
	default:
		tpl_perr_unexpected(p, "a number, a $macro, a value code or '('");
	}
	p->edepth--;
	return e;
}

static struct texpr *binop(struct parser *p, enum texpr_op op,
			   struct texpr *l, struct texpr *r)
{
	struct texpr *e = tpl_palloc(p, sizeof(*e));

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
		tpl_lex(p);
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
		tpl_lex(p);
		e = binop(p, op, e, parse_mul(p));
	}
	return e;
}

static struct texpr *parse_and(struct parser *p)
{
	struct texpr *e = parse_add(p);

	while (p->tok.type == T_AMP) {
		tpl_lex(p);
		e = binop(p, TE_AND, e, parse_add(p));
	}
	return e;
}

static struct texpr *parse_expr(struct parser *p)
{
	struct texpr *e;

	if (++p->edepth > EXPR_MAX_DEPTH)
		tpl_perr(p, "expression nested too deeply (more than %d levels)",
		     EXPR_MAX_DEPTH);
	e = parse_and(p);
	while (p->tok.type == T_PIPE) {
		tpl_lex(p);
		e = binop(p, TE_OR, e, parse_and(p));
	}
	p->edepth--;
	return e;
}

/* ---- descriptors ----------------------------------------------------- */

static struct tnode *parse_seq(struct parser *p, bool nested);

static struct tnode *new_node(struct parser *p, enum tnode_kind kind)
{
	struct tnode *n = tpl_palloc(p, sizeof(*n));

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
			tpl_perr(p, "W takes a word number from 1 (W1 is byte 0)");
		return;
	case 'A':
	case 'X':
		if (c->bits)
			tpl_perr(p, "%c counts whole bytes", l);
		return;
	case 'B':
		if (!c->bytes && !c->bits)
			tpl_perr(p, "B0 reads nothing (B0.4 is four bits)");
		return;
	case 'D': case 'U': case 'Q':
		if (c->bits || (c->bytes != 1 && c->bytes != 2 &&
				c->bytes != 4 && c->bytes != 8))
			tpl_perr(p, "%c takes 1, 2, 4 or 8 bytes", l);
		return;
	case 'F':
		if (c->bits || (c->bytes != 4 && c->bytes != 8))
			tpl_perr(p, "F takes 4 or 8 bytes");
		return;
	}
}

static unsigned int open_brace(struct parser *p, unsigned int *col)
{
	unsigned int line = p->tok.line;

	*col = p->tok.col;
	tpl_expect(p, T_LBRACE, "'{'");
	return line;
}

static void close_brace(struct parser *p, unsigned int line, unsigned int col)
{
	char buf[TNAME_MAX + 16];

	if (p->tok.type != T_RBRACE) {
		if (p->tok.type == T_EOF || p->tok.type == T_END)
			tpl_perr_at(p, line, col, "'{' is not closed");
		tpl_perr(p, "expected '}' to close the '{' at %u:%u, found %s",
		     line, col, tpl_tok_desc(&p->tok, buf, sizeof(buf)));
	}
	tpl_lex(p);
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
		tpl_perr(p, "SWITCH, LOOP and BITFLAGS nested too deeply (more than %d levels)",
		     KETW_TEMPLATE_MAX_DEPTH);
}

static struct tnode *parse_switch(struct parser *p)
{
	struct tnode *n = new_node(p, TN_SWITCH);
	struct tcase **tail = &n->u.sw.cases, *c;
	bool have_default = false;

	enter(p);
	tpl_lex(p);
	n->u.sw.src = parse_primary(p);
	tpl_expect(p, T_COMMA, "',' after the SWITCH's value");
	for (;;) {
		c = tpl_palloc(p, sizeof(*c));
		if (p->tok.type == T_DEFAULT || p->tok.type == T_STAR) {
			if (have_default)
				tpl_perr(p, "a second default case");
			have_default = true;
			c->dflt = true;
			tpl_lex(p);
		} else if (p->tok.type == T_MINUS) {
			tpl_lex(p);
			if (p->tok.type != T_NUM)
				tpl_perr_unexpected(p, "a number");
			c->match = (int64_t)(0 - p->tok.num);
			tpl_lex(p);
		} else if (p->tok.type == T_NUM) {
			c->match = (int64_t)p->tok.num;
			tpl_lex(p);
		} else {
			tpl_perr_unexpected(p, "a case: a number or \\*");
		}
		c->body = parse_block(p);
		*tail = c;
		tail = &c->next;
		if (p->tok.type != T_COMMA)
			break;
		tpl_lex(p);
	}
	p->depth--;
	return n;
}

static struct tnode *parse_loop(struct parser *p)
{
	struct tnode *n = new_node(p, TN_LOOP);

	enter(p);
	tpl_lex(p);
	n->u.loop.src = parse_primary(p);
	n->u.loop.body = parse_block(p);
	p->depth--;
	return n;
}

static const char *take_string(struct parser *p, const char *wanted)
{
	const char *s;

	if (p->tok.type != T_STR)
		tpl_perr_unexpected(p, wanted);
	s = p->tok.str;
	tpl_lex(p);
	return s;
}

static struct tnode *parse_bitflags(struct parser *p)
{
	struct tnode *n = new_node(p, TN_BITFLAGS);
	struct tflag **tail = &n->u.bf.flags, *f;

	enter(p);
	tpl_lex(p);
	n->u.bf.src = parse_primary(p);
	tpl_expect(p, T_COMMA, "',' after the BITFLAGS' value");
	for (;;) {
		f = tpl_palloc(p, sizeof(*f));
		if (p->tok.type == T_AMP) {
			f->mask = true;
			tpl_lex(p);
			if (p->tok.type != T_NUM)
				tpl_perr_unexpected(p, "a mask after '&'");
			f->m = p->tok.num;
			tpl_lex(p);
			if (p->tok.type != T_NUM)
				tpl_perr_unexpected(p, "the value under the mask");
			f->v = p->tok.num;
			if (f->v & ~f->m)
				tpl_perr(p, "value 0x%llx has bits outside mask 0x%llx",
				     (unsigned long long)f->v,
				     (unsigned long long)f->m);
			tpl_lex(p);
			f->set = take_string(p, "the string of the value");
		} else if (p->tok.type == T_NUM) {
			f->m = p->tok.num;
			if (!f->m)
				tpl_perr(p, "flag 0 is never set");
			tpl_lex(p);
			f->set = take_string(p, "the string of the flag when set");
			if (p->tok.type == T_STR)
				f->clear = take_string(p, NULL);
		} else {
			tpl_perr_unexpected(p, "a flag or '& mask value'");
		}
		*tail = f;
		tail = &f->next;
		if (p->tok.type != T_COMMA)
			break;
		tpl_lex(p);
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
		tpl_lex(p);
		return n;
	case T_CODE:
		check_code(p);
		n = new_node(p, strchr("GORW", p->tok.code.letter) ? TN_MOVE :
								   TN_OUT);
		n->u.code = p->tok.code;
		tpl_lex(p);
		return n;
	case T_LL:
		n = new_node(p, TN_SET);
		tpl_lex(p);
		if (p->tok.type != T_MACRO || p->tok.fmt)
			tpl_perr_unexpected(p, "'$name =' after '{{'");
		n->u.set.macro = macro_index(p);
		if (n->u.set.macro < 0)
			tpl_perr(p, "$%s is built in: it cannot be assigned",
			     p->tok.name);
		tpl_lex(p);
		tpl_expect(p, T_EQ, "'='");
		n->u.set.e = parse_expr(p);
		tpl_expect(p, T_RR, "'}}' or an operator");
		return n;
	case T_MACRO:
		n = new_node(p, TN_PRINT);
		n->u.print.macro = macro_index(p);
		n->u.print.fmt = p->tok.fmt ? p->tok.fmt : 'D';
		tpl_lex(p);
		return n;
	case T_CALL:
		n = new_node(p, TN_CALL);
		n->u.call.id = p->tok.id;
		if (p->ncalls == p->capcalls) {
			cap = p->capcalls ? 2 * p->capcalls : 16;
			r = realloc(p->calls, cap * sizeof(*r));
			if (!r)
				tpl_poom(p);
			p->calls = r;
			p->capcalls = cap;
		}
		r = &p->calls[p->ncalls++];
		r->node = n;
		r->prov = (unsigned int)p->prov;
		r->line = p->tok.line;
		r->col = p->tok.col;
		tpl_lex(p);
		return n;
	case T_WORD:
		if (!strcmp(p->tok.name, "SWITCH"))
			return parse_switch(p);
		if (!strcmp(p->tok.name, "LOOP"))
			return parse_loop(p);
		if (!strcmp(p->tok.name, "BITFLAGS"))
			return parse_bitflags(p);
		tpl_perr(p, "unknown descriptor '%s'", p->tok.name);
	default:
		tpl_perr_unexpected(p, NULL);
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
	while ((c = tpl_peek(p, 0)) == ' ' || c == '\t')
		tpl_advance(p);
	col = p->col;
	start = p->pos;
	while ((c = tpl_peek(p, 0)) > ' ' && c != '#' && c != 0x7f)
		tpl_advance(p);
	n = p->pos - start;
	if (!n)
		tpl_perr_at(p, line, col, "'provider' needs a name or a GUID");
	by_guid = false;
	if (n == KETW_GUID_STR_LEN - 1) {
		memcpy(text, p->s + start, n);
		text[n] = '\0';
		by_guid = !ketw_guid_parse(text, guid);
	}
	if (!by_guid && n >= KETW_NAME_MAX)
		tpl_perr_at(p, line, col, "provider name longer than %d characters",
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
				tpl_poom(p);
			t->provs = pv;
			t->capprovs = cap;
		}
		pv = &t->provs[t->nprovs];
		memset(pv, 0, sizeof(*pv));
		pv->name = tpl_palloc(p, n + 1);
		memcpy(pv->name, p->s + start, n);
		pv->name[n] = '\0';
		pv->by_guid = by_guid;
		pv->bound = by_guid;
		if (by_guid)
			memcpy(pv->guid, guid, sizeof(guid));
		t->nprovs++;
	}
	p->prov = (int)i;
	tpl_lex(p);
	if (p->tok.type != T_EOF && p->tok.col != 1)
		tpl_perr_unexpected(p, "the end of the line after the provider");
}

static void parse_template(struct parser *p)
{
	struct ketw_templates *t = p->t;
	struct ketw_template *tp, **v;
	struct tprov *pv;
	size_t cap;

	if (p->tok.num > UINT32_MAX)
		tpl_perr(p, "event id above 0xffffffff");
	if (p->prov < 0)
		tpl_perr(p, "a template before any 'provider' line");
	tp = tpl_palloc(p, sizeof(*tp));
	tp->id = (uint32_t)p->tok.num;
	tp->line = p->tok.line;
	tp->col = p->tok.col;
	tp->order = t->ntemplates;
	tp->column = KETW_TEMPLATE_APPL;
	p->in_tmpl = true;
	tpl_lex(p);
	if (p->tok.type == T_WORD && !strcmp(p->tok.name, "L")) {
		tpl_lex(p);
		tpl_expect(p, T_EQ, "'=' after L");
		if (p->tok.type != T_WORD)
			tpl_perr_unexpected(p, "APPL, SVC, KERN or INT");
		if (!strcmp(p->tok.name, "APPL"))
			tp->column = KETW_TEMPLATE_APPL;
		else if (!strcmp(p->tok.name, "SVC"))
			tp->column = KETW_TEMPLATE_SVC;
		else if (!strcmp(p->tok.name, "KERN"))
			tp->column = KETW_TEMPLATE_KERN;
		else if (!strcmp(p->tok.name, "INT"))
			tp->column = KETW_TEMPLATE_INT;
		else
			tpl_perr(p, "L= takes APPL, SVC, KERN or INT, not '%s'",
			     p->tok.name);
		tpl_lex(p);
	}
	if (p->tok.type != T_STR)
		tpl_perr_unexpected(p, "the template's label (a string)");
	tp->label = p->tok.str;
	tp->label_len = p->tok.slen;
	tpl_lex(p);
	tp->body = parse_seq(p, false);
	p->in_tmpl = false;
	if (p->tok.type == T_END)
		p->tok.type = p->tok.saved;

	pv = &t->provs[p->prov];
	if (pv->n == pv->cap) {
		cap = pv->cap ? 2 * pv->cap : 16;
		v = realloc(pv->tmpls, cap * sizeof(*v));
		if (!v)
			tpl_poom(p);
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
				tpl_perr_at(p, b->line, b->col,
					"event %u (0x%x) of provider %s already has a template (line %u)",
					b->id, b->id, pv->name, a->line);
		}
	}
	for (k = 0; k < p->ncalls; k++) {
		r = &p->calls[k];
		pv = &t->provs[r->prov];
		r->node->u.call.tp = tpl_prov_find(pv, r->node->u.call.id);
		if (!r->node->u.call.tp)
			tpl_perr_at(p, r->line, r->col,
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
		tpl_perr_at(p, 1, 1, "larger than %u bytes", KETW_TEMPLATE_MAX_FILE);
	tpl_lex(p);
	while (p->tok.type != T_EOF) {
		if (p->tok.col != 1)
			tpl_perr(p, "a provider line or a template starts in column 1 (continuation lines are indented)");
		if (p->tok.type == T_WORD && !strcmp(p->tok.name, "provider"))
			parse_provider(p);
		else if (p->tok.type == T_NUM)
			parse_template(p);
		else
			tpl_perr_unexpected(p, "'provider' or an event id");
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
