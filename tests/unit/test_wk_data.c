/* tests/unit/test_wk_data.c: the training data sets (worker/wk_data.c): the GCBDAT1
 * reader on good and malformed images, the generated clusters, a rank's shard, and the
 * digits file the build converts (skipped when python3-sklearn was absent). */
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worker/wk_data.h"

/* A GCBDAT1 image: n_train, n_val, c x h x w pixels (value i % 17), classes. */
static unsigned char *image(uint32_t nt, uint32_t nv, uint32_t c, uint32_t h, uint32_t w,
			    uint32_t classes, float scale, size_t *len)
{
	uint32_t v[6] = { nt, nv, c, h, w, classes };
	size_t n = (size_t)nt + nv, f = (size_t)c * h * w;
	unsigned char *b;
	*len = GC_DATA_HEADER + n * (f + 1);
	b = calloc(1, *len);
	memcpy(b, GC_DATA_MAGIC, 8);
	memcpy(b + 8, "tiny", 4);
	for (int i = 0; i < 6; i++)
		for (int k = 0; k < 4; k++)
			b[24 + 4 * i + k] = (unsigned char)(v[i] >> (8 * k));
	memcpy(b + 48, &scale, 4);
	for (size_t i = 0; i < n * f; i++)
		b[GC_DATA_HEADER + i] = (unsigned char)(i % 17);
	for (size_t i = 0; i < n; i++)
		b[GC_DATA_HEADER + n * f + i] = (unsigned char)(i % classes);
	return b;
}

static void test_parse_ok(void)
{
	size_t len;
	unsigned char *b = image(6, 2, 1, 2, 4, 3, 0.5f, &len);
	gc_data d;
	gc_err e;
	CHECK_EQ_INT(gc_data_parse(b, len, &d, &e), GC_OK);
	CHECK_STR(d.name, "tiny");
	CHECK_EQ_INT(d.n_train, 6);
	CHECK_EQ_INT(d.n_val, 2);
	CHECK_EQ_INT(d.features, 8);
	CHECK_EQ_INT(d.classes, 3);
	CHECK_NEAR(d.x[9], 9 * 0.5, 1e-6);           /* sample 1, pixel 1 */
	CHECK_NEAR(d.x[63], (63 % 17) * 0.5, 1e-6);  /* the last validation pixel */
	CHECK_EQ_INT(d.y[7], 7 % 3);
	gc_data_release(&d);
	gc_data_release(&d);                          /* twice: stays empty */
	gc_data_release(NULL);
	free(b);
}

/* Every malformed image fails with GC_E_FORMAT and a message naming what is wrong. */
static void test_parse_malformed(void)
{
	static const struct { int field; uint32_t value; const char *msg; } cases[] = {
		{ 0, 0, "n_train 0 is out of range" },
		{ 1, 0, "n_val 0 is out of range" },
		{ 0, 0x1000000, "n_train 16777216 is out of range" },
		{ 2, 0, "channels 0" },
		{ 3, 3, "must be even" },
		{ 4, 70000, "width 70000 is out of range" },
		{ 5, 1, "classes 1 is not in 2..256" },
		{ 5, 257, "classes 257" },
	};
	size_t len;
	gc_data d;
	gc_err e;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char *b = image(6, 2, 1, 2, 4, 3, 1.0f, &len);
		for (int k = 0; k < 4; k++)
			b[24 + 4 * cases[i].field + k] = (unsigned char)(cases[i].value >> (8 * k));
		CHECK_EQ_INT(gc_data_parse(b, len, &d, &e), GC_E_FORMAT);
		CHECKF(strstr(e.msg, cases[i].msg) != NULL, "case %zu: '%s'", i, e.msg);
		CHECK(d.x == NULL && d.n_train == 0);
		free(b);
	}
	unsigned char *b = image(6, 2, 1, 2, 4, 3, 1.0f, &len);
	CHECK_EQ_INT(gc_data_parse(b, len - 1, &d, &e), GC_E_FORMAT);      /* truncated */
	CHECK(strstr(e.msg, "bytes, but its header needs") != NULL);
	CHECK_EQ_INT(gc_data_parse(b, 20, &d, &e), GC_E_FORMAT);           /* header cut */
	CHECK(strstr(e.msg, "bad magic") != NULL);
	b[len - 1] = 3;                                                     /* label = classes */
	CHECK_EQ_INT(gc_data_parse(b, len, &d, &e), GC_E_FORMAT);
	CHECK(strstr(e.msg, "sample 7 has label 3") != NULL);
	b[0] = 'X';
	CHECK_EQ_INT(gc_data_parse(b, len, &d, &e), GC_E_FORMAT);
	CHECK(strstr(e.msg, "bad magic") != NULL);
	free(b);
	const float bad_scale[] = { 0.0f, -1.0f, NAN, INFINITY };
	for (size_t i = 0; i < 4; i++) {
		b = image(6, 2, 1, 2, 4, 3, bad_scale[i], &len);
		CHECK_EQ_INT(gc_data_parse(b, len, &d, &e), GC_E_FORMAT);
		CHECK(strstr(e.msg, "is not a positive number") != NULL);
		free(b);
	}
	b = image(6, 2, 1, 2, 4, 3, 1.0f, &len);
	unsigned char *big = calloc(1, len + 1);
	memcpy(big, b, len);
	CHECK_EQ_INT(gc_data_parse(big, len + 1, &d, &e), GC_E_FORMAT);    /* trailing byte */
	free(big);
	free(b);
	CHECK_EQ_INT(gc_data_read("/nonexistent/d.gcbd", &d, &e), GC_E_NOTFOUND);
	CHECK(strstr(e.msg, "cannot open data set '/nonexistent/d.gcbd'") != NULL);
}

/* Over an epoch a rank sees each of its samples once; ranks' samples are disjoint. */
static void test_shard(void)
{
	gc_data d;
	gc_data_shard s[3];
	gc_err e;
	int seen[30] = { 0 };
	CHECK_EQ_INT(gc_data_generate(&d, 30, 5, &e), GC_OK);
	CHECK_STR(d.name, "generated");
	CHECK_EQ_INT(d.features, 784);
	for (int i = 0; i < 30; i++)
		d.y[i] = i;                                   /* label = sample index */
	for (int r = 0; r < 3; r++) {
		CHECK_EQ_INT(gc_data_shard_init(&s[r], &d, r, 3, 5, &e), GC_OK);
		for (int b = 0; b < 2; b++) {                 /* 10 samples = 2 batches */
			gc_data_shard_next(&s[r]);
			for (int i = 0; i < 5; i++) {
				CHECK_EQ_INT(s[r].yb[i] % 3, r);
				seen[s[r].yb[i]]++;
				CHECK(!memcmp(s[r].xb + i * 784, d.x + s[r].yb[i] * 784, 784 * sizeof(float)));
			}
		}
		gc_data_shard_next(&s[r]);                    /* a new epoch, reshuffled */
		CHECK_EQ_INT(s[r].epoch, 1);
		gc_data_shard_release(&s[r]);
	}
	for (int i = 0; i < 30; i++)
		CHECKF(seen[i] == 1, "sample %d seen %d times", i, seen[i]);
	CHECK_EQ_INT(gc_data_shard_init(&s[0], &d, 0, 3, 11, &e), GC_E_INVAL);
	CHECK(strstr(e.msg, "fewer than a batch of 11") != NULL);
	gc_data_release(&d);
}

/* The digits as the build converted them: the fixed split and sane pixel values. */
static void test_digits_file(void)
{
	const char *build = getenv("BUILD");
	char path[512];
	gc_data d;
	gc_err e;
	snprintf(path, sizeof(path), "%s/data/digits.gcbd", build ? build : "build");
	gc_rc rc = gc_data_read(path, &d, &e);
	if (rc == GC_E_NOTFOUND) {
		SKIP("%s is not built (apt-get install python3-sklearn, then make)", path);
		return;
	}
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_STR(d.name, "digits");
	CHECK_EQ_INT(d.n_train, 1500);
	CHECK_EQ_INT(d.n_val, 297);
	CHECK_EQ_INT(d.height, 8);
	CHECK_EQ_INT(d.classes, 10);
	int count[10] = { 0 };
	float mx = 0;
	for (size_t i = 0; i < d.n_train + d.n_val; i++)
		count[d.y[i]]++;
	for (size_t i = 0; i < (d.n_train + d.n_val) * d.features; i++)
		mx = d.x[i] > mx ? d.x[i] : mx;
	for (int k = 0; k < 10; k++)
		CHECKF(count[k] > 150, "class %d has %d samples", k, count[k]);
	CHECK_NEAR(mx, 1.0, 1e-6);
	gc_data_release(&d);
}

int main(void)
{
	GCT_SUITE("wk_data");
	GCT_RUN(test_parse_ok);
	GCT_RUN(test_parse_malformed);
	GCT_RUN(test_shard);
	GCT_RUN(test_digits_file);
	return gct_finish();
}
