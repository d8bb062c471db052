/* kernels/cuda/powersgd.cu: PowerSGD on the GPU, with cuBLAS.
 *
 * Same layout and arithmetic as the CPU (kernels/powersgd.c): per tensor, r' and
 * whether it is compressed; round 0 all-reduces [all P | all uncompressed tensors],
 * round 1 all Q. Matrices are row-major; cuBLAS is column-major, so every product is
 * written for the transposes (a row-major X is a column-major X^T):
 *   P = M Q     : P^T = Q^T M^T   gemm(N, N, r, rows, cols, Q, r, M, cols, P, r)
 *   Q = M^T P   : Q^T = P^T M     gemm(N, T, r, cols, rows, P, r, M, cols, Q, r)
 *   M' = P Q^T  : M'^T = Q P^T    gemm(T, N, cols, rows, r, Q, r, P, r, M', cols)
 * Q is drawn on the host (kernels/rng.h, as on the CPU) into pinned memory and copied.
 * cuBLAS is loaded on first use (cublas_load.h).
 * Orthonormalization: one block per matrix, modified Gram-Schmidt (projections done
 * twice) with double dot products and the CPU's float updates (no FMA contraction).
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/rng.h"
#include "cu_common.cuh"
#include "cublas_load.h"

#define GC_CUBLAS_CHECK(call) do { \
	cublasStatus_t gc_bs_ = (call); \
	if (gc_bs_ != CUBLAS_STATUS_SUCCESS) { \
		gc_error("cublas call '%s' failed at %s:%d: %s", #call, __FILE__, __LINE__, \
			 s->cb->status_string(gc_bs_)); \
		rc = GC_E_CUDA; \
		goto out; \
	} \
} while (0)

struct ps_mat {                        /* one compressed matrix, for the MGS kernel */
	unsigned long long po, rows;
	int r;
};

struct ps_st {
	int *r;                        /* per tensor: r' if compressed, else 0 */
	size_t *po, *qo;               /* per tensor: offset in send0, in q */
	size_t np, nu, nq, ncomp;
	float *m;                      /* numel: c, then e' (ef) (device) */
	float *send0, *q;              /* np + nu; nq (device) */
	float *qh;                     /* nq (pinned host), Q as drawn */
	ps_mat *mats;                  /* ncomp (device) */
	const struct gc_cublas_api *cb;   /* set with h */
	cublasHandle_t h;
	cudaEvent_t qcopied;           /* the last copy out of qh is done */
	int q_ready;
};

static void ps_release(gc_bucket *b)
{
	struct ps_st *s = (struct ps_st *)b->st;
	if (!s)
		return;
	if (s->h)
		(void)s->cb->destroy(s->h);
	if (s->qcopied)
		(void)cudaEventDestroy(s->qcopied);
	if (s->qh)
		(void)cudaFreeHost(s->qh);
	gc_cuda_free(s->m);
	gc_cuda_free(s->send0);
	gc_cuda_free(s->q);
	gc_cuda_free(s->mats);
	free(s->r);
	free(s->po);
	free(s->qo);
	free(s);
	b->st = NULL;
}

/* The per-matrix table for the MGS kernel, copied to the device. */
static gc_rc ps_mats(gc_bucket *b, struct ps_st *s, gc_err *e)
{
	ps_mat *hm = (ps_mat *)calloc(s->ncomp ? s->ncomp : 1, sizeof(*hm));
	size_t t, j = 0;
	gc_rc rc;
	if (!hm)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the powersgd matrix table: out of memory");
	for (t = 0; t < b->nt; t++)
		if (s->r[t]) {
			hm[j].po = s->po[t];
			hm[j].rows = b->t[t].rows;
			hm[j++].r = s->r[t];
		}
	rc = gc_cu_malloc((void **)&s->mats, s->ncomp * sizeof(*hm), "the powersgd matrix table", e);
	if (!rc && s->ncomp) {         /* on the bucket's stream, waited for: hm is freed below */
		cudaError_t ce = cudaMemcpyAsync(s->mats, hm, s->ncomp * sizeof(*hm), cudaMemcpyHostToDevice,
						 gc_cu_stream(b));
		if (ce == cudaSuccess)
			ce = cudaStreamSynchronize(gc_cu_stream(b));
		if (ce != cudaSuccess)
			rc = gc_fail(e, GC_E_CUDA, "cannot copy the powersgd matrix table to the GPU: %s",
				     cudaGetErrorString(ce));
	}
	free(hm);
	return rc;
}

static gc_rc ps_alloc(gc_bucket *b, struct ps_st *s, gc_err *e)
{
	cudaError_t ce;
	cublasStatus_t bs;
	const struct gc_cublas_api *cb;
	gc_rc rc = gc_cu_malloc((void **)&s->m, b->numel * sizeof(float), "the powersgd residual", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->send0, (s->np + s->nu) * sizeof(float), "powersgd's P", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->q, s->nq * sizeof(float), "powersgd's Q", e);
	if (!rc)
		rc = ps_mats(b, s, e);
	if (rc)
		return rc;
	ce = b->numel ? cudaMemsetAsync(s->m, 0, b->numel * sizeof(float), gc_cu_stream(b)) : cudaSuccess;
	if (ce != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "cannot clear the powersgd residual: %s", cudaGetErrorString(ce));
	ce = s->nq ? cudaMallocHost((void **)&s->qh, s->nq * sizeof(float)) : cudaSuccess;
	if (ce != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "cannot allocate %zu bytes of pinned host memory for "
			       "powersgd's Q: %s", s->nq * sizeof(float), cudaGetErrorString(ce));
	ce = cudaEventCreateWithFlags(&s->qcopied, cudaEventDisableTiming);
	if (ce != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "cannot create a CUDA event: %s", cudaGetErrorString(ce));
	if (!(cb = gc_cublas(e)))
		return GC_E_CUDA;
	bs = cb->create(&s->h);
	if (bs == CUBLAS_STATUS_SUCCESS)
		s->cb = cb, bs = cb->set_stream(s->h, gc_cu_stream(b));
	if (bs == CUBLAS_STATUS_SUCCESS)
		bs = cb->set_math_mode(s->h, CUBLAS_DEFAULT_MATH);
	if (bs != CUBLAS_STATUS_SUCCESS)
		return gc_fail(e, GC_E_CUDA, "cannot create a cuBLAS handle for powersgd: %s "
			       "(is the GPU free?)", cb->status_string(bs));
	return GC_OK;
}

static gc_rc ps_init(gc_bucket *b, gc_err *e)
{
	struct ps_st *s = (struct ps_st *)calloc(1, sizeof(*s));
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the powersgd state: out of memory");
	b->st = s;
	s->r = (int *)calloc(b->nt ? b->nt : 1, sizeof(int));
	s->po = (size_t *)calloc(b->nt ? b->nt : 1, sizeof(size_t));
	s->qo = (size_t *)calloc(b->nt ? b->nt : 1, sizeof(size_t));
	if (!s->r || !s->po || !s->qo) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the powersgd state: out of memory");
	} else {
		/* the CPU's layout: which tensors are compressed, where P, Q and the rest go */
		gc_powersgd_layout(&b->p, b->t, b->nt, s->r, s->po, s->qo, &s->np, &s->nu, &s->nq);
		s->ncomp = b->plan.ncomp;
		rc = ps_alloc(b, s, e);
	}
	if (rc)
		ps_release(b);
	return rc;
}

/* Draw Q of every compressed tensor on the host and queue the copy. */
static gc_rc ps_draw_q(gc_bucket *b, struct ps_st *s)
{
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = GC_OK;
	size_t t;
	GC_CUDA_CHECK(cudaEventSynchronize(s->qcopied));   /* qh free to overwrite */
	for (t = 0; t < b->nt; t++) {
		uint64_t rs;
		if (!s->r[t])
			continue;
		rs = gc_rng_key(b->p.seed, t, b->p.warm_start ? 0 : b->step);
		gc_rng_normal_at(rs, 0, s->qh + s->qo[t], b->t[t].cols * (size_t)s->r[t]);
	}
	GC_CUDA_CHECK(cudaMemcpyAsync(s->q, s->qh, s->nq * sizeof(float), cudaMemcpyHostToDevice, st));
	GC_CUDA_CHECK(cudaEventRecord(s->qcopied, st));
	s->q_ready = 1;
out:
	return rc;
}

static gc_rc ps_encode(gc_bucket *b, const float *grad)
{
	struct ps_st *s = (struct ps_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	const float one = 1.0f, zero = 0.0f;
	gc_rc rc = GC_OK;
	size_t t;
	if (b->p.ef)
		rc = gc_cu_add(s->m, grad, s->m, b->numel, st);
	else if (b->numel)
		GC_CUDA_CHECK(cudaMemcpyAsync(s->m, grad, b->numel * sizeof(float), cudaMemcpyDeviceToDevice, st));
	if (!rc && s->nq && (!s->q_ready || !b->p.warm_start))
		rc = ps_draw_q(b, s);
	if (rc)
		goto out;
	for (t = 0; t < b->nt; t++) {
		const gc_tensor_desc *d = &b->t[t];
		int r = s->r[t];
		if (!r) {
			if (d->rows * d->cols != 0)
				GC_CUDA_CHECK(cudaMemcpyAsync(s->send0 + s->po[t], s->m + b->off[t],
					d->rows * d->cols * sizeof(float), cudaMemcpyDeviceToDevice, st));
			continue;
		}
		GC_CUBLAS_CHECK(s->cb->sgemm_64(s->h, CUBLAS_OP_N, CUBLAS_OP_N, r, (int64_t)d->rows,
					       (int64_t)d->cols, &one, s->q + s->qo[t], r, s->m + b->off[t],
					       (int64_t)d->cols, &zero, s->send0 + s->po[t], r));
	}
	gc_round_bind(b, s->send0, s->send0, s->q, s->q);
out:
	return rc;
}

/* Column j of P minus its projection on column i: double dot product over the block,
 * then the CPU's float update (no FMA contraction). bc: a shared broadcast slot. */
__device__ void ps_project_out(float *P, unsigned long long rows, int r, int i, int j, double *sh, double *bc)
{
	double d = 0.0;
	for (unsigned long long k = threadIdx.x; k < rows; k += blockDim.x)
		d += (double)P[k * r + i] * (double)P[k * r + j];
	d = gc_block_sum(d, sh);
	if (threadIdx.x == 0)
		*bc = d;
	__syncthreads();
	float df = (float)*bc;
	for (unsigned long long k = threadIdx.x; k < rows; k += blockDim.x)
		P[k * r + j] = __fsub_rn(P[k * r + j], __fmul_rn(df, P[k * r + i]));
	__syncthreads();
}

/* One block per matrix: modified Gram-Schmidt on the columns of row-major P, the
 * projections on the previous columns done twice (kernels/compress.h). */
__global__ void k_ps_mgs(float *send0, const ps_mat *mats)
{
	__shared__ double sh[32];
	__shared__ double bc;
	ps_mat mt = mats[blockIdx.x];
	float *P = send0 + mt.po;
	int r = mt.r;
	for (int j = 0; j < r; j++) {
		double nrm = 0.0;
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < j; i++)
				ps_project_out(P, mt.rows, r, i, j, sh, &bc);
		for (unsigned long long k = threadIdx.x; k < mt.rows; k += blockDim.x)
			nrm += (double)P[k * r + j] * (double)P[k * r + j];
		nrm = gc_block_sum(nrm, sh);
		if (threadIdx.x == 0)
			bc = sqrt(nrm);
		__syncthreads();
		nrm = bc;
		for (unsigned long long k = threadIdx.x; k < mt.rows; k += blockDim.x)
			P[k * r + j] = nrm < 1e-8 ? 0.0f : __fdiv_rn(P[k * r + j], (float)nrm);
		__syncthreads();
	}
}

static gc_rc ps_round_done(gc_bucket *b)
{
	struct ps_st *s = (struct ps_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	const float one = 1.0f, zero = 0.0f;
	float p = (float)b->world;
	gc_rc rc = GC_OK;
	size_t t;
	if (b->cur == 1)
		return gc_cu_div(s->q, s->q, p, s->nq, st);
	rc = gc_cu_div(s->send0, s->send0, p, s->np, st);
	if (rc || !s->ncomp)
		return rc;
	k_ps_mgs<<<(unsigned)s->ncomp, GC_CU_THREADS, 0, st>>>(s->send0, s->mats);
	GC_CUDA_LAUNCHED();
	for (t = 0; t < b->nt; t++) {
		const gc_tensor_desc *d = &b->t[t];
		int r = s->r[t];
		if (!r)
			continue;
		GC_CUBLAS_CHECK(s->cb->sgemm_64(s->h, CUBLAS_OP_N, CUBLAS_OP_T, r, (int64_t)d->cols,
					       (int64_t)d->rows, &one, s->send0 + s->po[t], r, s->m + b->off[t],
					       (int64_t)d->cols, &zero, s->q + s->qo[t], r));
	}
out:
	return rc;
}

__global__ void k_ps_sub(float *m, const float *x, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		m[i] = m[i] - x[i];
}

/* One tensor: M' = P Q^T and e' = c - M', or the uncompressed sum / p and e' = 0. */
static gc_rc ps_decode_tensor(gc_bucket *b, struct ps_st *s, size_t t, float *out)
{
	const gc_tensor_desc *d = &b->t[t];
	cudaStream_t st = gc_cu_stream(b);
	const float one = 1.0f, zero = 0.0f;
	size_t n = d->rows * d->cols;
	float *m = s->m + b->off[t];
	int r = s->r[t];
	gc_rc rc = GC_OK;
	if (!n)
		return GC_OK;
	if (!r) {
		rc = gc_cu_div(out, s->send0 + s->po[t], (float)b->world, n, st);
		if (!rc && b->p.ef)
			GC_CUDA_CHECK(cudaMemsetAsync(m, 0, n * sizeof(float), st));
		return rc;
	}
	GC_CUBLAS_CHECK(s->cb->sgemm_64(s->h, CUBLAS_OP_T, CUBLAS_OP_N, (int64_t)d->cols, (int64_t)d->rows, r,
				       &one, s->q + s->qo[t], r, s->send0 + s->po[t], r, &zero, out,
				       (int64_t)d->cols));
	if (b->p.ef) {
		k_ps_sub<<<gc_cu_grid(n, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(m, out, n);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

static gc_rc ps_decode(gc_bucket *b, float *avg)
{
	gc_rc rc = GC_OK;
	size_t t;
	for (t = 0; !rc && t < b->nt; t++)
		rc = ps_decode_tensor(b, (struct ps_st *)b->st, t, avg + b->off[t]);
	return rc;
}

static gc_rc ps_residual(const gc_bucket *b, float *host_out)
{
	const struct ps_st *s = (const struct ps_st *)b->st;
	gc_rc rc = GC_OK;
	if (!b->p.ef) {
		memset(host_out, 0, b->numel * sizeof(float));
		return GC_OK;
	}
	GC_CUDA_CHECK(cudaMemcpyAsync(host_out, s->m, b->numel * sizeof(float), cudaMemcpyDeviceToHost,
				      gc_cu_stream(b)));
	GC_CUDA_CHECK(cudaStreamSynchronize(gc_cu_stream(b)));
out:
	return rc;
}

const struct gc_method_ops gc_cu_powersgd_ops = {
	ps_init, ps_encode, ps_round_done, ps_decode, ps_residual, ps_release,
};
