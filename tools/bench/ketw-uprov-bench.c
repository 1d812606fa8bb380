// SPDX-License-Identifier: GPL-2.0
/*
 * ketw-uprov-bench: what a user-space provider's call site costs, through
 * libketw (ketw_provider.h) as any program links it. Part of "make bench";
 * runs in the guest, as root.
 *
 *   ketw-uprov-bench             no session may take the provider: a loop
 *                                of ketw_write() (the enable page says no,
 *                                no system call) against the same loop
 *                                calling an empty noinline function with
 *                                the same arguments, and against the loop
 *                                alone; interleaved, REPS runs of LOOPS
 *                                turns each. Prints
 *                                "uprov-disabled write_ps=.. empty_ps=..
 *                                none_ps=.. (fastest) ..._med_ps (medians)"
 *   ketw-uprov-bench --enabled   a running session takes it: ketw_write()
 *                                of SIZE bytes (KETW_IOC_USER_WRITEV), the
 *                                median of REPS runs of EVENTS events.
 *                                Prints "uprov-enabled ps=.. stored=.."
 *
 *   ketw-uprov-bench --floor     a running session takes it: what the
 *                                write's system call costs, interleaved,
 *                                the median of REPS runs of EVENTS calls
 *                                each: a null system call (getppid()
 *                                through syscall()), a null ioctl on the
 *                                provider's /dev/ketw_user file (a
 *                                command it does not know: ENOTTY),
 *                                KETW_IOC_USER_WRITE and _WRITEV (one
 *                                iovec) of SIZE bytes made directly, and
 *                                libketw's ketw_write(). Prints
 *                                "uprov-floor syscall_ps=.. ioctl_ps=..
 *                                user_write_ps=.. user_writev_ps=..
 *                                write_ps=.."
 *
 *   ketw-uprov-bench --unregistered
 *                                the disabled loops without registering:
 *                                the provider's page is libketw's static
 *                                one, the same two loads and test. For
 *                                the build machine's own CPU, which has
 *                                no module loaded (make bench prints it).
 *
 * Options: -n LOOPS (2000000), -r REPS (15), -e EVENTS (20000), -s SIZE (64).
 * The provider is "user.ketw-uprov-bench"; the process runs on CPU 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ketw_provider.h"

#define MAX_REPS	64

static const struct ketw_event_descriptor bench_ev = {
	.id = 1, .level = KETW_LEVEL_INFO, .keyword = 0x1, .name = "bench",
};
static KETW_PROVIDER(bench_prov, "ketw-uprov-bench",
		     { 0x6b, 0x65, 0x74, 0x77, 0x2d, 0x75, 0x70, 0x72,
		       0x6f, 0x76, 0x2d, 0x62, 0x65, 0x6e, 0x63, 0x68 });
static unsigned char payload[KETW_MAX_DATA_SIZE];

#define barrier()	__asm__ __volatile__("" ::: "memory")
/* The compiler may assume nothing about @v from here on. */
#define hide(v)		__asm__ __volatile__("" : "+r"(v))

/* The stand-in for a call that does nothing: out of line, not cloned. */
static __attribute__((noipa)) int
bench_empty(const struct ketw_provider *prov,
	    const struct ketw_event_descriptor *desc, const void *data,
	    size_t len)
{
	(void)prov, (void)desc, (void)data, (void)len;
	return 0;
}

enum kind { K_WRITE, K_EMPTY, K_NONE, K_NR };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Picoseconds per turn of @loops turns of @k. */
static uint64_t run(enum kind k, uint64_t loops, size_t len)
{
	const void *data = payload;
	uint64_t i, t0, t;

	hide(data);
	hide(len);
	t0 = now_ns();
	switch (k) {
	case K_WRITE:
		for (i = 0; i < loops; i++) {
			ketw_write(&bench_prov, &bench_ev, data, len);
			barrier();
		}
		break;
	case K_EMPTY:
		for (i = 0; i < loops; i++) {
			bench_empty(&bench_prov, &bench_ev, data, len);
			barrier();
		}
		break;
	default:
		for (i = 0; i < loops; i++)
			barrier();
		break;
	}
	t = now_ns() - t0;
	return t * 1000 / loops;
}

/* The floor's calls, interleaved in --floor. */
enum floor { F_SYSCALL, F_IOCTL, F_USER_WRITE, F_USER_WRITEV, F_WRITE, F_NR };

/* No ketw ioctl has this number: the dispatcher's first test refuses it. */
#define BENCH_NULL_IOC	_IO(KETW_IOC_MAGIC, 0xff)

/* Picoseconds per call of @events calls of @f, SIZE bytes; -errno. */
static int64_t floor_run(enum floor f, uint64_t events, size_t len)
{
	struct iovec iov = { .iov_base = payload, .iov_len = len };
	struct ketw_user_writev uw = {
		.id = bench_ev.id, .level = bench_ev.level,
		.keyword = bench_ev.keyword, .iov = (uintptr_t)&iov,
		.iovcnt = 1,
	};
	struct ketw_user_event ue;
	uint64_t i, t0;
	long r;

	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.id = bench_ev.id;
	ue.level = bench_ev.level;
	ue.keyword = bench_ev.keyword;
	ue.data = (uintptr_t)payload;
	ue.len = len;
	t0 = now_ns();
	for (i = 0; i < events; i++) {
		switch (f) {
		case F_SYSCALL:
			r = syscall(SYS_getppid);
			break;
		case F_IOCTL:
			r = ioctl(bench_prov.fd, BENCH_NULL_IOC, 0);
			r = r < 0 && errno == ENOTTY ? 0 : -EPROTO;
			break;
		case F_USER_WRITE:
			r = ioctl(bench_prov.fd, KETW_IOC_USER_WRITE, &ue);
			r = r < 0 ? -errno : r;
			break;
		case F_USER_WRITEV:
			r = ioctl(bench_prov.fd, KETW_IOC_USER_WRITEV, &uw);
			r = r < 0 ? -errno : r;
			break;
		default:
			r = ketw_write(&bench_prov, &bench_ev, payload, len);
			break;
		}
		if (r < 0)
			return r;
	}
	return (int64_t)((now_ns() - t0) * 1000 / events);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v; its median. */
static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int usage(void)
{
	fprintf(stderr, "usage: ketw-uprov-bench [--enabled | --floor | --unregistered] [-n LOOPS] [-r REPS] [-e EVENTS] [-s SIZE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "enabled", no_argument, NULL, 'E' },
		{ "floor", no_argument, NULL, 'F' },
		{ "unregistered", no_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t loops = 2000000, events = 20000, v[F_NR][MAX_REPS];
	unsigned int reps = 15, size = 64, i, k;
	uint64_t med[K_NR], t0, stored = 0;
	bool enabled = false, unregistered = false, floor = false;
	cpu_set_t cpus;
	int c, err;

	while ((c = getopt_long(argc, argv, "n:r:e:s:", longopts, NULL)) != -1) {
		switch (c) {
		case 'E':
			enabled = true;
			break;
		case 'F':
			floor = enabled = true;
			break;
		case 'U':
			unregistered = true;
			break;
		case 'n':
			loops = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			events = strtoull(optarg, NULL, 0);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		default:
			return usage();
		}
	}
	if (!loops || !events || !reps || reps > MAX_REPS ||
	    size > KETW_MAX_DATA_SIZE || optind != argc ||
	    (enabled && unregistered))
		return usage();
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	err = unregistered ? 0 : ketw_provider_register(&bench_prov);
	if (err) {
		fprintf(stderr, "ketw-uprov-bench: register: %s\n", strerror(-err));
		return 1;
	}
	if (enabled != ketw_event_enabled(&bench_prov, bench_ev.level,
					  bench_ev.keyword)) {
		fprintf(stderr, "ketw-uprov-bench: a session %s the provider\n",
			enabled ? "must take" : "takes");
		return 1;
	}
	if (floor) {
		for (i = 0; i < reps; i++)
			for (k = 0; k < F_NR; k++) {
				int64_t ps = floor_run(k, events, size);

				if (ps < 0) {
					fprintf(stderr, "ketw-uprov-bench: floor %u: %s\n",
						k, strerror((int)-ps));
					return 1;
				}
				v[k][i] = (uint64_t)ps;
			}
		printf("uprov-floor syscall_ps=%llu ioctl_ps=%llu user_write_ps=%llu user_writev_ps=%llu write_ps=%llu events=%llu reps=%u size=%u\n",
		       (unsigned long long)median(v[F_SYSCALL], reps),
		       (unsigned long long)median(v[F_IOCTL], reps),
		       (unsigned long long)median(v[F_USER_WRITE], reps),
		       (unsigned long long)median(v[F_USER_WRITEV], reps),
		       (unsigned long long)median(v[F_WRITE], reps),
		       (unsigned long long)events, reps, size);
	} else if (!enabled) {
		/* Interleaved, so that drift hits the three alike. */
		for (i = 0; i < reps; i++)
			for (k = 0; k < K_NR; k++)
				v[k][i] = run(k, loops, size);
		if (ketw_enabled(&bench_prov)) {
			fprintf(stderr, "ketw-uprov-bench: a session started meanwhile\n");
			return 1;
		}
		for (k = 0; k < K_NR; k++)
			med[k] = median(v[k], reps);
		printf("uprov-%s write_ps=%llu empty_ps=%llu none_ps=%llu write_med_ps=%llu empty_med_ps=%llu none_med_ps=%llu loops=%llu reps=%u\n",
		       unregistered ? "unregistered" : "disabled",
		       (unsigned long long)v[K_WRITE][0],
		       (unsigned long long)v[K_EMPTY][0],
		       (unsigned long long)v[K_NONE][0],
		       (unsigned long long)med[K_WRITE],
		       (unsigned long long)med[K_EMPTY],
		       (unsigned long long)med[K_NONE],
		       (unsigned long long)loops, reps);
	} else {
		for (i = 0; i < reps; i++) {
			uint64_t j;

			t0 = now_ns();
			for (j = 0; j < events; j++) {
				c = ketw_write(&bench_prov, &bench_ev, payload, size);
				if (c < 0) {
					fprintf(stderr, "ketw-uprov-bench: write: %s\n",
						strerror(-c));
					return 1;
				}
				stored += c;
			}
			v[0][i] = (now_ns() - t0) * 1000 / events;
		}
		printf("uprov-enabled ps=%llu stored=%llu events=%llu reps=%u size=%u\n",
		       (unsigned long long)median(v[0], reps),
		       (unsigned long long)stored,
		       (unsigned long long)events, reps, size);
	}
	ketw_provider_unregister(&bench_prov);
	return 0;
}
