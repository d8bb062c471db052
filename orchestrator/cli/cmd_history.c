/* gcbench history: the speedup of a method over time and over stack versions. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "db/db.h"
#include "db/q_history.h"
#include "log.h"
#include "netem/rate.h"
#include "orchestrator/run/run.h"
#include "orchestrator/ops/table.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench history --model M --method X [--bandwidth B] [--db PATH]\n\n"
		"Show the speedup of method X over the sweep's baseline (sync SGD) for model M\n"
		"at every point, one row per sweep (each night of a scheduled sweep is its own\n"
		"row) with its environment (driver, CUDA, NCCL, tag), oldest first: how a\n"
		"compression method's benefit moved from night to night and as the stack\n"
		"changed. params shows only what differs from the method's defaults.\n\n"
		"options:\n"
		"  --model M        the model (as in the sweep spec)\n"
		"  --method X       the method (signsgd, mstopk, powersgd, ...)\n"
		"  --bandwidth B    only this cap, in tc units (10gbit, 500mbit)\n"
		"  --db PATH        the results database (default gcbench.db)\n\n"
		"example:\n"
		"  gcbench history --db lab.db --model resnet50 --method powersgd --bandwidth 10gbit\n");
}

#define NCOL 11
static const char *const head[NCOL] = { "sweep", "started", "driver", "cuda", "nccl", "tag",
	"params", "bandwidth", "pxb", "iter_ms", "speedup" };

static int add_row(const struct gc_db_history_row *h, void *arg)
{
	gc_table *t = arg;
	char sweep[24], date[32] = "-", bw[32] = "unlimited", pb[32], ms[32], sp[32], params[192];
	const char *row[NCOL] = { sweep, date, h->driver, h->cuda, h->nccl, h->tag, params, bw,
				  pb, ms, sp };
	time_t tt = (time_t)h->started;
	struct tm tm;

	snprintf(sweep, sizeof sweep, "%lld", (long long)h->sweep_id);
	if (h->started > 0 && gmtime_r(&tt, &tm))
		strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
	if (h->bw_cap_bps > 0)
		gc_rate_format((uint64_t)h->bw_cap_bps, bw, sizeof bw);
	gc_params_brief(h->method, h->params, params, sizeof params);
	snprintf(pb, sizeof pb, "%dx%d", h->world_size, h->batch);
	snprintf(ms, sizeof ms, "%.2f", h->t_iter * 1e3);
	snprintf(sp, sizeof sp, "%.3f", h->speedup);
	for (int i = 2; i < 6; i++)
		row[i] = *row[i] ? row[i] : "-";
	return gc_table_add(t, row) ? 1 : 0;
}

static int parse_args(int argc, char **argv, const char **model, const char **method,
		      const char **db, int64_t *bw)
{
	uint64_t b;
	gc_err e;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--model"))
			*model = argv[i + 1];
		else if (!strcmp(argv[i], "--method"))
			*method = argv[i + 1];
		else if (!strcmp(argv[i], "--db"))
			*db = argv[i + 1];
		else if (!strcmp(argv[i], "--bandwidth")) {
			if (gc_rate_parse(argv[i + 1], &b, &e))
				return gc_error("invalid --bandwidth: %s", e.msg), -1;
			*bw = (int64_t)b;
		} else
			return gc_error("unknown option '%s'; see 'gcbench history --help'",
					argv[i]), -1;
	}
	if (i < argc)
		return gc_error("option '%s' needs a value", argv[i]), -1;
	if (!*model || !*method)
		return gc_error("history needs --model and --method; see 'gcbench history "
				"--help'"), -1;
	return 0;
}

int cmd_history(int argc, char **argv)
{
	const char *model = NULL, *method = NULL, *path = "gcbench.db";
	int64_t bw = -1;
	gc_db *db = NULL;
	gc_table t;
	gc_err e;
	int i, n = 0;
	gc_rc rc;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout), 0;
	if (parse_args(argc, argv, &model, &method, &path, &bw))
		return 2;
	if (gc_db_open(path, GC_DB_READONLY, &db, &e))
		return gc_error("cannot open database '%s': %s", path, e.msg), GC_EXIT_ENV;
	gc_table_init(&t, NCOL, head, "lllllllrrrr", 6);
	rc = gc_db_history(db, model, method, bw, add_row, &t, &e);
	gc_db_close(db);
	if (!rc && t.oom)
		rc = gc_fail(&e, GC_E_NOMEM, "out of memory");
	if (rc) {
		gc_table_release(&t);
		return gc_error("cannot read history: %s", e.msg), GC_EXIT_ENV;
	}
	n = (int)t.n;
	if (n)
		gc_table_print(&t, stdout, GC_SUMMARY_WIDTH);
	gc_table_release(&t);
	if (!n)
		printf("no ok runs of %s with %s (and its baseline) in %s\n", model, method, path);
	return 0;
}
