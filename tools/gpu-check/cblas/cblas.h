/* tools/gpu-check/cblas/cblas.h: the few CBLAS calls gcbench-worker makes, for a GPU machine
 * without OpenBLAS (tools/gpu-check.sh builds the worker with CBLAS_SHIM=1). Plain
 * loops in cblas_shim.c: correct, not fast; the NCCL back end uses cuBLAS instead. */
#ifndef GC_CBLAS_SHIM_H
#define GC_CBLAS_SHIM_H

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };

/* C = alpha op(A) op(B) + beta C, row-major only (the worker's only use). */
void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m,
		 int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,
		 float beta, float *c, int ldc);
/* y += alpha x */
void cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy);
void openblas_set_num_threads(int n);  /* no-op */

#endif
