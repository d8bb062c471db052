/* One sweep point: shape, calibrate, launch, collect, ingest, unshape. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "db/db.h"
#include "db/q_calibration.h"
#include "fsutil.h"
#include "log.h"
#include "buf.h"
#include "orchestrator/remote/fetch.h"
#include "orchestrator/remote/launch.h"
#include "orchestrator/remote/subnet.h"
#include "orchestrator/spec/spec_command.h"
#include "each_node.h"
#include "lock.h"
#include "placement.h"
#include "interrupt.h"
#include "run_point.h"
#include "run_racks.h"
#include "run_bg.h"
#include "run_slurm.h"
#include "run_trace.h"
#include "strutil.h"
#include "timing.h"

/* Where point p's ranks run (orchestrator/run/placement.h). */
static gc_rc place(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
		   struct gc_placement *pl, gc_err *e)
{
	const char *names[GC_PLACE_MAX_HOSTS];
	int gpus[GC_PLACE_MAX_HOSTS];
	size_t i, n = c->n_nodes < GC_PLACE_MAX_HOSTS ? c->n_nodes : GC_PLACE_MAX_HOSTS;

	for (i = 0; i < n; i++) {
		names[i] = c->nodes[i].name;
		gpus[i] = c->nodes[i].gpus;
	}
	return gc_placement_compute(p->pt->backend, p->pt->world_size, p->spec->ranks_per_node,
				    names, gpus, n, pl, e);
}

/* "2 nodes x 1 rank (n1:1,n2:1)" as the end-of-sweep placement line says it; a list
 * too long for buf is cut after a whole host with ",..." */
static void placement_line(const struct gc_sweep_ctx *c, const struct gc_placement *pl,
			   char *buf, size_t n)
{
	const char *names[GC_PLACE_MAX_HOSTS];
	char hosts[2048];
	size_t o, i;

	for (i = 0; i < pl->used; i++)
		names[i] = c->nodes[i].name;
	gc_placement_text(pl, buf, n);
	gc_placement_hosts_text(pl, names, hosts, sizeof(hosts));
	o = strlen(buf);
	if (o + 3 + strlen(hosts) < n) {
		snprintf(buf + o, n - o, " (%s)", hosts);
		return;
	}
	/* too long: whole hosts up to the room left, then ",..." */
	for (i = n > o + 7 ? n - o - 7 : 0; i && hosts[i] != ','; i--)
		;
	snprintf(buf + o, n - o, i ? " (%.*s,...)" : " (...)", (int)i, hosts);
}

/* The emulated cluster's ranks all run on this machine's cores. Measured on 2 cores
 * (docs/model.md, "How far to trust it"): at 2 ranks a core the model's held-out error
 * stays within its goals; at 3 and 4 a core the latency-bound exchanges (PowerSGD's
 * many small all-reduces) took 1.6-1.9x their predicted time, waiting on the CPU
 * scheduler, while the bandwidth-bound sync SGD stayed within 4%. Say so once. */
static void shared_cores_note(const struct gc_sweep_ctx *c, const struct gc_exec_point *pts,
			      size_t n)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int most = 0;

	if (!c->shared_cores || cores < 1)
		return;
	for (size_t i = 0; i < n; i++)
		most = pts[i].pt->world_size > most ? pts[i].pt->world_size : most;
	if (most > 2 * cores)
		gc_warn("the emulated nodes share this machine's %ld core%s: at %d ranks (more than "
			"2 a core) collectives also wait on the CPU scheduler, so those points say "
			"more about this machine than about the network (docs/model.md, \"How far "
			"to trust it\")", cores, cores == 1 ? "" : "s", most);
}

gc_rc gc_run_place_points(const struct gc_sweep_ctx *c, struct gc_exec_point *pts, size_t n,
			  gc_err *e)
{
	struct gc_placement pl;
	gc_err pe;

	for (size_t i = 0; i < n; i++) {
		const struct gc_point *pt = pts[i].pt;
		if (place(c, &pts[i], &pl, &pe))
			return gc_fail(e, GC_E_INVAL, "point '%s': %s", pts[i].label, pe.msg);
		placement_line(c, &pl, pts[i].placement, sizeof(pts[i].placement));
		if (pl.nodes == 1 && (pt->bw_bps || pt->latency_s > 0) && !pts[i].spec->allow_single_node)
			return gc_fail(e, GC_E_INVAL, "point '%s': all %d ranks sit on node '%s', so "
				       "the %s never touches their traffic (only traffic between hosts "
				       "crosses the shaped interface); lower ranks_per_node, add hosts, "
				       "or set allow_single_node: true in the spec", pts[i].label,
				       pt->world_size, c->nodes[pl.used - 1].name,
				       pt->bw_bps ? "bandwidth cap" : "latency");
	}
	shared_cores_note(c, pts, n);
	return GC_OK;
}

/* The worker's path for mpirun: the hosts' common bin_dir, or, when provisioning put
 * the build in each login's own home (users differ), the path under $HOME that every
 * host shares (.cache/gcbench/HASH), resolved on each host by the rank's wrapper.
 * Nonzero when neither. */
static int worker_path(const struct gc_sweep_ctx *c, const struct gc_placement *pl, char *out,
		       size_t n)
{
	const char *d0 = c->nodes[0].bin_dir, *tail = strstr(d0, "/.cache/gcbench/");
	int same = 1, shared_tail = tail != NULL;

	for (size_t i = 1; i < pl->used; i++) {
		const char *d = c->nodes[i].bin_dir, *t = strstr(d, "/.cache/gcbench/");
		same &= !strcmp(d, d0);
		shared_tail &= t && tail && !strcmp(t, tail);
	}
	if (same || !*c->data_cidr)
		snprintf(out, n, "%s/gcbench-worker", d0);
	else if (shared_tail)
		snprintf(out, n, "%s/gcbench-worker", tail + 1);
	return !same && (!shared_tail || !*c->data_cidr);
}

static gc_rc fill_launch(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
			 const struct gc_placement *pl, int64_t run_id, gc_launch *l,
			 char *worker, char *out, gc_err *e)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	if (worker_path(c, pl, worker, 1100))
		return gc_fail(e, GC_E_INVAL, "the used hosts' binaries are in different places (%s on "
			       "'%s'), not each in its login's ~/.cache/gcbench/BUILD: give one "
			       "--bin-dir, or let gcbench run provision them", c->nodes[0].bin_dir,
			       c->nodes[0].name);
	snprintf(out, 1200, "%s/run-%lld/records-r%%r.gcr", c->remote_work, (long long)run_id);
	l->worker = worker;
	l->out_pattern = out;
	/* names: mpirun's agent reaches them through the ssh_config written for the run */
	for (i = 0; i < pl->used && i < GC_LAUNCH_MAX_HOSTS; i++) {
		l->hosts[i] = c->nodes[i].name;
		l->slots[i] = pl->slots[i];
	}
	l->nhosts = i;
	l->world = p->pt->world_size;
	l->iface = c->nodes[0].iface;
	l->data_cidr = *c->data_cidr ? c->data_cidr : NULL;
	l->oob_include = *c->oob_cidr ? c->oob_cidr : NULL;
	l->backend = p->pt->backend;
	l->method = p->pt->method->name;
	l->workload = p->workload;
	l->iters = p->spec->iterations;
	l->warmup = p->spec->warmup;
	l->batch = p->pt->batch;
	l->compute_scale = p->pt->compute_scale;
	l->eval_every = strcmp(p->spec->workload, "train") ? 0 : p->spec->eval_every;
	l->data = strcmp(p->spec->workload, "train") ? NULL : p->spec->data;
	l->deadline_s = c->o->deadline_s;
	l->allow_root = getuid() == 0;
	l->oversubscribe = 1;
	l->run_id = run_id;
	if (c->shared_cores) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		l->threads = cores > l->world ? (int)(cores / l->world) : 1;
	}
	l->params = &p->pt->method->params;
	if (l->nhosts == 0)
		return gc_fail(e, GC_E_INVAL, "the inventory has no hosts");
	return GC_OK;
}

/* One entry of l->env: KEY/NAME=VALUE (launch.h) */
static gc_rc add_env(gc_launch *l, const char *key, const char *nv, gc_err *e)
{
	if (l->n_env == GC_LAUNCH_MAX_ENV)
		return gc_fail(e, GC_E_INVAL, "the spec's and the hosts' env: and python: make more "
			       "than %d variables; give fewer", GC_LAUNCH_MAX_ENV);
	if ((size_t)snprintf(l->env[l->n_env], GC_LAUNCH_ENV_LEN, "%s/%s", key, nv) >=
	    GC_LAUNCH_ENV_LEN)
		return gc_fail(e, GC_E_INVAL, "variable '%.40s' is too long", nv);
	l->n_env++;
	return GC_OK;
}

/* The ranks' environment (launch.h): the spec's env: and ddp python: on every host,
 * then each host's own python: and env:, keyed by its address on the data subnet. */
static gc_rc fill_env(struct gc_sweep_ctx *c, const struct gc_spec *s, gc_launch *l, gc_err *e)
{
	char nv[GC_ENV_LEN + 16], key[40];
	uint32_t addr;
	int prefix;
	gc_rc rc = GC_OK;

	l->n_env = 0;
	for (size_t i = 0; !rc && i < s->n_env; i++)
		rc = add_env(l, "*", s->env[i], e);
	if (!rc && *s->python) {
		snprintf(nv, sizeof(nv), "GCBENCH_PYTHON=%s", s->python);
		rc = add_env(l, "*", nv, e);
	}
	for (size_t h = 0; !rc && h < l->nhosts; h++) {
		gc_node *n = &c->nodes[h];
		if (l->slots[h] <= 0 || (!*n->python && !n->n_env))
			continue;
		if (!*c->data_cidr)
			return gc_fail(e, GC_E_INVAL, "host '%s' has its own python: or env:, which "
				       "its ranks find by their address on the data subnet; this "
				       "inventory has none (give the hosts one subnet, or move them "
				       "into the spec's env:)", n->name);
		if ((rc = gc_node_data_addr(n, &addr, &prefix, e)))
			return rc;
		gc_subnet_addr_text(addr, prefix, key, sizeof(key));
		key[strcspn(key, "/")] = 0;
		for (size_t i = 0; !rc && i < n->n_env; i++)
			rc = add_env(l, key, n->env[i], e);
		if (!rc && *n->python) {
			snprintf(nv, sizeof(nv), "GCBENCH_PYTHON=%s", n->python);
			rc = add_env(l, key, nv, e);
		}
	}
	return rc;
}

/* workload: command (orchestrator/spec/spec_command.h): the point's argv (its stack's
 * template), the records folder, the folder of gcbench's binaries ({bin}) and the files
 * beside them (files/ of the build), rank 0's host on the data subnet as MASTER_ADDR
 * and a port chosen from the run's id. Nothing for other workloads. *argv is freed by
 * the caller (gc_argv_free). */
static gc_rc fill_command(struct gc_sweep_ctx *c, const struct gc_exec_point *p, int64_t run_id,
			  gc_launch *l, char ***argv, char *bin, char *files, char *rdir,
			  char *master, gc_err *e)
{
	const struct gc_spec *s = p->spec;
	struct gc_command_vals v = { p->pt->method->name, p->pt->method->params_text,
				     p->pt->model, p->pt->backend, s->iterations, s->warmup,
				     p->pt->batch, p->pt->world_size };
	const char *slash = strrchr(l->worker, '/');
	size_t first = 0;
	uint32_t addr;
	int prefix;
	gc_rc rc;

	*argv = NULL;
	if (strcmp(s->workload, "command"))
		return GC_OK;
	while (first < l->nhosts && l->slots[first] <= 0)
		first++;   /* rank 0's host: the first with ranks (--map-by node) */
	if (first == l->nhosts)
		return gc_fail(e, GC_E_INVAL, "the inventory has no hosts");
	if (*c->data_cidr) {
		char t[40];
		if ((rc = gc_node_data_addr(&c->nodes[first], &addr, &prefix, e)))
			return rc;
		gc_subnet_addr_text(addr, prefix, t, sizeof(t));
		snprintf(master, 64, "%.*s", (int)strcspn(t, "/"), t);
	} else {
		snprintf(master, 64, "%.63s", c->nodes[first].address);
	}
	snprintf(rdir, 1200, "%s/run-%lld", c->remote_work, (long long)run_id);
	snprintf(bin, 1100, "%.*s", slash ? (int)(slash - l->worker) : 1, slash ? l->worker : ".");
	snprintf(files, 1100, "%.1000s/files", bin);
	if ((rc = gc_command_expand(p->pt->stack->argv, p->pt->stack->n_argv, &v, argv, e)))
		return rc;
	l->command = *argv;
	l->n_command = p->pt->stack->n_argv;
	l->bin_dir = bin;
	l->files_dir = s->n_files ? files : NULL;
	l->records_dir = rdir;
	l->master_addr = master;
	l->master_port = 20000 + (int)(run_id % 20000);
	return fill_env(c, s, l, e);
}

static gc_rc write_text(const char *path, const gc_buf *b, gc_err *e)
{
	FILE *f = fopen(path, "w");
	int bad = !f || fwrite(b->p ? b->p : "", 1, b->len, f) != b->len;

	if (f && fclose(f))
		bad = 1;
	return bad ? gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno)) : GC_OK;
}

/* The run's hostfile and the ssh_config of mpirun's agent, in the local run-N. */
static gc_rc write_reach(const struct gc_sweep_ctx *c, gc_launch *l, int64_t run_id,
			 char *hostfile, char *sshcfg, gc_err *e)
{
	char ldir[1200];
	gc_buf hf = GC_BUF_INIT, sc = GC_BUF_INIT;
	gc_rc rc;

	snprintf(ldir, sizeof(ldir), "%s/run-%lld", c->local_work, (long long)run_id);
	snprintf(hostfile, 1300, "%s/hostfile", ldir);
	snprintf(sshcfg, 1300, "%s/ssh_config", ldir);
	rc = gc_mkdir_p(ldir, 0755, e);
	rc = rc ? rc : gc_launch_hostfile(l, &hf, e);
	rc = rc ? rc : gc_launch_ssh_config(c->nodes, c->n_nodes, &sc, e);
	rc = rc ? rc : write_text(hostfile, &hf, e);
	rc = rc ? rc : write_text(sshcfg, &sc, e);
	gc_buf_release(&hf);
	gc_buf_release(&sc);
	l->hostfile = hostfile;
	/* inside an allocation mpirun starts its daemons with srun: no ssh agent */
	l->ssh_config = c->slurm ? NULL : sshcfg;
	return rc;
}

/* The point's latency as gcbench-netem's delay (microseconds, rounded). */
static uint32_t point_delay_us(const struct gc_point *pt)
{
	return pt->latency_s > 0 ? (uint32_t)llround(pt->latency_s * 1e6) : 0;
}

struct shape_job {
	struct gc_sweep_ctx *c;
	const struct gc_spec *spec;
	const struct gc_point *pt;
	uint64_t rate;
	uint32_t delay, got[GC_PLACE_MAX_HOSTS];
	int sent[GC_PLACE_MAX_HOSTS];   /* background flows each host sends (queue: fair) */
	size_t bg_pairs;
};

static gc_rc shape_one(size_t i, void *arg, gc_err *e)
{
	struct shape_job *j = arg;       /* slow: a host's factor on the cap */
	gc_node *n = &j->c->nodes[i];
	uint64_t cap = gc_spec_host_cap(j->pt->slow, j->rate, n->name);

	if (gc_run_racks_approx(j->c, j->pt))   /* racks on real hosts (run_racks.h) */
		return gc_run_racks_node_shape(j->c, j->spec, j->pt, i, e);
	/* background flows, queue: fair: the ranks' class at cap / (1 + F), the flows' at
	 * cap x F / (1 + F), each borrowing the rest (validate.c refuses a trace, a delay
	 * and the racks' approximation with it) */
	if (j->sent[i] && cap && !j->delay && !j->pt->trace) {
		uint64_t ranks = cap / (uint64_t)(1 + j->sent[i]);
		return gc_node_shares(n, cap, GC_BG_PORT, (uint16_t)(GC_BG_PORT + j->bg_pairs - 1),
				      cap - ranks, e);
	}
	return gc_node_shape(n, cap, j->delay, &j->got[i], e);
}

/* Cap and delay the used nodes' links, each in one call that shapes and reads back,
 * all nodes at once; store the delay their kernels hold (the smallest read-back) with
 * the run. */
static gc_rc shape_all(struct gc_sweep_ctx *c, int64_t run_id, size_t used,
		       const struct gc_spec *spec, const struct gc_point *pt, gc_err *e)
{
	struct shape_job j = { c, spec, pt, pt->bw_bps, point_delay_us(pt), { 0 }, { 0 }, 0 };
	uint32_t least = UINT32_MAX;
	size_t i;
	gc_rc rc;

	used = used < GC_PLACE_MAX_HOSTS ? used : GC_PLACE_MAX_HOSTS;
	if (spec->bg.queue == GC_BG_QUEUE_FAIR &&
	    (rc = gc_run_bg_sent(c, spec, used, j.sent, &j.bg_pairs, e)))
		return rc;
	if ((rc = gc_each_node(used, shape_one, &j, e)))
		return rc;
	for (i = 0; i < used; i++)
		least = j.got[i] < least ? j.got[i] : least;
	return used ? gc_db_run_set_latency_applied(c->db, run_id, least / 1e6, e) : GC_OK;
}

static gc_rc unshape_one(size_t i, void *arg, gc_err *e)
{
	struct gc_sweep_ctx *c = arg;
	gc_err ne;

	(void)e;
	if (gc_node_unshape(&c->nodes[i], &ne))
		gc_error("%s (the link may still be capped: run 'gcbench-netem restore-all' on '%s')",
			 ne.msg, c->nodes[i].name);
	return GC_OK;
}

/* Always runs: every node of the inventory, not only the used ones. */
static void unshape_all(struct gc_sweep_ctx *c)
{
	gc_err e;
	gc_each_node(c->n_nodes, unshape_one, c, &e);
}

/* Measure the first `pairs` ring pairs now, for run_id. */
static void probe(struct gc_sweep_ctx *c, int64_t run_id, size_t used, size_t pairs,
		  struct gc_calibration *k)
{
	for (size_t i = 0; i < pairs && i < GC_CAL_MAX_PAIRS; i++) {
		gc_node *a = &c->nodes[i], *b = &c->nodes[(i + 1) % used];
		gc_err e;
		k->bps[i] = k->rtt[i] = -1;
		if (gc_node_probe(a, b, c->o->calibrate_s, &k->bps[i], &k->rtt[i], &e))
			gc_warn("calibration %s -> %s failed: %s", a->name, b->name, e.msg);
	}
	k->run_id = run_id;
}

/* An earlier sweep's probe of the same links (db/q_calibration.h), within
 * --calibration-max-age: 1 and k filled in, or 0. */
static int calibration_reuse(struct gc_sweep_ctx *c, int64_t run_id, size_t used, size_t pairs,
			     const struct gc_spec_slowset *slow, uint64_t cap,
			     struct gc_calibration *k)
{
	struct gc_db_cal_pair q[GC_CAL_MAX_PAIRS];
	char bw[32];
	int64_t probe = 0;
	size_t i, n = pairs < GC_CAL_MAX_PAIRS ? pairs : GC_CAL_MAX_PAIRS;
	gc_err e;

	if (c->o->calibration_max_age_s <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		q[i].src = c->nodes[i].name;
		q[i].dst = c->nodes[(i + 1) % used].name;
		q[i].cap_bps = gc_spec_host_cap(slow, cap, q[i].src);
	}
	if (gc_db_calibration_find(c->db, run_id, q, n, gc_wall_s() - c->o->calibration_max_age_s,
				   &probe, &e)) {
		gc_warn("%s; probing instead", e.msg);
		return 0;
	}
	if (!probe)
		return 0;
	for (i = 0; i < n; i++)
		k->bps[i] = q[i].bps, k->rtt[i] = q[i].rtt;
	k->run_id = probe;
	gc_info("calibration at %s: run %lld's probe, reused (same hosts, environments and "
		"delay; --calibration-max-age 0 probes anew)", gc_bw_format(cap, bw, sizeof(bw)),
		(long long)probe);
	return 1;
}

/* Probe the ring pairs at this cap and store the result with the run. A cap is probed
 * once per sweep (its points run back to back): the next points of the same cap and
 * nodes store the same measurement, which saves about 1 s per point (docs/spec.md);
 * an earlier sweep's probe of the same links is reused by reference (runs.
 * calibration_run) unless the point plays a trace (fresh: its links vary). */
static void calibrate(struct gc_sweep_ctx *c, int64_t run_id, size_t used,
		      const struct gc_spec_slowset *slow, uint64_t cap, uint32_t delay_us,
		      int fresh)
{
	struct gc_calibration *k = &c->cal;
	size_t i, pairs = c->o->calibrate_all ? used : 1;

	if (c->o->calibrate_s <= 0 || used < 2)
		return;
	if (!(k->valid && k->cap == cap && k->slow == slow && k->delay_us == delay_us &&
	      k->used == used && k->pairs == pairs)) {
		k->valid = 1, k->cap = cap, k->delay_us = delay_us, k->used = used, k->pairs = pairs;
		k->slow = slow;
		if (fresh || !calibration_reuse(c, run_id, used, pairs, slow, cap, k))
			probe(c, run_id, used, pairs, k);
	}
	{
		gc_err e;
		if (gc_db_run_set_calibration(c->db, run_id, k->run_id, &e))
			gc_warn("cannot store the calibration: %s", e.msg);
	}
	for (i = 0; i < pairs && i < GC_CAL_MAX_PAIRS; i++) {
		gc_node *a = &c->nodes[i], *b = &c->nodes[(i + 1) % used];
		gc_err e;
		/* the sender's own cap: slow: may lower it */
		if (gc_db_link_add(c->db, run_id, a->name, b->name,
				   gc_spec_host_cap(slow, cap, a->name), k->bps[i], k->rtt[i], &e))
			gc_warn("cannot store the calibration: %s", e.msg);
	}
}

struct argv_job {
	struct gc_sweep_ctx *c;
	char *const *argv;
};

static gc_rc exec_one(size_t i, void *arg, gc_err *e)
{
	struct argv_job *j = arg;
	gc_proc_result r;
	gc_rc rc = gc_node_exec(&j->c->nodes[i], j->argv, 15, &r, e);

	gc_proc_result_release(&r);
	return rc;
}

/* argv on the first `used` nodes at once; the first node's failure. */
static gc_rc run_on_nodes(struct gc_sweep_ctx *c, size_t used, char *const argv[], gc_err *e)
{
	struct argv_job j = { c, argv };
	return gc_each_node(used, exec_one, &j, e);
}

/* End what an earlier run left on the nodes (orchestrator/remote/reap.h): a node whose link
 * went down keeps its MPI daemon and ranks until gcbench reaches it again. Done on
 * every node at a sweep's first point and after a point that failed, not before every
 * point (each costs a process start per node). */
static gc_rc reap_one(size_t i, void *arg, gc_err *e)
{
	gc_node *nd = &((struct gc_sweep_ctx *)arg)->nodes[i];
	char bin[1100];
	char *argv[] = { bin, "reap", NULL };
	gc_proc_result r;
	gc_err ne;

	(void)e;
	snprintf(bin, sizeof(bin), "%s/gcbench", nd->bin_dir);
	if (gc_node_exec(nd, argv, 15, &r, &ne))
		gc_warn("%s", ne.msg);
	else if (r.out && *r.out)
		gc_info("%s: %.*s", nd->name, (int)strcspn(r.out, "\n"), r.out);
	gc_proc_result_release(&r);
	return GC_OK;
}

static void reap_nodes(struct gc_sweep_ctx *c)
{
	gc_err e;

	c->reap_pending = 0;
	gc_each_node(c->n_nodes, reap_one, c, &e);
}

/* After mpirun hung on a failed job: which used nodes do not answer (each gives up
 * after the ssh connect timeout and is then skipped by the cleanup). */
static void silent_nodes(struct gc_sweep_ctx *c, size_t used, char *out, size_t n)
{
	char *argv[] = { "true", NULL };
	size_t i, len = 0;

	*out = 0;
	for (i = 0; i < used; i++) {
		gc_proc_result r;
		gc_err e;
		if (gc_node_exec(&c->nodes[i], argv, GC_SILENT_PROBE_S, &r, &e) && len < n)
			len += (size_t)snprintf(out + len, n - len, "%s'%s'", len ? ", " : "",
						c->nodes[i].name);
		gc_proc_result_release(&r);
	}
}

static int has_name(char **names, size_t n, const char *s)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return 1;
	return 0;
}

static gc_rc fetch_one(gc_node *nd, const char *rdir, const char *name, const char *ldir,
		       char **path_out, gc_err *e)
{
	char rpath[1400], lpath[1400];
	char *argv[] = { "cat", "--", rpath, NULL };
	gc_proc_result r;
	FILE *f;
	gc_rc rc;

	snprintf(rpath, sizeof(rpath), "%s/%s", rdir, name);
	snprintf(lpath, sizeof(lpath), "%s/%s", ldir, name);
	rc = gc_node_exec(nd, argv, 60, &r, e);
	if (!rc) {
		f = fopen(lpath, "wb");
		if (!f || fwrite(r.out, 1, r.out_len, f) != r.out_len)
			rc = gc_fail(e, GC_E_IO, "cannot write '%s': %s", lpath, strerror(errno));
		if (f && fclose(f) && !rc)
			rc = gc_fail(e, GC_E_IO, "cannot write '%s'", lpath);
	}
	gc_proc_result_release(&r);
	if (!rc && !(*path_out = strdup(lpath)))
		rc = GC_E_NOMEM;
	return rc;
}

/* The old way, for a node whose files together pass the output limit: ls, then one
 * cat per file. */
static gc_rc collect_each(gc_node *nd, const char *rdir, const char *ldir, char **names,
			  size_t *nn, char **paths, size_t *n, gc_err *e)
{
	char *ls[] = { "ls", "-1", "--", (char *)rdir, NULL };
	char *line, *save = NULL;
	gc_proc_result r;
	gc_rc rc = gc_node_exec(nd, ls, 30, &r, e);

	for (line = rc ? NULL : strtok_r(r.out, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "records-r", 9) || has_name(names, *nn, line) || *nn >= 512)
			continue;
		names[(*nn)++] = strdup(line);
		rc = fetch_one(nd, rdir, line, ldir, &paths[*n], e);
		if (!rc)
			(*n)++;
	}
	gc_proc_result_release(&r);
	return rc;
}

struct fetch_job {
	struct gc_sweep_ctx *c;
	const char *rdir;
	gc_proc_result res[GC_PLACE_MAX_HOSTS];
};

static gc_rc fetch_node(size_t i, void *arg, gc_err *e)
{
	struct fetch_job *j = arg;
	const char *argv[5];
	char *av[6];

	gc_fetch_argv(j->rdir, argv);
	memcpy(av, argv, sizeof(argv));
	av[5] = NULL;
	return gc_node_exec(&j->c->nodes[i], av, 60, &j->res[i], e);
}

struct keep_ctx {
	const char *ldir;
	char **names, **paths;
	size_t *nn, *n;
};

/* One file of a node's stream: written to the local run folder, unless a node before
 * sent the same name (hosts that share a file system list each other's files). */
static int keep_file(const char *name, const char *data, size_t size, void *arg, gc_err *e)
{
	struct keep_ctx *k = arg;
	char path[1400];
	FILE *f;
	int bad;

	if (has_name(k->names, *k->nn, name) || *k->nn >= 512)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", k->ldir, name);
	f = fopen(path, "wb");
	bad = !f || fwrite(data, 1, size, f) != size;
	if (f && fclose(f))
		bad = 1;
	if (bad) {
		gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno));
		return 1;
	}
	if (!(k->names[*k->nn] = strdup(name)) || !(k->paths[*k->n] = strdup(path))) {
		gc_fail(e, GC_E_NOMEM, "out of memory");
		return 1;
	}
	(*k->nn)++;
	(*k->n)++;
	return 0;
}

/* Fetch every rank's record file from the nodes into the local work directory: one
 * round trip per node (orchestrator/remote/fetch.h), all nodes at once. */
static gc_rc collect(struct gc_sweep_ctx *c, int64_t run_id, size_t used, int world, char **paths,
		     size_t *n, gc_err *e)
{
	char rdir[1200], ldir[1200];
	char *names[512];
	struct fetch_job *j = calloc(1, sizeof(*j));
	struct keep_ctx k = { ldir, names, paths, NULL, n };
	size_t i, nn = 0;
	gc_rc rc;

	if (!j)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	snprintf(rdir, sizeof(rdir), "%s/run-%lld", c->remote_work, (long long)run_id);
	snprintf(ldir, sizeof(ldir), "%s/run-%lld", c->local_work, (long long)run_id);
	*n = 0;
	k.nn = &nn;
	used = used < GC_PLACE_MAX_HOSTS ? used : GC_PLACE_MAX_HOSTS;
	j->c = c;
	j->rdir = rdir;
	rc = gc_mkdir_p(ldir, 0755, e);
	rc = rc ? rc : gc_each_node(used, fetch_node, j, e);
	for (i = 0; !rc && i < used; i++) {
		if (j->res[i].out_len >= GC_PROC_MAX_OUT)   /* cut at the limit: file by file */
			rc = collect_each(&c->nodes[i], rdir, ldir, names, &nn, paths, n, e);
		else
			rc = gc_fetch_parse(j->res[i].out, j->res[i].out_len, keep_file, &k, e);
		if (rc) {
			gc_err why = *e;
			gc_fail(e, rc, "node '%s': %s", c->nodes[i].name, why.msg);
		}
	}
	for (i = 0; i < used; i++)
		gc_proc_result_release(&j->res[i]);
	free(j);
	for (i = 0; i < nn; i++)
		free(names[i]);
	if (!rc && *n != (size_t)world)
		rc = gc_fail(e, GC_E_FORMAT, "%zu of %d ranks wrote a record file", *n, world);
	return rc;
}

/* The run's local files; its folder on the nodes goes with the next point's prepare
 * (or the sweep's end), which saves a round trip per node. */
static void remove_dirs(struct gc_sweep_ctx *c, int64_t run_id, char **paths, size_t n)
{
	char ldir[1200];
	size_t i;

	snprintf(ldir, sizeof(ldir), "%s/run-%lld", c->local_work, (long long)run_id);
	c->prev_run = run_id;
	for (i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	for (i = 0; i < 2; i++) {   /* write_reach's files */
		char f[1300];
		snprintf(f, sizeof(f), "%s/%s", ldir, i ? "ssh_config" : "hostfile");
		unlink(f);
	}
	rmdir(ldir);
}

/* The most telling line of mpirun's stderr: a worker's own "gcbench-worker: error"
 * line, else mpirun's "noticed that process rank ..." line, else the last line. */
static void mpirun_cause(const char *tail, char *out, size_t n)
{
	const char *keys[] = { "gcbench-worker: error", "gcbench-command: error",
			       "noticed that process", "ORTE was unable", "error" };
	const char *p = NULL, *end;
	size_t i;

	*out = 0;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && !p; i++)
		p = strstr(tail, keys[i]);
	if (!p)
		return;
	while (p > tail && p[-1] != '\n')
		p--;
	end = strchr(p, '\n');
	snprintf(out, n, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
}

/* Lines on mpirun's stderr that mean the job has failed. mpirun then ends within a
 * second or two, unless a node stopped answering: it waits for that node's daemon,
 * until the point's timeout. So once one is seen, mpirun has GC_STALL_GRACE_S more. */
static const char *const job_failed_marks[] = { "gcbench-worker: error", "MPI_ABORT was invoked",
						"noticed that process rank", "gcbench-command: error",
						NULL };

static gc_rc launch(struct gc_sweep_ctx *c, const struct gc_exec_point *p,
		    const struct gc_placement *pl, int64_t run_id, gc_proc_result *res, char *why,
		    size_t whylen, gc_err *e)
{
	char worker[1100], out[1200], hostfile[1300], sshcfg[1300];
	char bin[1100], files[1100], rdir[1200], master[64];
	gc_proc_opts o = { p->spec->timeout_s, 0, job_failed_marks, GC_STALL_GRACE_S };
	gc_launch l;
	char **argv, **cmd = NULL;
	gc_rc rc;

	rc = fill_launch(c, p, pl, run_id, &l, worker, out, e);
	rc = rc ? rc : fill_command(c, p, run_id, &l, &cmd, bin, files, rdir, master, e);
	rc = rc ? rc : write_reach(c, &l, run_id, hostfile, sshcfg, e);
	rc = rc ? rc : gc_launch_argv(&l, &argv, e);
	gc_argv_free(cmd);   /* gc_launch_argv copied it */
	if (rc)
		return rc;
	rc = gc_proc_run_opts(argv, NULL, NULL, &o, res, e);
	gc_argv_free(argv);
	if (!rc && res->status != 0)
		rc = GC_E_CHILD;
	gc_proc_describe(res, p->spec->timeout_s, why, whylen);
	return rc;
}

/* net (a JSON object, owned) with "slow":{"HOST":FACTOR,...} added when the point's
 * value of slow: names hosts (host names are [A-Za-z0-9._-]: nothing to escape); NULL
 * when out of memory. */
static char *with_slow(char *net, const struct gc_spec_slowset *sl)
{
	gc_buf b = GC_BUF_INIT;
	size_t n = net ? strlen(net) : 0;

	if (!net || !sl || !sl->n || n < 2 || net[n - 1] != '}')
		return net;
	gc_buf_addf(&b, "%.*s%s\"slow\":{", (int)(n - 1), net, n > 2 ? "," : "");
	for (size_t i = 0; i < sl->n; i++)
		gc_buf_addf(&b, "%s\"%s\":%.9g", i ? "," : "", sl->host[i].host, sl->host[i].factor);
	gc_buf_addf(&b, "}}");
	free(net);
	return gc_buf_take(&b);
}

static gc_rc begin_run(struct gc_sweep_ctx *c, const struct gc_exec_point *p,
		       const struct gc_placement *pl, int64_t *run_id, gc_err *e)
{
	char worker[1100], out[1200], hosts[2048];
	const char *names[GC_PLACE_MAX_HOSTS];
	struct gc_db_run r;
	gc_launch l;
	char *net;
	size_t i, used = pl->used;
	gc_rc rc;

	rc = fill_launch(c, p, pl, 0, &l, worker, out, e);
	if (rc)
		return rc;
	for (i = 0; i < used; i++)
		names[i] = c->nodes[i].name;
	gc_placement_hosts_text(pl, names, hosts, sizeof(hosts));
	net = gc_run_racks_json(c, p, pl, gc_run_bg_json(with_slow(gc_launch_settings_json(&l),
								  p->pt->slow), c, p->spec, used));
	gc_point_to_run(p->spec, p->pt, c->sweep_id, (int)pl->nodes, c->env_ids ? c->env_ids[0] : 0, &r);
	r.network_json = net;
	rc = gc_db_run_begin(c->db, &r, run_id, e);
	rc = rc ? rc : gc_db_run_set_placement(c->db, *run_id, pl->ranks_per_node, hosts, e);
	if (!rc && c->slurm)   /* the job this run ran in (run_slurm.h) */
		rc = gc_db_run_set_slurm(c->db, *run_id, c->slurm->job_id, c->slurm->partition,
					 c->slurm->nodelist, e);
	free(net);
	for (i = 0; !rc && i < used; i++)
		if (pl->slots[i])
			rc = gc_db_run_add_host(c->db, *run_id, c->nodes[i].name,
						c->env_ids ? c->env_ids[i] : 0, e);
	return rc;
}

static enum gc_run_status status_of(gc_rc rc)
{
	if (rc == GC_E_INTERRUPTED || gc_run_interrupted())
		return GC_RUN_INTERRUPTED;
	if (rc == GC_E_TIMEOUT)
		return GC_RUN_TIMEOUT;
	return rc ? GC_RUN_FAILED : GC_RUN_OK;
}

/* shape, calibrate, launch, collect, ingest; the caller unshapes and cleans up */
static gc_rc point_steps(struct gc_sweep_ctx *c, const struct gc_exec_point *p, int64_t run_id,
			 const struct gc_placement *pl, gc_proc_result *res, char **paths,
			 size_t *np, struct gc_trace_run *tr, struct gc_bg_run *bg, gc_err *e)
{
	size_t used = pl->used;
	char rdir[1200], old[1200], why[128];
	char *mk[] = { "mkdir", "-p", "--", rdir, NULL };
	/* one round trip: the previous run's folder goes, this run's is made */
	char *mk_rm[] = { "sh", "-c", "rm -rf -- \"$1\"; exec mkdir -p -- \"$2\"", "sh", old,
			  rdir, NULL };
	size_t rows = 0;
	gc_rc rc;

	snprintf(rdir, sizeof(rdir), "%s/run-%lld", c->remote_work, (long long)run_id);
	snprintf(old, sizeof(old), "%s/run-%lld", c->remote_work, (long long)c->prev_run);
	if (c->reap_pending) {
		gc_phase_to(&c->ph, GC_PH_REAP);
		reap_nodes(c);
	}
	gc_phase_to(&c->ph, GC_PH_PREPARE);
	rc = run_on_nodes(c, used, c->prev_run > 0 ? mk_rm : mk, e);
	gc_phase_to(&c->ph, GC_PH_SHAPE);
	if (!rc && (p->pt->bw_bps || point_delay_us(p->pt)))
		rc = shape_all(c, run_id, used, p->spec, p->pt, e);
	if (!rc)   /* racks: each rack's uplink (run_racks.h) */
		rc = gc_run_racks_shape(c, p, e);
	gc_phase_to(&c->ph, GC_PH_CALIBRATE);
	if (!rc && !gc_run_interrupted())
		calibrate(c, run_id, used, p->pt->slow, p->pt->bw_bps, point_delay_us(p->pt),
			  p->pt->trace != NULL);
	if (!rc && p->pt->trace && !gc_run_interrupted())   /* after calibration at its mean */
		rc = gc_run_trace_start(c, run_id, used, p, tr, e);
	if (!rc && p->spec->bg.flows && !gc_run_interrupted())   /* after calibration too */
		rc = gc_run_bg_start(c, run_id, used, p, bg, e);
	if (!rc && gc_run_interrupted())
		rc = gc_fail(e, GC_E_INTERRUPTED, "interrupted");
	if (rc)
		return rc;
	gc_phase_to(&c->ph, GC_PH_LAUNCH);
	rc = launch(c, p, pl, run_id, res, why, sizeof(why), e);
	if (rc == GC_E_CHILD || (rc && res->stalled)) {
		char cause[512], silent[256] = "";
		mpirun_cause(res->err_tail, cause, sizeof(cause));
		if (res->stalled) {
			silent_nodes(c, used, silent, sizeof(silent));
			return gc_fail(e, GC_E_COMM,
				       "workers: mpirun still ran %.0f s after the job failed and was killed%s%s%s%s",
				       GC_STALL_GRACE_S, *silent ? "; not answering: node " : "", silent,
				       *cause ? "; " : "", cause);
		}
		return gc_fail(e, rc, "workers %s%s%s", why, *cause ? ": " : "", cause);
	}
	if (rc)
		return rc;
	gc_phase_to(&c->ph, GC_PH_COLLECT);
	rc = collect(c, run_id, used, p->pt->world_size, paths, np, e);
	gc_phase_to(&c->ph, GC_PH_INGEST);
	if (!rc)
		rc = gc_db_ingest_files(c->db, run_id, (const char *const *)paths, *np, &rows, e);
	return rc;
}

gc_rc gc_point_exec(struct gc_sweep_ctx *c, const struct gc_exec_point *p, int *ok, gc_err *e)
{
	gc_proc_result res;
	struct gc_placement pl;
	size_t np = 0;
	char *paths[512];
	enum gc_run_status st;
	int64_t run_id;
	gc_err step = { "" }, e2;
	struct gc_trace_run tr;
	struct gc_bg_run *bg = calloc(1, sizeof(*bg));   /* stop ignores it unless started */
	size_t i;
	gc_rc rc;

	*ok = 0;
	memset(&res, 0, sizeof(res));
	gc_phase_reset(&c->ph);
	gc_phase_to(&c->ph, GC_PH_RECORD);
	for (i = 0; i < c->n_nodes; i++)
		c->nodes[i].down = 0;   /* every point tries every node again */
	rc = place(c, p, &pl, e);   /* checked before the sweep (gc_run_place_points) */
	rc = rc ? rc : bg ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = rc ? rc : begin_run(c, p, &pl, &run_id, e);
	if (rc) {
		free(bg);
		return rc;
	}
	memset(&tr, 0, sizeof(tr));
	rc = point_steps(c, p, run_id, &pl, &res, paths, &np, &tr, bg, &step);
	gc_proc_clear_interrupt();   /* cleanup commands must run even after Ctrl-C */
	gc_phase_to(&c->ph, GC_PH_CLEANUP);
	gc_run_bg_stop(c, run_id, p, bg);   /* before the folders go: it reads the flows' lines */
	free(bg);
	if (p->pt->trace)            /* before the folders go: it reads the players' lines */
		gc_run_trace_stop(c, run_id, p, &tr);
	unshape_all(c);
	gc_run_racks_unshape(c);
	remove_dirs(c, run_id, paths, np);
	gc_phase_to(&c->ph, GC_PH_RECORD);
	if (rc && !gc_run_interrupted())
		gc_run_slurm_check_job(c);   /* a cancelled job: interrupted (run_slurm.h) */
	st = status_of(rc);
	*ok = st == GC_RUN_OK;
	c->reap_pending |= !*ok;
	if (!*ok)
		gc_error("%s: %s", p->label, step.msg);
	rc = gc_db_run_end(c->db, run_id, st, *ok ? NULL : step.msg, res.err_tail[0] ? res.err_tail : NULL,
			   &e2);
	gc_phase_to(&c->ph, GC_PH_NONE);
	if (!rc && gc_phase_store(&c->ph, c->db, run_id, &e2))
		gc_warn("%s", e2.msg);   /* the run's result stands without its timings */
	gc_proc_result_release(&res);
	if (rc)
		return gc_fail(e, rc, "%s", e2.msg);
	return st == GC_RUN_INTERRUPTED ? gc_fail(e, GC_E_INTERRUPTED, "interrupted") : GC_OK;
}

void gc_exec_point_init(struct gc_exec_point *x, const struct gc_spec *spec, const struct gc_point *p)
{
	char bw[32];

	memset(x, 0, sizeof(*x));
	x->spec = spec;
	x->pt = p;
	if (!strcmp(spec->workload, "train"))
		snprintf(x->workload, sizeof(x->workload), "train:%s", p->model);
	else if (!strcmp(spec->workload, "command"))
		snprintf(x->workload, sizeof(x->workload), "command:%s", p->model);
	else
		snprintf(x->workload, sizeof(x->workload), "replay:%s", p->model);
	gc_bw_format(p->bw_bps, bw, sizeof(bw));
	if (p->trace) {   /* "trace sq.txt (mean 600mbit)" */
		char mean[32];
		snprintf(mean, sizeof(mean), "%s", bw);
		snprintf(bw, sizeof(bw), "trace (mean %.16s)", mean);
	}
	snprintf(x->label, sizeof(x->label), "%s %s%s%s @ %s x%d b%d%s", p->model,
		 p->stack && *p->stack->name ? p->stack->name : "",
		 p->stack && *p->stack->name ? "/" : "", p->method->label, bw,
		 p->world_size, p->batch, p->repeat ? " (repeat)" : "");
	if (p->uplink) {      /* "... (uplink 2:1)", "... (uplink 500mbit)" */
		char up[48];
		size_t n = strlen(x->label);
		if (p->uplink->ratio > 0)
			snprintf(up, sizeof(up), "%.9g:1", p->uplink->ratio);
		else
			gc_bw_format(p->uplink->bps, up, sizeof(up));
		snprintf(x->label + n, sizeof(x->label) - n, " (uplink %s)", up);
	}
	if (p->slow && p->slow->n) {   /* "... (slow n3 x0.5)" */
		const struct gc_spec_slowset *sl = p->slow;
		size_t n = strlen(x->label);
		for (size_t i = 0; i < sl->n && n < sizeof(x->label); i++) {
			snprintf(x->label + n, sizeof(x->label) - n, "%s%s x%.9g%s",
				 i ? ", " : " (slow ", sl->host[i].host, sl->host[i].factor,
				 i + 1 == sl->n ? ")" : "");
			n = strlen(x->label);
		}
	}
	if (spec->bg.flows) {   /* "... (background 1 flow)" */
		size_t n = strlen(x->label);
		snprintf(x->label + n, sizeof(x->label) - n, " (background %d flow%s%s)",
			 spec->bg.flows, spec->bg.flows > 1 ? "s" : "", spec->bg.onoff ? " on/off" : "");
	}
}
