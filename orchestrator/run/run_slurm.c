/* orchestrator/run/run_slurm.c: the nodes of the allocation a sweep runs in. */
#include "run_slurm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "run_setup.h"
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
