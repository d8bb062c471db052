/* orchestrator/remote/slurm.h: what gcbench needs from a SLURM allocation, and the
 * sbatch script of a submitted sweep (docs/slurm.md).
 *
 * - The allocation a command runs in (salloc, sbatch, srun): from the environment
 *   (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_JOB_PARTITION, SLURM_JOB_NUM_NODES and
 *   the GPU variables), every value validated; GC_E_NOTFOUND outside an allocation.
 * - The node list expanded into host names by `scontrol show hostnames LIST`, the list
 *   passed explicitly (with no argument scontrol reads SLURM_NODELIST, which is not
 *   the job's list inside a step of another size).
 * - The job's record from `scontrol show job -o ID` (one line of Key=Value): whether
 *   the nodes are the job's alone (OverSubscribe=NO, what --exclusive gives: a cap
 *   on a shared NIC would shape other users' jobs), partition, node list, state.
 * - A readable sbatch script for `gcbench submit`.
 * The parsers take text and never run anything; the functions that run scontrol go
 * through common/proc.h with a deadline. Nothing from the environment or a caller
 * reaches a command line or a script unvalidated: names, lists and times are checked
 * against SLURM's own syntax, command words are shell-quoted.
 */
#ifndef GC_REMOTE_SLURM_H
#define GC_REMOTE_SLURM_H

#include "buf.h"
#include "result.h"

#define GC_SLURM_MAX_HOSTS 4096
#define GC_SLURM_T_CMD 30        /* seconds for one scontrol */

/* The allocation this process runs in. */
typedef struct gc_slurm_alloc {
	char job_id[32];          /* SLURM_JOB_ID (digits) */
	char nodelist[4096];      /* SLURM_JOB_NODELIST, compressed (n[1-4]) */
	char partition[128];      /* SLURM_JOB_PARTITION ("" when unset) */
	char cluster[128];        /* SLURM_CLUSTER_NAME ("" when unset) */
	int num_nodes;            /* SLURM_JOB_NUM_NODES (0 when unset) */
	int gpus_per_node;        /* from the first of SLURM_GPUS_PER_NODE ([type:]N),
	                           * SLURM_GPUS_ON_NODE (N), SLURM_JOB_GPUS (indices and
	                           * ranges 0-3,6: their count); 0 when none is set */
	char gpus_from[32];       /* the variable gpus_per_node came from, or "" */
} gc_slurm_alloc;

/* Fill *a from envp ("NAME=value" entries, NULL-terminated; NULL: this process's
 * environment). GC_E_NOTFOUND (e says so) when SLURM_JOB_ID is unset: not in an
 * allocation. GC_E_INVAL naming the variable when a value is malformed (a job id that
 * is not a number, a node list with characters SLURM never writes, ...). */
gc_rc gc_slurm_alloc_from_env(const char *const *envp, gc_slurm_alloc *a, gc_err *e);

/* 1 when s is a SLURM node list SLURM could have written: 1-4095 bytes of
 * [A-Za-z0-9._-] and, in brackets, digits, ',' and '-' (n[1-4,7],gpu01). */
int gc_slurm_valid_nodelist(const char *s);

/* Parse the output of `scontrol show hostnames`: one host name per line, each a valid
 * host name ([A-Za-z0-9._-], 1-255 bytes, not starting with '-' or '.'), no
 * duplicates, 1..GC_SLURM_MAX_HOSTS of them. *hosts is a NULL-terminated array the
 * caller frees with gc_argv_free (common/proc.h). GC_E_FORMAT naming the line that is
 * wrong. */
gc_rc gc_slurm_parse_hostnames(const char *text, char ***hosts, int *n, gc_err *e);

/* Run `scontrol show hostnames LIST` and parse it (as above). GC_E_INVAL for a list
 * gc_slurm_valid_nodelist refuses, GC_E_CHILD when scontrol fails (its message). */
gc_rc gc_slurm_expand_nodelist(const char *list, char ***hosts, int *n, gc_err *e);

/* A job as `scontrol show job -o ID` describes it. */
typedef struct gc_slurm_job {
	char job_id[32];          /* JobId */
	char state[32];           /* JobState: RUNNING, PENDING, ... */
	char partition[128];      /* Partition */
	char nodelist[4096];      /* NodeList ("(null)" while pending: "") */
	int num_nodes;            /* NumNodes (the lower bound of a range "2-4"); 0 unknown */
	char oversubscribe[16];   /* OverSubscribe: NO, OK, YES, USER, MCS, FORCE, ... */
	int exclusive;            /* 1 when OverSubscribe=NO: the nodes are this job's alone;
	                           * OK, YES, USER (shared with the user's other jobs) and
	                           * MCS are not exclusive */
} gc_slurm_job;

/* Parse the one-line record of `scontrol show job -o ID`. Keys are read where a word
 * of the form Key=... starts (values may hold spaces: Command, Comment). JobId and
 * OverSubscribe are required, each key at most once, one job only (a heterogeneous
 * job prints a line per component: refused). GC_E_FORMAT saying what is wrong. */
gc_rc gc_slurm_parse_job(const char *text, gc_slurm_job *j, gc_err *e);

/* Run `scontrol show job -o JOB_ID` and parse it. */
gc_rc gc_slurm_job_info(const char *job_id, gc_slurm_job *j, gc_err *e);

/* GC_OK when the job has its nodes to itself (j->exclusive); else GC_E_PERM with a
 * message that names the job, its OverSubscribe and the option to add (salloc/sbatch
 * --exclusive): a cap on a NIC another job shares would shape that job too. For a
 * sweep with caps, before any node is changed. */
gc_rc gc_slurm_require_exclusive(const gc_slurm_job *j, gc_err *e);

/* The batch script of a submitted sweep. */
typedef struct gc_slurm_submit {
	const char *job_name;        /* --job-name; NULL: gcbench */
	int nodes;                   /* --nodes, 1..GC_SLURM_MAX_HOSTS */
	int tasks_per_node;          /* --ntasks-per-node; 0: 1 */
	const char *partition;       /* --partition; NULL: the site's default */
	const char *time;            /* --time in SLURM's forms (MM, MM:SS, HH:MM:SS, D-HH,
	                              * D-HH:MM, D-HH:MM:SS, UNLIMITED); NULL: the default */
	int gpus_per_node;           /* --gpus-per-node; 0: none asked */
	const char *begin;           /* --begin (now+1hour, 2026-12-05T02:00, tomorrow); NULL */
	const char *account;         /* --account; NULL: the user's default */
	const char *qos;             /* --qos; NULL: the default */
	const char *constraint;      /* --constraint (features: a100&ib, [rack1|rack2]); NULL */
	const char *reservation;     /* --reservation; NULL */
	int exclusive;               /* --exclusive */
	int caps;                    /* the sweep sets caps: --exclusive always */
	const char *output;          /* --output (may hold %j); NULL: SLURM's default */
	const char *chdir;           /* --chdir; NULL: where sbatch runs */
	const char *const *env;      /* "NAME=value" exported by the script; NULL: none */
	const char *const *command;  /* what the job runs (argv; command[0] non-NULL) */
	const char *const *need;     /* paths the batch host must read, checked first; NULL */
	const char *write_dir;       /* a folder it must write (the database's); NULL */
	const char *const *extra;    /* sbatch's own arguments given after `--`, recorded in a
	                              * comment (they go on sbatch's command line); NULL */
} gc_slurm_submit;

/* Append the script to out: #!/bin/bash, a comment that says what it is, one #SBATCH
 * line per option, `set -eu`, the exports, then the checks of need and write_dir and
 * of mpirun on the PATH, each failing with "gcbench: error: job ID on HOST: ..." on
 * stderr (the job's log) and exit 2, then `exec` of the command, each word
 * shell-quoted. GC_E_INVAL naming the option whose value is not valid (nothing is
 * appended then). */
gc_rc gc_slurm_sbatch_script(const gc_slurm_submit *s, gc_buf *out, gc_err *e);

/* The options of s (not its command or environment) as gc_slurm_sbatch_script checks
 * them: GC_E_INVAL naming the option ("--nodes 0: give 1 to 4096"). `gcbench submit`
 * and `gcbench schedule install --slurm` check their options with it. */
gc_rc gc_slurm_submit_options_check(const gc_slurm_submit *s, gc_err *e);

/* A count option (--nodes: min 1, --gpus-per-node: min 0): digits only, min to
 * GC_SLURM_MAX_HOSTS, into *out; -1 otherwise. */
int gc_slurm_parse_count(const char *s, int min, int *out);

/* 1 when t is a time limit in one of SLURM's forms (see gc_slurm_submit.time). */
int gc_slurm_valid_time(const char *t);

#endif
