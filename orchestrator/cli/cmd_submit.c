/* gcbench submit: a sweep as a SLURM batch job (docs/slurm.md). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "commands.h"
#include "opts.h"
#include "log.h"
#include "orchestrator/remote/slurm.h"
#include "orchestrator/run/run.h"
#include "home.h"
#include "orchestrator/run/validate.h"
#include "orchestrator/spec/spec.h"
#include "strutil.h"

static const char submit_usage[] =
"usage: gcbench submit SPEC.yaml --nodes N [--partition P] [--time T]\n"
"                      [--account A] [--qos Q] [--constraint C] [--reservation R]\n"
"                      [--gpus-per-node G] [--begin TIME] [--inventory INV.yaml]\n"
"                      [--db gcbench.db] [--job-name NAME] [--tag TAG] [--wait]\n"
"                      [--dry-run] [-- SBATCH-ARGS...]\n\n"
"Submit the sweep as one SLURM batch job of N nodes: every point runs as steps of that\n"
"job (gcbench run inside the allocation, docs/slurm.md). Writes a readable batch\n"
"script next to the database (DBDIR/SPECNAME.sbatch, its log DBDIR/SPECNAME-JOBID.out),\n"
"submits it with sbatch and prints the job id. The job writes into the same database:\n"
"the database's folder must be on a file system the nodes share with this host, and so\n"
"must gcbench's bin folder, the spec and the inventory (the same paths there). The\n"
"script's first lines check them on the batch host and write what is missing to the\n"
"job's log; --wait prints the end of that log when the job fails.\n\n"
"options:\n";

static const char submit_usage_tail[] =
"A sweep with a cap or a latency always asks for --exclusive.\n"
"A failed sbatch leaves no script behind.\n"
"Exit status: 0 submitted (with --wait: the sweep's own), 2 bad input, 3 sbatch failed.\n";

#define SUBMIT_MAX_EXTRA 64

struct submit_opts {
	const char *spec, *partition, *time, *begin, *inventory, *db, *job_name, *tag;
	const char *account, *qos, *constraint, *reservation;
	const char *extra[SUBMIT_MAX_EXTRA + 1];   /* after --, NULL-terminated */
	int nodes, gpus, wait, dry_run, n_extra;
};

static struct submit_opts so = { .db = "gcbench.db" };   /* the declarations' targets */

static gc_rc count_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int nodes = !strcmp(opt->o.name, "--nodes");

	if (gc_slurm_parse_count(v, nodes, nodes ? &so.nodes : &so.gpus))
		return gc_fail(e, GC_E_INVAL, "%s needs a whole number%s; see 'gcbench submit "
			       "--help'", opt->o.name, nodes ? " of nodes, 1 or more" : ", 0 or more");
	return GC_OK;
}

static const struct gc_option submit_opts_tab[] = {
	GC_OPTION_CALLBACK("--nodes", NULL, GC_OPT_ARG, count_cb, "N",
			   "nodes of the job (sbatch --nodes)"),
	GC_OPTION_STRING("--partition", NULL, &so.partition, "P", "partition (default: the site's)"),
	GC_OPTION_STRING("--time", NULL, &so.time, "T",
			 "time limit in SLURM's forms (MM, HH:MM:SS, D-HH:MM, ...)"),
	/* listed together in the usage, under the next line */
	GC_OPTION_STRING("--account", NULL, &so.account, "A", NULL),
	GC_OPTION_STRING("--qos", NULL, &so.qos, "Q", NULL),
	GC_OPTION_STRING("--constraint", NULL, &so.constraint, "C", NULL),
	GC_OPTION_STRING("--reservation", NULL, &so.reservation, "R", NULL),
	GC_OPTION_DOC("--account A, --qos Q, --constraint C, --reservation R", NULL,
		      "\nsbatch's options of those names, written into the script"),
	GC_OPTION_CALLBACK("--gpus-per-node", NULL, GC_OPT_ARG, count_cb, "G",
			   "GPUs per node (sbatch --gpus-per-node)"),
	GC_OPTION_STRING("--begin", NULL, &so.begin, "TIME",
			 "start no earlier than TIME (now+1hour, 2026-12-05T02:00, tomorrow)"),
	GC_OPTION_STRING("--inventory", NULL, &so.inventory, "FILE",
			 "an inventory with 'slurm: true' (default: the site file,\n"
			 "GCBENCH_HOME/slurm.yaml or /etc/gcbench/slurm.yaml)"),
	GC_OPTION_STRING("--db", NULL, &so.db, "FILE", "results database (default gcbench.db)"),
	GC_OPTION_STRING("--job-name", NULL, &so.job_name, "NAME",
			 "the job's name (default gcbench-SPECNAME)"),
	GC_OPTION_STRING("--tag", NULL, &so.tag, "TAG",
			 "passed to 'gcbench run --tag' (the environment's tag)"),
	GC_OPTION_FLAG("--wait", NULL, &so.wait,
		       "wait for the job to end; exit with the sweep's status"),
	GC_OPTION_FLAG("--dry-run", NULL, &so.dry_run,
		       "print the batch script and the sbatch command; write and submit\n"
		       "nothing"),
	GC_OPTION_DOC("--", "ARGS", "the rest goes to sbatch's command line as it is\n"
		      "(-- --comment=nightly --mail-type=END)"),
};

static void submit_help(FILE *f)
{
	fputs(submit_usage, f);
	gc_opts_usage(f, submit_opts_tab, sizeof submit_opts_tab / sizeof submit_opts_tab[0], 21);
	fputs(submit_usage_tail, f);
}

/* A word: the spec, or after '--' one of sbatch's; 0, or the exit status of a mistake. */
static int submit_word(const gc_opts *p)
{
	if (p->dashdash) {   /* sbatch's own */
		if (so.n_extra == SUBMIT_MAX_EXTRA)
			return gc_error("more than %d arguments for sbatch after '--'",
					SUBMIT_MAX_EXTRA), GC_EXIT_USAGE;
		so.extra[so.n_extra++] = p->val;
		return 0;
	}
	if (so.spec)
		return gc_error("one spec at a time: '%s' and '%s'", so.spec, p->val), GC_EXIT_USAGE;
	so.spec = p->val;
	return 0;
}

/* 0, -1 after --help or --version (printed), else the exit status of a mistake */
static int parse(int argc, char **argv, struct submit_opts *o)
{
	gc_opts p;
	int r, bad;

	gc_opts_decl_init(&p, "gcbench submit", submit_opts_tab,
			  sizeof submit_opts_tab / sizeof submit_opts_tab[0], argc, argv, NULL);
	p.positional = 1;
	while ((r = gc_opts_next(&p)) == GC_OPTS_POS)
		if ((bad = submit_word(&p)))
			return bad;
	*o = so;
	if (r != GC_OPTS_END)
		return (bad = gc_cli_opts_stop(&p, r, submit_help)) ? bad : -1;
	if (!o->spec || !o->nodes) {
		gc_error("%s; see 'gcbench submit --help'", !o->spec ? "give the sweep's spec" :
			 "give the job's size with --nodes N");
		return GC_EXIT_USAGE;
	}
	return 0;
}

/* An absolute path for a file that may not exist yet (its folder must). */
static int absolute(const char *p, char *out, size_t n)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(p, '/');

	if (realpath(p, real)) {
		snprintf(out, n, "%s", real);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - p) : 1, slash ? p : ".");
	if (!*dir)
		strcpy(dir, "/");
	if (!realpath(dir, real))
		return -1;
	if ((size_t)snprintf(out, n, "%s/%s", real, slash ? slash + 1 : p) >= n)
		return -1;
	return 0;
}

static int any_cap(const struct gc_sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++)
		if (sw->pts[i].bw_bps || sw->pts[i].latency_s > 0)
			return 1;
	return 0;
}

/* argv of sbatch --parsable [--wait] EXTRA... SCRIPT into v (room for the extras + 5) */
static void sbatch_argv(const struct submit_opts *o, const char *script, const char **v)
{
	int n = 0;

	v[n++] = "sbatch";
	v[n++] = "--parsable";
	if (o->wait)
		v[n++] = "--wait";
	for (int i = 0; i < o->n_extra; i++)
		v[n++] = o->extra[i];
	v[n++] = script;
	v[n] = NULL;
}

/* sbatch: the job id from its first line of output, printed at once; with --wait,
 * sbatch's status (the job's) when it ends. */
static int sbatch(const struct submit_opts *o, const char *script, const char *needs,
		  char *job, size_t jn)
{
	const char *argv[SUBMIT_MAX_EXTRA + 6];
	int fd[2], st;
	pid_t pid;
	FILE *f;

	sbatch_argv(o, script, argv);
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "gcbench: error: cannot run sbatch: %s; install slurm-client\n",
			strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	*job = 0;
	if (f && fgets(job, (int)jn, f)) {
		job[strcspn(job, ";\n")] = 0;   /* "ID;cluster" on a federation */
		printf("%s\n", job);
		fflush(stdout);
		gc_info("submitted job %s (%s)%s", job, script,
			o->wait ? "; waiting for it to end" : "");
		gc_info("the job needs, at the same paths on its nodes (a shared file system): "
			"%s", needs);
	}
	if (f)
		fclose(f);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* After a failed job (--wait): the end of its log, or why there is none. */
static void failed_job(const char *out_pattern, const char *job, int status, const char *dbdir)
{
	char path[PATH_MAX + 64], line[1024], *lines[20] = { NULL };
	const char *j = strstr(out_pattern, "%j");
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.*s%s%s", j ? (int)(j - out_pattern) : (int)strlen(out_pattern),
		 out_pattern, j ? job : "", j ? j + 2 : "");
	f = fopen(path, "r");
	if (!f) {
		gc_error("job %s failed (exit %d) before it could write its log '%s': the batch "
			 "host most likely does not see '%s' (sbatch's --chdir and --output are "
			 "there); put the database on a file system the nodes share", job, status,
			 path, dbdir);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		free(lines[n % 20]);
		lines[n++ % 20] = strdup(line);
	}
	fclose(f);
	gc_error("job %s failed (exit %d); the end of its log '%s':", job, status, path);
	for (size_t i = n > 20 ? n - 20 : 0; i < n; i++)
		if (lines[i % 20])
			fprintf(stderr, "    %s%s", lines[i % 20],
				strchr(lines[i % 20], '\n') ? "" : "\n");
	for (size_t i = 0; i < 20; i++)
		free(lines[i]);
}

/* --dry-run: the script and the command that would submit it */
static void dry_run(const struct submit_opts *o, const char *script, const gc_buf *b)
{
	const char *argv[SUBMIT_MAX_EXTRA + 6];

	sbatch_argv(o, script, argv);
	printf("# gcbench submit --dry-run: nothing written or submitted. The script, to %s:\n",
	       script);
	fwrite(b->p, 1, b->len, stdout);
	printf("# submitted with:");
	for (int i = 0; argv[i]; i++) {
		char q[PATH_MAX * 4 + 3] = "";
		printf(" %s", gc_shell_quote(q, sizeof(q), argv[i]) ? argv[i] : q);
	}
	printf("\n");
}

int cmd_submit(int argc, char **argv)
{
	struct submit_opts o = { .db = "gcbench.db" };
	struct gc_run_opts ro;
	struct gc_run_plan plan;
	char spec_abs[PATH_MAX], db_abs[PATH_MAX], inv_abs[PATH_MAX], self[PATH_MAX];
	char dbdir[PATH_MAX], script[PATH_MAX + 256], out[PATH_MAX + 256], name[128], job[64];
	char home[PATH_MAX + 16], conf[PATH_MAX + 16], self_worker[PATH_MAX + 16], needs[4200];
	const char *env[3] = { NULL };
	gc_slurm_submit s;
	gc_buf b = GC_BUF_INIT;
	gc_err e;
	int r = parse(argc, argv, &o), caps, ne = 0;
	FILE *f;

	if (r)
		return r < 0 ? 0 : r;
	if (absolute(o.spec, spec_abs, sizeof(spec_abs)) || absolute(o.db, db_abs, sizeof(db_abs)) ||
	    (o.inventory && strcmp(o.inventory, "slurm") &&
	     absolute(o.inventory, inv_abs, sizeof(inv_abs)))) {
		gc_error("cannot find the folder of '%s', '%s'%s%s; give paths that exist", o.spec,
			 o.db, o.inventory ? " or " : "", o.inventory ? o.inventory : "");
		return GC_EXIT_USAGE;
	}
	/* the spec and database as `gcbench run` checks them, before anything is written */
	memset(&ro, 0, sizeof(ro));
	ro.spec_path = spec_abs;
	ro.db_path = db_abs;
	ro.inventory_path = o.inventory && strcmp(o.inventory, "slurm") ? inv_abs : NULL;
	if (gc_run_plan_load(&ro, &plan, &e)) {   /* the spec read once: checked, then used */
		gc_error("%s", e.msg);
		return GC_EXIT_USAGE;
	}
	caps = any_cap(&plan.sw);
	snprintf(name, sizeof(name), "gcbench-%.60s", plan.spec.name);
	for (char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			*p = '_';
	gc_run_plan_release(&plan);
	gc_strlcpy(dbdir, db_abs, sizeof(dbdir));
	*strrchr(dbdir, '/') = 0;
	snprintf(script, sizeof(script), "%s/%s.sbatch", *dbdir ? dbdir : "", name + 8);
	snprintf(out, sizeof(out), "%s/%s-%%j.out", *dbdir ? dbdir : "", name + 8);
	gc_self_dir(self, sizeof(self));
	snprintf(self_worker, sizeof(self_worker), "%s/gcbench-worker", self);
	strncat(self, "/gcbench", sizeof(self) - strlen(self) - 1);
	{
		const char *cmd[] = { self, "run", spec_abs, "--inventory",
				      ro.inventory_path ? inv_abs : "slurm", "--db", db_abs,
				      o.tag ? "--tag" : NULL, o.tag, NULL };
		if (getenv("GCBENCH_HOME")) {
			snprintf(home, sizeof(home), "GCBENCH_HOME=%s", getenv("GCBENCH_HOME"));
			env[ne++] = home;
		}
		if (getenv("SLURM_CONF")) {
			snprintf(conf, sizeof(conf), "SLURM_CONF=%s", getenv("SLURM_CONF"));
			env[ne++] = conf;
		}
		const char *need[] = { self, self_worker, spec_abs, ro.inventory_path ? inv_abs : NULL,
				       NULL };
		memset(&s, 0, sizeof(s));
		s.need = need;
		s.write_dir = *dbdir ? dbdir : "/";
		s.account = o.account;
		s.qos = o.qos;
		s.constraint = o.constraint;
		s.reservation = o.reservation;
		s.extra = o.n_extra ? o.extra : NULL;
		s.job_name = o.job_name ? o.job_name : name;
		s.nodes = o.nodes;
		s.partition = o.partition;
		s.time = o.time;
		s.gpus_per_node = o.gpus;
		s.begin = o.begin;
		s.caps = caps;
		s.output = out;
		s.chdir = *dbdir ? dbdir : "/";
		s.env = ne ? env : NULL;
		s.command = cmd;
		if (gc_slurm_sbatch_script(&s, &b, &e)) {
			gc_error("%s", e.msg);
			return GC_EXIT_USAGE;
		}
	}
	if (o.dry_run) {
		dry_run(&o, script, &b);
		gc_buf_release(&b);
		return GC_EXIT_OK;
	}
	snprintf(needs, sizeof(needs), "%.1000s (gcbench's bin folder), %.1000s, %.1000s%s%.1000s",
		 self, spec_abs, ro.inventory_path ? inv_abs : "", ro.inventory_path ? ", " : "",
		 *dbdir ? dbdir : "/");
	f = fopen(script, "w");
	if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f)) {
		gc_error("cannot write the batch script '%s': %s", script, strerror(errno));
		gc_buf_release(&b);
		return GC_EXIT_ENV;
	}
	gc_buf_release(&b);
	r = sbatch(&o, script, needs, job, sizeof(job));
	if (!*job) {
		unlink(script);   /* nothing was submitted: nothing of it stays */
		gc_error("sbatch did not submit the job (exit %d); see its message above; "
			 "nothing was left behind", r);
		return GC_EXIT_ENV;
	}
	if (o.wait && r)
		failed_job(out, job, r, *dbdir ? dbdir : "/");
	return o.wait ? r : GC_EXIT_OK;
}
