/* tools/gpu-check/cblas/cblas_shim.c: see cblas.h beside it. */
#include "cblas.h"

#include <stddef.h>

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m,
		 int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,
		 float beta, float *c, int ldc)
{
	(void)order;                   /* row-major */
	#pragma omp parallel for
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			float s = 0.0f;
			for (int p = 0; p < k; p++) {
				float x = ta == CblasNoTrans ? a[(size_t)i * lda + p] : a[(size_t)p * lda + i];
				float y = tb == CblasNoTrans ? b[(size_t)p * ldb + j] : b[(size_t)j * ldb + p];
				s += x * y;
			}
			c[(size_t)i * ldc + j] = alpha * s + (beta == 0.0f ? 0.0f : beta * c[(size_t)i * ldc + j]);
		}
}

void cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy)
{
	#pragma omp parallel for
	for (int i = 0; i < n; i++)
		y[(size_t)i * incy] += alpha * x[(size_t)i * incx];
}

void openblas_set_num_threads(int n)
{
	(void)n;
}
