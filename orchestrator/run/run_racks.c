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
#include "netem/shares.h"
#include "orchestrator/remote/nodes.h"

uint64_t gc_run_rack_uplink_bps(const struct gc_sweep_ctx *c, const struct gc_spec *s,
				const struct gc_point *pt, int r)
{
	uint64_t sum = 0;

	if (!pt->uplink)
		return 0;
	for (size_t i = 0; i < c->n_nodes; i++)   /* the rack's hosts, used or not */
		if (c->nodes[i].rack == r)
			sum += gc_spec_host_cap(pt->slow, pt->bw_bps, c->nodes[i].name);
	return gc_spec_uplink_bps(pt->uplink, sum);
}

int gc_run_racks_approx(const struct gc_sweep_ctx *c, const struct gc_point *pt)
{
	return pt->uplink && c->n_racks && !*c->uplink_if[0][0];
}

gc_rc gc_run_racks_node_shape(struct gc_sweep_ctx *c, const struct gc_spec *s,
			      const struct gc_point *pt, size_t i, gc_err *e)
{
	gc_node *n = &c->nodes[i];
	uint64_t cap = gc_spec_host_cap(pt->slow, pt->bw_bps, n->name), share;
	gc_buf d = GC_BUF_INIT;
	size_t per = 0;
	char bw[32], *list;
	gc_rc rc;

	for (size_t k = 0; k < c->n_nodes; k++) {
		uint32_t a = c->nodes[k].data_ip;
		if (c->nodes[k].rack == n->rack)
			per++;
		else if (a)
			gc_buf_addf(&d, "%s%u.%u.%u.%u", d.len ? "," : "", a >> 24, (a >> 16) & 255,
				    (a >> 8) & 255, a & 255);
	}
	share = gc_run_rack_uplink_bps(c, s, pt, n->rack) / (per ? per : 1);
	share = share < GC_BW_MIN ? GC_BW_MIN : share > cap ? cap : share;
	if (!d.len) {
		gc_buf_release(&d);
		return gc_node_shape(n, cap, 0, NULL, e);
	}
	gc_bw_format(share, bw, sizeof(bw));
	gc_debug("%s: traffic to the other racks in a class at %s", n->name, bw);
	if (!(list = gc_buf_take(&d)))
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = gc_node_classes(n, cap, list, share, e);
	free(list);
	return rc;
}

void gc_run_racks_ring(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
		       const struct gc_placement *pl, struct gc_racks_ring *out)
{
	int *host, *rack, w = pl->world, ok = 1;
	double up[GC_RACKS_MAX];
	size_t used = pl->used < GC_PLACE_MAX_HOSTS ? pl->used : GC_PLACE_MAX_HOSTS;

	memset(out, 0, sizeof(*out));
	if (!p->pt->uplink || !c->n_racks || w < 2)
		return;
	host = calloc((size_t)w, sizeof(int));
	rack = calloc((size_t)w, sizeof(int));
	if (host && rack) {
		gc_ring_place_by_node(pl->slots, used, host, (size_t)w);
		for (int r = 0; r < w && ok; r++)
			if ((ok = host[r] >= 0))
				rack[r] = c->nodes[host[r]].rack;
	}
	for (int k = 0; k < GC_RACKS_MAX; k++)
		up[k] = (double)gc_run_rack_uplink_bps(c, p->spec, p->pt, k + 1);
	if (host && rack && ok)
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
			    (unsigned long long)gc_run_rack_uplink_bps(c, p->spec, p->pt, (int)r));
	gc_buf_addf(&b, "],\"ratio\":%.9g", p->pt->uplink->ratio);
	if (ring.bps > 0)
		gc_buf_addf(&b, ",\"ring_bps\":%.0f", ring.bps);
	gc_buf_addf(&b, ",\"crossings\":%d,\"max_flows\":%d,\"how\":\"%s\"}}",
		    ring.crossings, ring.max_flows, gc_run_racks_approx(c, p->pt) ?
		    "approximation" : "emulated");
	free(net);
	return gc_buf_take(&b);
}

/* Rack r's uplink end dev at bps: one leaf per host of the rack with a data address,
 * matched by source (out = 1: the rack's outbound traffic) or destination (the
 * inbound), the hosts' leaves sharing 99% of the uplink equally and a default leaf 1%
 * for the rest (ARP, other addresses); every leaf's ceil is the uplink (netem/shares.h).
 * So the hosts' flows crossing the uplink each get an equal part of it whenever they
 * all send, and one host alone all of it: the fair share the model assumes. */
static gc_rc uplink_shares(struct gc_sweep_ctx *c, size_t r, const char *dev, int out,
			   uint64_t bps, gc_err *e)
{
	struct gc_share_leaf *leaf;
	size_t n = 1, hosts = 0;
	uint64_t def = bps / 100 ? bps / 100 : 8;
	gc_rc rc;

	for (size_t k = 0; k < c->n_nodes; k++)
		if (c->nodes[k].rack == (int)r && c->nodes[k].data_ip)
			hosts++;
	if (!hosts || hosts >= GC_SHARES_MAX_LEAVES) {    /* no host to tell apart: one cap */
		struct gc_shape_req q = { .dev = dev, .rate_bps = bps, .owner = getpid() };
		if (hosts)
			gc_warn("rack %zu has %zu hosts, more than an uplink's %d leaves: its uplink "
				"'%s' is one FIFO, not a fair share per host", r, hosts,
				GC_SHARES_MAX_LEAVES - 1, dev);
		return gc_shape_set(&q, e);
	}
	if (!(leaf = calloc(hosts + 1, sizeof(*leaf))))
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	leaf[0].match = GC_SHARE_DEFAULT;
	leaf[0].rate_bps = def;
	for (size_t k = 0; k < c->n_nodes; k++) {
		if (c->nodes[k].rack != (int)r || !c->nodes[k].data_ip)
			continue;
		leaf[n].match = out ? GC_SHARE_SRC : GC_SHARE_DST;
		leaf[n].addr[0].addr = c->nodes[k].data_ip;
		leaf[n].addr[0].prefix = 32;
		leaf[n].n_addr = 1;
		leaf[n++].rate_bps = (bps - def) / hosts;
	}
	rc = gc_shape_shares(dev, NULL, bps, leaf, n, getpid(), e);
	free(leaf);
	return rc;
}

gc_rc gc_run_racks_shape(struct gc_sweep_ctx *c, const struct gc_exec_point *p, gc_err *e)
{
	char bw[32];
	gc_rc rc;

	if (!p->pt->uplink || !c->n_racks)
		return GC_OK;
	if (gc_run_racks_approx(c, p->pt)) {
		gc_info("racks on real hosts: each host's traffic to the other racks is capped at "
			"its fair share of its rack's uplink on its own egress, an approximation of "
			"a shared uplink (docs/netem.md, Racks)");
		return GC_OK;
	}
	for (size_t r = 1; r <= c->n_racks; r++) {
		uint64_t bps = gc_run_rack_uplink_bps(c, p->spec, p->pt, (int)r);

		if (!*c->uplink_if[r - 1][0])
			return gc_fail(e, GC_E_INVAL, "rack %zu has no emulated uplink to cap (the "
				       "inventory's uplink_ifaces)", r);
		for (int k = 0; k < 2; k++)    /* [0] the rack's outbound end, [1] its inbound */
			if ((rc = uplink_shares(c, r, c->uplink_if[r - 1][k], k == 0, bps, e)))
				return rc;
		gc_bw_format(bps, bw, sizeof(bw));
		gc_debug("rack %zu: uplink %s and %s capped at %s, shared fairly among the rack's "
			 "hosts (an htb leaf each)", r, c->uplink_if[r - 1][0], c->uplink_if[r - 1][1],
			 bw);
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
