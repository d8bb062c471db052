/* gcbench regress: compare two driver/CUDA/NCCL stacks point by point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "db/db.h"
#include "fsutil.h"
#include "log.h"
#include "orchestrator/ops/notify.h"
#include "orchestrator/ops/regress.h"
#include "strutil.h"

static void regress_opt_lines(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench regress --baseline SEL --candidate SEL [options]\n"
		"       gcbench regress --baseline previous [options]\n"
		"       gcbench regress --series [--db PATH] [--min-effect F] [--format F]\n"
		"       gcbench regress --evaluate NIGHTS.csv [--trials N] [--alpha P]\n\n"
		"Compare every point (model, method, parameters, bandwidth, world size, batch)\n"
		"measured on both sides, so that noise is not called a regression: a change is\n"
		"flagged only when it is significant AND at least --min-effect. Points measured\n"
		"on one side only are listed, not compared.\n\n"
		"metrics (--metric):\n"
		"  time      (default) each point's median iteration time: any slowdown, the\n"
		"            baseline method's (sync SGD) included, fails the job. The safe gate\n"
		"            for cron: a slower sync SGD raises every speedup, so a speedup\n"
		"            metric alone would call it an improvement.\n"
		"  speedup   each method's speedup over the sweep's baseline method at the same\n"
		"            point on the same side: 'does compression still pay?'. A method whose\n"
		"            speedup fell from 1.4x to 1.1x because sync SGD got faster is flagged.\n"
		"Significance: a bootstrap interval of the change at confidence 1 - alpha. Where\n"
		"every sample of a point has 3 or more runs (repeats, or several nights on one\n"
		"side), runs are the unit of independence, not iterations (marked * in the\n"
		"output); else the iterations are, and time's verdict uses Mann-Whitney U.\n\n"
		"SEL: FIELD=VALUE[,FIELD=VALUE...] with FIELD one of driver, cuda, nccl, mpi,\n"
		"     kernel, libnl, sqlite, gcbench, host, gpu_model, tcp_cc, tag, env (an id);\n"
		"     versions match by prefix ('nccl=2.18' matches 2.18.3). 'sweep=ID' is one\n"
		"     sweep. 'job=ID', 'partition=P' or 'job=ID,partition=P' are the runs of a\n"
		"     SLURM job and/or partition. '--baseline previous' compares the last two\n"
		"     sweeps of the newest sweep's spec (last night against the night before).\n\n"
		"options:\n");
	regress_opt_lines(f);
	fprintf(f, "\n"
		"Nightly noise model: with '--baseline previous' (time metric), a point with one\n"
		"or two runs a night is judged against the level and night-to-night spread of up\n"
		"to 30 earlier nights of its series (since its last step; 5 needed), marked #.\n\n"
		"For cron and CI: 0 no significant regression, 1 a regression, 2 a usage\n"
		"error or a malformed selector, 3 cannot compare (the first night, a selector\n"
		"that matches nothing, an unreadable database).\n\n"
		"examples:\n"
		"  gcbench regress --db lab.db --baseline nccl=2.18 --candidate nccl=2.19\n"
		"  gcbench regress --db lab.db --baseline tag=before --candidate tag=after \\\n"
		"      --metric speedup\n"
		"  gcbench regress --db lab.db --baseline previous    # in the nightly job\n\n");
}

struct ropts {
	gc_regress_opts o;
	const char *db, *format, *notify_env, *notify_type, *evaluate;
	int series;
	uint64_t trials;
};


static int check_args(const struct ropts *r)
{
	if (r->notify_type && gc_notify_type_parse(r->notify_type, &(gc_notify_type){ 0 }, NULL)) {
		gc_error("invalid --notify-type '%s': webhook or slack", r->notify_type);
		return -1;
	}
	if (r->notify_env && !gc_is_safe_token(r->notify_env)) {
		gc_error("invalid --notify-env '%s': the name of an environment variable",
			 r->notify_env);
		return -1;
	}
	if (r->series || r->evaluate) {
		if (r->o.baseline || r->o.candidate || (r->series && r->evaluate)) {
			gc_error("--series and --evaluate go without --baseline, --candidate and "
				 "each other; see 'gcbench regress --help'");
			return -1;
		}
		return 0;
	}
	if (!r->o.baseline) {
		gc_error("missing --baseline; see 'gcbench regress --help'");
		return -1;
	}
	return 0;
}

static struct ropts rg;   /* the declarations' targets */

/* A number in [lo, hi] into the double target; the bounds: lo = 1 means 1e-12. */
static gc_rc frac_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	double lo = opt->lo ? 1e-12 : 0, hi = (double)opt->hi, *out = opt->target;

	if (gc_parse_double(v, out) || *out < lo || *out > hi)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%s': a number from %g to %g",
			       opt->o.name, v, lo, hi);
	return GC_OK;
}

static gc_rc metric_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (gc_regress_metric_parse(v, &rg.o.metric))
		return gc_fail(e, GC_E_INVAL, "invalid --metric '%s': time or speedup", v);
	return GC_OK;
}

static gc_rc json_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	rg.format = "json";
	return GC_OK;
}

static gc_rc trials_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (gc_parse_u64(v, &rg.trials) || rg.trials < 1 || rg.trials > 1000000)
		return gc_fail(e, GC_E_INVAL, "invalid --trials '%s': a whole number from 1 to "
			       "1000000", v);
	return GC_OK;
}

static gc_rc confirm_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (strcmp(v, "1") && strcmp(v, "2"))
		return gc_fail(e, GC_E_INVAL, "invalid --confirm '%s': 1 or 2 nights", v);
	rg.o.confirm = v[0] - '0';
	return GC_OK;
}

#define FRAC(l, var, tiny, high, a, h) { .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = a, .help = h, \
	.type = GC_OT_CALLBACK, .cb = frac_cb, .target = (var), .lo = tiny, .hi = high }
static const struct gc_option regress_opts[] = {
	/* in the synopsis and under SEL above */
	GC_OPTION_STRING("--baseline", NULL, &rg.o.baseline, "SEL", NULL),
	GC_OPTION_STRING("--candidate", NULL, &rg.o.candidate, "SEL", NULL),
	GC_OPTION_STRING("--db", NULL, &rg.db, "PATH", "the results database (default gcbench.db)"),
	GC_OPTION_CALLBACK("--metric", NULL, GC_OPT_ARG, metric_cb, "M", "time (default) or speedup"),
	FRAC("--min-effect", &rg.o.min_effect, 0, 10, "F",
	     "smallest change of the medians that counts (0.05 = 5%)"),
	FRAC("--alpha", &rg.o.alpha, 1, 1, "P", "significance level of the test (default 0.01)"),
	GC_OPTION_STRING("--format", NULL, &rg.format, "F", "table (default), markdown or json"),
	GC_OPTION_CALLBACK("--json", NULL, 0, json_cb, NULL, "the same as --format json"),
	GC_OPTION_STRING("--notify-env", NULL, &rg.notify_env, "NAME",
			 "on a regression, post to the webhook URL in $NAME"),
	GC_OPTION_STRING("--notify-type", NULL, &rg.notify_type, "T", "webhook (default) or slack"),
	GC_OPTION_FLAG("--series", NULL, &rg.series,
		"every point's series over the nights (sweeps) of the newest\n"
		"sweep's spec, and its steps: the sweep a step began and the\n"
		"environment fields that changed that night (a view: exit 0;\n"
		"--format csv writes point,night,median_s)"),
	GC_OPTION_STRING("--evaluate", NULL, &rg.evaluate, "FILE",
		"the false-alarm rate and recall of the nightly verdict on\n"
		"series resampled from measured nights (FILE: the csv of\n"
		"--series; tools/regress-eval.sh measures them)"),
	GC_OPTION_CALLBACK("--trials", NULL, GC_OPT_ARG, trials_cb, "N",
		"comparisons of each kind for --evaluate (default 3000)"),
	GC_OPTION_CALLBACK("--confirm", NULL, GC_OPT_ARG, confirm_cb, "N",
		"nightly noise model: nights that must lie beyond it for a\n"
		"REGRESSION, 1 or 2 (default: 2 for a point with one run\n"
		"that night, else 1); with 2, a first night beyond is\n"
		"'suspect' (exit 0): tomorrow confirms it or not"),
};

static void regress_opt_lines(FILE *f)
{
	gc_opts_usage(f, regress_opts, sizeof regress_opts / sizeof regress_opts[0], 22);
}

/* 0 to go on, -1 for a mistake (reported), 1 when help or version was printed. */
static int parse_args(int argc, char **argv, struct ropts *r)
{
	gc_opts o;
	int id;

	rg = *r;   /* the defaults */
	gc_opts_decl_init(&o, "gcbench regress", regress_opts,
			  sizeof regress_opts / sizeof regress_opts[0], argc, argv, NULL);
	id = gc_opts_parse_all(&o);
	*r = rg;
	if (id != GC_OPTS_END)
		return gc_cli_opts_stop(&o, id, usage) ? -1 : 1;
	return check_args(r);
}

static void notify_regression(const struct ropts *r, const gc_regress_report *rep)
{
	gc_notify_target t = { GC_NOTIFY_WEBHOOK, r->notify_env };
	gc_notify_event ev = { GC_NOTIFY_REGRESSION, NULL, NULL, NULL };
	char summary[768], details[512];

	if (r->notify_type && gc_notify_type_parse(r->notify_type, &t.type, NULL))
		return;
	snprintf(summary, sizeof summary, "%zu of %zu points %s by >= %.0f%% (alpha %g): "
		 "%s vs %s", rep->n_regressions, rep->n, rep->metric == GC_METRIC_SPEEDUP ?
		 "lost speedup" : "slower", rep->min_effect * 100, rep->alpha, rep->cand_desc,
		 rep->base_desc);
	snprintf(details, sizeof details, "gcbench regress --db %s --baseline %s%s%s%s",
		 r->db, r->o.baseline, r->o.candidate ? " --candidate " : "",
		 r->o.candidate ? r->o.candidate : "",
		 r->o.metric == GC_METRIC_SPEEDUP ? " --metric speedup" : "");
	ev.summary = summary;
	ev.details = details;
	gc_notify_send(&t, 1, &ev, NULL, NULL);   /* failures are logged, never fatal */
}

/* --series: the newest spec's nights and every point's steps. */
static int run_series(const struct ropts *r)
{
	gc_regress_series s;
	gc_db *db = NULL;
	gc_err e;
	gc_rc rc;

	if (strcmp(r->format, "table") && strcmp(r->format, "markdown") &&
	    strcmp(r->format, "json") && strcmp(r->format, "csv"))
		return gc_error("unknown --format '%s': table, markdown, json or csv", r->format),
			GC_EXIT_USAGE;
	if (gc_db_open(r->db, GC_DB_READONLY, &db, &e))
		return gc_error("cannot open database '%s': %s", r->db, e.msg), GC_EXIT_ENV;
	rc = gc_regress_series_load(db, 0, 0, &s, &e);
	gc_db_close(db);
	if (rc)
		return gc_error("cannot read the series: %s", e.msg), gc_exit_code(rc);
	gc_regress_series_steps(&s, r->o.min_effect);
	rc = gc_regress_series_print(stdout, &s, r->format, &e);
	gc_regress_series_release(&s);
	if (rc)
		return gc_error("%s", e.msg), GC_EXIT_ENV;
	return GC_EXIT_OK;
}

static void eval_row(const char *what, size_t hist, size_t n, const gc_series_rate *r,
		     const char *when)
{
	double lo, hi;

	gc_binom_ci(r->false_alerts, n, 0.95, &lo, &hi);
	printf("%-22s %3zu   %5.2f (%4zu of %zu; %.2f-%.2f)   %5.3f (%4zu of %zu) %s\n", what,
	       hist, 100.0 * (double)r->false_alerts / (double)n, r->false_alerts, n, lo * 100,
	       hi * 100, (double)r->detected / (double)n, r->detected, n, when);
}

/* --evaluate FILE: the false-alarm and recall table. */
static int run_evaluate(const struct ropts *r)
{
	static const size_t hist[] = { GC_SERIES_MIN_HISTORY, 10, GC_SERIES_WINDOW };
	unsigned char *text = NULL;
	size_t len, trials = r->trials ? (size_t)r->trials : 3000;
	gc_series_set set;
	gc_series_eval ev;
	double lo, hi;
	gc_err e;

	if (gc_read_whole(r->evaluate, "measured nights", 64u << 20, &text, &len, &e))
		return gc_error("%s", e.msg), GC_EXIT_ENV;
	if (gc_series_set_parse((const char *)text, len, &set, &e)) {
		free(text);
		return gc_error("invalid measured nights '%s': %s", r->evaluate, e.msg),
			GC_EXIT_USAGE;
	}
	free(text);
	printf("measured nights: %s (%zu points)\n", r->evaluate, set.npoints);
	printf("each row: %zu unchanged comparisons (a point's nights resampled, each night "
	       "independently,\nfrom its measured ones) and as many with a step that begins "
	       "at the first night\njudged and lasts: max(3 x the point's night-to-night "
	       "spread, 5%%) slower;\nalpha %g (one direction %g), min effect %.0f%%; "
	       "false alerts with their 95%%\nClopper-Pearson interval over the comparisons\n\n",
	       trials, r->o.alpha, r->o.alpha / 2, r->o.min_effect * 100);
	printf("%-22s %s   %-32s %s\n", "verdict", "nights", "false alerts / 100 unchanged",
	       "recall (judged at)");
	for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++) {
		if (gc_series_evaluate(&set, trials, hist[i], 3, 0.05, r->o.alpha,
				       r->o.min_effect, 0x5EED + i, &ev, &e)) {
			gc_series_set_release(&set);
			return gc_error("cannot evaluate: %s", e.msg), GC_EXIT_USAGE;
		}
		eval_row("one night, --confirm 1", hist[i], ev.trials, &ev.one, "first night");
		eval_row("confirmed, --confirm 2", hist[i], ev.trials, &ev.confirmed,
			 "second night");
		eval_row("--series step", hist[i] + 2, ev.trials, &ev.steps, "named first night");
	}
	printf("\nthe measured nights as they are (each night against the earlier ones, %d or "
	       "more):\n", GC_SERIES_MIN_HISTORY);
	for (int c = 0; c < 2; c++) {
		if (!ev.real_judged[c]) {
			printf("  --confirm %d: no point has %d nights before the ones judged\n",
			       c + 1, GC_SERIES_MIN_HISTORY);
			continue;
		}
		gc_binom_ci(ev.real_alerts[c], ev.real_judged[c], 0.95, &lo, &hi);
		printf("  --confirm %d: %zu of %zu nights called REGRESSION (95%% interval "
		       "%.1f-%.1f%%)\n", c + 1, ev.real_alerts[c], ev.real_judged[c],
		       lo * 100, hi * 100);
	}
	printf("\n%zu points with 3 or more nights; median night-to-night spread %.2f%%, median "
	       "step %.2f%%\ngoal: at most 1 false alert / 100, recall >= 0.9\n", ev.points,
	       ev.median_spread * 100, ev.median_step * 100);
	gc_series_set_release(&set);
	return GC_EXIT_OK;
}

int cmd_regress(int argc, char **argv)
{
	struct ropts r = { .db = "gcbench.db", .format = "table" };
	gc_regress_report rep;
	gc_db *db = NULL;
	gc_err e;
	gc_rc rc;
	int i;

	gc_regress_opts_default(&r.o);
	if ((i = parse_args(argc, argv, &r)))
		return i > 0 ? GC_EXIT_OK : GC_EXIT_USAGE;
	if (r.series)
		return run_series(&r);
	if (r.evaluate)
		return run_evaluate(&r);
	if (strcmp(r.format, "table") && strcmp(r.format, "markdown") && strcmp(r.format, "json"))
		return gc_error("unknown --format '%s': table, markdown or json", r.format), GC_EXIT_USAGE;
	if (gc_db_open(r.db, GC_DB_READONLY, &db, &e))
		return gc_error("cannot open database '%s': %s", r.db, e.msg), GC_EXIT_ENV;
	rc = gc_regress_compare(db, &r.o, &rep, &e);
	gc_db_close(db);
	if (rc) {
		gc_error("cannot compare: %s", e.msg);
		return gc_exit_code(rc);   /* a bad selector 2, nothing to compare 3 */
	}
	if (gc_regress_print(stdout, &rep, r.format, &e)) {
		gc_error("%s", e.msg);
		gc_regress_report_release(&rep);
		return GC_EXIT_ENV;
	}
	fflush(stdout);
	if (rep.n_regressions && r.notify_env)
		notify_regression(&r, &rep);
	i = rep.n_regressions ? GC_EXIT_FAILED : GC_EXIT_OK;
	gc_regress_report_release(&rep);
	return i;
}
