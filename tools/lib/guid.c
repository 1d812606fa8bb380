// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: GUIDs as text both ways, and provider references (a provider
 * named by its name or by its GUID).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

char *ketw_guid_format(const uint8_t g[KETW_GUID_SIZE],
		       char buf[KETW_GUID_STR_LEN])
{
	snprintf(buf, KETW_GUID_STR_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
		 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
	return buf;
}

int ketw_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ketw_guid_parse(const char *s, uint8_t guid[KETW_GUID_SIZE])
{
	uint8_t g[KETW_GUID_SIZE];
	unsigned int i, n = 0;
	int hi, lo;

	if (!s || strlen(s) != KETW_GUID_STR_LEN - 1)
		return -EINVAL;
	for (i = 0; i < KETW_GUID_STR_LEN - 1;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i++] != '-')
				return -EINVAL;
			continue;
		}
		hi = ketw_hex_digit(s[i]);
		lo = ketw_hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		g[n++] = hi << 4 | lo;
		i += 2;
	}
	memcpy(guid, g, sizeof(g));
	return 0;
}

bool ketw_guid_is_zero(const uint8_t guid[KETW_GUID_SIZE])
{
	unsigned int i;

	for (i = 0; i < KETW_GUID_SIZE; i++)
		if (guid[i])
			return false;
	return true;
}

bool ketw_guid_like(const char *s)
{
	unsigned int hyphens = 0;
	const char *p;

	/* The shape of one, whatever the digits ... */
	if (strlen(s) == KETW_GUID_STR_LEN - 1 && s[8] == '-' &&
	    s[13] == '-' && s[18] == '-' && s[23] == '-')
		return true;
	/* ... or its digits, whatever the lengths. */
	for (p = s; *p; p++) {
		if (*p == '-')
			hyphens++;
		else if (!isxdigit((unsigned char)*p))
			return false;
	}
	return hyphens >= 4;
}

int ketw_provider_ref_parse(const char *s, struct ketw_provider_ref *ref)
{
	size_t n = strlen(s);

	memset(ref, 0, sizeof(*ref));
	if (!n)
		return -EINVAL;
	if (ketw_guid_like(s)) {
		if (ketw_guid_parse(s, ref->guid) ||
		    ketw_guid_is_zero(ref->guid))
			return -EINVAL;
		return 0;
	}
	if (n >= KETW_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(ref->name, s, n);
	return 0;
}

const char *ketw_provider_ref_format(const struct ketw_provider_ref *ref,
				     char buf[KETW_GUID_STR_LEN])
{
	if (ref->name[0]) {
		snprintf(buf, KETW_GUID_STR_LEN, "%.*s", KETW_NAME_MAX - 1,
			 ref->name);
		return buf;
	}
	return ketw_guid_format(ref->guid, buf);
}

bool ketw_provider_ref_names(const struct ketw_provider_ref *ref,
			     const uint8_t guid[KETW_GUID_SIZE],
			     const char *name)
{
	if (ref->name[0])
		return name && !strncmp(ref->name, name, KETW_NAME_MAX);
	return !memcmp(ref->guid, guid, KETW_GUID_SIZE);
}
