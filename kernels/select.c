/* kernels/select.c: shared CPU helpers: buffers, error feedback, magnitude
 * histograms and the sparse payload of topk and mstopk. The passes over the bucket are
 * compiled per ISA level and dispatched at run time (kernels/isa.h); their results do
 * not depend on the level (integer work; sums in an order the code fixes). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "select.h"

#if GC_ISA_DISPATCH && GC_ISA_MAX_N >= 2
#include <immintrin.h>          /* the avx512 variant's listing (list16_avx512) */
#endif

/* name(args) calls name_avx512, name_avx2 or name_default by the active level. */
#if GC_ISA_DISPATCH
#define DISPATCH(name, args) do { \
		switch (gc_isa_active()) { \
		case GC_ISA_AVX512: return name##_avx512 args; \
		case GC_ISA_AVX2: return name##_avx2 args; \
		default: return name##_default args; \
		} \
	} while (0)
#define VDISPATCH(name, args) do { \
		switch (gc_isa_active()) { \
		case GC_ISA_AVX512: name##_avx512 args; return; \
		case GC_ISA_AVX2: name##_avx2 args; return; \
		default: name##_default args; return; \
		} \
	} while (0)
#define VARIANT_AVX2 GC_TARGET_AVX2
#define VARIANT_AVX512 GC_TARGET_AVX512
#else
#define DISPATCH(name, args) return name##_default args
#define VDISPATCH(name, args) do { name##_default args; return; } while (0)
#endif

#define PAR_MIN 65536           /* below this many elements, stay single-threaded */
#define BLOCK 16                /* elements tested together before a scalar look */

void *gc_cpu_alloc(size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, bytes ? bytes : 64))
		return NULL;
	return p;
}

void *gc_cpu_zalloc(size_t bytes)
{
	void *p = gc_cpu_alloc(bytes);

	if (p)
		memset(p, 0, bytes);
	return p;
}

int gc_cpu_threads(void)
{
	int n = omp_get_max_threads();
	return n < 1 ? 1 : n;
}

void gc_ef_add(float *e, const float *g, size_t n)
{
	size_t i;

#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
	for (i = 0; i < n; i++)
		e[i] += g[i];
}

/* One thread's share over [a, b): with e, first e[i] += g[i] (error feedback) and use
 * e[i]; histogram, and (if stats) sum |c| and max key. Inlined with constant flags so
 * the loop carries only the work asked for. */
static inline __attribute__((always_inline)) void
hist_body(float *e, const float *g, size_t a, size_t b, uint32_t *h, int stats,
	  double *sum, uint32_t *maxkey)
{
	const float *c = e ? e : g;
	double s0 = 0, s1 = 0;
	uint32_t m = 0;
	size_t i;

	for (i = a; i + 1 < b; i += 2) {
		if (e) {
			e[i] += g[i];
			e[i + 1] += g[i + 1];
		}
		uint32_t k0 = gc_key(c[i]), k1 = gc_key(c[i + 1]);
		h[k0 >> GC_SEL_SHIFT]++;
		h[k1 >> GC_SEL_SHIFT]++;
		if (stats) {
			s0 += fabsf(c[i]);
			s1 += fabsf(c[i + 1]);
			m = k0 > m ? k0 : m;
			m = k1 > m ? k1 : m;
		}
	}
	if (i < b) {
		if (e)
			e[i] += g[i];
		uint32_t k0 = gc_key(c[i]);
		h[k0 >> GC_SEL_SHIFT]++;
		s0 += fabsf(c[i]);
		m = k0 > m ? k0 : m;
	}
	*sum = s0 + s1;
	*maxkey = m;
}

#define HIST_PART(suffix, attr) \
attr static void hist_part_##suffix(float *e, const float *g, size_t a, size_t b, uint32_t *h, \
				    int stats, double *sum, uint32_t *maxkey) \
{ \
	if (stats && e) \
		hist_body(e, g, a, b, h, 1, sum, maxkey); \
	else if (stats) \
		hist_body(NULL, g, a, b, h, 1, sum, maxkey); \
	else if (e) \
		hist_body(e, g, a, b, h, 0, sum, maxkey); \
	else \
		hist_body(NULL, g, a, b, h, 0, sum, maxkey); \
}
HIST_PART(default, )
#if GC_ISA_DISPATCH
HIST_PART(avx2, VARIANT_AVX2)
HIST_PART(avx512, VARIANT_AVX512)
#endif

static void hist_part(float *e, const float *g, size_t a, size_t b, uint32_t *h, int stats,
		      double *sum, uint32_t *maxkey)
{
	VDISPATCH(hist_part, (e, g, a, b, h, stats, sum, maxkey));
}

void gc_sel_hist(float *e, const float *g, size_t n, uint32_t *hist, uint32_t *scratch,
		 double *sum, uint32_t *maxkey)
{
	int nt = n >= PAR_MIN ? gc_cpu_threads() : 1;
	double s = 0;
	uint32_t m = 0;

#pragma omp parallel num_threads(nt) reduction(+:s) reduction(max:m)
	{
		int t = omp_get_thread_num(), tn = omp_get_num_threads();
		uint32_t *h = t ? scratch + (size_t)(t - 1) * GC_SEL_BINS : hist;
		size_t a = n * (size_t)t / (size_t)tn, b = n * (size_t)(t + 1) / (size_t)tn;

		memset(h, 0, GC_SEL_BINS * sizeof(*h));
		hist_part(e, g, a, b, h, sum || maxkey, &s, &m);
#pragma omp barrier
#pragma omp for schedule(static)
		for (size_t j = 0; j < GC_SEL_BINS; j++)
			for (int u = 1; u < tn; u++)
				hist[j] += scratch[(size_t)(u - 1) * GC_SEL_BINS + j];
	}
	if (sum)
		*sum = s;
	if (maxkey)
		*maxkey = m;
}

uint32_t gc_sel_bin(const uint32_t *hist, size_t k, size_t *above)
{
	size_t acc = 0;
	uint32_t j = GC_SEL_BINS;

	while (j > 0) {
		j--;
		if (acc + hist[j] >= k)
			break;
		acc += hist[j];
	}
	*above = acc;
	return j;
}

/* 1 if any key in c[i, i + BLOCK) is >= lo (vectorizable). */
static inline int block_any_ge(const float *c, size_t i, uint32_t lo)
{
	uint32_t any = 0;
	for (size_t j = 0; j < BLOCK; j++)
		any |= gc_key(c[i + j]) >= lo;
	return any != 0;
}

/* 1 if any key in c[i, i + BLOCK) lies in coarse bin `bin` (vectorizable). */
static inline int block_any_in(const float *c, size_t i, uint32_t bin)
{
	uint32_t any = 0;
	for (size_t j = 0; j < BLOCK; j++)
		any |= (gc_key(c[i + j]) >> GC_SEL_SHIFT) == bin;
	return any != 0;
}

static inline __attribute__((always_inline)) void
fine_body(const float *c, size_t n, uint32_t bin, uint32_t *fine)
{
	size_t i = 0, j;

	memset(fine, 0, GC_SEL_FINE * sizeof(*fine));
	for (; i + BLOCK <= n; i += BLOCK) {
		if (!block_any_in(c, i, bin))
			continue;
		for (j = i; j < i + BLOCK; j++)
			if ((gc_key(c[j]) >> GC_SEL_SHIFT) == bin)
				fine[gc_key(c[j]) & (GC_SEL_FINE - 1)]++;
	}
	for (; i < n; i++)
		if ((gc_key(c[i]) >> GC_SEL_SHIFT) == bin)
			fine[gc_key(c[i]) & (GC_SEL_FINE - 1)]++;
	for (j = GC_SEL_FINE - 1; j > 0; j--)
		fine[j - 1] += fine[j];
}

static void fine_default(const float *c, size_t n, uint32_t bin, uint32_t *fine)
{
	fine_body(c, n, bin, fine);
}

#if GC_ISA_DISPATCH
VARIANT_AVX2 static void fine_avx2(const float *c, size_t n, uint32_t bin, uint32_t *fine)
{
	fine_body(c, n, bin, fine);
}

VARIANT_AVX512 static void fine_avx512(const float *c, size_t n, uint32_t bin, uint32_t *fine)
{
	fine_body(c, n, bin, fine);
}
#endif

void gc_sel_fine(const float *c, size_t n, uint32_t bin, uint32_t *fine)
{
	VDISPATCH(fine, (c, n, bin, fine));
}

static inline __attribute__((always_inline)) void
scan_body(const float *c, size_t n, uint32_t lo, uint32_t hi, size_t k, uint32_t *ai,
	  size_t *na, uint32_t *fi, size_t *nf)
{
	size_t i = 0, a = 0, f = 0, end;

	while (i < n && (a < k || f < k)) {
		if (i + BLOCK <= n && !block_any_ge(c, i, lo)) {
			i += BLOCK;
			continue;
		}
		for (end = i + BLOCK < n ? i + BLOCK : n; i < end; i++) {
			uint32_t key = gc_key(c[i]);
			if (key >= hi) {
				if (a < k)
					ai[a++] = (uint32_t)i;
			} else if (key >= lo && f < k) {
				fi[f++] = (uint32_t)i;
			}
		}
	}
	*na = a;
	*nf = f;
}

#define SCAN(suffix, attr) \
attr static void scan_##suffix(const float *c, size_t n, uint32_t lo, uint32_t hi, size_t k, \
			       uint32_t *ai, size_t *na, uint32_t *fi, size_t *nf) \
{ \
	scan_body(c, n, lo, hi, k, ai, na, fi, nf); \
}
SCAN(default, )
#if GC_ISA_DISPATCH
SCAN(avx2, VARIANT_AVX2)
SCAN(avx512, VARIANT_AVX512)
#endif

void gc_sel_scan(const float *c, size_t n, uint32_t lo, uint32_t hi, size_t k,
		 uint32_t *ai, size_t *na, uint32_t *fi, size_t *nf)
{
	VDISPATCH(scan, (c, n, lo, hi, k, ai, na, fi, nf));
}

/* ---- candidate lists ---------------------------------------------------------- */

/* The sample's rank (1-based, from the largest) whose key becomes tlo: k's share of
 * the sample plus four standard deviations and 8, so that at least k elements reach it
 * but for a chance of about 1e-5; 0 (no lists: their memory) when k > n / 8. */
static size_t sample_rank(size_t n, size_t k)
{
	double m;
	size_t r;

	if (n <= GC_SEL_SAMPLE)
		return k;
	if (k > n / 8)
		return 0;
	m = (double)GC_SEL_SAMPLE * (double)k / (double)n;
	r = (size_t)ceil(m + 4.0 * sqrt(m) + 8.0);
	return r >= GC_SEL_SAMPLE / 2 ? 0 : r;
}

gc_rc gc_cand_init(struct gc_cand *cd, size_t n, size_t k)
{
	size_t nb = (n + GC_SEL_SBLOCK - 1) / GC_SEL_SBLOCK, len, r;
	int parts = gc_cpu_threads();

	parts = parts > GC_SEL_MAXPARTS ? GC_SEL_MAXPARTS : parts;
	cd->parts = n >= PAR_MIN ? parts : 1;
	cd->samp = gc_cpu_alloc(GC_SEL_SAMPLE * sizeof(uint32_t));
	cd->bsum = gc_cpu_alloc((nb ? nb : 1) * sizeof(double));
	if (!cd->samp || !cd->bsum)
		return GC_E_NOMEM;
	/* listed: about r n / S elements, with a standard deviation of sqrt(r) n / S (the
	 * bucket's share above the sample's r-th largest); room for six of those more */
	r = sample_rank(n, k);
	if (n <= GC_SEL_SAMPLE)
		cd->cap = n;
	else if (r)
		cd->cap = (size_t)(((double)r + 6.0 * sqrt((double)r)) * (double)n /
				   GC_SEL_SAMPLE) + 4096;
	else
		cd->cap = 0;
	len = (n + (size_t)cd->parts - 1) / (size_t)cd->parts + GC_SEL_SBLOCK;
	cd->cap = cd->cap < len ? cd->cap : len;
	cd->cap += cd->cap ? 16 : 0;    /* spare slots: a group of 16 is listed whole */
	for (int p = 0; cd->cap && p < cd->parts; p++) {
		cd->idx[p] = gc_cpu_alloc(cd->cap * sizeof(uint32_t));
		cd->bits[p] = gc_cpu_alloc(cd->cap * sizeof(uint32_t));
		if (!cd->idx[p] || !cd->bits[p])
			return GC_E_NOMEM;
	}
	return GC_OK;
}

void gc_cand_release(struct gc_cand *cd)
{
	for (int p = 0; p < GC_SEL_MAXPARTS; p++) {
		free(cd->idx[p]);
		free(cd->bits[p]);
	}
	free(cd->samp);
	free(cd->bsum);
}

/* The k-th largest of the keys (bits & 0x7fffffff) of np arrays, 1 <= k <= total: a
 * coarse then a fine histogram. */
static uint32_t kth_key(const uint32_t *const *a, const size_t *na, int np, size_t k,
			uint32_t *hist, uint32_t *fine)
{
	size_t above;
	uint32_t bin, x;
	int p;

	memset(hist, 0, GC_SEL_BINS * sizeof(*hist));
	memset(fine, 0, GC_SEL_FINE * sizeof(*fine));
	for (p = 0; p < np; p++)
		for (size_t i = 0; i < na[p]; i++)
			hist[(a[p][i] & 0x7fffffffu) >> GC_SEL_SHIFT]++;
	bin = gc_sel_bin(hist, k, &above);
	for (p = 0; p < np; p++)
		for (size_t i = 0; i < na[p]; i++) {
			uint32_t key = a[p][i] & 0x7fffffffu;
			if (key >> GC_SEL_SHIFT == bin)
				fine[key & (GC_SEL_FINE - 1)]++;
		}
	x = GC_SEL_FINE - 1;
	for (;;) {              /* the largest x with above + #(low bits >= x) >= k */
		above += fine[x];
		if (above >= k || x == 0)
			break;
		x--;
	}
	return (bin << GC_SEL_SHIFT) | x;
}

uint32_t gc_cand_kth(const struct gc_cand *cd, size_t k, uint32_t *hist, uint32_t *fine)
{
	return kth_key((const uint32_t *const *)cd->bits, cd->n, cd->parts, k, hist, fine);
}

/* tlo from a strided sample of c (computed as e + g before the pass): the sample's
 * r-th largest key with r well above the sample's share of k. UINT32_MAX (nothing
 * listed) when the lists are off or would hold most of the bucket. */
static uint32_t sample_tlo(struct gc_cand *cd, const float *e, const float *g, size_t n,
			   size_t k, uint32_t *hist, uint32_t *fine)
{
	size_t S = n < GC_SEL_SAMPLE ? n : GC_SEL_SAMPLE, r = sample_rank(n, k), j;
	const uint32_t *one[1] = { cd->samp };

	if (!cd->cap || !n || !r)
		return UINT32_MAX;
	for (j = 0; j < S; j++) {
		size_t i = S == n ? j : (size_t)((uint64_t)j * n / S);
		cd->samp[j] = gc_key(e ? e[i] + g[i] : g[i]);
	}
	return kth_key(one, &S, 1, r, hist, fine);
}

typedef float v8f __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef uint32_t v8u __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

/* Eight elements at c[i]: c = e + g stored back (e) or c = g; lane-wise sum |c| in
 * *acc, max key in *mx; *hit = the lanes whose key >= tlo (-1 / 0). Vectors go by
 * pointer (no vector arguments: their ABI depends on the target's features). */
static inline __attribute__((always_inline)) void
pass8(float *e, const float *g, size_t i, const v8u *tlo, v8d *acc, v8u *mx, v8u *bits,
      v8i *hit)
{
	v8f c;
	v8u u, key;
	v8i gt;

	memcpy(&c, g + i, sizeof(c));
	if (e) {
		v8f x;
		memcpy(&x, e + i, sizeof(x));
		c += x;
		memcpy(e + i, &c, sizeof(c));
	}
	memcpy(&u, &c, sizeof(u));
	key = u & 0x7fffffffu;
	*acc += __builtin_convertvector((v8f)key, v8d);
	gt = key > *mx;
	*mx = (*mx & ~(v8u)gt) | (key & (v8u)gt);
	*bits = u;
	*hit = key >= *tlo;
}

/* Lists the lanes of c[i, i + 16) that reach tlo (h0, h1: pass8's lane masks; u0, u1:
 * the float bits) at li/lb[cnt...] in index order; returns the new count. Only the
 * lanes taken are written, one bit of a 16-bit mask each: at 1% about one lane in the
 * blocks that have any (writing all 16 lanes and advancing by the test cost a chain of
 * 16 dependent steps per such block, half the pass's time). */
static inline __attribute__((always_inline)) size_t
list16(uint32_t *li, uint32_t *lb, size_t cnt, size_t i, const v8u *u0, const v8u *u1,
       const v8i *h0, const v8i *h1)
{
	const v8u lane = { 1, 2, 4, 8, 16, 32, 64, 128 };
	v8u b = ((v8u)*h0 & lane) | ((v8u)*h1 & (lane << 8));
	uint32_t u[16], mask = 0;

	for (int j = 0; j < 8; j++)
		mask |= b[j];
	memcpy(u, u0, sizeof(*u0));
	memcpy(u + 8, u1, sizeof(*u1));
	while (mask) {
		unsigned j = (unsigned)__builtin_ctz(mask);
		li[cnt] = (uint32_t)(i + j);
		lb[cnt++] = u[j];
		mask &= mask - 1;
	}
	return cnt;
}

#if GC_ISA_DISPATCH && GC_ISA_MAX_N >= 2
#define HAVE_COMPRESS 1
/* list16 without a branch, for the avx512 variant: the lanes that reach tlo compressed
 * into li/lb[cnt...] (all 16 slots written: the spare slots), the count advanced by
 * their number. Not always_inline (its target is wider than pass_part's); it is
 * inlined into pass_avx512. Vectors by pointer, as for pass8. */
VARIANT_AVX512 static inline size_t
list16_avx512(uint32_t *li, uint32_t *lb, size_t cnt, size_t i, const v8u *u0, const v8u *u1,
	      uint32_t tlo)
{
	__m256i a, b;
	memcpy(&a, u0, sizeof(a));
	memcpy(&b, u1, sizeof(b));
	__m512i u = _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
	__m512i key = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
	__mmask16 m = _mm512_cmpge_epu32_mask(key, _mm512_set1_epi32((int)tlo));
	__m512i idx = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)i),
				       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
							 12, 13, 14, 15));

	_mm512_storeu_si512(li + cnt, _mm512_maskz_compress_epi32(m, idx));
	_mm512_storeu_si512(lb + cnt, _mm512_maskz_compress_epi32(m, u));
	return cnt + (size_t)__builtin_popcount((unsigned)m);
}
#else
#define HAVE_COMPRESS 0
#endif

/* One list's share [a, b) of the pass (a a multiple of GC_SEL_SBLOCK); 1 on overflow.
 * Per block: 16 lane sums (element i in lane i % 16), then the lanes in order. A group
 * of 16 is listed whole once the count is at most cap, so a list keeps 16 spare slots. */
static inline __attribute__((always_inline)) int
pass_part(struct gc_cand *cd, int p, float *e, const float *g, size_t a, size_t b,
	  uint32_t *maxkey, int compress)
{
	uint32_t tlo = cd->tlo, *li = cd->idx[p], *lb = cd->bits[p], mk = 0;
	size_t cap = cd->cap - 16, cnt = 0;
	int over = 0;
	v8u tv = (v8u){ 0 } + tlo, mx0 = { 0 }, mx1 = { 0 };

	compress = compress && cd->cap;        /* no lists (k too large): nothing to write */

	for (size_t blk = a; blk < b; blk += GC_SEL_SBLOCK) {
		size_t end = blk + GC_SEL_SBLOCK < b ? blk + GC_SEL_SBLOCK : b, i, j;
		v8d acc0 = { 0 }, acc1 = { 0 };
		double s = 0;

		for (i = blk; i + 16 <= end; i += 16) {
			v8u u0, u1;
			v8i h0, h1, m;
			uint64_t w[4];
			pass8(e, g, i, &tv, &acc0, &mx0, &u0, &h0);
			pass8(e, g, i + 8, &tv, &acc1, &mx1, &u1, &h1);
#if HAVE_COMPRESS
			if (compress && cnt <= cap) {
				cnt = list16_avx512(li, lb, cnt, i, &u0, &u1, tlo);
				continue;
			}
#endif
			m = h0 | h1;
			memcpy(w, &m, sizeof(w));
			if (!(w[0] | w[1] | w[2] | w[3]))
				continue;
			if (cnt > cap) {
				over = 1;
				continue;
			}
			cnt = list16(li, lb, cnt, i, &u0, &u1, &h0, &h1);
		}
		for (j = 0; j < 8; j++)
			s += acc0[j];
		for (j = 0; j < 8; j++)
			s += acc1[j];
		for (; i < end; i++) {          /* the bucket's last < 16 elements */
			float c = e ? (e[i] += g[i]) : g[i];
			uint32_t u;
			memcpy(&u, &c, sizeof(u));
			s += (double)fabsf(c);
			mk = (u & 0x7fffffffu) > mk ? (u & 0x7fffffffu) : mk;
			if ((u & 0x7fffffffu) < tlo)
				continue;
			if (cnt > cap) {
				over = 1;
				continue;
			}
			li[cnt] = (uint32_t)i;
			lb[cnt++] = u;
		}
		cd->bsum[blk / GC_SEL_SBLOCK] = s;
	}
	for (int j = 0; j < 8; j++) {
		mk = mx0[j] > mk ? mx0[j] : mk;
		mk = mx1[j] > mk ? mx1[j] : mk;
	}
	cd->n[p] = cnt;
	*maxkey = mk;
	return over;
}

#define PASS(suffix, attr, compress) \
attr static int pass_##suffix(struct gc_cand *cd, int p, float *e, const float *g, size_t a, \
			      size_t b, uint32_t *maxkey) \
{ \
	return e ? pass_part(cd, p, e, g, a, b, maxkey, compress) \
		 : pass_part(cd, p, NULL, g, a, b, maxkey, compress); \
}
PASS(default, , 0)
#if GC_ISA_DISPATCH
PASS(avx2, VARIANT_AVX2, 0)
PASS(avx512, VARIANT_AVX512, 1)
#endif

static int pass_any(struct gc_cand *cd, int p, float *e, const float *g, size_t a, size_t b,
		    uint32_t *maxkey)
{
	DISPATCH(pass, (cd, p, e, g, a, b, maxkey));
}

int gc_sel_pass(struct gc_cand *cd, float *e, const float *g, size_t n, size_t k,
		uint32_t *hist, uint32_t *fine, double *sum, uint32_t *maxkey)
{
	size_t nb = (n + GC_SEL_SBLOCK - 1) / GC_SEL_SBLOCK, tot = 0;
	uint32_t m = 0;
	int over = 0, parts = cd->parts;
	double s = 0;

	cd->tlo = sample_tlo(cd, e, g, n, k, hist, fine);
#pragma omp parallel for schedule(static) num_threads(parts) reduction(max:m) \
	reduction(|:over) if (parts > 1)
	for (int p = 0; p < parts; p++) {
		size_t a = nb * (size_t)p / (size_t)parts * GC_SEL_SBLOCK;
		size_t b = nb * (size_t)(p + 1) / (size_t)parts * GC_SEL_SBLOCK;
		uint32_t mp;
		b = b < n ? b : n;
		over |= pass_any(cd, p, e, g, a, b, &mp);
		m = mp > m ? mp : m;
	}
	for (size_t j = 0; j < nb; j++)
		s += cd->bsum[j];
	for (int p = 0; p < parts; p++)
		tot += cd->n[p];
	*sum = s;
	*maxkey = m;
	return cd->tlo != UINT32_MAX && !over && tot >= k;
}

static inline __attribute__((always_inline)) size_t
count_body(const struct gc_cand *cd, uint32_t x)
{
	size_t tot = 0;

	for (int p = 0; p < cd->parts; p++) {
		const uint32_t *v = cd->bits[p];
		size_t c = 0;
		for (size_t i = 0; i < cd->n[p]; i++)
			c += (v[i] & 0x7fffffffu) >= x;
		tot += c;
	}
	return tot;
}

#define COUNT(suffix, attr) \
attr static size_t count_##suffix(const struct gc_cand *cd, uint32_t x) \
{ \
	return count_body(cd, x); \
}
COUNT(default, )
#if GC_ISA_DISPATCH
COUNT(avx2, VARIANT_AVX2)
COUNT(avx512, VARIANT_AVX512)
#endif

size_t gc_cand_count(const struct gc_cand *cd, uint32_t x)
{
	DISPATCH(count, (cd, x));
}
