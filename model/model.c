/* model/model.c: ring collectives and the event model of one iteration (model.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

double gc_model_bg_share(int flows, double duty)
{
	if (flows <= 0)
		return 1.0;
	if (!(duty > 0 && duty <= 1))
		duty = 1.0;
	return 1.0 / (1.0 + (double)flows * duty);
}

void gc_model_params_default(gc_model_params *p)
{
	memset(p, 0, sizeof(*p));
	p->alpha = 25e-6;
	p->bw = 10e9 / 8;
	p->lambda = 1.0;
	p->fwd_over_bwd = 0.5;
	p->gpus_per_node = 1;
	p->alpha_intra = 5e-6;
	p->bw_intra = 100e9;
	p->first_bucket_bytes = GC_DDP_FIRST_BYTES;
	p->bucket_bytes = GC_DDP_BYTES;
}

/* Nodes and GPUs per node of a p-worker job; flat (g = 1) if p does not exceed g. */
static void topo(const gc_model_params *mp, int p, int *g, int *nodes)
{
	*g = mp->gpus_per_node > 1 && p > mp->gpus_per_node ? mp->gpus_per_node : 1;
	*nodes = (p + *g - 1) / *g;
}

/* Latency steps and per-node link bytes of one inter-node ring collective over N
 * nodes of g workers: all-reduce of b bytes 2 (N-1) and 2 b (N-1)/N (the node's link
 * carries all g shards at once); all-gather of b bytes per worker N-1 and (N-1) g b. */
static void ring_terms(int gather, int g, int N, double b, double *steps, double *wire)
{
	*steps = gather ? N - 1 : 2.0 * (N - 1);
	*wire = gather ? (double)(N - 1) * g * b : 2.0 * b * (N - 1) / N;
}

static double ring_time(const gc_model_params *mp, double steps, double wire)
{
	return steps * mp->alpha + wire / mp->bw + (mp->host_bw > 0 ? wire / mp->host_bw : 0);
}

/* Double binary tree all-reduce of b bytes among N nodes: reduce up and broadcast
 * down each of two trees carrying half the data, pipelined: 2 ceil(log2 N) latency
 * steps; every node is inner in one tree and a leaf in the other, so its link sends
 * 2 b in all. */
static double tree_time(const gc_model_params *mp, int N, double b)
{
	double depth = ceil(log2((double)N));

	return ring_time(mp, 2.0 * depth, 2.0 * b);
}

/* Inter-node all-reduce of b bytes per node (g workers each) by mp->algo. */
static double inter_allreduce(const gc_model_params *mp, int g, int N, double b)
{
	double st, w, ring, tree;

	if (N <= 1)
		return 0;
	ring_terms(0, g, N, b, &st, &w);
	ring = ring_time(mp, st, w);
	if (mp->algo == GC_ALGO_RING)
		return ring;
	tree = tree_time(mp, N, b);
	return mp->algo == GC_ALGO_TREE ? tree : fmin(ring, tree);
}

/* All-reduce: ring 2 a (p-1) + 2 B (p-1) / (p BW), or tree (inter_allreduce).
 * Hierarchical: reduce-scatter and all-gather inside the node, then the inter-node
 * all-reduce among the nodes. */
double gc_model_allreduce(const gc_model_params *mp, int p, double bytes)
{
	double ng, t;
	int g, N;

	if (p <= 1)
		return 0;
	topo(mp, p, &g, &N);
	t = inter_allreduce(mp, g, N, bytes);
	if (g > 1) {
		ng = g;
		t += 2.0 * mp->alpha_intra * (g - 1) + 2.0 * bytes * (ng - 1) / (ng * mp->bw_intra);
	}
	return t;
}

/* Ring all-gather of m bytes per worker: a (p-1) + (p-1) m / BW. Hierarchical: gather
 * inside the node, a ring among nodes with g m per node, then spread the other nodes'
 * (N-1) g m inside the node. */
double gc_model_allgather(const gc_model_params *mp, int p, double m)
{
	double t, st, w;
	int g, N;

	if (p <= 1)
		return 0;
	topo(mp, p, &g, &N);
	ring_terms(1, g, N, m, &st, &w);
	t = ring_time(mp, st, w);
	if (g > 1)
		t += 2.0 * mp->alpha_intra * (g - 1) +
		     (double)(g - 1) * m * (1.0 + (double)(N - 1)) / mp->bw_intra;
	return t;
}

gc_rc gc_model_comm_terms(const gc_arch *a, const gc_model_method *m,
			  const gc_model_params *mp, int p, double *steps, double *wire,
			  gc_err *e)
{
	gc_buckets bk;
	size_t i;
	int g, N;
	gc_rc rc;

	*steps = *wire = 0;
	if (p <= 1)
		return GC_OK;
	if ((rc = gc_buckets_make(a, mp->first_bucket_bytes, mp->bucket_bytes, &bk, e)))
		return rc;
	topo(mp, p, &g, &N);
	for (i = 0; N > 1 && i < bk.n; i++) {
		size_t r0, r1;
		int gather = gc_model_payload(a, &bk.b[i], m, &r0, &r1);
		double st, w;
		ring_terms(gather, g, N, (double)r0, &st, &w);
		*steps += st, *wire += w;
		if (r1) {
			ring_terms(0, g, N, (double)r1, &st, &w);
			*steps += st, *wire += w;
		}
	}
	gc_buckets_release(&bk);
	return GC_OK;
}

static double per_rate(double elems, double rate)
{
	return rate > 0 && elems > 0 ? elems / rate : 0;
}

void gc_model_bucket_codec(const gc_arch *a, const gc_bucket_span *s,
			   const gc_model_method *m, const gc_model_params *mp, int p,
			   double *enc, double *dec)
{
	*enc = *dec = 0;
	if (m->p.method == GC_M_SYNCSGD)
		return;
	if (mp->codec_ops) {
		gc_codec_cost(&mp->dev, a, s, m, p, enc, dec);
		return;
	}
	*enc = per_rate((double)s->numel, mp->enc_rate[m->p.method]);
	*dec = per_rate(gc_model_decode_elems(m, s->numel, p), mp->dec_rate[m->p.method]);
}

/* State of the event model while walking the buckets. */
struct ev {
	double dev;        /* device clock: backward + encodes (from backward start) */
	double comm;       /* communication channel free at */
	double *done;      /* exchange end of each bucket */
};

/* An all-gather of k pairs (r0 bytes as planned: 4-byte index + 4-byte value) by
 * mp->gathers (model.h). */
static double pairs_gather(const gc_model_params *mp, int p, size_t r0)
{
	double k = (double)r0 / 8;

	switch (mp->gathers) {
	case GC_GATHER_VALUES_TWICE:
		return 2 * gc_model_allgather(mp, p, 4 * k);
	case GC_GATHER_INDEX64_VALUES:
		return gc_model_allgather(mp, p, 8 * k) + gc_model_allgather(mp, p, 4 * k);
	default:
		return gc_model_allgather(mp, p, (double)r0);
	}
}

static double exchange(const gc_model_params *mp, int p, int gather, size_t r0, size_t r1,
		       double mid, int pairs)
{
	double t = gather ? (pairs ? pairs_gather(mp, p, r0) : gc_model_allgather(mp, p, (double)r0))
			  : gc_model_allreduce(mp, p, (double)r0);
	if (r1)
		t += mid + gc_model_allreduce(mp, p, (double)r1);
	return t;
}

/* Walk the buckets: backward, then per bucket its encode and exchange. The study's
 * schedule: the encode on the device (delaying backward), the exchange on the channel,
 * the decodes left to gc_model_predict. codec_on_comm (gcbench-worker's schedule):
 * backward is never delayed; the channel runs encode, exchange(s) and decode in order
 * once the bucket is ready. */
static void walk(const gc_arch *a, const gc_buckets *bk, const gc_model_method *m,
		 const gc_model_params *mp, int p, struct ev *ev, gc_model_result *r)
{
	double lam = p > 1 ? mp->lambda : 1.0;
	size_t i, j;

	for (i = 0; i < bk->n; i++) {
		const gc_bucket_span *s = &bk->b[i];
		size_t r0, r1;
		int gather, pairs;
		double enc, dec, x;

		for (j = 0; j < s->count; j++)
			ev->dev += lam * a->t[a->n - 1 - (s->first + j)].t_bwd;
		if (p <= 1)
			continue;
		gather = gc_model_payload(a, s, m, &r0, &r1);
		pairs = m->p.method == GC_M_TOPK || m->p.method == GC_M_MSTOPK;
		gc_model_bucket_codec(a, s, m, mp, p, &enc, &dec);
		if (mp->codec_on_comm) {
			x = exchange(mp, p, gather, r0, r1, 0, pairs);
			ev->comm = fmax(ev->dev, ev->comm) + enc + x + dec;
			r->decode += dec, r->comm += x;
		} else {
			ev->dev += r1 ? enc / 2 : enc;    /* PowerSGD: the other half between rounds */
			x = exchange(mp, p, gather, r0, r1, r1 ? enc / 2 : 0, pairs);
			ev->comm = fmax(ev->dev, ev->comm) + x;
			r->comm += x - (r1 ? enc / 2 : 0);
		}
		ev->done[i] = ev->comm;
		r->encode += enc;
		r->bytes_sent += r0 + r1;
	}
}

gc_rc gc_model_predict(const gc_arch *a, const gc_model_method *m, const gc_model_params *mp,
		       int p, gc_model_result *out, gc_err *e)
{
	struct ev ev = { 0, 0, NULL };
	gc_buckets bk;
	double bwd = gc_arch_backward_total(a), t_fwd, lam, end;
	size_t i;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (p < 1 || !(mp->bw > 0) || mp->alpha < 0 || mp->lambda <= 0 || mp->gpus_per_node < 1 ||
	    !(mp->host_bw >= 0))
		return gc_fail(e, GC_E_INVAL, "model: need p >= 1 (got %d), bandwidth > 0, "
			       "host bandwidth >= 0, latency >= 0, lambda > 0 and gpus per node "
			       ">= 1", p);
	if ((rc = gc_buckets_make(a, mp->first_bucket_bytes, mp->bucket_bytes, &bk, e)))
		return rc;
	if (!(ev.done = calloc(bk.n, sizeof(double)))) {
		gc_buckets_release(&bk);
		return gc_fail(e, GC_E_NOMEM, "model: out of memory");
	}
	walk(a, &bk, m, mp, p, &ev, out);
	end = mp->codec_on_comm ? fmax(ev.dev, ev.comm) : ev.dev;
	for (i = 0; !mp->codec_on_comm && p > 1 && i < bk.n; i++) { /* decodes: after backward */
		double enc, d;
		gc_model_bucket_codec(a, &bk.b[i], m, mp, p, &enc, &d);
		end = fmax(end, ev.done[i]) + d;
		out->decode += d;
	}
	lam = p > 1 ? mp->lambda : 1.0;
	t_fwd = mp->fwd_over_bwd * bwd;
	out->compute = t_fwd + lam * bwd;
	out->forward = t_fwd;
	out->optimizer = mp->t_opt;
	out->total = t_fwd + end + mp->t_opt;
	out->exposed = fmax(0, out->total - out->compute - out->encode - out->decode - out->optimizer);
	out->study = t_fwd + fmax(lam * bwd, out->comm) + out->encode + out->decode + mp->t_opt;
	out->nbuckets = bk.n;
	free(ev.done);
	gc_buckets_release(&bk);
	return GC_OK;
}
