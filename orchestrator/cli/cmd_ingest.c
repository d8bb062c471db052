/* gcbench ingest: record files written by any program, stored as a run of a sweep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
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
		"                     replace what every header says (or supply a missing key)\n"
		"  --json             print the stored run as one JSON object\n\n"
		"example:\n"
		"  torchrun --nproc-per-node 2 train.py --out out/allreduce   # rank files\n"
		"  gcbench ingest out/allreduce/rank*.gcr --sweep hooks --baseline allreduce\n"
		"  gcbench ingest out/powersgd/rank*.gcr --sweep hooks\n"
		"  sqlite3 gcbench.db \"SELECT method, params, speedup FROM speedup\"\n");
}

struct ingest_cli {
	struct gc_ingest_opts o;
	const char *db, *tag;
	int json;                 /* --json: the stored run as one JSON object */
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

enum { I_STR = 1, I_BATCH = 9, I_NODES, I_BW, I_LAT, I_JSON };
static const struct gc_opt ingest_opts[] = {
	{ "--sweep", NULL, GC_OPT_ARG, I_STR }, { "--baseline", NULL, GC_OPT_ARG, I_STR + 1 },
	{ "--db", NULL, GC_OPT_ARG, I_STR + 2 }, { "--tag", NULL, GC_OPT_ARG, I_STR + 3 },
	{ "--model", NULL, GC_OPT_ARG, I_STR + 4 }, { "--method", NULL, GC_OPT_ARG, I_STR + 5 },
	{ "--params", NULL, GC_OPT_ARG, I_STR + 6 }, { "--workload", NULL, GC_OPT_ARG, I_STR + 7 },
	{ "--batch", NULL, GC_OPT_ARG, I_BATCH }, { "--nodes", NULL, GC_OPT_ARG, I_NODES },
	{ "--bandwidth", NULL, GC_OPT_ARG, I_BW }, { "--latency", NULL, GC_OPT_ARG, I_LAT },
	{ "--json", NULL, 0, I_JSON },
};

/* One option; 0 ok, -1 bad value (reported). */
static int option(struct ingest_cli *c, int id, const char *a, const char *v)
{
	const char **str[] = { &c->o.sweep, &c->o.baseline, &c->db, &c->tag, &c->o.model,
			       &c->o.method, &c->o.params, &c->o.workload };
	gc_err e;
	uint32_t us;

	if (id < I_BATCH) {
		*str[id - I_STR] = v;
		return 0;
	}
	if (id == I_JSON) {
		c->json = 1;
		return 0;
	}
	if (id == I_BATCH)
		return parse_int_opt(a, v, 1, 2147483647, &c->o.batch);
	if (id == I_NODES)
		return parse_int_opt(a, v, 1, 65536, &c->o.nodes);
	if (id == I_BW) {
		if (!gc_bw_parse(v, GC_BW_BARE_GBIT, &c->o.bw_cap_bps, &e))
			return 0;
		gc_error("invalid --bandwidth: %s", e.msg);
		return -1;
	}
	if (!gc_time_parse(v, &us, &e)) {
		c->o.latency_s = us / 1e6;
		return 0;
	}
	gc_error("invalid --latency: %s", e.msg);
	return -1;
}

/* 0 to go on, -1 when help or version was printed, else the exit status. */
static int parse_args(struct ingest_cli *c, int argc, char **argv)
{
	gc_opts p;
	int r;

	c->files = calloc((size_t)argc, sizeof(*c->files));
	if (!c->files)
		return gc_error("out of memory"), GC_EXIT_FAILED;
	gc_opts_init(&p, "gcbench ingest", ingest_opts,
		     sizeof ingest_opts / sizeof ingest_opts[0], argc, argv);
	p.positional = 1;
	while ((r = gc_opts_next(&p)) >= 0) {
		if (r == GC_OPTS_POS)
			c->files[c->nfiles++] = p.val;
		else if (option(c, r, p.opt, p.val))
			return GC_EXIT_USAGE;
	}
	if (r != GC_OPTS_END)
		return (r = gc_cli_opts_stop(&p, r, usage)) ? r : -1;
	if (!c->o.sweep || !*c->o.sweep) {
		gc_error("ingest needs --sweep NAME (the sweep to add the run to); see 'gcbench "
			 "ingest --help'");
		return GC_EXIT_USAGE;
	}
	if (!c->nfiles) {
		gc_error("ingest needs record files, one per rank of the run; see 'gcbench "
			 "ingest --help'");
		return GC_EXIT_USAGE;
	}
	return 0;
}

static int print_json(const struct ingest_cli *c, const struct gc_db_ingest_req *q,
		      const struct gc_db_ingest_out *out)
{
	gc_buf b;
	gc_json j;

	gc_buf_init(&b);
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_key(&j, "run");
	gc_json_int(&j, (long long)out->run_id);
	gc_json_key(&j, "sweep");
	gc_json_int(&j, (long long)out->sweep_id);
	gc_json_str_field(&j, "sweep_name", c->o.sweep);
	gc_json_key(&j, "sweep_created");
	gc_json_bool(&j, out->sweep_created);
	gc_json_str_field(&j, "model", q->run.model);
	gc_json_str_field(&j, "method", q->run.method);
	gc_json_str_field(&j, "params", q->run.params);
	gc_json_key(&j, "world_size");
	gc_json_int(&j, q->run.world_size);
	gc_json_key(&j, "iterations");
	gc_json_int(&j, q->run.iterations);
	gc_json_key(&j, "warmup");
	gc_json_int(&j, q->run.warmup);
	gc_json_key(&j, "rows");
	gc_json_uint(&j, (unsigned long long)out->rows);
	gc_json_str_field(&j, "producer", q->producer);
	gc_json_str_field(&j, "db", c->db);
	gc_json_obj_close(&j);
	return gc_cli_json_print(&b, &j);
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
		return gc_exit_code(rc);
	}
	if (c->json)
		return print_json(c, &q, &out);
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

	if ((rc = parse_args(&c, argc, argv))) {
		free(c.files);
		return rc < 0 ? 0 : rc;
	}
	if ((rc = gc_ingest_load(c.files, c.nfiles, &c.o, &s, &e))) {
		gc_error("nothing was stored: %s", e.msg);
		free(c.files);
		return gc_exit_code(rc);
	}
	rc = store(&c, &s);
	gc_ingest_set_release(&s);
	free(c.files);
	return rc;
}
