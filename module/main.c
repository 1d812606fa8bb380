// SPDX-License-Identifier: GPL-2.0
/*
 * ketw - ETW-class event tracing for Linux: module init and exit.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "clock.h"
#include "ketw_internal.h"

/* Serialises every control operation; see ketw_internal.h. */
DEFINE_MUTEX(ketw_mutex);

struct workqueue_struct *ketw_wq;

static int __init ketw_init(void)
{
	int err;

	ketw_wq = alloc_workqueue("ketw", 0, 0);
	if (!ketw_wq)
		return -ENOMEM;
	err = ketw_clock_init();
	if (err)
		goto out_wq;
	err = ketw_ext_init();
	if (err)
		goto out_clock;
	ketw_pids_init();
	err = ketw_dev_init();
	if (err)
		goto out_ext;
	err = ketwfs_init();
	if (err)
		goto out_dev;
	err = ketw_sysfs_init();
	if (err)
		goto out_fs;
	pr_info("ketw: ready, /dev/ketw and ketwfs (mount -t ketwfs none /sys/kernel/ketw)\n");
	/* Before any provider that depends on ketw runs its init. */
	ketw_boot_sessions_start();
	return 0;

out_fs:
	ketwfs_exit();
out_dev:
	ketw_dev_exit();
out_ext:
	ketw_ext_exit();
out_clock:
	ketw_clock_exit();
out_wq:
	destroy_workqueue(ketw_wq);
	return err;
}

static void __exit ketw_exit(void)
{
	ketw_sysfs_exit();
	ketwfs_exit();
	ketw_dev_exit();
	/* Sessions hold the module: none can be left, but be sure. */
	ketw_sessions_destroy_all();
	/*
	 * An auto-stop work may still be returning from its last put; the
	 * process filters' probes may be waiting to be unregistered.
	 */
	destroy_workqueue(ketw_wq);
	ketw_pids_exit();
	ketw_ext_exit();
	ketw_clock_exit();
}

module_init(ketw_init);
module_exit(ketw_exit);

MODULE_DESCRIPTION("ETW-class event tracing: providers, sessions, per-CPU lockless buffers");
MODULE_AUTHOR("The ketw developers");
MODULE_LICENSE("GPL");
