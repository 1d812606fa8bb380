// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters at hostile values: every parameter modinfo lists for
 * ketw.ko (its .modinfo section, as modinfo reads it; not a list kept
 * here), plus any sysfs shows, is given at load (0, -1, 2^32, 10^20,
 * "abc", empty, 3000 digits, no value) and written through
 * /sys/module/ketw/parameters/. Each value is refused (the load fails and
 * a line of the kernel log names the parameter; a write fails with
 * EINVAL, ERANGE or ENOSPC) or taken with a sane meaning (it reads back
 * as given; 0 may read back otherwise where the description says what 0
 * means). Nothing oopses: a parameter whose setter is missing did, at
 * load. The provider modules the harness loads get the same at load,
 * but for the 3000 digits (see provider_params_at_load).
 *
 * Reloads ketw and its providers, and leaves them loaded as it found them.
 */
#include "ketw_test.h"
#include <elf.h>
#include "kselftest_harness.h"

#define PARAMS_MAX	32
#define LOG_MAX		(256 * 1024)
#define NO_VALUE	NULL	/* "name" alone, without '=' */

struct param {
	char name[64];
	char type[16];		/* "" when modinfo gives none (a callback) */
	char desc[512];
};

static char digits3000[3001];

/* The hostile values; NO_VALUE last. */
static const char *values[] = {
	"0", "-1", "4294967296", "100000000000000000000", "abc", "",
	digits3000, NO_VALUE,
};
#define NR_VALUES	(sizeof(values) / sizeof(values[0]))

static const char *shown(const char *v)
{
	static char s[48];

	if (v == NO_VALUE)
		return "(no value)";
	snprintf(s, sizeof(s), "'%.24s%s'", v, strlen(v) > 24 ? "..." : "");
	return s;
}

static struct param *param_find(struct param *p, int n, const char *name,
				size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(p[i].name) == len && !memcmp(p[i].name, name, len))
			return &p[i];
	return NULL;
}

/* One "parm=NAME:DESC" or "parmtype=NAME:TYPE" string of .modinfo. */
static int param_add(struct param *p, int n, const char *s)
{
	const char *v = strchr(s, '='), *colon;
	struct param *q;

	if (!v || (strncmp(s, "parm=", 5) && strncmp(s, "parmtype=", 9)))
		return n;
	colon = strchr(++v, ':');
	if (!colon || colon == v || colon - v >= 64)
		return n;
	q = param_find(p, n, v, colon - v);
	if (!q && n < PARAMS_MAX) {
		q = &p[n++];
		memcpy(q->name, v, colon - v);
	}
	if (q && s[4] == 't')
		snprintf(q->type, sizeof(q->type), "%s", colon + 1);
	else if (q)
		snprintf(q->desc, sizeof(q->desc), "%s", colon + 1);
	return n;
}

/*
 * The parameters of module @mod: those its .ko file's .modinfo section
 * lists (modinfo -p), and those /sys/module/@mod/parameters shows if it
 * is loaded. Returns how many, or -1 if the file cannot be read.
 */
static int params_of(const char *mod, struct param *p)
{
	char path[512];
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *names, *mi;
	struct dirent *de;
	struct stat st;
	int fd, n = 0;
	void *map;
	DIR *d;

	memset(p, 0, sizeof(*p) * PARAMS_MAX);
	snprintf(path, sizeof(path), "%s/%s.ko", mod_dir(), mod);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > (uint64_t)st.st_size ||
	    eh->e_shstrndx >= eh->e_shnum) {
		munmap(map, st.st_size);
		return -1;
	}
	sh = (const void *)((const char *)map + eh->e_shoff);
	names = (const char *)map + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + sh[i].sh_name, ".modinfo") ||
		    sh[i].sh_offset + sh[i].sh_size > (uint64_t)st.st_size)
			continue;
		mi = (const char *)map + sh[i].sh_offset;
		for (uint64_t off = 0; off < sh[i].sh_size;
		     off += strnlen(mi + off, sh[i].sh_size - off) + 1)
			n = param_add(p, n, mi + off);
	}
	munmap(map, st.st_size);

	snprintf(path, sizeof(path), "/sys/module/%s/parameters", mod);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    !param_find(p, n, de->d_name, strlen(de->d_name)) &&
		    n < PARAMS_MAX)
			snprintf(p[n++].name, sizeof(p[0].name), "%.63s",
				 de->d_name);
	if (d)
		closedir(d);
	return n;
}

/* Is @s all of one integer? Into @v. */
static int whole_number(const char *s, long double *v)
{
	char *end;

	if (!*s || strchr(" \t\n", *s))
		return 0;
	errno = 0;
	*v = strtold(s, &end);
	return !errno && end != s && !*end;
}

/*
 * Does parameter @p, given @given and reading back @got (newline
 * stripped), have a sane value? Text reads back as it was given, a
 * number as the same number; 0 may read back otherwise where the
 * description says what 0 means ("0: ...").
 */
static int sane(const struct param *p, const char *given, const char *got,
		char *why, size_t cap)
{
	long double a, b;

	if (given == NO_VALUE) {
		snprintf(why, cap, "taken without a value, reads '%.40s'", got);
		return !strcmp(p->type, "bool") || !strcmp(p->type, "invbool");
	}
	if (!strcmp(p->type, "charp") || !strcmp(p->type, "string")) {
		snprintf(why, cap, "reads '%.40s'", got);
		return !strcmp(given, got);
	}
	if (!whole_number(given, &a)) {
		snprintf(why, cap, "not a number, taken, reads '%.40s'", got);
		return 0;
	}
	if (!whole_number(got, &b)) {
		snprintf(why, cap, "reads '%.40s', not a number", got);
		return 0;
	}
	snprintf(why, cap, "reads %.40s", got);
	if (a == b)
		return 1;
	return a == 0 && strstr(p->desc, "0: ") && b > 0;
}

/* The value of /sys/module/@mod/parameters/@name, or -errno. */
static int param_read(const char *mod, const char *name, char *buf,
		      size_t cap)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod,
		 name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Loading ketw gives it that module: ketw first, then those before @mod. */
static int load_before(const struct mods *m, const char *mod)
{
	char file[80];
	int err;

	for (unsigned int i = 0; i < m->n && strcmp(m->name[i], mod); i++) {
		snprintf(file, sizeof(file), "%s.ko", m->name[i]);
		err = mod_load(file, "");
		if (err)
			return err;
	}
	return 0;
}

/*
 * Load @mod with @p at every value of @vals (@nv of them); ketw and the
 * modules before it in @m are loaded with no parameters, those after it
 * not. Returns the failures, each told on TH_LOG-like stderr lines.
 */
static int sweep_at_load(struct __test_metadata *_metadata,
			 const struct mods *m, const char *mod,
			 const struct param *p, const char **vals,
			 unsigned int nv)
{
	static char log[LOG_MAX], args[4096];
	char got[1100], why[160], lst[256], file[80];
	int bad = 0, err, kfd, loaded;

	for (unsigned int i = 0; i < nv; i++) {
		const char *v = vals[i];

		sessions_list(lst, sizeof(lst), 1);
		ASSERT_EQ(0, mods_unload(m));
		ASSERT_EQ(0, load_before(m, mod));
		if (v == NO_VALUE)
			snprintf(args, sizeof(args), "%s", p->name);
		else
			snprintf(args, sizeof(args), "%s=%s", p->name, v);
		kfd = kmsg_open();
		ASSERT_LE(0, kfd);
		snprintf(file, sizeof(file), "%.63s.ko", mod);
		err = mod_load(file, args);
		kmsg_read(kfd, log, sizeof(log));
		close(kfd);
		loaded = mod_loaded(mod);
		if (err) {
			/* Refused: the load fails, and says which parameter. */
			if (loaded || !text_lines_with2(log, mod, p->name)) {
				fprintf(stderr, "# %s %s=%s: refused (%s) but %s\n",
					mod, p->name, shown(v), strerror(-err),
					loaded ? "loaded" :
					"no line names the parameter");
				bad++;
			}
			continue;
		}
		if (param_read(mod, p->name, got, sizeof(got)))
			continue;	/* not readable: taken is all one sees */
		if (!sane(p, v, got, why, sizeof(why))) {
			fprintf(stderr, "# %s %s=%s: taken, %s\n", mod, p->name,
				shown(v), why);
			bad++;
		}
	}
	return bad;
}

/*
 * Every parameter of ketw at every hostile value, at load. On the code
 * before the fix, mono_clock= and buffer_used_kb= oopsed (no setter),
 * and a 3000-digit value's line did not name the parameter.
 */
/*
 * Each case loads modules tens of times: a KASAN kernel under TCG takes
 * about half a second a load, past the harness's default 30 s.
 */
FIXTURE(params) {
	int unused;
};

FIXTURE_SETUP(params)
{
}

FIXTURE_TEARDOWN(params)
{
}

TEST_F_TIMEOUT(params, ketw_params_at_load, 300)
{
	struct param p[PARAMS_MAX];
	char lst[256];
	struct mods m;
	int n, bad = 0;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_MODULES);
	memset(digits3000, '1', sizeof(digits3000) - 1);
	mods_read(&m);
	n = params_of("ketw", p);
	ASSERT_LT(0, n) TH_LOG("no parameters read from %s/ketw.ko", mod_dir());
	ASSERT_LE(0, sessions_list(lst, sizeof(lst), 0));
	ASSERT_STREQ("", lst) TH_LOG("sessions left by another test: %s", lst);
	for (int i = 0; i < n; i++) {
		TH_LOG("ketw %s (%s)", p[i].name, p[i].type[0] ? p[i].type : "callback");
		bad += sweep_at_load(_metadata, &m, "ketw", &p[i], values,
				     NR_VALUES);
	}
	EXPECT_EQ(0, bad);
	sessions_list(lst, sizeof(lst), 1);
	EXPECT_EQ(0, mods_unload(&m));
	EXPECT_EQ(0, mods_restore(&m));
}

/*
 * Every writable parameter of ketw written at every hostile value
 * through sysfs ("no value" is a bare newline, as "echo > FILE"; the
 * empty value a write of nothing, which changes nothing): refused with
 * EINVAL, ERANGE or ENOSPC, or taken with a sane meaning; each is put
 * back as it was after.
 */
TEST_F_TIMEOUT(params, ketw_params_through_sysfs, 300)
{
	char orig[1100], got[1100], why[160], path[256];
	struct param p[PARAMS_MAX];
	int n, bad = 0, tried = 0;
	struct stat st;
	struct mods m;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_MODULES);
	memset(digits3000, '1', sizeof(digits3000) - 1);
	mods_read(&m);
	if (!mod_loaded("ketw"))
		ASSERT_EQ(0, mod_load("ketw.ko", ""));
	n = params_of("ketw", p);
	ASSERT_LT(0, n);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/module/ketw/parameters/%.63s",
			 p[i].name);
		if (stat(path, &st) || !(st.st_mode & 0200))
			continue;
		ASSERT_EQ(0, param_read("ketw", p[i].name, orig, sizeof(orig)));
		for (unsigned int j = 0; j < NR_VALUES; j++) {
			const char *v = values[j] == NO_VALUE ? "\n" : values[j];
			int err = write_str(path, v);

			tried++;
			ASSERT_EQ(0, param_read("ketw", p[i].name, got,
						sizeof(got)));
			if (err && err != -EINVAL && err != -ERANGE &&
			    err != -ENOSPC) {
				fprintf(stderr, "# %s=%s through sysfs: %s\n",
					p[i].name, shown(values[j]),
					strerror(-err));
				bad++;
			} else if (err && strcmp(got, orig)) {
				fprintf(stderr, "# %s=%s through sysfs: refused, yet reads %s\n",
					p[i].name, shown(values[j]), got);
				bad++;
			} else if (!err && !*v && strcmp(got, orig)) {
				fprintf(stderr, "# %s: an empty write changed it to %s\n",
					p[i].name, got);
				bad++;
			} else if (!err && *v &&
				   !sane(&p[i], values[j], got, why, sizeof(why))) {
				fprintf(stderr, "# %s=%s through sysfs: taken, %s\n",
					p[i].name, shown(values[j]), why);
				bad++;
			}
			ASSERT_EQ(0, write_str(path, orig));
		}
	}
	EXPECT_LT(0, tried) TH_LOG("no writable parameter");
	EXPECT_EQ(0, bad);
	/* Loaded afresh: a value written back may differ from none given. */
	EXPECT_EQ(0, mods_unload(&m));
	EXPECT_EQ(0, mods_restore(&m));
}

/*
 * The provider modules the harness loads, every parameter at load, but
 * for the 3000 digits: a plain parameter's refusal is the kernel's own
 * line, which quotes the value first and is cut at 1 KiB. Their reports
 * (emitted, stored, ...) had no setter and oopsed.
 */
TEST_F_TIMEOUT(params, provider_params_at_load, 300)
{
	const char *vals[NR_VALUES];
	struct param p[PARAMS_MAX];
	unsigned int nv = 0;
	int n, bad = 0, mods_swept = 0;
	char lst[256];
	struct mods m;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_MODULES);
	memset(digits3000, '1', sizeof(digits3000) - 1);
	for (unsigned int i = 0; i < NR_VALUES; i++)
		if (values[i] != digits3000)
			vals[nv++] = values[i];
	mods_read(&m);
	ASSERT_LE(0, sessions_list(lst, sizeof(lst), 0));
	ASSERT_STREQ("", lst) TH_LOG("sessions left by another test: %s", lst);
	for (unsigned int k = 0; k < m.n; k++) {
		if (!strcmp(m.name[k], "ketw"))
			continue;
		n = params_of(m.name[k], p);
		ASSERT_LE(0, n);
		mods_swept++;
		for (int i = 0; i < n; i++) {
			TH_LOG("%s %s (%s)", m.name[k], p[i].name,
			       p[i].type[0] ? p[i].type : "callback");
			bad += sweep_at_load(_metadata, &m, m.name[k], &p[i],
					     vals, nv);
		}
	}
	EXPECT_EQ(0, bad);
	sessions_list(lst, sizeof(lst), 1);
	EXPECT_EQ(0, mods_unload(&m));
	EXPECT_EQ(0, mods_restore(&m));
	if (!mods_swept)
		SKIP(return, "no provider module in %s/modules", mod_dir());
}

TEST_HARNESS_MAIN
