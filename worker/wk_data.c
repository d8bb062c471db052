/* worker/wk_data.c: the training data sets: the GCBDAT1 reader, the generated Gaussian
 * clusters, and a rank's shuffled shard of the training samples. */
#include "wk_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "wk.h"

#define GEN_SIDE 28
#define GEN_CLASSES 10
#define GEN_CENTRE_SCALE 0.1f
#define GEN_SEED_CENTRES 1234
#define GEN_SEED_SAMPLES 1000

static uint32_t u32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static gc_rc alloc_data(gc_data *d, gc_err *e)
{
	size_t n = d->n_train + d->n_val;
	d->features = (size_t)d->channels * (size_t)d->height * (size_t)d->width;
	d->x = malloc(n * d->features * sizeof(float));
	d->y = malloc(n * sizeof(int));
	if (!d->x || !d->y) {
		gc_data_release(d);
		return gc_fail(e, GC_E_NOMEM, "out of memory for %zu samples", n);
	}
	return GC_OK;
}

/* The six counts of the header, checked against the limits of wk_data.h. */
static gc_rc check_counts(const uint32_t v[6], gc_err *e)
{
	static const char *const what[6] = { "n_train", "n_val", "channels", "height", "width",
					     "classes" };
	for (int i = 0; i < 6; i++)
		if (v[i] == 0 || (i < 2 && v[i] > GC_DATA_MAX_SAMPLES) ||
		    (i >= 2 && i < 5 && v[i] > GC_DATA_MAX_FEATURES))
			return gc_fail(e, GC_E_FORMAT, "data set: %s %u is out of range", what[i], v[i]);
	if ((uint64_t)v[2] * v[3] * v[4] > GC_DATA_MAX_FEATURES)
		return gc_fail(e, GC_E_FORMAT, "data set: %u x %u x %u features exceed %u", v[2], v[3],
			       v[4], GC_DATA_MAX_FEATURES);
	if (v[3] % 2 || v[4] % 2)
		return gc_fail(e, GC_E_FORMAT, "data set: height %u and width %u must be even", v[3],
			       v[4]);
	if (v[5] < 2 || v[5] > 256)
		return gc_fail(e, GC_E_FORMAT, "data set: classes %u is not in 2..256", v[5]);
	return GC_OK;
}

static gc_rc parse_header(const unsigned char *b, size_t len, gc_data *d, float *scale,
			  gc_err *e)
{
	uint32_t v[6];
	uint64_t n, need;
	if (len < GC_DATA_HEADER || memcmp(b, GC_DATA_MAGIC, 8))
		return gc_fail(e, GC_E_FORMAT, "not a gcbench data set (bad magic)");
	memcpy(d->name, b + 8, 16);
	d->name[16] = 0;
	for (int i = 0; i < 6; i++)
		v[i] = u32_at(b + 24 + 4 * i);
	memcpy(scale, b + 48, 4);
	gc_rc rc = check_counts(v, e);
	if (rc)
		return rc;
	if (!isfinite(*scale) || !(*scale > 0))
		return gc_fail(e, GC_E_FORMAT, "data set: scale %g is not a positive number",
			       (double)*scale);
	n = (uint64_t)v[0] + v[1];
	need = GC_DATA_HEADER + n * ((uint64_t)v[2] * v[3] * v[4] + 1);
	if (need != len)
		return gc_fail(e, GC_E_FORMAT, "data set: %zu bytes, but its header needs %llu",
			       len, (unsigned long long)need);
	d->n_train = v[0], d->n_val = v[1];
	d->channels = (int)v[2], d->height = (int)v[3], d->width = (int)v[4];
	d->classes = (int)v[5];
	return GC_OK;
}

gc_rc gc_data_parse(const void *buf, size_t len, gc_data *out, gc_err *e)
{
	const unsigned char *b = buf;
	float scale;
	size_t n;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	rc = parse_header(b, len, out, &scale, e);
	if (rc) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	n = out->n_train + out->n_val;
	const unsigned char *px = b + GC_DATA_HEADER;
	size_t feat = (size_t)out->channels * (size_t)out->height * (size_t)out->width;
	const unsigned char *lab = px + n * feat;
	for (size_t i = 0; i < n; i++)
		if (lab[i] >= out->classes)
			return gc_fail(e, GC_E_FORMAT, "data set: sample %zu has label %u, not below %d "
				       "classes", i, lab[i], out->classes);
	if ((rc = alloc_data(out, e)))
		return rc;
	for (size_t i = 0; i < n * feat; i++)
		out->x[i] = (float)px[i] * scale;
	for (size_t i = 0; i < n; i++)
		out->y[i] = lab[i];
	return GC_OK;
}

gc_rc gc_data_read(const char *path, gc_data *out, gc_err *e)
{
	unsigned char *buf;
	size_t len;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if ((rc = gc_read_whole(path, "data set", 0, &buf, &len, e)))
		return rc;
	rc = gc_data_parse(buf, len, out, e);
	free(buf);
	if (rc && e) {
		char inner[GC_ERRLEN];
		snprintf(inner, sizeof(inner), "%s", e->msg);
		gc_fail(e, rc, "'%s': %s", path, inner);
	}
	return rc;
}

gc_rc gc_data_generate(gc_data *d, size_t n_train, size_t n_val, gc_err *e)
{
	float *centres = malloc(sizeof(float) * GEN_CLASSES * GEN_SIDE * GEN_SIDE);
	uint64_t s = GEN_SEED_SAMPLES;
	gc_rc rc;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "generated");
	d->n_train = n_train, d->n_val = n_val;
	d->channels = 1, d->height = d->width = GEN_SIDE, d->classes = GEN_CLASSES;
	if (!centres)
		return gc_fail(e, GC_E_NOMEM, "out of memory for the class centres");
	rc = alloc_data(d, e);
	if (!rc) {
		gc_wk_fill_random(centres, GEN_CLASSES * d->features, GEN_SEED_CENTRES, GEN_CENTRE_SCALE);
		gc_wk_fill_random(d->x, (n_train + n_val) * d->features, s, 1.0f);
		for (size_t i = 0; i < n_train + n_val; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			int c = (int)((s >> 33) % GEN_CLASSES);
			d->y[i] = c;
			for (size_t k = 0; k < d->features; k++)
				d->x[i * d->features + k] += centres[(size_t)c * d->features + k];
		}
	}
	free(centres);
	return rc;
}

void gc_data_release(gc_data *d)
{
	if (!d)
		return;
	free(d->x);
	free(d->y);
	memset(d, 0, sizeof(*d));
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle(gc_data_shard *s)
{
	uint64_t st = mix(((uint64_t)s->rank << 32) ^ s->epoch);
	for (size_t i = s->n - 1; i > 0; i--) {
		st = mix(st);
		size_t j = (size_t)(st % (i + 1)), t = s->idx[i];
		s->idx[i] = s->idx[j], s->idx[j] = t;
	}
}

gc_rc gc_data_shard_init(gc_data_shard *s, const gc_data *d, int rank, int world, int batch,
			 gc_err *e)
{
	memset(s, 0, sizeof(*s));
	s->d = d, s->rank = rank, s->batch = batch;
	s->n = d->n_train > (size_t)rank ? (d->n_train - (size_t)rank + (size_t)world - 1) / (size_t)world : 0;
	if (s->n < (size_t)batch)
		return gc_fail(e, GC_E_INVAL, "data set '%s': rank %d gets %zu of its %zu training "
			       "samples, fewer than a batch of %d; use a smaller batch or fewer ranks",
			       d->name, rank, s->n, d->n_train, batch);
	s->idx = malloc(s->n * sizeof(size_t));
	s->xb = malloc((size_t)batch * d->features * sizeof(float));
	s->yb = malloc((size_t)batch * sizeof(int));
	if (!s->idx || !s->xb || !s->yb) {
		gc_data_shard_release(s);
		return gc_fail(e, GC_E_NOMEM, "out of memory for the data shard");
	}
	for (size_t i = 0; i < s->n; i++)
		s->idx[i] = (size_t)rank + i * (size_t)world;
	shuffle(s);
	return GC_OK;
}

void gc_data_shard_next(gc_data_shard *s)
{
	const gc_data *d = s->d;
	if (s->next + (size_t)s->batch > s->n) {
		s->epoch++;
		s->next = 0;
		shuffle(s);
	}
	for (int i = 0; i < s->batch; i++) {
		size_t j = s->idx[s->next + (size_t)i];
		memcpy(s->xb + (size_t)i * d->features, d->x + j * d->features,
		       d->features * sizeof(float));
		s->yb[i] = d->y[j];
	}
	s->next += (size_t)s->batch;
}

void gc_data_shard_release(gc_data_shard *s)
{
	if (!s)
		return;
	free(s->idx);
	free(s->xb);
	free(s->yb);
	memset(s, 0, sizeof(*s));
}
