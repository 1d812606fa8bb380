// SPDX-License-Identifier: GPL-2.0
/*
 * ketw status: without -s, every session in a table (ETW's
 * QueryAllTraces, "logman query -ets"); with -s, one session's POSIX
 * trace stream status (running or suspended, full, overrun, flush and
 * its error), its totals and its per-CPU counters; as text or JSON.
 *
 * Reading the status resets the overrun status and the flush error in
 * the kernel (as posix_trace_get_status() does): two calls in a row
 * differ.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* "-110 ETIMEDOUT", "0" */
static const char *status_errno(int err, char *buf, size_t len)
{
	const char *name = ketw_errno_name(err);

	if (!err)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%d %s", err, name ? name : "(unknown)");
	return buf;
}

static void status_text(const struct ketw_session_status *ss,
			const struct ketw_cpu_stats *st, const bool *valid,
			const struct ketw_session_attr *attr, const char *pids)
{
	char e[48], items[128];

	printf("session:  %s (%s%s)\n", ss->name,
	       cli_or(ketw_state_name(ss->state), "?"),
	       ss->auto_stopped ? ", stopped by the full policy" : "");
	printf("full:     %s\n",
	       ss->full_status == KETW_FULL_FULL ? "yes" : "no");
	printf("overrun:  %s\n",
	       ss->overrun_status == KETW_OVERRUN_OVERRUN ?
	       "yes, events were lost or overwritten since the last status" :
	       "no, nothing lost since the last status");
	printf("flush:    %s, error %s%s\n",
	       ss->flush_status == KETW_FLUSH_FLUSHING ? "flushing" :
							 "not flushing",
	       status_errno(ss->flush_error, e, sizeof(e)),
	       ss->flush_error == -ETIMEDOUT ?
	       " (no reader drained the session in time)" : "");
	printf("totals:   %llu written, %llu lost, %llu overwritten (%u cpus)\n",
	       (unsigned long long)ss->written, (unsigned long long)ss->lost,
	       (unsigned long long)ss->overwritten, ss->nr_cpus);
	if (ss->triggers_fired)
		printf("triggers: fired %u times, %u snapshots ready, %u wake-ups\n",
		       ss->triggers_fired, ss->snapshots_ready, ss->wakeups);
	if (pids)
		printf("pids:     %s\n", pids);
	if (attr->ext_items)
		printf("items:    %s (by default, for every provider it enables)\n",
		       ketw_ext_items_format(attr->ext_items, items,
					     sizeof(items)));
	cli_memory_print(attr->memory);
	printf("\n");
	cli_print_cpu_stats(st, valid, ss->nr_cpus);
}

/* "pids": the process filter, null without one. */
static void status_json_pids(struct cli_json *j, int fd, const char *name,
			     const struct ketw_session_status *ss)
{
	static int32_t pids[KETW_PIDS_MAX];
	uint32_t count, flags, i;

	if (ketw_session_get_pids(fd, name, pids, KETW_PIDS_MAX, &count,
				  &flags))
		return;		/* a module without process filters */
	cli_json_key(j, "pids");
	if (!(flags & KETW_PIDS_ACTIVE)) {
		cli_json_null(j);
	} else {
		cli_json_array(j, false);
		for (i = 0; i < count && i < KETW_PIDS_MAX; i++)
			cli_json_u64(j, pids[i]);
		cli_json_end(j);
	}
	cli_json_key(j, "pids_inherit");
	cli_json_bool(j, flags & KETW_PIDS_INHERIT);
	cli_json_key(j, "pids_dropped");
	cli_json_u64(j, ss->pids_dropped);
}

static void status_json(const struct ketw_session_status *ss,
			const struct ketw_cpu_stats *st, const bool *valid,
			const struct ketw_session_attr *attr, int fd)
{
	const char *ename = ketw_errno_name(ss->flush_error);
	struct cli_json j;
	unsigned int cpu;
	char items[128];

	cli_json_init(&j, stdout, true);
	cli_json_object(&j, true);
	cli_json_key(&j, "session");
	cli_json_string(&j, ss->name, sizeof(ss->name));
	cli_json_key(&j, "state");
	cli_json_string_or_null(&j, cli_or(ketw_state_name(ss->state),
					   "unknown"));
	cli_json_key(&j, "full");
	cli_json_bool(&j, ss->full_status == KETW_FULL_FULL);
	cli_json_key(&j, "overrun");
	cli_json_bool(&j, ss->overrun_status == KETW_OVERRUN_OVERRUN);
	cli_json_key(&j, "flushing");
	cli_json_bool(&j, ss->flush_status == KETW_FLUSH_FLUSHING);
	cli_json_key(&j, "flush_error");
	cli_json_s64(&j, ss->flush_error);
	cli_json_key(&j, "flush_error_name");
	cli_json_string_or_null(&j, ss->flush_error ? ename : NULL);
	cli_json_key(&j, "auto_stopped");
	cli_json_bool(&j, ss->auto_stopped);
	cli_json_key(&j, "nr_cpus");
	cli_json_u64(&j, ss->nr_cpus);
	cli_json_key(&j, "written");
	cli_json_u64(&j, ss->written);
	cli_json_key(&j, "lost");
	cli_json_u64(&j, ss->lost);
	cli_json_key(&j, "overwritten");
	cli_json_u64(&j, ss->overwritten);
	cli_json_key(&j, "triggers");
	cli_json_object(&j, false);
	cli_json_key(&j, "fired");
	cli_json_u64(&j, ss->triggers_fired);
	cli_json_key(&j, "snapshots_ready");
	cli_json_u64(&j, ss->snapshots_ready);
	cli_json_key(&j, "wakeups");
	cli_json_u64(&j, ss->wakeups);
	cli_json_end(&j);
	cli_json_key(&j, "items");
	cli_json_string(&j, ketw_ext_items_format(attr->ext_items, items,
						  sizeof(items)),
			sizeof(items));
	cli_json_key(&j, "memory");
	cli_json_u64(&j, attr->memory);
	status_json_pids(&j, fd, ss->name, ss);
	cli_json_key(&j, "cpus");
	cli_json_array(&j, true);
	for (cpu = 0; cpu < ss->nr_cpus; cpu++) {
		const struct ketw_cpu_stats *s = &st[cpu];

		if (!valid[cpu])
			continue;
		cli_json_object(&j, false);
		cli_json_key(&j, "cpu");
		cli_json_u64(&j, cpu);
		cli_json_key(&j, "written");
		cli_json_u64(&j, s->written);
		cli_json_key(&j, "lost_full");
		cli_json_u64(&j, s->lost_full);
		cli_json_key(&j, "overwritten");
		cli_json_u64(&j, s->overwritten);
		cli_json_key(&j, "lost_busy");
		cli_json_u64(&j, s->lost_busy);
		cli_json_key(&j, "lost_nested");
		cli_json_u64(&j, s->lost_nested);
		cli_json_key(&j, "truncated");
		cli_json_u64(&j, s->truncated);
		cli_json_key(&j, "read");
		cli_json_u64(&j, s->read);
		cli_json_key(&j, "sequence");
		cli_json_u64(&j, s->sequence);
		cli_json_key(&j, "produced");
		cli_json_u64(&j, s->produced);
		cli_json_key(&j, "consumed");
		cli_json_u64(&j, s->consumed);
		cli_json_key(&j, "pending");
		cli_json_u64(&j, (uint32_t)(s->produced - s->consumed));
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_end(&j);
}

/* "12 KiB", "3 MiB": a per-CPU buffer size. */
static const char *status_kib(uint32_t kb, char *buf, size_t len)
{
	if (kb >= 1024 && !(kb % 1024))
		snprintf(buf, len, "%u MiB", kb / 1024);
	else
		snprintf(buf, len, "%u KiB", kb);
	return buf;
}

static void status_all_text(const struct ketw_session_info *si,
			    unsigned int nr)
{
	char kb[32], prov[16];
	unsigned int i;

	if (!nr) {
		printf("no sessions\n");
		return;
	}
	printf("%-31s %-9s %-10s %-5s %9s %9s %12s %12s %7s\n",
	       "NAME", "STATE", "POLICY", "CLOCK", "BUF/CPU", "PROVIDERS",
	       "WRITTEN", "LOST", "READERS");
	for (i = 0; i < nr; i++) {
		const struct ketw_session_info *x = &si[i];

		if (x->info_flags & KETW_SESSION_INFO_ALL_PROVIDERS)
			snprintf(prov, sizeof(prov), "all");
		else
			snprintf(prov, sizeof(prov), "%u", x->nr_providers);
		printf("%-31.*s %-9s %-10s %-5s %9s %9s %12llu %12llu %7u\n",
		       KETW_NAME_MAX, x->name,
		       cli_or(ketw_state_name(x->state), "?"),
		       cli_or(ketw_policy_name(x->policy), "?"),
		       cli_or(ketw_clock_name(x->clock), "?"),
		       status_kib(x->buffer_kb, kb, sizeof(kb)), prov,
		       (unsigned long long)x->written,
		       (unsigned long long)x->lost, x->readers);
	}
}

static void status_all_json(const struct ketw_session_info *si,
			    unsigned int nr)
{
	struct cli_json j;
	unsigned int i;

	cli_json_init(&j, stdout, true);
	cli_json_array(&j, true);
	for (i = 0; i < nr; i++) {
		const struct ketw_session_info *x = &si[i];
		bool all = x->info_flags & KETW_SESSION_INFO_ALL_PROVIDERS;

		cli_json_object(&j, false);
		cli_json_key(&j, "session");
		cli_json_string(&j, x->name, sizeof(x->name));
		cli_json_key(&j, "state");
		cli_json_string_or_null(&j, ketw_state_name(x->state));
		cli_json_key(&j, "policy");
		cli_json_string_or_null(&j, ketw_policy_name(x->policy));
		cli_json_key(&j, "clock");
		cli_json_string_or_null(&j, ketw_clock_name(x->clock));
		cli_json_key(&j, "buffer_kb");
		cli_json_u64(&j, x->buffer_kb);
		cli_json_key(&j, "nr_cpus");
		cli_json_u64(&j, x->nr_cpus);
		cli_json_key(&j, "level");
		cli_json_u64(&j, x->level);
		cli_json_key(&j, "max_data_size");
		cli_json_u64(&j, x->max_data_size);
		cli_json_key(&j, "all_providers");
		cli_json_bool(&j, all);
		cli_json_key(&j, "providers");
		cli_json_u64(&j, x->nr_providers);
		cli_json_key(&j, "readers");
		cli_json_u64(&j, x->readers);
		cli_json_key(&j, "written");
		cli_json_u64(&j, x->written);
		cli_json_key(&j, "lost");
		cli_json_u64(&j, x->lost);
		cli_json_key(&j, "overwritten");
		cli_json_u64(&j, x->overwritten);
		cli_json_key(&j, "memory");
		cli_json_u64(&j, x->memory);
		cli_json_key(&j, "creation_time");
		cli_json_u64(&j, x->creation_time);
		cli_json_end(&j);
	}
	cli_json_end(&j);
}

/* ketw status without -s: every session. */
static int status_all(bool json)
{
	struct ketw_session_info *si = NULL;
	unsigned int nr = 0;
	int fd, err, ret = CLI_EXIT_OK;

	fd = cli_open_device(0);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	err = ketw_sessions_get(fd, &si, &nr);
	close(fd);
	if (err == -ENOTTY)
		return cli_error("this ketw module cannot list sessions (no KETW_IOC_SESSIONS): name one with -s");
	if (err)
		return cli_error("cannot list the sessions: %s", strerror(-err));
	if (json)
		status_all_json(si, nr);
	else
		status_all_text(si, nr);
	free(si);
	if (fflush(stdout))
		ret = cli_error("writing the status failed: %s",
				strerror(errno));
	return ret;
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	struct ketw_session_status ss;
	static char pids[KETW_PIDS_MAX * 12 + 128];
	struct ketw_session_attr attr;
	struct ketw_cpu_stats *st = NULL;
	bool *valid = NULL, json = false;
	int c, fd, err, ret = CLI_EXIT_OK;

	while ((c = cli_getopt_long(argc, argv, "s:", longopts, &ret)) != -1) {
		switch (c) {
		case 's':
			name = optarg;
			ret = cli_check_session_name(argv[0], name);
			break;
		case CLI_OPT_JSON:
			json = true;
			break;
		default:
			return ret;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);
	if (!name)
		return status_all(json);

	fd = cli_open_device(0);
	if (fd < 0)
		return CLI_EXIT_ERROR;
	err = ketw_session_get_status(fd, name, &ss);
	if (err) {
		ret = cli_session_error("read the status of", name, err);
		goto out;
	}
	ss.name[KETW_NAME_MAX - 1] = '\0';
	/* What the buffers take and the items (0 from an older kernel). */
	if (ketw_session_get_attr(fd, name, &attr))
		memset(&attr, 0, sizeof(attr));
	ret = cli_cpu_stats_alloc(name, ss.nr_cpus, &st, &valid);
	if (ret)
		goto out;
	ret = cli_get_cpu_stats(fd, name, ss.nr_cpus, st, valid);
	if (ret)
		goto out;
	if (json)
		status_json(&ss, st, valid, &attr, fd);
	else
		status_text(&ss, st, valid, &attr,
			    cli_pids_describe(fd, name, &ss, pids,
					      sizeof(pids)) ? pids : NULL);
	if (fflush(stdout))
		ret = cli_error("writing the status failed: %s",
				strerror(errno));
out:
	free(st);
	free(valid);
	close(fd);
	return ret;
}
