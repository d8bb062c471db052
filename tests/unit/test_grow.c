/* tests/unit/test_grow.c: the growable array (common/grow.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "harness.h"

struct pt {
	double x, y;
};

/* From nothing to first, then doubling; need beyond twice cap jumps to need; the
 * elements already there survive every move. */
static void test_growth(void)
{
	struct pt *v = NULL;
	size_t cap = 0, n = 0;

	CHECK(GC_GROW(v, cap, n, 8) == GC_OK);          /* nothing needed: nothing done */
	CHECK(v == NULL && cap == 0);
	for (; n < 100; n++) {
		CHECK(GC_GROW(v, cap, n + 1, 8) == GC_OK);
		CHECK(v != NULL && cap >= n + 1);
		v[n].x = (double)n;
		v[n].y = -(double)n;
		if (n == 0)
			CHECK_EQ_INT(cap, 8);
		if (n == 8)
			CHECK_EQ_INT(cap, 16);
	}
	CHECK_EQ_INT(cap, 128);
	CHECK(GC_GROW(v, cap, 1000, 8) == GC_OK);       /* more than twice: exactly need */
	CHECK_EQ_INT(cap, 1000);
	CHECK(GC_GROW(v, cap, 999, 8) == GC_OK);        /* room enough: unchanged */
	CHECK_EQ_INT(cap, 1000);
	for (size_t i = 0; i < n; i++)
		CHECKF(v[i].x == (double)i && v[i].y == -(double)i, "element %zu moved wrong", i);
	free(v);
}

/* A byte size that overflows size_t, or an allocation that cannot be made: GC_E_NOMEM,
 * and the array and its capacity are as they were. */
static void test_failure_keeps_array(void)
{
	char *c = NULL;
	struct pt *v = NULL;
	size_t ccap = 0, cap = 0, nbig = SIZE_MAX / sizeof(*v) + 1;

	CHECK(GC_GROW(v, cap, 4, 4) == GC_OK);
	v[3].x = 3.5;
	CHECK(GC_GROW(v, cap, nbig, 4) == GC_E_NOMEM);
	CHECK(v != NULL && cap == 4 && v[3].x == 3.5);
	/* doubling would overflow but need alone fits: asks for need (and fails here) */
	CHECK(GC_GROW(c, ccap, 16, 16) == GC_OK);
	strcpy(c, "kept");
#if defined(__SANITIZE_ADDRESS__)
	(void)ccap;
#else
	CHECK(GC_GROW(c, ccap, SIZE_MAX / 2 + 1, 16) == GC_E_NOMEM);  /* no such memory */
	CHECK(ccap == 16 && !strcmp(c, "kept"));
	CHECK(GC_GROW(v, cap, nbig - 1, 4) == GC_E_NOMEM);
	CHECK(v != NULL && cap == 4 && v[3].x == 3.5);
#endif
	free(c);
	free(v);
}

int main(void)
{
	GCT_SUITE("grow");
	GCT_RUN(test_growth);
	GCT_RUN(test_failure_keeps_array);
	return gct_finish();
}
