/* gcbench notify test: send a test notification to check a hook. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/ops/notify.h"
#include "strutil.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench notify test --type webhook|slack --url-env NAME [options]\n\n"
		"Send a test notification, as a sweep does when it finishes or fails and as\n"
		"'gcbench regress' does when it finds a regression. The hook URL is a secret:\n"
		"it is read from the environment variable NAME and never printed.\n\n"
		"options:\n"
		"  --type T              webhook (generic JSON) or slack (incoming webhook)\n"
		"  --url-env NAME        the variable that holds the URL\n"
		"  --message TEXT        the summary line (default: a test message)\n"
		"  --tries N             attempts (default 3), backoff 0.5 s, 1 s, 2 s...\n"
		"  --connect-timeout-ms MS, --timeout-ms MS   per attempt (3000, 5000)\n"
		"  --backoff-ms MS       first backoff (500); --deadline-ms MS the whole call\n\n"
		"exit status: 0 delivered, 1 not delivered (the reason is printed), 2 usage.\n\n"
		"example:\n"
		"  export GC_SLACK_URL=https://hooks.slack.com/services/...\n"
		"  gcbench notify test --type slack --url-env GC_SLACK_URL\n");
}

static int parse_ms(const char *opt, const char *v, long *out)
{
	int64_t x;

	if (!v || gc_parse_i64(v, &x) || x < 0 || x > 600000) {
		gc_error("invalid %s '%s': give milliseconds, 0 to 600000", opt, v ? v : "");
		return -1;
	}
	*out = (long)x;
	return 0;
}

/* Parse argv[i] (and its value); returns 1 when consumed two, 0 one, -1 error. */
static int parse_opt(char **argv, int i, int argc, gc_notify_target *t,
		     gc_notify_opts *o, const char **msg)
{
	const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
	long x = 0;
	gc_err e;

	if (!v) {
		gc_error("option '%s' needs a value; see 'gcbench notify --help'", a);
		return -1;
	}
	if (!strcmp(a, "--type")) {
		if (gc_notify_type_parse(v, &t->type, &e))
			return gc_error("%s", e.msg), -1;
	} else if (!strcmp(a, "--url-env")) {
		t->url_env = v;
	} else if (!strcmp(a, "--message")) {
		*msg = v;
	} else if (!strcmp(a, "--tries")) {
		if (parse_ms(a, v, &x) || x < 1 || x > 10)
			return gc_error("invalid --tries '%s': 1 to 10", v), -1;
		o->tries = (int)x;
	} else if (!strcmp(a, "--connect-timeout-ms")) {
		return parse_ms(a, v, &o->connect_timeout_ms) ? -1 : 1;
	} else if (!strcmp(a, "--timeout-ms")) {
		return parse_ms(a, v, &o->timeout_ms) ? -1 : 1;
	} else if (!strcmp(a, "--backoff-ms")) {
		return parse_ms(a, v, &o->backoff_ms) ? -1 : 1;
	} else if (!strcmp(a, "--deadline-ms")) {
		return parse_ms(a, v, &o->deadline_ms) ? -1 : 1;
	} else {
		gc_error("unknown option '%s'; see 'gcbench notify --help'", a);
		return -1;
	}
	return 1;
}

int cmd_notify(int argc, char **argv)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, NULL };
	gc_notify_opts o;
	gc_notify_event ev = { GC_NOTIFY_TEST, "notify-test", NULL,
			       "gcbench notify --help" };
	const char *msg = "This is a test notification from 'gcbench notify test'.";
	int i, r;

	gc_notify_opts_default(&o);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "test")) {
		usage(stderr);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout), 0;
		if ((r = parse_opt(argv, i, argc, &t, &o, &msg)) < 0)
			return 2;
		i += r;
	}
	if (!t.url_env || !gc_is_safe_token(t.url_env)) {
		gc_error("missing or invalid --url-env: name the environment variable "
			 "that holds the hook URL, e.g. --url-env GC_SLACK_URL");
		return 2;
	}
	ev.summary = msg;
	return gc_notify_send(&t, 1, &ev, &o, NULL) ? GC_EXIT_ENV : GC_EXIT_OK;
}
