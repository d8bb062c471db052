/* gcbench ingest: record files written by any program, stored as a run of a sweep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "db/db.h"
#include "log.h"
#include "netem/rate.h"
#include "orchestrator/ops/rec_ingest.h"
#include "orchestrator/remote/env_probe.h"
#include "strutil.h"

#ifndef GC_VERSION
#define GC_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench ingest FILE... --sweep NAME [--baseline METHOD] [--db PATH]\n"
		"                      [--tag TAG] [--bandwidth RATE] [--latency TIME] [--nodes N]\n"
		"                      [--model M] [--method X] [--params K=V,...] [--workload W]\n"
		"                      [--batch N]\n\n"
		"Store the record files of one run, one file per rank, written by any program\n"
		"(a PyTorch script started by torchrun or srun, a notebook, your own tool: the\n"
		"format is docs/records.md; python/gcbench_records.py writes it), as an ok run of\n"
		"the sweep NAME in the results database, with this host's environment (as\n"
		"'gcbench env' prints it). The views of docs/database.md (run_summary, speedup,\n"
		"...) then show it beside the sweep's other runs: ingest a baseline run and a\n"
		"compressed one into the same sweep and 'speedup' pairs them.\n\n"
		"Only a whole run is stored, in one transaction: nothing is written when a file\n"
		"is incomplete (no trailer) or malformed, a header lacks a required key, a rank\n"
		"is missing or given twice, or the headers disagree on method, params, workload,\n"
		"model, world, backend or batch. The message names the file.\n\n"
		"options:\n"
		"  --sweep NAME       the sweep to add the run to: the newest sweep of that name\n"
		"                     (one 'gcbench run' made, or an earlier ingest), else a new one\n"
		"  --baseline METHOD  the method the sweep's speedups compare with; required for a\n"
		"                     new sweep, must match an existing sweep's\n"
		"  --db PATH          the database (default: gcbench.db; created if missing)\n"
		"  --tag TAG          a label stored with this host's environment\n"
		"  --bandwidth RATE   the cap the run's links had (e.g. 1gbit; default: unlimited):\n"
		"                     gcbench did not shape them, this only labels the run\n"
		"  --latency TIME     the delay the links had (e.g. 10ms; default 0), a label too\n"
		"  --nodes N          hosts the run used (default: the distinct \"host\" values of\n"
		"                     the headers, 1 if they give none)\n"
		"  --model, --method, --params, --workload, --batch\n"
		"                     replace what every header says (or supply a missing key)\n\n"
		"example:\n"
		"  torchrun --nproc-per-node 2 train.py --records out/allreduce   # rank files\n"
		"  gcbench ingest out/allreduce/rank*.rec --sweep hooks --baseline allreduce\n"
		"  gcbench ingest out/powersgd/rank*.rec --sweep hooks\n"
		"  sqlite3 gcbench.db \"SELECT method, params, speedup FROM speedup\"\n");
}

struct ingest_cli {
	struct gc_ingest_opts o;
	const char *db, *tag;
	const char **files;
	size_t nfiles;
};

static int parse_int_opt(const char *opt, const char *v, int lo, int hi, int *out)
{
	int64_t x;

	if (gc_parse_i64(v, &x) || x < lo || x > hi) {
		gc_error("invalid %s '%s': give a whole number from %d to %d", opt, v, lo, hi);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* One option with a value at argv[*i + 1]; 0 ok, -1 bad value, 1 unknown option. */
static int option(struct ingest_cli *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	const char **str[] = { &c->o.sweep, &c->o.baseline, &c->db, &c->tag, &c->o.model,
			       &c->o.method, &c->o.params, &c->o.workload };
	static const char *const names[] = { "--sweep", "--baseline", "--db", "--tag",
					      "--model", "--method", "--params", "--workload" };
	gc_err e;
	uint32_t us;

	if (!v)
		return 1;
	(*i)++;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(a, names[k])) {
			*str[k] = v;
			return 0;
		}
	if (!strcmp(a, "--batch"))
		return parse_int_opt(a, v, 1, 2147483647, &c->o.batch);
	if (!strcmp(a, "--nodes"))
		return parse_int_opt(a, v, 1, 65536, &c->o.nodes);
	if (!strcmp(a, "--bandwidth")) {
		if (!gc_rate_parse(v, &c->o.bw_cap_bps, &e))
			return 0;
		gc_error("invalid --bandwidth: %s", e.msg);
		return -1;
	}
	if (!strcmp(a, "--latency")) {
		if (!gc_time_parse(v, &us, &e)) {
			c->o.latency_s = us / 1e6;
			return 0;
		}
		gc_error("invalid --latency: %s", e.msg);
		return -1;
	}
	(*i)--;
	return 1;
}

static int parse_args(struct ingest_cli *c, int argc, char **argv)
{
	c->files = calloc((size_t)argc, sizeof(*c->files));
	if (!c->files)
		return gc_error("out of memory"), 1;
	for (int i = 1; i < argc; i++) {
		int r;
		if (argv[i][0] != '-' || !strcmp(argv[i], "-")) {
			c->files[c->nfiles++] = argv[i];
			continue;
		}
		if ((r = option(c, argc, argv, &i)) < 0)
			return 2;
		if (r) {
			gc_error("unknown option '%s' for ingest (or its value is missing); see "
				 "'gcbench ingest --help'", argv[i]);
			return 2;
		}
	}
	if (!c->o.sweep || !*c->o.sweep) {
		gc_error("ingest needs --sweep NAME (the sweep to add the run to); see 'gcbench "
			 "ingest --help'");
		return 2;
	}
	if (!c->nfiles) {
		gc_error("ingest needs record files, one per rank of the run; see 'gcbench "
			 "ingest --help'");
		return 2;
	}
	return 0;
}

static int store(struct ingest_cli *c, const struct gc_ingest_set *s)
{
	struct gc_envinfo env;
	struct gc_db_ingest_req q;
	struct gc_db_ingest_out out;
	gc_db *db = NULL;
	gc_err e;
	gc_rc rc;

	gc_envinfo_probe(&env, GC_VERSION);
	gc_strlcpy(env.tag, c->tag ? c->tag : "", sizeof(env.tag));
	gc_ingest_request(s, &c->o, &env, &q);
	rc = gc_db_open(c->db, 0, &db, &e);
	if (!rc)
		rc = gc_db_ingest_run(db, &q, &out, &e);
	gc_db_close(db);
	if (rc) {
		gc_error("nothing was stored: %s", e.msg);
		return 1;
	}
	printf("run %lld: %s %s%s%s, world %d, %d iterations after %d warmup (%zu rows, "
	       "producer '%s'), in %s sweep %lld '%s' of %s\n", (long long)out.run_id,
	       q.run.model, q.run.method, *q.run.params ? " " : "", q.run.params,
	       q.run.world_size, q.run.iterations, q.run.warmup, out.rows, q.producer,
	       out.sweep_created ? "new" : "existing", (long long)out.sweep_id, c->o.sweep, c->db);
	return 0;
}

int cmd_ingest(int argc, char **argv)
{
	struct ingest_cli c = { .db = "gcbench.db" };
	struct gc_ingest_set s;
	gc_err e;
	int rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	if ((rc = parse_args(&c, argc, argv))) {
		free(c.files);
		return rc;
	}
	if (gc_ingest_load(c.files, c.nfiles, &c.o, &s, &e)) {
		gc_error("nothing was stored: %s", e.msg);
		free(c.files);
		return 1;
	}
	rc = store(&c, &s);
	gc_ingest_set_release(&s);
	free(c.files);
	return rc;
}
