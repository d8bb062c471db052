/* kernels/cuda/sparse.cu: state, stable compaction and decode of the sparse payload
 * shared by topk and mstopk (sparse.cuh). */
#include <stdlib.h>
#include <string.h>

#include "sparse.cuh"

#define ST(b) ((struct gc_cu_sparse *)(b)->st)

gc_rc gc_cu_sparse_init(gc_bucket *b, gc_err *e)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)calloc(1, sizeof(*s));
	size_t nt;
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the %s state: out of memory",
			       gc_method_name(b->p.method));
	b->st = s;
	if (b->numel > 0xffffffffull)
		return gc_fail(e, GC_E_INVAL, "cannot compress a bucket of %zu elements with %s: "
			       "indices are 32-bit; use smaller buckets", b->numel, gc_method_name(b->p.method));
	s->k = b->plan.k;
	nt = s->ntiles = (b->numel + GC_SP_TILE - 1) / GC_SP_TILE;
	rc = gc_cu_malloc((void **)&s->send, 8 * s->k + 8, "the sparse payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, 8 * s->k * (size_t)b->world + 8, "the sparse gather buffer", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->cnt_a, 2 * (nt + 1) * sizeof(unsigned), "the tile counts", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->base_b, 2 * (nt + 1) * sizeof(unsigned long long), "the tile offsets", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->d_rule, sizeof(gc_cu_rule), "the selection rule", e);
	if (!rc && b->p.ef)
		rc = gc_cu_malloc((void **)&s->e, b->numel * sizeof(float), "the residual", e);
	if (rc)
		return rc;
	s->cnt_b = s->cnt_a + nt + 1;
	s->base_o = s->base_b + nt + 1;
	if (s->e && b->numel) {        /* on the bucket's stream: ordered before the first encode */
		cudaError_t ce = cudaMemsetAsync(s->e, 0, b->numel * sizeof(float), gc_cu_stream(b));
		if (ce != cudaSuccess)
			return gc_fail(e, GC_E_CUDA, "cannot clear the residual on the GPU: %s",
				       cudaGetErrorString(ce));
	}
	return GC_OK;
}

void gc_cu_sparse_release(gc_bucket *b)
{
	struct gc_cu_sparse *s = ST(b);
	if (!s)
		return;
	gc_cuda_free(s->e);
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	gc_cuda_free(s->cnt_a);
	gc_cuda_free(s->base_b);
	gc_cuda_free(s->d_rule);
	free(s);
	b->st = NULL;
}

gc_rc gc_cu_sparse_input(gc_bucket *b, const float *grad, const float **c)
{
	struct gc_cu_sparse *s = ST(b);
	*c = grad;
	if (!s->e)
		return GC_OK;
	*c = s->e;
	return gc_cu_add(s->e, grad, s->e, b->numel, gc_cu_stream(b));
}

/* ---- compaction ------------------------------------------------------------ */

__device__ __forceinline__ void rule_classes(const gc_cu_rule &r, uint32_t key, bool in, bool *a, bool *bb)
{
	*a = in && r.a_on && key >= r.a_lo;
	*bb = in && key >= r.b_lo && key < r.b_hi;
}

__global__ void k_sp_count(const float *__restrict__ c, size_t n, const gc_cu_rule *rule,
			   unsigned *cnt_a, unsigned *cnt_b)
{
	__shared__ unsigned sh[32];
	gc_cu_rule r = *rule;
	size_t t0 = (size_t)blockIdx.x * GC_SP_TILE, t1 = t0 + GC_SP_TILE < n ? t0 + GC_SP_TILE : n;
	unsigned na = 0, nb = 0;
	for (size_t i = t0 + threadIdx.x; i < t1; i += blockDim.x) {
		bool a, bb;
		rule_classes(r, gc_abs_key(c[i]), true, &a, &bb);
		na += a;
		nb += bb;
	}
	na = gc_block_sum(na, sh);
	nb = gc_block_sum(nb, sh);
	if (threadIdx.x == 0) {
		cnt_a[blockIdx.x] = na;
		cnt_b[blockIdx.x] = nb;
	}
}

/* One block: per tile, the B elements and the selected elements before it. */
__global__ void k_sp_scan(const unsigned *cnt_a, const unsigned *cnt_b, size_t nt,
			  const gc_cu_rule *rule, unsigned long long *base_b, unsigned long long *base_o)
{
	__shared__ unsigned sh[33];
	unsigned long long kr = rule->kr, cb = 0, co = 0;
	for (size_t t0 = 0; t0 < nt; t0 += blockDim.x) {
		size_t t = t0 + threadIdx.x;
		unsigned xb = t < nt ? cnt_b[t] : 0u, xa = t < nt ? cnt_a[t] : 0u, tot;
		unsigned long long bb = cb + gc_block_exscan(xb, sh, &tot), take;
		cb += tot;
		take = bb >= kr ? 0 : (kr - bb < xb ? kr - bb : xb);
		unsigned sel = xa + (unsigned)take;
		unsigned long long oo = co + gc_block_exscan(sel, sh, &tot);
		co += tot;
		if (t < nt) {
			base_b[t] = bb;
			base_o[t] = oo;
		}
	}
}

__global__ void k_sp_write(const float *c, size_t n, const gc_cu_rule *rule,
			   const unsigned long long *base_b, const unsigned long long *base_o,
			   uint32_t *idx, float *val, float *e)
{
	__shared__ unsigned sh[33];
	gc_cu_rule r = *rule;
	unsigned long long rb = base_b[blockIdx.x], ro = base_o[blockIdx.x];
	size_t t0 = (size_t)blockIdx.x * GC_SP_TILE;
	for (int sub = 0; sub < GC_SP_TILE / GC_CU_THREADS; sub++) {
		size_t i = t0 + (size_t)sub * GC_CU_THREADS + threadIdx.x;
		bool in = i < n, a, bb, sel;
		float v = in ? c[i] : 0.0f;
		unsigned tot_b, tot_o, xb, xo;
		rule_classes(r, gc_abs_key(v), in, &a, &bb);
		if (!__syncthreads_or(a || bb))
			continue;              /* most sub-tiles hold nothing to send */
		xb = gc_block_exscan(bb ? 1u : 0u, sh, &tot_b);
		sel = a || (bb && rb + xb < r.kr);
		xo = gc_block_exscan(sel ? 1u : 0u, sh, &tot_o);
		if (sel) {
			idx[ro + xo] = (uint32_t)i;
			val[ro + xo] = v;
			if (e)
				e[i] = 0.0f;
		}
		rb += tot_b;
		ro += tot_o;
	}
}

gc_rc gc_cu_sparse_commit(gc_bucket *b, const float *c)
{
	struct gc_cu_sparse *s = ST(b);
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = GC_OK;
	GC_CUDA_CHECK(cudaMemsetAsync(s->send, 0, 8 * s->k, st));
	if (s->ntiles) {
		k_sp_count<<<(unsigned)s->ntiles, GC_CU_THREADS, 0, st>>>(c, b->numel, s->d_rule, s->cnt_a, s->cnt_b);
		GC_CUDA_LAUNCHED();
		k_sp_scan<<<1, 1024, 0, st>>>(s->cnt_a, s->cnt_b, s->ntiles, s->d_rule, s->base_b, s->base_o);
		GC_CUDA_LAUNCHED();
		k_sp_write<<<(unsigned)s->ntiles, GC_CU_THREADS, 0, st>>>(c, b->numel, s->d_rule, s->base_b,
			s->base_o, (uint32_t *)s->send, (float *)(s->send + 4 * s->k), s->e);
		GC_CUDA_LAUNCHED();
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
out:
	return rc;
}

/* ---- decode ---------------------------------------------------------------- */

/* avg[idx[j]] += val[j] for one worker. Its selected indices are distinct and
 * ascending; the pad entries past the selection (index 0, value 0) would all add to
 * avg[0] at once, racing with a selected element 0 (at j = 0 only): they are skipped,
 * as adding 0 changes nothing. */
__global__ void k_sp_scatter(float *avg, const uint32_t *idx, const float *val, size_t k, size_t n)
{
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < k; j += (size_t)gridDim.x * blockDim.x) {
		uint32_t i = idx[j];
		if (i < n && (i != 0 || j == 0))
			avg[i] += val[j];
	}
}

gc_rc gc_cu_sparse_decode(gc_bucket *b, float *avg)
{
	struct gc_cu_sparse *s = ST(b);
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = GC_OK;
	int w;
	if (!b->numel)
		return GC_OK;
	GC_CUDA_CHECK(cudaMemsetAsync(avg, 0, b->numel * sizeof(float), st));
	for (w = 0; w < b->world; w++) {           /* worker order: the CPU's sums */
		const unsigned char *pl = s->recv + (size_t)w * 8 * s->k;
		k_sp_scatter<<<gc_cu_grid(s->k, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			avg, (const uint32_t *)pl, (const float *)(pl + 4 * s->k), s->k, b->numel);
		GC_CUDA_LAUNCHED();
	}
	rc = gc_cu_div(avg, avg, (float)b->world, b->numel, st);
out:
	return rc;
}

gc_rc gc_cu_sparse_residual(const gc_bucket *b, float *host_out)
{
	const struct gc_cu_sparse *s = (const struct gc_cu_sparse *)b->st;
	gc_rc rc = GC_OK;
	if (!s->e) {
		memset(host_out, 0, b->numel * sizeof(float));
		return GC_OK;
	}
	GC_CUDA_CHECK(cudaMemcpyAsync(host_out, s->e, b->numel * sizeof(float), cudaMemcpyDeviceToHost,
				      gc_cu_stream(b)));
	GC_CUDA_CHECK(cudaStreamSynchronize(gc_cu_stream(b)));
out:
	return rc;
}
