// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: CRC-32C (Castagnoli: reflected polynomial 0x82f63b78, initial
 * value and final xor 0xffffffff), the checksum of stream frames
 * (Documentation/ketw-stream.rst). The check value, of "123456789", is
 * 0xe3069283.
 *
 * x86-64 CPUs with SSE4.2 compute it with the crc32 instruction, 8 bytes
 * at a time; others with eight tables (slicing by 8), which a constructor
 * builds when the library is loaded, before any caller can race for them.
 */
#include <string.h>

#include "internal.h"

#define KETW_CRC32C_POLY	0x82f63b78u

static uint32_t ketw_crc32c_table[8][256];
static bool ketw_crc32c_hw_ok;	/* the CPU has SSE4.2's crc32 */

__attribute__((constructor))
static void ketw_crc32c_init(void)
{
	unsigned int i, j, k;
	uint32_t c;

#if defined(__x86_64__)
	__builtin_cpu_init();
	ketw_crc32c_hw_ok = __builtin_cpu_supports("sse4.2");
#endif

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (KETW_CRC32C_POLY & -(c & 1));
		ketw_crc32c_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++) {
			c = ketw_crc32c_table[j - 1][i];
			ketw_crc32c_table[j][i] = (c >> 8) ^
				ketw_crc32c_table[0][c & 0xff];
		}
}

/* Little-endian load of 8 bytes, whatever the alignment. */
static uint64_t ketw_le64_load(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t ketw_crc32c_sw(uint32_t c, const unsigned char *p,
			       size_t len)
{
	const uint32_t (*t)[256] = ketw_crc32c_table;
	uint64_t v;

	for (; len >= 8; len -= 8, p += 8) {
		v = ketw_le64_load(p) ^ c;
		c = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^
		    t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
		    t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^
		    t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
	}
	while (len--)
		c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t ketw_crc32c_hw(uint32_t c, const unsigned char *p,
			       size_t len)
{
	uint64_t c64 = c, v;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&v, p, sizeof(v));
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	c = (uint32_t)c64;
	while (len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t ketw_crc32c(uint32_t crc, const void *buf, size_t len)
{
	uint32_t c = ~crc;

#if defined(__x86_64__)
	if (ketw_crc32c_hw_ok)
		return ~ketw_crc32c_hw(c, buf, len);
#endif
	return ~ketw_crc32c_sw(c, buf, len);
}

uint32_t ketw_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
	return ~ketw_crc32c_sw(~crc, buf, len);
}
