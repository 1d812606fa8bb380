/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small unit-test runner: TEST(name) { ... } registers a test; each
 * test runs in its own process, so a crash fails that test only.
 *
 * CHECK*() record a failure and go on; ASSERT*() record it and end the
 * test. The runner prints one line per test and, last, "N passed, M failed".
 */
#ifndef _KETW_TEST_H
#define _KETW_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libketw.h"

struct test {
	const char *name;
	const char *file;
	int line;
	void (*fn)(void);
	struct test *next;
};

void test_register(struct test *t);

#define TEST(n)								\
	static void test_##n(void);					\
	static struct test test_desc_##n = {				\
		.name = #n, .file = __FILE__, .line = __LINE__,		\
		.fn = test_##n,						\
	};								\
	__attribute__((constructor)) static void test_reg_##n(void)	\
	{								\
		test_register(&test_desc_##n);				\
	}								\
	static void test_##n(void)

/* Failures of the running test. */
extern int test_failures;
/* Mark the running test skipped (a missing feature, never a pass). */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define SKIP(...) do { test_skip(__VA_ARGS__); return; } while (0)
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CHECK(cond) ((cond) ? true :					\
	(test_fail(__FILE__, __LINE__, "%s", #cond), false))
#define ASSERT(cond) do { if (!CHECK(cond)) return; } while (0)

#define CHECK_EQ(a, b) ({						\
	unsigned long long _a = (unsigned long long)(a);		\
	unsigned long long _b = (unsigned long long)(b);		\
	_a == _b ? true : (test_fail(__FILE__, __LINE__,		\
		"%s == %s: %llu (%lld) != %llu (%lld)", #a, #b,		\
		_a, (long long)_a, _b, (long long)_b), false); })
#define ASSERT_EQ(a, b) do { if (!CHECK_EQ(a, b)) return; } while (0)

#define CHECK_STR(a, b) ({						\
	const char *_a = (a), *_b = (b);				\
	(_a && _b && !strcmp(_a, _b)) ? true :				\
	(test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"",	\
		#a, #b, _a ? _a : "(null)", _b ? _b : "(null)"), false); })

#define CHECK_CONTAINS(hay, needle) ({					\
	const char *_h = (hay), *_n = (needle);				\
	(_h && strstr(_h, _n)) ? true :					\
	(test_fail(__FILE__, __LINE__, "%s contains \"%s\": got \"%s\"", \
		#hay, _n, _h ? _h : "(null)"), false); })

/* ---- helpers (util.c) ---- */

/* The sample provider's GUID: 6b657477-7361-6d70-6c65-000000000001. */
extern const uint8_t test_guid[KETW_GUID_SIZE];

/* Path of the ketw binary under test (--ketw). */
extern const char *test_ketw_path;
/* Absolute path of the fake /dev/ketw library (--fake), or NULL. */
extern const char *test_fake_path;
/* Path of tests/ketw-fault-proxy (--proxy), or NULL. */
extern const char *test_proxy_path;

/* A path in the run's private temporary directory. */
const char *test_path(const char *name);
/* tests/golden/@name, next to the test sources (a static buffer). */
const char *test_golden_path(const char *name);

/*
 * Write a record at @buf: type 10, level INFO, version 2, keyword 0x1,
 * tid 1000 + cpu, pid 1000, test_guid; @len payload bytes from @payload
 * (or i & 0xff). Returns its span.
 */
size_t test_record(void *buf, unsigned int cpu, uint64_t seq, uint64_t ts,
		   uint16_t flags, uint32_t id, const void *payload,
		   size_t len);

/* A typical header description for ketw_output_create(). */
void test_info(struct ketw_output_info *info, unsigned int nr_cpus);

/*
 * A trace file as record and extract write it: 18 records added one by
 * one on 2 CPUs, flushed after each of 4 rounds (8 records sections, each
 * CPU's in sequence order), then the counters and END. 0 or -errno.
 */
int test_write_stream(const char *path);

/* Read a whole file into a malloc()ed buffer; NULL on error. */
void *test_slurp(const char *path, size_t *len);
int test_spit(const char *path, const void *buf, size_t len);

/*
 * Run the ketw binary with @argv (NULL-terminated, without argv[0]);
 * @env is a NULL-terminated list of "NAME=value" to add, or NULL.
 * Returns the exit code (128 + signal when killed); *out and *err get
 * malloc()ed stdout and stderr.
 */
int test_run_ketw(const char *const *env, const char *const *argv,
		  char **out, char **err);
/* The same with stderr on a pseudo-terminal; *err gets what it showed. */
int test_run_ketw_tty(const char *const *env, const char *const *argv,
		      char **out, char **err);

/*
 * Turn a trace file image into the same file written on a machine of
 * the other byte order: headers, records' headers, statistics and the
 * payloads of system events are swapped, provider payloads are not
 * (swap.c).
 */
void test_swap_file(unsigned char *buf, size_t len);
/* The same for @len bytes of records (a records section's body). */
void test_swap_records(unsigned char *body, size_t len);

#endif /* _KETW_TEST_H */
