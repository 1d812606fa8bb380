// SPDX-License-Identifier: GPL-2.0
/*
 * Tests: providers in libketw: POSIX event sets, GUIDs, naming a
 * provider, parsing -p and -x, and the ENABLE, GET_FILTER, PROVIDERS,
 * EVENTS and RUNDOWN wrappers against a stand-in for the ioctl.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test.h"

/* ---- an ioctl() stand-in for one fd -------------------------------- */

#define HOOK_FD	1000

static int (*ioctl_hook)(unsigned long cmd, void *arg);

/*
 * Replaces libc's ioctl() in this program: calls on HOOK_FD go to the
 * hook, everything else to the kernel.
 */
int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int r;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != HOOK_FD || !ioctl_hook)
		return syscall(SYS_ioctl, fd, request, arg);
	r = ioctl_hook(request, arg);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

/* ---- event sets ---------------------------------------------------- */

TEST(eventset_ops)
{
	struct ketw_event_set set;
	unsigned int i;

	memset(&set, 0x5a, sizeof(set));
	ketw_eventset_empty(&set);
	CHECK_EQ(ketw_eventset_count(&set), 0);
	for (i = 0; i < KETW_EVENT_SET_BITS; i++)
		if (!CHECK(!ketw_eventset_ismember(&set, i)))
			break;
	CHECK_EQ(ketw_eventset_add(&set, 0), 0);
	CHECK_EQ(ketw_eventset_add(&set, 63), 0);
	CHECK_EQ(ketw_eventset_add(&set, 64), 0);
	CHECK_EQ(ketw_eventset_add(&set, 1023), 0);
	CHECK_EQ(ketw_eventset_add(&set, 1023), 0);	/* twice: one member */
	CHECK_EQ(ketw_eventset_count(&set), 4);
	CHECK(ketw_eventset_ismember(&set, 0));
	CHECK(ketw_eventset_ismember(&set, 63));
	CHECK(ketw_eventset_ismember(&set, 64));
	CHECK(ketw_eventset_ismember(&set, 1023));
	CHECK(!ketw_eventset_ismember(&set, 1));
	CHECK(!ketw_eventset_ismember(&set, 65));
	/* The layout is the kernel's: bit id % 64 of word id / 64. */
	CHECK_EQ(set.bits[0], 0x8000000000000001ull);
	CHECK_EQ(set.bits[1], 1);
	CHECK_EQ(set.bits[15], 0x8000000000000000ull);
	CHECK_EQ(ketw_eventset_del(&set, 63), 0);
	CHECK_EQ(ketw_eventset_del(&set, 63), 0);	/* not there: fine */
	CHECK(!ketw_eventset_ismember(&set, 63));
	CHECK_EQ(ketw_eventset_count(&set), 3);
	/* Out of range: refused, never a member, the set untouched. */
	CHECK_EQ(ketw_eventset_add(&set, KETW_EVENT_SET_BITS), -EINVAL);
	CHECK_EQ(ketw_eventset_add(&set, UINT32_MAX), -EINVAL);
	CHECK_EQ(ketw_eventset_del(&set, KETW_EVENT_SET_BITS), -EINVAL);
	CHECK(!ketw_eventset_ismember(&set, KETW_EVENT_SET_BITS));
	CHECK(!ketw_eventset_ismember(&set, UINT32_MAX));
	CHECK_EQ(ketw_eventset_count(&set), 3);
	ketw_eventset_fill(&set);
	CHECK_EQ(ketw_eventset_count(&set), KETW_EVENT_SET_BITS);
	CHECK(ketw_eventset_ismember(&set, 517));
	CHECK(!ketw_eventset_ismember(&set, KETW_EVENT_SET_BITS));
	ketw_eventset_empty(&set);
	CHECK_EQ(ketw_eventset_count(&set), 0);
}

TEST(eventset_format)
{
	struct ketw_event_set set;
	char buf[64];
	unsigned int i;

	ketw_eventset_empty(&set);
	CHECK_EQ(ketw_eventset_format(&set, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	ketw_eventset_add(&set, 1);
	ketw_eventset_add(&set, 3);
	ketw_eventset_add(&set, 4);
	ketw_eventset_add(&set, 5);
	ketw_eventset_add(&set, 64);
	ketw_eventset_add(&set, 1022);
	ketw_eventset_add(&set, 1023);
	CHECK_EQ(ketw_eventset_format(&set, buf, sizeof(buf)), 18);
	CHECK_STR(buf, "1,3-5,64,1022-1023");
	/* snprintf semantics when cut. */
	CHECK_EQ(ketw_eventset_format(&set, buf, 6), 18);
	CHECK_STR(buf, "1,3-5");
	ketw_eventset_fill(&set);
	CHECK_EQ(ketw_eventset_format(&set, buf, sizeof(buf)), 6);
	CHECK_STR(buf, "0-1023");
	for (i = 0; i < KETW_EVENT_SET_BITS; i += 2)
		ketw_eventset_del(&set, i);
	CHECK(ketw_eventset_format(&set, buf, sizeof(buf)) > 64);
	CHECK_EQ(strlen(buf), 63);
}

TEST(filter_takes)
{
	struct ketw_filter f = { .level = KETW_LEVEL_WARNING };

	CHECK(ketw_filter_takes(&f, 2, KETW_LEVEL_WARNING, 0x2));
	CHECK(ketw_filter_takes(&f, 2, KETW_LEVEL_ERROR, 0x2));
	CHECK(!ketw_filter_takes(&f, 1, KETW_LEVEL_INFO, 0x1));
	CHECK(ketw_filter_takes(&f, 1, 0, 0x1));	/* level 0 passes */
	f.level = 0;
	CHECK(ketw_filter_takes(&f, 1, KETW_LEVEL_VERBOSE, 0x1));
	f.match_any = 0x1;
	CHECK(ketw_filter_takes(&f, 1, 4, 0x1));
	CHECK(ketw_filter_takes(&f, 1, 4, 0x3));
	CHECK(!ketw_filter_takes(&f, 2, 3, 0x2));
	CHECK(ketw_filter_takes(&f, 2, 3, 0));		/* keyword 0 passes */
	f.match_all = 0x5;
	f.match_any = 0;
	CHECK(ketw_filter_takes(&f, 1, 4, 0x5));
	CHECK(ketw_filter_takes(&f, 1, 4, 0xf));
	CHECK(!ketw_filter_takes(&f, 1, 4, 0x1));
	f.match_all = 0;
	ketw_eventset_add(&f.filtered, 1);
	CHECK(!ketw_filter_takes(&f, 1, 4, 0x1));
	CHECK(!ketw_filter_takes(&f, 1, 0, 0));		/* the set always */
	CHECK(ketw_filter_takes(&f, 2, 4, 0x1));
	CHECK(ketw_filter_takes(&f, 5000, 4, 0x1));	/* never filtered */
}

/* ---- GUIDs and provider references ---------------------------------- */

TEST(guid_parse)
{
	static const char *const bad[] = {
		"", "6b657477", "6b657477-7361-6d70-6c65-00000000000",
		"6b657477-7361-6d70-6c65-0000000000001",
		"6b657477-7361-6d70-6c65-00000000000g",
		"6b657477_7361-6d70-6c65-000000000001",
		"6b6574777-361-6d70-6c65-000000000001",
		"{6b657477-7361-6d70-6c65-000000000001}",
		" 6b657477-7361-6d70-6c65-000000000001",
		"6b657477-7361-6d70-6c65-000000000001 ",
		"6b657477-7361-6d70-6c65-+00000000001",
		"6b657477-7361-6d70-6c6 -000000000001",
		"6b657477-7361-6d70-6c65-0x0000000001",
		"6b657477736164706c65000000000000001",
	};
	uint8_t g[KETW_GUID_SIZE], keep[KETW_GUID_SIZE];
	char text[KETW_GUID_STR_LEN];
	unsigned int i;

	CHECK_EQ(ketw_guid_parse("6b657477-7361-6d70-6c65-000000000001", g),
		 0);
	CHECK(!memcmp(g, test_guid, KETW_GUID_SIZE));
	/* Any case; the text form comes back in lower case. */
	CHECK_EQ(ketw_guid_parse("AbCdEf01-2345-6789-ABCD-ef0123456789", g), 0);
	CHECK_EQ(g[0], 0xab);
	CHECK_EQ(g[15], 0x89);
	CHECK_STR(ketw_guid_format(g, text),
		  "abcdef01-2345-6789-abcd-ef0123456789");
	/* Round trip. */
	CHECK_EQ(ketw_guid_parse(ketw_guid_format(test_guid, text), g), 0);
	CHECK(!memcmp(g, test_guid, KETW_GUID_SIZE));
	memset(keep, 0x77, sizeof(keep));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(g, keep, sizeof(g));
		if (!CHECK_EQ(ketw_guid_parse(bad[i], g), -EINVAL))
			printf("    accepted \"%s\"\n", bad[i]);
		CHECK(!memcmp(g, keep, sizeof(g)));	/* untouched */
	}
	CHECK_EQ(ketw_guid_parse(NULL, g), -EINVAL);
	CHECK(ketw_guid_is_zero((const uint8_t[KETW_GUID_SIZE]){ 0 }));
	CHECK(!ketw_guid_is_zero(test_guid));
	CHECK(ketw_guid_like("6b657477-7361-6d70-6c65-000000000001"));
	CHECK(ketw_guid_like("6b657477-7361-6d70-6c65-00000000000g"));
	CHECK(ketw_guid_like("6b65-7477-7361-6d70-6c65"));
	CHECK(!ketw_guid_like("ketw-sample"));
	CHECK(!ketw_guid_like("dead-beef"));
	CHECK(!ketw_guid_like(""));
}

TEST(provider_ref_parse)
{
	struct ketw_provider_ref r, r2;
	char text[KETW_GUID_STR_LEN];

	CHECK_EQ(ketw_provider_ref_parse("ketw-sample", &r), 0);
	CHECK_STR(r.name, "ketw-sample");
	CHECK(ketw_guid_is_zero(r.guid));
	CHECK_STR(ketw_provider_ref_format(&r, text), "ketw-sample");
	CHECK_EQ(ketw_provider_ref_parse("6B657477-7361-6D70-6C65-000000000001",
					 &r), 0);
	CHECK_STR(r.name, "");
	CHECK(!memcmp(r.guid, test_guid, KETW_GUID_SIZE));
	CHECK_STR(ketw_provider_ref_format(&r, text),
		  "6b657477-7361-6d70-6c65-000000000001");
	CHECK(ketw_provider_ref_names(&r, test_guid, "whatever"));
	CHECK(!ketw_provider_ref_names(&r, (const uint8_t[16]){ 1 },
				       "ketw-sample"));
	ketw_provider_ref_parse("ketw-sample", &r2);
	CHECK(ketw_provider_ref_names(&r2, (const uint8_t[16]){ 1 },
				      "ketw-sample"));
	CHECK(!ketw_provider_ref_names(&r2, test_guid, "ketw-sampl"));
	CHECK(!ketw_provider_ref_names(&r2, test_guid, NULL));
	/* 31 characters fit, 32 do not. */
	CHECK_EQ(ketw_provider_ref_parse("a234567890123456789012345678901",
					 &r), 0);
	CHECK_EQ(ketw_provider_ref_parse("a2345678901234567890123456789012",
					 &r), -ENAMETOOLONG);
	CHECK_EQ(ketw_provider_ref_parse("", &r), -EINVAL);
	CHECK_EQ(ketw_provider_ref_parse("6b657477-7361-6d70-6c65-00000000001",
					 &r), -EINVAL);
	CHECK_EQ(ketw_provider_ref_parse("00000000-0000-0000-0000-000000000000",
					 &r), -EINVAL);
}

/* ---- -p ------------------------------------------------------------ */

TEST(parse_enable)
{
	struct ketw_enable_spec sp;
	char err[256];

	CHECK_EQ(ketw_parse_enable("ketw-sample", &sp, err, sizeof(err)), 0);
	CHECK_STR(sp.provider.name, "ketw-sample");
	CHECK(!sp.has_level && !sp.has_any && !sp.has_all);
	CHECK_EQ(sp.filter.level, 0);

	CHECK_EQ(ketw_parse_enable("ketw-sample:warning", &sp, err,
				   sizeof(err)), 0);
	CHECK(sp.has_level && !sp.has_any && !sp.has_all);
	CHECK_EQ(sp.filter.level, KETW_LEVEL_WARNING);

	CHECK_EQ(ketw_parse_enable("ketw-sample:Verbose:0x1", &sp, err,
				   sizeof(err)), 0);
	CHECK_EQ(sp.filter.level, KETW_LEVEL_VERBOSE);
	CHECK(sp.has_any && !sp.has_all);
	CHECK_EQ(sp.filter.match_any, 1);

	CHECK_EQ(ketw_parse_enable("6b657477-7361-6d70-6c65-000000000001:2:12/0x8",
				   &sp, err, sizeof(err)), 0);
	CHECK(!memcmp(sp.provider.guid, test_guid, KETW_GUID_SIZE));
	CHECK_STR(sp.provider.name, "");
	CHECK_EQ(sp.filter.level, 2);
	CHECK_EQ(sp.filter.match_any, 12);
	CHECK_EQ(sp.filter.match_all, 8);
	CHECK(sp.has_level && sp.has_any && sp.has_all);

	/* Empty parts stay unset. */
	CHECK_EQ(ketw_parse_enable("p::0x1", &sp, err, sizeof(err)), 0);
	CHECK(!sp.has_level && sp.has_any && !sp.has_all);
	CHECK_EQ(ketw_parse_enable("p:", &sp, err, sizeof(err)), 0);
	CHECK(!sp.has_level && !sp.has_any);
	CHECK_EQ(ketw_parse_enable("p:0:/0x10", &sp, err, sizeof(err)), 0);
	CHECK(sp.has_level && !sp.has_any && sp.has_all);
	CHECK_EQ(sp.filter.level, 0);
	CHECK_EQ(sp.filter.match_all, 0x10);
	CHECK_EQ(ketw_parse_enable("p:all:0xffffffffffffffff", &sp, err,
				   sizeof(err)), 0);
	CHECK_EQ(sp.filter.match_any, UINT64_MAX);
	CHECK_EQ(ketw_parse_enable("p:3:1/", &sp, err, sizeof(err)), 0);
	CHECK(sp.has_any && !sp.has_all);
}

TEST(parse_enable_errors)
{
	static const struct {
		const char *arg, *msg;
	} bad[] = {
		{ "", "no provider given" },
		{ ":3", "no provider given" },
		{ "ketw-sample:loud",
		  "'loud' is not a level (critical, error, warning, info, verbose, all, or 0..5)" },
		{ "ketw-sample:6", "'6' is not a level" },
		{ "ketw-sample:-1", "'-1' is not a level" },
		{ "6b657477-7361-6d70-6c65-00000000000g:3",
		  "'6b657477-7361-6d70-6c65-00000000000g' is not a GUID (8-4-4-4-12 hex digits" },
		{ "6b657477-7361-6d70-6c65-0000000000001",
		  "is not a GUID" },
		{ "00000000-0000-0000-0000-000000000000",
		  "is the GUID of the system events, not of a provider" },
		{ "a2345678901234567890123456789012",
		  "provider name 'a2345678901234567890123456789012' is too long (at most 31 characters)" },
		{ "p:3:0x1g", "'0x1g' is not a keyword mask" },
		{ "p:3:1/x", "'x' is not a keyword mask (match_all)" },
		{ "p:3:18446744073709551616", "out of range" },
		{ "p:3:/", "no keyword mask in 'p:3:/'" },
		{ "p:3:1:2",
		  "too many ':' in 'p:3:1:2' (PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...])" },
	};
	struct ketw_enable_spec sp;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (!CHECK_EQ(ketw_parse_enable(bad[i].arg, &sp, err,
						sizeof(err)), -EINVAL))
			printf("    accepted \"%s\"\n", bad[i].arg);
		CHECK_CONTAINS(err, bad[i].msg);
	}
	/* A message cut to the buffer, NUL-terminated. */
	CHECK_EQ(ketw_parse_enable("p:loud", &sp, err, 8), -EINVAL);
	CHECK_EQ(strlen(err), 7);
	CHECK_EQ(ketw_parse_enable("p:loud", &sp, NULL, 0), -EINVAL);
}

/* ---- -x ------------------------------------------------------------ */

static int lookup_calls;

static int test_lookup(const struct ketw_provider_ref *p, const char *name,
		       uint32_t *id, void *ctx)
{
	lookup_calls++;
	CHECK_STR(ctx, "ctx");
	CHECK_STR(p->name, "ketw-sample");
	if (!strcmp(name, "tick"))
		*id = 1;
	else if (!strcmp(name, "rx-drop"))
		*id = 7;
	else if (!strcmp(name, "huge"))
		*id = 4096;
	else if (!strcmp(name, "broken"))
		return -EIO;
	else
		return -ENOENT;
	return 0;
}

TEST(parse_filter_out)
{
	struct ketw_provider_ref p;
	struct ketw_event_set set;
	char err[256], ids[128];

	ketw_eventset_empty(&set);
	CHECK_EQ(ketw_parse_filter_out("ketw-sample:2,5-7,0x10", &p, &set,
				       NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(p.name, "ketw-sample");
	ketw_eventset_format(&set, ids, sizeof(ids));
	CHECK_STR(ids, "2,5-7,16");
	/* The set keeps what it had; names through the lookup. */
	lookup_calls = 0;
	CHECK_EQ(ketw_parse_filter_out("ketw-sample:tick,rx-drop,1023,3-3",
				       &p, &set, test_lookup, "ctx", err,
				       sizeof(err)), 0);
	CHECK_EQ(lookup_calls, 2);
	ketw_eventset_format(&set, ids, sizeof(ids));
	CHECK_STR(ids, "1-3,5-7,16,1023");
	CHECK_EQ(ketw_parse_filter_out("6b657477-7361-6d70-6c65-000000000001:0",
				       &p, &set, NULL, NULL, err, sizeof(err)),
		 0);
	CHECK(!memcmp(p.guid, test_guid, KETW_GUID_SIZE));
}

TEST(parse_filter_out_errors)
{
	static const struct {
		const char *arg, *msg;
	} bad[] = {
		{ "ketw-sample", "'ketw-sample' has no event ids (PROVIDER:ID[,ID...])" },
		{ "ketw-sample:", "has no event ids after ':'" },
		{ ":1", "no provider given" },
		{ "ketw-sample:1024",
		  "event id 1024 cannot be filtered out (only ids 0..1023 can)" },
		{ "ketw-sample:1000-1024",
		  "event ids 1000-1024 cannot be filtered out (only ids 0..1023 can)" },
		{ "ketw-sample:5-3", "event id range 5-3 is backwards" },
		{ "ketw-sample:1,,2", "empty event id in 'ketw-sample:1,,2'" },
		{ "ketw-sample:nope",
		  "'nope' is not an event id, nor the name of an event of ketw-sample" },
		{ "ketw-sample:broken",
		  "nor the name of an event of ketw-sample (its events could not be listed)" },
		{ "ketw-sample:huge",
		  "event huge has id 4096, which cannot be filtered out" },
		{ "ketw-sample:12x", "'12x' is not an event id" },
		{ "ketw-sample:99999999999999999999999",
		  "cannot be filtered out" },
		{ "6b657477-7361-6d70-6c65-00000000000g:1", "is not a GUID" },
	};
	struct ketw_provider_ref p;
	struct ketw_event_set set;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ketw_eventset_empty(&set);
		if (!CHECK_EQ(ketw_parse_filter_out(bad[i].arg, &p, &set,
						    test_lookup, "ctx", err,
						    sizeof(err)), -EINVAL))
			printf("    accepted \"%s\"\n", bad[i].arg);
		CHECK_CONTAINS(err, bad[i].msg);
	}
	/* Without a lookup, a name is not an id. */
	CHECK_EQ(ketw_parse_filter_out("ketw-sample:tick", &p, &set, NULL, NULL,
				       err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "'tick' is not an event id");
}

/* ---- the ioctl wrappers ------------------------------------------- */

static struct ketw_enable last_enable;
static unsigned long last_cmd;
static int hook_calls;

static int enable_hook(unsigned long cmd, void *arg)
{
	struct ketw_enable *e = arg;

	hook_calls++;
	last_cmd = cmd;
	if (cmd == KETW_IOC_RUNDOWN) {
		struct ketw_session_ref *ref = arg;

		CHECK_STR(ref->name, "s1");
		return 0;
	}
	if (cmd != KETW_IOC_ENABLE && cmd != KETW_IOC_GET_FILTER)
		return -ENOTTY;
	last_enable = *e;
	if (cmd == KETW_IOC_GET_FILTER) {
		memset(&e->filter, 0, sizeof(e->filter));
		e->filter.enabled = 1;
		e->filter.level = 3;
		e->filter.match_any = 0x2;
		ketw_eventset_add(&e->filter.filtered, 9);
	}
	return strcmp(e->session, "gone") ? 0 : -ENOENT;
}

TEST(session_enable_requests)
{
	struct ketw_provider_ref byname, byguid, none;
	struct ketw_filter f = { .level = 5, .enabled = 7, .match_any = 0x1,
				 .match_all = 0x4 };

	ioctl_hook = enable_hook;
	ketw_provider_ref_parse("ketw-sample", &byname);
	ketw_provider_ref_parse("6b657477-7361-6d70-6c65-000000000001",
				&byguid);
	ketw_eventset_add(&f.filtered, 2);

	CHECK_EQ(ketw_session_enable(HOOK_FD, "s1", &byname, &f), 0);
	CHECK_EQ(last_cmd, KETW_IOC_ENABLE);
	CHECK_EQ(last_enable.size, sizeof(struct ketw_enable));
	CHECK(last_enable.size >= KETW_ENABLE_SIZE_VER0);
	CHECK_EQ(last_enable.flags, 0);
	CHECK_STR(last_enable.session, "s1");
	CHECK_STR(last_enable.provider, "ketw-sample");
	CHECK(ketw_guid_is_zero(last_enable.guid));
	CHECK_EQ(last_enable.filter.level, 5);
	CHECK_EQ(last_enable.filter.enabled, 0);	/* ignored: zero */
	CHECK_EQ(last_enable.filter.match_any, 1);
	CHECK_EQ(last_enable.filter.match_all, 4);
	CHECK(ketw_eventset_ismember(&last_enable.filter.filtered, 2));

	CHECK_EQ(ketw_session_enable(HOOK_FD, "s1", &byguid, &f), 0);
	CHECK_STR(last_enable.provider, "");
	CHECK(!memcmp(last_enable.guid, test_guid, KETW_GUID_SIZE));

	CHECK_EQ(ketw_session_disable(HOOK_FD, "s1", &byguid), 0);
	CHECK_EQ(last_enable.flags, KETW_ENABLE_DISABLE);
	CHECK(!memcmp(last_enable.guid, test_guid, KETW_GUID_SIZE));

	CHECK_EQ(ketw_session_enable(HOOK_FD, "gone", &byname, &f), -ENOENT);

	memset(&f, 0, sizeof(f));
	CHECK_EQ(ketw_session_get_filter(HOOK_FD, "s1", &byname, &f), 0);
	CHECK_EQ(last_cmd, KETW_IOC_GET_FILTER);
	CHECK_EQ(last_enable.flags, 0);
	CHECK_EQ(f.enabled, 1);
	CHECK_EQ(f.level, 3);
	CHECK_EQ(f.match_any, 2);
	CHECK(ketw_eventset_ismember(&f.filtered, 9));

	CHECK_EQ(ketw_session_rundown(HOOK_FD, "s1"), 0);
	CHECK_EQ(last_cmd, KETW_IOC_RUNDOWN);

	/* Refused before any ioctl. */
	hook_calls = 0;
	memset(&none, 0, sizeof(none));
	CHECK_EQ(ketw_session_enable(HOOK_FD, "s1", &none, &f), -EINVAL);
	CHECK_EQ(ketw_session_enable(HOOK_FD, "bad name", &byname, &f),
		 -EINVAL);
	f.level = 6;
	CHECK_EQ(ketw_session_enable(HOOK_FD, "s1", &byname, &f), -EINVAL);
	CHECK_EQ(ketw_session_disable(HOOK_FD, "s1", &none), -EINVAL);
	CHECK_EQ(ketw_session_get_filter(HOOK_FD, "s1", &none, &f), -EINVAL);
	CHECK_EQ(ketw_session_rundown(HOOK_FD, ""), -EINVAL);
	CHECK_EQ(hook_calls, 0);
	ioctl_hook = NULL;
	/* Not a ketw device. */
	CHECK_EQ(ketw_session_rundown(-1, "s1"), -EBADF);
}

/* A registry of @registry_size providers, growing by @grow per call. */
static unsigned int registry_size, grow, list_calls, max_capacity;

static int list_hook(unsigned long cmd, void *arg)
{
	struct ketw_list *l = arg;
	unsigned int i, n;

	if (cmd != KETW_IOC_PROVIDERS && cmd != KETW_IOC_EVENTS)
		return -ENOTTY;
	CHECK_EQ(l->size, sizeof(*l));
	CHECK_EQ(l->reserved, 0);
	list_calls++;
	if (l->capacity > max_capacity)
		max_capacity = l->capacity;
	n = registry_size + grow * (list_calls - 1);
	if (cmd == KETW_IOC_EVENTS) {
		if (strcmp(l->provider, "ketw-sample") &&
		    memcmp(l->guid, test_guid, KETW_GUID_SIZE))
			return -ENOENT;
		for (i = 0; i < n && i < l->capacity; i++) {
			struct ketw_event_info *ev =
				(void *)(uintptr_t)(l->entries +
						    i * sizeof(*ev));

			ev->id = i + 1;
			snprintf(ev->name, sizeof(ev->name), "ev%u", i);
		}
	} else {
		for (i = 0; i < n && i < l->capacity; i++) {
			struct ketw_provider_info *pi =
				(void *)(uintptr_t)(l->entries +
						    i * sizeof(*pi));

			snprintf(pi->name, sizeof(pi->name), "p%u", i);
			pi->nr_events = i;
		}
	}
	l->count = n;
	return 0;
}

TEST(providers_list_grows)
{
	struct ketw_provider_info *pi;
	struct ketw_event_info *ev;
	struct ketw_provider_ref ref;
	unsigned int nr, i;

	ioctl_hook = list_hook;
	/* None: NULL. */
	registry_size = 0;
	grow = 0;
	list_calls = 0;
	CHECK_EQ(ketw_providers_get(HOOK_FD, &pi, &nr), 0);
	CHECK_EQ(nr, 0);
	CHECK(pi == NULL);
	CHECK_EQ(list_calls, 1);
	/* Few: one call. */
	registry_size = 3;
	list_calls = 0;
	CHECK_EQ(ketw_providers_get(HOOK_FD, &pi, &nr), 0);
	CHECK_EQ(list_calls, 1);
	ASSERT_EQ(nr, 3);
	CHECK_STR(pi[2].name, "p2");
	free(pi);
	/* More than the first array holds: a second call. */
	registry_size = 100;
	list_calls = 0;
	CHECK_EQ(ketw_providers_get(HOOK_FD, &pi, &nr), 0);
	CHECK_EQ(list_calls, 2);
	ASSERT_EQ(nr, 100);
	for (i = 0; i < nr; i++)
		if (!CHECK_EQ(pi[i].nr_events, i))
			break;
	free(pi);
	/* Growing between calls: asked again until it all fits. */
	registry_size = 20;
	grow = 5;		/* within the slack: a second call */
	list_calls = 0;
	CHECK_EQ(ketw_providers_get(HOOK_FD, &pi, &nr), 0);
	CHECK_EQ(list_calls, 2);
	CHECK_EQ(nr, 25);
	CHECK_STR(pi[24].name, "p24");
	free(pi);
	grow = 50;		/* faster than the array: gives up */
	list_calls = 0;
	CHECK_EQ(ketw_providers_get(HOOK_FD, &pi, &nr), -EAGAIN);
	CHECK(pi == NULL);
	CHECK_EQ(nr, 0);
	CHECK(list_calls > 2 && list_calls <= 20);

	/* Events the same way, by name or GUID. */
	grow = 0;
	registry_size = 40;
	list_calls = 0;
	ketw_provider_ref_parse("ketw-sample", &ref);
	CHECK_EQ(ketw_provider_events_get(HOOK_FD, &ref, &ev, &nr), 0);
	CHECK_EQ(list_calls, 2);
	ASSERT_EQ(nr, 40);
	CHECK_EQ(ev[39].id, 40);
	CHECK_STR(ev[39].name, "ev39");
	free(ev);
	ketw_provider_ref_parse("6b657477-7361-6d70-6c65-000000000001", &ref);
	CHECK_EQ(ketw_provider_events_get(HOOK_FD, &ref, &ev, &nr), 0);
	CHECK_EQ(nr, 40);
	free(ev);
	ketw_provider_ref_parse("other", &ref);
	CHECK_EQ(ketw_provider_events_get(HOOK_FD, &ref, &ev, &nr), -ENOENT);
	CHECK(ev == NULL);
	memset(&ref, 0, sizeof(ref));
	CHECK_EQ(ketw_provider_events_get(HOOK_FD, &ref, &ev, &nr), -EINVAL);
	ioctl_hook = NULL;
	CHECK_EQ(ketw_providers_get(-1, &pi, &nr), -EBADF);
}
