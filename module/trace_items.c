// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: the ftrace event ketw:ketw_items (module/ketw_trace.h, defined
 * with ketw_event in trace_bridge.c), which follows each bridged
 * ketw_event with the event's extended data items: which items it shows
 * (ketwfs's bridge_items) and their decoding, from the write path's one
 * capture per event, into the event's fields.
 */
#include "ketw_internal.h"
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
