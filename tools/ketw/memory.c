// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: buffer memory in words: why a session could not be created, and
 * what sessions take (status, list).
 */
#include <errno.h>
#include <stdio.h>

#include "cli.h"

#define MIB(b)	((double)(b) / (1024.0 * 1024.0))

/* "148 KiB" below 10 MiB, "512.0 MiB" above. */
static const char *size_str(uint64_t b, char *buf, size_t len)
{
	if (b < 10ull << 20)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b + 1023) / 1024);
	else
		snprintf(buf, len, "%.1f MiB", MIB(b));
	return buf;
}

int cli_memory_error(const char *name, uint32_t buffer_kb, int err)
{
	char a[32], b[32], c[32];
	struct ketw_memory m;
	uint64_t need;

	ketw_memory_get(&m);
	need = ketw_memory_need(buffer_kb, m.nr_cpus);
	if (err == -ENOBUFS)
		return cli_error("cannot create session '%s': its buffers need %s, over ketw's cap: %s of %s in use by other sessions (remove one with 'ketw reset -s NAME', use a smaller -b, or raise /sys/module/ketw/parameters/max_buffer_kb)",
				 name, size_str(need, a, sizeof(a)),
				 size_str(m.used, b, sizeof(b)),
				 size_str(m.cap, c, sizeof(c)));
	return cli_error("cannot create session '%s': its buffers need %s (%u cpus), %s available (MemAvailable less a margin of %s the kernel keeps free); use a smaller -b",
			 name, size_str(need, a, sizeof(a)), m.nr_cpus,
			 size_str(m.available, b, sizeof(b)),
			 size_str(m.margin, c, sizeof(c)));
}

void cli_memory_print(uint64_t session_bytes)
{
	char a[32], b[32], c[32];
	struct ketw_memory m;

	if (ketw_memory_get(&m) || !m.have_cap) {
		if (session_bytes)
			printf("memory:   %s of buffers\n",
			       size_str(session_bytes, a, sizeof(a)));
		return;
	}
	if (session_bytes)
		printf("memory:   %s of buffers; all sessions %s of %s (max_buffer_kb)\n",
		       size_str(session_bytes, a, sizeof(a)),
		       size_str(m.used, b, sizeof(b)),
		       size_str(m.cap, c, sizeof(c)));
	else
		printf("buffers:  all sessions take %s of %s (max_buffer_kb)\n",
		       size_str(m.used, b, sizeof(b)),
		       size_str(m.cap, c, sizeof(c)));
}
