/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libketw: user-space access to ketw sessions and trace files.
 *
 * Functions are named ketw_<object>_<verb> and grouped by role:
 *   device/session control  ketw_device_open(), ketw_session_*(),
 *                           ketw_sessions_get()
 *   providers and filters   ketw_eventset_*(), ketw_guid_parse(),
 *                           ketw_provider_ref_*(), ketw_session_enable(),
 *                           ketw_providers_get(), ketw_provider_events_get()
 *   draining a session      ketw_reader_read(), ketw_reader_drain()
 *   draining through mmap   ketw_mmap_*()
 *   records in a buffer     ketw_record_iter_*()
 *   writing a .ketw file    ketw_output_*()
 *   reading a .ketw file    ketw_input_*()
 *   stream frames           ketw_crc32c(), ketw_frame_*()
 *   text                    ketw_*_name(), ketw_guid_format(),
 *                           ketw_record_format(), ketw_hexdump()
 *   decoding by the rundown ketw_registry_*(), ketw_payload_format(),
 *                           ketw_record_format_named()
 *   parsing arguments       ketw_parse_*()
 *   user-space providers    ketw_provider_register(), ketw_enabled(),
 *                           ketw_write() (ketw_provider.h, included here)
 *
 * Unless stated otherwise, functions return 0 or a negative errno.
 */
#ifndef _LIBKETW_H
#define _LIBKETW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <linux/ketw.h>
#include "ketw_file.h"
#include "ketw_stream.h"
#include "ketw_provider.h"

/* ---- device and session control ---------------------------------- */

/*
 * Open the ketw device (@path, or KETW_DEVICE if NULL) for control and
 * reading; @flags may add O_NONBLOCK. Returns the fd or -errno.
 */
int ketw_device_open(const char *path, int flags);

/* Zero @attr, set its size and copy @name (which must be valid). */
void ketw_session_attr_init(struct ketw_session_attr *attr, const char *name);

/* Is @name a valid session name ([A-Za-z0-9_.-], 1..KETW_NAME_MAX-1)? */
bool ketw_session_name_valid(const char *name);

/*
 * Buffer memory as the kernel counts it (Documentation/ketw-ring-buffer.rst,
 * "Memory"): what the buffers of a session need, what is available for
 * them (MemAvailable less the kernel's margin) and ketw's cap on all
 * sessions together, with what they use now.
 */
struct ketw_memory {
	unsigned int nr_cpus;	/* possible CPUs: each gets a buffer */
	bool have_cap;		/* cap and used were read (module loaded) */
	uint64_t available;	/* bytes */
	uint64_t margin;
	uint64_t cap;
	uint64_t used;
};

/* Bytes a session with per-CPU size @buffer_kb (0: default) takes. */
uint64_t ketw_memory_need(uint32_t buffer_kb, unsigned int nr_cpus);
/* Fill @m; 0, -ENODEV without the module's parameters, -ENOENT. */
int ketw_memory_get(struct ketw_memory *m);

/*
 * Create a (stopped) session and attach @fd to it. @attr is updated with
 * the normalised attributes and the output fields.
 */
int ketw_session_create(int fd, struct ketw_session_attr *attr);
int ketw_session_start(int fd, const char *name);
int ketw_session_stop(int fd, const char *name);
int ketw_session_destroy(int fd, const char *name);
/* Attach @fd to @name: read() on @fd then drains that session. */
int ketw_session_attach(int fd, const char *name);
int ketw_session_get_attr(int fd, const char *name,
			  struct ketw_session_attr *attr);
int ketw_session_get_cpu_stats(int fd, const char *name, unsigned int cpu,
			       struct ketw_cpu_stats *st);
/*
 * The POSIX stream status and totals. Reading it resets the session's
 * overrun status and flush error (posix_trace_get_status()).
 */
int ketw_session_get_status(int fd, const char *name,
			    struct ketw_session_status *st);
/*
 * Every session (KETW_IOC_SESSIONS), oldest first, in a malloc()ed array
 * the caller frees (NULL when there are none); -ENOTTY from a module
 * that cannot list them.
 */
int ketw_sessions_get(int fd, struct ketw_session_info **out,
		      unsigned int *nr);
/*
 * Copy @cpu's records into @buf (at least the per-CPU buffer size: the
 * session's buffer_kb KiB) without consuming them. @snap gets the bytes
 * copied (len, whole records, padding records included) and the kernel's
 * count of records overwritten during the copy (lost).
 */
int ketw_session_snapshot(int fd, const char *name, unsigned int cpu,
			  void *buf, size_t len, struct ketw_snapshot *snap);
/*
 * Log FLUSH_START, wait until readers consumed what the buffers held, log
 * FLUSH_STOP. -ETIMEDOUT if no reader drained them in time (the kernel
 * then logs ERROR and keeps the error for the status); -EALREADY if the
 * session is not running or a flush is running.
 */
int ketw_session_flush(int fd, const char *name);
/*
 * Arm a trigger (KETW_IOC_TRIGGER_ADD): @t filled by the caller but for
 * its size, which this sets; on success t->id is the trigger's id and
 * t->min_interval_ms the rate limit the kernel applies. -ENOTTY from a
 * module without triggers.
 */
int ketw_trigger_add(int fd, struct ketw_trigger *t);
/* Remove trigger @id of session @name, or all of them for 0. */
int ketw_trigger_del(int fd, const char *name, uint32_t id);
/*
 * Set session @name's process filter (KETW_IOC_SET_PIDS): it then takes
 * only the events of the @count processes @pids (ids in the caller's pid
 * namespace), and with KETW_PIDS_INHERIT of the children they fork from
 * now on; @count 0 (and @flags 0) traces every process again. -ESRCH for
 * a pid that is no live process; -ENOTTY from a module without process
 * filters.
 */
int ketw_session_set_pids(int fd, const char *name, const int32_t *pids,
			  uint32_t count, uint32_t flags);
/*
 * Read it (KETW_IOC_GET_PIDS): *@count is the number of processes it
 * holds that the caller's pid namespace sees, the first min(*@count,
 * @capacity) of them in @pids, smallest first; *@flags has
 * KETW_PIDS_ACTIVE while there is a filter, and KETW_PIDS_INHERIT.
 */
int ketw_session_get_pids(int fd, const char *name, int32_t *pids,
			  uint32_t capacity, uint32_t *count, uint32_t *flags);

/* ---- providers and filters ----------------------------------------- */

/*
 * POSIX trace event sets (posix_trace_eventset_*()) over struct
 * ketw_event_set: a bit per event id below KETW_EVENT_SET_BITS. In a
 * filter the set holds the ids filtered out. add and del return -EINVAL
 * for an id of KETW_EVENT_SET_BITS or more; ismember says false for it
 * (such events are never filtered).
 */
void ketw_eventset_empty(struct ketw_event_set *set);
void ketw_eventset_fill(struct ketw_event_set *set);
int ketw_eventset_add(struct ketw_event_set *set, uint32_t id);
int ketw_eventset_del(struct ketw_event_set *set, uint32_t id);
bool ketw_eventset_ismember(const struct ketw_event_set *set, uint32_t id);
unsigned int ketw_eventset_count(const struct ketw_event_set *set);

/*
 * Does @f take an event of @id, @level and @keyword? The kernel's rule:
 * the level (0 on either side passes), the event set, then the keywords
 * (an event with keyword 0 passes them).
 */
bool ketw_filter_takes(const struct ketw_filter *f, uint32_t id,
		       unsigned int level, uint64_t keyword);

#define KETW_GUID_STR_LEN	37	/* 8-4-4-4-12 and the NUL */

/*
 * Parse a GUID's textual form: exactly 8-4-4-4-12 hex digits (either
 * case), nothing before or after; stored in textual byte order.
 * -EINVAL otherwise, @guid untouched.
 */
int ketw_guid_parse(const char *s, uint8_t guid[KETW_GUID_SIZE]);
bool ketw_guid_is_zero(const uint8_t guid[KETW_GUID_SIZE]);
/*
 * Is @s meant as a GUID: 36 characters with hyphens where a GUID has
 * them, or only hex digits and at least four hyphens?
 */
bool ketw_guid_like(const char *s);

/* A provider named by name, or by GUID when the name is "". */
struct ketw_provider_ref {
	char name[KETW_NAME_MAX];
	uint8_t guid[KETW_GUID_SIZE];
};

/*
 * A provider's name or GUID from text: text that ketw_guid_like() is a
 * GUID and must parse (not the all-zero GUID of system events), anything
 * else a name. -EINVAL for "", a bad or zero GUID; -ENAMETOOLONG for a
 * name of KETW_NAME_MAX characters or more.
 */
int ketw_provider_ref_parse(const char *s, struct ketw_provider_ref *ref);
/* The name, or the GUID's text. */
const char *ketw_provider_ref_format(const struct ketw_provider_ref *ref,
				     char buf[KETW_GUID_STR_LEN]);
/* Does @ref name the provider of @guid and @name (@name may be NULL)? */
bool ketw_provider_ref_names(const struct ketw_provider_ref *ref,
			     const uint8_t guid[KETW_GUID_SIZE],
			     const char *name);

/*
 * Enable provider @p in session @session with @filter (level, keywords,
 * the event ids filtered out; filter->enabled is ignored), or replace
 * its filter (KETW_IOC_ENABLE). The provider need not be registered. A
 * session that enabled one provider takes only the providers it enabled.
 * On a running session the kernel logs FILTER. -ENOENT: no such session;
 * -ENOSPC: KETW_MAX_ENABLES reached; -EINVAL: a bad request.
 */
int ketw_session_enable(int fd, const char *session,
			const struct ketw_provider_ref *p,
			const struct ketw_filter *filter);
/* The same with extended data items, KETW_EXT_BIT()s (struct ketw_enable). */
int ketw_session_enable_items(int fd, const char *session,
			      const struct ketw_provider_ref *p,
			      const struct ketw_filter *filter,
			      uint32_t ext_items);
/* The items @session's records of @p carry: 0, or -errno. */
int ketw_session_get_items(int fd, const char *session,
			   const struct ketw_provider_ref *p,
			   uint32_t *ext_items);
/* Remove @p from the session's enables; -ENOENT if it had none for it. */
int ketw_session_disable(int fd, const char *session,
			 const struct ketw_provider_ref *p);
/*
 * The filter @session applies to @p (KETW_IOC_GET_FILTER); enabled is 0
 * if it takes none of its events.
 */
int ketw_session_get_filter(int fd, const char *session,
			    const struct ketw_provider_ref *p,
			    struct ketw_filter *filter);
/*
 * Log a rundown (PROVIDER, EVENT_DESC, TASK) into a running session;
 * -EINVAL if it is not running.
 */
int ketw_session_rundown(int fd, const char *name);

/*
 * The registered providers (KETW_IOC_PROVIDERS) and one provider's event
 * descriptors (KETW_IOC_EVENTS, -ENOENT if it is not registered), in a
 * malloc()ed array the caller frees (NULL when there are none). The
 * array grows until it holds every entry, in case the registry grows
 * between calls (-EAGAIN if it keeps growing).
 */
int ketw_providers_get(int fd, struct ketw_provider_info **out,
		       unsigned int *nr);
int ketw_provider_events_get(int fd, const struct ketw_provider_ref *p,
			     struct ketw_event_info **out, unsigned int *nr);

/* ---- records in a buffer ------------------------------------------ */

/**
 * struct ketw_record - one record, pointing into a buffer
 * @hdr:      its header (in host byte order).
 * @data:     its payload.
 * @data_len: payload bytes (hdr->size minus the record header size).
 * @span:     bytes it takes in the buffer (8-aligned).
 * @cpu:      the CPU whose buffer held it (hdr->cpu for records from
 *            read(), the section's CPU for records from a file).
 */
struct ketw_record {
	const struct ketw_event_header *hdr;
	const unsigned char *data;
	size_t data_len;
	size_t span;
	unsigned int cpu;
	/*
	 * hdr's context bits (KETW_RECORD_CONTEXT_BITS) are valid: set for
	 * records of a kernel buffer and of a file that says so
	 * (KETW_FILE_F_RECORD_CTX); clear for older files, whose writers
	 * left them 0. Formatters show the context only when set.
	 */
	bool context;
};

/*
 * Walks the records of a byte buffer (8-byte aligned) as the kernel's
 * read() returns them, skipping KETW_RECORD_PADDING records. Every record
 * is checked: at least a record header, its span within the buffer.
 */
struct ketw_record_iter {
	const unsigned char *buf;
	size_t len;
	size_t off;		/* of the next record */
	size_t hdr_size;	/* record header size: payload offset */
};

void ketw_record_iter_init(struct ketw_record_iter *it, const void *buf,
			   size_t len);
/*
 * 1 and *@rec filled; 0 at the end; -EBADMSG if the record at it->off is
 * malformed or truncated (the iterator then stays there).
 */
int ketw_record_iter_next(struct ketw_record_iter *it, struct ketw_record *rec);

/* ---- extended data items ------------------------------------------ */

/*
 * A record flagged KETW_RECORD_EXT carries typed items between its header
 * and its payload (uapi/linux/ketw.h, struct ketw_ext_header); @data and
 * @data_len of struct ketw_record are the payload alone. The iterators
 * check the items area of every record they return (-EBADMSG if it is
 * malformed): its size, a multiple of 8 within the record, holds exactly
 * its count of items.
 */
struct ketw_ext_iter {
	const unsigned char *area;	/* the items area, NULL: none */
	size_t size;			/* its bytes */
	size_t off;			/* of the next item */
	unsigned int left;		/* items not yet returned */
};

struct ketw_ext_view {
	unsigned int type;		/* KETW_EXT_*, perhaps one not known */
	size_t size;			/* bytes of data */
	const void *data;		/* the item's data (8-aligned in the record) */
};

/* Start walking @rec's items: 1 if it has some, 0 if none, -EBADMSG. */
int ketw_record_items(const struct ketw_record *rec, struct ketw_ext_iter *it);
/* The next item: 1 and *@v filled, 0 at the end, -EBADMSG. */
int ketw_ext_next(struct ketw_ext_iter *it, struct ketw_ext_view *v);
/* The data of @rec's item of @type (its size in *@size), or NULL. */
const void *ketw_record_item(const struct ketw_record *rec, unsigned int type,
			     size_t *size);
/* Typed copies of the fixed items: 0, or -ENOENT if absent or short. */
int ketw_record_cpu_time(const struct ketw_record *rec,
			 struct ketw_ext_cpu_time *t);
int ketw_record_pid_ns(const struct ketw_record *rec,
		       struct ketw_ext_pid_ns *ns);
int ketw_record_activity(const struct ketw_record *rec,
			 struct ketw_ext_activity *a);
/*
 * The addresses of a KSTACK, USTACK or PROG_ADDR item, at most @max into
 * @addrs; returns how many (0 if absent).
 */
unsigned int ketw_record_addrs(const struct ketw_record *rec,
			       unsigned int type, uint64_t *addrs,
			       unsigned int max);
/* "stack", "cputime"...: KETW_EXT_WORDS(); NULL if unknown. */
const char *ketw_ext_type_name(unsigned int type);
/*
 * "stack,cputime,..." (or "none") as a mask of KETW_EXT_BIT()s: 0, or
 * -EINVAL for a word that names no item.
 */
int ketw_ext_items_parse(const char *s, uint32_t *mask);
/* A mask as "stack,cputime", "none" for 0; unknown bits as "0x..". */
char *ketw_ext_items_format(uint32_t mask, char *buf, size_t len);

/* ---- draining a session ------------------------------------------ */

/*
 * read() once from an attached fd, retrying on EINTR. Returns bytes read,
 * 0 at the end of data (session stopped and empty), -EAGAIN (O_NONBLOCK
 * and empty), -EINVAL (@len too small for the next record), -errno.
 */
ssize_t ketw_reader_read(int fd, void *buf, size_t len);

typedef int (*ketw_record_fn)(const struct ketw_record *rec, void *ctx);

/*
 * Read from @fd until it returns 0 or -EAGAIN, or @max_bytes were read
 * (0 = no limit), calling @fn for every record. A non-zero return of @fn
 * stops and is returned. *@bytes (if not NULL) gets the bytes read.
 * Returns 0 when drained, -EBADMSG for a malformed read() result, -errno.
 */
int ketw_reader_drain(int fd, size_t max_bytes, ketw_record_fn fn, void *ctx,
		      uint64_t *bytes);

/* ---- draining through mmap ---------------------------------------- */

/*
 * One CPU's buffer seen through its meta page (shared, read-write: the
 * reader publishes its position there) and its data area (shared,
 * read-only). The protocol (Documentation/ketw-ring-buffer.rst, "Reading"):
 *
 *   UNTIL_FULL, FLUSH  records between meta->consumed and meta->commit
 *                      are read in place; the reader gives them back by
 *                      storing consumed (release). Writers never touch
 *                      them before that.
 *   LOOP               writers may overwrite any record: the reader
 *                      copies the record at meta->oldest, then claims it
 *                      by compare-and-swap of oldest from its position to
 *                      the next record's. If that fails a writer took the
 *                      record first (and counted it overwritten): the copy
 *                      is void and reading goes on at the new oldest.
 *
 * Records never wrap the data area (a padding record fills its end) and
 * are checked before use: a span under 8 bytes, past the commit position
 * or past the end of the area, or a non-padding record shorter than its
 * header, is -EBADMSG outside LOOP; in LOOP it is a header a writer is
 * overwriting (counted in @torn; reading goes on at the new oldest)
 * unless oldest did not move, which makes it -EBADMSG too.
 *
 * Only one reader may consume a CPU's buffer at a time: read() on the
 * same session and another mmap reader would race with this one.
 */
struct ketw_mmap {
	struct ketw_meta_page *meta;
	const unsigned char *data;
	uint32_t size;		/* data area bytes, a power of two */
	unsigned int cpu;
	unsigned int policy;	/* KETW_POLICY_* (meta->policy) */
	bool limited;		/* consume only up to @limit (ketw_mmap_mark) */
	uint32_t limit;
	size_t meta_len;	/* of our mappings; 0 if the caller owns them */
	size_t data_len;
	unsigned char *copy;	/* LOOP: the record being claimed */
	/* What this reader did: */
	uint64_t records;	/* records consumed (given to the caller) */
	uint64_t bytes;		/* their spans */
	uint64_t padding;	/* padding records skipped */
	uint64_t dropped;	/* LOOP: copies voided by a writer's claim */
	uint64_t torn;		/* LOOP: headers found being overwritten */
};

/*
 * Map @cpu's meta page and data area of the session @fd is attached to
 * (@fd opened read-write) and check the meta page. -EINVAL from the
 * kernel for a CPU that is not possible; -EPROTO for a meta page this
 * library does not understand (version, sizes, cpu, policy).
 */
int ketw_mmap_map(int fd, unsigned int cpu, struct ketw_mmap *m);
/*
 * The same over memory the caller provides (tests, other transports): a
 * meta page and its data area of meta->data_size bytes. Nothing is
 * mapped or unmapped; ketw_mmap_unmap() still frees the copy buffer.
 */
int ketw_mmap_init(struct ketw_mmap *m, struct ketw_meta_page *meta,
		   const void *data, unsigned int cpu);
/* Unmap (if mapped) and free; @m may be zeroed or already unmapped. */
void ketw_mmap_unmap(struct ketw_mmap *m);

/* Bytes between the reader's position and the commit position now. */
uint32_t ketw_mmap_pending(const struct ketw_mmap *m);
/*
 * Consume no further than the commit position now (records logged later
 * are left in the buffer): "what is pending at the start". Returns the
 * bytes pending up to the mark.
 */
uint32_t ketw_mmap_mark(struct ketw_mmap *m);
/* Is the reader at the mark (or, in LOOP, past it by overwriting)? */
bool ketw_mmap_done(const struct ketw_mmap *m);

/*
 * Consume the committed records (up to the commit position when called,
 * or the mark), calling @fn for each; padding records are skipped. The
 * record is in the data area (UNTIL_FULL, FLUSH) or in a copy (LOOP),
 * valid during the call only; rec->cpu is the mapped CPU. A record given
 * to @fn is consumed whatever it returns; a non-zero return stops and is
 * returned. Returns 0 when caught up, -EBADMSG (see above).
 */
int ketw_mmap_consume(struct ketw_mmap *m, ketw_record_fn fn, void *ctx);
/*
 * Consume whole records into @buf as read() would: returns the bytes
 * copied (0: nothing pending), -EMSGSIZE if the next record does not fit
 * in @len and nothing was copied, -EBADMSG if nothing was copied and the
 * next record is malformed.
 */
ssize_t ketw_mmap_read(struct ketw_mmap *m, void *buf, size_t len);

/* ---- writing a .ketw file ----------------------------------------- */

struct ketw_output;

/*
 * What goes into the file header. Zero fields are filled in: hostname,
 * release and machine from uname(), creation_time from the clock.
 */
struct ketw_output_info {
	struct ketw_file_session session;
	unsigned int nr_cpus;
	unsigned int clock;
	uint64_t creation_time;
	char hostname[KETW_FILE_HOST_LEN];
	char release[KETW_FILE_HOST_LEN];
	char machine[KETW_FILE_MACHINE_LEN];
};

/* Copy a session's attributes into @info (and its nr_cpus and clock). */
void ketw_output_info_from_attr(struct ketw_output_info *info,
				const struct ketw_session_attr *attr);

/*
 * Create @path (truncating it) and write the file header. The writer is
 * incremental: records go out in sections as they come, so that the file
 * on disk is readable (KETW_INPUT_PARTIAL) up to the last section
 * written, whatever happens to the writer later; the memory it takes
 * does not grow with the file (at most KETW_OUTPUT_CPU_BUFFER per CPU
 * that has records, or ketw_output_set_limit()).
 */
int ketw_output_create(const char *path, const struct ketw_output_info *info,
		       struct ketw_output **out);
/*
 * The header's clock reference (ketw_file.h: clock_ref, realtime_ref)
 * says where the trace clock stands against CLOCK_REALTIME.
 * ketw_output_create() reads both clocks together (for KETW_CLOCK_MONO
 * and KETW_CLOCK_BOOT; none for KETW_CLOCK_LOCAL, which user space
 * cannot read); this takes them from the caller (both 0: none), for a
 * file written from another one, or from somewhere else.
 */
int ketw_output_create_ref(const char *path,
			   const struct ketw_output_info *info,
			   uint64_t clock_ref, uint64_t realtime_ref,
			   struct ketw_output **out);
/*
 * Read the trace clock @clock (KETW_CLOCK_*, 0 the default) and
 * CLOCK_REALTIME together: 0, or -EINVAL for a clock user space cannot
 * read (KETW_CLOCK_LOCAL).
 */
int ketw_clock_ref_now(unsigned int clock, uint64_t *clock_ref,
		       uint64_t *realtime_ref);

/*
 * The same on @fd, open for writing where the file is to start. The
 * writer owns @fd from the call on: ketw_output_close() closes it, and
 * so does a failure here.
 */
int ketw_output_create_fd(int fd, const struct ketw_output_info *info,
			  struct ketw_output **out);
/*
 * The header ketw_output_create() writes for @info (uname, the time, the
 * clock reference read now).
 */
void ketw_output_header_init(struct ketw_file_header *h,
			     const struct ketw_output_info *info);
/*
 * Create @path with header @hdr (host order; header_size is this
 * library's), in the other byte order if @swapped: the writer's own
 * structures then follow it, and records must come in that order too
 * (a collector writing what a machine of that order sent).
 */
int ketw_output_create_header(const char *path,
			      const struct ketw_file_header *hdr,
			      bool swapped, struct ketw_output **out);

/* Bytes of records gathered per CPU before they go out as a section. */
#define KETW_OUTPUT_CPU_BUFFER	(256 * 1024)
/*
 * Bound the memory of all CPUs' gathering buffers together to @bytes (0:
 * no bound but KETW_OUTPUT_CPU_BUFFER each; else at least
 * KETW_OUTPUT_LIMIT_MIN): when a buffer would pass it, every CPU's
 * records go out as sections and the buffers are freed. For a collector,
 * whose sender chooses how many CPUs it has.
 */
#define KETW_OUTPUT_LIMIT_MIN	(128 * 1024)
int ketw_output_set_limit(struct ketw_output *out, size_t bytes);
/* Bytes the writer holds now for records and rundown copies. */
size_t ketw_output_memory(const struct ketw_output *out);

/*
 * Add one record of @cpu (@span bytes: the record and its padding to
 * KETW_RECORD_ALIGN, as ketw_record.span) after the records added before
 * for that CPU. It is gathered with them; a CPU_RECORDS section is
 * written when the CPU's KETW_OUTPUT_CPU_BUFFER fills, and at
 * ketw_output_flush(), ketw_output_add_stats() and ketw_output_close().
 */
int ketw_output_add_record(struct ketw_output *out, unsigned int cpu,
			   const void *rec, size_t span);
/*
 * Write every CPU's gathered records as sections and hand the file's
 * bytes to the kernel (fflush(), not fsync()): a reader now finds every
 * record added so far, and a writer killed after this loses none of them.
 */
int ketw_output_flush(struct ketw_output *out);
/* Complete sections written so far, and bytes (the header included). */
uint64_t ketw_output_sections(const struct ketw_output *out);
uint64_t ketw_output_size(const struct ketw_output *out);

/*
 * Start a section of your own; its length is patched in by
 * ketw_output_section_end(), which needs a file that can seek (the
 * other functions write each section whole, its length first).
 */
int ketw_output_section_begin(struct ketw_output *out, uint32_t type,
			      uint32_t flags);
int ketw_output_write(struct ketw_output *out, const void *buf, size_t len);
int ketw_output_section_end(struct ketw_output *out);
/*
 * A KETW_SECTION_CPU_RECORDS section holding @len bytes of records, after
 * the records of @cpu gathered so far.
 */
int ketw_output_add_records(struct ketw_output *out, unsigned int cpu,
			    const void *records, size_t len);
/*
 * A KETW_SECTION_CPU_STATS section, after every CPU's gathered records;
 * entries with @valid[i] false are written without
 * KETW_FILE_STATS_VALID. @valid may be NULL (all valid).
 */
int ketw_output_add_stats(struct ketw_output *out,
			  const struct ketw_cpu_stats *st, const bool *valid,
			  unsigned int nr);
/*
 * A CPU_STATS entry from the kernel's counters of a CPU (@valid: the
 * kernel had counters for it; else only the CPU).
 */
void ketw_file_cpu_stats_set(struct ketw_file_cpu_stats *e,
			     const struct ketw_cpu_stats *st, bool valid);
/* The same with entries as the file stores them (host order). */
int ketw_output_add_file_stats(struct ketw_output *out,
			       const struct ketw_file_cpu_stats *st,
			       unsigned int nr);
/* A STREAM section: how a collector received the file's records. */
int ketw_output_add_stream(struct ketw_output *out,
			   const struct ketw_file_stream *s);
/*
 * Keep copies of the rundown records added from now on (PROVIDER,
 * EVENT_DESC, TASK, MODULE), up to @max_bytes (more are left out and
 * counted), for the files ketw_output_rotate() begins.
 */
void ketw_output_keep_rundown(struct ketw_output *out, size_t max_bytes);
uint64_t ketw_output_rundown_left_out(const struct ketw_output *out);
/*
 * End this file (the gathered records, END) and go on in @path: the same
 * header (written now) and a RUNDOWN section with the copies kept, so
 * that the new file decodes alone. Every record
 * is in exactly one of the files. On failure the writer is dead: only
 * ketw_output_close() (which returns the error) or _abort() remain.
 */
int ketw_output_rotate(struct ketw_output *out, const char *path);
/*
 * Write the gathered records and the END section, and close. Frees @out
 * whatever happens; on any error (this one or an earlier one) the return
 * is negative.
 */
int ketw_output_close(struct ketw_output *out);
/* Close without END and remove the file (for error paths). */
void ketw_output_abort(struct ketw_output *out, const char *path);

/* ---- stream frames (ketw_stream.h) --------------------------------- */

/*
 * CRC-32C of @len bytes after a previous result @crc (0 to begin):
 * ketw_crc32c(0, "123456789", 9) is 0xe3069283. The hardware's
 * instruction where the CPU has one; _portable() never uses it.
 */
uint32_t ketw_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t ketw_crc32c_portable(uint32_t crc, const void *buf, size_t len);

/* Bytes a frame of @len data bytes takes on the wire at most. */
#define KETW_FRAME_WIRE_MAX(len) \
	(2 * (KETW_FRAME_OVERHEAD + (size_t)(len)) + 2)
/* Bytes a decoder's buffer needs: a frame's largest unstuffed form. */
#define KETW_FRAME_BUF_SIZE	(KETW_FRAME_OVERHEAD + KETW_FRAME_MAX_DATA)

/*
 * The encoder numbers frames (+1 each, from @first_seq, wrapping at
 * 2^32) and opens its first frame, and the first after
 * ketw_frame_encoder_restart() (a new connection), with a flag.
 */
struct ketw_frame_encoder {
	uint32_t seq;		/* of the next frame */
	bool open;		/* a flag went out: the next frame needs none */
	uint64_t frames;	/* frames encoded */
	uint64_t bytes;		/* their bytes on the wire */
};

void ketw_frame_encoder_init(struct ketw_frame_encoder *enc,
			     uint32_t first_seq);
void ketw_frame_encoder_restart(struct ketw_frame_encoder *enc);
/*
 * Encode a frame of @type with @len bytes of @data into @out, which has
 * room for KETW_FRAME_WIRE_MAX(@len) bytes (@size); the frame takes the
 * encoder's next sequence number. Returns the bytes written, or
 * -EMSGSIZE (@len above KETW_FRAME_MAX_DATA) or -ENOSPC (@size short).
 */
ssize_t ketw_frame_encode(struct ketw_frame_encoder *enc, unsigned int type,
			  const void *data, size_t len, void *out, size_t size);

/* What a decoder saw. */
struct ketw_frame_stats {
	uint64_t bytes;		/* bytes fed */
	uint64_t frames;	/* good frames delivered */
	uint64_t bad_checksum;	/* frames failing their checksum, or too
				 * short to hold one, or aborted (0x7d 0x7e) */
	uint64_t seq_gaps;	/* frames missing by the sequence numbers */
	uint64_t duplicates;	/* good frames behind the sequence: dropped */
	uint64_t oversize;	/* frames longer than the buffer: dropped */
	uint64_t partial;	/* a frame cut by the end of the input */
	uint64_t restarts;	/* PREAMBLEs behind the sequence: new streams */
	uint64_t skipped;	/* bytes in no good frame: before the first
				 * flag, in bad, oversize and cut frames */
};

/* A frame as the decoder delivers it: valid until its next call. */
struct ketw_frame {
	uint32_t seq;
	unsigned int type;	/* KETW_FRAME_*, or one not known */
	const unsigned char *data;
	size_t len;
	uint64_t gap;		/* frames missing just before this one */
};

/*
 * A streaming decoder: bytes go in as they come, in pieces of any size;
 * frames come out one at a time, from a buffer the caller provides
 * (KETW_FRAME_BUF_SIZE bytes: nothing is allocated). It starts hunting
 * for a flag (what comes before the first flag is skipped), and after
 * any error it resynchronises at the next flag, losing only the frame
 * the error was in. Good frames behind the sequence (duplicates) are
 * dropped, except a PREAMBLE, which restarts it (a new stream).
 */
struct ketw_frame_decoder {
	unsigned char *buf;
	size_t cap;
	size_t len;		/* unstuffed bytes of the current frame */
	uint64_t wire;		/* its bytes on the wire so far */
	int state;
	bool have_seq;
	uint32_t next_seq;
	struct ketw_frame_stats st;
};

void ketw_frame_decoder_init(struct ketw_frame_decoder *dec, void *buf,
			     size_t cap);
/*
 * Decode from @in (@len bytes) up to the end of the next good frame.
 * Returns the bytes consumed; *@got is 1 if @f holds a frame (its data
 * in the decoder's buffer, valid until the next call), 0 if all of @in
 * was consumed without completing one. Call again with the rest.
 */
size_t ketw_frame_decode(struct ketw_frame_decoder *dec, const void *in,
			 size_t len, struct ketw_frame *f, int *got);
/* The input ended: a frame begun is counted cut (partial) and skipped. */
void ketw_frame_decoder_eof(struct ketw_frame_decoder *dec);
/* "PREAMBLE", "RECORD", "STATUS", "END"; NULL if unknown. */
const char *ketw_frame_type_name(unsigned int type);

/* ---- receiving a stream into a file -------------------------------- */

/* What a PREAMBLE says, in host order. */
struct ketw_stream_desc {
	struct ketw_file_header hdr;	/* of the files to write */
	struct ketw_stream_hello hello;
	bool swapped;			/* the sender's order is not ours */
};

/*
 * Check a PREAMBLE frame and describe its stream: 0, -EBADMSG (a message
 * in @err) or -EPROTONOSUPPORT (a format major this library does not
 * know).
 */
int ketw_stream_preamble_parse(const struct ketw_frame *f,
			       struct ketw_stream_desc *d, char *err,
			       size_t errlen);

/*
 * A stream being written into a trace file, through the incremental
 * writer: readable up to its last flush whatever happens, in memory
 * bounded by @mem_limit (ketw_output_set_limit(); 0: the writer's
 * default) plus the last counters of nr_cpus CPUs.
 */
struct ketw_stream_rx;

/* Rundown records kept for the chunks of a rotation (bytes). */
#define KETW_STREAM_RUNDOWN_MAX	(1024 * 1024)

int ketw_stream_rx_create(const char *path, const struct ketw_stream_desc *d,
			  size_t mem_limit, struct ketw_stream_rx **rx);
/*
 * A frame of the stream, in its order, the PREAMBLE that described it
 * first: RECORD into the file, STATUS and END noted (the last counters
 * go into the file at its end), another connection's PREAMBLE counted
 * (and the frames lost between the connections). Returns 0, -EBADMSG
 * for a frame whose data makes no sense (counted as malformed; go on),
 * or -errno of the file (it is dead).
 */
int ketw_stream_rx_frame(struct ketw_stream_rx *rx, const struct ketw_frame *f);
/* Add a connection's decoder counters (since the last call) to the stream's. */
void ketw_stream_rx_add_link(struct ketw_stream_rx *rx,
			     const struct ketw_frame_stats *st);
/* The END frame came. */
bool ketw_stream_rx_complete(const struct ketw_stream_rx *rx);
/* The stream's counters so far (what the STREAM section will say). */
const struct ketw_file_stream *
ketw_stream_rx_counters(const struct ketw_stream_rx *rx);
const struct ketw_stream_desc *ketw_stream_rx_desc(const struct ketw_stream_rx *rx);
/* Bytes it holds. */
size_t ketw_stream_rx_memory(const struct ketw_stream_rx *rx);
/* Bytes of its current file so far. */
uint64_t ketw_stream_rx_size(const struct ketw_stream_rx *rx);
/* Everything so far onto the file. */
int ketw_stream_rx_flush(struct ketw_stream_rx *rx);
/*
 * End this file (the counters, the STREAM section so far, END) and go on
 * in @path (ketw_output_rotate()).
 */
int ketw_stream_rx_rotate(struct ketw_stream_rx *rx, const char *path);
/* End the file: the counters, the STREAM section, END; free @rx. */
int ketw_stream_rx_close(struct ketw_stream_rx *rx);

/* ---- reading a .ketw file ----------------------------------------- */

struct ketw_input;

/*
 * Open and check a trace file completely (every section and record), so
 * that nothing later can run out of bounds. On failure a message naming
 * the problem is put in @err (if not NULL). Returns -errno of the I/O,
 * -EBADMSG (not a ketw file, corrupt or truncated) or -EPROTONOSUPPORT
 * (a format version or required section this reader does not know).
 */
int ketw_input_open(const char *path, struct ketw_input **in, char *err,
		    size_t errlen);
/* The same from a memory image (copied). */
int ketw_input_open_mem(const void *buf, size_t len, struct ketw_input **in,
			char *err, size_t errlen);

/*
 * Flags of ketw_input_open_flags(). PARTIAL: a file without its END
 * section (cut short, or its writer still writing or dead) is read up to
 * its last complete section instead of refused; ketw_input_truncated()
 * then says so. A file cut inside its header is still refused, and so is
 * a corrupt one.
 */
#define KETW_INPUT_PARTIAL	0x1u

int ketw_input_open_flags(const char *path, unsigned int flags,
			  struct ketw_input **in, char *err, size_t errlen);
int ketw_input_open_mem_flags(const void *buf, size_t len, unsigned int flags,
			      struct ketw_input **in, char *err, size_t errlen);
void ketw_input_close(struct ketw_input *in);

/*
 * 0 if the file is complete (it has its END section); else its length in
 * bytes, of which the sections read end at ketw_input_read_bytes().
 */
uint64_t ketw_input_truncated(const struct ketw_input *in);
uint64_t ketw_input_read_bytes(const struct ketw_input *in);
/* Complete sections read (END included), and records in them. */
uint64_t ketw_input_nr_sections(const struct ketw_input *in);
uint64_t ketw_input_nr_records(const struct ketw_input *in);

/* The header in host byte order; fields a shorter header lacks are 0. */
const struct ketw_file_header *ketw_input_header(const struct ketw_input *in);
bool ketw_input_swapped(const struct ketw_input *in);
unsigned int ketw_input_nr_cpus(const struct ketw_input *in);
/*
 * Records of @cpu in the file, and the events missing between them
 * according to their sequence numbers.
 */
uint64_t ketw_input_cpu_records(const struct ketw_input *in, unsigned int cpu);
uint64_t ketw_input_cpu_gaps(const struct ketw_input *in, unsigned int cpu);
/* The statistics of @cpu, or NULL if the file has none for it. */
const struct ketw_file_cpu_stats *
ketw_input_cpu_stats(const struct ketw_input *in, unsigned int cpu);
/* Sections the reader skipped because it does not know their type. */
unsigned int ketw_input_skipped_sections(const struct ketw_input *in);
/* The STREAM section (how a collector received it, host order), or NULL. */
const struct ketw_file_stream *ketw_input_stream(const struct ketw_input *in);
/*
 * Call @fn for each rundown record the file holds in copy (RUNDOWN
 * sections: a file a rotation began carries the rundown seen before
 * it), in order; they are not among ketw_input_next()'s records. A
 * non-zero return of @fn stops and is returned.
 */
int ketw_input_rundown_copies(const struct ketw_input *in, ketw_record_fn fn,
			      void *ctx);

/*
 * The next record of all CPUs merged in timestamp order (ties: lower cpu,
 * then lower sequence). 1 and *@rec filled, 0 at the end.
 */
int ketw_input_next(struct ketw_input *in, struct ketw_record *rec);
void ketw_input_rewind(struct ketw_input *in);

/*
 * One CPU's records alone, in file order (sequence order), independent
 * of ketw_input_next() and of other such iterators: any number may walk
 * the same input at once. Initialise with ketw_input_cpu_iter_init()
 * (again to start over); next returns 1 and *@rec filled, 0 at the end.
 */
struct ketw_input_cpu_iter {
	const struct ketw_input *in;
	unsigned int cpu;
	unsigned int cursor;		/* the section being walked */
	struct ketw_record_iter it;	/* in it; len 0 before the first */
};

void ketw_input_cpu_iter_init(struct ketw_input_cpu_iter *it,
			      const struct ketw_input *in, unsigned int cpu);
int ketw_input_cpu_iter_next(struct ketw_input_cpu_iter *it,
			     struct ketw_record *rec);

/* ---- text ---------------------------------------------------------- */

/* Names, or NULL if the value has none. */
const char *ketw_type_name(unsigned int type);
const char *ketw_level_name(unsigned int level);
const char *ketw_sys_event_name(unsigned int id);
const char *ketw_field_type_name(unsigned int type);	/* KETW_FIELD_* */
const char *ketw_policy_name(unsigned int policy);
const char *ketw_clock_name(unsigned int clock);
const char *ketw_state_name(unsigned int state);
const char *ketw_trigger_action_name(unsigned int action); /* KETW_TRIGGER_* */
const char *ketw_context_name(unsigned int ctx);	/* KETW_CTX_*: "task"... */

/* The textual form of a GUID stored in textual byte order. */
char *ketw_guid_format(const uint8_t guid[KETW_GUID_SIZE],
		       char buf[KETW_GUID_STR_LEN]);
/* "ETIMEDOUT" for ETIMEDOUT or -ETIMEDOUT; NULL if unknown. */
const char *ketw_errno_name(int err);
/*
 * "TRUNCATED|USER", "0" for none, unknown bits as "0x..". The context
 * bits are left out: ketw_context_format() shows them.
 */
char *ketw_flags_format(unsigned int flags, char *buf, size_t len);
/*
 * A record's context bits as ftrace's latency columns, four characters:
 * interrupts off 'd' or '.', need-resched 'N' or '.', the context '.'
 * (task), 's' (softirq), 'h' (hardirq) or 'z' (NMI), the preemption depth
 * as a hex digit or '.' for 0. "d.h1": a hard interrupt, interrupts
 * off, depth 1. @len is at least KETW_CONTEXT_STR_LEN.
 */
#define KETW_CONTEXT_STR_LEN	5
char *ketw_context_format(unsigned int flags, char *buf, size_t len);

/*
 * One line describing a record (no newline):
 *   cpu=1 [ctx=....] ts=12.000345678 pid=123 tid=124 seq=5 guid=...
 *   type=10 level=INFO ver=2 id=1 kw=0x1 len=24 [flags=TRUNCATED]
 * ctx= (ketw_context_format()) only if @rec->context.
 * Returns the length snprintf() would have produced.
 */
int ketw_record_format(const struct ketw_record *rec, char *buf, size_t len);
/*
 * A system event's payload decoded (START's filter, STOP's cause,
 * OVERFLOW's first lost timestamp, RESUME's count, ERROR's errno name,
 * FILTER's old and new filter, the rundown's PROVIDER, EVENT_DESC and
 * TASK); returns 0 for other records and payloads too short to decode.
 */
int ketw_sys_payload_format(const struct ketw_record *rec, char *buf,
			    size_t len);

/*
 * Hex dump, 16 bytes a line: "<indent>0000  00 01 ... 07  08 ... 0f  |ascii|".
 * Returns a negative errno if writing failed.
 */
int ketw_hexdump(FILE *f, const char *indent, const void *data, size_t len);

/* ---- decoding by the rundown ----------------------------------------- */

/*
 * What a trace's rundown (PROVIDER, EVENT_DESC records) or the PROVIDERS
 * and EVENTS ioctls say: provider names by GUID, event descriptors by
 * GUID, id and version. A later entry for the same key replaces one.
 */
struct ketw_registry;

struct ketw_registry *ketw_registry_new(void);	/* NULL: no memory */
void ketw_registry_free(struct ketw_registry *reg);
int ketw_registry_add_provider(struct ketw_registry *reg,
			       const struct ketw_sys_provider *p);
int ketw_registry_add_event(struct ketw_registry *reg,
			    const struct ketw_event_info *ev);
/*
 * Take a PROVIDER or EVENT_DESC record: 1 if taken, 0 for other records
 * (and ones too short to hold their struct), -ENOMEM.
 */
int ketw_registry_add_record(struct ketw_registry *reg,
			     const struct ketw_record *rec);
unsigned int ketw_registry_nr_providers(const struct ketw_registry *reg);
unsigned int ketw_registry_nr_events(const struct ketw_registry *reg);
/*
 * The name of the provider with @guid, the kernel's before a user one's;
 * NULL if unknown (@reg may be NULL).
 */
const char *ketw_registry_provider_name(const struct ketw_registry *reg,
					const uint8_t guid[KETW_GUID_SIZE]);
/*
 * The name of the provider that logged record @h: a user provider's if
 * the record is flagged KETW_RECORD_USER (the two namespaces may share a
 * GUID), else the kernel's; NULL if the registry has neither.
 */
const char *ketw_registry_record_provider(const struct ketw_registry *reg,
					  const struct ketw_event_header *h);
/*
 * The descriptor of exactly this GUID, id and version, or NULL: a kernel
 * provider's, else a user provider's. Descriptors are kept apart by
 * namespace (their flags' KETW_PROVIDER_USER).
 */
const struct ketw_event_info *
ketw_registry_event(const struct ketw_registry *reg,
		    const uint8_t guid[KETW_GUID_SIZE], uint32_t id,
		    uint16_t version);
/*
 * The descriptor that decodes record @h: of its provider's namespace
 * (KETW_RECORD_USER); for a user record, failing that, a kernel one (a
 * trace from before descriptors carried their namespace). A user
 * provider's descriptor never decodes a kernel provider's record.
 */
const struct ketw_event_info *
ketw_registry_record_event(const struct ketw_registry *reg,
			   const struct ketw_event_header *h);

/* Is @rec a rundown record (PROVIDER, EVENT_DESC, TASK)? */
bool ketw_record_is_rundown(const struct ketw_record *rec);

#define KETW_PAYLOAD_BINARY_MAX	32	/* binary bytes shown, then "...+N" */

/*
 * A payload as "name=value" per field of @ev, separated by blanks:
 *   u8..u64 decimal, s8..s64 signed decimal, hex32/hex64 0x..., guid
 *   8-4-4-4-12, string quoted with C escapes (up to a NUL, its size or
 *   the payload's end), binary "{00 01 02}" (its size or the rest; the
 *   first KETW_PAYLOAD_BINARY_MAX bytes, then "...+N"; "<cut>" if the
 *   payload ends first). A field past the payload's end is "<missing>";
 *   an integer field whose size is not its type's width is shown as
 *   binary, a field of unknown type as "(type N){...}".
 * @swapped: the payload is in the other byte order (integers are
 * swapped). Returns the length snprintf() would have produced.
 */
int ketw_payload_format(const struct ketw_event_info *ev, const void *data,
			size_t len, bool swapped, char *buf, size_t buflen);
/*
 * The bytes a field of @type takes: 1, 2, 4 or 8 for the integers, 16
 * for a GUID, 0 for STRING and BINARY (their size, or the payload's
 * rest), and 0 for an unknown type.
 */
unsigned int ketw_field_width(unsigned int type);
/*
 * The value of integer field @fi at @p (ketw_field_width() bytes, which
 * the caller checked are in the payload), in the writer's byte order
 * (@swapped: the other one); s8..s64 sign-extended (cast to int64_t).
 */
uint64_t ketw_field_int(const struct ketw_field_info *fi, const void *p,
			bool swapped);
/*
 * A record's line with names from @reg (may be NULL):
 *   rundown records, short: "cpu=0 ts=1.000000100 seq=3 " then
 *     "PROVIDER ketw-sample <guid> events=2 [USER]",
 *     "EVENT_DESC ketw-sample id=1 tick ver=2 fields=4" or
 *     "TASK pid=1 tid=1 comm=init";
 *   other records as ketw_record_format(), with "provider=NAME" instead
 *   of "guid=..." when @reg names the provider (system events with the
 *   all-zero GUID: "provider=ketw") and " event=NAME" after the id when
 *   it has the event's descriptor.
 */
int ketw_record_format_named(const struct ketw_record *rec,
			     const struct ketw_registry *reg, char *buf,
			     size_t len);
/*
 * A provider event's payload decoded by its descriptor in @reg (see
 * ketw_payload_format()); -ENOENT for system events and events without
 * a descriptor.
 */
int ketw_record_payload_format(const struct ketw_record *rec,
			       const struct ketw_registry *reg, bool swapped,
			       char *buf, size_t len);
/* ketw_sys_payload_format() naming FILTER's provider from @reg. */
int ketw_sys_payload_format_named(const struct ketw_record *rec,
				  const struct ketw_registry *reg, char *buf,
				  size_t len);

/* ---- parsing arguments --------------------------------------------- */

/*
 * Parse all of @s as an unsigned number: decimal, or hexadecimal with a
 * 0x prefix. No sign, no blanks, no trailing characters. -EINVAL if it is
 * not a number, -ERANGE if it is above @max.
 */
int ketw_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* A name ("info", case-insensitive) or a number 0..5. */
int ketw_parse_level(const char *s, unsigned int *level);
/* loop | until-full | flush */
int ketw_parse_policy(const char *s, unsigned int *policy);
/* mono | boot | local */
int ketw_parse_clock(const char *s, unsigned int *clock);
/* wake | stop | snapshot */
int ketw_parse_trigger_action(const char *s, unsigned int *action);

/*
 * A provider and its filter as "-p" gives them:
 *   PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]]
 * PROVIDER a name or a GUID (ketw_provider_ref_parse()); LEVEL a name
 * or 0..5 (ketw_parse_level()); KEYWORDS the match_any mask and ALLMASK
 * the match_all mask, decimal or 0x-prefixed hex. An empty or missing
 * part is left unset (has_* false, 0 in @filter).
 */
struct ketw_enable_spec {
	struct ketw_provider_ref provider;
	struct ketw_filter filter;	/* level, match_any, match_all */
	bool has_level;
	bool has_any;
	bool has_all;
};

/*
 * Parse a -p argument. -EINVAL (-ENOMEM) with a message naming the
 * problem in @err: no provider, a bad GUID, a name too long, an unknown
 * level, a bad mask, too many ':'.
 */
int ketw_parse_enable(const char *s, struct ketw_enable_spec *spec,
		      char *err, size_t errlen);
/*
 * The same, with a last field of extended data items taken too:
 * PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...], ITEM a word of
 * KETW_EXT_WORDS() ("stack,cputime"), their mask into *@items (0 if
 * none). ketw_parse_enable() refuses such a field.
 */
int ketw_parse_enable_items(const char *s, struct ketw_enable_spec *spec,
			    uint32_t *items, char *err, size_t errlen);

/* Find the id of @p's event called @name: 0, -ENOENT, or another error. */
typedef int (*ketw_event_lookup_fn)(const struct ketw_provider_ref *p,
				    const char *name, uint32_t *id, void *ctx);

/*
 * Parse a -x argument, PROVIDER:ID[,ID...]: each ID a number, a range
 * A-B, or (if @lookup is not NULL) an event's name; the ids go into @set
 * (which keeps what it had; on error it may hold some of them), the
 * provider into @p. Ids of KETW_EVENT_SET_BITS and more cannot be
 * filtered out: -EINVAL with a message in @err, like any other problem.
 */
int ketw_parse_filter_out(const char *s, struct ketw_provider_ref *p,
			  struct ketw_event_set *set,
			  ketw_event_lookup_fn lookup, void *ctx, char *err,
			  size_t errlen);

/* The ids in @set as "1,3-5" ("" if none); snprintf semantics. */
int ketw_eventset_format(const struct ketw_event_set *set, char *buf,
			 size_t len);

#endif /* _LIBKETW_H */
