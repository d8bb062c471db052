/* kernels/cuda/cgx.cu: cgx on the GPU (kernels/cgx.h), meant to give the CPU's bits:
 * one CUDA block per quantization bucket finds its minimum and maximum (the first
 * index among equal values, as the CPU's scan keeps), then one thread per byte of the
 * bucket's levels draws the levels that byte holds (a level spanning two bytes is
 * drawn by both threads: the same counter, the same value) and writes the byte. After
 * the all-to-all one thread per element of this worker's chunk sums the p dequantized
 * values in worker order; the sum is quantized the same way; decode dequantizes and
 * divides by p. Rounded multiplies and adds (__fmul_rn, __fadd_rn): no FMA, as on the
 * CPU. Compiled; not yet run on a device (docs/kernels.md). */
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"
#include "kernels/cgx.h"

/* A quantization bucket: elements [begin, end) of the bucket, where its (mn, unit)
 * and its levels go in the output buffer. */
struct cgx_qb {
	unsigned long long begin, end, meta, codes;
};

struct cgx_cu {
	size_t slot;
	uint8_t *send0, *recv0, *send1, *recv1;  /* as kernels/cgx.c (device) */
	float *sum;                              /* this worker's chunk (device) */
	cgx_qb *t0, *t1;                         /* every chunk's buckets; the own chunk's */
	size_t n0, n1;
};

__global__ void k_cgx_quant(const float *x, unsigned long long xoff, const cgx_qb *t,
			    uint8_t *out, int bits, unsigned long long key, unsigned long long hi)
{
	__shared__ float smn[256], smx[256];
	__shared__ unsigned long long imn[256], imx[256];
	cgx_qb q = t[blockIdx.x];
	unsigned long long len = q.end - q.begin, nbytes = (len * (unsigned)bits + 7) / 8;
	float mn = 0, mx = 0, unit;
	unsigned long long jm = ~0ull, jx = ~0ull;
	for (unsigned long long e = threadIdx.x; e < len; e += blockDim.x) {
		float v = x[q.begin + e - xoff];
		if (jm == ~0ull || v < mn)
			mn = v, jm = e;
		if (jx == ~0ull || v > mx)
			mx = v, jx = e;
	}
	smn[threadIdx.x] = mn, imn[threadIdx.x] = jm;
	smx[threadIdx.x] = mx, imx[threadIdx.x] = jx;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			unsigned o = threadIdx.x + s;
			/* the smaller value, or among equal ones the lower index (as the scan) */
			if (imn[o] != ~0ull && (imn[threadIdx.x] == ~0ull || smn[o] < smn[threadIdx.x] ||
			    (smn[o] == smn[threadIdx.x] && imn[o] < imn[threadIdx.x])))
				smn[threadIdx.x] = smn[o], imn[threadIdx.x] = imn[o];
			if (imx[o] != ~0ull && (imx[threadIdx.x] == ~0ull || smx[o] > smx[threadIdx.x] ||
			    (smx[o] == smx[threadIdx.x] && imx[o] < imx[threadIdx.x])))
				smx[threadIdx.x] = smx[o], imx[threadIdx.x] = imx[o];
		}
		__syncthreads();
	}
	mn = smn[0];
	mx = smx[0];
	unit = gc_cgx_unit(mn, mx, bits);
	if (threadIdx.x == 0) {
		memcpy(out + q.meta, &mn, 4);
		memcpy(out + q.meta + 4, &unit, 4);
	}
	for (unsigned long long b = threadIdx.x; b < nbytes; b += blockDim.x) {
		unsigned long long e0 = 8 * b / (unsigned)bits, e1 = (8 * b + 7) / (unsigned)bits;
		unsigned byte = 0;
		for (unsigned long long e = e0; e <= e1 && e < len; e++) {
			unsigned long long i = q.begin + e;
			unsigned lv = gc_cgx_level(x[i - xoff], mn, unit, bits,
						   gc_rng_unit24(key, hi + i));
			long long sh = (long long)(e * (unsigned)bits) - (long long)(8 * b);
			byte |= sh >= 0 ? lv << sh : lv >> -sh;
		}
		out[q.codes + b] = (uint8_t)byte;
	}
}

/* The value of element e of a quantized chunk (kernels/cgx.h's layout). */
static __device__ float cgx_value_at(const uint8_t *c, unsigned long long m,
				     unsigned long long e, int bits, unsigned long long d)
{
	unsigned long long nb = (m + d - 1) / d, k = e / d, fb = (d * (unsigned)bits + 7) / 8;
	float mn, unit;
	memcpy(&mn, c + 8 * k, 4);
	memcpy(&unit, c + 8 * k + 4, 4);
	return __fadd_rn(mn, __fmul_rn((float)gc_cgx_get(c + 8 * nb + k * fb, e - k * d, bits),
				       unit));
}

__global__ void k_cgx_sum(const uint8_t *recv, size_t slot, int p, unsigned long long m,
			  int bits, unsigned long long d, float *sum)
{
	for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     e < m; e += (unsigned long long)gridDim.x * blockDim.x) {
		float acc = 0.0f;
		for (int w = 0; w < p; w++)
			acc = __fadd_rn(acc, cgx_value_at(recv + (size_t)w * slot, m, e, bits, d));
		sum[e] = acc;
	}
}

__global__ void k_cgx_decode(const uint8_t *c, unsigned long long m, int bits,
			     unsigned long long d, float p, float *avg)
{
	for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     e < m; e += (unsigned long long)gridDim.x * blockDim.x)
		avg[e] = __fdiv_rn(cgx_value_at(c, m, e, bits, d), p);
}

static void cgx_release(gc_bucket *b)
{
	struct cgx_cu *s = (struct cgx_cu *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->send0);
	gc_cuda_free(s->recv0);
	gc_cuda_free(s->send1);
	gc_cuda_free(s->recv1);
	gc_cuda_free(s->sum);
	gc_cuda_free(s->t0);
	gc_cuda_free(s->t1);
	free(s);
	b->st = NULL;
}

/* The buckets of chunks [j0, j1) with slot j at byte (j - j0) * slot of the output. */
static gc_rc cgx_table(gc_bucket *b, int j0, int j1, cgx_qb **dt, size_t *nq, gc_err *e)
{
	struct cgx_cu *s = (struct cgx_cu *)b->st;
	size_t d = (size_t)b->p.bucket_size, fb = (d * (size_t)b->p.bits + 7) / 8, n = 0, k = 0;
	cgx_qb *t;
	gc_rc rc;
	for (int j = j0; j < j1; j++) {
		size_t a, z;
		gc_cgx_chunk(b->numel, b->world, j, &a, &z);
		n += (z - a + d - 1) / d;
	}
	t = (cgx_qb *)calloc(n ? n : 1, sizeof(*t));
	if (!t)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the cgx bucket table: out of memory");
	for (int j = j0; j < j1; j++) {
		size_t a, z, nb;
		gc_cgx_chunk(b->numel, b->world, j, &a, &z);
		nb = (z - a + d - 1) / d;
		for (size_t q = 0; q < nb; q++, k++) {
			size_t base = (size_t)(j - j0) * s->slot;
			t[k].begin = a + q * d;
			t[k].end = a + q * d + d < z ? a + q * d + d : z;
			t[k].meta = base + 8 * q;
			t[k].codes = base + 8 * nb + q * fb;
		}
	}
	*nq = n;
	rc = gc_cu_malloc((void **)dt, (n ? n : 1) * sizeof(*t), "the cgx bucket table", e);
	if (!rc && cudaMemcpy(*dt, t, n * sizeof(*t), cudaMemcpyHostToDevice) != cudaSuccess)
		rc = gc_fail(e, GC_E_CUDA, "cannot copy the cgx bucket table to the GPU");
	free(t);
	return rc;
}

static gc_rc cgx_init(gc_bucket *b, gc_err *e)
{
	struct cgx_cu *s = (struct cgx_cu *)calloc(1, sizeof(*s));
	size_t p = (size_t)b->world, m = (b->numel + p - 1) / p;
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the cgx state: out of memory");
	b->st = s;
	s->slot = gc_cgx_slot(b->numel, b->world, b->p.bits, (size_t)b->p.bucket_size);
	rc = gc_cu_malloc((void **)&s->send0, p * s->slot + 8, "the cgx chunks", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv0, p * s->slot + 8, "the cgx received chunks", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->send1, s->slot + 8, "the cgx requantized chunk", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv1, p * s->slot + 8, "the cgx gathered chunks", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->sum, (m ? m : 1) * sizeof(float), "the cgx sum", e);
	if (!rc)
		rc = cgx_table(b, 0, b->world, &s->t0, &s->n0, e);
	if (!rc)
		rc = cgx_table(b, b->worker, b->worker + 1, &s->t1, &s->n1, e);
	if (!rc && (cudaMemsetAsync(s->send0, 0, p * s->slot + 8, st) != cudaSuccess ||
		    cudaMemsetAsync(s->send1, 0, s->slot + 8, st) != cudaSuccess))
		rc = gc_fail(e, GC_E_CUDA, "cannot clear the cgx buffers on the GPU");
	if (rc)
		cgx_release(b);
	return rc;
}

static gc_rc cgx_encode(gc_bucket *b, const float *grad)
{
	struct cgx_cu *s = (struct cgx_cu *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = GC_OK;
	if (s->n0) {
		k_cgx_quant<<<(unsigned)s->n0, 256, 0, st>>>(grad, 0, s->t0, s->send0, b->p.bits,
			gc_rng_key(b->p.seed, 0, b->step), (unsigned long long)b->worker << 32);
		GC_CUDA_LAUNCHED();
	}
	gc_round_bind(b, s->send0, s->recv0, s->send1, s->recv1);
out:
	return rc;
}

static gc_rc cgx_round_done(gc_bucket *b)
{
	struct cgx_cu *s = (struct cgx_cu *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	size_t a, z;
	gc_rc rc = GC_OK;
	if (b->cur != 0)
		return GC_OK;
	gc_cgx_chunk(b->numel, b->world, b->worker, &a, &z);
	if (z > a) {
		k_cgx_sum<<<gc_cu_grid(z - a, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(s->recv0,
			s->slot, b->world, z - a, b->p.bits, (unsigned long long)b->p.bucket_size, s->sum);
		GC_CUDA_LAUNCHED();
		k_cgx_quant<<<(unsigned)s->n1, 256, 0, st>>>(s->sum, a, s->t1, s->send1, b->p.bits,
			gc_rng_key(b->p.seed, 1, b->step), 0);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

static gc_rc cgx_decode(gc_bucket *b, float *avg)
{
	struct cgx_cu *s = (struct cgx_cu *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = GC_OK;
	for (int j = 0; j < b->world; j++) {
		size_t a, z;
		gc_cgx_chunk(b->numel, b->world, j, &a, &z);
		if (z == a)
			continue;
		k_cgx_decode<<<gc_cu_grid(z - a, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			s->recv1 + (size_t)j * s->slot, z - a, b->p.bits,
			(unsigned long long)b->p.bucket_size, (float)b->world, avg + a);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

const struct gc_method_ops gc_cu_cgx_ops = {
	cgx_init, cgx_encode, cgx_round_done, cgx_decode, NULL, cgx_release,
};
