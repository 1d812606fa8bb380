// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: format templates, the evaluator: it walks a template's nodes
 * over a payload with a bit-granular data pointer; every read is checked
 * against the payload's length, and steps, loop counts, call depth and
 * output are bounded.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template_internal.h"

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
