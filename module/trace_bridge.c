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
 * event's extended data items (module/trace_items.c).
 */
#include "ketw_internal.h"

#define CREATE_TRACE_POINTS
#include "ketw_trace.h"

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
