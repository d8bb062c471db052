/* worker/wk_fill.c: a replay rank's gradients (wk_fill.h). */
#include "wk_fill.h"

/* Wellons' lowbias32: two multiplies and three xor-shifts, full avalanche. */
static inline uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

#define FILL_BLOCK ((size_t)1 << 16)    /* elements per block: the counter's high word */

void gc_wk_fill_gradient(float *x, size_t n, uint64_t seed, float scale)
{
	size_t nb = (n + FILL_BLOCK - 1) / FILL_BLOCK;
	const float a = 1.7320508f / 65536.0f * scale;

#pragma omp parallel for schedule(static) if (n >= (size_t)1 << 20)
	for (size_t blk = 0; blk < nb; blk++) {
		/* a key per block (the seed and the block's index hashed together), then a
		 * 32-bit counter inside it: the inner loop is 32-bit lanes only */
		uint32_t key = hash32((uint32_t)seed ^ hash32((uint32_t)(seed >> 32) ^
							      hash32((uint32_t)blk)));
		size_t lo = blk * FILL_BLOCK, m = n - lo < FILL_BLOCK ? n - lo : FILL_BLOCK;
		float *y = x + lo;
		for (uint32_t i = 0; i < (uint32_t)m; i++) {
			uint32_t h0 = hash32(key + 2 * i), h1 = hash32(key + 2 * i + 1);
			int32_t u = (int32_t)((h0 & 0xffff) + (h0 >> 16) + (h1 & 0xffff) + (h1 >> 16));
			y[i] = (float)(u - 131070) * a;  /* exact until the one multiply */
		}
	}
}
