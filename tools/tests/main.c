// SPDX-License-Identifier: GPL-2.0
/*
 * The unit-test runner.
 *
 *   ketw-test [--ketw PATH] [--fake LIB] [--proxy PATH] [--no-fork]
 *             [NAME-SUBSTRING...]
 *
 * --ketw names the ketw binary the CLI tests run, --fake the LD_PRELOAD
 * stand-in for /dev/ketw (tests/fake/), --proxy the fault proxy of the
 * stream tests (tests/proxy/). Every test runs in a child process
 * (unless --no-fork); a test fails if a check fails, it crashes or it
 * exits non-zero. A skipped test (a missing feature) counts as neither.
 * The last line is "N passed, M failed"; the exit status is 1 if any
 * failed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static struct test *tests;
static unsigned int nr_tests;
static struct test **test_list;	/* sorted */
int test_failures;
static int test_skipped;
const char *test_ketw_path = "ketw/ketw";
const char *test_fake_path;
const char *test_proxy_path;
static char test_dir[256];

void test_register(struct test *t)
{
	t->next = tests;
	tests = t;
	nr_tests++;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	test_failures++;
	printf("    %s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* One slot per distinct name: a returned path stays valid. */
void test_skip(const char *fmt, ...)
{
	va_list ap;

	test_skipped = 1;
	printf("    skipped: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Exit code of a skipped test's process. */
#define TEST_EXIT_SKIP	77

const char *test_path(const char *name)
{
	static char paths[64][320];
	static unsigned int used;
	size_t dlen = strlen(test_dir);
	unsigned int i;

	for (i = 0; i < used; i++)
		if (!strcmp(paths[i] + dlen + 1, name))
			return paths[i];
	if (used == 64) {
		fprintf(stderr, "test_path: too many names\n");
		abort();
	}
	snprintf(paths[used], sizeof(paths[0]), "%s/%s", test_dir, name);
	return paths[used++];
}

static int test_cmp(const void *a, const void *b)
{
	const struct test *x = *(const struct test *const *)a;
	const struct test *y = *(const struct test *const *)b;
	int c = strcmp(x->file, y->file);

	return c ? c : x->line - y->line;
}

static bool test_selected(const struct test *t, int argc, char **argv,
			  int first)
{
	int i;

	if (first >= argc)
		return true;
	for (i = first; i < argc; i++)
		if (strstr(t->name, argv[i]))
			return true;
	return false;
}

enum test_result { TEST_PASS, TEST_FAIL, TEST_SKIP };

static enum test_result test_run_one(const struct test *t, bool fork_it)
{
	int status;
	pid_t pid;

	if (!fork_it) {
		test_failures = 0;
		test_skipped = 0;
		t->fn();
		return test_failures ? TEST_FAIL :
		       test_skipped ? TEST_SKIP : TEST_PASS;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return TEST_FAIL;
	}
	if (pid == 0) {
		free(test_list);	/* the child leaks nothing of ours */
		test_failures = 0;
		test_skipped = 0;
		t->fn();
		fflush(NULL);
		exit(test_failures ? 1 : test_skipped ? TEST_EXIT_SKIP : 0);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return TEST_FAIL;
	}
	if (WIFSIGNALED(status)) {
		printf("    crashed: signal %d\n", WTERMSIG(status));
		return TEST_FAIL;
	}
	if (!WIFEXITED(status))
		return TEST_FAIL;
	if (WEXITSTATUS(status) == TEST_EXIT_SKIP)
		return TEST_SKIP;
	return WEXITSTATUS(status) == 0 ? TEST_PASS : TEST_FAIL;
}

static void test_rmdir(const char *dir)
{
	struct dirent *d;
	char path[768];
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		unlink(path);
	}
	closedir(dp);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	unsigned int i, n = 0, passed = 0, failed = 0;
	enum test_result res;
	struct test **list, *t;
	bool fork_it = true;
	const char *tmp;
	int first = 1;

	while (first < argc && argv[first][0] == '-') {
		if (!strcmp(argv[first], "--ketw") && first + 1 < argc) {
			test_ketw_path = argv[first + 1];
			first += 2;
		} else if (!strcmp(argv[first], "--fake") && first + 1 < argc) {
			static char fake[4096];

			test_fake_path = realpath(argv[first + 1], fake);
			if (!test_fake_path) {
				perror(argv[first + 1]);
				return 2;
			}
			first += 2;
		} else if (!strcmp(argv[first], "--proxy") && first + 1 < argc) {
			test_proxy_path = argv[first + 1];
			first += 2;
		} else if (!strcmp(argv[first], "--no-fork")) {
			fork_it = false;
			first++;
		} else {
			fprintf(stderr, "usage: %s [--ketw PATH] [--fake LIB] [--proxy PATH] [--no-fork] [NAME...]\n",
				argv[0]);
			return 2;
		}
	}
	tmp = getenv("TMPDIR");
	snprintf(test_dir, sizeof(test_dir), "%s/ketw-test.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(test_dir)) {
		perror("mkdtemp");
		return 1;
	}

	list = test_list = calloc(nr_tests ? nr_tests : 1, sizeof(*list));
	if (!list)
		return 1;
	for (t = tests; t; t = t->next)
		list[n++] = t;
	qsort(list, n, sizeof(*list), test_cmp);
	for (i = 0; i < n; i++) {
		if (!test_selected(list[i], argc, argv, first))
			continue;
		res = test_run_one(list[i], fork_it);
		if (res == TEST_PASS) {
			printf("ok    %s\n", list[i]->name);
			passed++;
		} else if (res == TEST_SKIP) {
			printf("skip  %s\n", list[i]->name);
		} else {
			printf("FAIL  %s (%s:%d)\n", list[i]->name,
			       list[i]->file, list[i]->line);
			failed++;
		}
		fflush(stdout);
	}
	free(list);
	test_rmdir(test_dir);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
