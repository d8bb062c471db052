/* netem/probe.c: gcbench-probe, a TCP goodput and RTT probe for calibrating links.
 *
 *   gcbench-probe server [--bind ADDR] [--port P] [--once]
 *   gcbench-probe client --connect ADDR [--port P] [--time S] [--rtt N]
 *                        [--parallel N] [--on S --off S]
 *
 * Goodput: the client sends for S seconds, then closes its side; the server counts
 * the payload bytes and the time from the first byte to the end, and sends both back.
 * goodput_bps = 8 * bytes / seconds, measured at the receiver (TCP payload only: at
 * MTU 1500 that is at most 1448/1514 = 95.6% of a cap tc counts in layer-2 bytes).
 * With --parallel N the client sends on N connections at once (bytes: their sum,
 * seconds: the longest); with --on/--off it sends for on seconds, pauses off seconds,
 * and so on (the goodput is then the mean over the pauses too). SIGTERM, SIGINT or
 * SIGHUP end the sending early, and the client still reports what was received: the
 * background flows of a sweep point (docs/netem.md, "Background flows") end that way.
 * The server serves any number of connections at once (--once: exits after the first).
 * RTT: N one-byte round trips (TCP_NODELAY), reported as median and minimum.
 * Output is one line of key=value pairs on stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "opts.h"
#include "strutil.h"
#include "timing.h"

#define BUFSZ (256 * 1024)
#define MAX_PARALLEL 16
#define MAX_CONNS 64           /* the server's connections at once */
#define MAX_SECS 86400.0
#define REPLY_WAIT_S 10        /* for the servers' counts once sending ends */

struct popts {
	const char *mode, *addr;
	int port, once, rtt, parallel;
	double secs, on, off;
};

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* A whole number in [lo, hi] into the int target (written as a decimal: 5301, 5301.0). */
static gc_rc whole_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	double d;

	if (gc_parse_double(v, &d) || !(d >= (double)opt->lo && d <= (double)opt->hi) ||
	    d != (int)d)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%.40s': expected a whole number from "
			       "%lld to %lld; see 'gcbench-probe --help'", opt->o.name, v, opt->lo,
			       opt->hi);
	*(int *)opt->target = (int)d;
	return GC_OK;
}

/* Seconds, more than 0 and at most hi, into the double target. */
static gc_rc secs_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	double d;

	if (gc_parse_double(v, &d) || !(d > 0 && d <= (double)opt->hi))
		return gc_fail(e, GC_E_INVAL, "invalid %s '%.40s': expected seconds, more than 0 "
			       "and at most %lld; see 'gcbench-probe --help'", opt->o.name, v,
			       opt->hi);
	*(double *)opt->target = d;
	return GC_OK;
}

#define PROBE_WHOLE(l, var, low, high, a, h) \
	{ .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_CALLBACK, \
	  .cb = whole_cb, .target = (var), .lo = low, .hi = high }
#define PROBE_SECS(l, var, a, h) \
	{ .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_CALLBACK, \
	  .cb = secs_cb, .target = (var), .hi = (long long)MAX_SECS }

static struct popts parsed;   /* the declarations' targets */
static const struct gc_option probe_opts[] = {
	GC_OPTION_STRING("--bind", NULL, &parsed.addr, "ADDR", "server: the address to listen on"),
	GC_OPTION_STRING("--connect", NULL, &parsed.addr, "ADDR", "client: the server's address"),
	PROBE_WHOLE("--port", &parsed.port, 1, 65535, "P", "the TCP port; 5301"),
	GC_OPTION_FLAG("--once", NULL, &parsed.once, "server: serve one client, then exit"),
	PROBE_SECS("--time", &parsed.secs, "S", "client: seconds of sending; 2"),
	PROBE_WHOLE("--rtt", &parsed.rtt, 1, 1000000, "N",
		    "client: the median of N one-byte round trips instead"),
	PROBE_WHOLE("--parallel", &parsed.parallel, 1, MAX_PARALLEL, "N",
		    "client: send on N connections at once (1-16); 1"),
	PROBE_SECS("--on", &parsed.on, "S", "client: seconds sending, then --off"),
	PROBE_SECS("--off", &parsed.off, "S", "client: seconds paused, then --on"),
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gcbench-probe server [--bind ADDR] [--port P] [--once]\n"
		"       gcbench-probe client --connect ADDR [--port P] [--time S] [--rtt N]\n"
		"                            [--parallel N] [--on S --off S]\n"
		"Measures TCP goodput (payload bits/s at the receiver; default 2 s) or, with\n"
		"--rtt N, the median of N one-byte round trips. Prints key=value pairs:\n"
		"  goodput_bps=... bytes=... seconds=...   or   rtt_s=... rtt_min_s=...\n"
		"--parallel N (1-16) sends on N connections at once; --on/--off send and pause\n"
		"in turn (seconds); --time up to 86400 s. SIGTERM or SIGINT ends the sending\n"
		"early and still prints the goodput. The server serves connections at once.\n"
		"Default port 5301. At MTU 1500, goodput is at most 95.6%% of a tc cap.\n\n");
	gc_opts_usage(f, probe_opts, sizeof probe_opts / sizeof probe_opts[0], 17);
}

/* 0 to go on, GC_EXIT_OK after --help, else GC_EXIT_USAGE (reported). */
static int parse(int argc, char **argv, struct popts *o, int *done)
{
	gc_opts p;
	int r;

	memset(&parsed, 0, sizeof parsed);
	parsed.port = 5301;
	parsed.secs = 2;
	parsed.parallel = 1;
	gc_opts_decl_init(&p, "gcbench-probe", probe_opts, sizeof probe_opts / sizeof probe_opts[0],
			  argc - 1, argv + 1, NULL);
	r = gc_opts_parse_all(&p);
	*o = parsed;
	o->mode = argc > 1 ? argv[1] : "";
	if (r == GC_OPTS_HELP) {
		usage(stdout);
		*done = 1;
		return GC_EXIT_OK;
	}
	if (r != GC_OPTS_END) {
		gc_error("%s", r == GC_OPTS_VERSION ? "unknown option '--version' for gcbench-probe "
			 "(see 'gcbench-probe --help')" : p.err.msg);
		return GC_EXIT_USAGE;
	}
	if ((o->on > 0) != (o->off > 0)) {
		gc_error("--on and --off go together (seconds sending, seconds paused)");
		return GC_EXIT_USAGE;
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

/* One connection of the server: its mode ('G' goodput, 'R' rtt; 0 until its first
 * byte), and for goodput the payload bytes and the time of the first. */
struct conn {
	int fd;
	char mode;
	uint64_t bytes, t0;
};

/* Data on connection c; 1 when it is done (closed by the peer or broken). */
static int conn_read(struct conn *c, char *buf)
{
	uint64_t reply[2];
	ssize_t n;

	if (!c->mode) {
		n = read(c->fd, &c->mode, 1);
		return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) ||
		       (n == 1 && c->mode != 'G' && c->mode != 'R');
	}
	n = read(c->fd, buf, c->mode == 'R' ? 64 : BUFSZ);
	if (n < 0)
		return errno != EINTR && errno != EAGAIN;
	if (n > 0 && c->mode == 'R')
		return write_all(c->fd, buf, (size_t)n) != 0;
	if (n > 0) {
		if (!c->t0)
			c->t0 = gc_now_ns();
		c->bytes += (uint64_t)n;
		return 0;
	}
	if (c->mode == 'G') {   /* the client closed its side: send the count back */
		reply[0] = c->bytes;
		reply[1] = c->t0 ? gc_now_ns() - c->t0 : 0;
		write_all(c->fd, reply, sizeof(reply));
	}
	return 1;
}

/* Accept on s and serve every connection at once (up to MAX_CONNS); with once, return
 * after the first connection is done. */
static void serve_all(int s, int once, char *buf)
{
	struct pollfd pf[MAX_CONNS + 1];
	struct conn cs[MAX_CONNS];
	size_t n = 0, i;

	for (;;) {
		pf[0] = (struct pollfd){ s, POLLIN, 0 };
		for (i = 0; i < n; i++)
			pf[i + 1] = (struct pollfd){ cs[i].fd, POLLIN, 0 };
		if (poll(pf, n + 1, -1) < 0)
			continue;
		for (i = n; i-- > 0;) {
			if (!(pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) ||
			    !conn_read(&cs[i], buf))
				continue;
			close(cs[i].fd);
			cs[i] = cs[--n];
			if (once)
				return;
		}
		if ((pf[0].revents & POLLIN) && n < MAX_CONNS) {
			int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
			if (c >= 0)
				cs[n++] = (struct conn){ c, 0, 0, 0 };
		}
	}
}

static int server(const struct popts *o)
{
	struct sockaddr_in sa;
	int s, one = 1;
	char *buf = malloc(BUFSZ);

	if (!buf || make_addr(o->addr, o->port, &sa)) {
		free(buf);
		return GC_EXIT_FAILED;
	}
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, MAX_CONNS)) {
		gc_error("cannot listen on %s:%d: %s", o->addr ? o->addr : "0.0.0.0", o->port,
			 strerror(errno));
		free(buf);
		return GC_EXIT_FAILED;
	}
	printf("listening=%s:%d\n", o->addr ? o->addr : "0.0.0.0", o->port);
	fflush(stdout);
	serve_all(s, o->once, buf);
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
		return GC_EXIT_FAILED;
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
	return GC_EXIT_FAILED;
}

/* Sleep until the absolute gc_now_ns() time t, or a stop signal. */
static void sleep_until(uint64_t t)
{
	uint64_t now;

	while (!stop_flag && (now = gc_now_ns()) < t) {
		uint64_t d = t - now;
		struct timespec ts = { (time_t)(d / 1000000000u), (long)(d % 1000000000u) };
		nanosleep(&ts, NULL);   /* EINTR on a stop signal */
	}
}

/* Send on every socket of fd (nonblocking) until end (ns) or a stop signal, in on/off
 * phases when on > 0; the bytes written. A socket whose peer is gone is left out. */
static uint64_t send_phases(const int *fd, int n, const char *buf, uint64_t end, double on,
			    double off)
{
	struct pollfd pf[MAX_PARALLEL];
	uint64_t sent = 0, now, phase_end;
	int i;

	for (i = 0; i < n; i++)
		pf[i] = (struct pollfd){ fd[i], POLLOUT, 0 };
	while (!stop_flag && (now = gc_now_ns()) < end) {
		phase_end = on > 0 ? now + (uint64_t)(on * 1e9) : end;
		phase_end = phase_end < end ? phase_end : end;
		while (!stop_flag && (now = gc_now_ns()) < phase_end) {
			if (poll(pf, (nfds_t)n, (int)((phase_end - now) / 1000000 + 1)) <= 0)
				continue;
			for (i = 0; i < n; i++) {
				ssize_t w = pf[i].revents ? write(fd[i], buf, BUFSZ) : 0;
				if (w > 0)
					sent += (uint64_t)w;
				else if (w < 0 && errno != EAGAIN && errno != EINTR)
					pf[i].fd = -1;   /* poll skips it */
			}
		}
		if (on > 0 && phase_end < end)
			sleep_until(phase_end + (uint64_t)(off * 1e9));
	}
	return sent;
}

/* Close the sending side of each socket and read its server's (bytes, ns) reply, up to
 * REPLY_WAIT_S; the replies' sum of bytes and longest time; how many replied. */
static int read_replies(const int *fd, int n, uint64_t *bytes, uint64_t *ns)
{
	struct timeval tv = { REPLY_WAIT_S, 0 };
	int got_all = 0;

	*bytes = *ns = 0;
	for (int i = 0; i < n; i++) {
		fcntl(fd[i], F_SETFL, fcntl(fd[i], F_GETFL) & ~O_NONBLOCK);
		setsockopt(fd[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		shutdown(fd[i], SHUT_WR);
	}
	for (int i = 0; i < n; i++) {
		uint64_t reply[2];
		size_t got = 0;
		ssize_t r;
		while (got < sizeof(reply) &&
		       ((r = read(fd[i], (char *)reply + got, sizeof(reply) - got)) > 0 ||
			(r < 0 && errno == EINTR)))
			got += r > 0 ? (size_t)r : 0;
		if (got != sizeof(reply) || !reply[1])
			continue;
		*bytes += reply[0];
		*ns = reply[1] > *ns ? reply[1] : *ns;
		got_all++;
	}
	return got_all;
}

static int client_goodput(const int *fd, int n, const struct popts *o)
{
	char *buf = calloc(1, BUFSZ);
	uint64_t end = gc_now_ns() + (uint64_t)(o->secs * 1e9), sent, bytes, ns;
	int ok;

	if (!buf)
		return GC_EXIT_FAILED;
	for (int i = 0; i < n; i++)
		if (write_all(fd[i], "G", 1) || fcntl(fd[i], F_SETFL, fcntl(fd[i], F_GETFL) | O_NONBLOCK)) {
			gc_error("goodput probe failed: %s", strerror(errno));
			free(buf);
			return GC_EXIT_FAILED;
		}
	sent = send_phases(fd, n, buf, end, o->on, o->off);
	free(buf);
	ok = read_replies(fd, n, &bytes, &ns);
	if (!ok) {
		gc_error("goodput probe failed: %s", errno ? strerror(errno) : "short reply");
		return GC_EXIT_FAILED;
	}
	printf("goodput_bps=%.0f bytes=%llu seconds=%.6f sent=%llu flows=%d replied=%d\n",
	       8.0 * (double)bytes / (ns * 1e-9), (unsigned long long)bytes, ns * 1e-9,
	       (unsigned long long)sent, n, ok);
	return 0;
}

static int client(const struct popts *o)
{
	struct sockaddr_in sa;
	struct sigaction sg;
	int fd[MAX_PARALLEL], n = o->rtt ? 1 : o->parallel, rc = 1, i;

	if (!o->addr) {
		gc_error("client needs --connect ADDR");
		return GC_EXIT_USAGE;
	}
	if (make_addr(o->addr, o->port, &sa))
		return GC_EXIT_USAGE;
	memset(&sg, 0, sizeof(sg));
	sg.sa_handler = on_stop;   /* no SA_RESTART: a stop signal ends the sending at once */
	sigaction(SIGTERM, &sg, NULL);
	sigaction(SIGINT, &sg, NULL);
	sigaction(SIGHUP, &sg, NULL);
	signal(SIGPIPE, SIG_IGN);   /* a server gone: write fails, the flow is left out */
	for (i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0 || connect(fd[i], (struct sockaddr *)&sa, sizeof(sa))) {
			gc_error("cannot connect to %s:%d: %s (is 'gcbench-probe server' running "
				 "there?)", o->addr, o->port, strerror(errno));
			if (fd[i] >= 0)
				close(fd[i]);
			goto out;
		}
	}
	rc = o->rtt ? client_rtt(fd[0], o->rtt) : client_goodput(fd, n, o);
out:
	while (i-- > 0)
		close(fd[i]);
	return rc;
}

int main(int argc, char **argv)
{
	struct popts o;
	int rc, done = 0;

	gc_log_init("gcbench-probe", GC_LOG_INFO);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GC_EXIT_USAGE : GC_EXIT_OK;
	}
	if ((rc = parse(argc, argv, &o, &done)) || done)
		return rc;
	if (!strcmp(o.mode, "server"))
		return server(&o);
	if (!strcmp(o.mode, "client"))
		return client(&o);
	gc_error("unknown mode '%s'; use server or client", o.mode);
	return GC_EXIT_USAGE;
}
