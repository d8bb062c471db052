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

static const char run_usage[] =
"usage: gcbench run SPEC.yaml [--inventory INV.yaml] [--db gcbench.db] [options]\n"
"\n"
"Run a sweep: every point of SPEC (model x method x parameters x bandwidth x world\n"
"size x batch x repeat) on the nodes of the inventory, each with its link capped,\n"
"calibrated, measured, and stored per iteration in the SQLite database.\n"
"\n"
"  --inventory FILE  hosts to use (default: 'local: 4', a local emulated cluster of\n"
"                    4 namespaced nodes brought up as needed; needs root). Inside a\n"
"                    SLURM allocation (SLURM_JOB_ID set) the default, and 'slurm',\n"
"                    is the site file GCBENCH_HOME/slurm.yaml or /etc/gcbench/slurm.yaml\n"
"                    (slurm: true, iface: NAME): the job's nodes, through srun\n"
"  --db FILE         results database (default gcbench.db; created if missing)\n"
"  --tag TEXT        label stored with the environment (e.g. 'driver-550')\n"
"  --bin-dir DIR     the gcbench binaries are already in DIR on every node: do not\n"
"                    provision (see 'gcbench provision --help')\n"
"  --no-provision    do not copy this build to the nodes (hosts managed by hand:\n"
"                    binaries in /usr/local/bin, or --bin-dir)\n"
"  --install-deps    provisioning may apt-get a missing library (root login)\n"
"  --calibrate T     time of goodput probe per node pair and cap (default 0.5s;\n"
"                    0 skips calibration); a cap is probed once per sweep, its\n"
"                    later points store the same measurement\n"
"  --calibration-max-age T  reuse an earlier sweep's probe of the same links (same\n"
"                    hosts and environments, cap and delay; no trace or background\n"
"                    load) if it is younger than T (default 1h; 0 always probes);\n"
"                    runs.calibration_run names the run that probed\n"
"  --calibrate-all   probe every ring pair (n1->n2, n2->n3, ...), not only n1->n2\n"
"  --deadline T      per-collective deadline of the workers (default 60s)\n"
"                    (a time: a number with s, ms or min; a bare number is seconds)\n"
"  --json            print the end-of-sweep summary as one JSON object\n"
"  --dry-run         list the nodes and the points (each with its hosts and ranks),\n"
"                    say whether the sweep would be continued or new and why, and\n"
"                    stop (reads the database, changes nothing)\n"
"  --nodes N         with --dry-run and a 'slurm: true' inventory (the site file by\n"
"                    default): plan for a job of N nodes, no allocation needed (on\n"
"                    a login node, before 'gcbench submit --nodes N')\n"
"  --gpus-per-node G with --nodes: the GPUs each node of that job would have\n"
"  --resume          continue the newest unfinished sweep of this spec even if the\n"
"                    environments changed (fails if there is none)\n"
"  --new             start a new sweep even if an unfinished one could be continued\n"
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

static void run_help(FILE *f)
{
	fputs(run_usage, f);
}

enum { R_DRY = 1, R_RESUME, R_NEW, R_NOPROV, R_DEPS, R_CALALL, R_CAL, R_DEADLINE, R_INV, R_DB,
       R_TAG, R_BINDIR, R_JSON, R_NODES, R_GPUS, R_CALAGE };
static const struct gc_opt run_opts[] = {
	{ "--dry-run", NULL, 0, R_DRY }, { "--resume", NULL, 0, R_RESUME },
	{ "--new", NULL, 0, R_NEW }, { "--no-provision", NULL, 0, R_NOPROV },
	{ "--install-deps", NULL, 0, R_DEPS }, { "--calibrate-all", NULL, 0, R_CALALL },
	{ "--calibrate", NULL, GC_OPT_ARG, R_CAL }, { "--deadline", NULL, GC_OPT_ARG, R_DEADLINE },
	{ "--inventory", NULL, GC_OPT_ARG, R_INV }, { "--db", NULL, GC_OPT_ARG, R_DB },
	{ "--tag", NULL, GC_OPT_ARG, R_TAG }, { "--bin-dir", NULL, GC_OPT_ARG, R_BINDIR },
	{ "--json", NULL, 0, R_JSON }, { "--nodes", NULL, GC_OPT_ARG, R_NODES },
	{ "--gpus-per-node", NULL, GC_OPT_ARG, R_GPUS },
	{ "--calibration-max-age", NULL, GC_OPT_ARG, R_CALAGE },
};

/* One option or the spec; 0, or the exit status of a mistake. */
static int run_opt(struct gc_run_opts *o, gc_opts *p, int r)
{
	gc_err e;

	switch (r) {
	case GC_OPTS_POS:
		if (o->spec_path)
			return gc_error("one spec at a time: '%s' and '%s'", o->spec_path, p->val), 2;
		o->spec_path = p->val;
		break;
	case R_DRY: o->dry_run = 1; break;
	case R_RESUME: case R_NEW:
		if (o->resume_mode != GC_RESUME_AUTO)
			return gc_error("--resume and --new exclude each other; give one"), 2;
		o->resume_mode = r == R_RESUME ? GC_RESUME_FORCE : GC_RESUME_NEW;
		break;
	case R_NOPROV: o->no_provision = 1; break;
	case R_DEPS: o->install_deps = 1; break;
	case R_CALALL: o->calibrate_all = 1; break;
	case R_CAL: case R_DEADLINE: case R_CALAGE:
		if (gc_opts_seconds(p->opt, p->val, 0, r == R_CALAGE ? 7 * 86400 : 86400,
				    r == R_CAL ? &o->calibrate_s : r == R_CALAGE ?
				    &o->calibration_max_age_s : &o->deadline_s, &e))
			return gc_error("%s", e.msg), 2;
		break;
	case R_INV: o->inventory_path = p->val; break;
	case R_DB: o->db_path = p->val; break;
	case R_TAG: o->tag = p->val; break;
	case R_BINDIR: o->bin_dir = p->val; break;
	case R_JSON: o->json = 1; break;
	case R_NODES: case R_GPUS:
		if (gc_slurm_parse_count(p->val, r == R_NODES, r == R_NODES ? &o->plan_nodes :
					 &o->plan_gpus))
			return gc_error("%s needs a whole number%s; see 'gcbench run --help'", p->opt,
					r == R_NODES ? " of nodes, 1 or more" : ", 0 or more"), 2;
		if (r == R_GPUS)
			o->plan_gpus_set = 1;
		break;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct gc_run_opts o = { .db_path = "gcbench.db", .calibrate_s = 0.5, .deadline_s = 60,
				  .calibration_max_age_s = 3600 };
	gc_opts p;
	int r, bad;

	gc_opts_init(&p, "gcbench run", run_opts, sizeof run_opts / sizeof run_opts[0], argc, argv);
	p.positional = 1;
	while ((r = gc_opts_next(&p)) >= 0)
		if ((bad = run_opt(&o, &p, r)))
			return bad;
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, run_help);
	if (!o.spec_path) {
		fputs(run_usage, stderr);
		return 2;
	}
	if (o.json && o.dry_run) {
		gc_error("--json applies to the summary of a sweep that runs; --dry-run prints "
			 "text only (drop one of them)");
		return 2;
	}
	if ((o.plan_nodes || o.plan_gpus_set) && !o.dry_run) {
		gc_error("--nodes and --gpus-per-node plan a dry run; add --dry-run (a real run "
			 "uses the allocation it runs in: gcbench submit --nodes N)");
		return 2;
	}
	if (o.plan_gpus_set && !o.plan_nodes) {
		gc_error("--gpus-per-node needs --nodes N (the job's size)");
		return 2;
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
