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

#ifdef __cplusplus
extern "C" {
#endif

#include "result.h"

enum gc_cuda_copy_kind { GC_CUDA_H2D = 0, GC_CUDA_D2H = 1, GC_CUDA_D2D = 2 };

/* Number of usable CUDA devices; 0 without a driver or device. Prints nothing. */
int gc_cuda_device_count(void);

/* Allocate bytes of device memory into *p (caller frees with gc_cuda_free). bytes == 0
 * gives *p = NULL and GC_OK. */
gc_rc gc_cuda_alloc(void **p, size_t bytes);
void gc_cuda_free(void *p);                    /* accepts NULL */

/* Copy bytes, kind GC_CUDA_H2D, D2H or D2D, queued on stream. Host memory that is
 * not pinned makes the copy synchronous for the host, as cudaMemcpyAsync does. */
gc_rc gc_cuda_copy(void *dst, const void *src, size_t bytes, int kind, void *stream);

/* Wait until everything queued on stream is done; reports errors of earlier kernels. */
gc_rc gc_cuda_sync(void *stream);

/* Measure the SM clock (cycles of clock64() per second) by timing a spin kernel of a
 * known number of cycles with CUDA events; gc_cuda_spin uses the result. Without it
 * gc_cuda_spin calibrates on first use. Not thread-safe: call once before threads. */
gc_rc gc_cuda_spin_calibrate(void);

/* Queue a kernel on stream that keeps every SM of the current device busy (all
 * resident blocks spinning on clock64() with arithmetic) for about seconds; returns
 * after queuing, without waiting. seconds <= 0 queues nothing. Used to emulate
 * backward compute so that it contends with the compression kernels. */
gc_rc gc_cuda_spin(double seconds, void *stream);

/* The calibrated rate in cycles per second (0 before calibration). */
double gc_cuda_spin_rate(void);

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
