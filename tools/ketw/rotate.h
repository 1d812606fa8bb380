/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rotation of a trace file into chunks (rotate.c): the policy (a size,
 * an age) and the chunks' names. The cutting itself is libketw's
 * (ketw_output_rotate()): each chunk complete and decodable alone.
 */
#ifndef _KETW_ROTATE_H
#define _KETW_ROTATE_H

#include <stdbool.h>
#include <stdint.h>

/* --rotate-size, --rotate-time; 0: not by that. */
struct cli_rotate_opts {
	uint64_t size;		/* bytes */
	uint64_t seconds;
};

/*
 * The chunks of one file: STEM EXT first (trace.ketw), then STEM.1 EXT,
 * STEM.2 EXT... (trace.1.ketw); a name taken already gets -2, -3...
 */
struct cli_rotate {
	struct cli_rotate_opts o;
	char *stem, *ext;
	char *first;		/* the first chunk's name */
	char *path;		/* the current chunk's */
	unsigned int chunk;	/* its number, 0 first */
	bool unique;		/* never a name that exists */
	uint64_t start_ns;	/* when it began (CLOCK_MONOTONIC) */
};

/*
 * Parse a --rotate-size (@size: bytes, or with K, M, G; at least 64 KiB)
 * or --rotate-time (seconds, or with s, m, h; at least 1 s) argument
 * into @o. 0, or 2 after a usage error.
 */
int cli_rotate_option(const char *cmd, struct cli_rotate_opts *o, bool size,
		      const char *arg);
/* Is a rotation asked for at all? */
bool cli_rotate_on(const struct cli_rotate_opts *o);
/*
 * The first chunk's name from @path (a name ending in @ext is split
 * there; another keeps its name, and its chunks are PATH.1, PATH.2...);
 * @unique: never a name that exists (a collector's), else names are
 * taken over (record's). 0, -ENOMEM.
 */
int cli_rotate_init(struct cli_rotate *r, const char *path, const char *ext,
		    const struct cli_rotate_opts *o, bool unique);
/* Is the current chunk, of @size bytes, due to end at @now_ns? */
bool cli_rotate_due(const struct cli_rotate *r, uint64_t size,
		    uint64_t now_ns);
/* The next chunk's name in r->path. 0, -ENOMEM, -ENAMETOOLONG. */
int cli_rotate_next(struct cli_rotate *r, uint64_t now_ns);
void cli_rotate_free(struct cli_rotate *r);

#endif /* _KETW_ROTATE_H */
