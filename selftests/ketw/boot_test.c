// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions at load (the module parameter "boot"): ketw starts them
 * before a provider module that depends on it runs its init, so the
 * provider's first events are in them; a wrong description leaves that
 * session out, with one line that names it, the option at fault and
 * why, and ketw loads all the same. Reloads ketw and its providers, and
 * leaves them loaded as it found them.
 */
#include "ketw_test.h"
#include "kselftest_harness.h"

#define LOG_MAX		(256 * 1024)

TEST(session_at_load_sees_a_drivers_init)
{
	const struct ketw_event_header *h;
	struct drained d = { 0 };
	int fd, bad = 0, ticks = 0, start = 0, stop = 0;
	size_t off = 0;

	static char log[LOG_MAX];
	struct mods m;
	int kfd;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_MODULES);

	mods_read(&m);
	ASSERT_EQ(0, mods_unload(&m))
		TH_LOG("ketw is still in use (a session left by another test?)");
	kfd = kmsg_open();
	ASSERT_LE(0, kfd);
	/* The second description is wrong: ketw loads without it. */
	ASSERT_EQ(0, mod_load("ketw.ko",
			  "boot=bt,buffer_kb=256,no_rundown,provider=ketw-sample:5;bad,policy=nope"));
	kmsg_read(kfd, log, sizeof(log));
	close(kfd);
	EXPECT_EQ(1, text_lines_with(log, "ketw: boot session 'bad': option 'policy=nope': not loop, until-full or flush"));
	EXPECT_EQ(1, lines_equal(log, "ketw: 1 boot session running, 1 refused"));
	/* A driver that logs from its init, as a probe would. */
	ASSERT_EQ(0, mod_load("ketw_sample.ko", "init_events=3"));

	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, "bt"));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, "bt"));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad))) {
		ticks += is_sample(h) && h->event_id == KETW_SAMPLE_EV_TICK;
		start += is_system(h, KETW_SYS_START);
		stop += is_system(h, KETW_SYS_STOP);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1, start);
	EXPECT_EQ(3, ticks);
	EXPECT_EQ(1, stop);
	free(d.buf);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, "bt"));
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_ATTACH, "bad"));
	EXPECT_EQ(ENOENT, errno);
	close(fd);

	/* Back as the harness had it: ketw without sessions at load. */
	ASSERT_EQ(0, mods_unload(&m));
	EXPECT_EQ(0, mods_restore(&m));
}

/* What one value of boot= starts, and what the kernel log says. */
struct boot_case {
	const char *params;	/* of ketw.ko */
	const char *sessions;	/* those there are after, sorted */
	const char *lines[2];	/* a line each that says why one is left out */
	const char *count;	/* the closing line */
	const char *no_rundown;	/* a session with KETW_SESSION_NO_RUNDOWN */
};

static const struct boot_case cases[] = {
	/* Good ones. */
	{ "boot=a,no_rundown", "a", { NULL }, "ketw: 1 boot session running", "a" },
	{ "boot=a,level=2,no_rundown,buffer_kb=8", "a", { NULL },
	  "ketw: 1 boot session running", "a" },
	{ "boot=full,buffer_kb=16,policy=until-full,clock=boot,level=4,any=0x3,all=0x1,max_data=512,no_rundown,provider=ketw-sample:5:0x1,provider=other,provider=x:0",
	  "full", { NULL }, "ketw: 1 boot session running", "full" },
	{ "boot=;;a;", "a", { NULL }, "ketw: 1 boot session running", NULL },
	{ "boot=a;b;c", "a b c", { NULL }, "ketw: 3 boot sessions running", NULL },
	/* A bare word after a valid option: left out, and said. */
	{ "boot=a,buffer_kb=4,junk", "", { "ketw: boot session 'a': option 'junk': unknown option" },
	  "ketw: 0 boot sessions running, 1 refused", NULL },
	{ "boot=a;b,buffer_kb=4,oops;c", "a c",
	  { "ketw: boot session 'b': option 'oops': unknown option" },
	  "ketw: 2 boot sessions running, 1 refused", NULL },
	/* Empty options: a stray ',' is a mistake, not nothing. */
	{ "boot=a,level=1,", "", { "ketw: boot session 'a': option 2 is empty (a stray ',')" },
	  "ketw: 0 boot sessions running, 1 refused", NULL },
	{ "boot=a,,level=1", "", { "ketw: boot session 'a': option 1 is empty (a stray ',')" },
	  "ketw: 0 boot sessions running, 1 refused", NULL },
	/* Names. */
	{ "boot=,level=1;b", "b", { "ketw: boot session 1: no name (NAME[,OPTION...])" },
	  "ketw: 1 boot session running, 1 refused", NULL },
	{ "boot=a/b", "", { "ketw: boot session 1: name 'a/b' is not 1 to 31 of a-z A-Z 0-9 _ . -" },
	  "ketw: 0 boot sessions running, 1 refused", NULL },
	{ "boot=a;a", "a", { "ketw: boot session 'a': a session of that name exists" },
	  "ketw: 1 boot session running, 1 refused", NULL },
	/* Values. */
	{ "boot=a,level;b,no_rundown=1", "",
	  { "ketw: boot session 'a': option 'level': needs a value (level=...)",
	    "ketw: boot session 'b': option 'no_rundown=1': takes no value" },
	  "ketw: 0 boot sessions running, 2 refused", NULL },
	{ "boot=a,level=6;b,buffer_kb=x", "",
	  { "ketw: boot session 'a': option 'level=6': not 0 to 5",
	    "ketw: boot session 'b': option 'buffer_kb=x': not a number" },
	  "ketw: 0 boot sessions running, 2 refused", NULL },
	{ "boot=a,buffer_kb=2;b,buffer_kb=4294967296", "",
	  { "ketw: boot session 'a': option 'buffer_kb=2': not 0 (the default) or 4 to 262144",
	    "ketw: boot session 'b': option 'buffer_kb=4294967296': not 0 (the default) or 4 to 262144" },
	  "ketw: 0 boot sessions running, 2 refused", NULL },
	{ "boot=a,policy=nope;b,clock=tsc", "",
	  { "ketw: boot session 'a': option 'policy=nope': not loop, until-full or flush",
	    "ketw: boot session 'b': option 'clock=tsc': not mono, boot or local" },
	  "ketw: 0 boot sessions running, 2 refused", NULL },
	{ "boot=a,provider=x:9;b,provider=:1", "",
	  { "ketw: boot session 'a': option 'provider=x:9': level 9 is not 0 to 5",
	    "ketw: boot session 'b': option 'provider=:1': no provider name" },
	  "ketw: 0 boot sessions running, 2 refused", NULL },
	{ "boot=a,any=0x1ffffffffffffffff;b,max_data=4000,buffer_kb=4", "",
	  { "ketw: boot session 'a': option 'any=0x1ffffffffffffffff': more than 64 bits",
	    "ketw: boot session 'b': max_data=4000 does not fit its 4 KiB buffer" },
	  "ketw: 0 boot sessions running, 2 refused", NULL },
	/* The memory cap. */
	{ "max_buffer_kb=256 boot=s,buffer_kb=4;big,buffer_kb=1024", "s",
	  { "ketw: boot session 'big': not enough memory: its buffers need" },
	  "ketw: 1 boot session running, 1 refused", NULL },
};

/* Load ketw with @params; the kernel log since, and the sessions there are. */
static int boot_load(const char *params, char *log, size_t cap, char *lst,
		     size_t lcap)
{
	int kfd = kmsg_open(), err;

	if (kfd < 0)
		return -errno;
	err = mod_load("ketw.ko", params);
	kmsg_read(kfd, log, cap);
	close(kfd);
	if (!err && sessions_list(lst, lcap, 0) < 0)
		err = -EIO;
	return err;
}

/*
 * Each description of the table, good and bad: the sessions that exist
 * after are those it describes well, each bad one has a line of its own
 * and no other line says "boot session", and the count is true. The
 * code before the fix refused "a,no_rundown", left "a,level=1," out
 * without a word and counted it running.
 */
TEST(boot_table)
{
	static char log[LOG_MAX];
	struct ketw_session_attr a;
	char lst[4096];
	unsigned int i, j, nl;
	struct mods m;
	int fd;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_MODULES);
	mods_read(&m);
	ASSERT_LE(0, sessions_list(lst, sizeof(lst), 0));
	ASSERT_STREQ("", lst) TH_LOG("sessions left by another test: %s", lst);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct boot_case *c = &cases[i];

		ASSERT_EQ(0, mods_unload(&m));
		ASSERT_EQ(0, boot_load(c->params, log, sizeof(log), lst,
				       sizeof(lst))) TH_LOG("%s", c->params);
		EXPECT_STREQ(c->sessions, lst) TH_LOG("%s", c->params);
		for (j = nl = 0; j < 2 && c->lines[j]; j++, nl++) {
			EXPECT_EQ(1, text_lines_with(log, c->lines[j]))
				TH_LOG("%s: no line \"%s\" in:\n%s", c->params,
				       c->lines[j], log);
		}
		EXPECT_EQ(nl, text_lines_with(log, "ketw: boot session "))
			TH_LOG("%s: other lines in:\n%s", c->params, log);
		EXPECT_EQ(1, lines_equal(log, c->count))
			TH_LOG("%s: no \"%s\" in:\n%s", c->params, c->count, log);
		if (c->no_rundown) {
			fd = ketw_open();
			ASSERT_LE(0, fd);
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			snprintf(a.name, sizeof(a.name), "%s", c->no_rundown);
			EXPECT_EQ(0, ioctl(fd, KETW_IOC_GET_ATTR, &a));
			EXPECT_TRUE(a.flags & KETW_SESSION_NO_RUNDOWN);
			close(fd);
		}
		sessions_list(lst, sizeof(lst), 1);
	}
	ASSERT_EQ(0, mods_unload(&m));
	EXPECT_EQ(0, mods_restore(&m));
}

/*
 * 65 sessions of the smallest buffer: 64 start, the last is refused as
 * one too many, in so many words.
 */
TEST(boot_session_cap)
{
	static char log[LOG_MAX];
	char params[1100] = "boot=", lst[4096], name[4], want[96];
	const char *b36 = "0123456789abcdefghijklmnopqrstuvwxyz";
	int i, n = 0;
	struct mods m;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_MODULES);
	mods_read(&m);
	ASSERT_LE(0, sessions_list(lst, sizeof(lst), 0));
	ASSERT_STREQ("", lst) TH_LOG("sessions left by another test: %s", lst);
	/* Names of one or two characters: boot= holds 1024 at most. */
	for (i = 0; i < 65; i++) {
		if (i < 36)
			snprintf(name, sizeof(name), "%c", b36[i]);
		else
			snprintf(name, sizeof(name), "z%c", b36[i - 36]);
		snprintf(params + strlen(params), sizeof(params) - strlen(params),
			 "%s%s,buffer_kb=4", i ? ";" : "", name);
	}
	ASSERT_GE(1024 + 5, strlen(params));
	ASSERT_EQ(0, mods_unload(&m));
	ASSERT_EQ(0, boot_load(params, log, sizeof(log), lst, sizeof(lst)));
	for (i = 0; lst[i]; i++)
		n += lst[i] == ' ';
	EXPECT_EQ(63, n) TH_LOG("%s", lst);	/* 64 names */
	snprintf(want, sizeof(want),
		 "ketw: boot session '%s': too many sessions (limit 64)", name);
	EXPECT_EQ(1, text_lines_with(log, want)) TH_LOG("%s", log);
	EXPECT_EQ(1, text_lines_with(log, "ketw: boot session "));
	EXPECT_EQ(1, lines_equal(log, "ketw: 64 boot sessions running, 1 refused"));
	sessions_list(lst, sizeof(lst), 1);
	ASSERT_EQ(0, mods_unload(&m));
	EXPECT_EQ(0, mods_restore(&m));
}

TEST_HARNESS_MAIN
