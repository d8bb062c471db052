#include "launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "proc.h"
#include "reap.h"
#include "strutil.h"

#define LAUNCH_MAX_ARGS 160

struct argv_buf {
	char **v;
	int n;
	gc_rc rc;
};

static void add(struct argv_buf *a, const char *s)
{
	if (a->rc)
		return;
	if (a->n >= LAUNCH_MAX_ARGS - 1) {
		a->rc = GC_E_INVAL;
		return;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n])
		a->rc = GC_E_NOMEM;
	else
		a->n++;
}

static void addf(struct argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct argv_buf *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add(a, buf);
}

static void mca(struct argv_buf *a, const char *k, const char *v)
{
	add(a, "--mca");
	add(a, k);
	add(a, v);
}

static gc_rc check_values(const gc_launch *l, gc_err *e)
{
	const char *vals[] = { l->worker, l->ssh_config, l->iface, l->oob_include, l->backend,
			       l->method, l->workload, l->out_pattern, l->mpirun };
	const char *what[] = { "worker path", "ssh_config", "iface", "oob interface", "backend",
			       "method", "workload", "output path", "mpirun" };
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i] && !gc_is_safe_token(vals[i]))
			return gc_fail(e, GC_E_INVAL, "refusing %s '%s': not a safe token", what[i], vals[i]);
	for (i = 0; i < l->nhosts; i++)
		if (!gc_is_safe_token(l->hosts[i]))
			return gc_fail(e, GC_E_INVAL, "refusing host '%s': not a safe token", l->hosts[i]);
	for (i = 0; i < l->nparams; i++)
		if (!gc_is_safe_token(l->params[i]))
			return gc_fail(e, GC_E_INVAL, "refusing parameter '%s': not a safe token", l->params[i]);
	if (!l->worker || !l->method || !l->workload || !l->out_pattern || !l->iface)
		return gc_fail(e, GC_E_INVAL, "launch lacks worker, method, workload, iface or output");
	if (l->world < 1 || l->slots_per_host < 1 ||
	    (size_t)((l->world + l->slots_per_host - 1) / l->slots_per_host) > l->nhosts)
		return gc_fail(e, GC_E_INVAL, "%d ranks need %d hosts with %d slots each; the inventory has %zu",
			       l->world, (l->world + l->slots_per_host - 1) / l->slots_per_host,
			       l->slots_per_host, l->nhosts);
	return GC_OK;
}

static void add_hosts(struct argv_buf *a, const gc_launch *l)
{
	char list[8192] = "";
	size_t used = (size_t)((l->world + l->slots_per_host - 1) / l->slots_per_host), i, o = 0;

	for (i = 0; i < used && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s:%d", i ? "," : "",
				      l->hosts[i], l->slots_per_host);
	add(a, "--host");
	add(a, list);
}

static void add_network(struct argv_buf *a, const gc_launch *l)
{
	if (l->run_id > 0) {   /* the mark gcbench reap finds on the nodes */
		add(a, "--mca");
		add(a, GC_REAP_MCA);
		addf(a, "%lld", l->run_id);
	}
	mca(a, "pml", "ob1");
	mca(a, "btl", "tcp,self");
	mca(a, "btl_tcp_if_include", l->iface);
	if (l->oob_include)
		mca(a, "oob_tcp_if_include", l->oob_include);
	mca(a, "coll_tuned_use_dynamic_rules", "1");
	mca(a, "coll_tuned_allreduce_algorithm", "4");
	mca(a, "coll_tuned_allgather_algorithm", "4");
	mca(a, "coll_libnbc_iallreduce_algorithm", "1");   /* ring for the workers' non-blocking all-reduce */
	if (l->oversubscribe)
		mca(a, "mpi_yield_when_idle", "1");
	if (l->ssh_config) {
		char agent[1200];
		snprintf(agent, sizeof(agent), "ssh -F %s -o BatchMode=yes", l->ssh_config);
		mca(a, "plm_rsh_agent", agent);
	}
	add(a, "-x");
	add(a, "MALLOC_MMAP_THRESHOLD_=1073741824");
	add(a, "-x");
	add(a, "NCCL_IB_DISABLE=1");
	add(a, "-x");
	addf(a, "NCCL_SOCKET_IFNAME=%s", l->iface);
}

static void add_worker(struct argv_buf *a, const gc_launch *l)
{
	size_t i;

	add(a, l->worker);
	add(a, "--backend");
	add(a, l->backend ? l->backend : "mpi");
	add(a, "--method");
	add(a, l->method);
	for (i = 0; i < l->nparams; i++) {
		add(a, "--param");
		add(a, l->params[i]);
	}
	add(a, "--workload");
	add(a, l->workload);
	add(a, "--iters");
	addf(a, "%d", l->iters);
	add(a, "--warmup");
	addf(a, "%d", l->warmup);
	add(a, "--batch");
	addf(a, "%d", l->batch);
	add(a, "--compute-scale");
	addf(a, "%.17g", l->compute_scale);
	if (l->deadline_s > 0) {
		add(a, "--deadline");
		addf(a, "%.17g", l->deadline_s);
	}
	if (l->threads > 0) {
		add(a, "--threads");
		addf(a, "%d", l->threads);
	}
	if (l->eval_every > 0) {
		add(a, "--eval-every");
		addf(a, "%d", l->eval_every);
	}
	if (l->data) {
		add(a, "--data");
		add(a, l->data);
	}
	add(a, "--iface");
	add(a, l->iface);
	add(a, "--out");
	add(a, l->out_pattern);
}

gc_rc gc_launch_argv(const gc_launch *l, char ***out, gc_err *e)
{
	struct argv_buf a = { calloc(LAUNCH_MAX_ARGS, sizeof(char *)), 0, GC_OK };
	gc_rc rc;

	*out = NULL;
	if (!a.v)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = check_values(l, e);
	if (rc) {
		free(a.v);
		return rc;
	}
	add(&a, l->mpirun ? l->mpirun : "mpirun");
	if (l->allow_root)
		add(&a, "--allow-run-as-root");
	if (l->oversubscribe)
		add(&a, "--oversubscribe");
	add(&a, "-np");
	addf(&a, "%d", l->world);
	add_hosts(&a, l);
	add(&a, "--map-by");
	add(&a, "node");
	add_network(&a, l);
	add_worker(&a, l);
	if (a.rc) {
		gc_argv_free(a.v);
		return gc_fail(e, a.rc, "mpirun command line too long");
	}
	*out = a.v;
	return GC_OK;
}

char *gc_launch_settings_json(const gc_launch *l)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "pml", "ob1");
	gc_json_str_field(&j, "btl", "tcp,self");
	gc_json_str_field(&j, "btl_tcp_if_include", l->iface);
	gc_json_str_field(&j, "allreduce_algorithm", "ring");
	gc_json_str_field(&j, "allgather_algorithm", "ring");
	gc_json_int_field(&j, "mpi_yield_when_idle", l->oversubscribe);
	gc_json_str_field(&j, "NCCL_IB_DISABLE", "1");
	gc_json_str_field(&j, "NCCL_SOCKET_IFNAME", l->iface);
	gc_json_str_field(&j, "backend", l->backend ? l->backend : "mpi");
	gc_json_obj_close(&j);
	if (gc_json_finish(&j)) {
		gc_buf_release(&b);
		return NULL;
	}
	return gc_buf_take(&b);
}
