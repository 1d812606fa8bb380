// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: format templates (template.h; the language is described in
 * Documentation/ketw-templates.rst): the set of templates, its arena and
 * what it answers. template_lex.c and template_parse.c build a set,
 * template_eval.c runs a template over a payload.
 *
 * A set's nodes are allocated from an arena it owns (freed all at once;
 * a syntax error longjmp()s out of the recursive descent and leaves
 * nothing to undo).
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "template_internal.h"

#define TCHUNK_SIZE	65536

void *tpl_alloc(struct ketw_templates *t, size_t size)
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

const struct ketw_template *tpl_prov_find(const struct tprov *pv, uint32_t id)
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

/* A PROVIDER record binds the templates of its name to its GUID. */
static int tpl_bind_record(const struct ketw_record *rec, void *ctx)
{
	struct ketw_sys_provider prov;
	char name[KETW_NAME_MAX + 1];

	if (!(rec->hdr->flags & KETW_RECORD_SYSTEM) ||
	    rec->hdr->event_id != KETW_SYS_PROVIDER ||
	    rec->data_len < sizeof(prov))
		return 0;
	memcpy(&prov, rec->data, sizeof(prov));
	memcpy(name, prov.name, KETW_NAME_MAX);
	name[KETW_NAME_MAX] = '\0';
	ketw_templates_bind(ctx, name, prov.provider_guid);
	return 0;
}

int ketw_templates_bind_input(struct ketw_templates *t, struct ketw_input *in)
{
	struct ketw_record rec;
	unsigned int i;
	int n = 0;

	/* A chunk's rundown in copy first, then its own records. */
	ketw_input_rundown_copies(in, tpl_bind_record, t);
	ketw_input_rewind(in);
	while (ketw_input_next(in, &rec) > 0)
		tpl_bind_record(&rec, t);
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
			return tpl_prov_find(&t->provs[i], id);
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
