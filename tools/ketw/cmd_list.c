// SPDX-License-Identifier: GPL-2.0
/*
 * ketw list: the registered providers (KETW_IOC_PROVIDERS) and each one's
 * event descriptors with their payload layouts (KETW_IOC_EVENTS), as
 * text or JSON: what -p and -x of 'ketw start' can name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct list_provider {
	struct ketw_provider_info info;
	struct ketw_event_info *events;
	unsigned int nr_events;
};

static const char *list_type(unsigned int type, char *buf, size_t len)
{
	const char *name = ketw_type_name(type);

	if (name)
		return name;
	snprintf(buf, len, "%u", type);
	return buf;
}

static const char *list_level(unsigned int level, char *buf, size_t len)
{
	const char *name = ketw_level_name(level);

	if (!level)
		return "ALL";
	if (name)
		return name;
	snprintf(buf, len, "%u", level);
	return buf;
}

static const char *list_field_type(unsigned int type, char *buf, size_t len)
{
	const char *name = ketw_field_type_name(type);

	if (name)
		return name;
	snprintf(buf, len, "type%u", type);
	return buf;
}

static void list_text(const struct list_provider *p, unsigned int nr,
		      bool all)
{
	char g[KETW_GUID_STR_LEN], t[16], l[16], ft[16];
	unsigned int i, k, f;

	if (all) {
		cli_memory_print(0);
		printf("%u provider%s registered\n", nr, nr == 1 ? "" : "s");
	}
	if (!nr)
		return;
	printf("  %-36s  %-31s %6s %8s  %s\n", "GUID", "NAME", "EVENTS",
	       "SESSIONS", "FLAGS");
	for (i = 0; i < nr; i++) {
		printf("  %s  %-31.*s %6u %8u  ",
		       ketw_guid_format(p[i].info.provider_guid, g),
		       KETW_NAME_MAX, p[i].info.name, p[i].info.nr_events,
		       p[i].info.nr_sessions);
		if (p[i].info.flags & KETW_PROVIDER_USER)
			printf("USER uid=%u\n", p[i].info.uid);
		else
			printf("-\n");
	}
	for (i = 0; i < nr; i++) {
		printf("\n%.*s (%s): ", KETW_NAME_MAX, p[i].info.name,
		       ketw_guid_format(p[i].info.provider_guid, g));
		if (!p[i].nr_events) {
			printf("no event descriptors%s\n",
			       p[i].info.flags & KETW_PROVIDER_USER ?
			       " (a user-space provider: its payloads stay in hex)" :
			       "");
			continue;
		}
		printf("%u event%s\n", p[i].nr_events,
		       p[i].nr_events == 1 ? "" : "s");
		printf("  %6s  %-24s %-10s %-8s %-18s %7s\n", "ID", "NAME",
		       "TYPE", "LEVEL", "KEYWORD", "VERSION");
		for (k = 0; k < p[i].nr_events; k++) {
			const struct ketw_event_info *ev = &p[i].events[k];

			printf("  %6u  %-24.*s %-10s %-8s 0x%-16llx %7u\n",
			       ev->id, KETW_NAME_MAX, ev->name,
			       list_type(ev->type, t, sizeof(t)),
			       list_level(ev->level, l, sizeof(l)),
			       (unsigned long long)ev->keyword, ev->version);
			for (f = 0; f < ev->nr_fields && f < KETW_MAX_FIELDS;
			     f++) {
				const struct ketw_field_info *fi = &ev->fields[f];
				bool rest = !fi->size &&
					    (fi->type == KETW_FIELD_STRING ||
					     fi->type == KETW_FIELD_BINARY);

				printf("          field %-24.*s %-7s offset %-5u size %u%s\n",
				       KETW_FIELD_NAME_MAX, fi->name,
				       list_field_type(fi->type, ft, sizeof(ft)),
				       fi->offset, fi->size,
				       rest ? " (to the payload's end)" : "");
			}
		}
	}
}

static void list_json(const struct list_provider *p, unsigned int nr)
{
	char g[KETW_GUID_STR_LEN], ft[16];
	bool user;
	unsigned int i, k, f;
	struct cli_json j;

	cli_json_init(&j, stdout, true);
	cli_json_object(&j, true);
	cli_json_key(&j, "providers");
	cli_json_array(&j, true);
	for (i = 0; i < nr; i++) {
		user = p[i].info.flags & KETW_PROVIDER_USER;
		cli_json_object(&j, false);
		cli_json_key(&j, "guid");
		cli_json_string_or_null(&j, ketw_guid_format(p[i].info.provider_guid, g));
		cli_json_key(&j, "name");
		cli_json_string(&j, p[i].info.name, KETW_NAME_MAX);
		cli_json_key(&j, "nr_events");
		cli_json_u64(&j, p[i].info.nr_events);
		cli_json_key(&j, "flags");
		cli_json_array(&j, false);
		if (user)
			cli_json_string_or_null(&j, "USER");
		cli_json_end(&j);
		cli_json_key(&j, "user");
		cli_json_bool(&j, user);
		if (user) {
			cli_json_key(&j, "uid");
			cli_json_u64(&j, p[i].info.uid);
		}
		cli_json_key(&j, "sessions");
		cli_json_u64(&j, p[i].info.nr_sessions);
		cli_json_key(&j, "events");
		cli_json_array(&j, true);
		for (k = 0; k < p[i].nr_events; k++) {
			const struct ketw_event_info *ev = &p[i].events[k];

			cli_json_object(&j, false);
			cli_json_key(&j, "id");
			cli_json_u64(&j, ev->id);
			cli_json_key(&j, "name");
			cli_json_string(&j, ev->name, KETW_NAME_MAX);
			cli_json_key(&j, "type");
			cli_json_u64(&j, ev->type);
			cli_json_key(&j, "type_name");
			cli_json_string_or_null(&j, ketw_type_name(ev->type));
			cli_json_key(&j, "level");
			cli_json_u64(&j, ev->level);
			cli_json_key(&j, "level_name");
			cli_json_string_or_null(&j, ev->level ?
						ketw_level_name(ev->level) :
						"ALL");
			cli_json_key(&j, "keyword");
			cli_json_stringf(&j, "0x%llx",
					 (unsigned long long)ev->keyword);
			cli_json_key(&j, "version");
			cli_json_u64(&j, ev->version);
			cli_json_key(&j, "fields");
			cli_json_array(&j, false);
			for (f = 0; f < ev->nr_fields && f < KETW_MAX_FIELDS;
			     f++) {
				const struct ketw_field_info *fi = &ev->fields[f];

				cli_json_object(&j, false);
				cli_json_key(&j, "name");
				cli_json_string(&j, fi->name,
						KETW_FIELD_NAME_MAX);
				cli_json_key(&j, "type");
				cli_json_string_or_null(&j,
					list_field_type(fi->type, ft, sizeof(ft)));
				cli_json_key(&j, "offset");
				cli_json_u64(&j, fi->offset);
				cli_json_key(&j, "size");
				cli_json_u64(&j, fi->size);
				cli_json_end(&j);
			}
			cli_json_end(&j);
			cli_json_end(&j);
		}
		cli_json_end(&j);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_end(&j);
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "provider", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct ketw_provider_info *infos = NULL;
	struct list_provider *p = NULL;
	struct ketw_provider_ref only, ref;
	const char *only_arg = NULL;
	unsigned int i, nr = 0, n = 0;
	bool json = false;
	char err[256];
	int c, fd, e, ret = CLI_EXIT_OK;

	while ((c = cli_getopt_long(argc, argv, "p:", longopts, &ret)) != -1) {
		switch (c) {
		case 'p':
			only_arg = optarg;
			if (strchr(optarg, ':'))
				return cli_usage_error(argv[0],
					"-p: '%s': list takes a provider's name or GUID only",
					optarg);
			if (ketw_parse_enable(optarg, &(struct ketw_enable_spec){ 0 },
					      err, sizeof(err)))
				return cli_usage_error(argv[0], "-p: %s", err);
			ketw_provider_ref_parse(optarg, &only);
			break;
		case CLI_OPT_JSON:
			json = true;
			break;
		default:
			return ret;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);

	fd = cli_open_device(0);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	e = ketw_providers_get(fd, &infos, &nr);
	if (e) {
		if (e == -ENOTTY)
			ret = cli_error("cannot list the providers: %s (is %s a ketw device, and as new as this tool?)",
					strerror(-e),
					getenv(CLI_DEVICE_ENV) ?
					getenv(CLI_DEVICE_ENV) : KETW_DEVICE);
		else
			ret = cli_error("cannot list the providers: %s",
					strerror(-e));
		goto out;
	}
	p = calloc(nr ? nr : 1, sizeof(*p));
	if (!p) {
		ret = cli_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		char name[KETW_NAME_MAX + 1];

		snprintf(name, sizeof(name), "%.*s", KETW_NAME_MAX,
			 infos[i].name);
		if (only_arg && !ketw_provider_ref_names(&only,
							 infos[i].provider_guid,
							 name))
			continue;
		p[n].info = infos[i];
		if (infos[i].nr_events) {
			/*
			 * By GUID, which names a kernel provider: a user
			 * provider (which may share a kernel provider's
			 * GUID) by its name, unique in both namespaces.
			 */
			memset(&ref, 0, sizeof(ref));
			if (infos[i].flags & KETW_PROVIDER_USER)
				memcpy(ref.name, infos[i].name, KETW_NAME_MAX);
			else
				memcpy(ref.guid, infos[i].provider_guid,
				       KETW_GUID_SIZE);
			e = ketw_provider_events_get(fd, &ref, &p[n].events,
						     &p[n].nr_events);
			if (e == -ENOENT)
				continue;	/* it went away meanwhile */
			if (e) {
				ret = cli_error("cannot list the events of provider '%s': %s",
						name, strerror(-e));
				goto out;
			}
		}
		n++;
	}
	if (only_arg && !n) {
		ret = cli_error("no provider '%s' is registered ('ketw list' shows those that are)",
				only_arg);
		goto out;
	}
	if (json)
		list_json(p, n);
	else
		list_text(p, n, !only_arg);
	if (fflush(stdout))
		ret = cli_error("writing the list failed: %s",
				strerror(errno));
out:
	for (i = 0; p && i < nr; i++)
		free(p[i].events);
	free(p);
	free(infos);
	close(fd);
	return ret;
}
