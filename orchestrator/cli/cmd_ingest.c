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

static void ingest_opt_lines(FILE *f);

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
		"options:\n");
	ingest_opt_lines(f);
	fprintf(f, "\n"
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

static struct ingest_cli cli = { .db = "gcbench.db" };

/* A whole number in [lo, hi] into the int target. */
static gc_rc whole_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int64_t x;

	if (gc_parse_i64(v, &x) || x < opt->lo || x > opt->hi)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%s': give a whole number from %lld to "
			       "%lld", opt->o.name, v, opt->lo, opt->hi);
	*(int *)opt->target = (int)x;
	return GC_OK;
}

static gc_rc bandwidth_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	gc_err why;

	if (gc_bw_parse(v, GC_BW_BARE_GBIT, &cli.o.bw_cap_bps, &why))
		return gc_fail(e, GC_E_INVAL, "invalid --bandwidth: %s", why.msg);
	return GC_OK;
}

static gc_rc latency_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	gc_err why;
	uint32_t us;

	if (gc_time_parse(v, &us, &why))
		return gc_fail(e, GC_E_INVAL, "invalid --latency: %s", why.msg);
	cli.o.latency_s = us / 1e6;
	return GC_OK;
}

#define WHOLE(l, var, low, high) { .o = { l, NULL, GC_OPT_ARG, 0 }, .type = GC_OT_CALLBACK, \
				   .cb = whole_cb, .target = (var), .lo = low, .hi = high }
static const struct gc_option ingest_opts[] = {
	GC_OPTION_STRING("--sweep", NULL, &cli.o.sweep, "NAME",
		"the sweep to add the run to: the newest sweep of that name\n"
		"(one 'gcbench run' made, or an earlier ingest), else a new one"),
	GC_OPTION_STRING("--baseline", NULL, &cli.o.baseline, "METHOD",
		"the method the sweep's speedups compare with; required for a\n"
		"new sweep, must match an existing sweep's"),
	GC_OPTION_STRING("--db", NULL, &cli.db, "PATH",
		"the database (default: gcbench.db; created if missing)"),
	GC_OPTION_STRING("--tag", NULL, &cli.tag, "TAG", "a label stored with this host's environment"),
	GC_OPTION_CALLBACK("--bandwidth", NULL, GC_OPT_ARG, bandwidth_cb, "RATE",
		"the cap the run's links had (e.g. 1gbit; default: unlimited):\n"
		"gcbench did not shape them, this only labels the run"),
	GC_OPTION_CALLBACK("--latency", NULL, GC_OPT_ARG, latency_cb, "TIME",
		"the delay the links had (e.g. 10ms; default 0), a label too"),
	{ .o = { "--nodes", NULL, GC_OPT_ARG, 0 }, .arg = "N", .type = GC_OT_CALLBACK,
	  .cb = whole_cb, .target = &cli.o.nodes, .lo = 1, .hi = 65536,
	  .help = "hosts the run used (default: the distinct \"host\" values of\n"
		  "the headers, 1 if they give none)" },
	/* listed together in the usage, under the next line */
	GC_OPTION_STRING("--model", NULL, &cli.o.model, NULL, NULL),
	GC_OPTION_STRING("--method", NULL, &cli.o.method, NULL, NULL),
	GC_OPTION_STRING("--params", NULL, &cli.o.params, NULL, NULL),
	GC_OPTION_STRING("--workload", NULL, &cli.o.workload, NULL, NULL),
	WHOLE("--batch", &cli.o.batch, 1, 2147483647),
	GC_OPTION_DOC("--model, --method, --params, --workload, --batch", NULL,
		"\nreplace what every header says (or supply a missing key)"),
	GC_OPTION_FLAG("--json", NULL, &cli.json, "print the stored run as one JSON object"),
};

static void ingest_opt_lines(FILE *f)
{
	gc_opts_usage(f, ingest_opts, sizeof ingest_opts / sizeof ingest_opts[0], 21);
}

/* 0 to go on, -1 when help or version was printed, else the exit status. */
static int parse_args(struct ingest_cli *c, int argc, char **argv)
{
	gc_opts p;
	int r;

	c->files = calloc((size_t)argc, sizeof(*c->files));
	if (!c->files)
		return gc_error("out of memory"), GC_EXIT_FAILED;
	gc_opts_decl_init(&p, "gcbench ingest", ingest_opts,
			  sizeof ingest_opts / sizeof ingest_opts[0], argc, argv, NULL);
	p.positional = 1;
	while ((r = gc_opts_next(&p)) == GC_OPTS_POS)
		c->files[c->nfiles++] = p.val;
	c->o = cli.o;
	c->db = cli.db;
	c->tag = cli.tag;
	c->json = cli.json;
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
