/* netem/probe.c: gcbench-probe, a TCP goodput and RTT probe for calibrating links.
 *
 *   gcbench-probe server [--bind ADDR] [--port P] [--once]
 *   gcbench-probe client --connect ADDR [--port P] [--time S] [--rtt N]
 *
 * Goodput: the client sends for S seconds, then closes its side; the server counts
 * the payload bytes and the time from the first byte to the end, and sends both back.
 * goodput_bps = 8 * bytes / seconds, measured at the receiver (TCP payload only: at
 * MTU 1500 that is at most 1448/1514 = 95.6% of a cap tc counts in layer-2 bytes).
 * RTT: N one-byte round trips (TCP_NODELAY), reported as median and minimum.
 * Output is one line of key=value pairs on stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "strutil.h"
#include "timing.h"

#define BUFSZ (256 * 1024)

struct popts {
	const char *mode, *addr;
	int port, once, rtt;
	double secs;
};

static int parse(int argc, char **argv, struct popts *o)
{
	int i;
	double d = 0;

	memset(o, 0, sizeof(*o));
	o->port = 5301;
	o->secs = 2;
	o->mode = argc > 1 ? argv[1] : "";
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--once")) {
			o->once = 1;
			continue;
		}
		if (v && (!strcmp(a, "--bind") || !strcmp(a, "--connect")))
			o->addr = v;
		else if (v && gc_parse_double(v, &d) == GC_OK && !strcmp(a, "--port") &&
			 d >= 1 && d <= 65535 && d == (int)d)
			o->port = (int)d;
		else if (v && gc_parse_double(v, &d) == GC_OK && !strcmp(a, "--time") &&
			 d > 0 && d <= 3600)
			o->secs = d;
		else if (v && gc_parse_double(v, &d) == GC_OK && !strcmp(a, "--rtt") &&
			 d >= 1 && d <= 1000000 && d == (int)d)
			o->rtt = (int)d;
		else {
			gc_error("bad option '%s %s'; see 'gcbench-probe --help'", a, v ? v : "");
			return 2;
		}
		i++;
	}
	return 0;
}

static int make_addr(const char *addr, int port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (!addr)
		return 0;
	if (inet_pton(AF_INET, addr, &sa->sin_addr) != 1) {
		gc_error("'%s' is not an IPv4 address", addr);
		return -1;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Serve one connection: the first byte says 'G' (goodput) or 'R' (rtt). */
static void serve(int c, char *buf)
{
	uint64_t bytes = 0, t0 = 0, t1, reply[2];
	ssize_t n;
	char mode;

	if (read(c, &mode, 1) != 1)
		return;
	if (mode == 'R') {
		while ((n = read(c, buf, 1)) == 1)
			if (write(c, buf, 1) != 1)
				break;
		return;
	}
	while ((n = read(c, buf, BUFSZ)) > 0 || (n < 0 && errno == EINTR)) {
		if (n <= 0)
			continue;
		if (!t0)
			t0 = gc_now_ns();
		bytes += (uint64_t)n;
	}
	t1 = gc_now_ns();
	reply[0] = bytes;
	reply[1] = t0 ? t1 - t0 : 0;
	write_all(c, reply, sizeof(reply));
}

static int server(const struct popts *o)
{
	struct sockaddr_in sa;
	int s, c, one = 1;
	char *buf = malloc(BUFSZ);

	if (!buf || make_addr(o->addr, o->port, &sa))
		return 1;
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 8)) {
		gc_error("cannot listen on %s:%d: %s", o->addr ? o->addr : "0.0.0.0", o->port,
			 strerror(errno));
		free(buf);
		return 1;
	}
	printf("listening=%s:%d\n", o->addr ? o->addr : "0.0.0.0", o->port);
	fflush(stdout);
	do {
		c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		serve(c, buf);
		close(c);
	} while (!o->once);
	close(s);
	free(buf);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int client_rtt(int s, int n)
{
	uint64_t *t = calloc((size_t)n, sizeof(*t)), t0;
	char b = 'x';
	int i = 0, one = 1;

	if (!t)
		return 1;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write(s, "R", 1) != 1)
		goto fail;
	for (i = 0; i < n; i++) {
		t0 = gc_now_ns();
		if (write(s, &b, 1) != 1 || read(s, &b, 1) != 1)
			goto fail;
		t[i] = gc_now_ns() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_u64);
	printf("rtt_s=%.9f rtt_min_s=%.9f samples=%d\n", t[n / 2] * 1e-9, t[0] * 1e-9, n);
	free(t);
	return 0;
fail:
	gc_error("rtt probe: connection lost after %d samples", i);
	free(t);
	return 1;
}

static int client_goodput(int s, double secs)
{
	char *buf = calloc(1, BUFSZ);
	uint64_t end = gc_now_ns() + (uint64_t)(secs * 1e9), sent = 0, reply[2];
	size_t got = 0;
	ssize_t n;

	if (!buf || write_all(s, "G", 1))
		goto fail;
	while (gc_now_ns() < end) {
		if (write_all(s, buf, BUFSZ))
			goto fail;
		sent += BUFSZ;
	}
	shutdown(s, SHUT_WR);
	while (got < sizeof(reply) && (n = read(s, (char *)reply + got, sizeof(reply) - got)) > 0)
		got += (size_t)n;
	if (got != sizeof(reply) || !reply[1])
		goto fail;
	printf("goodput_bps=%.0f bytes=%llu seconds=%.6f sent=%llu\n",
	       8.0 * (double)reply[0] / (reply[1] * 1e-9), (unsigned long long)reply[0],
	       reply[1] * 1e-9, (unsigned long long)sent);
	free(buf);
	return 0;
fail:
	gc_error("goodput probe failed: %s", errno ? strerror(errno) : "short reply");
	free(buf);
	return 1;
}

static int client(const struct popts *o)
{
	struct sockaddr_in sa;
	int s, rc;

	if (!o->addr) {
		gc_error("client needs --connect ADDR");
		return 2;
	}
	if (make_addr(o->addr, o->port, &sa))
		return 2;
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		gc_error("cannot connect to %s:%d: %s (is 'gcbench-probe server' running there?)",
			 o->addr, o->port, strerror(errno));
		return 1;
	}
	rc = o->rtt ? client_rtt(s, o->rtt) : client_goodput(s, o->secs);
	close(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct popts o;
	int rc;

	gc_log_init("gcbench-probe", GC_LOG_INFO);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: gcbench-probe server [--bind ADDR] [--port P] [--once]\n"
		       "       gcbench-probe client --connect ADDR [--port P] [--time S] [--rtt N]\n"
		       "Measures TCP goodput (payload bits/s at the receiver; default 2 s) or, with\n"
		       "--rtt N, the median of N one-byte round trips. Prints key=value pairs:\n"
		       "  goodput_bps=... bytes=... seconds=...   or   rtt_s=... rtt_min_s=...\n"
		       "Default port 5301. At MTU 1500, goodput is at most 95.6%% of a tc cap.\n");
		return argc < 2 ? 2 : 0;
	}
	if ((rc = parse(argc, argv, &o)))
		return rc;
	if (!strcmp(o.mode, "server"))
		return server(&o);
	if (!strcmp(o.mode, "client"))
		return client(&o);
	gc_error("unknown mode '%s'; use server or client", o.mode);
	return 2;
}
