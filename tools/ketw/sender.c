// SPDX-License-Identifier: GPL-2.0
/*
 * ketw stream's sending side: frames (Documentation/ketw-stream.rst) to a
 * file, a pipe, a serial line or a TCP peer.
 *
 * Frames wait in a bounded queue, raw (type and data), and are numbered
 * and encoded only when they go out, so that a frame the sender had to
 * drop takes no sequence number, and one cut by a lost connection is the
 * only one the receiver misses for it. Every connection opens with a
 * flag, the PREAMBLE (connection number +1) and the last STATUS, whose
 * counters say what was dropped so far.
 *
 * Files, pipes and serial lines are written in blocking mode: a slow
 * line slows the drain and the kernel's buffers take the difference
 * (counting what they lose). A TCP peer is written without blocking: the
 * queue takes what it cannot take now, up to its bound; past it frames
 * are dropped and counted. A peer that goes away is reconnected, after
 * 100 ms, then twice as long each time up to 5 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sender.h"

#define SENDER_BACKOFF_MIN_MS	100
#define SENDER_BACKOFF_MAX_MS	5000
/* A queue entry: this, then the data padded to 8. */
struct sender_entry {
	uint32_t len;
	uint8_t type;		/* 0: the rest of the queue's end is unused */
	uint8_t pad[3];
};

#define SENDER_ENTRY_SPAN(len) \
	(sizeof(struct sender_entry) + (((len) + 7) & ~(size_t)7))

/* ---- the queue: a ring of entries, never split at its end ---- */

static size_t sender_queue_free(const struct cli_sender *s)
{
	return s->qcap - s->qlen;
}

static bool sender_queue_put(struct cli_sender *s, unsigned int type,
			     const void *a, size_t alen, const void *b,
			     size_t blen)
{
	size_t need = SENDER_ENTRY_SPAN(alen + blen), tail, room;
	struct sender_entry e = { .len = alen + blen, .type = type };
	unsigned char *p;

	tail = (s->qhead + s->qlen) % s->qcap;
	room = s->qcap - tail;
	if (s->qlen && tail <= s->qhead)
		room = s->qhead - tail;
	if (room < need && !(s->qlen && tail <= s->qhead)) {
		/* Not enough before the end: mark it unused, go round. */
		if (sender_queue_free(s) - room < need)
			return false;
		if (room >= sizeof(e)) {
			struct sender_entry skip = { .type = 0 };

			memcpy(s->q + tail, &skip, sizeof(skip));
		}
		s->qlen += room;
		tail = 0;
		room = s->qhead;
	}
	if (room < need)
		return false;
	p = s->q + tail;
	memcpy(p, &e, sizeof(e));
	memcpy(p + sizeof(e), a, alen);
	if (blen)
		memcpy(p + sizeof(e) + alen, b, blen);
	s->qlen += need;
	return true;
}

/* The entry at the head (skipping an unused end), or NULL. */
static const struct sender_entry *sender_queue_head(struct cli_sender *s)
{
	struct sender_entry e;

	while (s->qlen) {
		size_t left = s->qcap - s->qhead;

		if (left < sizeof(e)) {
			s->qlen -= left;
			s->qhead = 0;
			continue;
		}
		memcpy(&e, s->q + s->qhead, sizeof(e));
		if (e.type == 0) {
			s->qlen -= left;
			s->qhead = 0;
			continue;
		}
		return (const void *)(s->q + s->qhead);
	}
	return NULL;
}

static void sender_queue_pop(struct cli_sender *s, size_t len)
{
	size_t span = SENDER_ENTRY_SPAN(len);

	s->qhead = (s->qhead + span) % s->qcap;
	s->qlen -= span;
	if (!s->qlen)
		s->qhead = 0;
}

/* ---- the link ---- */

/*
 * Measure the trace clock against CLOCK_REALTIME into a STATUS's
 * fields; its flag, or 0 (a clock user space cannot read).
 */
static uint32_t sender_offset(const struct cli_sender *s, __s64 *offset,
			      __u64 *at)
{
	uint64_t c, r;

	if (ketw_clock_ref_now(s->clock, &c, &r))
		return 0;
	*offset = (int64_t)(r - c);
	*at = c;
	return KETW_STREAM_F_OFFSET;
}

static void sender_drop(struct cli_sender *s, unsigned int type)
{
	s->dropped_frames++;
	if (type == KETW_FRAME_RECORD)
		s->dropped_records++;
}

/* Frames wholly written: count them, forget them. */
static void sender_wire_written(struct cli_sender *s)
{
	while (s->wire_done < s->wire_frames &&
	       s->wire_end[s->wire_done] <= s->wire_off) {
		if (s->wire_type[s->wire_done] == KETW_FRAME_END)
			s->end_state = CLI_END_SENT;
		s->wire_done++;
	}
	if (s->wire_off == s->wire_len) {
		s->frames_sent += s->wire_frames;
		s->wire_len = s->wire_off = 0;
		s->wire_frames = s->wire_done = 0;
	}
}

/* Encode a frame into the wire buffer; false if it would not fit. */
static bool sender_wire_frame(struct cli_sender *s, unsigned int type,
			      const void *data, size_t len)
{
	ssize_t n;

	if (s->wire_frames == CLI_SENDER_BATCH ||
	    CLI_SENDER_WIRE - s->wire_len < KETW_FRAME_WIRE_MAX(len))
		return false;
	n = ketw_frame_encode(&s->enc, type, data, len, s->wire + s->wire_len,
			      CLI_SENDER_WIRE - s->wire_len);
	if (n < 0)
		return false;	/* checked when queued: cannot happen */
	s->wire_len += n;
	s->wire_end[s->wire_frames] = s->wire_len;
	s->wire_type[s->wire_frames++] = type;
	s->bytes_sent += n;
	return true;
}

static void sender_status_frames(struct cli_sender *s, bool to_wire);

static void sender_end_data(const struct cli_sender *s,
			    struct ketw_stream_end *e)
{
	e->records = s->records;
	e->dropped_frames = s->dropped_frames;
	e->dropped_records = s->dropped_records;
}

/* A new connection: flag, PREAMBLE, the last STATUS, before the queue. */
static void sender_opened(struct cli_sender *s)
{
	struct ketw_stream_hello hello = s->hello;

	hello.connection = s->connections++;
	memcpy(s->preamble + s->hdr_len, &hello, sizeof(hello));
	ketw_frame_encoder_restart(&s->enc);
	s->wire_len = s->wire_off = 0;
	s->wire_frames = s->wire_done = 0;
	sender_wire_frame(s, KETW_FRAME_PREAMBLE, s->preamble,
			  s->hdr_len + sizeof(hello));
	if (s->connections > 1)
		sender_status_frames(s, true);
	/* The END the last connection lost: again, with what we know now. */
	if (s->end_state == CLI_END_RESEND) {
		struct ketw_stream_end e;

		sender_end_data(s, &e);
		sender_wire_frame(s, KETW_FRAME_END, &e, sizeof(e));
		s->end_state = CLI_END_QUEUED;
	}
	s->backoff_ms = 0;
	s->said_down = false;
}

/* The connection is gone: what it was writing is lost. */
static void sender_down(struct cli_sender *s, int err)
{
	unsigned int i;

	for (i = s->wire_done; i < s->wire_frames; i++) {
		sender_drop(s, s->wire_type[i]);
		if (s->wire_type[i] == KETW_FRAME_END)
			s->end_state = CLI_END_RESEND;
	}
	/* Written, not acknowledged: the peer may not have it. */
	if (s->end_state == CLI_END_SENT)
		s->end_state = CLI_END_RESEND;
	s->frames_sent += s->wire_done;
	s->wire_len = s->wire_off = 0;
	s->wire_frames = s->wire_done = 0;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->connecting = false;
	s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 :
			SENDER_BACKOFF_MIN_MS;
	if (s->backoff_ms > SENDER_BACKOFF_MAX_MS)
		s->backoff_ms = SENDER_BACKOFF_MAX_MS;
	s->next_try = cli_now_ns() + s->backoff_ms * 1000000ull;
	if (!s->said_down) {
		cli_error("%s: %s; reconnecting", s->target, strerror(err));
		s->said_down = true;
	}
	s->reconnects++;
}

static void sender_connect(struct cli_sender *s)
{
	int fd, one = 1, sndbuf = CLI_SENDER_SNDBUF;

	if (cli_now_ns() < s->next_try)
		return;
	fd = socket(s->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
	if (fd < 0) {
		sender_down(s, errno);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/*
	 * What the kernel holds for the peer is lost with the connection,
	 * unknown to us; what waits in the queue is not. Keep the first
	 * small.
	 */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	s->fd = fd;
	if (connect(fd, (struct sockaddr *)&s->addr, s->addrlen) == 0) {
		sender_opened(s);
		return;
	}
	if (errno == EINPROGRESS) {
		s->connecting = true;
		return;
	}
	sender_down(s, errno);
}

/* A connect in progress: done, failed, or not yet. */
static void sender_connect_check(struct cli_sender *s, int wait_ms)
{
	struct pollfd p = { .fd = s->fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0;

	if (poll(&p, 1, wait_ms) <= 0)
		return;
	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		sender_down(s, err ? err : errno);
		return;
	}
	s->connecting = false;
	sender_opened(s);
}

/* Fill the wire buffer from the queue. */
static void sender_refill(struct cli_sender *s)
{
	const struct sender_entry *e;

	while (s->wire_len < CLI_SENDER_FILL && (e = sender_queue_head(s))) {
		if (!sender_wire_frame(s, e->type, e + 1, e->len))
			break;
		sender_queue_pop(s, e->len);
	}
}

/*
 * Write what can be written. @wait_ms: how long a TCP peer may keep us
 * waiting for room (0: not at all). Returns 0, or -errno of a file or
 * serial line (fatal).
 */
static int sender_pump(struct cli_sender *s, int wait_ms)
{
	uint64_t until = cli_now_ns() + (uint64_t)wait_ms * 1000000ull;
	struct pollfd p;
	ssize_t n;
	int left;

	for (;;) {
		if (s->kind == CLI_LINK_TCP && s->fd < 0) {
			sender_connect(s);
			if (s->fd < 0)
				return 0;
		}
		if (s->connecting) {
			left = (int)((until - cli_now_ns()) / 1000000ull);
			sender_connect_check(s, cli_now_ns() < until ? left : 0);
			if (s->fd < 0 || s->connecting)
				return 0;
		}
		if (s->wire_off == s->wire_len)
			sender_refill(s);
		if (s->wire_off == s->wire_len)
			return 0;
		if (s->kind == CLI_LINK_TCP)
			n = send(s->fd, s->wire + s->wire_off,
				 s->wire_len - s->wire_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			n = write(s->fd, s->wire + s->wire_off,
				  s->wire_len - s->wire_off);
		if (n > 0) {
			s->wire_off += n;
			sender_wire_written(s);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (s->kind != CLI_LINK_TCP)
			return n < 0 ? -errno : -EIO;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (cli_now_ns() >= until)
				return 0;
			p.fd = s->fd;
			p.events = POLLOUT;
			left = (int)((until - cli_now_ns()) / 1000000ull);
			poll(&p, 1, left ? left : 1);
			continue;
		}
		sender_down(s, n < 0 ? errno : EPIPE);
		return 0;
	}
}

/* ---- frames ---- */

/*
 * Queue a frame; when the queue is full, write first (a file or a serial
 * line: as long as it takes; a TCP peer: up to 100 ms), then drop it.
 */
static int sender_put2(struct cli_sender *s, unsigned int type,
		       const void *a, size_t alen, const void *b, size_t blen)
{
	int err;

	if (alen + blen > KETW_FRAME_MAX_DATA)
		return -EMSGSIZE;
	if (sender_queue_put(s, type, a, alen, b, blen))
		return 0;
	/* A slow peer may keep one put a pass waiting, not every one. */
	err = sender_pump(s, s->kind == CLI_LINK_TCP && s->fd >= 0 &&
			     !s->congested ? 100 : 0);
	if (err)
		return err;
	while (s->kind != CLI_LINK_TCP && s->wire_len) {
		err = sender_pump(s, 0);	/* blocking: until written */
		if (err)
			return err;
	}
	if (sender_queue_put(s, type, a, alen, b, blen))
		return 0;
	s->congested = true;
	sender_drop(s, type);
	return 0;
}

int cli_sender_record(struct cli_sender *s, const struct ketw_record *rec)
{
	s->records++;
	return sender_put2(s, KETW_FRAME_RECORD, rec->hdr, rec->span, NULL, 0);
}

/*
 * STATUS frames of the kernel's counters (s->stats), the sender's own
 * counters as they are now: into the queue, or (a new connection) only
 * the first straight onto the wire, after its PREAMBLE.
 */
static void sender_status_frames(struct cli_sender *s, bool to_wire)
{
	struct ketw_stream_status st = {
		.size = sizeof(st),
		.flags = s->stats_final ? KETW_STREAM_STATUS_FINAL : 0,
		.records = s->records,
		.dropped_frames = s->dropped_frames,
		.dropped_records = s->dropped_records,
		.entry_size = sizeof(struct ketw_file_cpu_stats),
	};
	unsigned int first = 0, n, per = (KETW_FRAME_MAX_DATA - sizeof(st)) /
					  sizeof(struct ketw_file_cpu_stats);

	st.flags |= sender_offset(s, &st.realtime_offset, &st.offset_at);
	do {
		n = s->nr_stats - first < per ? s->nr_stats - first : per;
		st.first_cpu = first;
		st.nr_entries = n;
		if (to_wire) {
			memcpy(s->status_buf, &st, sizeof(st));
			memcpy(s->status_buf + sizeof(st), s->stats + first,
			       n * sizeof(*s->stats));
			sender_wire_frame(s, KETW_FRAME_STATUS, s->status_buf,
					  sizeof(st) + n * sizeof(*s->stats));
			return;
		}
		sender_put2(s, KETW_FRAME_STATUS, &st, sizeof(st),
			    s->stats + first, n * sizeof(*s->stats));
		first += n;
	} while (first < s->nr_stats);
}

int cli_sender_status(struct cli_sender *s, const struct ketw_cpu_stats *st,
		      const bool *valid, unsigned int nr, bool final)
{
	unsigned int i;

	if (nr > s->max_stats)
		nr = s->max_stats;
	for (i = 0; i < nr; i++)
		ketw_file_cpu_stats_set(&s->stats[i], &st[i],
					!valid || valid[i]);
	s->nr_stats = nr;
	s->stats_final = final;
	/* A receiver joining a serial line late learns how to decode. */
	if (s->kind == CLI_LINK_SERIAL) {
		struct ketw_stream_hello hello = s->hello;

		hello.connection = s->connections - 1;
		sender_put2(s, KETW_FRAME_PREAMBLE, s->preamble, s->hdr_len,
			    &hello, sizeof(hello));
	}
	sender_status_frames(s, false);
	return sender_pump(s, 0);
}

int cli_sender_end(struct cli_sender *s)
{
	struct ketw_stream_end e;

	sender_end_data(s, &e);
	s->end_state = CLI_END_QUEUED;
	return sender_put2(s, KETW_FRAME_END, &e, sizeof(e), NULL, 0);
}

/*
 * Over TCP the collector acknowledges END with a byte (KETW_STREAM_ACK)
 * and closes: wait up to @wait_ms for it. An end of the connection
 * without it means the END may be lost: reconnect, send it again.
 */
static void sender_wait_ack(struct cli_sender *s, int wait_ms)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	unsigned char b;
	ssize_t n;

	if (poll(&p, 1, wait_ms) <= 0)
		return;
	n = read(s->fd, &b, 1);
	if (n == 1 && b == KETW_STREAM_ACK) {
		s->end_state = CLI_END_ACKED;
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	sender_down(s, n < 0 ? errno : ECONNRESET);
}

int cli_sender_pump(struct cli_sender *s)
{
	s->congested = false;
	return sender_pump(s, 0);
}

bool cli_sender_idle(const struct cli_sender *s)
{
	return !s->qlen && s->wire_off == s->wire_len &&
	       (s->kind != CLI_LINK_TCP || s->end_state == CLI_END_NONE ||
		s->end_state == CLI_END_ACKED);
}

int cli_sender_finish(struct cli_sender *s, uint64_t deadline_ns,
		      volatile sig_atomic_t *stop)
{
	const struct sender_entry *e;
	int err = 0;

	while (!cli_sender_idle(s) && cli_now_ns() < deadline_ns &&
	       !(stop && *stop)) {
		err = sender_pump(s, 100);
		if (err)
			break;
		if (s->kind == CLI_LINK_TCP && s->fd >= 0 && !s->connecting &&
		    s->end_state == CLI_END_SENT)
			sender_wait_ack(s, 100);
		if (s->kind == CLI_LINK_TCP && s->fd < 0) {
			struct timespec t = { 0, 20 * 1000000L };

			nanosleep(&t, NULL);
		}
	}
	/* What is left could not be sent. */
	s->unsent = s->wire_frames - s->wire_done;
	if (s->kind == CLI_LINK_TCP && (s->end_state == CLI_END_SENT ||
					s->end_state == CLI_END_RESEND))
		s->unacked = true;
	while ((e = sender_queue_head(s))) {
		s->unsent++;
		sender_drop(s, e->type);
		sender_queue_pop(s, e->len);
	}
	return err;
}

/* ---- opening ---- */

static int sender_open_tcp(struct cli_sender *s, const char *target)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res;
	char host[256];
	const char *colon = strrchr(target, ':'), *h = target;
	size_t hlen;
	int err;

	if (!colon || colon == target || !colon[1])
		return cli_error("--to %s: not HOST:PORT", target);
	hlen = colon - target;
	if (target[0] == '[' && colon[-1] == ']') {	/* [::1]:port */
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		return cli_error("--to %s: host name too long", target);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(host, colon + 1, &hints, &res);
	if (err)
		return cli_error("--to %s: %s", target, gai_strerror(err));
	memcpy(&s->addr, res->ai_addr, res->ai_addrlen);
	s->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int cli_sender_open(struct cli_sender *s, const struct cli_sender_opts *o,
		    const struct ketw_file_header *hdr)
{
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->kind = o->kind;
	s->target = o->target;
	s->clock = hdr->clock;
	s->qcap = o->backlog ? o->backlog : CLI_SENDER_BACKLOG;
	s->q = malloc(s->qcap);
	s->wire = malloc(CLI_SENDER_WIRE);
	s->status_buf = malloc(KETW_FRAME_MAX_DATA);
	s->max_stats = hdr->nr_cpus;
	s->stats = calloc(hdr->nr_cpus, sizeof(*s->stats));
	if (!s->q || !s->wire || !s->status_buf || !s->stats)
		return cli_error("out of memory");
	memcpy(s->preamble, hdr, sizeof(*hdr));
	s->hdr_len = sizeof(*hdr);
	s->hello.magic = KETW_STREAM_MAGIC;
	s->hello.version_major = KETW_STREAM_VERSION_MAJOR;
	s->hello.version_minor = KETW_STREAM_VERSION_MINOR;
	s->hello.size = sizeof(s->hello);
	if (getrandom(&s->hello.stream_id, sizeof(s->hello.stream_id), 0) !=
	    sizeof(s->hello.stream_id))
		s->hello.stream_id = cli_now_ns() ^ ((uint64_t)getpid() << 32);
	ketw_frame_encoder_init(&s->enc, 0);

	switch (s->kind) {
	case CLI_LINK_FILE:
		if (!strcmp(o->target, "-")) {
			s->fd = dup(STDOUT_FILENO);
			if (s->fd < 0)
				return cli_error("stdout: %s", strerror(errno));
		} else {
			s->fd = open(o->target, O_WRONLY | O_CREAT | O_TRUNC |
				     O_CLOEXEC, 0644);
			if (s->fd < 0)
				return cli_error("cannot create %s: %s",
						 o->target, strerror(errno));
		}
		break;
	case CLI_LINK_SERIAL:
		err = cli_serial_open(o->target, false, o->baud, &s->fd);
		break;
	case CLI_LINK_TCP:
		err = sender_open_tcp(s, o->target);
		break;
	}
	if (err)
		return err;
	/* A pipe whose reader went: an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (s->kind != CLI_LINK_TCP)
		sender_opened(s);
	else
		sender_connect(s);
	return 0;
}

void cli_sender_close(struct cli_sender *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->q);
	free(s->wire);
	free(s->status_buf);
	free(s->stats);
	s->q = s->wire = s->status_buf = NULL;
	s->stats = NULL;
}
