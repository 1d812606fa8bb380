// SPDX-License-Identifier: GPL-2.0
/*
 * ketw trace-cmd bridge: defines the ftrace event ketw:ketw_event
 * (module/ketw_trace.h), which ketw_write_flags() emits for every event a
 * provider logs while the event is enabled. So "trace-cmd record -e ketw"
 * and "trace-cmd report", perf and BPF see providers' events with no
 * ketw session.
 *
 * ketw_write() reaches the write path only while the provider's static
 * branch is on. The tracepoint's registration callbacks keep every
 * provider's branch on while the event has a probe (see
 * ketw_providers_bridge()); while it has none, the bridge is one patched
 * NOP in the write path.
 *
 * The second event, ketw:ketw_items, follows ketw_event with the
 * event's extended data items, those ketwfs's bridge_items names, taken
 * from the write path's one capture per event (ketw_trace_items()).
 */
#include "ketw_internal.h"

#define CREATE_TRACE_POINTS
#include "ketw_trace.h"

u32 ketw_bridge_items;

/**
 * ketw_bridge_items_get() - the items ketw_items shows (bridge_items)
 *
 * Return: KETW_EXT_BIT()s, 0 for none.
 */
u32 ketw_bridge_items_get(void)
{
	return READ_ONCE(ketw_bridge_items);
}

/**
 * ketw_bridge_items_set() - choose the items ketw_items shows
 * @mask: KETW_EXT_BIT()s; 0 for none, which leaves ketw_items out.
 *
 * Events logged from now on follow it; ketw_items must be on too.
 * Context: any; the write path reads it without a lock.
 *
 * Return: 0; -EINVAL for bits that name no item.
 */
int ketw_bridge_items_set(u32 mask)
{
	if (mask & ~KETW_EXT_ALL)
		return -EINVAL;
	WRITE_ONCE(ketw_bridge_items, mask);
	return 0;
}

/**
 * ketw_trace_items() - emit ketw_items for the event just bridged
 * @x:    the event's items, from the write path's ketw_ext_capture(), or
 *        NULL if it captured none.
 * @want: the items bridge_items names.
 *
 * Decodes the capture (the kernel's own, well formed) into the event's
 * fields. Out of line: the write path pays for it only while the bridge
 * shows items. Context: the write path's, NMI included; allocates
 * nothing, the stacks are copied straight from the capture.
 */
noinline void ketw_trace_items(const struct ketw_ext_blob *x, u32 want)
{
	const struct ketw_ext_header *eh = x ? x->blob : NULL;
	const struct ketw_ext_item *it;
	struct ketw_trace_items ti;
	const void *d;
	u32 i;

	memset(&ti, 0, sizeof(ti));
	it = eh ? (const void *)(eh + 1) : NULL;
	for (i = 0; eh && i < eh->count;
	     i++, it = (const void *)it + KETW_EXT_ITEM_SPAN(it->size)) {
		if (it->type > KETW_EXT_MAX_TYPE ||
		    !(want & KETW_EXT_BIT(it->type)))
			continue;
		ti.mask |= KETW_EXT_BIT(it->type);
		d = it + 1;
		switch (it->type) {
		case KETW_EXT_KSTACK:
			ti.kstack = d;
			ti.nr_kstack = it->size / sizeof(u64);
			break;
		case KETW_EXT_USTACK:
			ti.ustack = d;
			ti.nr_ustack = it->size / sizeof(u64);
			break;
		case KETW_EXT_CPU_TIME:
			memcpy(&ti.cpu, d, sizeof(ti.cpu));
			break;
		case KETW_EXT_PROG_ADDR:
			memcpy(&ti.prog, d, sizeof(ti.prog));
			break;
		case KETW_EXT_PID_NS:
			memcpy(&ti.ns, d, sizeof(ti.ns));
			break;
		case KETW_EXT_ACTIVITY:
			memcpy(&ti.act, d, sizeof(ti.act));
			break;
		}
	}
	trace_ketw_items(&ti);
}

/**
 * ketw_trace_reg() - ketw_event is getting its first probe
 *
 * Turns on every provider's static branch, before the tracepoint's own
 * key goes on.
 * Context: process; tracepoints_mutex held (and event_mutex when tracefs
 * or perf enable the event). Takes ketw_mutex, then the jump label locks.
 *
 * Return: 0.
 */
int ketw_trace_reg(void)
{
	ketw_providers_bridge(true);
	return 0;
}

/**
 * ketw_trace_unreg() - ketw_event lost its last probe
 *
 * Turns off the static branch of every provider that no running session
 * enables, before the tracepoint's own key goes off.
 * Context: as ketw_trace_reg().
 */
void ketw_trace_unreg(void)
{
	ketw_providers_bridge(false);
}
