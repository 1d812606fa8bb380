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
 *
 * ketw:ketw_items follows it with the event's extended data items, those
 * ketwfs's bridge_items names: another patched NOP, behind the first.
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

/*
 * The extended data items ketw_items shows (ketwfs's bridge_items),
 * KETW_EXT_BIT()s: read once per bridged event while ketw_items is on.
 */
extern u32 ketw_bridge_items;

struct ketw_ext_blob;
void ketw_trace_items(const struct ketw_ext_blob *x, u32 want);

/*
 * __print_flags()'s table of the item words, from uapi's KETW_EXT_WORDS()
 * and ended by an entry that never prints: printing stops once every bit
 * of the mask is shown, and libtraceevent skips a zero mask. Plain
 * "1 << N" values, which libtraceevent evaluates in the event's format.
 */
#define KETW_TRACE_ITEM_FLAG(v, w)	{ 1 << (v), w },

/**
 * struct ketw_trace_items - one event's items, decoded for ketw_items
 * @mask:       the items present, KETW_EXT_BIT()s.
 * @prog:       KETW_EXT_PROG_ADDR, or 0.
 * @ns:         KETW_EXT_PID_NS, or zeros.
 * @cpu:        KETW_EXT_CPU_TIME, or zeros.
 * @act:        KETW_EXT_ACTIVITY, or zeros.
 * @kstack:     KETW_EXT_KSTACK: @nr_kstack addresses, in the capture.
 * @ustack:     KETW_EXT_USTACK: @nr_ustack addresses, in the capture.
 * @nr_kstack:  0 if absent.
 * @nr_ustack:  0 if absent.
 */
struct ketw_trace_items {
	u32 mask;
	u64 prog;
	struct ketw_ext_pid_ns ns;
	struct ketw_ext_cpu_time cpu;
	struct ketw_ext_activity act;
	const u64 *kstack;
	const u64 *ustack;
	u32 nr_kstack;
	u32 nr_ustack;
};
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

/*
 * ketw_items - the extended data items of the event just before it
 * @items:      the items present, among those bridge_items names (items
 *              that need a task are absent from interrupt context).
 * @prog:       the program address (progaddr), as a symbol.
 * @vpid:       the pid, tid and pid namespace inode of the logging task
 * @vtid:       in its own namespace (pidns).
 * @pid_ns:
 * @kernel_ns:  the thread's CPU times (cputime).
 * @user_ns:
 * @runtime_ns:
 * @activity:   the activity and related activity ids (activity).
 * @related:
 * @kstack:     the kernel stack, innermost first (stack).
 * @ustack:     the user stack, innermost first (ustack).
 *
 * As ftrace's stacktrace option puts a <stack trace> entry after an
 * event, ketw_write_flags() emits this right after ketw_event, on the
 * same CPU, while this event is on and ketwfs's bridge_items names an
 * item. Absent items are zero, or empty arrays.
 */
TRACE_EVENT(ketw_items,
	    TP_PROTO(const struct ketw_trace_items *ti),
	    TP_ARGS(ti),
	    TP_STRUCT__entry(__field(u32, items)
			     __field(u32, vpid)
			     __field(u32, vtid)
			     __field(u64, prog)
			     __field(u64, pid_ns)
			     __field(u64, kernel_ns)
			     __field(u64, user_ns)
			     __field(u64, runtime_ns)
			     __array(u8, activity, KETW_ACTIVITY_ID_SIZE)
			     __array(u8, related, KETW_ACTIVITY_ID_SIZE)
			     __dynamic_array(u64, kstack, ti->nr_kstack)
			     __dynamic_array(u64, ustack, ti->nr_ustack)),
	    TP_fast_assign(__entry->items = ti->mask;
			   __entry->vpid = ti->ns.vpid;
			   __entry->vtid = ti->ns.vtid;
			   __entry->prog = ti->prog;
			   __entry->pid_ns = ti->ns.pid_ns_inum;
			   __entry->kernel_ns = ti->cpu.kernel_ns;
			   __entry->user_ns = ti->cpu.user_ns;
			   __entry->runtime_ns = ti->cpu.runtime_ns;
			   memcpy(__entry->activity, ti->act.activity,
				  KETW_ACTIVITY_ID_SIZE);
			   memcpy(__entry->related, ti->act.related,
				  KETW_ACTIVITY_ID_SIZE);
			   memcpy(__get_dynamic_array(kstack), ti->kstack,
				  ti->nr_kstack * sizeof(u64));
			   memcpy(__get_dynamic_array(ustack), ti->ustack,
				  ti->nr_ustack * sizeof(u64));),
	    TP_printk("items=%s prog=%pS vpid=%u vtid=%u pid_ns=%llu kernel_ns=%llu user_ns=%llu runtime_ns=%llu activity=%pUb related=%pUb kstack=%s ustack=%s",
		      __print_flags(__entry->items, ",",
				    KETW_EXT_WORDS(KETW_TRACE_ITEM_FLAG)
				    { 0, "" }),
		      (void *)__entry->prog, __entry->vpid, __entry->vtid,
		      (unsigned long long)__entry->pid_ns,
		      (unsigned long long)__entry->kernel_ns,
		      (unsigned long long)__entry->user_ns,
		      (unsigned long long)__entry->runtime_ns,
		      __entry->activity, __entry->related,
		      __print_array(__get_dynamic_array(kstack),
				    __get_dynamic_array_len(kstack) / 8, 8),
		      __print_array(__get_dynamic_array(ustack),
				    __get_dynamic_array_len(ustack) / 8, 8)));

#endif /* _KETW_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ketw_trace
#include <trace/define_trace.h>
