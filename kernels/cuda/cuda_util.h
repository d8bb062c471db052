/* kernels/cuda/cuda_util.h: a plain C API over the CUDA runtime for the rest of gcbench.
 *
 * Includable from C compiled by gcc: no CUDA types appear here (streams are void *,
 * a cudaStream_t; NULL is the default stream). Every function that can fail returns
 * GC_E_CUDA after logging one message with gc_error() (file, line, the CUDA error
 * string); GC_E_UNSUPPORTED where no device is usable. Only built when CUDA=1.
 */
#ifndef GC_CUDA_UTIL_H
#define GC_CUDA_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "result.h"

enum gc_cuda_copy_kind { GC_CUDA_H2D = 0, GC_CUDA_D2H = 1, GC_CUDA_D2D = 2 };

/* Number of usable CUDA devices; 0 without a driver or device. Prints nothing. */
int gc_cuda_device_count(void);

/* Like gc_cuda_device_count, and why: with no device, msg (n bytes) gets the CUDA error
 * of cudaGetDeviceCount and the driver and runtime versions ("cudaGetDeviceCount:
 * CUDA driver version is insufficient for CUDA runtime version (driver 12020, runtime
 * 13000)"); with devices, the name of device 0 and the same versions. Prints nothing. */
int gc_cuda_probe(char *msg, size_t n);

/* 1 when the environment says a GPU must be there (GCBENCH_EXPECT_GPU=1, set by
 * tools/gpu-check.sh): tests then fail instead of skipping without a device. */
int gc_cuda_expected(void);

/* A new non-blocking stream (no implicit synchronization with the legacy default
 * stream) into *s; free with gc_cuda_stream_free (NULL-safe). */
gc_rc gc_cuda_stream_new(void **s);
void gc_cuda_stream_free(void *s);

/* 1 if everything queued on stream is done, 0 if not yet, -1 on an error (logged). */
int gc_cuda_stream_done(void *stream);

/* Allocate bytes of device memory into *p (caller frees with gc_cuda_free). bytes == 0
 * gives *p = NULL and GC_OK. */
gc_rc gc_cuda_alloc(void **p, size_t bytes);
void gc_cuda_free(void *p);                    /* accepts NULL */

/* Copy bytes, kind GC_CUDA_H2D, D2H or D2D, queued on stream. Host memory that is
 * not pinned makes the copy synchronous for the host, as cudaMemcpyAsync does. */
gc_rc gc_cuda_copy(void *dst, const void *src, size_t bytes, int kind, void *stream);

/* Wait until everything queued on stream is done; reports errors of earlier kernels. */
gc_rc gc_cuda_sync(void *stream);

/* Timing events (cudaEvent_t as void *): new into *ev, free (NULL-safe), record on a
 * stream (NULL: the default stream), and the milliseconds from a to b (waits for b;
 * both recorded). The device's own clock for work of 10 us and more, where a host
 * clock around a synchronization adds the launch and wake-up latencies. */
gc_rc gc_cuda_event_new(void **ev);
void gc_cuda_event_free(void *ev);
gc_rc gc_cuda_event_record(void *ev, void *stream);
gc_rc gc_cuda_event_ms(void *a, void *b, double *ms);

/* Set up the spin kernel on the current device (blocks of one resident wave, the
 * device slots of the launch start times) and warm it up; gc_cuda_spin does it on
 * first use. Not thread-safe: call once before threads, on the device the spins run on. */
gc_rc gc_cuda_spin_calibrate(void);

/* Queue a kernel on stream that keeps every SM of the current device busy (one wave of
 * resident blocks doing dependent FMAs) for about seconds; returns after queuing,
 * without waiting. All blocks end at one absolute deadline on the GPU's global timer
 * (%globaltimer): the first block to start sets it, so blocks that could only start in
 * a second wave (another kernel holds SMs) end with the rest instead of spinning a
 * second full period. seconds <= 0 queues nothing. Used to emulate backward compute
 * so that it contends with the compression kernels. */
gc_rc gc_cuda_spin(double seconds, void *stream);

/* gc_cuda_spin with waves x one resident wave of blocks (waves > 1: the blocks past the
 * first wave start only as others end, as beside another kernel); for the tests. */
gc_rc gc_cuda_spin_waves(double seconds, double waves, void *stream);

/* Blocks per spin launch (one resident wave); 0 before setup. */
unsigned gc_cuda_spin_blocks(void);

/* Queue out[i] = gc_rng_unit24(key, first + i) for i < n (device memory) on stream:
 * the counter-based generator of kernels/rng.h, the host's bits. */
gc_rc gc_cuda_rng_unit24(uint64_t key, uint64_t first, float *out, size_t n, void *stream);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_runtime.h>
extern "C" {
#include "log.h"
}
/* For .cu files: with `gc_rc rc = GC_OK;` in scope and a label `out:` that frees what
 * was taken, check a CUDA runtime call; on error log "cuda call ... failed at
 * file:line: reason", set rc = GC_E_CUDA and jump to out. Declare variables before
 * the first check (C++ forbids jumping over initializations). */
#define GC_CUDA_CHECK(call) do { \
	cudaError_t gc_ce_ = (call); \
	if (gc_ce_ != cudaSuccess) { \
		gc_error("cuda call '%s' failed at %s:%d: %s", #call, __FILE__, __LINE__, \
			 cudaGetErrorString(gc_ce_)); \
		rc = GC_E_CUDA; \
		goto out; \
	} \
} while (0)
/* After a kernel launch <<<...>>>: check the launch itself. */
#define GC_CUDA_LAUNCHED() GC_CUDA_CHECK(cudaGetLastError())
#endif

#endif
