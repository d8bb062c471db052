/* orchestrator/run/run_provision.c: the sweep's build, models and files onto its nodes
 * (run_provision.h). */
#include <stdlib.h>
#include <string.h>

#include "formats/arch.h"
#include "home.h"
#include "orchestrator/remote/provision.h"
#include "orchestrator/spec/spec.h"
#include "sweep_ctx.h"
#include "run_provision.h"
#include "strutil.h"

/* the csv: model of each point as a path on this machine (relative to the spec's
 * folder unless absolute) into paths[i]; "" for other workloads */
static void csv_path(const struct gc_run_opts *o, const struct gc_exec_point *x, char *p, size_t n)
{
	const char *slash = o->spec_path ? strrchr(o->spec_path, '/') : NULL;
	const char *m = x->workload + 11;

	p[0] = 0;
	if (strncmp(x->workload, "replay:csv:", 11))
		return;
	if (m[0] == '/' || !slash)
		snprintf(p, n, "%s", m);
	else
		snprintf(p, n, "%.*s/%s", (int)(slash - o->spec_path), o->spec_path, m);
}

/* Every csv: workload pointed at the nodes' copy, models/<digest>.csv in the build: by
 * its path when every node has the build in one folder, else as @bin/models/... (the
 * worker's own folder on each host: logins that differ have their own homes). */
static gc_rc csv_rewrite(const struct gc_run_opts *o, struct gc_exec_point *pts, size_t npts,
			 const struct gc_build *b, const gc_node *nodes, size_t n, gc_err *e)
{
	const gc_node *n0 = &nodes[0];
	const char *dir = n0->bin_dir;
	char p[1024];

	for (size_t k = 1; k < n; k++)
		if (strcmp(nodes[k].bin_dir, n0->bin_dir))
			dir = GC_ARCH_BIN_DIR;

	for (size_t i = 0; i < npts; i++) {
		size_t d;
		csv_path(o, &pts[i], p, sizeof(p));
		if (!p[0])
			continue;
		for (d = 0; d < b->n_data && strcmp(b->data_src[d], p); d++)
			;
		if (d == b->n_data)   /* the same content as an earlier file: its name */
			return gc_fail(e, GC_E_STATE, "model '%.300s' was not provisioned", p);
		if ((size_t)snprintf(pts[i].workload, sizeof(pts[i].workload), "replay:csv:%s/models/%s",
				     dir, b->data_name[d]) >= sizeof(pts[i].workload))
			return gc_fail(e, GC_E_INVAL, "the path of model '%.300s' on node '%s' is too "
				       "long (a shorter home directory?)", p, n0->name);
	}
	return GC_OK;
}

/* The points' specs' files: and bandwidth traces (one spec per sweep; each file once)
 * and, for a command workload, gcbench's Python modules beside this program (self). */
static gc_rc build_spec_files(struct gc_build *b, const struct gc_exec_point *pts, size_t npts,
			      const char *self, gc_err *e)
{
	const struct gc_spec *s = npts ? pts[0].spec : NULL;
	const char *src[GC_SPEC_MAX_FILES + GC_SPEC_MAX_TRACES];
	const char *names[GC_SPEC_MAX_FILES + GC_SPEC_MAX_TRACES];
	char tnames[GC_SPEC_MAX_TRACES][64];
	char py[1200];
	size_t i, k = 0;
	gc_rc rc;

	for (i = 0; s && i < s->n_files && i < GC_SPEC_MAX_FILES; i++, k++) {
		src[k] = s->files[i].src;
		names[k] = s->files[i].name;
	}
	/* bandwidth traces: files/trace-DIGEST.txt, content-hashed with the build */
	for (i = 0; s && i < s->n_traces && i < GC_SPEC_MAX_TRACES; i++, k++) {
		gc_spec_trace_file(&s->traces[i], tnames[i], sizeof(tnames[i]));
		src[k] = s->traces[i].src;
		names[k] = tnames[i];
	}
	if (s && s->workload && !strcmp(s->workload, "command") &&
	    ((rc = gc_build_python_dir(self, py, sizeof(py), e)) ||
	     (rc = gc_build_add_python(b, py, e))))
		return rc;
	return k ? gc_build_add_files(b, src, names, k, e) : GC_OK;
}

gc_rc gc_provision_for_run(const struct gc_run_opts *o, struct gc_exec_point *pts, size_t npts,
			   gc_node *nodes, size_t n, gc_err *e)
{
	struct gc_provision_opts po = { .install_deps = o->install_deps, .check_shape = 1 };
	char (*paths)[1024] = calloc(GC_PROVISION_MAX_DATA, sizeof(*paths));
	const char *data[GC_PROVISION_MAX_DATA] = { NULL };
	struct gc_build *b = calloc(1, sizeof(*b));
	char self[1024], p[1024];
	size_t nd = 0, k;
	gc_rc rc = GC_OK;

	if (o->no_provision || o->bin_dir || !paths || !b) {
		free(paths);
		free(b);
		return o->no_provision || o->bin_dir ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	gc_self_dir(self, sizeof(self));
	for (size_t i = 0; !rc && i < npts; i++) {
		csv_path(o, &pts[i], p, sizeof(p));
		for (k = 0; k < nd && strcmp(paths[k], p); k++)
			;
		if (!p[0] || k < nd)
			continue;
		if (nd == GC_PROVISION_MAX_DATA)
			rc = gc_fail(e, GC_E_INVAL, "more than %d csv: models in one sweep",
				     GC_PROVISION_MAX_DATA);
		else
			gc_strlcpy(paths[nd++], p, sizeof(paths[0]));
	}
	for (k = 0; k < nd; k++)
		data[k] = paths[k];
	rc = rc ? rc : gc_build_init(b, self, data, nd, e);
	rc = rc ? rc : build_spec_files(b, pts, npts, self, e);
	rc = rc ? rc : gc_provision_nodes(nodes, n, b, &po, e);
	rc = rc ? rc : csv_rewrite(o, pts, npts, b, nodes, n, e);
	free(paths);
	free(b);
	return rc;   /* the right to shape was checked with the provisioning (check_shape) */
}
