/* kernels/cuda/bisect.c: the host side of mstopk's multi-level bisection (bisect.h). */
#include <stdlib.h>

#include "bisect.h"

static float bisect_mid(float lo, float hi)
{
	return (lo + hi) * 0.5f;       /* the formula of kernels/compress.h, in float */
}

size_t gc_bisect_tree(float lo, float hi, int levels, float *out)
{
	float mid;
	size_t n;
	if (levels <= 0)
		return 0;
	mid = bisect_mid(lo, hi);
	out[0] = mid;
	n = 1;
	n += gc_bisect_tree(lo, mid, levels - 1, out + n);
	n += gc_bisect_tree(mid, hi, levels - 1, out + n);
	return n;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* Sort ascending, drop equal values (+0 and -0 count as equal); returns the count. */
static size_t sort_unique(float *v, size_t n)
{
	size_t i, m = 0;
	qsort(v, n, sizeof(*v), cmp_float);
	for (i = 0; i < n; i++)
		if (m == 0 || v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

void gc_bisect_start(gc_bisect *s, float mean, float max, uint64_t k, int rounds)
{
	s->lo = mean;
	s->hi = max;
	s->k = k;
	s->hi_count = 0;
	s->rounds_left = rounds < 0 ? 0 : rounds;
	s->passes = 0;
	s->ncand = 0;
}

static int levels_next(const gc_bisect *s)
{
	int l = s->passes == 0 ? GC_BISECT_L_FIRST : GC_BISECT_L;
	return s->rounds_left < l ? s->rounds_left : l;
}

int gc_bisect_plan(gc_bisect *s)
{
	int l;
	size_t n = 0;
	if (s->passes > 0 && s->rounds_left == 0)
		return 0;
	l = levels_next(s);
	if (s->passes == 0) {
		/* lo may still become 0; hi's count is needed for the selection */
		n += gc_bisect_tree(s->lo, s->hi, l, s->cand + n);
		n += gc_bisect_tree(0.0f, s->hi, l, s->cand + n);
		s->cand[n++] = s->lo;
		s->cand[n++] = s->hi;
	} else {
		n = gc_bisect_tree(s->lo, s->hi, l, s->cand);
	}
	s->ncand = sort_unique(s->cand, n);
	return 1;
}

/* ge of the candidate equal to x; -1 if x is not a candidate (NaN never is). */
static int64_t lookup(const gc_bisect *s, const uint64_t *ge, float x)
{
	size_t a = 0, b = s->ncand;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (s->cand[m] < x)
			a = m + 1;
		else
			b = m;
	}
	if (a < s->ncand && s->cand[a] == x)
		return (int64_t)ge[a];
	return -1;
}

gc_rc gc_bisect_apply(gc_bisect *s, const uint64_t *ge)
{
	int l = levels_next(s), i;
	int64_t c;
	if (s->passes == 0) {
		c = lookup(s, ge, s->lo);
		if (c < 0)
			return GC_E_STATE;
		if ((uint64_t)c < s->k)
			s->lo = 0.0f;
		c = lookup(s, ge, s->hi);
		if (c < 0)
			return GC_E_STATE;
		s->hi_count = (uint64_t)c;
	}
	for (i = 0; i < l; i++) {
		float mid = bisect_mid(s->lo, s->hi);
		c = lookup(s, ge, mid);
		if (c < 0)
			return GC_E_STATE;
		if ((uint64_t)c >= s->k) {
			s->lo = mid;
		} else {
			s->hi = mid;
			s->hi_count = (uint64_t)c;
		}
	}
	s->rounds_left -= l;
	s->passes++;
	return GC_OK;
}
