/* kernels/dgc.h: Deep Gradient Compression's rules (Lin, Han, Mao, Wang and Dally,
 * "Deep Gradient Compression: Reducing the Communication Bandwidth for Distributed
 * Training", ICLR 2018), one definition for the CPU and CUDA back ends.
 *
 * Per step of a bucket of n elements, worker state u (momentum) and v (accumulated
 * velocity), both zero at the start, m = momentum, N workers:
 *   1. local gradient clipping (clip > 0): per tensor, if ||g|| > clip / sqrt(N),
 *      g = g * (float)((clip / sqrt(N)) / ||g||); ||g|| as gc_dgc_norm;
 *   2. momentum correction: u = m u + g; v = v + u (in float, in that order);
 *   3. the top k of |v| (topk's rule: ties to the lower index), k = gc_dgc_k at this
 *      step (the warm-up schedule of the sparsity); payload as topk's, all-gathered;
 *   4. momentum factor masking: u = 0 and v = 0 where sent.
 * Decode as topk: the sum over workers in order, / N. The worker's optimizer then
 * steps param -= lr avg without momentum of its own (the momentum is in u).
 */
#ifndef GC_KERNELS_DGC_H
#define GC_KERNELS_DGC_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* Elements per block of the clipping norm: the sum of squares is taken in double per
 * block of this many consecutive elements of a tensor, in order, then the block sums in
 * block order (so a GPU thread per block and the CPU give the same bits). */
#define GC_DGC_NORM_BLOCK 1024

/* The density at step (0-based) of a bucket: the paper's warm-up, 75%, 93.75%,
 * 98.4375%, 99.6% sparsity (density 4^-(j+1), j = 0..3, each for a quarter of the
 * first warmup_steps steps: j = floor(4 step / warmup_steps)), then ratio; never below
 * ratio. */
static inline double gc_dgc_density(const gc_params *p, uint64_t step)
{
	double d;
	uint64_t w = (uint64_t)(p->warmup_steps > 0 ? p->warmup_steps : 0);

	if (step >= w)
		return p->ratio;
	d = pow(0.25, (double)(4 * step / w + 1));
	return d > p->ratio ? d : p->ratio;
}

/* k at step: max(1, ceil(density n)), at most n (gc_topk_k at that density). */
static inline size_t gc_dgc_k(const gc_params *p, size_t n, uint64_t step)
{
	gc_params q = *p;

	q.ratio = gc_dgc_density(p, step);
	return gc_topk_k(&q, n);
}

/* The largest k of the schedule (its first step). */
static inline size_t gc_dgc_kmax(const gc_params *p, size_t n)
{
	return gc_dgc_k(p, n, 0);
}

/* ||g|| of n floats: sqrt of the sum of g^2 in double, blocks of GC_DGC_NORM_BLOCK in
 * order, each summed in order. */
static inline double gc_dgc_norm(const float *g, size_t n)
{
	double tot = 0;

	for (size_t a = 0; a < n; a += GC_DGC_NORM_BLOCK) {
		size_t e = a + GC_DGC_NORM_BLOCK < n ? a + GC_DGC_NORM_BLOCK : n;
		double s = 0;
		for (size_t i = a; i < e; i++)
			s += (double)g[i] * (double)g[i];
		tot += s;
	}
	return sqrt(tot);
}

/* The factor clipping gives a tensor of norm nrm among world workers: 1 if clip is 0
 * or nrm <= clip / sqrt(world), else (float)((clip / sqrt(world)) / nrm). */
static inline float gc_dgc_clip_factor(double clip, int world, double nrm)
{
	double thr = clip / sqrt((double)world);

	return clip > 0 && nrm > thr ? (float)(thr / nrm) : 1.0f;
}

#endif
