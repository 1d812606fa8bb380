// SPDX-License-Identifier: GPL-2.0
/*
 * ketw-fault-proxy: a TCP proxy between 'ketw stream' and 'ketw listen'
 * that damages the stream on purpose, frame by frame, from a fixed seed,
 * and says exactly what it did, so that a test can hold the collector to
 * it (tools/tests/test_stream.c on the host, selftests/ketw/stream_test.c
 * in the guest).
 *
 *   ketw-fault-proxy -t HOST:PORT [-l PORT] [-s SEED] [-f FLIP] [-d DROP]
 *                    [-u DUP] [-r TRUNC] [-x CUT] [-X MAXCUTS] [-c CONNS]
 *
 * It listens on 127.0.0.1 (-l, default any port; it prints "port N"),
 * and relays each connection to -t. It splits what the sender writes at
 * the flags (it knows the framing: Documentation/ketw-stream.rst) and,
 * per RECORD or STATUS frame, with these chances in thousandths: -f
 * flips a bit (of a byte that neither is nor becomes a flag or an
 * escape: the frame stays one frame, with a bad checksum), -d drops it
 * whole, -u sends it twice, -r sends a part of it and a flag (a bad
 * frame), -x sends a part of it and cuts both connections (at most -X
 * times; the sender reconnects). PREAMBLE and END frames pass. After -c
 * connections (default 1) that their sender ended (a cut one does not
 * count) it prints one line and exits:
 *
 *   proxy: frames=N passed=N flipped=N dropped=N duplicated=N
 *          truncated=N cuts=N records=N
 *
 * records: RECORD frames relayed intact (their first copy).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FLAG	0x7e
#define ESC	0x7d
#define MAXF	(2 * (9 + 65536) + 2)	/* a frame on the wire, at most */

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static struct {
	unsigned long frames, passed, flipped, dropped, duplicated;
	unsigned long truncated, cuts, records;
} n;

static unsigned int p_flip, p_drop, p_dup, p_trunc, p_cut, max_cuts;

static int out_fd = -1;

static void die(const char *what)
{
	fprintf(stderr, "proxy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void send_all(const unsigned char *p, size_t len)
{
	ssize_t w;

	while (len) {
		w = send(out_fd, p, len, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* the listener went: nothing to do */
		p += w;
		len -= w;
	}
}

static bool special(unsigned char c)
{
	return c == FLAG || c == ESC;
}

/* seq and type of a raw frame (its bytes, its flag excluded). */
static int frame_type(const unsigned char *p, size_t len)
{
	unsigned char u[5];
	size_t i, k = 0;

	for (i = 0; i < len && k < 5; i++)
		u[k++] = p[i] == ESC && i + 1 < len ? p[++i] ^ 0x20 : p[i];
	return k == 5 ? u[4] : -1;
}

/*
 * One frame as it came (@len bytes and its flag): relay it, or what the
 * dice say. Returns false to cut the connections.
 */
static bool frame(unsigned char *p, size_t len)
{
	int type = frame_type(p, len);
	bool damageable = type == 2 || type == 3;
	uint32_t r = rnd() % 1000, i, bit, cut = 0;

	if (!len) {			/* the flag that opens a connection */
		send_all(p, 1);
		return true;
	}
	n.frames++;
	if (damageable && r < p_flip) {
		for (;;) {
			i = rnd() % len;
			bit = 1u << (rnd() % 8);
			if (!special(p[i]) && !special(p[i] ^ bit))
				break;
		}
		p[i] ^= bit;
		send_all(p, len + 1);
		n.flipped++;
		return true;
	}
	r -= damageable ? p_flip : 0;
	if (damageable && r < p_drop) {
		n.dropped++;
		return true;
	}
	r -= damageable ? p_drop : 0;
	if (damageable && r < p_dup) {
		send_all(p, len + 1);
		send_all(p, len + 1);
		n.duplicated++;
		n.records += type == 2;
		return true;
	}
	r -= damageable ? p_dup : 0;
	if (damageable && len > 1 && r < p_trunc) {
		unsigned char flag = FLAG;

		i = 1 + rnd() % (len - 1);
		if (p[i - 1] == ESC)
			p[i - 1] = 0;	/* an escape then a flag is an abort */
		send_all(p, i);
		send_all(&flag, 1);
		n.truncated++;
		return true;
	}
	r -= damageable ? p_trunc : 0;
	if (damageable && len > 1 && n.cuts < max_cuts && r < p_cut)
		cut = 1;
	if (cut) {
		send_all(p, 1 + rnd() % (len - 1));
		n.cuts++;
		return false;
	}
	send_all(p, len + 1);
	n.passed++;
	n.records += type == 2;
	return true;
}

static int connect_to(const char *target)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char host[256];
	const char *colon = strrchr(target, ':');
	int fd;

	if (!colon || (size_t)(colon - target) >= sizeof(host)) {
		fprintf(stderr, "proxy: -t %s: not HOST:PORT\n", target);
		exit(2);
	}
	memcpy(host, target, colon - target);
	host[colon - target] = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &res)) {
		fprintf(stderr, "proxy: -t %s: cannot resolve\n", target);
		exit(1);
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen))
		die("connect");
	freeaddrinfo(res);
	return fd;
}

/* Relay one connection; false if it was cut. */
static bool relay(int in, const char *target)
{
	static unsigned char buf[2 * MAXF], rd[65536];
	size_t have = 0, i;
	struct pollfd p[2];
	ssize_t r;

	out_fd = connect_to(target);
	for (;;) {
		p[0] = (struct pollfd){ .fd = in, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = out_fd, .events = POLLIN };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[1].revents) {
			/* The collector's acknowledgment: back to the sender. */
			r = read(out_fd, rd, sizeof(rd));
			if (r <= 0)
				break;		/* the listener went */
			if (send(in, rd, r, MSG_NOSIGNAL) < 0)
				break;
		}
		if (!p[0].revents)
			continue;
		r = read(in, rd, sizeof(rd));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;			/* the sender is done */
		for (i = 0; i < (size_t)r; i++) {
			if (have == sizeof(buf)) {	/* no flag: junk */
				send_all(buf, have);
				have = 0;
			}
			buf[have++] = rd[i];
			if (rd[i] != FLAG)
				continue;
			if (!frame(buf, have - 1)) {
				close(out_fd);
				close(in);
				return false;
			}
			have = 0;
		}
	}
	send_all(buf, have);
	close(out_fd);
	close(in);
	return true;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	const char *target = NULL;
	unsigned int conns = 1, done = 0, port = 0;
	socklen_t len = sizeof(a);
	int c, lfd, fd, one = 1, rcvbuf = 16384;

	rng = 1;
	while ((c = getopt(argc, argv, "t:l:s:f:d:u:r:x:X:c:")) != -1) {
		switch (c) {
		case 't': target = optarg; break;
		case 'l': port = strtoul(optarg, NULL, 0); break;
		case 's': rng = strtoull(optarg, NULL, 0) * 2 + 1; break;
		case 'f': p_flip = strtoul(optarg, NULL, 0); break;
		case 'd': p_drop = strtoul(optarg, NULL, 0); break;
		case 'u': p_dup = strtoul(optarg, NULL, 0); break;
		case 'r': p_trunc = strtoul(optarg, NULL, 0); break;
		case 'x': p_cut = strtoul(optarg, NULL, 0); break;
		case 'X': max_cuts = strtoul(optarg, NULL, 0); break;
		case 'c': conns = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s -t HOST:PORT [-l PORT] [-s SEED] [-f FLIP] [-d DROP] [-u DUP] [-r TRUNC] [-x CUT] [-X MAXCUTS] [-c CONNS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!target || p_flip + p_drop + p_dup + p_trunc + p_cut > 1000) {
		fprintf(stderr, "proxy: -t is needed; the chances add up to 1000 at most\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A small window: frames wait at the sender, not in flight. */
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(port);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4))
		die("bind");
	getsockname(lfd, (struct sockaddr *)&a, &len);
	printf("port %u\n", ntohs(a.sin_port));
	fflush(stdout);
	while (done < conns) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		if (relay(fd, target))
			done++;
	}
	printf("proxy: frames=%lu passed=%lu flipped=%lu dropped=%lu duplicated=%lu truncated=%lu cuts=%lu records=%lu\n",
	       n.frames, n.passed, n.flipped, n.dropped, n.duplicated,
	       n.truncated, n.cuts, n.records);
	return 0;
}
