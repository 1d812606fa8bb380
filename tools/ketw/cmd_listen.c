// SPDX-License-Identifier: GPL-2.0
/*
 * ketw listen: a collector of streams (Documentation/ketw-stream.rst)
 * from many machines at once, over TCP and serial lines, each written
 * into a trace file of its own through libketw's stream receiver (the
 * incremental trace file writer).
 *
 * One epoll loop serves every source. It reads at most one buffer from
 * each ready source per turn, so a sender that floods it (garbage at
 * full speed) gets its share and no more, and one that stalls mid-frame
 * costs nothing; nothing blocks. Memory is bounded per source: its
 * decoder's buffer (one frame), its stream's writer (--max-memory), the
 * rundown kept for rotation and the counters of at most LISTEN_MAX_CPUS
 * CPUs; and the sources are bounded (--max-conn). A TCP source must say
 * who it is (a PREAMBLE) within LISTEN_HELLO_BYTES and LISTEN_HELLO_SECS.
 *
 * A stream that comes back over a new connection (its sender lost the
 * last one) goes on in the same file; one gone for LISTEN_DETACHED_SECS
 * is closed, as are all at exit (SIGINT, SIGTERM, SIGHUP, or -c streams
 * complete). Files are rotated by size or age (--rotate-size,
 * --rotate-time), each chunk complete and decodable alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define LISTEN_PORT		7473
#define LISTEN_MAX_CONN		64
#define LISTEN_MAX_CPUS		8192
#define LISTEN_HELLO_BYTES	(1u << 20)
#define LISTEN_HELLO_SECS	10
#define LISTEN_DETACHED_SECS	60
#define LISTEN_READ		65536	/* a source's share of a turn */
#define LISTEN_FLUSH_NS		200000000ull
#define LISTEN_MEMORY		(1u << 20)	/* a stream's writer */

enum {
	LISTEN_OPT_SERIAL = 0x200,
	LISTEN_OPT_BAUD,
	LISTEN_OPT_MAX_CONN,
	LISTEN_OPT_MAX_MEMORY,
	LISTEN_OPT_ROTATE_SIZE,
	LISTEN_OPT_ROTATE_TIME,
};

struct listen_stream;

/* A source of bytes: a TCP connection, a serial line. */
struct listen_conn {
	int fd;
	bool serial;
	bool pollable;			/* epoll takes it (not a file) */
	char name[80];			/* the peer, or the device */
	struct ketw_frame_decoder dec;
	unsigned char *buf;		/* the decoder's: one frame */
	struct ketw_frame_stats last;	/* counters handed to streams so far */
	struct listen_stream *stream;	/* whose frames come now */
	uint64_t start_ns;
	uint64_t orphans;		/* good frames of no known stream */
	bool done;			/* its stream ended: close it */
	struct listen_conn *next;
};

/* A stream being written. */
struct listen_stream {
	struct ketw_stream_rx *rx;
	struct cli_rotate rot;		/* its files */
	struct listen_conn *conn;	/* feeding it now, or NULL */
	uint64_t detached_ns;		/* since when none does */
	bool dirty;			/* frames since the last flush */
	bool dead;			/* its file failed: frames dropped */
	struct listen_stream *next;
};

struct listen {
	const char *dir;
	int epfd, lfd;
	struct listen_conn *conns;
	struct listen_stream *streams;
	unsigned int nr_conns, max_conn, nr_streams;
	size_t max_memory;
	struct cli_rotate_opts rotate;
	uint64_t complete, want_complete;
	uint64_t refused;
	bool quiet;
	unsigned char rbuf[LISTEN_READ];
};

/* ---- streams ---- */

/* File names take [A-Za-z0-9_.-]; anything else becomes '_'. */
static void listen_clean(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			 (c == '.' && i) ? c : '_';
	}
	dst[i] = '\0';
	if (!i)
		snprintf(dst, size, "_");
}

static struct listen_stream *listen_find(struct listen *l, uint64_t id)
{
	struct listen_stream *s;

	for (s = l->streams; s; s = s->next)
		if (ketw_stream_rx_desc(s->rx)->hello.stream_id == id)
			return s;
	return NULL;
}

static void listen_say_stream(const struct listen *l,
			      const struct listen_stream *s, const char *what)
{
	const struct ketw_file_stream *c = ketw_stream_rx_counters(s->rx);

	if (l->quiet)
		return;
	printf("listen: %s: %s: %llu records; %llu frames, %llu bad, %llu missing, %llu duplicates, %llu oversize, %llu cut, %llu bytes skipped; sender dropped %llu frames (%llu records); %u connections\n",
	       s->rot.first, what, (unsigned long long)c->records,
	       (unsigned long long)c->frames,
	       (unsigned long long)c->bad_checksum,
	       (unsigned long long)c->seq_gaps,
	       (unsigned long long)c->duplicates,
	       (unsigned long long)c->oversize,
	       (unsigned long long)c->partial,
	       (unsigned long long)c->skipped,
	       (unsigned long long)c->dropped_frames,
	       (unsigned long long)c->dropped_records, c->connections);
	fflush(stdout);
}

/* Hand the decoder's counters since the last time to its stream. */
static void listen_attribute(struct listen_conn *c)
{
	struct ketw_frame_stats d, *n = &c->dec.st, *o = &c->last;

	if (!c->stream)
		return;
	d.bytes = n->bytes - o->bytes;
	d.frames = n->frames - o->frames;
	d.bad_checksum = n->bad_checksum - o->bad_checksum;
	d.seq_gaps = n->seq_gaps - o->seq_gaps;
	d.duplicates = n->duplicates - o->duplicates;
	d.oversize = n->oversize - o->oversize;
	d.partial = n->partial - o->partial;
	d.restarts = n->restarts - o->restarts;
	d.skipped = n->skipped - o->skipped;
	ketw_stream_rx_add_link(c->stream->rx, &d);
	*o = *n;
}

static void listen_stream_close(struct listen *l, struct listen_stream *s)
{
	struct listen_stream **pp;
	int err;

	if (s->conn) {
		listen_attribute(s->conn);
		s->conn->stream = NULL;
	}
	for (pp = &l->streams; *pp != s; pp = &(*pp)->next)
		;
	*pp = s->next;
	l->nr_streams--;
	listen_say_stream(l, s, ketw_stream_rx_complete(s->rx) ?
			  "complete" : "closed incomplete");
	err = ketw_stream_rx_close(s->rx);
	if (err)
		cli_error("cannot write %s: %s", s->rot.path, strerror(-err));
	cli_rotate_free(&s->rot);
	free(s);
}

/* A PREAMBLE of a stream not seen yet: its file. */
static struct listen_stream *listen_stream_new(struct listen *l,
					       struct listen_conn *c,
					       const struct ketw_stream_desc *d)
{
	const struct ketw_file_header *h = &d->hdr;
	char host[64], session[KETW_NAME_MAX], base[PATH_MAX];
	struct listen_stream *s;
	int err;

	if (h->nr_cpus > LISTEN_MAX_CPUS) {
		cli_error("%s: a stream of %u cpus; this collector takes %u at most",
			  c->name, h->nr_cpus, LISTEN_MAX_CPUS);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		cli_error("out of memory");
		return NULL;
	}
	listen_clean(host, sizeof(host), h->hostname);
	listen_clean(session, sizeof(session), h->session.name);
	if ((size_t)snprintf(base, sizeof(base), "%s/%s-%s-%016llx", l->dir,
			     host, session,
			     (unsigned long long)d->hello.stream_id) >=
	    sizeof(base) - 16) {
		cli_error("%s: file name too long", l->dir);
		free(s);
		return NULL;
	}
	err = cli_rotate_init(&s->rot, base, ".ketw", &l->rotate, true);
	if (!err)
		err = ketw_stream_rx_create(s->rot.path, d, l->max_memory,
					    &s->rx);
	if (err) {
		cli_error("cannot create %s: %s", s->rot.path, strerror(-err));
		cli_rotate_free(&s->rot);
		free(s);
		return NULL;
	}
	s->next = l->streams;
	l->streams = s;
	l->nr_streams++;
	if (!l->quiet) {
		printf("listen: %s: stream %016llx of session '%s' on host '%s' (kernel %s) into %s\n",
		       c->name, (unsigned long long)d->hello.stream_id,
		       h->session.name, h->hostname, h->release, s->rot.path);
		fflush(stdout);
	}
	return s;
}

/* The stream's file is due to end (its size, its age): the next chunk. */
static void listen_rotate(struct listen_stream *s, uint64_t now)
{
	int err;

	if (s->dead ||
	    !cli_rotate_due(&s->rot, ketw_stream_rx_size(s->rx), now))
		return;
	/* The chunk's STREAM section: its counters so far. */
	if (s->conn)
		listen_attribute(s->conn);
	err = cli_rotate_next(&s->rot, now);
	if (!err)
		err = ketw_stream_rx_rotate(s->rx, s->rot.path);
	if (err) {
		cli_error("cannot rotate to %s: %s", s->rot.path,
			  strerror(-err));
		s->dead = true;
	}
}

/* ---- frames ---- */

static void listen_frame(struct listen *l, struct listen_conn *c,
			 const struct ketw_frame *f)
{
	struct listen_stream *s;
	struct ketw_stream_desc d;
	char err[128];
	int ret;

	if (f->type == KETW_FRAME_PREAMBLE) {
		ret = ketw_stream_preamble_parse(f, &d, err, sizeof(err));
		if (ret) {
			cli_error("%s: %s", c->name, err);
			c->orphans++;
			return;
		}
		s = listen_find(l, d.hello.stream_id);
		if (c->stream && c->stream != s) {
			/* A serial line: the next stream. */
			listen_attribute(c);
			c->stream->conn = NULL;
			c->stream->detached_ns = cli_now_ns();
			c->stream = NULL;
		}
		if (!s) {
			s = listen_stream_new(l, c, &d);
			if (!s) {
				c->orphans++;
				return;
			}
		}
		if (s->conn && s->conn != c) {
			/* The old connection is dead and not closed yet. */
			listen_attribute(s->conn);
			s->conn->stream = NULL;
		}
		s->conn = c;
		if (c->stream != s) {
			/* What came before the PREAMBLE: the stream's too. */
			c->stream = s;
			listen_attribute(c);
		}
	}
	s = c->stream;
	if (!s) {
		c->orphans++;
		return;
	}
	if (s->dead)
		return;
	ret = ketw_stream_rx_frame(s->rx, f);
	if (ret < 0 && ret != -EBADMSG) {
		cli_error("cannot write %s: %s; its frames are dropped from now on",
			  s->rot.path, strerror(-ret));
		s->dead = true;
		return;
	}
	s->dirty = true;
	if (ketw_stream_rx_complete(s->rx)) {
		listen_attribute(c);
		l->complete++;
		listen_stream_close(l, s);
		/* The sender waits for this to know the END arrived. */
		if (!c->serial) {
			static const unsigned char ack = KETW_STREAM_ACK;

			if (write(c->fd, &ack, 1) != 1)
				cli_error("%s: cannot acknowledge the end: %s",
					  c->name, strerror(errno));
			c->done = true;
		}
	}
}

/* ---- sources ---- */

static void listen_conn_close(struct listen *l, struct listen_conn *c,
			      const char *why)
{
	struct listen_conn **pp;

	ketw_frame_decoder_eof(&c->dec);
	listen_attribute(c);
	if (c->stream) {
		c->stream->conn = NULL;
		c->stream->detached_ns = cli_now_ns();
	}
	if (!l->quiet && why)
		printf("listen: %s: %s\n", c->name, why);
	if (c->pollable)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	for (pp = &l->conns; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	l->nr_conns--;
	free(c->buf);
	free(c);
}

static struct listen_conn *listen_conn_add(struct listen *l, int fd,
					   const char *name, bool serial)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct listen_conn *c = calloc(1, sizeof(*c));

	if (c)
		c->buf = malloc(KETW_FRAME_BUF_SIZE);
	if (!c || !c->buf) {
		if (c)
			free(c);
		close(fd);
		cli_error("out of memory");
		return NULL;
	}
	c->fd = fd;
	c->serial = serial;
	snprintf(c->name, sizeof(c->name), "%s", name);
	ketw_frame_decoder_init(&c->dec, c->buf, KETW_FRAME_BUF_SIZE);
	c->start_ns = cli_now_ns();
	ev.data.ptr = c;
	c->pollable = !epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev);
	c->next = l->conns;
	l->conns = c;
	l->nr_conns++;
	return c;
}

/* One turn of a source: one buffer, decoded. */
static void listen_read(struct listen *l, struct listen_conn *c)
{
	struct ketw_frame f;
	size_t off = 0, used;
	ssize_t n;
	int got;

	n = read(c->fd, l->rbuf, sizeof(l->rbuf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		listen_conn_close(l, c, n < 0 ? strerror(errno) :
				  c->serial ? "end of input" : "closed");
		return;
	}
	while (off < (size_t)n && !c->done) {
		used = ketw_frame_decode(&c->dec, l->rbuf + off, n - off, &f,
					 &got);
		off += used;
		if (got)
			listen_frame(l, c, &f);
	}
	if (c->done) {
		listen_conn_close(l, c, NULL);
		return;
	}
	/* By size: as the stream's sections go out, not a turn later. */
	if (c->stream && l->rotate.size)
		listen_rotate(c->stream, cli_now_ns());
	if (!c->serial && !c->stream && c->dec.st.bytes > LISTEN_HELLO_BYTES)
		listen_conn_close(l, c,
				  "no PREAMBLE in its first MiB: not a ketw stream; closed");
}

/* "127.0.0.1:7473" or "[::1]:7473". */
static void listen_addr_name(const struct sockaddr_storage *ss, char *buf,
			     size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const void *)ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(a->sin_port));
	}
}

static void listen_accept(struct listen *l)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char name[80];
	int fd;

	fd = accept4(l->lfd, (struct sockaddr *)&ss, &len,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (l->nr_conns >= l->max_conn) {
		l->refused++;
		close(fd);
		if (!l->quiet)
			printf("listen: refused a connection: %u connections already\n",
			       l->nr_conns);
		return;
	}
	listen_addr_name(&ss, name, sizeof(name));
	listen_conn_add(l, fd, name, false);
}

/* ---- upkeep ---- */

static void listen_upkeep(struct listen *l, uint64_t now)
{
	struct listen_stream *s, *sn;
	struct listen_conn *c, *cn;
	int err;

	for (c = l->conns; c; c = cn) {
		cn = c->next;
		if (!c->serial && !c->stream &&
		    now - c->start_ns > LISTEN_HELLO_SECS * 1000000000ull)
			listen_conn_close(l, c,
					  "no PREAMBLE within 10 s: closed");
	}
	for (s = l->streams; s; s = sn) {
		sn = s->next;
		if (s->conn)
			listen_attribute(s->conn);
		if (!s->conn &&
		    now - s->detached_ns > LISTEN_DETACHED_SECS * 1000000000ull) {
			listen_stream_close(l, s);
			continue;
		}
		if (s->dead)
			continue;
		if (s->dirty) {
			err = ketw_stream_rx_flush(s->rx);
			s->dirty = false;
			if (err) {
				cli_error("cannot write %s: %s", s->rot.path,
					  strerror(-err));
				s->dead = true;
				continue;
			}
		}
		listen_rotate(s, now);
	}
}

/* ---- opening ---- */

static int listen_bind(struct listen *l, const char *addr, const char *port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct addrinfo *res;
	int err, one = 1;

	err = getaddrinfo(addr, port, &hints, &res);
	if (err)
		return cli_error("-a %s -p %s: %s", addr, port,
				 gai_strerror(err));
	l->lfd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK |
			SOCK_CLOEXEC, 0);
	if (l->lfd < 0) {
		freeaddrinfo(res);
		return cli_error("socket: %s", strerror(errno));
	}
	setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l->lfd, res->ai_addr, res->ai_addrlen) ||
	    listen(l->lfd, 64)) {
		err = errno;
		freeaddrinfo(res);
		return cli_error("cannot listen on %s port %s: %s", addr, port,
				 strerror(err));
	}
	freeaddrinfo(res);
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->lfd, &ev))
		return cli_error("epoll: %s", strerror(errno));
	return 0;
}

static int listen_serial(struct listen *l, const char *dev, unsigned int baud)
{
	int fd = -1, ret = cli_serial_open(dev, true, baud, &fd);

	if (ret) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return listen_conn_add(l, fd, dev, true) ? 0 : CLI_EXIT_ERROR;
}

static void listen_summary(const struct listen *l)
{
	if (!l->quiet && l->refused)
		printf("listen: %llu connections refused (--max-conn %u)\n",
		       (unsigned long long)l->refused, l->max_conn);
}

int cmd_listen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "serial", required_argument, NULL, LISTEN_OPT_SERIAL },
		{ "baud", required_argument, NULL, LISTEN_OPT_BAUD },
		{ "max-conn", required_argument, NULL, LISTEN_OPT_MAX_CONN },
		{ "max-memory", required_argument, NULL, LISTEN_OPT_MAX_MEMORY },
		{ "rotate-size", required_argument, NULL, LISTEN_OPT_ROTATE_SIZE },
		{ "rotate-time", required_argument, NULL, LISTEN_OPT_ROTATE_TIME },
		{ NULL, 0, NULL, 0 },
	};
	static struct listen l;
	const char *addr = "127.0.0.1", *port = NULL, *serials[8];
	struct sigaction old_sig[CLI_STOP_NR_SIGNALS];
	struct epoll_event evs[64];
	unsigned int nr_serials = 0, i, baud = 115200;
	uint64_t v, last_upkeep = 0, now;
	struct stat st;
	char portbuf[16];
	int c, n, timeout, ret = CLI_EXIT_OK;
	bool tcp = true;

	memset(&l, 0, sizeof(l));
	l.epfd = l.lfd = -1;
	l.max_conn = LISTEN_MAX_CONN;
	l.max_memory = LISTEN_MEMORY;
	while ((c = cli_getopt_long(argc, argv, "a:p:o:c:q", longopts,
				    &ret)) != -1) {
		int r = 0;

		switch (c) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			r = cli_opt_u64(argv[0], c, optarg, "a port", 0, 65535,
					&v);
			port = optarg;
			break;
		case 'o':
			l.dir = optarg;
			break;
		case 'c':
			r = cli_opt_u64(argv[0], c, optarg, "a number of streams",
					1, UINT32_MAX, &l.want_complete);
			break;
		case 'q':
			l.quiet = true;
			break;
		case LISTEN_OPT_SERIAL:
			if (nr_serials == sizeof(serials) / sizeof(serials[0]))
				r = cli_usage_error(argv[0], "--serial: at most 8");
			else
				serials[nr_serials++] = optarg;
			break;
		case LISTEN_OPT_BAUD:
			r = cli_opt_u64_named(argv[0], "--baud", optarg,
					      "a speed in baud", 50, 4000000,
					      &v);
			baud = (unsigned int)v;
			break;
		case LISTEN_OPT_MAX_CONN:
			r = cli_opt_u64_named(argv[0], "--max-conn", optarg,
					      "a number of connections", 1,
					      65536, &v);
			l.max_conn = (unsigned int)v;
			break;
		case LISTEN_OPT_MAX_MEMORY:
			r = cli_opt_u64_named(argv[0], "--max-memory", optarg,
					      "a number of KiB",
					      KETW_OUTPUT_LIMIT_MIN / 1024,
					      1u << 22, &v);
			l.max_memory = (size_t)v * 1024;
			break;
		case LISTEN_OPT_ROTATE_SIZE:
		case LISTEN_OPT_ROTATE_TIME:
			r = cli_rotate_option(argv[0], &l.rotate,
					      c == LISTEN_OPT_ROTATE_SIZE,
					      optarg);
			break;
		default:
			return ret;
		}
		if (r)
			return r;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
				       argv[optind]);
	if (!l.dir)
		return cli_usage_error(argv[0], "-o DIR: where the files go");
	if (stat(l.dir, &st) || !S_ISDIR(st.st_mode))
		return cli_error("-o %s: not a directory", l.dir);
	/* Serial lines only, unless an address or a port was asked for. */
	if (nr_serials && !port && strcmp(addr, "127.0.0.1") == 0)
		tcp = false;
	if (!port) {
		snprintf(portbuf, sizeof(portbuf), "%u", LISTEN_PORT);
		port = portbuf;
	}

	l.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l.epfd < 0)
		return cli_error("epoll: %s", strerror(errno));
	if (tcp) {
		ret = listen_bind(&l, addr, port);
		if (ret)
			goto out;
		if (!l.quiet) {
			struct sockaddr_storage ss;
			socklen_t len = sizeof(ss);
			char name[80], *colon;

			getsockname(l.lfd, (struct sockaddr *)&ss, &len);
			listen_addr_name(&ss, name, sizeof(name));
			colon = strrchr(name, ':');
			*colon = '\0';
			printf("listen: on %s port %s, files into %s\n", name,
			       colon + 1, l.dir);
		}
	}
	for (i = 0; i < nr_serials; i++) {
		ret = listen_serial(&l, serials[i], baud);
		if (ret)
			goto out;
		if (!l.quiet)
			printf("listen: reading %s, files into %s\n", serials[i],
			       l.dir);
	}
	fflush(stdout);

	cli_stop_signals_catch(old_sig);
	while (!cli_stop &&
	       !(l.want_complete && l.complete >= l.want_complete)) {
		struct listen_conn *conn, *next;
		bool files = false;

		for (conn = l.conns; conn; conn = conn->next)
			files |= !conn->pollable;
		timeout = files ? 0 : 100;
		n = epoll_wait(l.epfd, evs, sizeof(evs) / sizeof(evs[0]),
			       timeout);
		if (n < 0 && errno != EINTR) {
			ret = cli_error("epoll: %s", strerror(errno));
			break;
		}
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			if (!evs[i].data.ptr)
				listen_accept(&l);
		}
		/*
		 * Sources after the listener: a source read in this turn may
		 * be closed by it, so they are looked up by their readiness.
		 */
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			conn = evs[i].data.ptr;
			if (!conn)
				continue;
			for (next = l.conns; next && next != conn;
			     next = next->next)
				;
			if (next)
				listen_read(&l, conn);
		}
		for (conn = l.conns; conn; conn = next) {
			next = conn->next;
			if (!conn->pollable)
				listen_read(&l, conn);
		}
		now = cli_now_ns();
		if (now - last_upkeep >= LISTEN_FLUSH_NS) {
			listen_upkeep(&l, now);
			last_upkeep = now;
		}
	}
	cli_stop_signals_restore(old_sig);
out:
	/* Sources first: what they had begun counts for their streams. */
	while (l.conns)
		listen_conn_close(&l, l.conns, NULL);
	while (l.streams)
		listen_stream_close(&l, l.streams);
	listen_summary(&l);
	if (l.lfd >= 0)
		close(l.lfd);
	if (l.epfd >= 0)
		close(l.epfd);
	return ret;
}
