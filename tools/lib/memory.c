// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: what session buffers cost, and what the machine and ketw's cap
 * allow, as the kernel counts them (module/memory.c), so that a refusal
 * can be explained in numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libketw.h"

#define KETW_MODULE	"/sys/module/ketw/"
#define KETW_PARAMS	KETW_MODULE "parameters/"

/* The first number in @path, or -1. */
static long long read_number(const char *path, const char *key)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen(path, "r");
	size_t n = key ? strlen(key) : 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (key && (strncmp(line, key, n) || line[n] != ':'))
			continue;
		v = strtoll(line + n + (key ? 1 : 0), NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/* CPUs the kernel allocates buffers for: the possible ones ("0-3,6"). */
static unsigned int possible_cpus(void)
{
	char buf[256], *p = buf, *end;
	unsigned long a, b, n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		if (f)
			fclose(f);
		return c > 0 ? (unsigned int)c : 1;
	}
	fclose(f);
	while (*p && *p != '\n') {
		a = strtoul(p, &end, 10);
		b = *end == '-' ? strtoul(end + 1, &end, 10) : a;
		n += b >= a ? b - a + 1 : 0;
		p = *end == ',' ? end + 1 : end;
		if (end == buf)
			break;
	}
	return n ? (unsigned int)n : 1;
}

uint64_t ketw_memory_need(uint32_t buffer_kb, unsigned int nr_cpus)
{
	const uint64_t page = 4096;
	uint64_t size = page, ptrs;

	if (!buffer_kb)
		buffer_kb = KETW_BUFFER_KB_DEFAULT;
	while (size < (uint64_t)buffer_kb * 1024)
		size <<= 1;
	ptrs = (size / page * sizeof(void *) + page - 1) / page * page;
	return (size + page + ptrs) * nr_cpus + page;
}

int ketw_memory_get(struct ketw_memory *m)
{
	long long cap, used, avail, total;

	memset(m, 0, sizeof(*m));
	m->nr_cpus = possible_cpus();
	cap = read_number(KETW_PARAMS "max_buffer_kb", NULL);
	used = read_number(KETW_MODULE "buffer_used_kb", NULL);
	avail = read_number("/proc/meminfo", "MemAvailable");
	total = read_number("/proc/meminfo", "MemTotal");
	if (avail < 0 || total < 0)
		return -ENOENT;
	/* The kernel keeps a sixteenth of RAM, at least 32 MiB, free. */
	m->margin = (uint64_t)total * 1024 / 16;
	if (m->margin < 32ull << 20)
		m->margin = 32ull << 20;
	m->available = (uint64_t)avail * 1024;
	m->available = m->available > m->margin ? m->available - m->margin : 0;
	if (cap < 0 || used < 0)
		return -ENODEV;		/* no ketw module loaded */
	m->cap = (uint64_t)cap * 1024;
	m->used = (uint64_t)used * 1024;
	m->have_cap = true;
	return 0;
}
