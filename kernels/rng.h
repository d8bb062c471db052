/* kernels/rng.h: the deterministic random numbers both back ends share.
 *
 * Counter-based: a method's random value is a pure function of (seed, step, tensor,
 * index), never the state of a stream, so the CPU at any thread count (or in any
 * order) and the GPU draw the same bits. The generator is splitmix64 (Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; Vigna's
 * splitmix64.c), used in its counter form: with the key k = gc_rng_key(seed, tensor,
 * step), value i is mix(k + (i + 1) * 0x9e3779b97f4a7c15), which is exactly the
 * (i + 1)-th output of the sequential splitmix64 started at state k. Every draw of a
 * method is indexed by the element (or pair of elements) it is for.
 *
 * The integer functions are plain C usable from CUDA device code (GC_RNG_HD). Normals
 * (Box-Muller in double: log, cos and sin may differ in the last bit between libm and
 * the GPU) are host-only; PowerSGD's initial Q is drawn on the host and copied.
 * Uniforms for stochastic rounding are gc_rng_unit24: exact in float on both sides.
 */
#ifndef GC_RNG_H
#define GC_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <math.h>

#ifdef __CUDACC__
#define GC_RNG_HD __host__ __device__ __forceinline__
#else
#define GC_RNG_HD inline
#endif

#define GC_RNG_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64's output function (a bijection of the 64-bit integers). */
static GC_RNG_HD uint64_t gc_rng_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The sequential generator: advance *s and return the next value. */
static GC_RNG_HD uint64_t gc_splitmix64(uint64_t *s)
{
	return gc_rng_mix(*s += GC_RNG_GAMMA);
}

/* The key for (seed, tensor index, step). */
static GC_RNG_HD uint64_t gc_rng_key(uint64_t seed, uint64_t tensor, uint64_t step)
{
	uint64_t s = seed;
	uint64_t a = gc_splitmix64(&s) ^ (tensor * 0xd1342543de82ef95ull);
	uint64_t b = gc_splitmix64(&a) ^ (step * 0xa0761d6478bd642full);
	return gc_splitmix64(&b);
}

/* The former name of gc_rng_key (the same function). */
static GC_RNG_HD uint64_t gc_rng_seed(uint64_t seed, uint64_t tensor, uint64_t step)
{
	return gc_rng_key(seed, tensor, step);
}

/* Value number i (0, 1, ...) under key: the (i + 1)-th output of gc_splitmix64 from
 * state key, computed without the i before it. */
static GC_RNG_HD uint64_t gc_rng_at(uint64_t key, uint64_t i)
{
	return gc_rng_mix(key + (i + 1) * GC_RNG_GAMMA);
}

/* A uniform float in [0, 1) with 24 random bits (the top ones of value i): a multiple
 * of 2^-24, so exact in float and identical on every back end. */
static GC_RNG_HD float gc_rng_unit24(uint64_t key, uint64_t i)
{
	return (float)(uint32_t)(gc_rng_at(key, i) >> 40) * (1.0f / 16777216.0f);
}

/* Normals first (host code only) .. first + n - 1 under key into out[0..n): normal j comes from the
 * pair of values 2 * (j / 2) and 2 * (j / 2) + 1 by Box-Muller (uniforms in (0, 1] and
 * [0, 1) with 53 bits; the cosine for even j, the sine for odd j), in double rounded
 * to float. So any split of [0, n) into parts gives the same numbers, and
 * gc_rng_normal_at(key, 0, out, n) equals gc_rng_normal from state key. */
static inline void gc_rng_normal_at(uint64_t key, uint64_t first, float *out, size_t n)
{
	uint64_t j, end = first + n;

	for (j = first; j < end; j++) {
		uint64_t pair = j / 2;
		double u1 = ((double)(gc_rng_at(key, 2 * pair) >> 11) + 1.0) *
			    (1.0 / 9007199254740992.0);
		double u2 = (double)(gc_rng_at(key, 2 * pair + 1) >> 11) *
			    (1.0 / 9007199254740992.0);
		double r = sqrt(-2.0 * log(u1));
		out[j - first] = (float)(r * (j % 2 ? sin(6.283185307179586 * u2)
						   : cos(6.283185307179586 * u2)));
	}
}

/* Fill out[0..n) with N(0,1) floats from the sequential state *s and advance it past
 * the values used (test data; methods use gc_rng_normal_at). */
static inline void gc_rng_normal(uint64_t *s, float *out, size_t n)
{
	gc_rng_normal_at(*s, 0, out, n);
	*s += GC_RNG_GAMMA * (uint64_t)(2 * ((n + 1) / 2));
}

/* *u = gc_rng_unit24(key, i + l) for the lanes l = 0..7, the same bits eight at a
 * time (host code; GCC vector types, so the function compiled for a target lowers the
 * 64-bit multiplies its own way: vpmullq with AVX-512DQ, pmuludq sequences below).
 * Always inlined into the caller, whose target decides. The top 24 bits of mix(z) are
 * those of the last product: z ^ (z >> 31) changes only bits 0..32. Needs i + 7 to
 * stay below the next multiple of 2^32 when i carries a worker in its top half (as
 * w * 2^32 + i does for i + 7 < 2^32). */
#if !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
typedef uint64_t gc_rng_v8q __attribute__((vector_size(64)));
typedef int32_t gc_rng_v8i __attribute__((vector_size(32)));
typedef float gc_rng_v8f __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) void gc_rng_unit24_x8(uint64_t key, uint64_t i,
								    gc_rng_v8f *u)
{
	const gc_rng_v8q lane = { 1 * GC_RNG_GAMMA, 2 * GC_RNG_GAMMA, 3 * GC_RNG_GAMMA,
				  4 * GC_RNG_GAMMA, 5 * GC_RNG_GAMMA, 6 * GC_RNG_GAMMA,
				  7 * GC_RNG_GAMMA, 8 * GC_RNG_GAMMA };
	gc_rng_v8q z = (uint64_t)(key + i * GC_RNG_GAMMA) + lane;
	gc_rng_v8i t;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	t = __builtin_convertvector(z >> 40, gc_rng_v8i);
	*u = __builtin_convertvector(t, gc_rng_v8f) * (1.0f / 16777216.0f);
}
#endif

#endif
