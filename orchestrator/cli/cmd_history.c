/* gcbench history: the speedup of a method over time and over stack versions. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "db/db.h"
#include "db/q_history.h"
#include "log.h"
#include "netem/rate.h"
#include "orchestrator/ops/run_view.h"
#include "orchestrator/ops/regress.h"
#include "orchestrator/ops/table.h"

static void history_opt_lines(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench history --model M --method X [--bandwidth B] [--network N]\n"
		"                       [--job ID] [--partition P] [--db PATH] [--json]\n\n"
		"Show the speedup of method X over the sweep's baseline (sync SGD) for model M\n"
		"at every point, one row per sweep (each night of a scheduled sweep is its own\n"
		"row) with its environment (driver, CUDA, NCCL, tag), oldest first: how a\n"
		"compression method's benefit moved from night to night and as the stack\n"
		"changed. params shows only what differs from the method's defaults (a\n"
		"command's in full), after STACK/ for a run of a spec with stacks:. network is\n"
		"'uniform' or the point's network axes joined by '+' ('slow n3:0.5', 'uplink\n"
		"2:1', 'bg 1', 'trace:square.txt'); each row's baseline ran on the same network.\n\n"
		"options:\n");
	history_opt_lines(f);
	fprintf(f, "\n"
		"example:\n"
		"  gcbench history --db lab.db --model resnet50 --method powersgd --bandwidth 10gbit\n");
}

#define NCOL 12
static const char *const head[NCOL] = { "sweep", "started", "driver", "cuda", "nccl", "tag",
	"params", "bandwidth", "network", "pxb", "iter_ms", "speedup" };

struct rows {
	gc_table t;
	int json;                 /* started as --json writes times (gc_json_time_field) */
};

static int add_row(const struct gc_db_history_row *h, void *arg)
{
	struct rows *rs = arg;
	gc_table *t = &rs->t;
	char sweep[24], date[32] = "-", bw[32] = "unlimited", pb[32], ms[32], sp[32], params[192];
	char brief[160];
	const char *row[NCOL] = { sweep, date, h->driver, h->cuda, h->nccl, h->tag, params, bw,
				  h->network, pb, ms, sp };
	time_t tt = (time_t)h->started;
	struct tm tm;

	snprintf(sweep, sizeof sweep, "%lld", (long long)h->sweep_id);
	/* UTC; --json writes it as every --json does (gc_json_time_field) */
	if (h->started > 0 && gmtime_r(&tt, &tm))
		strftime(date, sizeof date, rs->json ? "%Y-%m-%dT%H:%M:%SZ" :
			 "%Y-%m-%d %H:%M", &tm);
	gc_bw_format(h->bw_cap_bps > 0 ? (uint64_t)h->bw_cap_bps : 0, bw, sizeof bw);
	gc_params_brief(h->workload, h->method, h->params, brief, sizeof brief);
	row[6] = gc_stack_method(h->stack, brief, params, sizeof params);   /* pytorch/rank=4 */
	snprintf(pb, sizeof pb, "%dx%d", h->world_size, h->batch);
	snprintf(ms, sizeof ms, "%.2f", h->t_iter * 1e3);
	snprintf(sp, sizeof sp, "%.3f", h->speedup);
	for (int i = 2; i < 6; i++)
		row[i] = *row[i] ? row[i] : "-";
	return gc_table_add(t, row) ? 1 : 0;
}

struct history_args {
	const char *model, *method, *db;
	int64_t bw;
	int json;
	char job[32];              /* "" when not given */
	const char *partition;     /* NULL when not given */
	const char *network;       /* NULL when not given */
};

static struct history_args ha = { NULL, NULL, "gcbench.db", -1, 0, "", NULL, NULL };

static gc_rc job_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (gc_regress_job_parse(v, ha.job, sizeof ha.job))
		return gc_fail(e, GC_E_INVAL, "invalid --job '%.64s': give the SLURM job id "
			       "(digits, as squeue shows it)", v);
	return GC_OK;
}

static gc_rc partition_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (!gc_regress_valid_partition(v))
		return gc_fail(e, GC_E_INVAL, "invalid --partition '%.64s': a partition name is "
			       "[A-Za-z0-9._-] (as sinfo shows it)", v);
	ha.partition = v;
	return GC_OK;
}

static gc_rc network_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (!*v || strlen(v) > 512)
		return gc_fail(e, GC_E_INVAL, "invalid --network '%.64s': give a network as history "
			       "shows it ('uniform', 'slow n3:0.5', 'slow')", v);
	ha.network = v;
	return GC_OK;
}

static gc_rc bandwidth_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	uint64_t b;
	gc_err why;

	if (gc_bw_parse(v, GC_BW_BARE_GBIT, &b, &why))
		return gc_fail(e, GC_E_INVAL, "invalid --bandwidth: %s", why.msg);
	ha.bw = (int64_t)b;
	return GC_OK;
}

static const struct gc_option history_opts[] = {
	GC_OPTION_STRING("--model", NULL, &ha.model, "M", "the model (as in the sweep spec)"),
	GC_OPTION_STRING("--method", NULL, &ha.method, "X",
			 "the method (signsgd, mstopk, powersgd, ...)"),
	GC_OPTION_CALLBACK("--bandwidth", NULL, GC_OPT_ARG, bandwidth_cb, "B",
			   "only this cap, in tc units (10gbit, 500mbit)"),
	GC_OPTION_CALLBACK("--network", NULL, GC_OPT_ARG, network_cb, "N",
			   "only rows whose network is N, has N as one of its '+'\n"
			   "parts ('slow n3:0.5'), or has a part of kind N ('uniform',\n"
			   "'slow', 'uplink', 'bg', 'trace')"),
	GC_OPTION_CALLBACK("--job", NULL, GC_OPT_ARG, job_cb, "ID",
			   "only the runs of this SLURM job (runs.slurm_job)"),
	GC_OPTION_CALLBACK("--partition", NULL, GC_OPT_ARG, partition_cb, "P",
			   "only the runs in this SLURM partition"),
	GC_OPTION_STRING("--db", NULL, &ha.db, "PATH", "the results database (default gcbench.db)"),
	GC_OPTION_FLAG("--json", NULL, &ha.json,
		       "the rows as a JSON array of objects (the columns above);\n"
		       "started as every --json gives times: \"2026-12-04T22:30:40Z\""),
};

static void history_opt_lines(FILE *f)
{
	gc_opts_usage(f, history_opts, sizeof history_opts / sizeof history_opts[0], 19);
}

/* 0 to go on, else the exit status (help, version, a mistake). */
static int parse_args(int argc, char **argv, struct history_args *a, int *stop)
{
	gc_opts o;
	int r;

	*stop = 1;
	gc_opts_decl_init(&o, "gcbench history", history_opts,
			  sizeof history_opts / sizeof history_opts[0], argc, argv, NULL);
	r = gc_opts_parse_all(&o);
	*a = ha;
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&o, r, usage);
	if (!a->model || !a->method)
		return gc_error("history needs --model and --method; see 'gcbench history "
				"--help'"), GC_EXIT_USAGE;
	*stop = 0;
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct history_args a;
	struct gc_db_history_filter f;
	gc_db *db = NULL;
	struct rows rs = { .json = 0 };
	gc_table *t = &rs.t;
	gc_err e;
	int n = 0, stop, x;
	gc_rc rc;

	if ((x = parse_args(argc, argv, &a, &stop)) || stop)
		return x;
	if (gc_db_open(a.db, GC_DB_READONLY, &db, &e))
		return gc_error("cannot open database '%s': %s", a.db, e.msg), GC_EXIT_ENV;
	rs.json = a.json;
	gc_table_init(t, NCOL, head, "llllllllrrrr", 6);
	f = (struct gc_db_history_filter){ a.model, a.method, a.bw, a.job[0] ? a.job : NULL,
					   a.partition, a.network };
	rc = gc_db_history_filter(db, &f, add_row, &rs, &e);
	gc_db_close(db);
	if (!rc && t->oom)
		rc = gc_fail(&e, GC_E_NOMEM, "out of memory");
	if (rc) {
		gc_table_release(t);
		return gc_error("cannot read history: %s", e.msg), GC_EXIT_ENV;
	}
	if (a.json) {
		gc_buf b;
		gc_json j;
		gc_buf_init(&b);
		gc_json_init(&j, &b, 0);
		gc_table_json(t, &j);
		gc_table_release(t);
		return gc_cli_json_print(&b, &j);
	}
	n = (int)t->n;
	if (n)
		gc_table_print(t, stdout, GC_SUMMARY_WIDTH);
	gc_table_release(t);
	if (!n)
		printf("no ok runs of %s with %s (and its baseline)%s%s%s%s%s%s in %s\n", a.model,
		       a.method, a.job[0] ? " in job " : "", a.job, a.partition ?
		       " in partition " : "", a.partition ? a.partition : "",
		       a.network ? " on network " : "", a.network ? a.network : "", a.db);
	return GC_EXIT_OK;
}
