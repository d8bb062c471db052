/* gcbench run: the sweep loop, its signals, lock, resume and summary. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "log.h"
#include "orchestrator/remote/launch.h"
#include "each_node.h"
#include "hostlock.h"
#include "lock.h"
#include "orchestrator/ops/notify.h"
#include "progress.h"
#include "run_provision.h"
#include "resume.h"
#include "interrupt.h"
#include "run.h"
#include "run_point.h"
#include "run_summary.h"
#include "run_racks.h"
#include "run_setup.h"
#include "run_slurm.h"
#include "validate.h"
#include "proc.h"
#include "strutil.h"

static gc_rc restore_one(size_t i, void *arg, gc_err *e)
{
	gc_node *nd = &((struct gc_sweep_ctx *)arg)->nodes[i];
	gc_err ne;

	(void)e;
	if (gc_node_restore_all(nd, &ne))
		gc_warn("restoring links on '%s': %s", nd->name, ne.msg);
	return GC_OK;
}

/* Before anything is shaped: links a killed sweep left capped are restored (every
 * node at once, orchestrator/run/each_node.h). */
static void restore_nodes(struct gc_sweep_ctx *c)
{
	gc_err e;
	gc_each_node(c->n_nodes, restore_one, c, &e);
	gc_run_racks_unshape(c);   /* the emulated uplinks, on this machine */
}

static gc_rc check_one(size_t i, void *arg, gc_err *e)
{
	return gc_node_check(&((struct gc_sweep_ctx *)arg)->nodes[i], e);
}

/* Every node's provisioning check at once; the first node's failure. */
static gc_rc check_nodes(struct gc_sweep_ctx *c, gc_err *e)
{
	gc_rc rc = gc_each_node(c->n_nodes, check_one, c, e);
	size_t i;

	for (i = 0; !rc && i < c->n_nodes; i++)
		if (*c->nodes[i].tcp_cc && strcmp(c->nodes[i].tcp_cc, "reno") &&
		    strcmp(c->nodes[i].tcp_cc, "cubic"))
			gc_warn("node '%s' uses TCP congestion control '%s' (recorded with each run)",
				c->nodes[i].name, c->nodes[i].tcp_cc);
	return rc;
}

struct env_job {
	struct gc_sweep_ctx *c;
	struct gc_envinfo *env;
};

static gc_rc env_one(size_t i, void *arg, gc_err *e)
{
	struct env_job *j = arg;
	return gc_node_env(&j->c->nodes[i], j->c->o->tag, &j->env[i], e);
}

/* Every node's environment, asked of all at once, then stored one by one. */
static gc_rc collect_envs(struct gc_sweep_ctx *c, gc_err *e)
{
	struct env_job j = { c, calloc(c->n_nodes ? c->n_nodes : 1, sizeof(struct gc_envinfo)) };
	size_t i;
	gc_rc rc;

	c->env_ids = calloc(c->n_nodes ? c->n_nodes : 1, sizeof(int64_t));
	if (!c->env_ids || !j.env) {
		free(j.env);
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	rc = gc_each_node(c->n_nodes, env_one, &j, e);
	for (i = 0; !rc && i < c->n_nodes; i++)
		rc = gc_db_env_get(c->db, &j.env[i], &c->env_ids[i], e);
	free(j.env);
	return rc;
}

/* Run the points not done yet; returns how many failed. */
static size_t run_points(struct gc_sweep_ctx *c, struct gc_exec_point *pts, size_t n,
			 const struct gc_strlist *done, gc_rc *fatal, gc_err *e)
{
	gc_progress pr;
	size_t i, skipped = 0, failed = 0;

	for (i = 0; i < n; i++)
		skipped += gc_strlist_has(done, pts[i].pt->key) ? 1 : 0;
	gc_progress_init(&pr, n, skipped);
	if (skipped)
		gc_info("resuming: %zu of %zu points already done in this sweep", skipped, n);
	for (i = 0; i < n && !gc_run_interrupted(); i++) {
		int ok = 0;
		if (gc_strlist_has(done, pts[i].pt->key))
			continue;
		gc_progress_start(&pr, pts[i].label);
		*fatal = gc_point_exec(c, &pts[i], &ok, e);
		gc_progress_end(&pr, ok, ok ? "ok" : gc_run_interrupted() ? "interrupted" : "failed");
		failed += !ok;
		if (*fatal && *fatal != GC_E_INTERRUPTED)
			break;
	}
	return failed;
}

struct sweep_state {
	struct gc_run_plan plan;      /* the spec, its points (which point into the spec:
	                               * never copied) and, until setup takes it, the
	                               * inventory */
	struct gc_exec_point *pts;
	struct gc_strlist done;
	int lockfd;
	struct gc_hostlocks hosts;    /* hostlock.h: held until the end */
};

/* Continue one of the spec's sweeps or begin a new one (orchestrator/run/resume.h). With
 * env_key NULL (a dry run) nothing is written: *why and s->done tell what would be. */
static gc_rc choose_sweep(struct gc_sweep_ctx *c, struct sweep_state *s, const char *env_key,
			  char *why, size_t whylen, gc_err *e)
{
	struct gc_db_sweep_brief *sw = NULL;
	size_t n = 0;
	int k;
	gc_rc rc = gc_db_spec_sweeps(c->db, s->plan.spec.hash, &sw, &n, e);

	if (rc)
		return rc;
	k = gc_resume_choose((enum gc_resume_mode)c->o->resume_mode, sw, n, env_key,
			     c->o->tag, why, whylen);
	if (k == -2)
		rc = gc_fail(e, GC_E_INVAL, "%s", why);
	else if (k >= 0)
		rc = gc_db_done_keys(c->db, sw[k].id, &s->done, e);
	if (!rc && env_key && k >= 0) {
		c->sweep_id = sw[k].id;
		rc = gc_db_sweep_reopen(c->db, c->sweep_id, e);
	} else if (!rc && env_key) {
		rc = gc_db_sweep_begin(c->db, s->plan.spec.name, s->plan.spec.text, s->plan.spec.hash,
				       s->plan.spec.baseline, &c->sweep_id, e);
		rc = rc ? rc : gc_db_sweep_set_env_key(c->db, c->sweep_id, env_key, e);
		if (!rc && s->plan.spec.n_baselines > 1)
			rc = gc_db_sweep_set_baselines(c->db, c->sweep_id, s->plan.spec.baselines,
						       s->plan.spec.n_baselines, e);
	}
	free(sw);
	return rc;
}

static gc_rc sweep_env_key(struct gc_sweep_ctx *c, char *key, size_t n, gc_err *e)
{
	const char *names[GC_LAUNCH_MAX_HOSTS];
	size_t i;

	for (i = 0; i < c->n_nodes && i < GC_LAUNCH_MAX_HOSTS; i++)
		names[i] = c->nodes[i].name;
	if (gc_env_key(c->o->tag, names, c->env_ids, i, key, n))
		return gc_fail(e, GC_E_INVAL, "too many nodes for the sweep's environment key");
	return GC_OK;
}

/* The points, and whether the sweep would continue (the database is only read). */
static void dry_run(struct gc_sweep_ctx *c, struct sweep_state *s)
{
	char why[640] = "new sweep: no results database yet", how[2400];
	size_t i;
	gc_err e;

	if (!access(c->o->db_path, F_OK)) {
		if (gc_db_open(c->o->db_path, GC_DB_READONLY, &c->db, &e) ||
		    choose_sweep(c, s, NULL, why, sizeof(why), &e))
			snprintf(why, sizeof(why), "cannot tell: %s", e.msg);
	}
	printf("spec: %s, hash %s (sweeps.spec_hash)\n", s->plan.spec.name, s->plan.spec.hash);
	printf("resume: %s\n", why);
	printf("nodes (%zu):\n", c->n_nodes);
	for (i = 0; i < c->n_nodes; i++) {
		gc_node_describe(&c->nodes[i], how, sizeof(how));
		printf("  %-8s %s\n", c->nodes[i].name, how);
	}
	printf("%zu point%s:\n", s->plan.sw.n, s->plan.sw.n == 1 ? "" : "s");
	for (i = 0; i < s->plan.sw.n; i++)
		printf("  %s%s\n      key %s\n      placement %s\n", s->pts[i].label,
		       gc_strlist_has(&s->done, s->pts[i].pt->key) ? "  (done: skipped)" : "",
		       s->pts[i].pt->key, s->pts[i].placement);
}

static gc_rc prepare(struct gc_sweep_ctx *c, struct sweep_state *s, gc_err *e)
{
	char lockpath[1200], key[512], why[640];
	uint64_t t0 = 0;
	int n = 0;
	size_t i;
	gc_rc rc = gc_run_plan_load(c->o, &s->plan, e);   /* every input read once */

	if (rc)
		return rc;
	s->pts = calloc(s->plan.sw.n ? s->plan.sw.n : 1, sizeof(*s->pts));
	if (!s->pts)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (i = 0; i < s->plan.sw.n; i++)
		gc_exec_point_init(&s->pts[i], &s->plan.spec, &s->plan.sw.pts[i]);
	rc = gc_run_setup_nodes(c->o, c, &s->plan.inv, lockpath, sizeof(lockpath), e);
	rc = rc ? rc : gc_run_place_points(c, s->pts, s->plan.sw.n, e);
	if (rc || c->o->dry_run)
		return rc;
	c->validated = 1;   /* the inputs are checked: from here on a failure is the
			     * environment's (exit 3) */
	rc = gc_run_slurm_check_exclusive(c, s->pts, s->plan.sw.n, e);   /* before any step */
	gc_setup_mark(&c->ph, GC_SETUP_LOCK, &t0);
	rc = rc ? rc : gc_lock_acquire(lockpath, &s->lockfd, e);
	if (!rc) {
		struct gc_hostlock_owner me;
		gc_hostlock_owner_self(&me, c->o->inventory_path, c->o->spec_path, c->o->db_path);
		rc = gc_hostlock_acquire(c->nodes, c->n_nodes, &me, &s->hosts, e);
	}
	gc_setup_mark(&c->ph, GC_SETUP_LOCK, &t0);
	gc_setup_mark(&c->ph, GC_SETUP_PROVISION, &t0);
	rc = rc ? rc : gc_provision_for_run(c->o, s->pts, s->plan.sw.n, c->nodes, c->n_nodes, e);
	gc_setup_mark(&c->ph, GC_SETUP_PROVISION, &t0);
	if (rc)
		return rc;
	gc_setup_mark(&c->ph, GC_SETUP_RESTORE, &t0);
	restore_nodes(c);
	gc_setup_mark(&c->ph, GC_SETUP_RESTORE, &t0);
	gc_setup_mark(&c->ph, GC_SETUP_CHECK, &t0);
	rc = gc_run_slurm_guards_start(c, e);   /* SLURM: restore on scancel (run_slurm.h) */
	rc = rc ? rc : check_nodes(c, e);
	rc = rc ? rc : gc_run_check_latency(c, s->pts, s->plan.sw.n, e);   /* run_setup.h */
	rc = rc ? rc : gc_run_data_subnet(c, e);
	gc_setup_mark(&c->ph, GC_SETUP_CHECK, &t0);
	/* the database only once the hosts are known to serve: a sweep refused by its
	 * hosts leaves no file behind */
	rc = rc ? rc : gc_db_open(c->o->db_path, 0, &c->db, e);
	rc = rc ? rc : gc_db_mark_interrupted(c->db, NULL, 0, &n, e);
	if (!rc && n)
		gc_warn("%d runs left 'running' by a stopped sweep are now marked interrupted", n);
	gc_setup_mark(&c->ph, GC_SETUP_ENV, &t0);
	rc = rc ? rc : collect_envs(c, e);
	gc_setup_mark(&c->ph, GC_SETUP_ENV, &t0);
	rc = rc ? rc : sweep_env_key(c, key, sizeof(key), e);
	rc = rc ? rc : choose_sweep(c, s, key, why, sizeof(why), e);
	rc = rc ? rc : gc_db_sweep_target(c->db, c->sweep_id, s->plan.spec.target_metric,
					  s->plan.spec.target_value, e);
	if (!rc)
		gc_info("%s", why);
	return rc;
}

/* The sweep's record directory on each node (run-N inside were removed after ingest). */
static void remove_work_dirs(struct gc_sweep_ctx *c)
{
	char *argv[] = { "rm", "-rf", "--", c->remote_work, NULL };
	size_t i;

	gc_proc_clear_interrupt();   /* after Ctrl-C too */
	for (i = 0; c->nodes && *c->remote_work && i < c->n_nodes; i++) {
		gc_proc_result r;
		gc_err e;
		if (c->nodes[i].down)
			continue;
		if (gc_node_exec(&c->nodes[i], argv, 15, &r, &e))
			gc_warn("cleanup: %s", e.msg);
		gc_proc_result_release(&r);
	}
}

static void notify_end(const struct sweep_state *s, size_t failed, int interrupted, const char *db)
{
	char summary[256], details[1200];
	gc_notify_event ev = { failed || interrupted ? GC_NOTIFY_SWEEP_FAILED : GC_NOTIFY_SWEEP_FINISHED,
			       s->plan.spec.name, summary, details };

	if (!s->plan.spec.n_notify)
		return;
	snprintf(summary, sizeof(summary), "%zu points, %zu failed%s", s->plan.sw.n, failed,
		 interrupted ? ", interrupted" : "");
	snprintf(details, sizeof(details), "gcbench status --db %s", db);
	gc_notify_send(s->plan.spec.notify, s->plan.spec.n_notify, &ev, NULL, NULL);
}

int gc_sweep_run(const struct gc_run_opts *o)
{
	struct gc_sweep_ctx c = { .o = o, .reap_pending = 1 };
	struct sweep_state s = { .lockfd = -1 };
	size_t failed = 0;
	gc_rc rc, fatal = GC_OK;
	gc_err e = { "" };
	int status;

	gc_run_install_signals();
	gc_phase_init(&c.ph);
	rc = prepare(&c, &s, &e);
	if (!rc && o->dry_run)
		dry_run(&c, &s);
	if (!rc && !o->dry_run) {
		failed = run_points(&c, s.pts, s.plan.sw.n, &s.done, &fatal, &e);
		gc_db_sweep_end(c.db, c.sweep_id,
				gc_run_interrupted() ? "interrupted" : fatal || failed ? "failed" : "done", NULL);
		if (o->json)
			gc_run_summary_json(c.db, c.sweep_id);
		else
			gc_run_summary_print(c.db, c.sweep_id, stdout);
		notify_end(&s, failed, gc_run_interrupted(), o->db_path);
		rc = fatal == GC_E_INTERRUPTED ? GC_OK : fatal;
	}
	if (!o->dry_run)
		remove_work_dirs(&c);
	if (rc)
		gc_error("%s", e.msg);
	status = gc_run_interrupted() ? GC_EXIT_INTERRUPTED :
		 rc ? (c.validated ? gc_exit_env(rc) : gc_exit_code(rc)) :
		 failed ? GC_EXIT_FAILED : GC_EXIT_OK;
	gc_db_close(c.db);
	gc_run_slurm_guards_stop(&c);
	gc_hostlock_release(&s.hosts);
	gc_lock_release(s.lockfd);
	gc_run_release_nodes(&c);
	free(c.env_ids);
	free(s.pts);
	gc_strlist_release(&s.done);
	gc_run_plan_release(&s.plan);
	return status;
}
