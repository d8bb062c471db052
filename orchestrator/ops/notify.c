/* orchestrator/ops/notify.c: webhook and Slack notifications with bounded retries. */
#include "notify.h"

#include <ctype.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "log.h"
#include "strutil.h"
#include "timing.h"

void gc_notify_opts_default(gc_notify_opts *o)
{
	o->connect_timeout_ms = 3000;
	o->timeout_ms = 5000;
	o->tries = 3;
	o->backoff_ms = 500;
	o->deadline_ms = 30000;
}

const char *gc_notify_kind_name(gc_notify_kind k)
{
	switch (k) {
	case GC_NOTIFY_SWEEP_FINISHED: return "sweep_finished";
	case GC_NOTIFY_SWEEP_FAILED: return "sweep_failed";
	case GC_NOTIFY_REGRESSION: return "regression";
	case GC_NOTIFY_TEST: return "test";
	}
	return "unknown";
}

static const char *kind_title(gc_notify_kind k)
{
	switch (k) {
	case GC_NOTIFY_SWEEP_FINISHED: return "gcbench: sweep finished";
	case GC_NOTIFY_SWEEP_FAILED: return "gcbench: sweep FAILED";
	case GC_NOTIFY_REGRESSION: return "gcbench: performance regression found";
	case GC_NOTIFY_TEST: return "gcbench: test notification";
	}
	return "gcbench";
}

/* ---- the JSON bodies (newlines as \n, as chat services show them) ---------------- */

static void field(gc_json *j, const char *key, const char *val)
{
	if (val)
		gc_json_str_field(j, key, val);
}

static void body_webhook(gc_json *j, const gc_notify_event *ev, const char *host, double now)
{
	gc_json_obj_open(j);
	field(j, "event", gc_notify_kind_name(ev->kind));
	field(j, "title", kind_title(ev->kind));
	field(j, "sweep", ev->sweep);
	field(j, "summary", ev->summary);
	field(j, "details", ev->details);
	field(j, "host", host);
	field(j, "source", "gcbench");
	gc_json_key(j, "time");
	gc_json_fixed(j, now, 3);
	gc_json_obj_close(j);
}

/* Slack's one "text": the title, then the summary and the details on their own lines. */
static gc_rc body_slack(gc_json *j, const gc_notify_event *ev, const char *host)
{
	gc_buf t = GC_BUF_INIT;
	gc_rc rc;

	gc_buf_puts(&t, kind_title(ev->kind));
	if (ev->sweep)
		gc_buf_addf(&t, ": %s", ev->sweep);
	if (host)
		gc_buf_addf(&t, " on %s", host);
	if (ev->summary)
		gc_buf_addf(&t, "\n%s", ev->summary);
	if (ev->details)
		gc_buf_addf(&t, "\nDetails: `%s`", ev->details);
	rc = gc_buf_rc(&t);
	gc_json_obj_open(j);
	gc_json_str_field(j, "text", gc_buf_str(&t));
	gc_json_obj_close(j);
	gc_buf_release(&t);
	return rc;
}

char *gc_notify_body(gc_notify_type t, const gc_notify_event *ev, const char *host,
		     double now)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	gc_rc rc = GC_OK;

	gc_json_init(&j, &b, GC_JSON_ESC_NL);
	if (t == GC_NOTIFY_SLACK)
		rc = body_slack(&j, ev, host);
	else
		body_webhook(&j, ev, host, now);
	if (rc || gc_json_finish(&j)) {
		gc_buf_release(&b);
		return NULL;
	}
	return gc_buf_take(&b);
}

/* ---- URLs, without revealing them ----------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Check that url is http(s) with a host; copy the host into host (size n). */
static gc_rc url_host(const char *url, char *host, size_t n)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *h = NULL;
	gc_rc rc = GC_E_INVAL;

	if (!u)
		return GC_E_NOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
	    (!strcmp(scheme, "http") || !strcmp(scheme, "https")) && *h) {
		gc_strlcpy(host, h, n);
		rc = GC_OK;
	}
	curl_free(scheme);
	curl_free(h);
	curl_url_cleanup(u);
	return rc;
}

void gc_notify_describe(const gc_notify_target *t, char *buf, size_t n)
{
	const char *url = t->url_env ? getenv(t->url_env) : NULL;
	char host[256];

	pthread_once(&curl_once, curl_init);
	if (!url || !*url)
		snprintf(buf, n, "%s $%s (unset)", gc_notify_type_name(t->type),
			 t->url_env ? t->url_env : "?");
	else if (url_host(url, host, sizeof host))
		snprintf(buf, n, "%s $%s (not a valid http(s) URL)",
			 gc_notify_type_name(t->type), t->url_env);
	else
		snprintf(buf, n, "%s $%s (host %s)", gc_notify_type_name(t->type),
			 t->url_env, host);
}

/* ---- delivery ------------------------------------------------------------------- */

static size_t discard(char *p, size_t sz, size_t nm, void *arg)
{
	(void)p;
	(void)arg;
	return sz * nm;
}

static void setup_easy(CURL *c, const char *url, const char *body,
		       struct curl_slist *hdr, long connect_ms, long total_ms)
{
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, total_ms);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "gcbench-notify");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

/* One POST. *retry says whether another try may help; why gets the cause. */
static gc_rc attempt(const char *url, const char *body, long connect_ms, long total_ms,
		     int *retry, char *why, size_t n)
{
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = curl_easy_init();
	CURLcode cc;
	long code = 0;
	gc_rc rc = GC_OK;

	*retry = 1;
	if (!c || !hdr) {
		curl_slist_free_all(hdr);
		curl_easy_cleanup(c);
		snprintf(why, n, "out of memory");
		return GC_E_NOMEM;
	}
	setup_easy(c, url, body, hdr, connect_ms, total_ms);
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		/* curl_easy_strerror never contains the URL (the path is the secret) */
		snprintf(why, n, "%s", curl_easy_strerror(cc));
		why[0] = (char)tolower((unsigned char)why[0]);
		rc = cc == CURLE_OPERATION_TIMEDOUT ? GC_E_TIMEOUT : GC_E_COMM;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code < 200 || code > 299) {
			snprintf(why, n, "HTTP %ld", code);
			*retry = code == 408 || code == 429 || code >= 500;
			rc = GC_E_COMM;
		}
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return rc;
}

static long ms_left(uint64_t deadline_ns)
{
	uint64_t now = gc_now_ns();
	return now >= deadline_ns ? 0 : (long)((deadline_ns - now) / 1000000u);
}

static long min_l(long a, long b)
{
	return a < b ? a : b;
}

/* Wait the backoff before try i (>= 1); 0 when the deadline leaves no room. */
static int backoff(const gc_notify_opts *o, int i, uint64_t deadline_ns)
{
	long wait = o->backoff_ms;
	int k;

	for (k = 1; k < i && wait < 60000; k++)
		wait *= 2;
	if (wait >= ms_left(deadline_ns))
		return 0;
	gc_sleep_until_ns(gc_now_ns() + (uint64_t)wait * 1000000u);
	return 1;
}

static gc_rc send_one(const gc_notify_target *t, const char *body, const gc_notify_opts *o,
		      uint64_t deadline_ns, const char *desc)
{
	const char *url = getenv(t->url_env);
	char host[256], why[128] = "";
	int i, retry = 1;
	gc_rc rc = GC_E_TIMEOUT;

	if (!url || !*url) {
		gc_warn("cannot notify %s: the variable is not set; export it with the "
			"hook URL (the notification is skipped, the sweep goes on)", desc);
		return GC_E_NOTFOUND;
	}
	if (url_host(url, host, sizeof host)) {
		gc_warn("cannot notify %s: the value is not an http:// or https:// URL", desc);
		return GC_E_INVAL;
	}
	for (i = 0; i < o->tries && retry; i++) {
		if (i > 0 && !backoff(o, i, deadline_ns))
			break;
		if (ms_left(deadline_ns) <= 0)
			break;
		rc = attempt(url, body, min_l(o->connect_timeout_ms, ms_left(deadline_ns)),
			     min_l(o->timeout_ms, ms_left(deadline_ns)), &retry, why, sizeof why);
		if (!rc) {
			gc_info("notified %s", desc);
			return GC_OK;
		}
		gc_debug("notify %s: try %d failed: %s", desc, i + 1, why);
	}
	if (i == 0)
		gc_warn("cannot notify %s: no time left before the notification deadline "
			"(the sweep goes on)", desc);
	else
		gc_warn("cannot notify %s: %s (gave up after %d %s; the sweep goes on)", desc,
			why, i, i == 1 ? "try" : "tries");
	return rc;
}

gc_rc gc_notify_send(const gc_notify_target *targets, size_t n, const gc_notify_event *ev,
		     const gc_notify_opts *opts, size_t *n_failed)
{
	gc_notify_opts o;
	char host[256] = "", desc[320], *body;
	size_t i, failed = 0;
	uint64_t deadline;
	gc_rc rc = GC_OK, r;

	if (opts)
		o = *opts;
	else
		gc_notify_opts_default(&o);
	if (o.tries < 1)
		o.tries = 1;
	deadline = gc_now_ns() + (uint64_t)(o.deadline_ms > 0 ? o.deadline_ms : 0) * 1000000u;
	pthread_once(&curl_once, curl_init);
	gethostname(host, sizeof host - 1);
	for (i = 0; i < n; i++) {
		gc_notify_describe(&targets[i], desc, sizeof desc);
		body = gc_notify_body(targets[i].type, ev, host, gc_wall_s());
		if (curl_init_rc != CURLE_OK || !body)
			r = curl_init_rc != CURLE_OK ? GC_E_UNSUPPORTED : GC_E_NOMEM;
		else
			r = send_one(&targets[i], body, &o, deadline, desc);
		if (r && (curl_init_rc != CURLE_OK || !body))
			gc_warn("cannot notify %s: %s", desc, gc_strerror(r));
		free(body);
		if (r) {
			failed++;
			rc = r;
		}
	}
	if (n_failed)
		*n_failed = failed;
	return rc;
}
