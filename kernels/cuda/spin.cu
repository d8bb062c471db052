/* kernels/cuda/spin.cu: emulated backward compute that really occupies the SMs.
 *
 * k_spin runs one full wave of resident blocks (SMs x the occupancy limit); every
 * thread does dependent FMAs until one absolute deadline on the GPU's nanosecond global
 * timer (%globaltimer), so the SMs' issue slots and warp slots are taken as a real
 * backward kernel would take them. The deadline is set by the first block of a launch
 * to start (start + ns) in a device slot of that launch; blocks that start later, say
 * in a second wave because another kernel (NCCL's, a compressor's) holds part of the
 * SMs, read the same deadline and end with the others. A calibrated clock64() count
 * per thread, timed from each block's own start, made such a launch take twice as long.
 *
 * Slots: a ring of SPIN_SLOTS {deadline, blocks done}; launch i uses slot i % SPIN_SLOTS
 * and its last block to finish clears it for the launch SPIN_SLOTS later.
 */
#include "cu_common.cuh"

#define SPIN_THREADS 256
#define SPIN_SLOTS 1024

struct spin_slot {
	unsigned long long deadline;   /* 0: not yet started */
	unsigned int done;             /* blocks finished */
	unsigned int pad;
};

static unsigned g_blocks;              /* blocks of one full resident wave */
static spin_slot *g_slots;             /* SPIN_SLOTS (device), zeroed */
static unsigned long long g_next;      /* next slot (atomic) */

__device__ __forceinline__ unsigned long long gc_globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void k_spin(unsigned long long ns, spin_slot *slot, float *sink)
{
	__shared__ unsigned long long dl;
	float a = (float)threadIdx.x * 1e-3f;
	long long c0 = clock64(), cmax = (long long)(ns < (1ull << 60) / 4 ? ns * 4 : 1ull << 60);
	if (threadIdx.x == 0) {
		unsigned long long mine = gc_globaltimer() + ns;
		unsigned long long old = atomicCAS(&slot->deadline, 0ull, mine);
		/* never past this block's own start + ns: a stale deadline left in the slot (a
		 * launch killed before its last block cleared it) cannot make it spin longer */
		dl = old && old < mine ? old : mine;
	}
	__syncthreads();
	/* the safety bound: 4 cycles per requested ns (at least 2x the time at 2 GHz), in
	 * case the global timer does not advance */
	while (gc_globaltimer() < dl && clock64() - c0 < cmax) {
#pragma unroll
		for (int i = 0; i < 32; i++)
			a = fmaf(a, 0.999999f, 1e-7f);
	}
	if (a == -1.0f)                /* never true; keeps the arithmetic alive */
		*sink = a;
	__syncthreads();
	if (threadIdx.x == 0 && atomicAdd(&slot->done, 1u) == gridDim.x - 1) {
		slot->deadline = 0;    /* every block has read it: free for reuse */
		slot->done = 0;
	}
}

static gc_rc spin_setup(void)
{
	gc_rc rc = GC_OK;
	int dev = 0, sms = 0, per_sm = 0;
	GC_CUDA_CHECK(cudaGetDevice(&dev));
	GC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	GC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_spin, SPIN_THREADS, 0));
	if (!g_slots) {
		GC_CUDA_CHECK(cudaMalloc(&g_slots, SPIN_SLOTS * sizeof(*g_slots)));
		GC_CUDA_CHECK(cudaMemset(g_slots, 0, SPIN_SLOTS * sizeof(*g_slots)));
		GC_CUDA_CHECK(cudaDeviceSynchronize());
	}
	g_blocks = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
out:
	return rc;
}

static gc_rc spin_launch(unsigned long long ns, unsigned blocks, cudaStream_t stream)
{
	gc_rc rc = GC_OK;
	unsigned long long i = __atomic_fetch_add(&g_next, 1ull, __ATOMIC_RELAXED) % SPIN_SLOTS;
	k_spin<<<blocks ? blocks : 1u, SPIN_THREADS, 0, stream>>>(ns, g_slots + i, NULL);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

extern "C" gc_rc gc_cuda_spin_calibrate(void)
{
	gc_rc rc = spin_setup();
	if (rc)
		return rc;
	rc = spin_launch(2000000ull, g_blocks, 0);     /* 2 ms warm-up (clocks ramp) */
	if (rc)
		return rc;
	GC_CUDA_CHECK(cudaStreamSynchronize(0));
out:
	return rc;
}

extern "C" gc_rc gc_cuda_spin_waves(double seconds, double waves, void *stream)
{
	gc_rc rc = GC_OK;
	if (seconds <= 0 || waves <= 0)
		return GC_OK;
	if (!g_slots) {
		rc = gc_cuda_spin_calibrate();
		if (rc)
			return rc;
	}
	return spin_launch((unsigned long long)(seconds * 1e9 + 0.5), (unsigned)(g_blocks * waves + 0.5),
			   (cudaStream_t)stream);
}

extern "C" gc_rc gc_cuda_spin(double seconds, void *stream)
{
	return gc_cuda_spin_waves(seconds, 1.0, stream);
}

extern "C" unsigned gc_cuda_spin_blocks(void)
{
	return g_blocks;
}
