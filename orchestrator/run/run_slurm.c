/* orchestrator/run/run_slurm.c: the nodes of the allocation a sweep runs in. */
#include "run_slurm.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "log.h"
#include "proc.h"
#include "home.h"
#include "strutil.h"

gc_rc gc_run_slurm_inventory(const char *o_path, const char **out, char *buf, size_t n,
			     gc_err *e)
{
	const char *job = getenv("SLURM_JOB_ID");
	char home[PATH_MAX];

	*out = o_path;
	if (o_path && strcmp(o_path, "slurm"))
		return GC_OK;
	if (!o_path && (!job || !*job))
		return GC_OK;   /* outside an allocation: the default local cluster */
	snprintf(home, sizeof(home), "%s/slurm.yaml", gc_home());
	if (!access(home, F_OK)) {
		snprintf(buf, n, "%s", home);
	} else if (!access("/etc/gcbench/slurm.yaml", F_OK)) {
		snprintf(buf, n, "/etc/gcbench/slurm.yaml");
	} else {
		return gc_fail(e, GC_E_NOTFOUND, "%s needs the nodes' data interface from a site "
			       "file, and neither %s nor /etc/gcbench/slurm.yaml exists: write one "
			       "with 'slurm: true' and 'iface: NAME' (and 'sudo: true' for a login "
			       "that shapes through sudo), or give --inventory FILE",
			       o_path ? "--inventory slurm" : "a run inside a SLURM allocation "
			       "(SLURM_JOB_ID is set)", home);
	}
	*out = buf;
	return GC_OK;
}

gc_rc gc_run_slurm_nodes(const struct gc_run_opts *o, const struct gc_inventory *inv,
			 struct gc_sweep_ctx *c, gc_err *e)
{
	gc_slurm_alloc *a = calloc(1, sizeof(*a));
	char **hosts = NULL;
	int nh = 0;
	gc_rc rc = a ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");

	rc = rc ? rc : gc_slurm_alloc_from_env(NULL, a, e);
	if (rc == GC_E_NOTFOUND)
		rc = gc_fail(e, GC_E_NOTFOUND, "the inventory says 'slurm: true', but this is not "
			     "inside a SLURM allocation (SLURM_JOB_ID is unset): run it inside "
			     "salloc or sbatch, or submit it with 'gcbench submit'");
	rc = rc ? rc : gc_slurm_expand_nodelist(a->nodelist, &hosts, &nh, e);
	if (!rc && !(c->nodes = calloc((size_t)nh, sizeof(gc_node))))
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
	for (int i = 0; !rc && i < nh; i++) {
		gc_node *nd = &c->nodes[i];
		if (strlen(hosts[i]) >= sizeof(nd->name)) {
			rc = gc_fail(e, GC_E_INVAL, "node name '%.80s' of the allocation is longer "
				     "than %zu bytes", hosts[i], sizeof(nd->name) - 1);
			break;
		}
		gc_strlcpy(nd->name, hosts[i], sizeof(nd->name));
		gc_strlcpy(nd->address, hosts[i], sizeof(nd->address));   /* the data address
								 * once learned */
		gc_strlcpy(nd->iface, inv->iface, sizeof(nd->iface));
		nd->gpus = a->gpus_per_node;
		nd->sudo = inv->sudo;
		nd->launcher = GC_LAUNCHER_SLURM;
		gc_strlcpy(nd->bin_dir, o->bin_dir ? o->bin_dir : "/usr/local/bin",
			   sizeof(nd->bin_dir));
	}
	gc_argv_free(hosts);
	if (rc) {
		free(c->nodes);
		c->nodes = NULL;
		free(a);
		return rc;
	}
	c->n_nodes = (size_t)nh;
	c->slurm = a;
	gc_info("SLURM job %s%s%s: %d node%s (%s), %d GPU%s per node, steps through srun",
		a->job_id, *a->partition ? " in partition " : "", a->partition, nh, nh > 1 ? "s" : "",
		a->nodelist, a->gpus_per_node, a->gpus_per_node == 1 ? "" : "s");
	return GC_OK;
}

gc_rc gc_run_slurm_check_exclusive(const struct gc_sweep_ctx *c,
				   const struct gc_exec_point *pts, size_t n, gc_err *e)
{
	gc_slurm_job j;
	size_t i;
	gc_rc rc;

	if (!c->slurm)
		return GC_OK;
	for (i = 0; i < n && !pts[i].pt->bw_bps && pts[i].pt->latency_s <= 0; i++)
		;
	if (i == n)
		return GC_OK;
	rc = gc_slurm_job_info(c->slurm->job_id, &j, e);
	rc = rc ? rc : gc_slurm_require_exclusive(&j, e);
	if (rc == GC_E_PERM) {
		char why[sizeof(e->msg)];
		gc_strlcpy(why, e->msg, sizeof(why));
		return gc_fail(e, GC_E_PERM, "%.700s (the sweep caps or delays links, first at "
			       "point '%.200s'; nothing was changed on any node)", why, pts[i].label);
	}
	return rc;
}

/* The guard's script: $@ is gcbench-netem's command (sudo -n -- PATH, or PATH). It
 * waits for the end of its stdin (the sweep closes it at its end: the step ends
 * without a restore and without SLURM's "CANCELLED" line); the reader runs in the
 * background so that a signal runs the trap at once. SLURM signals every process of
 * the step: when the reader dies first, the shell may reach the line after `wait`
 * before its trap, so a reader that did not end at EOF restores too. */
static const char guard_sh[] =
	"trap '\"$@\" restore-all >/dev/null 2>&1; exit 0' TERM INT HUP; "
	"exec 3<&0; cat <&3 >/dev/null & wait $!; "
	"[ $? -eq 0 ] || \"$@\" restore-all >/dev/null 2>&1; exit 0";
static int guard_fd = -1;   /* the write end of every guard's stdin */

/* The watcher: a guard that ends while the sweep runs means SLURM is ending the job
 * (scancel, the time limit; salloc does not signal its command at once): the sweep
 * is stopped as by SIGTERM, so the point is marked interrupted and the next run
 * continues the sweep. */
static volatile int guards_stopping;
static pthread_t watcher;
static int watching;

static void *watch_guards(void *arg)
{
	struct gc_sweep_ctx *c = arg;

	while (!guards_stopping) {
		for (size_t i = 0; i < c->n_nodes && !guards_stopping; i++) {
			if (c->guards[i] > 0 && waitpid(c->guards[i], NULL, WNOHANG) == c->guards[i]) {
				c->guards[i] = 0;
				if (!guards_stopping) {
					gc_warn("the SLURM job's step on '%s' ended: the job is being "
						"cancelled or reached its time limit; stopping the sweep",
						c->nodes[i].name);
					kill(getpid(), SIGTERM);
					return NULL;
				}
			}
		}
		usleep(200000);
	}
	return NULL;
}

gc_rc gc_run_slurm_guards_start(struct gc_sweep_ctx *c, gc_err *e)
{
	if (!c->slurm)
		return GC_OK;
	int fd[2];

	c->guards = calloc(c->n_nodes, sizeof(pid_t));
	if (!c->guards)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	if (pipe2(fd, O_CLOEXEC))
		return gc_fail(e, GC_E_IO, "cannot make a pipe: %s", strerror(errno));
	guard_fd = fd[1];
	for (size_t i = 0; i < c->n_nodes; i++) {
		gc_node *nd = &c->nodes[i];
		char netem[1100], **sv = NULL;
		char *argv[] = { "sh", "-c", (char *)guard_sh, "gcbench-guard", "sudo", "-n", "--",
				 netem, NULL };
		gc_rc rc;
		pid_t pid;

		snprintf(netem, sizeof(netem), "%s/gcbench-netem", nd->bin_dir);
		if (nd->netem_path[0])   /* the package's helper (gc_node_check) */
			snprintf(netem, sizeof(netem), "%s", nd->netem_path);
		if (nd->netem_path[0] ? !nd->netem_sudo : !nd->sudo) {   /* the program itself */
			argv[4] = netem;
			argv[5] = NULL;
		}
		if ((rc = gc_node_argv(nd, argv, &sv, e))) {
			close(fd[0]);
			return rc;
		}
		pid = fork();
		if (pid == 0) {
			int nul = open("/dev/null", O_RDWR);
			dup2(fd[0], 0);
			if (nul >= 0)
				dup2(nul, 1);
			setpgid(0, 0);   /* a Ctrl-C of the sweep does not end it first */
			execvp(sv[0], sv);
			_exit(127);
		}
		gc_argv_free(sv);
		if (pid < 0) {
			close(fd[0]);
			return gc_fail(e, GC_E_IO, "cannot start the guard step on '%s'", nd->name);
		}
		c->guards[i] = pid;
	}
	close(fd[0]);
	guards_stopping = 0;
	watching = !pthread_create(&watcher, NULL, watch_guards, c);
	return GC_OK;
}

void gc_run_slurm_guards_stop(struct gc_sweep_ctx *c)
{
	int st;

	guards_stopping = 1;
	if (watching)
		pthread_join(watcher, NULL);
	watching = 0;
	if (guard_fd >= 0)
		close(guard_fd);   /* each guard's cat ends: the step ends */
	guard_fd = -1;
	for (int t = 0; t < 100; t++) {   /* 10 s, then SIGTERM (srun passes it on) */
		size_t left = 0;
		for (size_t i = 0; c->guards && i < c->n_nodes; i++)
			if (c->guards[i] > 0 && waitpid(c->guards[i], &st, WNOHANG) == c->guards[i])
				c->guards[i] = 0;
			else if (c->guards[i] > 0)
				left++;
		if (!left)
			break;
		usleep(100000);
	}
	for (size_t i = 0; c->guards && i < c->n_nodes; i++)
		if (c->guards[i] > 0)
			kill(c->guards[i], SIGTERM);
	for (size_t i = 0; c->guards && i < c->n_nodes; i++)
		if (c->guards[i] > 0)
			while (waitpid(c->guards[i], &st, 0) < 0 && errno == EINTR)
				;
	free(c->guards);
	c->guards = NULL;
}

void gc_run_slurm_check_job(const struct gc_sweep_ctx *c)
{
	gc_slurm_job j;
	gc_err e;

	if (!c->slurm)
		return;
	/* a job SLURM is ending says CANCELLED, TIMEOUT, COMPLETING, ...; one scontrol
	 * gone wrong is not taken for it */
	if (gc_slurm_job_info(c->slurm->job_id, &j, &e) == GC_OK && strcmp(j.state, "RUNNING")) {
		gc_warn("the SLURM job %s is %s: stopping the sweep", c->slurm->job_id, j.state);
		raise(SIGTERM);   /* as scancel's own SIGTERM: the point is interrupted */
	}
}
