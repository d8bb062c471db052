/* gcbench run: the sweep (orchestrator/run/run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/run/resume.h"
#include "orchestrator/run/run.h"
#include "orchestrator/remote/slurm.h"
#include "orchestrator/run/run_slurm.h"
#include "strutil.h"

static const char run_usage_head[] =
"usage: gcbench run SPEC.yaml [--inventory INV.yaml] [--db gcbench.db] [options]\n"
"\n"
"Run a sweep: every point of SPEC (model x method x parameters x bandwidth x world\n"
"size x batch x repeat) on the nodes of the inventory, each with its link capped,\n"
"calibrated, measured, and stored per iteration in the SQLite database.\n"
"\n";

static const char run_usage_tail[] =
"\n"
"Resume: a rerun continues the newest sweep of the same spec that did not finish\n"
"(interrupted, crashed, or with failed points) if it ran on the same environments\n"
"(every node's versions and host, and --tag); it runs only the points not yet 'ok'\n"
"there. Otherwise, e.g. the next night or after an upgrade, a new sweep measures\n"
"every point. docs/spec.md, \"Resume\".\n"
"Ctrl-C stops cleanly: the links are restored and the point in flight is marked\n"
"interrupted.\n"
"\n"
"Before anything is touched (no ssh, no database, no work directory), the spec,\n"
"the inventory and --db are checked as --dry-run checks them: csv: models, identity\n"
"and ssh_config files, GPUs for backend nccl, excludes, duplicate points, the\n"
"database path. docs/spec.md, \"Checks before a sweep\".\n"
"\n"
"For run: 0 every point ok, 1 some points failed, 2 the spec, inventory or --db\n"
"cannot be used (nothing was touched), 3 a host, provisioning or the database\n"
"failed (or --resume found nothing to continue), 130 interrupted.\n"
"\n"
"example:\n"
"  sudo gcbench run experiments/quickstart.yaml --inventory experiments/inventory-local.yaml\n"
"  sqlite3 gcbench.db 'SELECT method, bw_cap_bps/1e9, speedup FROM speedup'\n"
"\n";

static struct gc_run_opts ro = { .db_path = "gcbench.db", .calibrate_s = 0.5, .deadline_s = 60,
				  .calibration_max_age_s = 3600 };

static gc_rc resume_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (ro.resume_mode != GC_RESUME_AUTO)
		return gc_fail(e, GC_E_INVAL, "--resume and --new exclude each other; give one");
	ro.resume_mode = !strcmp(opt->o.name, "--resume") ? GC_RESUME_FORCE : GC_RESUME_NEW;
	return GC_OK;
}

static gc_rc count_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int nodes = !strcmp(opt->o.name, "--nodes");

	if (gc_slurm_parse_count(v, nodes, nodes ? &ro.plan_nodes : &ro.plan_gpus))
		return gc_fail(e, GC_E_INVAL, "%s needs a whole number%s; see 'gcbench run --help'",
			       opt->o.name, nodes ? " of nodes, 1 or more" : ", 0 or more");
	if (!nodes)
		ro.plan_gpus_set = 1;
	return GC_OK;
}

static const struct gc_option run_opts[] = {
	GC_OPTION_STRING("--inventory", NULL, &ro.inventory_path, "FILE",
		"hosts to use (default: 'local: 4', a local emulated cluster of\n"
		"4 namespaced nodes brought up as needed; needs root). Inside a\n"
		"SLURM allocation (SLURM_JOB_ID set) the default, and 'slurm',\n"
		"is the site file GCBENCH_HOME/slurm.yaml or /etc/gcbench/slurm.yaml\n"
		"(slurm: true, iface: NAME): the job's nodes, through srun"),
	GC_OPTION_STRING("--db", NULL, &ro.db_path, "FILE",
		"results database (default gcbench.db; created if missing)"),
	GC_OPTION_STRING("--tag", NULL, &ro.tag, "TEXT",
		"label stored with the environment (e.g. 'driver-550')"),
	GC_OPTION_STRING("--bin-dir", NULL, &ro.bin_dir, "DIR",
		"the gcbench binaries are already in DIR on every node: do not\n"
		"provision (see 'gcbench provision --help')"),
	GC_OPTION_FLAG("--no-provision", NULL, &ro.no_provision,
		"do not copy this build to the nodes (hosts managed by hand:\n"
		"binaries in /usr/local/bin, or --bin-dir)"),
	GC_OPTION_FLAG("--install-deps", NULL, &ro.install_deps,
		"provisioning may apt-get a missing library (root login)"),
	GC_OPTION_SECONDS("--calibrate", NULL, &ro.calibrate_s, 0, 86400, "T",
		"time of goodput probe per node pair and cap (default 0.5s;\n"
		"0 skips calibration); a cap is probed once per sweep, its\n"
		"later points store the same measurement"),
	GC_OPTION_SECONDS("--calibration-max-age", NULL, &ro.calibration_max_age_s, 0, 7 * 86400,
		"T", "reuse an earlier sweep's probe of the same links (same\n"
		"hosts and environments, cap and delay; no trace or background\n"
		"load) if it is younger than T (default 1h; 0 always probes);\n"
		"runs.calibration_run names the run that probed"),
	GC_OPTION_FLAG("--calibrate-all", NULL, &ro.calibrate_all,
		"probe every ring pair (n1->n2, n2->n3, ...), not only n1->n2"),
	GC_OPTION_SECONDS("--deadline", NULL, &ro.deadline_s, 0, 86400, "T",
		"per-collective deadline of the workers (default 60s)\n"
		"(a time: a number with s, ms or min; a bare number is seconds)"),
	GC_OPTION_FLAG("--json", NULL, &ro.json, "print the end-of-sweep summary as one JSON object"),
	GC_OPTION_FLAG("--dry-run", NULL, &ro.dry_run,
		"list the nodes and the points (each with its hosts and ranks),\n"
		"say whether the sweep would be continued or new and why, and\n"
		"stop (reads the database, changes nothing)"),
	GC_OPTION_CALLBACK("--nodes", NULL, GC_OPT_ARG, count_cb, "N",
		"with --dry-run and a 'slurm: true' inventory (the site file by\n"
		"default): plan for a job of N nodes, no allocation needed (on\n"
		"a login node, before 'gcbench submit --nodes N')"),
	GC_OPTION_CALLBACK("--gpus-per-node", NULL, GC_OPT_ARG, count_cb, "G",
		"with --nodes: the GPUs each node of that job would have"),
	GC_OPTION_CALLBACK("--resume", NULL, 0, resume_cb, NULL,
		"continue the newest unfinished sweep of this spec even if the\n"
		"environments changed (fails if there is none)"),
	GC_OPTION_CALLBACK("--new", NULL, 0, resume_cb, NULL,
		"start a new sweep even if an unfinished one could be continued"),
};

static void run_help(FILE *f)
{
	fputs(run_usage_head, f);
	gc_opts_usage(f, run_opts, sizeof run_opts / sizeof run_opts[0], 20);
	fputs(run_usage_tail, f);
}

int cmd_run(int argc, char **argv)
{
	struct gc_run_opts o;
	gc_opts p;
	int r;

	gc_opts_decl_init(&p, "gcbench run", run_opts, sizeof run_opts / sizeof run_opts[0], argc,
			  argv, NULL);
	p.positional = 1;
	while ((r = gc_opts_next(&p)) == GC_OPTS_POS) {
		if (ro.spec_path) {
			gc_error("one spec at a time: '%s' and '%s'", ro.spec_path, p.val);
			return GC_EXIT_USAGE;
		}
		ro.spec_path = p.val;
	}
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, run_help);
	o = ro;
	if (!o.spec_path) {
		run_help(stderr);
		return GC_EXIT_USAGE;
	}
	if (o.json && o.dry_run) {
		gc_error("--json applies to the summary of a sweep that runs; --dry-run prints "
			 "text only (drop one of them)");
		return GC_EXIT_USAGE;
	}
	if ((o.plan_nodes || o.plan_gpus_set) && !o.dry_run) {
		gc_error("--nodes and --gpus-per-node plan a dry run; add --dry-run (a real run "
			 "uses the allocation it runs in: gcbench submit --nodes N)");
		return GC_EXIT_USAGE;
	}
	if (o.plan_gpus_set && !o.plan_nodes) {
		gc_error("--gpus-per-node needs --nodes N (the job's size)");
		return GC_EXIT_USAGE;
	}
	if (o.plan_nodes && !o.inventory_path)
		o.inventory_path = "slurm";   /* the plan of a job: the site file */
	{   /* `--inventory slurm`, or none inside an allocation: the site file */
		static char site[1100];
		gc_err e;
		if (gc_run_slurm_inventory(o.inventory_path, &o.inventory_path, site,
					   sizeof(site), &e)) {
			gc_error("%s", e.msg);
			return GC_EXIT_USAGE;
		}
	}
	return gc_sweep_run(&o);
}
