/* kernels/rng.h: the deterministic random numbers both back ends share.
 *
 * PowerSGD's initial Q must be identical on every worker and on CPU and GPU, so it is
 * always generated on the host with this generator and (for CUDA) copied to the
 * device. Stream: splitmix64 seeded with mix(seed, tensor index, step); normals by
 * Box-Muller in double, rounded to float, two per pair of draws.
 */
#ifndef GC_RNG_H
#define GC_RNG_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t gc_splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The generator state for (seed, tensor index, step). */
static inline uint64_t gc_rng_seed(uint64_t seed, uint64_t tensor, uint64_t step)
{
	uint64_t s = seed;
	uint64_t a = gc_splitmix64(&s) ^ (tensor * 0xd1342543de82ef95ull);
	uint64_t b = gc_splitmix64(&a) ^ (step * 0xa0761d6478bd642full);
	return gc_splitmix64(&b);
}

/* Fill out[0..n) with N(0,1) floats from state *s. */
static inline void gc_rng_normal(uint64_t *s, float *out, size_t n)
{
	size_t i;
	for (i = 0; i < n; i += 2) {
		/* uniforms in (0, 1]: 53 random bits */
		double u1 = ((double)(gc_splitmix64(s) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
		double u2 = (double)(gc_splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
		double r = sqrt(-2.0 * log(u1));
		out[i] = (float)(r * cos(6.283185307179586 * u2));
		if (i + 1 < n)
			out[i + 1] = (float)(r * sin(6.283185307179586 * u2));
	}
}

#endif
