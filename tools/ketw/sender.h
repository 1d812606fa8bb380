/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw stream's sending side (sender.c): frames to a file, a pipe, a
 * serial line or a TCP peer, through a bounded queue, reconnecting.
 */
#ifndef _KETW_SENDER_H
#define _KETW_SENDER_H

#include <signal.h>
#include <sys/socket.h>

#include "cli.h"

enum cli_link_kind { CLI_LINK_FILE, CLI_LINK_SERIAL, CLI_LINK_TCP };

/* Frames waiting to be sent, raw, at most (bytes): --backlog. */
#define CLI_SENDER_BACKLOG	(4u << 20)
/* Encoded frames in flight to the link at once. */
#define CLI_SENDER_WIRE		(2 * KETW_FRAME_WIRE_MAX(KETW_FRAME_MAX_DATA))
#define CLI_SENDER_BATCH	1024
/* The socket's send buffer (bytes): what a lost connection may lose. */
#define CLI_SENDER_SNDBUF	(64 * 1024)
/* Encoded at once from the queue (bytes), lost too with a connection. */
#define CLI_SENDER_FILL		(16 * 1024)

/* Where the END frame is (TCP: until the collector acknowledges it). */
enum cli_end_state {
	CLI_END_NONE,		/* not made yet */
	CLI_END_QUEUED,		/* queued, or being written */
	CLI_END_SENT,		/* written: waiting for the acknowledgment */
	CLI_END_RESEND,		/* its connection went first: send again */
	CLI_END_ACKED,		/* the collector has it */
};

struct cli_sender_opts {
	enum cli_link_kind kind;
	const char *target;	/* FILE or "-", HOST:PORT, DEV */
	size_t backlog;		/* 0: CLI_SENDER_BACKLOG */
	unsigned int baud;	/* serial lines that are terminals */
};

struct cli_sender {
	enum cli_link_kind kind;
	const char *target;
	int fd;			/* -1: no connection now */
	bool connecting;	/* a TCP connect in progress */
	bool said_down;		/* the loss of the peer was told */
	bool congested;		/* a put waited for the peer in vain */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint64_t next_try;	/* ns (CLOCK_MONOTONIC) of the next connect */
	unsigned int backoff_ms;

	struct ketw_frame_encoder enc;
	unsigned int clock;	/* KETW_CLOCK_* of the session */
	unsigned char preamble[sizeof(struct ketw_file_header) +
			       sizeof(struct ketw_stream_hello)];
	size_t hdr_len;
	struct ketw_stream_hello hello;	/* connection and clock filled in */

	/* The last kernel counters, sent again after a reconnection. */
	struct ketw_file_cpu_stats *stats;
	unsigned int nr_stats, max_stats;
	bool stats_final;
	unsigned char *status_buf;

	/* The queue: raw frames (struct sender_entry, data). */
	unsigned char *q;
	size_t qcap, qhead, qlen;

	/* Encoded frames being written, and where each ends. */
	unsigned char *wire;
	size_t wire_len, wire_off;
	size_t wire_end[CLI_SENDER_BATCH];
	uint8_t wire_type[CLI_SENDER_BATCH];
	unsigned int wire_frames, wire_done;

	uint64_t records;		/* RECORD frames made */
	uint64_t frames_sent;		/* frames wholly written */
	uint64_t bytes_sent;		/* bytes encoded for the link */
	uint64_t dropped_frames;	/* frames never (wholly) sent */
	uint64_t dropped_records;
	uint64_t connections;		/* made (TCP), or 1 */
	uint64_t reconnects;		/* connections lost */
	uint64_t unsent;		/* left when cli_sender_finish() gave up */
	enum cli_end_state end_state;
	bool unacked;			/* it gave up without the ack */
};

/*
 * Open the link of @o for a stream of @hdr (the file header its
 * PREAMBLE carries): 0, or 1 after a message. A TCP peer that is not
 * there yet is tried again as frames come.
 */
int cli_sender_open(struct cli_sender *s, const struct cli_sender_opts *o,
		    const struct ketw_file_header *hdr);
/* A record's frame; 0 or -errno of a file or serial line (fatal). */
int cli_sender_record(struct cli_sender *s, const struct ketw_record *rec);
/*
 * The kernel's counters (a serial line: the PREAMBLE again first, for a
 * receiver that joins late); @final after the session stopped and was
 * drained. Then writes what it can. 0 or -errno (fatal).
 */
int cli_sender_status(struct cli_sender *s, const struct ketw_cpu_stats *st,
		      const bool *valid, unsigned int nr, bool final);
/* The END frame; 0 or -errno. */
int cli_sender_end(struct cli_sender *s);
/* Write what the link takes now (reconnect when it is time): 0, -errno. */
int cli_sender_pump(struct cli_sender *s);
/* Nothing queued, nothing being written, END acknowledged (TCP). */
bool cli_sender_idle(const struct cli_sender *s);
/*
 * Write everything, reconnecting if need be, and (TCP) wait for the
 * collector's acknowledgment of END, sending it again over a new
 * connection if the last one ended without it; until @deadline_ns or
 * *@stop. What is left then is dropped and counted (s->unsent,
 * s->unacked). 0 or -errno.
 */
int cli_sender_finish(struct cli_sender *s, uint64_t deadline_ns,
		      volatile sig_atomic_t *stop);
void cli_sender_close(struct cli_sender *s);

#endif /* _KETW_SENDER_H */
