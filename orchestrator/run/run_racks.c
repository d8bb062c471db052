/* orchestrator/run/run_racks.c: racks' uplinks in a sweep (run_racks.h). */
#include "run_racks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "buf.h"
#include "log.h"
#include "netem/shape.h"

uint64_t gc_run_rack_uplink_bps(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
				int r)
{
	uint64_t sum = 0;

	if (!p->pt->uplink)
		return 0;
	for (size_t i = 0; i < c->n_nodes; i++)   /* the rack's hosts, used or not */
		if (c->nodes[i].rack == r)
			sum += gc_spec_host_cap(p->spec, p->pt->bw_bps, c->nodes[i].name);
	return gc_spec_uplink_bps(p->pt->uplink, sum);
}

void gc_run_racks_ring(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
		       const struct gc_placement *pl, struct gc_racks_ring *out)
{
	int left[GC_PLACE_MAX_HOSTS], *host, *rack, r = 0, w = pl->world;
	double up[GC_RACKS_MAX];
	size_t i, used = pl->used < GC_PLACE_MAX_HOSTS ? pl->used : GC_PLACE_MAX_HOSTS;

	memset(out, 0, sizeof(*out));
	if (!p->pt->uplink || !c->n_racks || w < 2)
		return;
	host = calloc((size_t)w, sizeof(int));
	rack = calloc((size_t)w, sizeof(int));
	for (i = 0; i < used; i++)
		left[i] = pl->slots[i];
	while (host && rack && r < w) {   /* --map-by node: one rank per host in turn */
		int placed = 0;
		for (i = 0; i < used && r < w; i++)
			if (left[i] > 0) {
				left[i]--, placed = 1;
				host[r] = (int)i;
				rack[r++] = c->nodes[i].rack;
			}
		if (!placed)
			break;
	}
	for (int k = 0; k < GC_RACKS_MAX; k++)
		up[k] = (double)gc_run_rack_uplink_bps(c, p, k + 1);
	if (host && rack && r == w)
		gc_racks_ring(host, rack, (size_t)w, up, out);
	free(host);
	free(rack);
}

char *gc_run_racks_json(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
			const struct gc_placement *pl, char *net)
{
	gc_buf b = GC_BUF_INIT;
	size_t n = net ? strlen(net) : 0;
	struct gc_racks_ring ring;

	if (!net || !p->pt->uplink || !c->n_racks || n < 2 || net[n - 1] != '}')
		return net;
	gc_run_racks_ring(c, p, pl, &ring);
	gc_buf_addf(&b, "%.*s%s\"uplink\":{\"rack_bps\":[", (int)(n - 1), net, n > 2 ? "," : "");
	for (size_t r = 1; r <= c->n_racks; r++)
		gc_buf_addf(&b, "%s%llu", r > 1 ? "," : "",
			    (unsigned long long)gc_run_rack_uplink_bps(c, p, (int)r));
	gc_buf_addf(&b, "],\"ratio\":%.9g", p->pt->uplink->ratio);
	if (ring.bps > 0)
		gc_buf_addf(&b, ",\"ring_bps\":%.0f", ring.bps);
	gc_buf_addf(&b, ",\"crossings\":%d,\"max_flows\":%d,\"how\":\"emulated\"}}",
		    ring.crossings, ring.max_flows);
	free(net);
	return gc_buf_take(&b);
}

gc_rc gc_run_racks_shape(struct gc_sweep_ctx *c, const struct gc_exec_point *p, gc_err *e)
{
	char bw[32];
	gc_rc rc;

	if (!p->pt->uplink || !c->n_racks)
		return GC_OK;
	for (size_t r = 1; r <= c->n_racks; r++) {
		struct gc_shape_req q;
		uint64_t bps = gc_run_rack_uplink_bps(c, p, (int)r);

		if (!*c->uplink_if[r - 1][0])
			return gc_fail(e, GC_E_INVAL, "rack %zu has no emulated uplink to cap (the "
				       "inventory's uplink_ifaces)", r);
		for (int k = 0; k < 2; k++) {
			memset(&q, 0, sizeof(q));
			q.dev = c->uplink_if[r - 1][k];
			q.rate_bps = bps;
			q.owner = getpid();
			if ((rc = gc_shape_set(&q, e)))
				return rc;
		}
		gc_bw_format(bps, bw, sizeof(bw));
		gc_debug("rack %zu: uplink %s and %s capped at %s", r, c->uplink_if[r - 1][0],
			 c->uplink_if[r - 1][1], bw);
	}
	return GC_OK;
}

void gc_run_racks_unshape(struct gc_sweep_ctx *c)
{
	for (size_t r = 0; r < c->n_racks; r++)
		for (int k = 0; k < 2; k++) {
			gc_err e;
			if (*c->uplink_if[r][k] && gc_shape_clear(c->uplink_if[r][k], NULL, &e))
				gc_error("%s (the uplink may still be capped: run 'gcbench-netem "
					 "restore-all' on this machine)", e.msg);
		}
}
