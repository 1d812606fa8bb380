/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw - the interface for kernel code that logs events (providers).
 *
 * A provider is a GUID and a name. It logs events described by a
 * descriptor (id, type, level, version, keyword) and an opaque payload.
 * While no running session enables the provider and the ftrace event
 * ketw:ketw_event is off, ketw_write() costs one patched NOP at the call
 * site (a static branch).
 *
 *	static KETW_PROVIDER(my_prov, "my-driver",
 *			     { 0x6b, 0x65, 0x74, 0x77, ... });	// 16 bytes
 *	static const struct ketw_event_descriptor ev_irq = {
 *		.id = 1, .type = KETW_TYPE_INFO, .level = KETW_LEVEL_INFO,
 *		.version = 0, .keyword = 0x1, .name = "irq",
 *	};
 *
 *	ketw_provider_register(&my_prov);		// module init
 *	ketw_write(&my_prov, &ev_irq, &data, sizeof(data));
 *	ketw_provider_unregister(&my_prov);		// module exit
 */
#ifndef _KETW_H
#define _KETW_H

#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <uapi/linux/ketw.h>

struct ketw_enable_set;

/**
 * struct ketw_field - one field of an event's payload, for decoders
 * @name:   the field's name (at most KETW_FIELD_NAME_MAX - 1 characters).
 * @type:   KETW_FIELD_*.
 * @offset: byte offset in the payload.
 * @size:   bytes; for KETW_FIELD_STRING and KETW_FIELD_BINARY, 0 means
 *          "to the end of the payload".
 */
struct ketw_field {
	const char *name;
	u16 type;
	u16 offset;
	u16 size;
};

/**
 * KETW_FIELD() - describe a member of a payload struct
 * @st:    the payload struct type.
 * @mem:   the member.
 * @ftype: KETW_FIELD_*.
 */
#define KETW_FIELD(st, mem, ftype)					\
	{ .name = #mem, .type = ftype, .offset = offsetof(st, mem),	\
	  .size = sizeof_field(st, mem) }

/**
 * struct ketw_event_descriptor - what an event is (ETW EVENT_DESCRIPTOR)
 * @id:      the provider's number for the event.
 * @type:    KETW_TYPE_*, or a provider type from KETW_TYPE_PROVIDER_MIN.
 * @level:   KETW_LEVEL_CRITICAL (1) .. KETW_LEVEL_VERBOSE (5); 0 passes
 *           every level filter.
 * @version: version of the payload layout.
 * @keyword: keyword bits; 0 passes every keyword filter.
 * @name:    the event's name.
 * @fields:  the payload's layout (may be NULL), for rundown and decoders.
 * @nr_fields: entries in @fields, at most KETW_MAX_FIELDS.
 */
struct ketw_event_descriptor {
	u32 id;
	u8 type;
	u8 level;
	u16 version;
	u64 keyword;
	const char *name;
	const struct ketw_field *fields;
	u32 nr_fields;
};

/**
 * struct ketw_provider - an event provider; define it with KETW_PROVIDER()
 * @key:     on while at least one running session enables the provider,
 *           or the ftrace event ketw:ketw_event is on; ketw patches it,
 *           providers only test it (ketw_enabled()).
 * @guid:    the provider's GUID, in the byte order of its textual form.
 * @name:    the provider's name, 1 to KETW_NAME_MAX - 1 characters.
 * @events:  the provider's event descriptors (may be NULL), listed by
 *           KETW_IOC_EVENTS and logged in rundowns.
 * @nr_events: entries in @events.
 * @flags:   ketw-private: KETW_PROVIDER_*.
 * @node:    ketw-private: the registry list.
 * @enables: ketw-private: the sessions enabling the provider (RCU).
 */
struct ketw_provider {
	struct static_key_false key;
	u8 guid[KETW_GUID_SIZE];
	const char *name;
	const struct ketw_event_descriptor *events;
	u32 nr_events;
	u32 flags;
	struct list_head node;
	struct ketw_enable_set __rcu *enables;
};

/**
 * KETW_PROVIDER() - define a provider
 * @var:  the variable.
 * @pname: the provider's name (a string literal).
 * @...:  the GUID: a braced list of its 16 bytes, in the order of its
 *        textual form.
 */
#define KETW_PROVIDER(var, pname, ...)				\
	struct ketw_provider var = {				\
		.key = STATIC_KEY_FALSE_INIT,			\
		.guid = __VA_ARGS__,				\
		.name = pname,					\
	}

/**
 * KETW_PROVIDER_EVENTS() - define a provider with its event descriptors
 * @var:   the variable.
 * @pname: the provider's name (a string literal).
 * @table: an array of struct ketw_event_descriptor.
 * @...:   the GUID: a braced list of its 16 bytes.
 */
#define KETW_PROVIDER_EVENTS(var, pname, table, ...)		\
	struct ketw_provider var = {				\
		.key = STATIC_KEY_FALSE_INIT,			\
		.guid = __VA_ARGS__,				\
		.name = pname,					\
		.events = table,				\
		.nr_events = ARRAY_SIZE(table),			\
	}

int ketw_provider_register(struct ketw_provider *prov);
void ketw_provider_unregister(struct ketw_provider *prov);
int __ketw_write(struct ketw_provider *prov,
		 const struct ketw_event_descriptor *desc,
		 const void *data, size_t len);
int __ketw_write_activity(struct ketw_provider *prov,
			  const struct ketw_event_descriptor *desc,
			  const u8 *activity, const u8 *related,
			  const void *data, size_t len);
/* ketw_bench only: the same, with or without the context bits (provider.c). */
int __ketw_write_bench(struct ketw_provider *prov,
		       const struct ketw_event_descriptor *desc,
		       const void *data, size_t len, bool context);
u64 ketw_clock_mono_ns(void);

/**
 * ketw_enabled() - may anyone take this provider's events?
 * @prov: the provider.
 *
 * A static branch: a NOP while no session enables @prov and the ftrace
 * event ketw:ketw_event is off. Use it to skip building a payload that
 * nobody will take.
 *
 * Return: true if at least one running session enables @prov, or the
 * ftrace event ketw:ketw_event is on.
 */
static __always_inline bool ketw_enabled(struct ketw_provider *prov)
{
	return static_branch_unlikely(&prov->key);
}

/**
 * ketw_write() - log an event
 * @prov: a registered provider.
 * @desc: the event's descriptor.
 * @data: the payload.
 * @len:  its length in bytes; sessions keep at most their max_data_size
 *        bytes of it and flag the record KETW_RECORD_TRUNCATED.
 *
 * Safe in any context: task, softirq, hardirq and NMI. Never sleeps, takes
 * no lock and leaves interrupts enabled. Sessions that enable extended
 * data items for @prov store them with the event (uapi/linux/ketw.h,
 * struct ketw_ext_header): the stack and program address of this call
 * site, the thread's CPU time and pid namespace.
 *
 * Return: the number of sessions that stored the event (0 when none wants
 * it, or when every session that wanted it had to count it lost).
 */
static __always_inline int ketw_write(struct ketw_provider *prov,
				      const struct ketw_event_descriptor *desc,
				      const void *data, size_t len)
{
	if (ketw_enabled(prov))
		return __ketw_write(prov, desc, data, len);
	return 0;
}

/**
 * ketw_write_activity() - log an event of one piece of work
 * @prov:     a registered provider.
 * @desc:     the event's descriptor.
 * @activity: the activity's id, KETW_ACTIVITY_ID_SIZE bytes (ETW's
 *            ActivityId): the same on every event of that piece of work,
 *            whichever thread or CPU logs it.
 * @related:  the id of the activity that started this one (ETW's
 *            RelatedActivityId), or NULL; usually given on the new
 *            activity's first event only.
 * @data:     the payload.
 * @len:      its length in bytes, as for ketw_write().
 *
 * As ketw_write(); sessions that enable the ACTIVITY item
 * (KETW_EXT_BIT(KETW_EXT_ACTIVITY)) store both ids with the event, and
 * ``ketw report --activity ID`` follows them. Safe in any context,
 * NMI included.
 *
 * Return: the number of sessions that stored the event.
 */
static __always_inline int
ketw_write_activity(struct ketw_provider *prov,
		    const struct ketw_event_descriptor *desc,
		    const u8 *activity, const u8 *related,
		    const void *data, size_t len)
{
	if (ketw_enabled(prov))
		return __ketw_write_activity(prov, desc, activity, related,
					     data, len);
	return 0;
}

#endif /* _KETW_H */
