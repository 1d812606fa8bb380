// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: helpers shared by the subcommands: messages, options, the device.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ketw.h"

int ketw_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ketw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return KETW_EXIT_ERROR;
}

int ketw_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("ketw: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "Try 'ketw %s --help'.\n", cmd);
	else
		fputs("Try 'ketw help'.\n", stderr);
	return KETW_EXIT_USAGE;
}

int ketw_getopt(int argc, char **argv, const char *optstring,
		int *exit_code)
{
	return ketw_getopt_long(argc, argv, optstring, NULL, exit_code);
}

int ketw_getopt_long(int argc, char **argv, const char *optstring,
		     const struct option *extra, int *exit_code)
{
	struct option longopts[16] = {
		{ "help", no_argument, NULL, 'h' },
	};
	unsigned int n = 1;
	char opts[64];
	int c;

	for (; extra && extra[n - 1].name && n < 15; n++)
		longopts[n] = extra[n - 1];
	memset(&longopts[n], 0, sizeof(longopts[n]));
	/* ':' first: tell a missing argument from an unknown option. */
	snprintf(opts, sizeof(opts), ":%sh", optstring);
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, NULL);
	switch (c) {
	case 'h':
		ketw_usage_print(argv[0]);
		*exit_code = KETW_EXIT_OK;
		return '?';
	case ':':
		*exit_code = ketw_usage_error(argv[0],
					      "option -%c needs an argument",
					      optopt);
		return '?';
	case '?':
		if (optopt && optopt < 0x100)
			*exit_code = ketw_usage_error(argv[0],
						      "unknown option -%c",
						      optopt);
		else
			*exit_code = ketw_usage_error(argv[0],
						      "unknown option %s",
						      argv[optind - 1]);
		return '?';
	default:
		return c;
	}
}

int ketw_check_session_name(const char *cmd, const char *name)
{
	if (ketw_session_name_valid(name))
		return 0;
	return ketw_usage_error(cmd,
		"-s: '%s' is not a session name (1 to %d characters of A-Z a-z 0-9 _ . -)",
		name, KETW_NAME_MAX - 1);
}

int ketw_opt_u64(const char *cmd, char opt, const char *arg, const char *what,
		 uint64_t min, uint64_t max, uint64_t *out)
{
	int err = ketw_parse_u64(arg, UINT64_MAX, out);

	if (err == -EINVAL)
		return ketw_usage_error(cmd, "-%c: '%s' is not %s", opt, arg,
					what);
	if (err || *out < min || *out > max)
		return ketw_usage_error(cmd,
			"-%c: %s is out of range (%llu to %llu)", opt, arg,
			(unsigned long long)min, (unsigned long long)max);
	return 0;
}

int ketw_open_device(int flags)
{
	const char *path = getenv(KETW_DEVICE_ENV);
	const char *hint = "";
	int fd;

	if (!path || !*path)
		path = KETW_DEVICE;
	fd = ketw_device_open(path, flags);
	if (fd >= 0)
		return fd;
	switch (-fd) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		hint = " (is the ketw module loaded?)";
		break;
	case EACCES:
	case EPERM:
		hint = " (ketw needs root: CAP_SYS_ADMIN)";
		break;
	}
	ketw_error("cannot open %s: %s%s", path, strerror(-fd), hint);
	return -1;
}

int ketw_session_error(const char *op, const char *name, int err)
{
	switch (-err) {
	case ENOENT:
		return ketw_error("session '%s' does not exist", name);
	case EEXIST:
		return ketw_error("session '%s' already exists (remove it with 'ketw reset -s %s', or choose another name with -s)",
				  name, name);
	case ENOTTY:
		return ketw_error("cannot %s session '%s': %s (is %s a ketw device?)",
				  op, name, strerror(-err),
				  getenv(KETW_DEVICE_ENV) ?
				  getenv(KETW_DEVICE_ENV) : KETW_DEVICE);
	case ENOSPC:
		return ketw_error("cannot %s session '%s': too many sessions (remove one with 'ketw reset -s NAME')",
				  op, name);
	case EBUSY:
		if (!strcmp(op, "start"))
			return ketw_error("session '%s' is already running",
					  name);
		if (!strcmp(op, "remove"))
			return ketw_error("session '%s' is in use by another reader (end that process first)",
					  name);
		break;
	}
	return ketw_error("cannot %s session '%s': %s", op, name,
			  strerror(-err));
}

char *ketw_time_format(uint64_t ns, char *buf, size_t len)
{
	time_t t = ns / 1000000000ull;
	struct tm tm;
	size_t n = 0;

	if (gmtime_r(&t, &tm))
		n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	if (!n) {
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
		return buf;
	}
	snprintf(buf + n, len - n, ".%09llu UTC",
		 (unsigned long long)(ns % 1000000000ull));
	return buf;
}

char *ketw_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = bytes;
	unsigned int i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	for (v /= 1024; v >= 1024 && i + 1 < sizeof(units) / sizeof(units[0]);
	     v /= 1024)
		i++;
	snprintf(buf, len, "%.1f %s", v, units[i]);
	return buf;
}

static uint64_t ketw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#define KETW_PROGRESS_DELAY_NS	1000000000ull	/* show after a second */
#define KETW_PROGRESS_EVERY_NS	200000000ull	/* then 5 times a second */

void ketw_progress_init(struct ketw_progress *p, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->enabled = isatty(STDERR_FILENO);
	p->start_ns = ketw_now_ns();
}

void ketw_progress_update(struct ketw_progress *p, uint64_t done,
			  uint64_t total, uint64_t records)
{
	char a[32], b[32];
	uint64_t now;

	if (!p->enabled)
		return;
	now = ketw_now_ns();
	if (now - p->start_ns < KETW_PROGRESS_DELAY_NS ||
	    (p->shown && now - p->last_ns < KETW_PROGRESS_EVERY_NS))
		return;
	p->last_ns = now;
	p->shown = true;
	ketw_size_format(done, a, sizeof(a));
	if (total) {
		if (done > total)
			done = total;	/* records that came in meanwhile */
		ketw_size_format(total, b, sizeof(b));
		fprintf(stderr, "\r\033[K%s: %s of %s (%u%%), %llu records",
			p->what, a, b, (unsigned int)(done * 100 / total),
			(unsigned long long)records);
	} else {
		fprintf(stderr, "\r\033[K%s: %s, %llu records", p->what, a,
			(unsigned long long)records);
	}
	fflush(stderr);
}

void ketw_progress_end(struct ketw_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

int ketw_get_cpu_stats(int fd, const char *name, unsigned int nr,
		       struct ketw_cpu_stats *st, bool *valid)
{
	unsigned int cpu;
	int err;

	for (cpu = 0; cpu < nr; cpu++) {
		err = ketw_session_get_cpu_stats(fd, name, cpu, &st[cpu]);
		valid[cpu] = !err;
		st[cpu].cpu = cpu;
		if (err == -EINVAL)	/* not a possible CPU */
			continue;
		if (err)
			return ketw_session_error("read the counters of",
						  name, err);
	}
	return 0;
}

void ketw_print_cpu_stats(const struct ketw_cpu_stats *st, const bool *valid,
			  unsigned int nr)
{
	unsigned int cpu;

	printf("  cpu    written  lost_full  overwritten  lost_busy  lost_nested  truncated       read   sequence    pending\n");
	for (cpu = 0; cpu < nr; cpu++) {
		if (!valid[cpu])
			continue;
		printf("  %3u %10llu %10llu %12llu %10llu %12llu %10llu %10llu %10llu %10u\n",
		       cpu, (unsigned long long)st[cpu].written,
		       (unsigned long long)st[cpu].lost_full,
		       (unsigned long long)st[cpu].overwritten,
		       (unsigned long long)st[cpu].lost_busy,
		       (unsigned long long)st[cpu].lost_nested,
		       (unsigned long long)st[cpu].truncated,
		       (unsigned long long)st[cpu].read,
		       (unsigned long long)st[cpu].sequence,
		       (uint32_t)(st[cpu].produced - st[cpu].consumed));
	}
}

int ketw_cpu_buf_append(struct ketw_cpu_buf *b, const void *p, size_t n)
{
	size_t cap;
	void *q;

	if (b->cap - b->len < n) {
		cap = b->cap ? b->cap : 64 * 1024;
		while (cap - b->len < n)
			cap *= 2;
		q = realloc(b->data, cap);
		if (!q)
			return -ENOMEM;
		b->data = q;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void ketw_cpu_bufs_free(struct ketw_cpu_buf *b, unsigned int nr)
{
	unsigned int i;

	for (i = 0; b && i < nr; i++)
		free(b[i].data);
	free(b);
}

int ketw_trace_write(const char *path, const struct ketw_session_attr *attr,
		     const struct ketw_cpu_buf *cpus,
		     const struct ketw_cpu_stats *st, const bool *valid)
{
	struct ketw_output_info info;
	struct ketw_output *out;
	unsigned int cpu;
	int err;

	memset(&info, 0, sizeof(info));
	ketw_output_info_from_attr(&info, attr);
	err = ketw_output_create(path, &info, &out);
	if (err)
		return ketw_error("cannot create %s: %s", path, strerror(-err));
	for (cpu = 0; cpu < attr->nr_cpus && !err; cpu++)
		if (cpus[cpu].len)
			err = ketw_output_add_records(out, cpu, cpus[cpu].data,
						      cpus[cpu].len);
	if (!err)
		err = ketw_output_add_stats(out, st, valid, attr->nr_cpus);
	if (err) {
		ketw_output_abort(out, path);
		return ketw_error("cannot write %s: %s", path, strerror(-err));
	}
	err = ketw_output_close(out);
	if (err) {
		unlink(path);
		return ketw_error("cannot write %s: %s", path, strerror(-err));
	}
	return 0;
}

void ketw_json_string(const char *s, size_t max)
{
	size_t i;

	putchar('"');
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}
