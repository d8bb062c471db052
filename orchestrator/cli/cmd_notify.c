/* gcbench notify test: send a test notification to check a hook. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/ops/notify.h"
#include "strutil.h"

static gc_notify_target nt = { GC_NOTIFY_WEBHOOK, NULL };   /* the declarations' targets */
static gc_notify_opts no;
static const char *msg = "This is a test notification from 'gcbench notify test'.";

static gc_rc type_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	return gc_notify_type_parse(v, &nt.type, e);
}

static gc_rc tries_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int64_t x;

	if (gc_parse_i64(v, &x) || x < 1 || x > 10)
		return gc_fail(e, GC_E_INVAL, "invalid --tries '%s': 1 to 10", v);
	no.tries = (int)x;
	return GC_OK;
}

/* A time option into its milliseconds (target: a long). */
static gc_rc time_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	double d;
	gc_rc rc = gc_opts_seconds(opt->o.name, v, 0, 600, &d, e);

	if (!rc)
		*(long *)opt->target = (long)(d * 1000 + 0.5);
	return rc;
}

/* The old spelling NAME-ms: milliseconds, said once what to write instead. */
static gc_rc time_ms_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	char sec[64], what[64];
	int64_t x;
	double d;
	gc_rc rc;

	snprintf(what, sizeof what, "%.*s", (int)strlen(opt->o.name) - 3, opt->o.name);
	if (gc_parse_i64(v, &x) || x < 0 || x > 600000)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%s': give milliseconds, 0 to 600000",
			       opt->o.name, v);
	gc_warn("%s is deprecated: write %s %lldms", opt->o.name, what, (long long)x);
	snprintf(sec, sizeof sec, "%lldms", (long long)x);
	if (!(rc = gc_opts_seconds(what, sec, 0, 600, &d, e)))
		*(long *)opt->target = (long)(d * 1000 + 0.5);
	return rc;
}

#define TIME(l, var, cb_fn, h) { .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = "T", .help = h, \
				 .type = GC_OT_CALLBACK, .cb = cb_fn, .target = (var) }
static const struct gc_option notify_opts[] = {
	GC_OPTION_CALLBACK("--type", NULL, GC_OPT_ARG, type_cb, "T",
			   "webhook (generic JSON) or slack (incoming webhook)"),
	GC_OPTION_STRING("--url-env", NULL, &nt.url_env, "NAME", "the variable that holds the URL"),
	GC_OPTION_STRING("--message", NULL, &msg, "TEXT",
			 "the summary line (default: a test message)"),
	GC_OPTION_CALLBACK("--tries", NULL, GC_OPT_ARG, tries_cb, "N",
			   "attempts (default 3), backoff 0.5 s, 1 s, 2 s..."),
	TIME("--connect-timeout", &no.connect_timeout_ms, time_cb, NULL),
	TIME("--timeout", &no.timeout_ms, time_cb, NULL),
	GC_OPTION_DOC("--connect-timeout T, --timeout T", NULL, "per attempt (3s, 5s)"),
	TIME("--backoff", &no.backoff_ms, time_cb,
	     "first backoff (500ms); --deadline T the whole call (30s)\n"
	     "(a time: a number with s, ms or min; bare is seconds)"),
	TIME("--deadline", &no.deadline_ms, time_cb, NULL),
	/* deprecated: milliseconds; say what to write instead */
	TIME("--connect-timeout-ms", &no.connect_timeout_ms, time_ms_cb, NULL),
	TIME("--timeout-ms", &no.timeout_ms, time_ms_cb, NULL),
	TIME("--backoff-ms", &no.backoff_ms, time_ms_cb, NULL),
	TIME("--deadline-ms", &no.deadline_ms, time_ms_cb, NULL),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench notify test --type webhook|slack --url-env NAME [options]\n\n"
		"Send a test notification, as a sweep does when it finishes or fails and as\n"
		"'gcbench regress' does when it finds a regression. The hook URL is a secret:\n"
		"it is read from the environment variable NAME and never printed.\n\n"
		"options:\n");
	gc_opts_usage(f, notify_opts, sizeof notify_opts / sizeof notify_opts[0], 24);
	fprintf(f, "\n"
		"exit status: 0 delivered, 3 not delivered (the reason is printed), 2 usage.\n\n"
		"example:\n"
		"  export GCBENCH_SLACK_URL=https://hooks.slack.com/services/...\n"
		"  gcbench notify test --type slack --url-env GCBENCH_SLACK_URL\n");
}

int cmd_notify(int argc, char **argv)
{
	gc_notify_event ev = { GC_NOTIFY_TEST, "notify-test", NULL,
			       "gcbench notify --help" };
	gc_opts p;
	int r;

	gc_notify_opts_default(&no);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return GC_EXIT_OK;
	}
	if (argc >= 2 && argv[1][0] == '-') {   /* --version, or an option before 'test' */
		gc_opts_decl_init(&p, "gcbench notify", notify_opts, 0, argc, argv, NULL);
		return gc_cli_opts_stop(&p, gc_opts_next(&p), usage);
	}
	if (argc < 2 || strcmp(argv[1], "test")) {
		static const char *const subs[] = { "test" };
		if (argc < 2)
			return usage(stderr), GC_EXIT_USAGE;
		return gc_cli_unknown_sub("gcbench notify", argv[1], subs, 1);
	}
	gc_opts_decl_init(&p, "gcbench notify test", notify_opts,
			  sizeof notify_opts / sizeof notify_opts[0], argc - 1, argv + 1, NULL);
	if ((r = gc_opts_parse_all(&p)) != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, usage);
	if (!nt.url_env || !gc_is_safe_token(nt.url_env)) {
		gc_error("missing or invalid --url-env: name the environment variable "
			 "that holds the hook URL, e.g. --url-env GCBENCH_SLACK_URL");
		return GC_EXIT_USAGE;
	}
	ev.summary = msg;
	return gc_notify_send(&nt, 1, &ev, &no, NULL) ? GC_EXIT_ENV : GC_EXIT_OK;
}
