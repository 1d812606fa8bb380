// SPDX-License-Identifier: GPL-2.0
/*
 * ketw_sample - a provider that tests and the demo drive.
 *
 * Writing N to /sys/module/ketw_sample/parameters/emit logs N events from
 * the writing task (layout in ketw_sample.h). "emitted" counts the events
 * logged since load and "stored" how many session copies ketw kept.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <ketw.h>

#include "ketw_sample.h"

#define KETW_SAMPLE_MAX_EMIT	10000000

static KETW_PROVIDER(sample_provider, KETW_SAMPLE_NAME, KETW_SAMPLE_GUID_BYTES);

static const struct ketw_event_descriptor sample_tick = {
	.id		= KETW_SAMPLE_EV_TICK,
	.type		= KETW_SAMPLE_TICK_TYPE,
	.level		= KETW_SAMPLE_TICK_LEVEL,
	.version	= KETW_SAMPLE_TICK_VERSION,
	.keyword	= KETW_SAMPLE_TICK_KEYWORD,
	.name		= "tick",
};

static atomic64_t sample_emitted = ATOMIC64_INIT(0);
static atomic64_t sample_stored = ATOMIC64_INIT(0);

static void sample_emit_one(u32 index)
{
	struct {
		struct ketw_sample_tick tick;
		u8 tail[KETW_SAMPLE_TAIL_MOD];
	} ev;
	u32 k, tail = index % KETW_SAMPLE_TAIL_MOD;
	int stored;

	ev.tick.index = index;
	ev.tick.magic = KETW_SAMPLE_MAGIC;
	ev.tick.value = (u64)index * 3 + 1;
	for (k = 0; k < tail; k++)
		ev.tail[k] = (index + k) & 0xff;
	stored = ketw_write(&sample_provider, &sample_tick, &ev,
			    sizeof(ev.tick) + tail);
	atomic64_inc(&sample_emitted);
	atomic64_add(stored, &sample_stored);
}

static int sample_emit_set(const char *val, const struct kernel_param *kp)
{
	u32 n, i;
	int err;

	err = kstrtou32(val, 0, &n);
	if (err)
		return err;
	if (n > KETW_SAMPLE_MAX_EMIT)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		sample_emit_one(i);
		if ((i & 1023) == 1023)
			cond_resched();
	}
	return 0;
}

static const struct kernel_param_ops sample_emit_ops = {
	.set = sample_emit_set,
	.get = NULL,
};
module_param_cb(emit, &sample_emit_ops, NULL, 0200);
MODULE_PARM_DESC(emit, "write N: log N tick events from the writing task");

static int sample_counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(kp->arg));
}

static const struct kernel_param_ops sample_counter_ops = {
	.get = sample_counter_get,
};
module_param_cb(emitted, &sample_counter_ops, &sample_emitted, 0444);
MODULE_PARM_DESC(emitted, "events logged since load");
module_param_cb(stored, &sample_counter_ops, &sample_stored, 0444);
MODULE_PARM_DESC(stored, "session copies stored since load");

static int __init sample_init(void)
{
	return ketw_provider_register(&sample_provider);
}

static void __exit sample_exit(void)
{
	ketw_provider_unregister(&sample_provider);
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_DESCRIPTION("ketw sample provider");
MODULE_AUTHOR("The ketw developers");
MODULE_LICENSE("GPL");
