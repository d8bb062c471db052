/* gcbench history: the speedup of a method over time and over stack versions. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "db/db.h"
#include "log.h"
#include "netem/rate.h"
#include "regress.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench history --model M --method X [--bandwidth B] [--db PATH]\n\n"
		"Show the speedup of method X over the sweep's baseline (sync SGD) for model M\n"
		"at every point, in every environment (driver, CUDA, NCCL, tag), oldest first:\n"
		"how a compression method's benefit moved as the stack changed.\n\n"
		"options:\n"
		"  --model M        the model (as in the sweep spec)\n"
		"  --method X       the method (signsgd, mstopk, powersgd, ...)\n"
		"  --bandwidth B    only this cap, in tc units (10gbit, 500mbit)\n"
		"  --db PATH        the results database (default gcbench.db)\n\n"
		"example:\n"
		"  gcbench history --db lab.db --model resnet50 --method powersgd --bandwidth 10gbit\n");
}

static int print_row(const gc_history_row *h, void *arg)
{
	int *n = arg;
	char date[32] = "-", bw[32] = "unlimited";
	time_t t = (time_t)h->first_seen;
	struct tm tm;

	if ((*n)++ == 0)
		printf("%-16s %-4s %-12s %-8s %-8s %-12s %-10s %-14s %3s %5s %9s %7s\n",
		       "first seen", "env", "driver", "cuda", "nccl", "tag", "bandwidth",
		       "params", "p", "batch", "iter ms", "speedup");
	if (h->first_seen > 0 && gmtime_r(&t, &tm))
		strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
	if (h->bw_cap_bps > 0)
		gc_rate_format((uint64_t)h->bw_cap_bps, bw, sizeof bw);
	printf("%-16s %-4lld %-12s %-8s %-8s %-12s %-10s %-14s %3d %5d %9.2f %7.3f\n", date,
	       (long long)h->env_id, h->driver[0] ? h->driver : "-", h->cuda[0] ? h->cuda : "-",
	       h->nccl[0] ? h->nccl : "-", h->tag[0] ? h->tag : "-", bw,
	       h->params[0] ? h->params : "-", h->world_size, h->batch, h->t_iter * 1e3,
	       h->speedup);
	return 0;
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
	gc_err e;
	int i, n = 0;
	gc_rc rc;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout), 0;
	if (parse_args(argc, argv, &model, &method, &path, &bw))
		return 2;
	if (gc_db_open(path, GC_DB_READONLY, &db, &e))
		return gc_error("cannot open database '%s': %s", path, e.msg), 1;
	rc = gc_history(gc_db_handle(db), model, method, bw, print_row, &n, &e);
	gc_db_close(db);
	if (rc)
		return gc_error("cannot read history: %s", e.msg), 1;
	if (!n)
		printf("no ok runs of %s with %s (and its baseline) in %s\n", model, method, path);
	return 0;
}
