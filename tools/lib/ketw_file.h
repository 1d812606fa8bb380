/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ketw trace file (.ketw), format 1.
 *
 * A file is a fixed header followed by tagged sections:
 *
 *   offset 0            struct ketw_file_header (header_size bytes)
 *   header_size         struct ketw_file_section + body, padded to 8
 *   ...                 more sections
 *   last                a KETW_SECTION_END section (empty body)
 *
 * Every field is written in the byte order of the machine that wrote the
 * file. The magic is written as a native __u32: a reader that sees it
 * byte-swapped swaps every field it knows (file header, section headers,
 * record headers, extended data items, statistics). Payloads of records
 * are provider data and are never swapped.
 *
 * Extending the format:
 * - version_minor grows for compatible additions: a longer header (new
 *   fields at the end; readers zero what the file lacks and ignore what
 *   they do not know), new section types, longer statistics entries.
 * - version_major grows for changes an old reader cannot skip; readers
 *   refuse a major they do not know.
 * - A section an old reader may skip has KETW_SECTION_F_REQUIRED clear;
 *   with it set, a reader that does not know the type refuses the file.
 */
#ifndef _KETW_FILE_H
#define _KETW_FILE_H

#include <linux/types.h>
#include <linux/ketw.h>

#define KETW_FILE_MAGIC		0x4B455457	/* "KETW" as a native __u32 */
#define KETW_FILE_VERSION_MAJOR	1
/*
 * Minor versions: 0, the first; 1, records may carry extended data items
 * (KETW_RECORD_EXT, uapi/linux/ketw.h), the rundown MODULE records, the
 * TRIGGER system event, and the context bits of the records' flags,
 * which a file says are valid with KETW_FILE_F_RECORD_CTX. A reader of 0
 * shows an items area as part of the payload. 2, the header's clock
 * reference (clock_ref, realtime_ref): where the trace clock stands
 * against CLOCK_REALTIME, for absolute times. 3, the sections STREAM
 * and RUNDOWN (a collector's, a rotation's), which older readers skip.
 */
#define KETW_FILE_VERSION_MINOR	3
#define KETW_FILE_ALIGN		8		/* sections start 8-aligned */
#define KETW_FILE_HOST_LEN	72
#define KETW_FILE_MACHINE_LEN	32
#define KETW_FILE_MAX_CPUS	65536		/* sanity bound for readers */

/* The session as it was when the file was written (its attributes). */
struct ketw_file_session {
	char  name[KETW_NAME_MAX];
	__u32 buffer_kb;
	__u32 policy;		/* KETW_POLICY_* */
	__u32 max_data_size;
	__u32 clock;		/* KETW_CLOCK_* */
	__u32 level;		/* KETW_LEVEL_* */
	__u32 state;		/* KETW_STATE_* when extracted */
	__u64 match_any;
	__u64 match_all;
	__u64 creation_time;	/* CLOCK_REALTIME ns of the session's creation */
	__u32 clock_resolution;	/* ns */
	__u32 nr_cpus;
};

/**
 * struct ketw_file_header - the start of every .ketw file
 * @magic:              KETW_FILE_MAGIC, native byte order.
 * @version_major:      KETW_FILE_VERSION_MAJOR.
 * @version_minor:      KETW_FILE_VERSION_MINOR.
 * @header_size:        bytes of this header; the first section starts here.
 *                      A multiple of 8, at least KETW_FILE_HEADER_SIZE_V1.
 * @record_header_size: bytes of a record header (KETW_EVENT_HEADER_SIZE);
 *                      a record's payload starts this far into it.
 * @nr_cpus:            CPU ids in the file are 0..nr_cpus-1.
 * @clock:              KETW_CLOCK_* of every timestamp in the file.
 * @creation_time:      CLOCK_REALTIME ns when the file was written.
 * @flags:              KETW_FILE_F_*; readers ignore bits they do not
 *                      know (format 1.0 wrote 0).
 * @reserved:           0.
 * @session:            the traced session's attributes.
 * @hostname:           uname nodename of the traced machine, NUL-terminated.
 * @release:            uname release (kernel version), NUL-terminated.
 * @machine:            uname machine, NUL-terminated.
 * @clock_ref:          (1.2) a reading of the trace clock (@clock), ns...
 * @realtime_ref:       ...and of CLOCK_REALTIME, ns, taken together by the
 *                      writer: a timestamp t is at realtime_ref +
 *                      (t - clock_ref). Both 0: unknown (an older file, a
 *                      clock user space cannot read, KETW_CLOCK_LOCAL).
 */
struct ketw_file_header {
	__u32 magic;
	__u16 version_major;
	__u16 version_minor;
	__u32 header_size;
	__u32 record_header_size;
	__u32 nr_cpus;
	__u32 clock;
	__u64 creation_time;
	__u32 flags;
	__u32 reserved;
	struct ketw_file_session session;
	char  hostname[KETW_FILE_HOST_LEN];
	char  release[KETW_FILE_HOST_LEN];
	char  machine[KETW_FILE_MACHINE_LEN];
	__u64 clock_ref;
	__u64 realtime_ref;
};

#define KETW_FILE_HEADER_SIZE_V1	304	/* 1.0 and 1.1 */
#define KETW_FILE_HEADER_SIZE_V1_2	320	/* 1.2: the clock reference */

/*
 * File header flags. RECORD_CTX (format 1.1): the records' context bits
 * (KETW_RECORD_CONTEXT_BITS) are valid. Without it (format 1.0 files)
 * they are 0 and mean nothing: readers show no context at all rather
 * than "task".
 */
#define KETW_FILE_F_RECORD_CTX	0x1

/**
 * struct ketw_file_section - the header of a section
 * @type:   KETW_SECTION_*; 0 is invalid.
 * @flags:  KETW_SECTION_F_*.
 * @length: bytes of the body that follows; the next section starts at the
 *          next 8-byte boundary after the body.
 */
struct ketw_file_section {
	__u32 type;
	__u32 flags;
	__u64 length;
};

#define KETW_SECTION_END		1  /* the file is complete; empty body */
#define KETW_SECTION_CPU_RECORDS	2  /* struct ketw_file_cpu_records + records */
#define KETW_SECTION_CPU_STATS		3  /* struct ketw_file_stats + entries */
#define KETW_SECTION_STREAM		4  /* struct ketw_file_stream (1.3) */
#define KETW_SECTION_RUNDOWN		5  /* copies of rundown records (1.3) */

#define KETW_SECTION_F_REQUIRED		0x1  /* do not skip if the type is unknown */

/*
 * Body of KETW_SECTION_CPU_RECORDS: this, then records exactly as the
 * kernel's read() returns them (struct ketw_event_header + payload, each
 * starting KETW_RECORD_SPAN(size) after the previous one). A CPU may have
 * several such sections; they follow each other in sequence order.
 */
struct ketw_file_cpu_records {
	__u32 cpu;
	__u32 reserved;
};

/*
 * Body of KETW_SECTION_CPU_STATS: this, then nr_entries entries of
 * entry_size bytes each (a multiple of 8, at least 8). An entry starts like
 * struct ketw_file_cpu_stats; readers zero the fields a short entry lacks.
 */
struct ketw_file_stats {
	__u32 nr_entries;
	__u32 entry_size;
};

#define KETW_FILE_STATS_VALID	0x1	/* the kernel gave counters for this CPU */

/* The counters of struct ketw_cpu_stats, without the request fields. */
struct ketw_file_cpu_stats {
	__u32 cpu;
	__u32 flags;		/* KETW_FILE_STATS_* */
	__u64 written;
	__u64 lost_full;
	__u64 overwritten;
	__u64 lost_busy;
	__u64 lost_nested;
	__u64 truncated;
	__u64 read;
	__u64 sequence;
	__u64 produced;
	__u64 consumed;
};

/*
 * Body of KETW_SECTION_STREAM: how a collector (ketw listen) received the
 * stream this file holds (Documentation/ketw-stream.rst): its counters
 * over every connection, and what the sender said it could not send.
 * Written when the collector closes the file. Readers zero the fields
 * a shorter body lacks.
 */
struct ketw_file_stream {
	__u64 stream_id;
	__u32 connections;	/* connections the stream came over */
	__u32 flags;		/* KETW_FILE_STREAM_* */
	__u64 bytes;		/* bytes received */
	__u64 frames;		/* good frames */
	__u64 bad_checksum;	/* bad frames (checksum, too short, aborted) */
	__u64 seq_gaps;		/* frames missing by the sequence numbers */
	__u64 duplicates;	/* good frames received twice: dropped */
	__u64 oversize;		/* frames too long: dropped */
	__u64 partial;		/* frames cut by the end of a connection */
	__u64 skipped;		/* bytes of no good frame */
	__u64 records;		/* records written into the file(s) */
	__u64 malformed;	/* good frames whose data made no sense */
	__u64 unknown;		/* frames of a type the collector ignores */
	__u64 sent_records;	/* RECORD frames the sender made, last said */
	__u64 dropped_frames;	/* frames the sender could not send */
	__u64 dropped_records;	/* of which RECORD frames */
	__u64 end_seq;		/* with COMPLETE: frames before END */
	__s64 realtime_offset;	/* with OFFSET: the last STATUS's clock */
	__u64 offset_at;	/* offset, and the trace clock it was at */
};

#define KETW_FILE_STREAM_COMPLETE	0x1	/* the END frame came */
#define KETW_FILE_STREAM_OFFSET		0x2	/* realtime_offset is valid */

_Static_assert(sizeof(struct ketw_file_session) == 88, "file ABI");
_Static_assert(sizeof(struct ketw_file_header) == KETW_FILE_HEADER_SIZE_V1_2,
	       "file ABI");
_Static_assert(sizeof(struct ketw_file_section) == 16, "file ABI");
_Static_assert(sizeof(struct ketw_file_cpu_records) == 8, "file ABI");
_Static_assert(sizeof(struct ketw_file_stats) == 8, "file ABI");
_Static_assert(sizeof(struct ketw_file_cpu_stats) == 88, "file ABI");
_Static_assert(sizeof(struct ketw_file_stream) == 152, "file ABI");

#endif /* _KETW_FILE_H */
