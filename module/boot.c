// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time sessions (ETW's AutoLogger, ftrace's boot-time tracing): the
 * module parameter "boot" describes sessions that ketw creates, enables
 * and starts while it loads, before any provider module that depends on
 * it runs its init, so that a driver is traced from its first event.
 * Documentation/ketw.rst ("Sessions at load") gives the syntax.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ketw_internal.h"

static char *ketw_boot;
module_param_cb(boot, &ketw_param_ops_charp, &ketw_boot, 0444);
__MODULE_PARM_TYPE(boot, "charp");
MODULE_PARM_DESC(boot, "sessions to start at load: NAME[,OPTION...][;NAME...], options buffer_kb=, policy=loop|until-full|flush, clock=mono|boot|local, level=, any=, all=, max_data=, no_rundown, provider=NAME[:LEVEL[:KEYWORDS]]");

/* A policy or clock word (names.c) into @out. */
static int ketw_boot_word(int (*parse)(const char *s), const char *s, u32 *out)
{
	int i = parse(s);

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

/* One provider=NAME[:LEVEL[:KEYWORDS]] into @req (name and filter). */
static int ketw_boot_provider(char *val, struct ketw_enable *req)
{
	char *level = strchr(val, ':'), *any = NULL;
	u32 l = 0;

	if (level) {
		*level++ = '\0';
		any = strchr(level, ':');
		if (any)
			*any++ = '\0';
		if (kstrtou32(level, 0, &l) || l > KETW_LEVEL_VERBOSE)
			return -EINVAL;
	}
	if (!*val || strlen(val) >= KETW_NAME_MAX)
		return -EINVAL;
	strscpy(req->provider, val, sizeof(req->provider));
	req->filter.level = l;
	if (any && kstrtou64(any, 0, &req->filter.match_any))
		return -EINVAL;
	return 0;
}

/*
 * Session @n: "NAME,OPTION,..." (modified in place). On failure, says
 * what was wrong.
 */
static int ketw_boot_session(unsigned int n, char *spec)
{
	const char *why = NULL;
	struct ketw_session_attr *attr;
	struct ketw_enable *reqs;
	struct ketw_session *s;
	unsigned int nr = 0, i;
	char *opt, *val;
	int err = -EINVAL;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	reqs = kcalloc(KETW_MAX_ENABLES, sizeof(*reqs), GFP_KERNEL);
	if (!attr || !reqs) {
		err = -ENOMEM;
		why = "out of memory";
		goto out;
	}
	attr->size = sizeof(*attr);
	opt = strsep(&spec, ",");
	if (!opt || !*opt || strlen(opt) >= KETW_NAME_MAX) {
		why = "a session name first";
		goto out;
	}
	strscpy(attr->name, opt, sizeof(attr->name));
	while ((opt = strsep(&spec, ","))) {
		val = strchr(opt, '=');
		if (val)
			*val++ = '\0';
		why = opt;	/* the option that is wrong, if one is */
		if (!strcmp(opt, "no_rundown") && !val)
			attr->flags |= KETW_SESSION_NO_RUNDOWN;
		else if (!val)
			goto out;
		else if (!strcmp(opt, "buffer_kb"))
			err = kstrtou32(val, 0, &attr->buffer_kb);
		else if (!strcmp(opt, "max_data"))
			err = kstrtou32(val, 0, &attr->max_data_size);
		else if (!strcmp(opt, "level"))
			err = kstrtou32(val, 0, &attr->level);
		else if (!strcmp(opt, "any"))
			err = kstrtou64(val, 0, &attr->match_any);
		else if (!strcmp(opt, "all"))
			err = kstrtou64(val, 0, &attr->match_all);
		else if (!strcmp(opt, "policy"))
			err = ketw_boot_word(ketw_policy_parse, val,
					     &attr->policy);
		else if (!strcmp(opt, "clock"))
			err = ketw_boot_word(ketw_clock_parse, val,
					     &attr->clock);
		else if (!strcmp(opt, "provider") && nr < KETW_MAX_ENABLES)
			err = ketw_boot_provider(val, &reqs[nr++]);
		else
			err = -EINVAL;
		if (err)
			goto out;
	}
	why = "its attributes (see ketw_session_attr)";
	err = ketw_session_create(attr, &s);
	if (err)
		goto out;
	for (i = 0; i < nr && !err; i++) {
		reqs[i].size = sizeof(reqs[i]);
		why = reqs[i].provider;
		err = ketw_session_enable(s, &reqs[i]);
	}
	if (!err) {
		why = "start";
		err = ketw_session_start(s);
	}
	if (err)
		ketw_session_destroy(s, NULL);
	ketw_session_put(s);	/* the list keeps it */
out:
	if (err)
		pr_err("ketw: boot session %u not started: %s (%pe)\n", n,
		       why ? why : "?", ERR_PTR(err));
	kfree(reqs);
	kfree(attr);
	return err;
}

/**
 * ketw_boot_sessions_start() - create and start the "boot" sessions
 *
 * A session whose description is wrong is left out, with a message that
 * names it and what is wrong; the others start, and ketw loads.
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
	if (started)
		pr_info("ketw: %u boot session%s running\n", started,
			started == 1 ? "" : "s");
	return started;
}
