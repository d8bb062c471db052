/* gcbench run: the sweep (orchestrator/run/run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/run/resume.h"
#include "orchestrator/run/run.h"
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
"  --calibrate S     seconds of goodput probe per node pair and cap (default 1;\n"
"                    0 skips calibration); a cap is probed once per sweep, its\n"
"                    later points store the same measurement\n"
"  --calibrate-all   probe every ring pair (n1->n2, n2->n3, ...), not only n1->n2\n"
"  --deadline S      per-collective deadline of the workers (default 60)\n"
"  --dry-run         list the points, say whether the sweep would be continued or\n"
"                    new and why, and stop (reads the database, changes nothing)\n"
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

static int opt_double(const char *name, const char *v, double *out)
{
	if (!v || gc_parse_double(v, out) || *out < 0) {
		gc_error("%s needs a non-negative number of seconds, got '%s'", name, v ? v : "");
		return 2;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct gc_run_opts o = { .db_path = "gcbench.db", .calibrate_s = 1, .deadline_s = 60 };
	int i, bad = 0;

	for (i = 1; i < argc && !bad; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(run_usage, stdout);
			return 0;
		} else if (!strcmp(a, "--dry-run")) {
			o.dry_run = 1;
		} else if (!strcmp(a, "--resume") || !strcmp(a, "--new")) {
			if (o.resume_mode != GC_RESUME_AUTO) {
				gc_error("--resume and --new exclude each other; give one");
				return 2;
			}
			o.resume_mode = a[2] == 'r' ? GC_RESUME_FORCE : GC_RESUME_NEW;
		} else if (!strcmp(a, "--no-provision")) {
			o.no_provision = 1;
		} else if (!strcmp(a, "--install-deps")) {
			o.install_deps = 1;
		} else if (!strcmp(a, "--calibrate-all")) {
			o.calibrate_all = 1;
		} else if (!strcmp(a, "--calibrate")) {
			bad = opt_double(a, v, &o.calibrate_s), i++;
		} else if (!strcmp(a, "--deadline")) {
			bad = opt_double(a, v, &o.deadline_s), i++;
		} else if (!strcmp(a, "--inventory") || !strcmp(a, "--db") || !strcmp(a, "--tag") ||
			   !strcmp(a, "--bin-dir")) {
			if (!v) {
				gc_error("%s needs a value; see 'gcbench run --help'", a);
				return 2;
			}
			*(a[2] == 'i' ? &o.inventory_path : a[2] == 'd' ? &o.db_path :
			  a[2] == 't' ? &o.tag : &o.bin_dir) = v;
			i++;
		} else if (a[0] == '-') {
			gc_error("unknown option '%s'; see 'gcbench run --help'", a);
			return 2;
		} else if (o.spec_path) {
			gc_error("one spec at a time: '%s' and '%s'", o.spec_path, a);
			return 2;
		} else {
			o.spec_path = a;
		}
	}
	if (bad)
		return bad;
	if (!o.spec_path) {
		fputs(run_usage, stderr);
		return 2;
	}
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
