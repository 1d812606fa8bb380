// SPDX-License-Identifier: GPL-2.0
/*
 * ketw log: log text events from the command line or a pipe through a
 * user-space provider, with libketw's provider API (ketw_provider.h),
 * the one any program uses: register "user.PROVIDER" with one event
 * descriptor, write, unregister.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "KETW_USER_DEVICE" in the environment names another node. */
#define KETW_USER_DEVICE_ENV	"KETW_USER_DEVICE"

/* A name-based GUID (RFC 9562 version 8) when -g gives none. */
static void log_guid_of(const char *name, uint8_t guid[KETW_GUID_SIZE])
{
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x6b6574772d6c6f67ull };
	unsigned int i, j;

	for (j = 0; j < 2; j++)
		for (i = 0; name[i]; i++)
			h[j] = (h[j] ^ (uint8_t)name[i]) * 0x100000001b3ull;
	for (i = 0; i < KETW_GUID_SIZE; i++)
		guid[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
	guid[6] = (guid[6] & 0x0f) | 0x80;	/* version 8 */
	guid[8] = (guid[8] & 0x3f) | 0x80;	/* RFC 9562 variant */
}

static int log_register_error(const char *name, int err)
{
	switch (-err) {
	case ENOENT:
	case ENODEV:
		return cli_error("cannot register provider '%s': no %s (is the ketw module loaded?)",
				  name, KETW_USER_DEVICE);
	case EPERM:
	case EACCES:
		return cli_error("cannot register provider '%s': %s is for root and the group of ketw's user_gid parameter",
				  name, KETW_USER_DEVICE);
	case EEXIST:
		if (ketw_provider_conflict())
			return cli_error("cannot register provider '%s': %s",
					 name, ketw_provider_conflict_str(ketw_provider_conflict()));
		return cli_error("cannot register provider '%s': a provider with its name or GUID is registered",
				  name);
	case ENOSPC:
		return cli_error("cannot register provider '%s': this user has user_max_providers providers registered",
				  name);
	default:
		return cli_error("cannot register provider '%s': %s", name,
				  strerror(-err));
	}
}

struct log_counts {
	unsigned long events, stored, limited;
};

static int log_one(struct ketw_provider *prov,
		   const struct ketw_event_descriptor *desc, const char *text,
		   struct log_counts *c)
{
	size_t len = strlen(text) + 1;
	int ret;

	if (len > KETW_MAX_DATA_SIZE)
		len = KETW_MAX_DATA_SIZE;
	ret = ketw_write(prov, desc, text, len);
	c->events++;
	if (ret == -EAGAIN) {
		c->limited++;
		return 0;
	}
	if (ret < 0)
		return cli_error("cannot log: %s", strerror(-ret));
	c->stored += ret;
	return 0;
}

int cmd_log(int argc, char **argv)
{
	static const struct ketw_field text_field[] = {
		{ .name = "text", .type = KETW_FIELD_STRING },
	};
	struct ketw_event_descriptor desc = {
		.id = 1, .level = KETW_LEVEL_INFO, .name = "message",
		.fields = text_field, .nr_fields = 1,
	};
	struct ketw_provider prov = {
		.page = &ketw_provider_off, .fd = -1, .events = &desc,
		.nr_events = 1,
	};
	struct log_counts counts = { 0 };
	bool have_guid = false;
	char *line = NULL, *msg;
	size_t cap = 0, n;
	unsigned int level;
	uint64_t v;
	ssize_t got;
	int c, i, err, ret = CLI_EXIT_OK;

	while ((c = cli_getopt(argc, argv, "g:i:l:k:e:", &ret)) != -1) {
		switch (c) {
		case 'g':
			if (ketw_guid_parse(optarg, prov.guid) ||
			    ketw_guid_is_zero(prov.guid))
				return cli_usage_error(argv[0], "-g: '%s' is not a GUID (8-4-4-4-12 hex digits, not all zero)",
							optarg);
			have_guid = true;
			break;
		case 'i':
			ret = cli_opt_u64(argv[0], 'i', optarg, "an event id",
					   0, UINT32_MAX, &v);
			if (ret)
				return ret;
			desc.id = (uint32_t)v;
			break;
		case 'l':
			if (ketw_parse_level(optarg, &level))
				return cli_usage_error(argv[0], "-l: '%s' is not a level",
							optarg);
			desc.level = (uint8_t)level;
			break;
		case 'k':
			ret = cli_opt_u64(argv[0], 'k', optarg, "a keyword mask",
					   0, UINT64_MAX, &v);
			if (ret)
				return ret;
			desc.keyword = v;
			break;
		case 'e':
			if (!*optarg || strlen(optarg) >= KETW_NAME_MAX ||
			    strpbrk(optarg, " \t\n"))
				return cli_usage_error(argv[0], "-e: '%s' is not an event name (1-31 characters, no blank)",
							optarg);
			desc.name = optarg;
			break;
		default:
			return ret;
		}
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "no provider given");
	prov.name = argv[optind++];
	if (!*prov.name || strlen(prov.name) + strlen(KETW_USER_PREFIX) >=
			   KETW_NAME_MAX)
		return cli_usage_error(argv[0], "'%s' is not a provider name (1-%zu characters)",
					prov.name,
					KETW_NAME_MAX - 1 - strlen(KETW_USER_PREFIX));
	if (!have_guid)
		log_guid_of(prov.name, prov.guid);

	err = ketw_provider_register_at(&prov, getenv(KETW_USER_DEVICE_ENV));
	if (err)
		return log_register_error(prov.name, err);

	if (optind < argc) {
		/* The words, joined by blanks, as one event. */
		for (n = 0, i = optind; i < argc; i++)
			n += strlen(argv[i]) + 1;
		msg = malloc(n);
		if (!msg) {
			ret = cli_error("out of memory");
			goto out;
		}
		msg[0] = '\0';
		for (i = optind; i < argc; i++) {
			if (i > optind)
				strcat(msg, " ");
			strcat(msg, argv[i]);
		}
		if (log_one(&prov, &desc, msg, &counts))
			ret = CLI_EXIT_ERROR;
		free(msg);
	} else {
		/* Each line of standard input. */
		while ((got = getline(&line, &cap, stdin)) >= 0) {
			if (got && line[got - 1] == '\n')
				line[got - 1] = '\0';
			if (log_one(&prov, &desc, line, &counts)) {
				ret = CLI_EXIT_ERROR;
				break;
			}
		}
		free(line);
	}
	printf("%s%s: %lu event%s, %lu stored by sessions\n", KETW_USER_PREFIX,
	       prov.name, counts.events, counts.events == 1 ? "" : "s",
	       counts.stored);
	if (counts.limited)
		ret = cli_error("%lu event%s not logged: this user's user_max_events or user_max_bytes rate was reached",
				 counts.limited, counts.limited == 1 ? "" : "s");
out:
	ketw_provider_unregister(&prov);
	return ret;
}
