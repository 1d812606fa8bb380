// SPDX-License-Identifier: GPL-2.0
/*
 * ketw_sample - a provider that tests and the demo drive.
 *
 * Writing N to /sys/module/ketw_sample/parameters/emit logs N events from
 * the writing task (layout in ketw_sample.h). "emitted" counts the events
 * logged since load and "stored" how many session copies ketw kept.
 *
 * Writing N to "recurse" logs N warn events while a kprobe on ketw's
 * per-session write function logs a warn event from inside it, in the
 * same context: what ketw's recursion guard is for. "probe_hits" counts
 * the probe's calls.
 *
 * Writing N to "emit_irq" logs N tick events from a hard hrtimer, in
 * hardirq context (sample_irq_timer()), and returns when they are done.
 * Writing a context's word to "emit_ctx" logs one tick event from that
 * context (ketw_sample.h), for the records' context bits.
 *
 * Writing N to "emit_filter" logs N events with the payload of LTTng's
 * lttng_test_filter_event, as lttng-test.ko logs N of those for an N
 * written to /proc/lttng-test-filter-event: make bench times the two.
 */
#include <asm/byteorder.h>
#include <linux/bottom_half.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <ketw.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "ketw_sample.h"

#define KETW_SAMPLE_MAX_EMIT	10000000

static const struct ketw_field sample_tick_fields[] = {
	KETW_FIELD(struct ketw_sample_tick, index, KETW_FIELD_U32),
	KETW_FIELD(struct ketw_sample_tick, magic, KETW_FIELD_HEX32),
	KETW_FIELD(struct ketw_sample_tick, value, KETW_FIELD_U64),
	{ .name = "tail", .type = KETW_FIELD_BINARY,
	  .offset = sizeof(struct ketw_sample_tick), .size = 0 },
};

static const struct ketw_field sample_warn_fields[] = {
	KETW_FIELD(struct ketw_sample_warn, index, KETW_FIELD_U32),
	KETW_FIELD(struct ketw_sample_warn, code, KETW_FIELD_U32),
	KETW_FIELD(struct ketw_sample_warn, text, KETW_FIELD_STRING),
};

/*
 * lttng_test_filter_event's fields in LTTng's order and sizes, packed as
 * its ring buffer stores them on x86-64; the sequences carry their
 * lengths (size_t, but u8 for bitfield_seq) before their elements.
 */
struct sample_filter_payload {
	s32 intfield;
	s32 intfield2;
	s64 longfield;
	s32 signedfield;
	__be32 netintfield;
	__be32 netintfieldhex;
	s64 arrfield1[3];
	char arrfield2[10];
	__be32 arrfield3[3];
	u64 seqfield1_len;
	char seqfield1[4];
	u64 seqfield2_len;
	char seqfield2[4];
	u64 seqfield3_len;
	__be32 seqfield3[3];
	u64 seqfield4_len;
	s64 seqfield4[3];
	char stringfield[5];
	char stringfield2[3];
	u8 bitfield_seq_len;
	s64 bitfield_seq[3];
	s64 bitfield_array[3];
	s32 enums[7];
} __packed;

static_assert(sizeof(struct sample_filter_payload) == KETW_SAMPLE_FILTER_SIZE);

/* At most KETW_MAX_FIELDS: the sequences and the enums go in groups. */
static const struct ketw_field sample_filter_fields[] = {
	KETW_FIELD(struct sample_filter_payload, intfield, KETW_FIELD_S32),
	KETW_FIELD(struct sample_filter_payload, intfield2, KETW_FIELD_HEX32),
	KETW_FIELD(struct sample_filter_payload, longfield, KETW_FIELD_S64),
	KETW_FIELD(struct sample_filter_payload, signedfield, KETW_FIELD_S32),
	KETW_FIELD(struct sample_filter_payload, netintfield, KETW_FIELD_BINARY),
	KETW_FIELD(struct sample_filter_payload, netintfieldhex, KETW_FIELD_BINARY),
	KETW_FIELD(struct sample_filter_payload, arrfield1, KETW_FIELD_BINARY),
	KETW_FIELD(struct sample_filter_payload, arrfield2, KETW_FIELD_STRING),
	KETW_FIELD(struct sample_filter_payload, arrfield3, KETW_FIELD_BINARY),
	{ .name = "seqfields", .type = KETW_FIELD_BINARY,
	  .offset = offsetof(struct sample_filter_payload, seqfield1_len),
	  .size = offsetof(struct sample_filter_payload, stringfield) -
		  offsetof(struct sample_filter_payload, seqfield1_len) },
	KETW_FIELD(struct sample_filter_payload, stringfield, KETW_FIELD_STRING),
	KETW_FIELD(struct sample_filter_payload, stringfield2, KETW_FIELD_STRING),
	{ .name = "bitfields", .type = KETW_FIELD_BINARY,
	  .offset = offsetof(struct sample_filter_payload, bitfield_seq_len),
	  .size = offsetof(struct sample_filter_payload, enums) -
		  offsetof(struct sample_filter_payload, bitfield_seq_len) },
	KETW_FIELD(struct sample_filter_payload, enums, KETW_FIELD_BINARY),
};

static const struct ketw_event_descriptor sample_events[] = {
	{
		.id		= KETW_SAMPLE_EV_TICK,
		.type		= KETW_SAMPLE_TICK_TYPE,
		.level		= KETW_SAMPLE_TICK_LEVEL,
		.version	= KETW_SAMPLE_TICK_VERSION,
		.keyword	= KETW_SAMPLE_TICK_KEYWORD,
		.name		= "tick",
		.fields		= sample_tick_fields,
		.nr_fields	= ARRAY_SIZE(sample_tick_fields),
	}, {
		.id		= KETW_SAMPLE_EV_WARN,
		.type		= KETW_SAMPLE_WARN_TYPE,
		.level		= KETW_SAMPLE_WARN_LEVEL,
		.version	= KETW_SAMPLE_WARN_VERSION,
		.keyword	= KETW_SAMPLE_WARN_KEYWORD,
		.name		= "warn",
		.fields		= sample_warn_fields,
		.nr_fields	= ARRAY_SIZE(sample_warn_fields),
	}, {
		.id		= KETW_SAMPLE_EV_FILTER,
		.type		= KETW_SAMPLE_FILTER_TYPE,
		.level		= KETW_SAMPLE_FILTER_LEVEL,
		.version	= KETW_SAMPLE_FILTER_VERSION,
		.keyword	= KETW_SAMPLE_FILTER_KEYWORD,
		.name		= "filter",
		.fields		= sample_filter_fields,
		.nr_fields	= ARRAY_SIZE(sample_filter_fields),
	},
};

#define sample_tick	(&sample_events[0])
#define sample_warn	(&sample_events[1])
#define sample_filter	(&sample_events[2])

static KETW_PROVIDER_EVENTS(sample_provider, KETW_SAMPLE_NAME, sample_events,
			    KETW_SAMPLE_GUID_BYTES);

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
	stored = ketw_write(&sample_provider, sample_tick, &ev,
			    sizeof(ev.tick) + tail);
	atomic64_inc(&sample_emitted);
	atomic64_add(stored, &sample_stored);
}

static void sample_warn_one(u32 index)
{
	struct ketw_sample_warn ev = { .index = index, .code = index * 5 };

	strscpy(ev.text, "warning", sizeof(ev.text));
	atomic64_add(ketw_write(&sample_provider, sample_warn, &ev, sizeof(ev)),
		     &sample_stored);
	atomic64_inc(&sample_emitted);
}

/* Parse N from @val and call @one for 0..N-1. */
static int sample_emit_n(const char *val, void (*one)(u32 index))
{
	u32 n, i;
	int err;

	err = kstrtou32(val, 0, &n);
	if (err)
		return err;
	if (n > KETW_SAMPLE_MAX_EMIT)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		one(i);
		if ((i & 1023) == 1023)
			cond_resched();
	}
	return 0;
}

static int sample_emit_set(const char *val, const struct kernel_param *kp)
{
	return sample_emit_n(val, kp->arg);
}

/*
 * emit_filter: what lttng-test.ko's trace_test_event() does for LTTng,
 * with ketw_write(): the same arguments, a payload of the same fields
 * filled from them for each event. The counters are added to once, at
 * the end, as LTTng's loop keeps none.
 */
static int sample_filter_set(const char *val, const struct kernel_param *kp)
{
	static const s64 values[3] = { 1, 2, 3 };
	static const char text[10] = "test", escape[10] = "\\*";
	struct sample_filter_payload ev;
	size_t textlen = strlen(text);
	__be32 net_values[3];
	u64 stored = 0;
	u32 n, i, k;
	int err;

	err = kstrtou32(val, 0, &n);
	if (err)
		return err;
	if (n > KETW_SAMPLE_MAX_EMIT)
		return -EINVAL;
	for (k = 0; k < 3; k++)
		net_values[k] = cpu_to_be32(values[k]);
	for (i = 0; i < n; i++) {
		ev.intfield = i;
		ev.intfield2 = i;
		ev.longfield = i;
		ev.signedfield = -1;
		ev.netintfield = cpu_to_be32(i);
		ev.netintfieldhex = ev.netintfield;
		memcpy(ev.arrfield1, values, sizeof(ev.arrfield1));
		memcpy(ev.arrfield2, text, sizeof(ev.arrfield2));
		memcpy(ev.arrfield3, net_values, sizeof(ev.arrfield3));
		ev.seqfield1_len = textlen;
		memcpy(ev.seqfield1, text, sizeof(ev.seqfield1));
		ev.seqfield2_len = textlen;
		memcpy(ev.seqfield2, text, sizeof(ev.seqfield2));
		ev.seqfield3_len = 3;
		memcpy(ev.seqfield3, net_values, sizeof(ev.seqfield3));
		ev.seqfield4_len = 3;
		memcpy(ev.seqfield4, values, sizeof(ev.seqfield4));
		memcpy(ev.stringfield, text, sizeof(ev.stringfield));
		memcpy(ev.stringfield2, escape, sizeof(ev.stringfield2));
		ev.bitfield_seq_len = 3;
		memcpy(ev.bitfield_seq, values, sizeof(ev.bitfield_seq));
		memcpy(ev.bitfield_array, values, sizeof(ev.bitfield_array));
		ev.enums[0] = 0;
		ev.enums[1] = 23;
		ev.enums[2] = 27;
		ev.enums[3] = 28;
		ev.enums[4] = 202;
		ev.enums[5] = 304;
		ev.enums[6] = -1;
		stored += ketw_write(&sample_provider, sample_filter, &ev,
				     sizeof(ev));
		if ((i & 1023) == 1023)
			cond_resched();
	}
	atomic64_add(n, &sample_emitted);
	atomic64_add(stored, &sample_stored);
	return 0;
}

static const struct kernel_param_ops sample_filter_ops = {
	.set = sample_filter_set,
};
module_param_cb(emit_filter, &sample_filter_ops, NULL, 0200);
MODULE_PARM_DESC(emit_filter, "write N: log N events with the payload of LTTng's lttng_test_filter_event");

static atomic64_t sample_probe_hits = ATOMIC64_INIT(0);

/* Called at the entry of ketw_ring_write(), in the writer's context. */
static int sample_recurse_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&sample_probe_hits);
	sample_warn_one(0);
	return 0;
}

static int sample_recurse_set(const char *val, const struct kernel_param *kp)
{
	struct kprobe kp_write = {
		.symbol_name	= "ketw_ring_write",
		.pre_handler	= sample_recurse_pre,
	};
	int err;

	err = register_kprobe(&kp_write);
	if (err)
		return err;
	err = sample_emit_n(val, sample_warn_one);
	unregister_kprobe(&kp_write);
	return err;
}

static const struct kernel_param_ops sample_recurse_ops = {
	.set = sample_recurse_set,
};
module_param_cb(recurse, &sample_recurse_ops, NULL, 0200);
MODULE_PARM_DESC(recurse, "write N: log N warn events while a probe on ketw_ring_write() logs from inside it");

static const struct kernel_param_ops sample_emit_ops = {
	.set = sample_emit_set,
	.get = NULL,
};
module_param_cb(emit, &sample_emit_ops, sample_emit_one, 0200);
MODULE_PARM_DESC(emit, "write N: log N tick events from the writing task");
module_param_cb(emit_warn, &sample_emit_ops, sample_warn_one, 0200);
MODULE_PARM_DESC(emit_warn, "write N: log N warn events from the writing task");

/*
 * A report is read-only, but the kernel calls a parameter's setter at
 * load without checking that there is one: refuse, naming it.
 */
static int sample_read_only(const char *val, const struct kernel_param *kp)
{
	pr_err("ketw_sample: parameter %s is read-only\n", kp->name);
	return -EPERM;
}

/* emit_irq: one writer at a time, one timer shot per event. */
static DEFINE_MUTEX(sample_irq_mutex);
static struct hrtimer sample_irq_hrtimer;
static u32 sample_irq_index;
static DECLARE_COMPLETION(sample_irq_done);

#define SAMPLE_IRQ_DELAY_NS	(100 * NSEC_PER_USEC)

static noinline enum hrtimer_restart sample_irq_timer(struct hrtimer *t)
{
	sample_emit_one(READ_ONCE(sample_irq_index));
	complete(&sample_irq_done);
	return HRTIMER_NORESTART;
}

static int sample_irq_set(const char *val, const struct kernel_param *kp)
{
	long left = 1;
	u32 n, i;
	int err;

	/* The timer is set up by sample_init(): not from a load's parameters. */
	if (!READ_ONCE(sample_irq_hrtimer.function)) {
		pr_err("ketw_sample: parameter emit_irq: not before the module is loaded\n");
		return -EBUSY;
	}
	err = kstrtou32(val, 0, &n);
	if (err)
		return err;
	if (n > 100000)
		return -EINVAL;
	if (mutex_lock_interruptible(&sample_irq_mutex))
		return -ERESTARTSYS;
	for (i = 0; i < n && left > 0; i++) {
		WRITE_ONCE(sample_irq_index, i);
		reinit_completion(&sample_irq_done);
		hrtimer_start(&sample_irq_hrtimer,
			      ns_to_ktime(SAMPLE_IRQ_DELAY_NS),
			      HRTIMER_MODE_REL_HARD);
		left = wait_for_completion_interruptible_timeout(&sample_irq_done,
								 10 * HZ);
		hrtimer_cancel(&sample_irq_hrtimer);
	}
	mutex_unlock(&sample_irq_mutex);
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}

static const struct kernel_param_ops sample_irq_ops = {
	.set = sample_irq_set,
};
module_param_cb(emit_irq, &sample_irq_ops, NULL, 0200);
MODULE_PARM_DESC(emit_irq, "write N: log N tick events from a hard hrtimer (hardirq context)");

static int sample_counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(kp->arg));
}

static const struct kernel_param_ops sample_counter_ops = {
	.set = sample_read_only,
	.get = sample_counter_get,
};
module_param_cb(emitted, &sample_counter_ops, &sample_emitted, 0444);
MODULE_PARM_DESC(emitted, "events logged since load");
module_param_cb(stored, &sample_counter_ops, &sample_stored, 0444);
MODULE_PARM_DESC(stored, "session copies stored since load");
module_param_cb(probe_hits, &sample_counter_ops, &sample_probe_hits, 0444);
MODULE_PARM_DESC(probe_hits, "calls of the \"recurse\" probe since load");

/* ---- emit_ctx: one event from a chosen context ---- */

/* One request at a time; the event's index; set once it is logged. */
static DEFINE_MUTEX(sample_ctx_mutex);
static u32 sample_ctx_index;
static atomic_t sample_ctx_pending = ATOMIC_INIT(0);

/* Log the requested event if one is pending (and only once). */
static bool sample_ctx_emit(void)
{
	if (atomic_cmpxchg(&sample_ctx_pending, 1, 2) != 1)
		return false;
	sample_emit_one(READ_ONCE(sample_ctx_index));
	atomic_set_release(&sample_ctx_pending, 0);
	return true;
}

static void sample_ctx_tasklet_fn(struct tasklet_struct *t)
{
	sample_ctx_emit();
}

static DECLARE_TASKLET(sample_ctx_tasklet, sample_ctx_tasklet_fn);

static enum hrtimer_restart sample_ctx_timer_fn(struct hrtimer *t)
{
	sample_ctx_emit();
	return HRTIMER_NORESTART;
}

#ifdef CONFIG_X86_LOCAL_APIC
/* Not ours unless a request is pending: other NMIs pass through. */
static int sample_ctx_nmi(unsigned int type, struct pt_regs *regs)
{
	return sample_ctx_emit() ? NMI_HANDLED : NMI_DONE;
}

/* An NMI to this CPU, through its local APIC (QEMU's TCG emulates it). */
static int sample_ctx_send_nmi(void)
{
	int err;

	err = register_nmi_handler(NMI_LOCAL, sample_ctx_nmi, 0,
				   "ketw_sample");
	if (err)
		return err;
	preempt_disable();
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
	preempt_enable();
	return 0;
}

static void sample_ctx_nmi_done(void)
{
	unregister_nmi_handler(NMI_LOCAL, "ketw_sample");
}
#else
static int sample_ctx_send_nmi(void) { return -ENODEV; }
static void sample_ctx_nmi_done(void) { }
#endif

/* Wait (bounded) for an asynchronous context to log the event. */
static int sample_ctx_wait(void)
{
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		if (!atomic_read_acquire(&sample_ctx_pending))
			return 0;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

static int sample_ctx_run(const char *word)
{
	struct hrtimer timer;
	int err = 0;

	if (sysfs_streq(word, "task")) {
		sample_ctx_emit();
	} else if (sysfs_streq(word, "preempt")) {
		preempt_disable();
		sample_ctx_emit();
		preempt_enable();
	} else if (sysfs_streq(word, "bh")) {
		local_bh_disable();
		sample_ctx_emit();
		local_bh_enable();
	} else if (sysfs_streq(word, "irqsoff")) {
		local_irq_disable();
		sample_ctx_emit();
		local_irq_enable();
	} else if (sysfs_streq(word, "softirq")) {
		tasklet_schedule(&sample_ctx_tasklet);
		err = sample_ctx_wait();
		tasklet_kill(&sample_ctx_tasklet);
	} else if (sysfs_streq(word, "hardirq")) {
		hrtimer_init_on_stack(&timer, CLOCK_MONOTONIC,
				      HRTIMER_MODE_REL_HARD);
		timer.function = sample_ctx_timer_fn;
		hrtimer_start(&timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
		err = sample_ctx_wait();
		hrtimer_cancel(&timer);
		destroy_hrtimer_on_stack(&timer);
	} else {
		err = sample_ctx_send_nmi();
		if (err)
			return err;
		err = sample_ctx_wait();
		sample_ctx_nmi_done();
	}
	return err;
}

static const char *const sample_ctx_words[] = {
	"task", "preempt", "bh", "irqsoff", "softirq", "hardirq", "nmi",
};

static int sample_ctx_set(const char *val, const struct kernel_param *kp)
{
	int i, err;

	i = sysfs_match_string(sample_ctx_words, val);
	if (i < 0)
		return i;
	mutex_lock(&sample_ctx_mutex);
	WRITE_ONCE(sample_ctx_index, KETW_SAMPLE_CTX_TASK + i);
	atomic_set_release(&sample_ctx_pending, 1);
	err = sample_ctx_run(sample_ctx_words[i]);
	/* Timed out: take the request back (or wait for its writer). */
	while (atomic_cmpxchg(&sample_ctx_pending, 1, 0) == 2)
		cpu_relax();
	mutex_unlock(&sample_ctx_mutex);
	return err;
}

static const struct kernel_param_ops sample_ctx_ops = {
	.set = sample_ctx_set,
};
module_param_cb(emit_ctx, &sample_ctx_ops, NULL, 0200);
MODULE_PARM_DESC(emit_ctx, "write task, preempt, bh, irqsoff, softirq, hardirq or nmi: log one tick event from that context");

static unsigned int sample_init_events;
module_param_named(init_events, sample_init_events, uint, 0444);
MODULE_PARM_DESC(init_events, "tick events to log from the module's init, once registered (a driver's probe, for sessions at load)");

static int __init sample_init(void)
{
	unsigned int i;
	int err;

	hrtimer_init(&sample_irq_hrtimer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_HARD);
	sample_irq_hrtimer.function = sample_irq_timer;
	err = ketw_provider_register(&sample_provider);
	if (err)
		return err;
	for (i = 0; i < min_t(unsigned int, sample_init_events,
			      KETW_SAMPLE_MAX_EMIT); i++)
		sample_emit_one(i);
	return 0;
}

static void __exit sample_exit(void)
{
	hrtimer_cancel(&sample_irq_hrtimer);
	ketw_provider_unregister(&sample_provider);
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_DESCRIPTION("ketw sample provider");
MODULE_AUTHOR("The ketw developers");
MODULE_LICENSE("GPL");
