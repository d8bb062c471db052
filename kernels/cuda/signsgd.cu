/* kernels/cuda/signsgd.cu: signSGD with majority vote, and scaled sign with error
 * feedback, on the GPU.
 *
 * Payload (all-gathered, bytes): scaled: nt floats s_t = mean |c| over tensor t
 * (double sums in a fixed order, rounded to float), then the bits; unscaled: the bits.
 * Bits: element i is bit i % 8 of byte i / 8, set iff c[i]'s sign bit is clear; one
 * warp packs 32 elements into one uint32 with __ballot_sync (on little-endian that is
 * the byte layout above). Decode: one thread per payload byte (8 elements) reads that
 * byte of every worker, in worker order.
 */
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"

struct signsgd_st {
	unsigned char *send;           /* 4 * nt (scaled) + 4 * ceil(n / 32) bytes */
	unsigned char *recv;           /* count * world bytes */
	float *e;                      /* error feedback residual (ef), numel */
	float *scales;                 /* world * nt gathered scales (scaled) */
	size_t hdr, count;             /* bytes of scales; payload bytes */
	gc_cu_chunks ch;               /* one segment per tensor */
};

__global__ void k_sign_pack(uint32_t *words, const float *__restrict__ c, size_t n)
{
	size_t nw = (n + 31) / 32 * 32;        /* whole warps reach the ballot */
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw; i += (size_t)gridDim.x * blockDim.x) {
		bool pos = i < n && !(__float_as_uint(c[i]) >> 31);
		uint32_t w = __ballot_sync(0xffffffffu, pos);
		if ((threadIdx.x & 31) == 0)
			words[i / 32] = w;
	}
}

/* e = c - s_t * sign(c), in place (e holds c), one block per chunk. */
__global__ void k_sign_ef(const gc_cu_chunk *ch, float *e, const float *scales)
{
	gc_cu_chunk k = ch[blockIdx.x];
	float s = scales[k.seg];
	for (unsigned long long i = k.begin + threadIdx.x; i < k.end; i += blockDim.x) {
		float c = e[i];
		e[i] = c - ((__float_as_uint(c) >> 31) ? -s : s);
	}
}

/* Gather the scales of every worker (unaligned in recv) into scales[w * nt + t]. */
__global__ void k_sign_scales(float *scales, const unsigned char *recv, size_t count, size_t nt, int p)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (size_t)p * nt) {
		const unsigned char *q = recv + (i / nt) * count + 4 * (i % nt);
		uint32_t u = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
		scales[i] = __uint_as_float(u);
	}
}

__device__ __forceinline__ void store8(float *avg, size_t i0, size_t n, const float *v)
{
	if (i0 + 8 <= n && ((uintptr_t)(avg + i0) & 15u) == 0) {
		((float4 *)(avg + i0))[0] = make_float4(v[0], v[1], v[2], v[3]);
		((float4 *)(avg + i0))[1] = make_float4(v[4], v[5], v[6], v[7]);
	} else {
		for (int j = 0; j < 8 && i0 + j < n; j++)
			avg[i0 + j] = v[j];
	}
}

/* Majority vote: +1, -1, or 0 on a tie, per element. */
__global__ void k_sign_vote(float *avg, const unsigned char *recv, size_t count, int p, size_t n)
{
	size_t nb = (n + 7) / 8;
	for (size_t bi = (size_t)blockIdx.x * blockDim.x + threadIdx.x; bi < nb; bi += (size_t)gridDim.x * blockDim.x) {
		int pos[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
		float v[8];
		for (int w = 0; w < p; w++) {
			unsigned byte = recv[(size_t)w * count + bi];
			for (int j = 0; j < 8; j++)
				pos[j] += (byte >> j) & 1u;
		}
		for (int j = 0; j < 8; j++) {
			int vote = 2 * pos[j] - p;
			v[j] = vote > 0 ? 1.0f : (vote < 0 ? -1.0f : 0.0f);
		}
		store8(avg, bi * 8, n, v);
	}
}

/* Scaled: avg = (sum over workers, in order, of +-s_wt) / p. */
__global__ void k_sign_scaled(float *avg, const unsigned char *recv, size_t count, size_t hdr,
			      const float *scales, const unsigned long long *off, size_t nt, int p, size_t n)
{
	size_t nb = (n + 7) / 8;
	for (size_t bi = (size_t)blockIdx.x * blockDim.x + threadIdx.x; bi < nb; bi += (size_t)gridDim.x * blockDim.x) {
		size_t i0 = bi * 8, a = 0, z = nt, t[8];
		float v[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
		while (a + 1 < z) {            /* last tensor with off <= i0 */
			size_t m = (a + z) / 2;
			if (off[m] <= i0)
				a = m;
			else
				z = m;
		}
		for (int j = 0; j < 8; j++) {
			while (a + 1 < nt && off[a + 1] <= i0 + j)
				a++;
			t[j] = a;
		}
		for (int w = 0; w < p; w++) {
			unsigned byte = recv[(size_t)w * count + hdr + bi];
			for (int j = 0; j < 8; j++) {
				float s = scales[(size_t)w * nt + t[j]];
				v[j] += ((byte >> j) & 1u) ? s : -s;
			}
		}
		for (int j = 0; j < 8; j++)
			v[j] = v[j] / (float)p;
		store8(avg, i0, n, v);
	}
}

static void signsgd_release(gc_bucket *b)
{
	struct signsgd_st *s = (struct signsgd_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	gc_cuda_free(s->e);
	gc_cuda_free(s->scales);
	gc_cu_chunks_release(&s->ch);
	free(s);
	b->st = NULL;
}

static gc_rc signsgd_alloc(gc_bucket *b, struct signsgd_st *s, gc_err *e)
{
	gc_rc rc;
	size_t n = b->numel;
	s->hdr = b->p.scaled ? 4 * b->nt : 0;
	s->count = b->plan.round[0].count;    /* s->hdr, then (n + 7) / 8 bytes of bits */
	rc = gc_cu_malloc((void **)&s->send, s->hdr + 4 * ((n + 31) / 32) + 4, "the signsgd payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, s->count * (size_t)b->world + 4, "the signsgd gather buffer", e);
	if (!rc && b->p.scaled) {
		rc = gc_cu_malloc((void **)&s->scales, (size_t)b->world * b->nt * sizeof(float) + 4, "the signsgd scales", e);
		if (!rc)
			rc = gc_cu_chunks_init(&s->ch, b, 1, e);
	}
	if (!rc && b->p.ef) {
		rc = gc_cu_malloc((void **)&s->e, n * sizeof(float), "the signsgd residual", e);
		cudaError_t ce = rc || !n ? cudaSuccess :
			cudaMemsetAsync(s->e, 0, n * sizeof(float), gc_cu_stream(b));
		if (ce != cudaSuccess)
			rc = gc_fail(e, GC_E_CUDA, "cannot clear the signsgd residual on the GPU: %s",
				     cudaGetErrorString(ce));
	}
	return rc;
}

static gc_rc signsgd_init(gc_bucket *b, gc_err *e)
{
	struct signsgd_st *s = (struct signsgd_st *)calloc(1, sizeof(*s));
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the signsgd state: out of memory");
	b->st = s;
	rc = signsgd_alloc(b, s, e);
	if (rc)
		signsgd_release(b);
	return rc;
}

static gc_rc signsgd_encode(gc_bucket *b, const float *grad)
{
	struct signsgd_st *s = (struct signsgd_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	const float *c = grad;
	gc_rc rc = GC_OK;
	if (b->p.ef) {
		rc = gc_cu_add(s->e, grad, s->e, b->numel, st);        /* c = g + e, kept in e */
		if (rc)
			goto out;
		c = s->e;
	}
	if (b->p.scaled) {
		rc = gc_cu_absstats(&s->ch, c, (float *)s->send, NULL, st);
		if (rc)
			goto out;
	}
	if (b->numel) {
		k_sign_pack<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			(uint32_t *)(s->send + s->hdr), c, b->numel);
		GC_CUDA_LAUNCHED();
	}
	if (b->p.ef && b->p.scaled && s->ch.n) {
		k_sign_ef<<<(unsigned)s->ch.n, GC_CU_THREADS, 0, st>>>(s->ch.d, s->e, (const float *)s->send);
		GC_CUDA_LAUNCHED();
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
out:
	return rc;
}

static gc_rc signsgd_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc signsgd_decode(gc_bucket *b, float *avg)
{
	struct signsgd_st *s = (struct signsgd_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	size_t nb = (b->numel + 7) / 8, ns = (size_t)b->world * b->nt;
	gc_rc rc = GC_OK;
	if (!b->numel)
		return GC_OK;
	if (!b->p.scaled) {
		k_sign_vote<<<gc_cu_grid(nb, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			avg, s->recv, s->count, b->world, b->numel);
		GC_CUDA_LAUNCHED();
		goto out;
	}
	k_sign_scales<<<(unsigned)((ns + GC_CU_THREADS - 1) / GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		s->scales, s->recv, s->count, b->nt, b->world);
	GC_CUDA_LAUNCHED();
	k_sign_scaled<<<gc_cu_grid(nb, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		avg, s->recv, s->count, s->hdr, s->scales, s->ch.d_off, b->nt, b->world, b->numel);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

static gc_rc signsgd_residual(const gc_bucket *b, float *host_out)
{
	const struct signsgd_st *s = (const struct signsgd_st *)b->st;
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

const struct gc_method_ops gc_cu_signsgd_ops = {
	signsgd_init, signsgd_encode, signsgd_round_done, signsgd_decode, signsgd_residual,
	signsgd_release,
};
