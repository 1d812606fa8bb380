/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libketw internals shared between its files; not part of the API.
 */
#ifndef _KETW_LIB_INTERNAL_H
#define _KETW_LIB_INTERNAL_H

#include "libketw.h"

/* What is declared below is the library's own: not exported by libketw.so. */
#pragma GCC visibility push(hidden)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* guid.c: the value of hex digit @c, or -1. */
int ketw_hex_digit(int c);

/* session.c: ioctl(), again after EINTR; 0 or -errno. */
int ketw_ioctl(int fd, unsigned long cmd, void *arg);

/*
 * array.c: one list ioctl, asked for @cap entries into @arr; sets
 * *@count to the number there are. 0 or -errno.
 */
typedef int (*ketw_array_ask_fn)(int fd, void *ctx, void *arr,
				 unsigned int cap, unsigned int *count);
/* The whole list into a malloc()ed *@out (NULL when empty); 0 or -errno. */
int ketw_array_get(int fd, size_t entry_size, ketw_array_ask_fn ask,
		   void *ctx, void **out, unsigned int *nr);

/* Appends to a buffer with snprintf semantics: n is the length it would take. */
struct ketw_fmt {
	char *buf;
	size_t len;
	size_t n;
};

__attribute__((format(printf, 2, 3)))
void ketw_fmt(struct ketw_fmt *f, const char *fmt, ...);

/* A fixed-size name field as a string in @tmp (size + 1 bytes). */
const char *ketw_fixed(const char *s, size_t size, char *tmp);

/* ketw_record_format() with a provider name for the GUID and an event name. */
int ketw_record_format_as(const struct ketw_record *rec, const char *provider,
			  const char *event, char *buf, size_t len);

/*
 * ext.c: point @rec->data and @rec->data_len (@rec->hdr set, its size at
 * least @hdr_size) at the payload, after the items area if the record
 * has one; -EBADMSG if that area is malformed.
 */
int ketw_record_set_payload(struct ketw_record *rec, size_t hdr_size);
/* ext.c: swap the items area at @p (from a file of the other byte order). */
int ketw_ext_swap(unsigned char *p, size_t avail);

/*
 * swap.c: the file format's structures to or from the other byte order,
 * in place; ketw_swap_records() swaps the records of a records body (up
 * to the first that does not fit), their items and system payloads.
 */
void ketw_swap_file_header(struct ketw_file_header *h);
void ketw_swap_file_cpu_stats(struct ketw_file_cpu_stats *e);
void ketw_swap_file_stream(struct ketw_file_stream *s);
void ketw_swap_records(unsigned char *p, size_t len, size_t hdr_size);

/*
 * input.c: check a file header at @buf (@len bytes of file, the header
 * and what follows) and copy it into @h in host order (fields a shorter
 * header lacks 0, strings terminated); *@swapped if it is of the other
 * byte order. 0, -EBADMSG or -EPROTONOSUPPORT, a message in @err.
 */
int ketw_file_header_parse(const void *buf, size_t len,
			   struct ketw_file_header *h, bool *swapped,
			   char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* _KETW_LIB_INTERNAL_H */
