/* kernels/cuda/cublas_load.h: cuBLAS, loaded on first use.
 *
 * Linking libcublas costs every process ~70-85 ms of CPU at start, GPU or not (the
 * static initializers of libcublasLt page in its tables): every `gcbench` command and
 * every CPU rank of a point paid it (docs/measurements.md, "Per-point overhead").
 * gc_cublas() opens libcublas.so.MAJOR (the major version of the headers built
 * against) the first time a GPU method needs it and resolves the entry points gcbench
 * calls; nothing else links the library. Thread-safe. Only built when CUDA=1.
 */
#ifndef GC_CUBLAS_LOAD_H
#define GC_CUBLAS_LOAD_H

#include <cublas_v2.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "result.h"

struct gc_cublas_api {
	cublasStatus_t (*create)(cublasHandle_t *h);
	cublasStatus_t (*destroy)(cublasHandle_t h);
	cublasStatus_t (*set_stream)(cublasHandle_t h, cudaStream_t s);
	cublasStatus_t (*set_math_mode)(cublasHandle_t h, cublasMath_t mode);
	cublasStatus_t (*sgemm_64)(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
				   int64_t m, int64_t n, int64_t k, const float *alpha,
				   const float *a, int64_t lda, const float *b, int64_t ldb,
				   const float *beta, float *c, int64_t ldc);
	cublasStatus_t (*saxpy_64)(cublasHandle_t h, int64_t n, const float *alpha,
				   const float *x, int64_t incx, float *y, int64_t incy);
	const char *(*status_string)(cublasStatus_t s);
};

/* The loaded API, or NULL with e set (GC_E_CUDA: the library or an entry point is
 * missing, named with what to install). Loads once; later calls return the same. */
const struct gc_cublas_api *gc_cublas(gc_err *e);

#ifdef __cplusplus
}
#endif

#endif
