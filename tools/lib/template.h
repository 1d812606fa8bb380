/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libketw: format templates, a small language that decodes event payloads
 * (after AIX trcrpt templates). The language is described with an example
 * per construct in Documentation/ketw-templates.rst.
 *
 *   parse     ketw_templates_parse(), ketw_templates_load(): text -> a set
 *             of templates, or "file:line:col: message"
 *   bind      ketw_templates_bind(), ketw_templates_bind_input(): give the
 *             providers a file names by name their GUIDs (from a rundown)
 *   find      ketw_templates_find(): the template of (GUID, event id)
 *   evaluate  ketw_template_eval(): one payload -> text
 *   print     ketw_template_print(): one record -> indented lines
 *
 * Evaluation never reads outside the payload, and is bounded: calls nest
 * at most KETW_TEMPLATE_MAX_NESTING deep, a LOOP runs at most
 * KETW_TEMPLATE_MAX_LOOP times, a record takes at most
 * KETW_TEMPLATE_MAX_STEPS steps and produces at most
 * KETW_TEMPLATE_MAX_OUTPUT bytes. Going past a bound, or past the
 * payload, puts a message in <angle brackets> into the text and ends that
 * record's decoding.
 *
 * Unless stated otherwise, functions return 0 or a negative errno.
 */
#ifndef _KETW_TEMPLATE_H
#define _KETW_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libketw.h"

#define KETW_TEMPLATE_MAX_NESTING	10	/* template calls, deeper is an error */
#define KETW_TEMPLATE_MAX_LOOP		65536	/* iterations of one LOOP */
#define KETW_TEMPLATE_MAX_STEPS		1000000	/* descriptor steps per record */
#define KETW_TEMPLATE_MAX_OUTPUT	65536	/* bytes of text per record */
#define KETW_TEMPLATE_MAX_FILE		(16u << 20)	/* bytes of a template file */
#define KETW_TEMPLATE_MAX_DEPTH		32	/* nested SWITCH/LOOP/BITFLAGS */
#define KETW_TEMPLATE_MAX_MACROS	1024	/* user macro names in a set */

/* The columns of L=: the indent of a record's text, in spaces. */
enum ketw_template_column {
	KETW_TEMPLATE_APPL = 0,
	KETW_TEMPLATE_SVC = 1,
	KETW_TEMPLATE_KERN = 2,
	KETW_TEMPLATE_INT = 3,
};
#define KETW_TEMPLATE_COLUMN_WIDTH	4

struct ketw_templates;		/* a parsed set: providers and templates */
struct ketw_template;		/* one event's template */

/*
 * Parse @len bytes of @text (not necessarily NUL-terminated); @file names
 * it in messages. On a syntax error returns -EINVAL and puts
 * "file:line:col: message" (line and column from 1) in @err; -ENOMEM.
 */
int ketw_templates_parse(const char *text, size_t len, const char *file,
			 struct ketw_templates **out, char *err, size_t errlen);
/* The same from a file; I/O errors are "path: strerror" in @err. */
int ketw_templates_load(const char *path, struct ketw_templates **out,
			char *err, size_t errlen);
void ketw_templates_free(struct ketw_templates *t);

/* Providers of the set, and the templates of each, in the file's order. */
unsigned int ketw_templates_nr_providers(const struct ketw_templates *t);
/* Name as written ("sample" or a GUID's text) of provider @i. */
const char *ketw_templates_provider(const struct ketw_templates *t,
				    unsigned int i);
/* Does provider @i have a GUID (written as one, or bound)? */
bool ketw_templates_provider_bound(const struct ketw_templates *t,
				   unsigned int i);
unsigned int ketw_templates_nr_templates(const struct ketw_templates *t);
/* Template @i (in id order) of provider @prov, or NULL past the last. */
const struct ketw_template *
ketw_templates_template(const struct ketw_templates *t, unsigned int prov,
			unsigned int i);

/*
 * Give the provider the set names @name the GUID @guid (what a rundown's
 * PROVIDER record says). Returns 1 if a provider was bound, 0 if the set
 * has none of that name.
 */
int ketw_templates_bind(struct ketw_templates *t, const char *name,
			const uint8_t guid[KETW_GUID_SIZE]);
/*
 * Bind from every PROVIDER record of a trace file, then rewind it.
 * Returns the number of providers bound.
 */
int ketw_templates_bind_input(struct ketw_templates *t, struct ketw_input *in);

/* The template for event @id of the provider @guid, or NULL. */
const struct ketw_template *
ketw_templates_find(const struct ketw_templates *t,
		    const uint8_t guid[KETW_GUID_SIZE], uint32_t id);
uint32_t ketw_template_id(const struct ketw_template *tp);
const char *ketw_template_label(const struct ketw_template *tp);
enum ketw_template_column ketw_template_column(const struct ketw_template *tp);

/* Text produced by evaluation; reuse it across calls, free it at the end. */
struct ketw_template_buf {
	char *s;		/* NUL-terminated when len > 0 or after eval */
	size_t len;
	size_t cap;
};

void ketw_template_buf_free(struct ketw_template_buf *b);

/* What the evaluator knows of a record besides the template. */
struct ketw_template_data {
	const void *payload;
	size_t len;
	unsigned int version;	/* the record's version ($VER) */
	bool swapped;		/* payload integers are in the other byte order */
};

/*
 * Decode a payload with @tp into @out (replacing its text): the label,
 * then a blank and the descriptor's text if there is any. Returns 0; 1 if
 * decoding stopped on a runtime error (the text ends with its message,
 * e.g. "<short>"); -ENOMEM.
 */
int ketw_template_eval(const struct ketw_templates *t,
		       const struct ketw_template *tp,
		       const struct ketw_template_data *d,
		       struct ketw_template_buf *out);

/*
 * Print @rec decoded by its template, each line of text as @prefix, the
 * template's column's indent, the line. System records and records of
 * events without a template print nothing and return 0; 1 when printed;
 * -EIO if writing failed, -ENOMEM. @swapped: the file is of the other byte
 * order (ketw_input_swapped()). @buf is reused scratch space.
 */
int ketw_template_print(const struct ketw_templates *t,
			const struct ketw_record *rec, bool swapped,
			const char *prefix, struct ketw_template_buf *buf,
			FILE *f);

#endif /* _KETW_TEMPLATE_H */
