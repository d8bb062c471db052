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
		"  --connect-timeout T, --timeout T   per attempt (3s, 5s)\n"
		"  --backoff T           first backoff (500ms); --deadline T the whole call (30s)\n"
		"                        (a time: a number with s, ms or min; bare is seconds)\n\n"
		"exit status: 0 delivered, 3 not delivered (the reason is printed), 2 usage.\n\n"
		"example:\n"
		"  export GCBENCH_SLACK_URL=https://hooks.slack.com/services/...\n"
		"  gcbench notify test --type slack --url-env GCBENCH_SLACK_URL\n");
}

enum { N_TYPE = 1, N_URLENV, N_MSG, N_TRIES, N_CONNECT, N_TIMEOUT, N_BACKOFF, N_DEADLINE,
       N_CONNECT_MS, N_TIMEOUT_MS, N_BACKOFF_MS, N_DEADLINE_MS };
static const struct gc_opt notify_opts[] = {
	{ "--type", NULL, GC_OPT_ARG, N_TYPE }, { "--url-env", NULL, GC_OPT_ARG, N_URLENV },
	{ "--message", NULL, GC_OPT_ARG, N_MSG }, { "--tries", NULL, GC_OPT_ARG, N_TRIES },
	{ "--connect-timeout", NULL, GC_OPT_ARG, N_CONNECT },
	{ "--timeout", NULL, GC_OPT_ARG, N_TIMEOUT }, { "--backoff", NULL, GC_OPT_ARG, N_BACKOFF },
	{ "--deadline", NULL, GC_OPT_ARG, N_DEADLINE },
	/* deprecated: milliseconds; say what to write instead */
	{ "--connect-timeout-ms", NULL, GC_OPT_ARG, N_CONNECT_MS },
	{ "--timeout-ms", NULL, GC_OPT_ARG, N_TIMEOUT_MS },
	{ "--backoff-ms", NULL, GC_OPT_ARG, N_BACKOFF_MS },
	{ "--deadline-ms", NULL, GC_OPT_ARG, N_DEADLINE_MS },
};

static long *time_field(gc_notify_opts *o, int id)
{
	switch (id) {
	case N_CONNECT: case N_CONNECT_MS: return &o->connect_timeout_ms;
	case N_TIMEOUT: case N_TIMEOUT_MS: return &o->timeout_ms;
	case N_BACKOFF: case N_BACKOFF_MS: return &o->backoff_ms;
	default: return &o->deadline_ms;
	}
}

/* One option; 0 or -1 (reported). */
static int parse_opt(gc_opts *p, int id, gc_notify_target *t, gc_notify_opts *o,
		     const char **msg)
{
	const char *v = p->val;
	char sec[64], what[64];
	int64_t x;
	double d;
	gc_err e;

	switch (id) {
	case N_TYPE:
		if (gc_notify_type_parse(v, &t->type, &e))
			return gc_error("%s", e.msg), -1;
		return 0;
	case N_URLENV: t->url_env = v; return 0;
	case N_MSG: *msg = v; return 0;
	case N_TRIES:
		if (gc_parse_i64(v, &x) || x < 1 || x > 10)
			return gc_error("invalid --tries '%s': 1 to 10", v), -1;
		o->tries = (int)x;
		return 0;
	}
	if (id >= N_CONNECT_MS) {
		/* the old spelling: milliseconds, said once what to write instead */
		snprintf(what, sizeof what, "%.*s", (int)strlen(p->opt) - 3, p->opt);
		if (gc_parse_i64(v, &x) || x < 0 || x > 600000)
			return gc_error("invalid %s '%s': give milliseconds, 0 to 600000", p->opt,
					v), -1;
		gc_warn("%s is deprecated: write %s %lldms", p->opt, what, (long long)x);
		snprintf(sec, sizeof sec, "%lldms", (long long)x);
		v = sec;
	}
	if (gc_opts_seconds(id >= N_CONNECT_MS ? what : p->opt, v, 0, 600, &d, &e))
		return gc_error("%s", e.msg), -1;
	*time_field(o, id) = (long)(d * 1000 + 0.5);
	return 0;
}

int cmd_notify(int argc, char **argv)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, NULL };
	gc_notify_opts o;
	gc_notify_event ev = { GC_NOTIFY_TEST, "notify-test", NULL,
			       "gcbench notify --help" };
	const char *msg = "This is a test notification from 'gcbench notify test'.";
	gc_opts p;
	int r;

	gc_notify_opts_default(&o);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && argv[1][0] == '-') {   /* --version, or an option before 'test' */
		gc_opts_init(&p, "gcbench notify", notify_opts, 0, argc, argv);
		return gc_cli_opts_stop(&p, gc_opts_next(&p), usage);
	}
	if (argc < 2 || strcmp(argv[1], "test")) {
		static const char *const subs[] = { "test" };
		if (argc < 2)
			return usage(stderr), GC_EXIT_USAGE;
		return gc_cli_unknown_sub("gcbench notify", argv[1], subs, 1);
	}
	gc_opts_init(&p, "gcbench notify test", notify_opts,
		     sizeof notify_opts / sizeof notify_opts[0], argc - 1, argv + 1);
	while ((r = gc_opts_next(&p)) > 0)
		if (parse_opt(&p, r, &t, &o, &msg))
			return GC_EXIT_USAGE;
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, usage);
	if (!t.url_env || !gc_is_safe_token(t.url_env)) {
		gc_error("missing or invalid --url-env: name the environment variable "
			 "that holds the hook URL, e.g. --url-env GCBENCH_SLACK_URL");
		return GC_EXIT_USAGE;
	}
	ev.summary = msg;
	return gc_notify_send(&t, 1, &ev, &o, NULL) ? GC_EXIT_ENV : GC_EXIT_OK;
}
