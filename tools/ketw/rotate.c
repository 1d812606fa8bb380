// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: when a trace file is cut into chunks, and the chunks' names
 * (record --rotate-size/--rotate-time, listen the same).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rotate.h"

#define ROTATE_MIN_SIZE	(64 * 1024)

int cli_rotate_option(const char *cmd, struct cli_rotate_opts *o, bool size,
		      const char *arg)
{
	const char *opt = size ? "--rotate-size" : "--rotate-time";
	char num[32];
	size_t len = strlen(arg);
	uint64_t v, mul = 1, min = size ? ROTATE_MIN_SIZE : 1;
	char last = len ? arg[len - 1] : 0;

	if (len && len < sizeof(num)) {
		if (size && (last == 'K' || last == 'k'))
			mul = 1024;
		else if (size && (last == 'M' || last == 'm'))
			mul = 1024 * 1024;
		else if (size && (last == 'G' || last == 'g'))
			mul = 1024 * 1024 * 1024;
		else if (!size && last == 's')
			mul = 1;
		else if (!size && last == 'm')
			mul = 60;
		else if (!size && last == 'h')
			mul = 3600;
		else
			last = 0;
		memcpy(num, arg, len + 1);
		if (last)
			num[len - 1] = '\0';
		if (!ketw_parse_u64(num, UINT64_MAX / mul, &v) &&
		    v * mul >= min) {
			if (size)
				o->size = v * mul;
			else
				o->seconds = v * mul;
			return 0;
		}
	}
	return cli_usage_error(cmd, size ?
		"%s: '%s' is not a size of at least 64K (bytes, or K, M, G)" :
		"%s: '%s' is not a time of at least 1 s (seconds, or s, m, h)",
		opt, arg);
}

bool cli_rotate_on(const struct cli_rotate_opts *o)
{
	return o->size || o->seconds;
}

/* STEM[.N][-K]EXT into r->path: a name nothing has when @unique. */
static int cli_rotate_name(struct cli_rotate *r, bool unique)
{
	unsigned int k;
	char *p;
	int n;

	for (k = 1; k < 1000; k++) {
		char num[16] = "", dup[16] = "";

		if (r->chunk)
			snprintf(num, sizeof(num), ".%u", r->chunk);
		if (k > 1)
			snprintf(dup, sizeof(dup), "-%u", k);
		n = asprintf(&p, "%s%s%s%s", r->stem, num, dup, r->ext);
		if (n < 0)
			return -ENOMEM;
		if (!unique || access(p, F_OK)) {
			free(r->path);
			r->path = p;
			return 0;
		}
		free(p);
	}
	return -EEXIST;
}

int cli_rotate_init(struct cli_rotate *r, const char *path, const char *ext,
		    const struct cli_rotate_opts *o, bool unique)
{
	size_t len = strlen(path), elen = strlen(ext);
	int err;

	memset(r, 0, sizeof(*r));
	if (o)
		r->o = *o;
	r->unique = unique;
	if (len > elen && !strcmp(path + len - elen, ext))
		len -= elen;
	else if (!unique)
		ext = "";	/* a name of the user's: kept as it is */
	r->stem = strndup(path, len);
	r->ext = strdup(ext);
	if (!r->stem || !r->ext)
		return -ENOMEM;
	err = cli_rotate_name(r, unique);
	if (err)
		return err;
	r->first = strdup(r->path);
	r->start_ns = cli_now_ns();
	return r->first ? 0 : -ENOMEM;
}

bool cli_rotate_due(const struct cli_rotate *r, uint64_t size,
		    uint64_t now_ns)
{
	return (r->o.size && size >= r->o.size) ||
	       (r->o.seconds &&
		now_ns - r->start_ns >= r->o.seconds * 1000000000ull);
}

int cli_rotate_next(struct cli_rotate *r, uint64_t now_ns)
{
	r->chunk++;
	r->start_ns = now_ns;
	return cli_rotate_name(r, r->unique);
}

void cli_rotate_free(struct cli_rotate *r)
{
	free(r->stem);
	free(r->ext);
	free(r->first);
	free(r->path);
	memset(r, 0, sizeof(*r));
}
