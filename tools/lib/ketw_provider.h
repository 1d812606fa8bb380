/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libketw: user-space providers. The API mirrors the kernel's
 * (module/include/ketw.h): a provider is a GUID, a name and event
 * descriptors; it logs events through /dev/ketw_user, and the kernel
 * lists and runs down its descriptors as a kernel provider's.
 *
 *	struct req { uint32_t id; uint32_t len; char path[64]; };
 *	static const struct ketw_field req_fields[] = {
 *		KETW_FIELD(struct req, id, KETW_FIELD_U32),
 *		KETW_FIELD(struct req, len, KETW_FIELD_U32),
 *		KETW_FIELD(struct req, path, KETW_FIELD_STRING),
 *	};
 *	static const struct ketw_event_descriptor events[] = {
 *		{ .id = 1, .level = KETW_LEVEL_INFO, .keyword = 0x1,
 *		  .name = "request", .fields = req_fields,
 *		  .nr_fields = KETW_ARRAY_SIZE(req_fields) },
 *	};
 *	static KETW_PROVIDER_EVENTS(my_prov, "my-daemon", events,
 *				    { 0x6b, 0x65, 0x74, 0x77, ... });	// 16 bytes
 *
 *	ketw_provider_register(&my_prov);	// "user.my-daemon"
 *	if (ketw_enabled(&my_prov)) ...		// build a costly payload
 *	ketw_write(&my_prov, &events[0], &r, sizeof(r));
 *	ketw_provider_unregister(&my_prov);
 *
 * While no session takes an event, ketw_write() is two loads and a test
 * (the enable page, struct ketw_user_enable_page, mapped read-only),
 * with no system call. A provider that failed to register, or was never
 * registered, is never enabled: its call sites cost the same and do
 * nothing, so a program runs unchanged without the module.
 *
 * Define a provider with KETW_PROVIDER() or KETW_PROVIDER_EVENTS() (or
 * point its @page to &ketw_provider_off): ketw_enabled() reads @page
 * without a test. A zeroed struct ketw_provider works once
 * ketw_provider_register() was called on it, whatever it returned.
 *
 * Register and unregister a provider while no other thread uses it;
 * ketw_enabled() and ketw_write() may then run in any number of threads.
 * After fork(), the child shares the parent's registration; a process
 * that registers the same provider itself (the same name, GUID and
 * descriptors, the same user) shares the provider with a registration of
 * its own.
 */
#ifndef _KETW_PROVIDER_H
#define _KETW_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <linux/ketw.h>

#define KETW_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct ketw_field - one field of an event's payload, for decoders
 * @name:   at most KETW_FIELD_NAME_MAX - 1 printable characters, no blank.
 * @type:   KETW_FIELD_*.
 * @offset: byte offset in the payload.
 * @size:   bytes: the type's size; for STRING and BINARY any, 0 meaning
 *          "to the end of the payload".
 */
struct ketw_field {
	const char *name;
	uint16_t type;
	uint16_t offset;
	uint16_t size;
};

/* Describe member @mem of payload struct @st, of type @ftype. */
#define KETW_FIELD(st, mem, ftype)					\
	{ .name = #mem, .type = (ftype), .offset = offsetof(st, mem),	\
	  .size = sizeof(((st *)0)->mem) }

/**
 * struct ketw_event_descriptor - what an event is (ETW EVENT_DESCRIPTOR)
 * @id:        the provider's number for the event, unique in it.
 * @type:      KETW_TYPE_*, or a provider type from KETW_TYPE_PROVIDER_MIN.
 * @level:     KETW_LEVEL_CRITICAL .. KETW_LEVEL_VERBOSE; 0 passes every
 *             level filter.
 * @version:   version of the payload layout.
 * @keyword:   keyword bits; 0 passes every keyword filter.
 * @name:      1 to KETW_NAME_MAX - 1 printable characters, no blank.
 * @fields:    the payload's layout (may be NULL).
 * @nr_fields: entries in @fields, at most KETW_MAX_FIELDS.
 */
struct ketw_event_descriptor {
	uint32_t id;
	uint8_t type;
	uint8_t level;
	uint16_t version;
	uint64_t keyword;
	const char *name;
	const struct ketw_field *fields;
	uint32_t nr_fields;
};

/*
 * The enable page of a provider that is not registered: nothing enabled.
 * KETW_PROVIDER() points to it.
 */
extern const struct ketw_user_enable_page ketw_provider_off;

/**
 * struct ketw_provider - a user-space provider; define it with
 * KETW_PROVIDER() or KETW_PROVIDER_EVENTS()
 * @page:      the enable page (libketw's: read only through ketw_enabled()).
 * @fd:        libketw's: the /dev/ketw_user file, -1 while unregistered.
 * @guid:      the GUID, in the byte order of its textual form; not all zero.
 * @name:      the name, listed as KETW_USER_PREFIX @name: at most
 *             KETW_NAME_MAX - 1 - strlen(KETW_USER_PREFIX) characters.
 * @events:    the event descriptors (may be NULL): listed by
 *             KETW_IOC_EVENTS and logged in rundowns.
 * @nr_events: entries in @events, at most KETW_USER_MAX_EVENTS.
 */
struct ketw_provider {
	const struct ketw_user_enable_page *page;
	int fd;
	uint8_t guid[KETW_GUID_SIZE];
	const char *name;
	const struct ketw_event_descriptor *events;
	uint32_t nr_events;
};

/* Define a provider: @pname a string, then the GUID's 16 bytes in braces. */
#define KETW_PROVIDER(var, pname, ...)					\
	struct ketw_provider var = {					\
		.page = &ketw_provider_off, .fd = -1,			\
		.guid = __VA_ARGS__, .name = (pname),			\
	}

/* The same, with an array of struct ketw_event_descriptor. */
#define KETW_PROVIDER_EVENTS(var, pname, table, ...)			\
	struct ketw_provider var = {					\
		.page = &ketw_provider_off, .fd = -1,			\
		.guid = __VA_ARGS__, .name = (pname),			\
		.events = (table), .nr_events = KETW_ARRAY_SIZE(table),	\
	}

/*
 * Register @prov through KETW_USER_DEVICE (ketw_provider_register_at()
 * names another node). Sessions that take it start getting its events,
 * after a rundown of its descriptors.
 *
 * Any number of processes of one user may register the same provider
 * (the same name, GUID and descriptors): they share it, each logging
 * with its own process and thread ids, and it stays while any of them
 * has it registered. Each registration counts against the user's
 * user_max_providers.
 *
 * Returns 0 (@prov->page is then its enable page, @prov->fd its file);
 * -EBUSY if @prov is registered already; -EINVAL for a name,
 * GUID or descriptor the kernel refuses (a name or field name too long
 * is refused here); -E2BIG past KETW_USER_MAX_EVENTS; -EEXIST if the
 * name is registered by another user or with another GUID or other
 * descriptors, or the GUID is another provider's:
 * ketw_provider_conflict() then says which; -ENOSPC past the user's
 * provider limit; -EPERM, -ENOENT from opening the device; -ENOMEM.
 */
int ketw_provider_register(struct ketw_provider *prov);
int ketw_provider_register_at(struct ketw_provider *prov, const char *path);

/*
 * Why this thread's last ketw_provider_register() or _at() returned
 * -EEXIST: KETW_USER_CONFLICT_* (<linux/ketw.h>); KETW_USER_CONFLICT_NONE
 * after any other result, or from a module too old to say.
 */
int ketw_provider_conflict(void);

/* A sentence for a KETW_USER_CONFLICT_* value, for a message. */
const char *ketw_provider_conflict_str(int reason);

/* Remove @prov (a no-op if it is not registered). */
void ketw_provider_unregister(struct ketw_provider *prov);

/*
 * May a running session take any of @prov's events? Use it to skip
 * building a payload nobody will take. One load and a test.
 */
static inline bool ketw_enabled(const struct ketw_provider *prov)
{
	return __atomic_load_n(&prov->page->levels, __ATOMIC_RELAXED) != 0;
}

/*
 * May a running session take an event of @level and @keyword? False
 * means none does; true means one may (the kernel applies each
 * session's exact filter).
 */
static inline bool ketw_event_enabled(const struct ketw_provider *prov,
				      uint8_t level, uint64_t keyword)
{
	const struct ketw_user_enable_page *pg = prov->page;
	uint32_t levels = __atomic_load_n(&pg->levels, __ATOMIC_RELAXED);

	if (__builtin_expect(!((levels >> (level & 31)) & 1), 1))
		return false;
	return !keyword ||
	       (keyword & __atomic_load_n(&pg->keyword_any, __ATOMIC_RELAXED));
}

/*
 * The system call ketw_write() makes once the event is enabled
 * (KETW_IOC_USER_WRITEV; KETW_IOC_USER_WRITE with a module older than
 * it). The record's program address (the PROG_ADDR item) is where it
 * returns to.
 */
int __ketw_write(const struct ketw_provider *prov,
		 const struct ketw_event_descriptor *desc,
		 const void *data, size_t len);
/* The same for ketw_writev(). */
int __ketw_writev(const struct ketw_provider *prov,
		  const struct ketw_event_descriptor *desc,
		  const struct iovec *iov, int iovcnt);
/*
 * The same with the program address given (@prog_addr, may be NULL):
 * for a library that logs on its caller's behalf, whose trace point is
 * where its caller returns to.
 */
int __ketw_write_addr(const struct ketw_provider *prov,
		      const struct ketw_event_descriptor *desc,
		      const void *data, size_t len, const void *prog_addr);
/* The same for ketw_write_activity(). */
int __ketw_write_activity(const struct ketw_provider *prov,
			  const struct ketw_event_descriptor *desc,
			  const uint8_t activity[KETW_ACTIVITY_ID_SIZE],
			  const uint8_t *related,
			  const void *data, size_t len);

/*
 * Log an event of @prov described by @desc (it need not be one of
 * @prov->events). Sessions keep at most their max_data_size bytes of
 * @data and flag the record KETW_RECORD_TRUNCATED.
 *
 * Returns the number of sessions that stored it (0 when none takes it,
 * without a system call); -EAGAIN past the user's event or byte rate
 * (nothing logged); -EINVAL for @len above KETW_MAX_DATA_SIZE or a level
 * above KETW_LEVEL_VERBOSE; -EFAULT.
 */
static inline int ketw_write(const struct ketw_provider *prov,
			     const struct ketw_event_descriptor *desc,
			     const void *data, size_t len)
{
	if (ketw_event_enabled(prov, desc->level, desc->keyword))
		return __ketw_write(prov, desc, data, len);
	return 0;
}

/*
 * Log an event whose payload is in pieces (ETW's EventWrite with several
 * EVENT_DATA_DESCRIPTORs): as ketw_write(), the payload being the bytes
 * of @iov[0] to @iov[@iovcnt - 1] one after the other, which the kernel
 * reads where they are. At most KETW_USER_IOV_MAX pieces and
 * KETW_MAX_DATA_SIZE bytes in all (-EINVAL beyond).
 */
static inline int ketw_writev(const struct ketw_provider *prov,
			      const struct ketw_event_descriptor *desc,
			      const struct iovec *iov, int iovcnt)
{
	if (ketw_event_enabled(prov, desc->level, desc->keyword))
		return __ketw_writev(prov, desc, iov, iovcnt);
	return 0;
}
/*
 * Log an event of one piece of work (ETW's EventWriteTransfer): as
 * ketw_write(), with @activity, the work's id (KETW_ACTIVITY_ID_SIZE
 * bytes, not all zero), and @related, the id of the activity that
 * started it or NULL. Sessions that enable the ACTIVITY item store both;
 * 'ketw report --activity ID' follows them across threads.
 */
static inline int ketw_write_activity(const struct ketw_provider *prov,
				      const struct ketw_event_descriptor *desc,
				      const uint8_t activity[KETW_ACTIVITY_ID_SIZE],
				      const uint8_t *related,
				      const void *data, size_t len)
{
	if (ketw_event_enabled(prov, desc->level, desc->keyword))
		return __ketw_write_activity(prov, desc, activity, related,
					     data, len);
	return 0;
}

#endif /* _KETW_PROVIDER_H */
