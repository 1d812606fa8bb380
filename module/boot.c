// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time sessions (ETW's AutoLogger, ftrace's boot-time tracing): the
 * module parameter "boot" describes sessions that ketw creates, enables
 * and starts while it loads, before any provider module that depends on
 * it runs its init, so that a driver is traced from its first event.
 * Documentation/ketw.rst ("Sessions at load") gives the syntax.
 *
 * A session whose description is wrong in any way is not started, and
 * one line in the kernel log names it, the option at fault and why.
 */
#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ketw_internal.h"

static char *ketw_boot;
module_param_cb(boot, &ketw_param_ops_charp, &ketw_boot, 0444);
__MODULE_PARM_TYPE(boot, "charp");
MODULE_PARM_DESC(boot, "sessions to start at load: NAME[,OPTION...][;NAME...], options buffer_kb=, policy=loop|until-full|flush, clock=mono|boot|local, level=, any=, all=, max_data=, no_rundown, provider=NAME[:LEVEL[:KEYWORDS]]");

/* One session's description, as it is read. */
struct ketw_boot {
	unsigned int n;			/* its place in boot=, from 1 */
	const char *name;		/* once it is known to be valid */
	const char *opt;		/* the option at fault, or NULL */
	char why[160];			/* what is wrong with it */
	bool max_data;			/* max_data= was given */
	unsigned int nr;		/* provider= options */
	struct ketw_session_attr attr;
	struct ketw_enable reqs[KETW_MAX_ENABLES];
};

/* Say what is wrong with the description. Return: -EINVAL. */
static __printf(2, 3) int ketw_boot_bad(struct ketw_boot *b,
					 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vscnprintf(b->why, sizeof(b->why), fmt, args);
	va_end(args);
	return -EINVAL;
}

/* The one line that says why session @b is not started. */
static void ketw_boot_report(const struct ketw_boot *b)
{
	char who[KETW_NAME_MAX + 16];

	if (b->name)
		scnprintf(who, sizeof(who), "'%s'", b->name);
	else
		scnprintf(who, sizeof(who), "%u", b->n);
	if (b->opt)
		pr_err("ketw: boot session %s: option '%.64s': %s\n", who,
		       b->opt, b->why);
	else
		pr_err("ketw: boot session %s: %s\n", who, b->why);
}

/* A number from @min to @max into @out; or 0 (a default) if @zero_ok. */
static int ketw_boot_u32(struct ketw_boot *b, const char *val, u32 min,
			 u32 max, bool zero_ok, u32 *out)
{
	int err;
	u32 v;

	err = kstrtou32(val, 0, &v);
	if (err == -EINVAL)
		return ketw_boot_bad(b, "not a number");
	if (err || ((v < min || v > max) && !(zero_ok && !v)))
		return ketw_boot_bad(b, "not %s%u to %u",
				     zero_ok ? "0 (the default) or " : "",
				     min, max);
	*out = v;
	return 0;
}

static int ketw_boot_u64(struct ketw_boot *b, const char *val, u64 *out)
{
	int err = kstrtou64(val, 0, out);

	if (err)
		return ketw_boot_bad(b, err == -ERANGE ?
				     "more than 64 bits" : "not a number");
	return 0;
}

/* A policy or clock word (names.c) into @out. */
static int ketw_boot_word(struct ketw_boot *b, int (*parse)(const char *s),
			  const char *val, const char *words, u32 *out)
{
	int i = parse(val);

	if (i < 0)
		return ketw_boot_bad(b, "not %s", words);
	*out = i;
	return 0;
}

/* provider=NAME[:LEVEL[:KEYWORDS]]: one more provider to enable. */
static int ketw_boot_provider(struct ketw_boot *b, const char *val)
{
	struct ketw_enable *req = &b->reqs[b->nr];
	char *name, *level, *any;
	int err;

	if (b->nr >= KETW_MAX_ENABLES)
		return ketw_boot_bad(b, "more than %d providers",
				     KETW_MAX_ENABLES);
	name = kstrdup(val, GFP_KERNEL);
	if (!name)
		return ketw_boot_bad(b, "out of memory");
	level = strchr(name, ':');
	any = level ? strchr(level + 1, ':') : NULL;
	if (level)
		*level++ = '\0';
	if (any)
		*any++ = '\0';
	if (!*name)
		err = ketw_boot_bad(b, "no provider name");
	else if (strlen(name) >= KETW_NAME_MAX)
		err = ketw_boot_bad(b, "a provider name is at most %d characters",
				    KETW_NAME_MAX - 1);
	else if (level && kstrtou32(level, 0, &req->filter.level))
		err = ketw_boot_bad(b, "level '%.16s' is not a number", level);
	else if (req->filter.level > KETW_LEVEL_VERBOSE)
		err = ketw_boot_bad(b, "level %u is not 0 to %d",
				    req->filter.level, KETW_LEVEL_VERBOSE);
	else if (any && kstrtou64(any, 0, &req->filter.match_any))
		err = ketw_boot_bad(b, "keywords '%.24s' are not a 64-bit number",
				    any);
	else
		err = 0;
	if (!err) {
		strscpy(req->provider, name, sizeof(req->provider));
		req->size = sizeof(*req);
		b->nr++;
	}
	kfree(name);
	return err;
}

/* Is the option's name (the @len bytes of @opt before any '=') @key? */
static bool ketw_boot_is(const char *opt, size_t len, const char *key)
{
	return strlen(key) == len && !memcmp(opt, key, len);
}

/* One option of session @b, "KEY=VALUE" or "no_rundown". */
static int ketw_boot_option(struct ketw_boot *b, const char *opt)
{
	struct ketw_session_attr *a = &b->attr;
	const char *val = strchr(opt, '=');
	size_t len = val ? val - opt : strlen(opt);

	b->opt = opt;
	if (ketw_boot_is(opt, len, "no_rundown")) {
		if (val)
			return ketw_boot_bad(b, "takes no value");
		a->flags |= KETW_SESSION_NO_RUNDOWN;
		return 0;
	}
	if (!ketw_boot_is(opt, len, "buffer_kb") &&
	    !ketw_boot_is(opt, len, "max_data") &&
	    !ketw_boot_is(opt, len, "level") &&
	    !ketw_boot_is(opt, len, "any") && !ketw_boot_is(opt, len, "all") &&
	    !ketw_boot_is(opt, len, "policy") &&
	    !ketw_boot_is(opt, len, "clock") &&
	    !ketw_boot_is(opt, len, "provider"))
		return ketw_boot_bad(b, "unknown option");
	if (!val)
		return ketw_boot_bad(b, "needs a value (%.*s=...)", (int)len,
				     opt);
	val++;
	if (ketw_boot_is(opt, len, "buffer_kb"))
		return ketw_boot_u32(b, val, KETW_BUFFER_KB_MIN,
				     KETW_BUFFER_KB_MAX, true, &a->buffer_kb);
	if (ketw_boot_is(opt, len, "max_data")) {
		b->max_data = true;
		return ketw_boot_u32(b, val, 1, KETW_MAX_DATA_SIZE, true,
				     &a->max_data_size);
	}
	if (ketw_boot_is(opt, len, "level"))
		return ketw_boot_u32(b, val, 0, KETW_LEVEL_VERBOSE, false,
				     &a->level);
	if (ketw_boot_is(opt, len, "any"))
		return ketw_boot_u64(b, val, &a->match_any);
	if (ketw_boot_is(opt, len, "all"))
		return ketw_boot_u64(b, val, &a->match_all);
	if (ketw_boot_is(opt, len, "policy"))
		return ketw_boot_word(b, ketw_policy_parse, val,
				      "loop, until-full or flush", &a->policy);
	if (ketw_boot_is(opt, len, "clock"))
		return ketw_boot_word(b, ketw_clock_parse, val,
				      "mono, boot or local", &a->clock);
	return ketw_boot_provider(b, val);
}

/* Why ketw_session_create() refused session @b, in words. */
static int ketw_boot_create_failed(struct ketw_boot *b, int err)
{
	char mem[128];

	b->opt = NULL;
	switch (err) {
	case -EEXIST:
		ketw_boot_bad(b, "a session of that name exists");
		break;
	case -ENOSPC:
		ketw_boot_bad(b, "too many sessions (limit %d)",
			      KETW_MAX_SESSIONS);
		break;
	case -ENOMEM:
	case -ENOBUFS:
		ketw_mem_explain(mem, sizeof(mem), b->attr.memory, err);
		ketw_boot_bad(b, "not enough memory: %s", mem);
		break;
	case -EINVAL:
		if (b->max_data) {
			ketw_boot_bad(b, "max_data=%u does not fit its %u KiB buffer",
				      b->attr.max_data_size,
				      b->attr.buffer_kb);
			break;
		}
		fallthrough;
	default:
		ketw_boot_bad(b, "cannot be created (%pe)", ERR_PTR(err));
	}
	return err;
}

/* Create, enable and start session @b. */
static int ketw_boot_start(struct ketw_boot *b)
{
	struct ketw_session *s;
	unsigned int i;
	int err;

	err = ketw_session_create(&b->attr, &s);
	if (err)
		return ketw_boot_create_failed(b, err);
	b->opt = NULL;
	for (i = 0; i < b->nr && !err; i++) {
		err = ketw_session_enable(s, &b->reqs[i]);
		if (err)
			ketw_boot_bad(b, "provider '%s' cannot be enabled (%pe)",
				      b->reqs[i].provider, ERR_PTR(err));
	}
	if (!err) {
		err = ketw_session_start(s);
		if (err)
			ketw_boot_bad(b, "cannot start (%pe)", ERR_PTR(err));
	}
	if (err)
		ketw_session_destroy(s, NULL);
	ketw_session_put(s);	/* the list keeps it */
	return err;
}

/*
 * Session @n: "NAME,OPTION,..." (split in place). Either it starts, or
 * one line says which session, which option and why not.
 */
static int ketw_boot_session(unsigned int n, char *spec)
{
	unsigned int nr_opts = 0;
	struct ketw_boot *b;
	char *name, *opt;
	int err = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->n = n;
	b->attr.size = sizeof(b->attr);
	name = strsep(&spec, ",");
	if (!*name)
		err = ketw_boot_bad(b, "no name (NAME[,OPTION...])");
	else if (!ketw_name_valid(name))
		err = ketw_boot_bad(b, "name '%.40s' is not 1 to %d of a-z A-Z 0-9 _ . -",
				    name, KETW_NAME_MAX - 1);
	else
		b->name = name;
	while (!err && (opt = strsep(&spec, ","))) {
		nr_opts++;
		b->opt = NULL;
		if (!*opt)
			err = ketw_boot_bad(b, "option %u is empty (a stray ',')",
					    nr_opts);
		else
			err = ketw_boot_option(b, opt);
	}
	if (!err) {
		strscpy(b->attr.name, name, sizeof(b->attr.name));
		err = ketw_boot_start(b);
	}
	if (err)
		ketw_boot_report(b);
	kfree(b);
	return err;
}

/**
 * ketw_boot_sessions_start() - create and start the "boot" sessions
 *
 * A session whose description is wrong is left out, with a line that
 * names it, the option at fault and what is wrong; the others start, and
 * ketw loads. An empty description (";;") is no session.
 *
 * Return: the number of sessions started.
 */
int ketw_boot_sessions_start(void)
{
	unsigned int n = 0, started = 0;
	char *all, *p, *spec;

	if (!ketw_boot || !*ketw_boot)
		return 0;
	all = kstrdup(ketw_boot, GFP_KERNEL);
	if (!all)
		return 0;
	p = all;
	while ((spec = strsep(&p, ";"))) {
		if (!*spec)
			continue;
		if (!ketw_boot_session(++n, spec))
			started++;
	}
	kfree(all);
	if (n == started)
		pr_info("ketw: %u boot session%s running\n", started,
			started == 1 ? "" : "s");
	else
		pr_info("ketw: %u boot session%s running, %u refused\n",
			started, started == 1 ? "" : "s", n - started);
	return started;
}
