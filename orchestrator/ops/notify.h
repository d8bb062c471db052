/* orchestrator/ops/notify.h: notifications over HTTP(S) webhooks (libcurl).
 *
 * Targets come from the spec (`notify: [{type: webhook, url_env: NAME}, ...]`): the
 * URL is a secret, read from the environment variable NAME at send time, never stored
 * and never printed. Logs name a target as `webhook $NAME (host example.org)`.
 *
 * Two body formats:
 *   webhook  {"event":"sweep_finished","title":...,"summary":...,"details":...,
 *             "sweep":...,"host":...,"time":<unix s>,"source":"gcbench"}
 *   slack    {"text":"<title>\n<summary>\nDetails: `<details>`"} (incoming webhook)
 *
 * Delivery is bounded: per attempt a connect timeout and a total timeout, a bounded
 * number of tries with exponential backoff (0.5 s, 1 s, 2 s ... by default), and one
 * overall deadline for the whole call, all targets together. Retried: connection
 * errors, timeouts, HTTP 408/429/5xx. Not retried: other 4xx (the hook is wrong).
 * A failure is logged (gc_warn) and returned; a sweep should log and go on:
 *     gc_notify_send(spec->notify, spec->n_notify, &ev, NULL, NULL);  // rc ignored
 */
#ifndef GC_NOTIFY_H
#define GC_NOTIFY_H

#include <stddef.h>

#include "orchestrator/spec/notify_target.h"
#include "result.h"

typedef enum gc_notify_kind {
	GC_NOTIFY_SWEEP_FINISHED,
	GC_NOTIFY_SWEEP_FAILED,
	GC_NOTIFY_REGRESSION,
	GC_NOTIFY_TEST,
} gc_notify_kind;

/* What happened. Strings are borrowed; NULL fields are left out (or "" in slack). */
typedef struct gc_notify_event {
	gc_notify_kind kind;
	const char *sweep;     /* sweep name, e.g. "nightly" */
	const char *summary;   /* one or two lines: "40 points ok, 2 failed in 3h12m" */
	const char *details;   /* the command to see details: "gcbench status --db x.db" */
} gc_notify_event;

typedef struct gc_notify_opts {
	long connect_timeout_ms;   /* per attempt (default 3000) */
	long timeout_ms;           /* per attempt, whole transfer (default 5000) */
	int tries;                 /* attempts per target, >= 1 (default 3) */
	long backoff_ms;           /* wait before the 2nd try, doubled each time (500) */
	long deadline_ms;          /* the whole call, all targets (default 30000) */
} gc_notify_opts;

void gc_notify_opts_default(gc_notify_opts *o);

/* "sweep_finished", "sweep_failed", "regression", "test". */
const char *gc_notify_kind_name(gc_notify_kind k);

/* The JSON body for a target type, NUL-terminated, malloc'ed (caller frees), or NULL
 * when out of memory. `host` and `now` fill the webhook's host and time fields. */
char *gc_notify_body(gc_notify_type t, const gc_notify_event *ev, const char *host,
		     double now);

/* A printable name for a target that reveals no secret: `$NAME (host H)`, or
 * `$NAME (unset)` / `$NAME (not a valid URL)`. Writes at most n bytes into buf. */
void gc_notify_describe(const gc_notify_target *t, char *buf, size_t n);

/* Send ev to each of the n targets (opts NULL = defaults). Returns GC_OK when all
 * were delivered (HTTP 2xx); otherwise the last failure (GC_E_NOTFOUND: variable
 * unset; GC_E_INVAL: not an http(s) URL; GC_E_TIMEOUT; GC_E_COMM: refused, HTTP error
 * or retries exhausted) after trying every target. *n_failed (may be NULL) gets the
 * number of targets not delivered. Every failure is logged with gc_warn. Returns
 * within about opts->deadline_ms plus one connect timeout. */
gc_rc gc_notify_send(const gc_notify_target *targets, size_t n, const gc_notify_event *ev,
		     const gc_notify_opts *opts, size_t *n_failed);

#endif
