/* kernels/randomk.c: Random-K with a shared seed (CPU). Every worker takes the same k
 * elements (kernels/randomk.h: one per stratum of the bucket), sends their values
 * through an all-reduce (a sum of k floats), and decodes avg[idx_j] = sum_j / p, zero
 * elsewhere. Error feedback (ef=1): c = g + e, e' = c with the sent entries zeroed.
 * Encode and decode each walk the strata in order, one pass over the bucket: encode
 * adds the residual stratum by stratum and takes its element; decode writes each
 * stratum's zeros and its one value. */
#include <stdlib.h>
#include <string.h>

#include "randomk.h"
#include "select.h"

struct rk {
	float *e;               /* residual (ef), numel */
	float *send, *recv;     /* k values each */
	uint32_t *idx;          /* the step's k indices, ascending */
	size_t k;
};

static gc_rc randomk_init(gc_bucket *b, gc_err *e)
{
	struct rk *s = calloc(1, sizeof(*s));

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for randomk state");
	b->st = s;
	s->k = b->plan.k;
	s->send = gc_cpu_alloc(s->k * sizeof(float));
	s->recv = gc_cpu_alloc(s->k * sizeof(float));
	s->idx = gc_cpu_alloc(s->k * sizeof(uint32_t));
	if (b->p.ef)
		s->e = gc_cpu_zalloc(b->numel * sizeof(float));
	if (!s->send || !s->recv || !s->idx || (b->p.ef && !s->e))
		return gc_fail(e, GC_E_NOMEM, "out of memory for randomk state (k = %zu of %zu "
			       "elements)", s->k, b->numel);
	return GC_OK;
}

static void randomk_release(gc_bucket *b)
{
	struct rk *s = b->st;

	if (!s)
		return;
	free(s->e);
	free(s->send);
	free(s->recv);
	free(s->idx);
	free(s);
	b->st = NULL;
}

static gc_rc randomk_encode(gc_bucket *b, const float *grad)
{
	struct rk *s = b->st;
	uint64_t key = gc_rng_key(b->p.seed, 0, b->step), n = b->numel, k = s->k;
	long j;

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < (long)k; j++) {
		uint32_t i = gc_randomk_index(key, (uint64_t)j, n, k);
		s->idx[j] = i;
		if (s->e) {
			size_t lo = (size_t)((uint64_t)j * n / k), hi = (size_t)((uint64_t)(j + 1) * n / k);
			float *e = s->e;
			for (size_t x = lo; x < hi; x++)
				e[x] += grad[x];
			s->send[j] = e[i];
			e[i] = 0.0f;
		} else {
			s->send[j] = grad[i];
		}
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

static gc_rc randomk_decode(gc_bucket *b, float *avg)
{
	struct rk *s = b->st;
	uint64_t n = b->numel, k = s->k;
	float p = (float)b->world;
	long j;

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < (long)k; j++) {
		size_t lo = (size_t)((uint64_t)j * n / k), hi = (size_t)((uint64_t)(j + 1) * n / k);
		memset(avg + lo, 0, (hi - lo) * sizeof(float));
		avg[s->idx[j]] = s->recv[j] / p;
	}
	return GC_OK;
}

static gc_rc randomk_residual(const gc_bucket *b, float *host_out)
{
	const struct rk *s = b->st;

	if (s->e)
		memcpy(host_out, s->e, b->numel * sizeof(float));
	else
		memset(host_out, 0, b->numel * sizeof(float));
	return GC_OK;
}

const struct gc_method_ops gc_cpu_randomk_ops = {
	.init = randomk_init,
	.encode = randomk_encode,
	.round_done = NULL,
	.decode = randomk_decode,
	.residual = randomk_residual,
	.release = randomk_release,
};
