/* kernels/sparse.c: the (index, value) payload shared by topk and mstopk: state,
 * error feedback, merging the selection, all-gather and decode. */
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "select.h"

#define ST(b) ((struct gc_sparse *)(b)->st)

gc_rc gc_sparse_init(gc_bucket *b, gc_err *e)
{
	struct gc_sparse *s = calloc(1, sizeof(*s));

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for %s state", gc_method_name(b->p.method));
	b->st = s;
	s->k = b->plan.k;
	s->send = gc_cpu_alloc(8 * s->k);
	s->recv = gc_cpu_alloc(8 * s->k * (size_t)b->world);
	s->hist = gc_cpu_alloc(GC_SEL_BINS * sizeof(uint32_t));
	s->scratch = gc_cpu_alloc((size_t)gc_cpu_threads() * GC_SEL_BINS * sizeof(uint32_t));
	s->fine = gc_cpu_alloc(GC_SEL_FINE * sizeof(uint32_t));
	s->ai = gc_cpu_alloc(s->k * sizeof(uint32_t));
	s->fi = gc_cpu_alloc(s->k * sizeof(uint32_t));
	s->seen = gc_cpu_alloc((b->numel + 7) / 8);
	if (b->p.ef)
		s->e = gc_cpu_zalloc(b->numel * sizeof(float));
	if (gc_cand_init(&s->cand, b->numel, s->k) || !s->send || !s->recv || !s->hist || !s->scratch || !s->fine || !s->ai || !s->fi ||
	    !s->seen || (b->p.ef && !s->e))
		return gc_fail(e, GC_E_NOMEM, "out of memory for %s state (k = %zu of %zu "
			       "elements, %d workers)", gc_method_name(b->p.method), s->k,
			       b->numel, b->world);
	return GC_OK;
}

void gc_sparse_release(gc_bucket *b)
{
	struct gc_sparse *s = ST(b);

	if (!s)
		return;
	free(s->e);
	free(s->send);
	free(s->recv);
	free(s->hist);
	free(s->scratch);
	free(s->fine);
	free(s->ai);
	free(s->fi);
	free(s->seen);
	gc_cand_release(&s->cand);
	free(s);
	b->st = NULL;
}

/* e = 0 at the n sent indices (error feedback). */
static void zero_sent(struct gc_sparse *s, const uint32_t *idx, size_t n)
{
	float *e = s->e;

	if (!e)
		return;
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (size_t o = 0; o < n; o++)
		e[idx[o]] = 0;
}

void gc_sparse_commit(gc_bucket *b, const float *c, size_t na, size_t nf)
{
	struct gc_sparse *s = ST(b);
	uint32_t *idx = (uint32_t *)(void *)s->send;
	float *val = (float *)(void *)(s->send + 4 * s->k);
	size_t i = 0, j = 0, o;

	if (na > s->k)
		na = s->k;
	if (nf > s->k - na)
		nf = s->k - na;
	for (o = 0; o < na + nf; o++) {
		if (j >= nf || (i < na && s->ai[i] < s->fi[j]))
			idx[o] = s->ai[i++];
		else
			idx[o] = s->fi[j++];
		val[o] = c[idx[o]];
	}
	for (; o < s->k; o++) {         /* only if the selection came up short (NaN) */
		idx[o] = 0;
		val[o] = 0;
	}
	zero_sent(s, idx, na + nf);
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
}

void gc_sparse_commit_cand(gc_bucket *b, uint32_t lo, uint32_t hi)
{
	struct gc_sparse *s = ST(b);
	const struct gc_cand *cd = &s->cand;
	uint32_t *idx = (uint32_t *)(void *)s->send;
	float *val = (float *)(void *)(s->send + 4 * s->k);
	size_t k = s->k, na = gc_cand_count(cd, hi), nf, o = 0, a = 0, f = 0;

	na = na < k ? na : k;
	nf = k - na;
	for (int p = 0; p < cd->parts && o < k; p++) {
		const uint32_t *li = cd->idx[p], *lb = cd->bits[p];
		for (size_t i = 0; i < cd->n[p] && o < k; i++) {
			uint32_t key = lb[i] & 0x7fffffffu;
			if (key >= hi ? a++ < na : key >= lo && f++ < nf) {
				idx[o] = li[i];
				memcpy(&val[o++], &lb[i], sizeof(float));
			}
		}
	}
	zero_sent(s, idx, o);
	for (; o < k; o++) {            /* only if the selection came up short (NaN) */
		idx[o] = 0;
		val[o] = 0;
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
}

#define MERGE_MAXW 8             /* merge decode up to this many workers */
#define MERGE_BLOCK 4096        /* elements zeroed, then filled, while in cache */

/* 1 if every worker's indices are strictly ascending and below n (what encode sends). */
static int payloads_sorted(const struct gc_sparse *s, int world, size_t n)
{
	for (int w = 0; w < world; w++) {
		const uint32_t *idx = (const uint32_t *)(const void *)(s->recv + (size_t)w * 8 * s->k);
		for (size_t j = 0; j < s->k; j++)
			if (idx[j] >= n || (j && idx[j] <= idx[j - 1]))
				return 0;
	}
	return 1;
}

/* First position in idx[0, k) with idx >= x. */
static size_t lower_bound(const uint32_t *idx, size_t k, size_t x)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* avg[a, b) from sorted payloads: zero a block, then each index in it gets the sum over
 * workers 0..p-1 in order (from +0.0f, in float) divided by p; the same values as the
 * scatter-add below, in one pass of writes. */
static inline __attribute__((always_inline)) void
merge_body(const struct gc_sparse *s, int world, float *avg, size_t a, size_t b)
{
	const uint32_t *idx[MERGE_MAXW];
	const float *val[MERGE_MAXW];
	size_t pos[MERGE_MAXW], blk, k = s->k;
	float p = (float)world;
	int w;

	for (w = 0; w < world; w++) {
		const uint8_t *pl = s->recv + (size_t)w * 8 * k;
		idx[w] = (const uint32_t *)(const void *)pl;
		val[w] = (const float *)(const void *)(pl + 4 * k);
		pos[w] = lower_bound(idx[w], k, a);
	}
	for (blk = a; blk < b; blk += MERGE_BLOCK) {
		size_t end = blk + MERGE_BLOCK < b ? blk + MERGE_BLOCK : b;
		memset(avg + blk, 0, (end - blk) * sizeof(float));
		for (;;) {
			uint32_t i = UINT32_MAX;
			float sum = 0.0f;
			for (w = 0; w < world; w++)
				if (pos[w] < k && idx[w][pos[w]] < i)
					i = idx[w][pos[w]];
			if (i >= end)
				break;
			for (w = 0; w < world; w++)
				if (pos[w] < k && idx[w][pos[w]] == i)
					sum += val[w][pos[w]++];
			avg[i] = sum / p;
		}
	}
}

/* merge_range per ISA level (kernels/isa.h): the same bits at every level. */
static void merge_range_default(const struct gc_sparse *s, int world, float *avg, size_t a,
				size_t b)
{
	merge_body(s, world, avg, a, b);
}

#if GC_ISA_DISPATCH
GC_TARGET_AVX2 static void merge_range_avx2(const struct gc_sparse *s, int world, float *avg,
					    size_t a, size_t b)
{
	merge_body(s, world, avg, a, b);
}

GC_TARGET_AVX512 static void merge_range_avx512(const struct gc_sparse *s, int world,
						float *avg, size_t a, size_t b)
{
	merge_body(s, world, avg, a, b);
}
#endif

static void merge_range(const struct gc_sparse *s, int world, float *avg, size_t a, size_t b)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: merge_range_avx512(s, world, avg, a, b); return;
	case GC_ISA_AVX2: merge_range_avx2(s, world, avg, a, b); return;
	default: break;
	}
#endif
	merge_range_default(s, world, avg, a, b);
}

gc_rc gc_sparse_decode(gc_bucket *b, float *avg)
{
	struct gc_sparse *s = ST(b);
	size_t n = b->numel, j;
	float p = (float)b->world;
	int w;

	if (b->world <= MERGE_MAXW && payloads_sorted(s, b->world, n)) {
		size_t nb = (n + MERGE_BLOCK - 1) / MERGE_BLOCK;
		int parts = n >= 65536 ? gc_cpu_threads() : 1;
#pragma omp parallel for schedule(static) num_threads(parts) if (parts > 1)
		for (int t = 0; t < parts; t++) {
			size_t a = nb * (size_t)t / (size_t)parts * MERGE_BLOCK;
			size_t e = nb * (size_t)(t + 1) / (size_t)parts * MERGE_BLOCK;
			merge_range(s, b->world, avg, a, e < n ? e : n);
		}
		return GC_OK;
	}
	memset(avg, 0, n * sizeof(float));
	memset(s->seen, 0, (n + 7) / 8);
	for (w = 0; w < b->world; w++) {
		const uint8_t *pl = s->recv + (size_t)w * 8 * s->k;
		const uint32_t *idx = (const uint32_t *)(const void *)pl;
		const float *val = (const float *)(const void *)(pl + 4 * s->k);
		for (j = 0; j < s->k; j++) {
			if (idx[j] >= n)
				return GC_E_FORMAT;
			avg[idx[j]] += val[j];
		}
	}
	/* divide by p: each touched element once (the others stay +0.0 = 0 / p) */
	for (w = 0; w < b->world; w++) {
		const uint32_t *idx = (const uint32_t *)(const void *)(s->recv + (size_t)w * 8 * s->k);
		for (j = 0; j < s->k; j++) {
			uint32_t i = idx[j];
			uint8_t bit = (uint8_t)(1u << (i & 7));
			if (!(s->seen[i / 8] & bit)) {
				s->seen[i / 8] |= bit;
				avg[i] /= p;
			}
		}
	}
	return GC_OK;
}

gc_rc gc_sparse_residual(const gc_bucket *b, float *out)
{
	const struct gc_sparse *s = b->st;

	if (s->e)
		memcpy(out, s->e, b->numel * sizeof(float));
	else
		memset(out, 0, b->numel * sizeof(float));
	return GC_OK;
}
