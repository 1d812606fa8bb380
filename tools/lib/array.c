// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: a list ioctl (KETW_IOC_PROVIDERS, KETW_IOC_EVENTS,
 * KETW_IOC_SESSIONS) into a malloc()ed array that grows until it holds
 * every entry. What is listed may change between calls, so it asks again
 * while the kernel's count is above the capacity (a few times at most).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define KETW_LIST_FIRST		16	/* entries asked for the first time */

#define KETW_LIST_SLACK		8	/* room for what appears meanwhile */

#define KETW_LIST_TRIES		16

int ketw_array_get(int fd, size_t entry_size, ketw_array_ask_fn ask,
		   void *ctx, void **out, unsigned int *nr)
{
	unsigned int cap = KETW_LIST_FIRST, count, tries;
	void *arr = NULL, *p;
	int err;

	*out = NULL;
	*nr = 0;
	for (tries = 0; tries < KETW_LIST_TRIES; tries++) {
		p = realloc(arr, (size_t)cap * entry_size);
		if (!p) {
			free(arr);
			return -ENOMEM;
		}
		arr = p;
		memset(arr, 0, (size_t)cap * entry_size);
		count = 0;
		err = ask(fd, ctx, arr, cap, &count);
		if (err) {
			free(arr);
			return err;
		}
		if (count <= cap) {
			if (!count) {
				free(arr);
				arr = NULL;
			}
			*out = arr;
			*nr = count;
			return 0;
		}
		if (count > UINT32_MAX - KETW_LIST_SLACK ||
		    (size_t)count + KETW_LIST_SLACK > SIZE_MAX / entry_size) {
			free(arr);
			return -EOVERFLOW;
		}
		cap = count + KETW_LIST_SLACK;
	}
	free(arr);
	return -EAGAIN;
}
