/* tests/unit/kernels_fixture.h: what the tests of one compressor each share (the
 * test_kernels_<method>.c files). Each test file includes it once. */
#ifndef GC_TEST_KERNELS_FIXTURE_H
#define GC_TEST_KERNELS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/rng.h"

/* n gradient values uniform in [-0.5, 0.5), element i from kernels/rng.h's (s, i) */
static inline void fill(float *g, size_t n, uint64_t s)
{
	for (size_t i = 0; i < n; i++)
		g[i] = (float)((double)(gc_rng_at(s, i) >> 11) / 9007199254740992.0 - 0.5);
}

#endif
