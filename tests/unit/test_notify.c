/* tests/unit/test_notify.c: notification bodies, redaction, and bounded delivery
 * against a small HTTP server on 127.0.0.1 run in a thread of this test. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/ops/notify.h"
#include "timing.h"

/* ---- a one-thread HTTP server: mode 200, 500 or hang ----------------------------- */

struct srv {
	int fd, port, mode, hits, stop;
	char body[4096];
	pthread_t th;
};

static void srv_handle(struct srv *s, int c)
{
	char buf[8192];
	ssize_t n, len = 0;
	const char *resp = s->mode == 200 ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
		"Connection: close\r\n\r\nok" : "HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n"
		"Connection: close\r\n\r\n";
	char *hdr_end;

	while (len < (ssize_t)sizeof buf - 1 && (n = read(c, buf + len, sizeof buf - 1 - (size_t)len)) > 0) {
		len += n;
		buf[len] = '\0';
		hdr_end = strstr(buf, "\r\n\r\n");
		if (hdr_end && strstr(buf, "Content-Length: ") &&
		    len - (hdr_end + 4 - buf) >= atoi(strstr(buf, "Content-Length: ") + 16))
			break;
	}
	buf[len] = '\0';
	hdr_end = strstr(buf, "\r\n\r\n");
	if (hdr_end)
		snprintf(s->body, sizeof s->body, "%s", hdr_end + 4);
	if (s->mode == 0) {   /* hang: hold the connection until the client gives up */
		while (!s->stop && read(c, buf, sizeof buf) > 0)
			;
		return;
	}
	if (write(c, resp, strlen(resp)) < 0)
		return;
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	int c;

	while (!s->stop && (c = accept(s->fd, NULL, NULL)) >= 0) {
		if (s->stop) {
			close(c);
			break;
		}
		__atomic_add_fetch(&s->hits, 1, __ATOMIC_SEQ_CST);
		srv_handle(s, c);
		close(c);
	}
	return NULL;
}

static int srv_start(struct srv *s, int mode)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof a;

	memset(s, 0, sizeof *s);
	s->mode = mode;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) ||
	    listen(s->fd, 8) || getsockname(s->fd, (struct sockaddr *)&a, &al))
		return -1;
	s->port = ntohs(a.sin_port);
	return pthread_create(&s->th, NULL, srv_main, s) ? -1 : 0;
}

static void srv_stop(struct srv *s)
{
	s->stop = 1;
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->th, NULL);
	close(s->fd);
}

static void set_url(struct srv *s, const char *path)
{
	char url[256];

	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", s->port, path);
	setenv("GCT_HOOK", url, 1);
}

static gc_notify_opts fast_opts(void)
{
	gc_notify_opts o;

	gc_notify_opts_default(&o);
	o.connect_timeout_ms = 1000;
	o.timeout_ms = 1000;
	o.backoff_ms = 100;
	o.deadline_ms = 10000;
	return o;
}

static const gc_notify_event ev = { GC_NOTIFY_SWEEP_FAILED, "nightly",
				    "3 points failed: \"timeout\"\nsee below",
				    "gcbench status --db /srv/gc.db" };

/* ---- tests ------------------------------------------------------------------------ */

static void test_body_webhook(void)
{
	char *b = gc_notify_body(GC_NOTIFY_WEBHOOK, &ev, "node1", 1700000000.5);

	CHECK(b != NULL);
	CHECK_STR(b, "{\"event\":\"sweep_failed\",\"title\":\"gcbench: sweep FAILED\","
		  "\"sweep\":\"nightly\",\"summary\":\"3 points failed: \\\"timeout\\\"\\n"
		  "see below\",\"details\":\"gcbench status --db /srv/gc.db\",\"host\":"
		  "\"node1\",\"source\":\"gcbench\",\"time\":1700000000.500}");
	free(b);
}

static void test_body_slack(void)
{
	gc_notify_event e2 = { GC_NOTIFY_REGRESSION, NULL, "a\x01" "b", NULL };
	char *b = gc_notify_body(GC_NOTIFY_SLACK, &e2, "h", 0);

	CHECK(b != NULL);
	CHECK_STR(b, "{\"text\":\"gcbench: performance regression found on h\\na\\u0001b\"}");
	free(b);
}

static void test_type_parse(void)
{
	gc_notify_type t;
	gc_err e;

	CHECK_EQ_INT(gc_notify_type_parse("slack", &t, &e), GC_OK);
	CHECK_EQ_INT(t, GC_NOTIFY_SLACK);
	CHECK_EQ_INT(gc_notify_type_parse("email", &t, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'email'");
}

static void test_describe_redacts(void)
{
	gc_notify_target t = { GC_NOTIFY_SLACK, "GCT_HOOK" };
	char buf[256];

	setenv("GCT_HOOK", "https://hooks.example.org/services/T0/B0/SECRETTOKEN", 1);
	gc_notify_describe(&t, buf, sizeof buf);
	CHECK_STR(buf, "slack $GCT_HOOK (host hooks.example.org)");
	CHECK(!strstr(buf, "SECRET"));
	unsetenv("GCT_HOOK");
	gc_notify_describe(&t, buf, sizeof buf);
	CHECK_STR(buf, "slack $GCT_HOOK (unset)");
}

static void test_unset_and_invalid(void)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, "GCT_HOOK" };
	gc_notify_opts o = fast_opts();
	size_t nf = 0;

	unsetenv("GCT_HOOK");
	CHECK_EQ_INT(gc_notify_send(&t, 1, &ev, &o, &nf), GC_E_NOTFOUND);
	CHECK_EQ_INT(nf, 1);
	setenv("GCT_HOOK", "file:///etc/passwd", 1);
	CHECK_EQ_INT(gc_notify_send(&t, 1, &ev, &o, &nf), GC_E_INVAL);
}

static void test_delivered(void)
{
	gc_notify_target t = { GC_NOTIFY_SLACK, "GCT_HOOK" };
	gc_notify_opts o = fast_opts();
	struct srv s;
	size_t nf = 9;
	gc_rc rc;

	if (srv_start(&s, 200))
		SKIP("cannot listen on 127.0.0.1");
	set_url(&s, "/services/x");
	rc = gc_notify_send(&t, 1, &ev, &o, &nf);
	srv_stop(&s);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(nf, 0);
	CHECK_EQ_INT(s.hits, 1);
	CHECK(!strncmp(s.body, "{\"text\":\"gcbench: sweep FAILED: nightly", 38));
}

static void test_500_retried_then_given_up(void)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, "GCT_HOOK" };
	gc_notify_opts o = fast_opts();
	struct srv s;
	uint64_t t0;
	double dt;
	gc_rc rc;

	if (srv_start(&s, 500))
		SKIP("cannot listen on 127.0.0.1");
	set_url(&s, "/");
	t0 = gc_now_ns();
	rc = gc_notify_send(&t, 1, &ev, &o, NULL);
	dt = (double)(gc_now_ns() - t0) * 1e-9;
	srv_stop(&s);
	CHECK_EQ_INT(rc, GC_E_COMM);
	CHECK_EQ_INT(s.hits, 3);
	CHECKF(dt >= 0.29 && dt < 5.0, "backoff 0.1 + 0.2 s expected, took %.2f s", dt);
}

static void test_hang_bounded(void)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, "GCT_HOOK" };
	gc_notify_opts o = fast_opts();
	struct srv s;
	uint64_t t0;
	double dt;
	gc_rc rc;

	o.timeout_ms = 300;
	o.tries = 2;
	if (srv_start(&s, 0))
		SKIP("cannot listen on 127.0.0.1");
	set_url(&s, "/");
	t0 = gc_now_ns();
	rc = gc_notify_send(&t, 1, &ev, &o, NULL);
	dt = (double)(gc_now_ns() - t0) * 1e-9;
	srv_stop(&s);
	CHECK_EQ_INT(rc, GC_E_TIMEOUT);
	CHECKF(dt >= 0.6 && dt < 3.0, "2 x 0.3 s + 0.1 s expected, took %.2f s", dt);
}

static void test_deadline_caps_everything(void)
{
	gc_notify_target t[2] = { { GC_NOTIFY_WEBHOOK, "GCT_HOOK" },
				  { GC_NOTIFY_SLACK, "GCT_HOOK" } };
	gc_notify_opts o = fast_opts();
	struct srv s;
	uint64_t t0;
	double dt;
	size_t nf = 0;

	o.timeout_ms = 5000;
	o.deadline_ms = 700;
	if (srv_start(&s, 0))
		SKIP("cannot listen on 127.0.0.1");
	set_url(&s, "/");
	t0 = gc_now_ns();
	gc_notify_send(t, 2, &ev, &o, &nf);
	dt = (double)(gc_now_ns() - t0) * 1e-9;
	srv_stop(&s);
	CHECK_EQ_INT(nf, 2);
	CHECKF(dt < 2.0, "deadline 0.7 s, took %.2f s", dt);
}

static void test_refused(void)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, "GCT_HOOK" };
	gc_notify_opts o = fast_opts();
	struct srv s;
	uint64_t t0;
	double dt;
	gc_rc rc;

	if (srv_start(&s, 200))
		SKIP("cannot listen on 127.0.0.1");
	srv_stop(&s);    /* the port is now closed */
	set_url(&s, "/");
	t0 = gc_now_ns();
	rc = gc_notify_send(&t, 1, &ev, &o, NULL);
	dt = (double)(gc_now_ns() - t0) * 1e-9;
	CHECK_EQ_INT(rc, GC_E_COMM);
	CHECKF(dt < 3.0, "refused should give up fast, took %.2f s", dt);
}

int main(void)
{
	GCT_SUITE("notify");
	GCT_RUN(test_body_webhook);
	GCT_RUN(test_body_slack);
	GCT_RUN(test_type_parse);
	GCT_RUN(test_describe_redacts);
	GCT_RUN(test_unset_and_invalid);
	GCT_RUN(test_delivered);
	GCT_RUN(test_500_retried_then_given_up);
	GCT_RUN(test_hang_bounded);
	GCT_RUN(test_deadline_caps_everything);
	GCT_RUN(test_refused);
	return gct_finish();
}
