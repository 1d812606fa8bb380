/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ketw live stream, version 1 (Documentation/ketw-stream.rst): a
 * session's records leave the machine as they are drained, each in a
 * frame of its own, over a pipe, a TCP connection or a serial line.
 *
 * A frame on the wire, after an opening flag byte:
 *
 *   seq (u32, LE) | type (u8) | data (0..KETW_FRAME_MAX_DATA) | CRC-32C (u32, LE)
 *
 * byte-stuffed (0x7e and 0x7d inside become 0x7d, byte ^ 0x20; the
 * checksum, over seq, type and data, is computed before stuffing) and
 * ended by the flag 0x7e, which also opens the next one. The frame's
 * own fields are little-endian; the data is in the byte order of the
 * writing machine, as in a .ketw file, which the PREAMBLE's first four
 * bytes (the file magic) reveal.
 *
 * Extending it: new frame types (a receiver skips types it does not
 * know), longer PREAMBLE and STATUS structures (their size fields grow;
 * receivers zero what a shorter one lacks and ignore what they do not
 * know) bump the minor version; anything else the major one.
 */
#ifndef _KETW_STREAM_H
#define _KETW_STREAM_H

#include <linux/types.h>
#include "ketw_file.h"

#define KETW_STREAM_VERSION_MAJOR	1
#define KETW_STREAM_VERSION_MINOR	0

#define KETW_FRAME_FLAG		0x7e	/* ends a frame (and opens the next) */
#define KETW_FRAME_ESC		0x7d	/* the next byte is XOR KETW_FRAME_XOR */
#define KETW_FRAME_XOR		0x20
/* The largest data a frame carries: a record is at most 0xfff8 bytes. */
#define KETW_FRAME_MAX_DATA	65536
/* seq, type and the checksum around the data. */
#define KETW_FRAME_OVERHEAD	9

/* Frame types (the type byte). */
#define KETW_FRAME_PREAMBLE	1  /* the file header and the stream's identity */
#define KETW_FRAME_RECORD	2  /* one record, as the kernel stored it */
#define KETW_FRAME_STATUS	3  /* the kernel's counters, the clocks, losses */
#define KETW_FRAME_END		4  /* the stream is complete */

/*
 * Over a connection that carries bytes back (TCP), a collector answers
 * an END frame with this byte and closes: the sender then knows the
 * stream arrived complete, and otherwise sends END again over a new
 * connection.
 */
#define KETW_STREAM_ACK		0x06

/**
 * struct ketw_stream_hello - the PREAMBLE's data, after the file header
 * @magic:           KETW_STREAM_MAGIC in the writer's order.
 * @version_major:   KETW_STREAM_VERSION_MAJOR; a receiver refuses
 *                   another major.
 * @version_minor:   KETW_STREAM_VERSION_MINOR.
 * @size:            bytes of this structure (24 in 1.0).
 * @connection:      0 for the first connection, +1 for each reconnection.
 * @stream_id:       random, drawn when the stream began; the same in the
 *                   PREAMBLE of every connection of the stream, so that a
 *                   receiver continues its file after a reconnection.
 *
 * The PREAMBLE frame's data is the .ketw file header (its header_size
 * bytes, format in ketw_file.h: the session, the host, and the clock
 * reference, where the trace clock stood against CLOCK_REALTIME when the
 * stream began), then this structure.
 */
struct ketw_stream_hello {
	__u32 magic;
	__u16 version_major;
	__u16 version_minor;
	__u32 size;
	__u32 connection;
	__u64 stream_id;
};

#define KETW_STREAM_MAGIC	0x4B535452	/* "KSTR" as a native __u32 */
/* STATUS: realtime_offset is valid (the trace clock is one user space reads). */
#define KETW_STREAM_F_OFFSET	0x1

/**
 * struct ketw_stream_status - a STATUS frame's data
 * @size:            bytes of this structure (64 in 1.0); the entries
 *                   follow it.
 * @flags:           KETW_STREAM_F_OFFSET, KETW_STREAM_STATUS_FINAL.
 * @realtime_offset: CLOCK_REALTIME minus the trace clock, ns, measured
 *                   now (valid with KETW_STREAM_F_OFFSET): how far the
 *                   clocks drifted since the header's clock reference.
 * @offset_at:       the trace clock's ns when it was measured.
 * @records:         RECORD frames the writer made so far.
 * @dropped_frames:  frames it made but could not send (no peer, its
 *                   backlog full): losses it knows of.
 * @dropped_records: of those, RECORD frames.
 * @first_cpu:       the CPU of the first entry.
 * @nr_entries:      entries that follow, of @entry_size bytes each.
 * @entry_size:      a multiple of 8, at least 8 (88: struct
 *                   ketw_file_cpu_stats); readers zero what a shorter
 *                   entry lacks.
 * @reserved:        0.
 *
 * Entries are the kernel's per-CPU counters (struct ketw_file_cpu_stats)
 * for CPUs @first_cpu onwards; a machine with many CPUs sends several
 * STATUS frames, each with a part of them. FINAL marks those sent after
 * the session stopped and was drained: the counters a file ends with.
 */
struct ketw_stream_status {
	__u32 size;
	__u32 flags;
	__s64 realtime_offset;
	__u64 offset_at;
	__u64 records;
	__u64 dropped_frames;
	__u64 dropped_records;
	__u32 first_cpu;
	__u32 nr_entries;
	__u32 entry_size;
	__u32 reserved;
};

#define KETW_STREAM_STATUS_FINAL	0x2

/**
 * struct ketw_stream_end - an END frame's data
 * @records:         RECORD frames the stream made in all.
 * @dropped_frames:  frames it could not send, in all.
 * @dropped_records: of those, RECORD frames.
 *
 * The END frame's sequence number is the count of frames before it
 * (the first frame of a stream has sequence number 0).
 */
struct ketw_stream_end {
	__u64 records;
	__u64 dropped_frames;
	__u64 dropped_records;
};

_Static_assert(sizeof(struct ketw_stream_hello) == 24, "stream ABI");
_Static_assert(sizeof(struct ketw_stream_status) == 64, "stream ABI");
_Static_assert(sizeof(struct ketw_stream_end) == 24, "stream ABI");

#endif /* _KETW_STREAM_H */
