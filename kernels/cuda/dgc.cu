/* kernels/cuda/dgc.cu: Deep Gradient Compression on the GPU (kernels/dgc.h), the same
 * bits as kernels/dgc.c.
 *
 * Per step: the clipping norms (one thread per norm block of GC_DGC_NORM_BLOCK
 * elements sums its squares in double in order; one thread per tensor adds its blocks
 * in order), then u = m u + g f and v = v + u (one CUDA block per norm block, rounded
 * multiplies and adds: no FMA contraction, as on the CPU), the exact top k of |v| by
 * radix.cuh's select, as topk's (k from the warm-up schedule, on the host), sparse.cu's
 * compaction (which zeroes v where sent) and momentum factor masking of u.
 */
#include <math.h>
#include <stdlib.h>

#include "radix.cuh"
#include "kernels/dgc.h"

struct dgc_ext {
	float *u;                      /* momentum, numel (device) */
	unsigned long long *blk;       /* nblk + 1 norm block starts, then the bucket end */
	unsigned *blk_seg;             /* nblk: the tensor of each norm block */
	unsigned *seg_first;           /* nt + 1: each tensor's first norm block */
	double *psum;                  /* nblk partial sums of squares */
	float *fac;                    /* nt clipping factors */
	struct gc_cu_radix sel;        /* the top-k select's scratch */
	size_t nblk;
};

__global__ void k_dgc_psum(const float *__restrict__ g, const unsigned long long *blk,
			   size_t nblk, double *psum)
{
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < nblk;
	     j += (size_t)gridDim.x * blockDim.x) {
		double s = 0;
		for (unsigned long long i = blk[j]; i < blk[j + 1]; i++)
			s = __dadd_rn(s, __dmul_rn((double)g[i], (double)g[i]));
		psum[j] = s;
	}
}

/* Per tensor: its norm from the block sums in order, then the clipping factor. */
__global__ void k_dgc_factor(const double *psum, const unsigned *seg_first, size_t nt,
			     double thr, float *fac)
{
	for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < nt;
	     t += (size_t)gridDim.x * blockDim.x) {
		double s = 0, nrm;
		for (unsigned j = seg_first[t]; j < seg_first[t + 1]; j++)
			s = __dadd_rn(s, psum[j]);
		nrm = sqrt(s);
		fac[t] = nrm > thr ? (float)__ddiv_rn(thr, nrm) : 1.0f;
	}
}

/* One CUDA block per norm block: u = m u + g f, v = v + u. fac NULL: f = 1. */
__global__ void k_dgc_update(const float *__restrict__ g, float *u, float *v,
			     const unsigned long long *blk, const unsigned *blk_seg,
			     const float *fac, float m)
{
	unsigned long long a = blk[blockIdx.x], z = blk[blockIdx.x + 1];
	float f = fac ? fac[blk_seg[blockIdx.x]] : 1.0f;
	for (unsigned long long i = a + threadIdx.x; i < z; i += blockDim.x) {
		float x = __fadd_rn(__fmul_rn(m, u[i]), __fmul_rn(g[i], f));
		u[i] = x;
		v[i] = __fadd_rn(v[i], x);
	}
}

/* Momentum factor masking: u = 0 at the k sent indices (pad entries, index 0 past the
 * first, only with NaN, are skipped). */
__global__ void k_dgc_mask(float *u, const uint32_t *idx, size_t k, size_t n)
{
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < k;
	     j += (size_t)gridDim.x * blockDim.x) {
		uint32_t i = idx[j];
		if (i < n && (i != 0 || j == 0))
			u[i] = 0;
	}
}

static void dgc_release(gc_bucket *b)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct dgc_ext *x = s ? (struct dgc_ext *)s->ext : NULL;
	if (x) {
		gc_cuda_free(x->u);
		gc_cuda_free(x->blk);
		gc_cuda_free(x->blk_seg);
		gc_cuda_free(x->seg_first);
		gc_cuda_free(x->psum);
		gc_cuda_free(x->fac);
		gc_cu_radix_release(&x->sel);
		free(x);
		s->ext = NULL;
	}
	gc_cu_sparse_release(b);
}

/* The norm block table on the host, copied to the device. */
static gc_rc dgc_blocks(gc_bucket *b, struct dgc_ext *x, gc_err *e)
{
	size_t nblk = 0, j = 0;
	unsigned long long *blk;
	unsigned *seg, *first;
	gc_rc rc = GC_OK;
	for (size_t t = 0; t < b->nt; t++)
		nblk += (b->off[t + 1] - b->off[t] + GC_DGC_NORM_BLOCK - 1) / GC_DGC_NORM_BLOCK;
	x->nblk = nblk;
	blk = (unsigned long long *)malloc((nblk + 1) * sizeof(*blk));
	seg = (unsigned *)malloc((nblk + 1) * sizeof(*seg));
	first = (unsigned *)malloc((b->nt + 1) * sizeof(*first));
	if (!blk || !seg || !first)
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the dgc norm blocks: out of memory");
	for (size_t t = 0; !rc && t < b->nt; t++) {
		first[t] = (unsigned)j;
		for (size_t a = b->off[t]; a < b->off[t + 1]; a += GC_DGC_NORM_BLOCK) {
			blk[j] = a;
			seg[j++] = (unsigned)t;
		}
	}
	if (!rc) {
		blk[nblk] = b->numel;
		first[b->nt] = (unsigned)nblk;
		rc = gc_cu_malloc((void **)&x->blk, (nblk + 1) * sizeof(*blk), "the dgc norm blocks", e);
	}
	if (!rc)
		rc = gc_cu_malloc((void **)&x->blk_seg, (nblk + 1) * sizeof(*seg), "the dgc block tensors", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->seg_first, (b->nt + 1) * sizeof(*first), "the dgc tensor blocks", e);
	if (!rc && (cudaMemcpy(x->blk, blk, (nblk + 1) * sizeof(*blk), cudaMemcpyHostToDevice) ||
		    cudaMemcpy(x->blk_seg, seg, (nblk + 1) * sizeof(*seg), cudaMemcpyHostToDevice) ||
		    cudaMemcpy(x->seg_first, first, (b->nt + 1) * sizeof(*first), cudaMemcpyHostToDevice)))
		rc = gc_fail(e, GC_E_CUDA, "cannot copy the dgc norm blocks to the GPU");
	free(blk);
	free(seg);
	free(first);
	return rc;
}

static gc_rc dgc_init(gc_bucket *b, gc_err *e)
{
	struct gc_cu_sparse *s;
	struct dgc_ext *x;
	size_t n = b->numel, kmax = gc_dgc_kmax(&b->p, n);
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = gc_cu_sparse_init(b, e);
	if (rc)
		goto fail;
	s = (struct gc_cu_sparse *)b->st;
	x = (struct dgc_ext *)calloc(1, sizeof(*x));
	s->ext = x;
	if (!x) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the dgc state: out of memory");
		goto fail;
	}
	/* the payload buffers hold the warm-up's largest k */
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	s->send = s->recv = NULL;
	rc = gc_cu_malloc((void **)&s->send, 8 * kmax + 8, "the dgc payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, 8 * kmax * (size_t)b->world + 8, "the dgc gather buffer", e);
	if (!rc && !s->e)
		rc = gc_cu_malloc((void **)&s->e, n * sizeof(float), "the dgc velocity", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->u, n * sizeof(float), "the dgc momentum", e);
	if (!rc)
		rc = dgc_blocks(b, x, e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->psum, (x->nblk + 1) * sizeof(double), "the dgc norm sums", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->fac, b->nt * sizeof(float), "the dgc clipping factors", e);
	if (!rc)
		rc = gc_cu_radix_init(&x->sel, "dgc", e);
	if (!rc && n && (cudaMemsetAsync(s->e, 0, n * sizeof(float), st) ||
			 cudaMemsetAsync(x->u, 0, n * sizeof(float), st)))
		rc = gc_fail(e, GC_E_CUDA, "cannot clear the dgc state on the GPU");
	if (!rc)
		return GC_OK;
fail:
	dgc_release(b);
	return rc;
}

static gc_rc dgc_encode(gc_bucket *b, const float *grad)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct dgc_ext *x = (struct dgc_ext *)s->ext;
	cudaStream_t st = gc_cu_stream(b);
	size_t n = b->numel, k = gc_dgc_k(&b->p, n, b->step);
	const float *fac = NULL;
	gc_rc rc = GC_OK;
	if (n && b->p.clip > 0) {
		k_dgc_psum<<<gc_cu_grid(x->nblk, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			grad, x->blk, x->nblk, x->psum);
		GC_CUDA_LAUNCHED();
		k_dgc_factor<<<gc_cu_grid(b->nt, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			x->psum, x->seg_first, b->nt, b->p.clip / sqrt((double)b->world), x->fac);
		GC_CUDA_LAUNCHED();
		fac = x->fac;
	}
	if (n) {
		k_dgc_update<<<(unsigned)x->nblk, GC_CU_THREADS, 0, st>>>(grad, x->u, s->e, x->blk,
			x->blk_seg, fac, (float)b->p.momentum);
		GC_CUDA_LAUNCHED();
		rc = gc_cu_radix_rule(&x->sel, s->e, n, k, s->d_rule, st);
		if (rc)
			goto out;
	}
	s->k = k;
	rc = gc_cu_sparse_commit(b, s->e);
	if (!rc && n) {
		k_dgc_mask<<<gc_cu_grid(k, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			x->u, (const uint32_t *)s->send, k, n);
		GC_CUDA_LAUNCHED();
	}
	b->round[0].count = 8 * k;      /* the warm-up's k, not the plan's final one */
out:
	return rc;
}

const struct gc_method_ops gc_cu_dgc_ops = {
	dgc_init, dgc_encode, NULL, gc_cu_sparse_decode, gc_cu_sparse_residual, dgc_release,
};
