// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/module/ketw: the setters of ketw's module parameters, which refuse
 * a bad value with a line that names the parameter (and max_buffer_kb,
 * memory.c's cap, itself), and the two read-only reports beside the
 * parameters, mono_clock and buffer_used_kb.
 *
 * The kernel calls a parameter's setter at load (insmod, a modprobe.d
 * options line) without checking that there is one, so every parameter
 * has one, and a value that is only ever read is a report here, not a
 * parameter. The kernel's own line for a refused value quotes the value
 * first and is cut at 1 KiB: with a long value it no longer names the
 * parameter, so the setters say which parameter refused what, and why.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "clock.h"
#include "ketw_internal.h"

/* The start of a value, enough to recognise it in the line. */
#define KETW_PARAM_QUOTE	24

/**
 * ketw_param_refused() - log that a parameter refused a value, and why
 * @kp:  the parameter.
 * @val: the value (a sysfs write's trailing newline is left out).
 * @why: the reason, in words.
 */
void ketw_param_refused(const struct kernel_param *kp, const char *val,
			const char *why)
{
	size_t n = strcspn(val, "\n");

	pr_err("ketw: parameter %s: '%.*s%s' refused: %s\n", kp->name,
	       (int)min_t(size_t, n, KETW_PARAM_QUOTE), val,
	       n > KETW_PARAM_QUOTE ? "..." : "", why);
}

static int ketw_param_set_uint(const char *val, const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	if (err)
		ketw_param_refused(kp, val, err == -ERANGE ?
				   "not 0 to 4294967295" : "not a number");
	return err;
}

static int ketw_param_set_int(const char *val, const struct kernel_param *kp)
{
	int err = param_set_int(val, kp);

	if (err)
		ketw_param_refused(kp, val, err == -ERANGE ?
				   "not -2147483648 to 2147483647" :
				   "not a number");
	return err;
}

static int ketw_param_set_charp(const char *val, const struct kernel_param *kp)
{
	int err = param_set_charp(val, kp);

	if (err)
		ketw_param_refused(kp, val, err == -ENOSPC ?
				   "longer than 1024 characters" :
				   "cannot be kept");
	return err;
}

/* unsigned int, as param_ops_uint; with __MODULE_PARM_TYPE(name, "uint"). */
const struct kernel_param_ops ketw_param_ops_uint = {
	.set = ketw_param_set_uint,
	.get = param_get_uint,
};

/* int, as param_ops_int; with __MODULE_PARM_TYPE(name, "int"). */
const struct kernel_param_ops ketw_param_ops_int = {
	.set = ketw_param_set_int,
	.get = param_get_int,
};

/* char *, as param_ops_charp; with __MODULE_PARM_TYPE(name, "charp"). */
const struct kernel_param_ops ketw_param_ops_charp = {
	.set = ketw_param_set_charp,
	.get = param_get_charp,
	.free = param_free_charp,
};

/* max_buffer_kb: memory.c's cap on all sessions' buffers. */
static int ketw_max_set(const char *val, const struct kernel_param *kp)
{
	int err = ketw_mem_set_cap(val);

	if (err)
		ketw_param_refused(kp, val, "not a number of KiB up to the machine's RAM");
	return err;
}

static int ketw_max_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", ketw_mem_cap() / SZ_1K);
}

static const struct kernel_param_ops ketw_max_ops = {
	.set = ketw_max_set,
	.get = ketw_max_get,
};
module_param_cb(max_buffer_kb, &ketw_max_ops, NULL, 0644);
MODULE_PARM_DESC(max_buffer_kb, "KiB all sessions' buffers may take together (0: a quarter of RAM); lowering it leaves existing sessions alone");

/* /sys/module/ketw/mono_clock: "tsc" or "timekeeper" (clock.c). */
static ssize_t mono_clock_show(struct module_attribute *ma,
			       struct module_kobject *mk, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  ketw_clock_uses_tsc() ? "tsc" : "timekeeper");
}

/* /sys/module/ketw/buffer_used_kb: KiB all sessions' buffers take now. */
static ssize_t buffer_used_kb_show(struct module_attribute *ma,
				   struct module_kobject *mk, char *buf)
{
	return sysfs_emit(buf, "%llu\n", ketw_mem_used_bytes() / 1024);
}

static struct module_attribute ketw_attr_mono_clock = __ATTR_RO(mono_clock);
static struct module_attribute ketw_attr_buffer_used_kb =
	__ATTR_RO(buffer_used_kb);

static struct attribute *ketw_report_attrs[] = {
	&ketw_attr_mono_clock.attr,
	&ketw_attr_buffer_used_kb.attr,
	NULL,
};

static const struct attribute_group ketw_report_group = {
	.attrs = ketw_report_attrs,
};

/**
 * ketw_sysfs_init() - add the reports to /sys/module/ketw
 *
 * Return: 0 or what sysfs_create_group() returned.
 */
int ketw_sysfs_init(void)
{
	return sysfs_create_group(&THIS_MODULE->mkobj.kobj, &ketw_report_group);
}

/* Remove them; a read under way finishes first. */
void ketw_sysfs_exit(void)
{
	sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &ketw_report_group);
}
