/* kernels/cuda/spin.cu: emulated backward compute that really occupies the SMs.
 *
 * k_spin runs one full wave of resident blocks (SMs x the occupancy limit); every
 * thread does dependent FMAs until clock64() has advanced by the requested cycles, so
 * the SMs' issue slots and warp slots are taken as a real backward kernel would take
 * them. The cycles per second of clock64() are measured once with CUDA events
 * (gc_cuda_spin_calibrate), starting from the device's reported peak clock.
 */
#include "kernels/cuda/cu_common.cuh"

#define SPIN_THREADS 256

static double g_rate;                  /* measured clock64() cycles per second */
static unsigned g_blocks;              /* blocks of one full resident wave */

__global__ void k_spin(long long cycles, float *sink)
{
	long long t0 = clock64();
	float a = (float)threadIdx.x * 1e-3f;
	while (clock64() - t0 < cycles) {
#pragma unroll
		for (int i = 0; i < 32; i++)
			a = fmaf(a, 0.999999f, 1e-7f);
	}
	if (a == -1.0f)                /* never true; keeps the arithmetic alive */
		*sink = a;
}

static gc_rc spin_setup(void)
{
	gc_rc rc = GC_OK;
	int dev = 0, sms = 0, per_sm = 0;
	GC_CUDA_CHECK(cudaGetDevice(&dev));
	GC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	GC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_spin, SPIN_THREADS, 0));
	g_blocks = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
out:
	return rc;
}

static gc_rc spin_launch(long long cycles, cudaStream_t stream)
{
	gc_rc rc = GC_OK;
	k_spin<<<g_blocks, SPIN_THREADS, 0, stream>>>(cycles, NULL);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

/* Time one spin of `cycles` with events, in seconds. */
static gc_rc spin_time(long long cycles, double *sec)
{
	gc_rc rc = GC_OK;
	cudaEvent_t a = NULL, b = NULL;
	float ms = 0.0f;
	GC_CUDA_CHECK(cudaEventCreate(&a));
	GC_CUDA_CHECK(cudaEventCreate(&b));
	GC_CUDA_CHECK(cudaEventRecord(a, 0));
	rc = spin_launch(cycles, 0);
	if (rc)
		goto out;
	GC_CUDA_CHECK(cudaEventRecord(b, 0));
	GC_CUDA_CHECK(cudaEventSynchronize(b));
	GC_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
	*sec = ms * 1e-3;
out:
	if (a)
		(void)cudaEventDestroy(a);
	if (b)
		(void)cudaEventDestroy(b);
	return rc;
}

extern "C" gc_rc gc_cuda_spin_calibrate(void)
{
	gc_rc rc = GC_OK;
	int dev = 0, khz = 0, i;
	double guess, t[3], tmp;
	long long cycles;
	rc = spin_setup();
	if (rc)
		return rc;
	GC_CUDA_CHECK(cudaGetDevice(&dev));
	GC_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
	guess = khz > 0 ? khz * 1e3 : 1.5e9;
	cycles = (long long)(guess * 0.02);            /* about 20 ms */
	rc = spin_time(cycles / 10, &tmp);             /* warm up (clocks ramp) */
	for (i = 0; !rc && i < 3; i++)
		rc = spin_time(cycles, &t[i]);
	if (rc)
		goto out;
	/* median of three */
	tmp = t[0] > t[1] ? (t[1] > t[2] ? t[1] : (t[0] > t[2] ? t[2] : t[0]))
			  : (t[0] > t[2] ? t[0] : (t[1] > t[2] ? t[2] : t[1]));
	g_rate = tmp > 0 ? (double)cycles / tmp : guess;
out:
	return rc;
}

extern "C" gc_rc gc_cuda_spin(double seconds, void *stream)
{
	gc_rc rc = GC_OK;
	if (seconds <= 0)
		return GC_OK;
	if (g_rate <= 0) {
		rc = gc_cuda_spin_calibrate();
		if (rc)
			return rc;
	}
	return spin_launch((long long)(seconds * g_rate), (cudaStream_t)stream);
}

extern "C" double gc_cuda_spin_rate(void)
{
	return g_rate;
}
