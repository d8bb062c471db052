/* kernels/cuda/cuda_util.cu: the plain C API of cuda_util.h and the shared pieces of
 * cu_common.cuh (chunk table, |x| statistics, elementwise helpers, the spin kernel). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"

extern "C" int gc_cuda_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		(void)cudaGetLastError();      /* clear the sticky "no driver" error */
		return 0;
	}
	return n;
}

extern "C" int gc_cuda_probe(char *msg, size_t n)
{
	int drv = 0, rt = 0, count = 0;
	cudaError_t ce = cudaGetDeviceCount(&count);
	(void)cudaDriverGetVersion(&drv);          /* 0 when no driver is loaded */
	(void)cudaRuntimeGetVersion(&rt);
	if (ce != cudaSuccess || count < 1) {
		snprintf(msg, n, "cudaGetDeviceCount: %s (%d devices; driver %d, runtime %d; "
			 "a driver older than the runtime, or no NVIDIA driver, gives no device)",
			 ce != cudaSuccess ? cudaGetErrorString(ce) : "no error", count, drv, rt);
		(void)cudaGetLastError();
		return 0;
	}
	{
		cudaDeviceProp pr;
		if (cudaGetDeviceProperties(&pr, 0) != cudaSuccess)
			pr.name[0] = 0, pr.major = pr.minor = 0;
		snprintf(msg, n, "%d device%s, device 0 '%s' (sm_%d%d); driver %d, runtime %d", count,
			 count == 1 ? "" : "s", pr.name, pr.major, pr.minor, drv, rt);
	}
	return count;
}

extern "C" int gc_cuda_expected(void)
{
	const char *v = getenv("GCBENCH_EXPECT_GPU");
	return v && !strcmp(v, "1");
}

extern "C" gc_rc gc_cuda_stream_new(void **s)
{
	gc_rc rc = GC_OK;
	cudaStream_t st = NULL;
	*s = NULL;
	GC_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	*s = st;
out:
	return rc;
}

extern "C" void gc_cuda_stream_free(void *s)
{
	if (s)
		(void)cudaStreamDestroy((cudaStream_t)s);
}

extern "C" int gc_cuda_stream_done(void *stream)
{
	cudaError_t ce = cudaStreamQuery((cudaStream_t)stream);
	if (ce == cudaSuccess)
		return 1;
	if (ce == cudaErrorNotReady)
		return 0;
	gc_error("cuda call 'cudaStreamQuery' failed: %s", cudaGetErrorString(ce));
	return -1;
}

extern "C" gc_rc gc_cuda_alloc(void **p, size_t bytes)
{
	gc_rc rc = GC_OK;
	*p = NULL;
	if (bytes == 0)
		return GC_OK;
	GC_CUDA_CHECK(cudaMalloc(p, bytes));
out:
	if (rc)
		*p = NULL;
	return rc;
}

extern "C" void gc_cuda_free(void *p)
{
	if (p)
		(void)cudaFree(p);
}

extern "C" gc_rc gc_cuda_copy(void *dst, const void *src, size_t bytes, int kind, void *stream)
{
	static const cudaMemcpyKind k[3] = { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
					     cudaMemcpyDeviceToDevice };
	gc_rc rc = GC_OK;
	if (kind < 0 || kind > 2)
		return GC_E_INVAL;
	if (bytes == 0)
		return GC_OK;
	GC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, k[kind], (cudaStream_t)stream));
out:
	return rc;
}

extern "C" gc_rc gc_cuda_sync(void *stream)
{
	gc_rc rc = GC_OK;
	GC_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
out:
	return rc;
}

extern "C" gc_rc gc_cuda_event_new(void **ev)
{
	gc_rc rc = GC_OK;
	cudaEvent_t e = NULL;
	*ev = NULL;
	GC_CUDA_CHECK(cudaEventCreate(&e));
	*ev = e;
out:
	return rc;
}

extern "C" void gc_cuda_event_free(void *ev)
{
	if (ev)
		(void)cudaEventDestroy((cudaEvent_t)ev);
}

extern "C" gc_rc gc_cuda_event_record(void *ev, void *stream)
{
	gc_rc rc = GC_OK;
	GC_CUDA_CHECK(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)stream));
out:
	return rc;
}

extern "C" gc_rc gc_cuda_event_ms(void *a, void *b, double *ms)
{
	gc_rc rc = GC_OK;
	float f = 0;
	*ms = 0;
	GC_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)b));
	GC_CUDA_CHECK(cudaEventElapsedTime(&f, (cudaEvent_t)a, (cudaEvent_t)b));
	*ms = f;
out:
	return rc;
}

unsigned gc_cu_grid(size_t n, unsigned threads)
{
	static int sms;                /* same device for the whole process */
	size_t need = (n + threads - 1) / threads, cap;
	if (!sms) {
		int dev = 0, v = 0;
		if (cudaGetDevice(&dev) == cudaSuccess &&
		    cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess)
			sms = v;
		else
			sms = 108;
	}
	cap = (size_t)sms * 8;
	if (need > cap)
		need = cap;
	return need ? (unsigned)need : 1u;
}

/* ---- chunk table ---------------------------------------------------------- */

static size_t chunks_count(const gc_bucket *b, int per_tensor)
{
	size_t i, n = 0;
	if (!per_tensor)
		return (b->numel + GC_CU_CHUNK - 1) / GC_CU_CHUNK;
	for (i = 0; i < b->nt; i++)
		n += (b->off[i + 1] - b->off[i] + GC_CU_CHUNK - 1) / GC_CU_CHUNK;
	return n;
}

/* Fill the host tables: chunks, first chunk and offset per segment. */
static void chunks_fill(const gc_bucket *b, int per_tensor, gc_cu_chunk *ch, unsigned *first,
			unsigned long long *off)
{
	size_t s, nseg = per_tensor ? b->nt : 1, n = 0;
	for (s = 0; s < nseg; s++) {
		size_t lo = per_tensor ? b->off[s] : 0, hi = per_tensor ? b->off[s + 1] : b->numel;
		size_t i;
		first[s] = (unsigned)n;
		off[s] = lo;
		for (i = lo; i < hi; i += GC_CU_CHUNK) {
			ch[n].begin = i;
			ch[n].end = i + GC_CU_CHUNK < hi ? i + GC_CU_CHUNK : hi;
			ch[n].seg = (unsigned)s;
			n++;
		}
	}
	first[nseg] = (unsigned)n;
	off[nseg] = per_tensor ? b->off[nseg] : b->numel;
}

gc_rc gc_cu_chunks_init(gc_cu_chunks *c, const gc_bucket *b, int per_tensor, gc_err *e)
{
	gc_rc rc = GC_OK;
	size_t nseg = per_tensor ? b->nt : 1;
	size_t n = chunks_count(b, per_tensor);
	gc_cu_chunk *ch = (gc_cu_chunk *)calloc(n ? n : 1, sizeof(*ch));
	unsigned *first = (unsigned *)calloc(nseg + 1, sizeof(*first));
	unsigned long long *off = (unsigned long long *)calloc(nseg + 1, sizeof(*off));
	cudaStream_t st = gc_cu_stream(b);
	memset(c, 0, sizeof(*c));
	if (!ch || !first || !off) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the chunk table of %zu chunks: out of memory", n);
		goto out;
	}
	chunks_fill(b, per_tensor, ch, first, off);
	c->n = n;
	c->nseg = nseg;
	GC_CUDA_CHECK(cudaMalloc(&c->d, (n ? n : 1) * sizeof(*ch)));
	GC_CUDA_CHECK(cudaMalloc(&c->d_first, (nseg + 1) * sizeof(*first)));
	GC_CUDA_CHECK(cudaMalloc(&c->d_off, (nseg + 1) * sizeof(*off)));
	GC_CUDA_CHECK(cudaMalloc(&c->d_psum, (n ? n : 1) * sizeof(double)));
	GC_CUDA_CHECK(cudaMalloc(&c->d_pmax, (n ? n : 1) * sizeof(unsigned)));
	/* On the bucket's stream, then waited for: a non-blocking stream does not order
	 * itself after the legacy default stream, and the host tables are freed below. */
	GC_CUDA_CHECK(cudaMemcpyAsync(c->d, ch, n * sizeof(*ch), cudaMemcpyHostToDevice, st));
	GC_CUDA_CHECK(cudaMemcpyAsync(c->d_first, first, (nseg + 1) * sizeof(*first),
				      cudaMemcpyHostToDevice, st));
	GC_CUDA_CHECK(cudaMemcpyAsync(c->d_off, off, (nseg + 1) * sizeof(*off), cudaMemcpyHostToDevice, st));
	GC_CUDA_CHECK(cudaStreamSynchronize(st));
out:
	if (rc == GC_E_CUDA)
		gc_fail(e, rc, "cannot set up the chunk table on the GPU (see the CUDA error above)");
	if (rc)
		gc_cu_chunks_release(c);
	free(ch);
	free(first);
	free(off);
	return rc;
}

void gc_cu_chunks_release(gc_cu_chunks *c)
{
	if (!c)
		return;
	gc_cuda_free(c->d);
	gc_cuda_free(c->d_first);
	gc_cuda_free(c->d_off);
	gc_cuda_free(c->d_psum);
	gc_cuda_free(c->d_pmax);
	memset(c, 0, sizeof(*c));
}

/* ---- |x| statistics ------------------------------------------------------- */

/* One block per chunk: partial double sum and max of |x|. */
__global__ void k_chunk_absstats(const gc_cu_chunk *ch, const float *__restrict__ x,
				 double *psum, unsigned *pmax)
{
	__shared__ double shs[32];
	__shared__ unsigned shm[32];
	gc_cu_chunk c = ch[blockIdx.x];
	double s = 0.0;
	unsigned m = 0;
	for (unsigned long long i = c.begin + threadIdx.x; i < c.end; i += blockDim.x) {
		float v = x[i];
		s += (double)fabsf(v);
		m = max(m, gc_abs_key(v));
	}
	s = gc_block_sum(s, shs);
	m = gc_block_umax(m, shm);
	if (threadIdx.x == 0) {
		psum[blockIdx.x] = s;
		pmax[blockIdx.x] = m;
	}
}

/* One warp per segment: add its chunks' partials in a fixed order. */
__global__ void k_seg_absstats(const unsigned *first, const unsigned long long *off, size_t nseg,
			       const double *psum, const unsigned *pmax, float *mean_out, float *max_out)
{
	size_t s = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	double sum = 0.0;
	unsigned m = 0;
	if (s >= nseg)
		return;                /* whole warps leave together */
	for (unsigned j = first[s] + lane; j < first[s + 1]; j += 32) {
		sum += psum[j];
		m = max(m, pmax[j]);
	}
	sum = gc_warp_sum(sum);
	m = gc_warp_umax(m);
	if (lane == 0) {
		unsigned long long n = off[s + 1] - off[s];
		if (mean_out)
			mean_out[s] = n ? (float)(sum / (double)n) : 0.0f;
		if (max_out)
			max_out[s] = __uint_as_float(m);
	}
}

gc_rc gc_cu_absstats(const gc_cu_chunks *c, const float *x, float *mean_out, float *max_out,
		     cudaStream_t stream)
{
	gc_rc rc = GC_OK;
	unsigned wpb = 4;              /* warps (segments) per block of the second kernel */
	if (c->n) {
		k_chunk_absstats<<<(unsigned)c->n, GC_CU_THREADS, 0, stream>>>(c->d, x, c->d_psum, c->d_pmax);
		GC_CUDA_LAUNCHED();
	}
	k_seg_absstats<<<(unsigned)((c->nseg + wpb - 1) / wpb), 32 * wpb, 0, stream>>>(
		c->d_first, c->d_off, c->nseg, c->d_psum, c->d_pmax, mean_out, max_out);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

/* ---- elementwise ---------------------------------------------------------- */

static bool aligned16(const void *p)
{
	return ((uintptr_t)p & 15u) == 0;
}

__global__ void k_add4(float4 *y, const float4 *a, const float4 *b, size_t n4)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
		float4 u = a[i], v = b[i];
		y[i] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
	}
}

__global__ void k_add(float *y, const float *a, const float *b, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		y[i] = a[i] + b[i];
}

gc_rc gc_cu_add(float *y, const float *a, const float *b, size_t n, cudaStream_t stream)
{
	gc_rc rc = GC_OK;
	size_t n4 = 0;
	if (aligned16(y) && aligned16(a) && aligned16(b) && n >= 4) {
		n4 = n / 4;
		k_add4<<<gc_cu_grid(n4, GC_CU_THREADS), GC_CU_THREADS, 0, stream>>>(
			(float4 *)y, (const float4 *)a, (const float4 *)b, n4);
		GC_CUDA_LAUNCHED();
	}
	if (n > 4 * n4) {
		k_add<<<gc_cu_grid(n - 4 * n4, GC_CU_THREADS), GC_CU_THREADS, 0, stream>>>(
			y + 4 * n4, a + 4 * n4, b + 4 * n4, n - 4 * n4);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

__global__ void k_div4(float4 *y, const float4 *x, float p, size_t n4)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
		float4 u = x[i];
		y[i] = make_float4(u.x / p, u.y / p, u.z / p, u.w / p);
	}
}

__global__ void k_div(float *y, const float *x, float p, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		y[i] = x[i] / p;
}

gc_rc gc_cu_div(float *y, const float *x, float p, size_t n, cudaStream_t stream)
{
	gc_rc rc = GC_OK;
	size_t n4 = 0;
	if (aligned16(y) && aligned16(x) && n >= 4) {
		n4 = n / 4;
		k_div4<<<gc_cu_grid(n4, GC_CU_THREADS), GC_CU_THREADS, 0, stream>>>(
			(float4 *)y, (const float4 *)x, p, n4);
		GC_CUDA_LAUNCHED();
	}
	if (n > 4 * n4) {
		k_div<<<gc_cu_grid(n - 4 * n4, GC_CU_THREADS), GC_CU_THREADS, 0, stream>>>(
			y + 4 * n4, x + 4 * n4, p, n - 4 * n4);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

gc_rc gc_cu_malloc(void **p, size_t bytes, const char *what, gc_err *e)
{
	cudaError_t ce;
	*p = NULL;
	if (bytes == 0)
		return GC_OK;
	ce = cudaMalloc(p, bytes);
	if (ce != cudaSuccess) {
		*p = NULL;
		(void)cudaGetLastError();
		return gc_fail(e, GC_E_CUDA, "cannot allocate %zu bytes of GPU memory for %s: %s",
			       bytes, what, cudaGetErrorString(ce));
	}
	return GC_OK;
}
