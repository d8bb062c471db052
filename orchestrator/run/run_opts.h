/* orchestrator/run/run_opts.h: what a sweep is asked to do: the options of `gcbench
 * run` (and of provision and submit, which set up or plan the same sweep).
 */
#ifndef GC_RUN_OPTS_H
#define GC_RUN_OPTS_H

struct gc_run_opts {
	const char *spec_path;
	const char *inventory_path;   /* NULL: experiments/inventory-local.yaml semantics (local: 4) */
	const char *db_path;          /* default gcbench.db */
	const char *tag;              /* free-form environment tag, or NULL */
	const char *bin_dir;          /* binaries on the nodes; default: this program's directory */
	double calibrate_s;           /* probe seconds per node pair (0: no calibration) */
	int calibrate_all;            /* every ring pair instead of n1 -> n2 */
	double calibration_max_age_s; /* reuse an earlier sweep's probe this young (0: never) */
	int dry_run;                  /* print the points and the first mpirun line, run nothing */
	int json;                     /* the end-of-sweep summary as JSON (gc_run_summary_json) */
	double deadline_s;            /* per-collective deadline passed to the workers */
	int resume_mode;              /* enum gc_resume_mode (orchestrator/run/resume.h) */
	int no_provision;             /* 1: binaries managed by hand (bin_dir), not copied */
	int install_deps;             /* provisioning may apt-get a missing library (root) */
	int plan_nodes;               /* --nodes: a dry run of a `slurm: true` inventory plans
	                               * a job of this many nodes (no allocation needed) */
	int plan_gpus;                /* --gpus-per-node of that job */
	int plan_gpus_set;
};

#endif
