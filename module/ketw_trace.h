/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw - the ftrace event ketw:ketw_event, which bridges the events that
 * providers log to ftrace, trace-cmd, perf and BPF (module/trace_bridge.c).
 *
 * ketw_write_flags() emits it for every event a provider logs while the
 * event is enabled, whether or not a ketw session takes the event.
 * Enabling it turns every provider's static branch on (ketw_trace_reg()),
 * so that ketw_write() call sites reach the write path; while it is off
 * the hook costs one patched NOP, behind call sites that are NOPs too
 * unless a session enables their provider.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ketw

#if !defined(_KETW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KETW_TRACE_H

#include <linux/minmax.h>
#include <linux/tracepoint.h>
#include <ketw.h>

#ifndef _KETW_TRACE_DECLS
#define _KETW_TRACE_DECLS
/*
 * Payload bytes an ftrace event carries; the rest is cut and the event
 * flagged KETW_RECORD_TRUNCATED. Small enough that the event fits in a
 * ring buffer page and its text form in the one page that the kernel's
 * "trace" and "trace_pipe" files format a line in.
 */
#define KETW_TRACE_MAX_DATA	1024

int ketw_trace_reg(void);
void ketw_trace_unreg(void);
void ketw_providers_bridge(bool on);
#endif

/*
 * ketw_event - an event a provider logged
 * @guid:     the provider's GUID.
 * @provider: the provider's name.
 * @keyword, @id, @version, @type, @level: the event's descriptor.
 * @flags:    KETW_RECORD_USER for user-space providers,
 *            KETW_RECORD_TRUNCATED when @data was cut, and the context
 *            bits a record of the event has.
 * @context:  KETW_RECORD_CTX() of @flags: KETW_CTX_*, shown by its word.
 * @preempt:  KETW_RECORD_PREEMPT_DEPTH() of @flags, the caller's depth
 *            (ftrace's own column counts the write path's level too).
 * @len:      bytes in @data.
 * @data:     the payload, at most KETW_TRACE_MAX_DATA bytes.
 *
 * The CPU, the task and the timestamp are ftrace's own.
 */
TRACE_EVENT_FN(ketw_event,
	       TP_PROTO(const struct ketw_provider *prov,
			const struct ketw_event_descriptor *desc,
			const void *payload, size_t len, u16 flags),
	       TP_ARGS(prov, desc, payload, len, flags),
	       TP_STRUCT__entry(__array(u8, guid, KETW_GUID_SIZE)
				__string(provider, prov->name)
				__field(u64, keyword)
				__field(u32, id)
				__field(u16, version)
				__field(u16, flags)
				__field(u8, type)
				__field(u8, level)
				__field(u8, context)
				__field(u8, preempt)
				__field(u32, len)
				__dynamic_array(u8, data,
						min_t(size_t, len,
						      KETW_TRACE_MAX_DATA))),
	       TP_fast_assign(memcpy(__entry->guid, prov->guid, KETW_GUID_SIZE);
			      __assign_str(provider, prov->name);
			      __entry->keyword = desc->keyword;
			      __entry->id = desc->id;
			      __entry->version = desc->version;
			      __entry->flags = flags |
				(len > KETW_TRACE_MAX_DATA ?
				 KETW_RECORD_TRUNCATED : 0);
			      __entry->type = desc->type;
			      __entry->level = desc->level;
			      __entry->context = KETW_RECORD_CTX(flags);
			      __entry->preempt =
				KETW_RECORD_PREEMPT_DEPTH(flags);
			      __entry->len = min_t(size_t, len, KETW_TRACE_MAX_DATA);
			      memcpy(__get_dynamic_array(data), payload,
				     __entry->len);),
	       TP_printk("%pUb %s id=%u type=%u level=%u version=%u keyword=0x%llx flags=0x%x context=%s preempt=%u len=%u data=%s",
			 __entry->guid, __get_str(provider), __entry->id,
			 __entry->type, __entry->level, __entry->version,
			 (unsigned long long)__entry->keyword, __entry->flags,
			 __print_symbolic(__entry->context,
					  { KETW_CTX_TASK, "task" },
					  { KETW_CTX_SOFTIRQ, "softirq" },
					  { KETW_CTX_HARDIRQ, "hardirq" },
					  { KETW_CTX_NMI, "nmi" }),
			 __entry->preempt, __entry->len,
			 __print_hex(__get_dynamic_array(data), __entry->len)),
	       ketw_trace_reg, ketw_trace_unreg);

#endif /* _KETW_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ketw_trace
#include <trace/define_trace.h>
