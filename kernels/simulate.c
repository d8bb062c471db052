/* kernels/simulate.c: one whole step for p workers in this process, with the
 * collectives run in memory (host), for the CLI and the tests. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "timing.h"

#ifndef GC_CUDA_KERNELS
#define GC_CUDA_KERNELS 0
#endif
#if GC_HAVE_CUDA && GC_CUDA_KERNELS
#include "kernels/cuda/cuda_util.h"
#define SIM_CUDA 1
#else
#define SIM_CUDA 0
#endif

/* Copy between host and the bucket's memory (device for CUDA). kind: 0 h2d, 1 d2h. */
static gc_rc xfer(const gc_bucket *b, void *dst, const void *src, size_t bytes, int kind)
{
#if SIM_CUDA
	if (b->be == GC_BACKEND_CUDA) {
		gc_rc rc = gc_cuda_copy(dst, src, bytes, kind, b->stream);
		return rc ? rc : gc_cuda_sync(b->stream);
	}
#endif
	(void)kind;
	memcpy(dst, src, bytes);
	return GC_OK;
}

static gc_rc check_workers(gc_bucket **w, int p, gc_err *e)
{
	int i;

	if (p < 1 || !w)
		return gc_fail(e, GC_E_INVAL, "simulate: need at least one worker");
	for (i = 0; i < p; i++) {
		if (w[i]->world != p || w[i]->worker != i)
			return gc_fail(e, GC_E_INVAL, "simulate: bucket %d was made for worker %d of "
				       "%d; create bucket i as worker i of world %d", i,
				       w[i]->worker, w[i]->world, p);
		if (w[i]->p.method != w[0]->p.method || w[i]->numel != w[0]->numel ||
		    w[i]->nt != w[0]->nt || w[i]->be != w[0]->be)
			return gc_fail(e, GC_E_INVAL, "simulate: bucket %d differs from bucket 0 in "
				       "method, layout or back end", i);
	}
	return GC_OK;
}

/* Sum the host copies of every worker's send into out (worker order 0..p-1). */
static gc_rc reduce(const gc_round *r, void *const *in, int p, void *out)
{
	size_t i, n = r->count;
	int w;

	if (r->dtype == GC_DT_F32) {
		float *o = out;
		memcpy(o, in[0], n * sizeof(float));
		for (w = 1; w < p; w++) {
			const float *x = in[w];
			for (i = 0; i < n; i++)
				o[i] += x[i];
		}
		return GC_OK;
	}
	if (r->dtype == GC_DT_F16) {
		uint16_t *o = out;
		memcpy(o, in[0], n * sizeof(uint16_t));
		for (w = 1; w < p; w++)
			gc_f16_sum(o, in[w], n);
		return GC_OK;
	}
	if (r->dtype == GC_DT_BF16) {
		uint16_t *o = out;
		memcpy(o, in[0], n * sizeof(uint16_t));
		for (w = 1; w < p; w++)
			gc_bf16_sum(o, in[w], n);
		return GC_OK;
	}
	return GC_E_UNSUPPORTED;
}

/* Run round r (already fetched from every worker into rs[]) in host memory. */
static gc_rc run_round(gc_bucket **w, int p, const gc_round *rs, void **host, void *res,
		       gc_err *e)
{
	size_t bytes = rs[0].count * gc_dtype_size(rs[0].dtype);
	size_t rbytes = rs[0].coll != GC_COLL_ALLREDUCE ? bytes * (size_t)p : bytes;
	gc_rc rc = GC_OK;
	int i;

	for (i = 0; i < p && !rc; i++)
		rc = xfer(w[i], host[i], rs[i].send, rs[0].coll == GC_COLL_ALLTOALL ? rbytes : bytes, 1);
	if (rc)
		return gc_fail(e, rc, "simulate: cannot read worker %d's payload", i - 1);
	if (rs[0].coll == GC_COLL_ALLTOALL) {     /* worker i gets block i of every worker */
		for (i = 0; i < p && !rc; i++) {
			for (int s = 0; s < p; s++)
				memcpy((char *)res + (size_t)s * bytes,
				       (const char *)host[s] + (size_t)i * bytes, bytes);
			rc = xfer(w[i], rs[i].recv, res, rbytes, 0);
		}
		return rc ? gc_fail(e, rc, "simulate: cannot deliver the result to worker %d",
				    i - 1) : GC_OK;
	}
	if (rs[0].coll == GC_COLL_ALLGATHER) {
		for (i = 0; i < p; i++)
			memcpy((char *)res + (size_t)i * bytes, host[i], bytes);
	} else if ((rc = reduce(&rs[0], host, p, res))) {
		return gc_fail(e, rc, "simulate: cannot all-reduce elements of type %d",
			       (int)rs[0].dtype);
	}
	for (i = 0; i < p && !rc; i++)
		rc = xfer(w[i], rs[i].recv, res, rbytes, 0);
	if (rc)
		return gc_fail(e, rc, "simulate: cannot deliver the result to worker %d", i - 1);
	return GC_OK;
}

/* Fetch the next round from every worker; 0 when none is left. */
static int next_round(gc_bucket **w, int p, gc_round *rs, gc_rc *rc, gc_err *e)
{
	int i, got = gc_round_get(w[0], &rs[0]);

	*rc = GC_OK;
	for (i = 1; i < p; i++) {
		int g = gc_round_get(w[i], &rs[i]);
		if (g != got || (got && (rs[i].coll != rs[0].coll || rs[i].dtype != rs[0].dtype ||
					 rs[i].count != rs[0].count))) {
			*rc = gc_fail(e, GC_E_STATE, "simulate: worker %d's round does not match "
				      "worker 0's (collective, type or count)", i);
			return 0;
		}
	}
	return got;
}

static gc_rc run_rounds(gc_bucket **w, int p, gc_err *e)
{
	gc_round *rs = calloc((size_t)p, sizeof(*rs));
	void **host = calloc((size_t)p, sizeof(void *));
	void *res = NULL;
	gc_rc rc = rs && host ? GC_OK : GC_E_NOMEM;
	int i;

	while (!rc && next_round(w, p, rs, &rc, e)) {
		size_t bytes = rs[0].count * gc_dtype_size(rs[0].dtype);
		if (rs[0].coll == GC_COLL_ALLTOALL)
			bytes *= (size_t)p;           /* each send holds p blocks */
		for (i = 0; i < p && !rc; i++) {
			free(host[i]);
			host[i] = malloc(bytes ? bytes : 1);
			rc = host[i] ? GC_OK : GC_E_NOMEM;
		}
		free(res);
		res = rc ? NULL : malloc(bytes * (size_t)p + 1);
		if (!rc && !res)
			rc = GC_E_NOMEM;
		if (!rc)
			rc = run_round(w, p, rs, host, res, e);
		for (i = 0; i < p && !rc; i++)
			rc = gc_round_done(w[i]);
	}
	if (rc == GC_E_NOMEM)
		gc_fail(e, rc, "simulate: out of memory for the collectives");
	for (i = 0; host && i < p; i++)
		free(host[i]);
	free(host);
	free(res);
	free(rs);
	return rc;
}

/* Encode (or decode) worker i, with host grad/avg staged through the device for CUDA. */
static gc_rc phase(gc_bucket *b, const float *grad, float *avg, void *dev, uint64_t *ns)
{
	size_t bytes = b->numel * sizeof(float);
	uint64_t t0;
	gc_rc rc = GC_OK;

	if (dev && grad)
		rc = xfer(b, dev, grad, bytes, 0);
	if (rc)
		return rc;
	t0 = gc_now_ns();
	if (grad)
		rc = gc_encode(b, dev ? dev : grad);
	else
		rc = gc_decode(b, dev ? dev : avg);
#if SIM_CUDA
	if (!rc && dev)
		rc = gc_cuda_sync(b->stream);
#endif
	*ns += gc_now_ns() - t0;
	if (!rc && dev && avg)
		rc = xfer(b, avg, dev, bytes, 1);
	return rc;
}

/* Device copies of the gradients (one per worker, CUDA only); NULL entries on the CPU. */
static gc_rc dev_alloc(gc_bucket **w, int p, void ***dev, gc_err *e)
{
	*dev = calloc((size_t)p, sizeof(void *));
	if (!*dev)
		return gc_fail(e, GC_E_NOMEM, "simulate: out of memory");
#if SIM_CUDA
	for (int i = 0; i < p && w[0]->be == GC_BACKEND_CUDA; i++)
		if (gc_cuda_alloc(&(*dev)[i], w[0]->numel * sizeof(float)))
			return gc_fail(e, GC_E_CUDA, "simulate: cannot allocate device memory for "
				       "worker %d's gradient", i);
#endif
	return GC_OK;
}

static void dev_free(void **dev, int p)
{
#if SIM_CUDA
	for (int i = 0; dev && i < p; i++)
		if (dev[i])
			gc_cuda_free(dev[i]);
#endif
	free(dev);
}

gc_rc gc_simulate_step(gc_bucket **workers, int p, const float *const *grads, float **avg,
		       uint64_t *enc_ns, uint64_t *dec_ns, gc_err *e)
{
	uint64_t enc = 0, dec = 0;
	void **dev = NULL;
	gc_rc rc;
	int i;

	rc = check_workers(workers, p, e);
	if (!rc)
		rc = dev_alloc(workers, p, &dev, e);
	for (i = 0; i < p && !rc; i++)
		if ((rc = phase(workers[i], grads[i], NULL, dev[i], &enc)))
			gc_fail(e, rc, "simulate: encoding worker %d failed: %s", i, gc_strerror(rc));
	if (!rc)
		rc = run_rounds(workers, p, e);
	for (i = 0; i < p && !rc; i++)
		if ((rc = phase(workers[i], NULL, avg[i], dev[i], &dec)))
			gc_fail(e, rc, "simulate: decoding worker %d failed: %s", i, gc_strerror(rc));
	dev_free(dev, p);
	if (enc_ns)
		*enc_ns = enc;
	if (dec_ns)
		*dec_ns = dec;
	return rc;
}
