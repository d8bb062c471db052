/* worker/wk_data.h: the data sets the training workloads learn, and the file format
 * tools/digits_convert.py writes ("GCBDAT1"; see docs/worker.md, "Training data").
 *
 * File layout (little-endian):
 *   bytes 0..7   magic "GCBDAT1\n"
 *   char[16]     data set name, NUL-padded ("digits")
 *   u32 x 6      n_train, n_val, channels, height, width, classes
 *   f32          scale: a pixel's value is its byte times scale
 *   pixels       (n_train + n_val) x channels x height x width bytes, sample-major, each
 *                sample channel-major (CHW); the training samples first, then the
 *                validation samples (the split is fixed by the converter)
 *   labels       n_train + n_val bytes, each < classes
 * Nothing follows the labels. Limits: 1 <= n_train, n_val < 2^24; channels x height x
 * width <= 65536 with height and width even (the CNN pools 2x2); 2 <= classes <= 256.
 */
#ifndef GC_WK_DATA_H
#define GC_WK_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_DATA_MAGIC "GCBDAT1\n"
#define GC_DATA_HEADER 52              /* magic, name, 6 x u32, f32 */
#define GC_DATA_MAX_SAMPLES 0xFFFFFFu       /* fits GC_REC_EVAL_N */
#define GC_DATA_MAX_FEATURES 65536u

/* A data set in memory: floats, CHW per sample; train samples [0, n_train), validation
 * samples [n_train, n_train + n_val). Caller owns it; release with gc_data_release. */
typedef struct gc_data {
	char name[17];
	size_t n_train, n_val;
	int channels, height, width, classes;
	size_t features;               /* channels x height x width */
	float *x;                      /* (n_train + n_val) x features */
	int *y;                        /* n_train + n_val labels */
} gc_data;

/* Parse an in-memory image of the format above. Every violation (bad magic, a count
 * out of range, a size that does not match, a label >= classes, a non-finite or
 * non-positive scale) fails with GC_E_FORMAT naming the field and value. */
gc_rc gc_data_parse(const void *buf, size_t len, gc_data *out, gc_err *e);

/* Read and parse a file (GC_E_NOTFOUND if it does not exist). */
gc_rc gc_data_read(const char *path, gc_data *out, gc_err *e);

/* The generated fallback: Gaussian clusters (one centre per class from a fixed seed,
 * N(centre, 1) samples from seed), 1 x 28 x 28, 10 classes; the same on every rank. */
gc_rc gc_data_generate(gc_data *out, size_t n_train, size_t n_val, gc_err *e);

void gc_data_release(gc_data *d);      /* accepts NULL; leaves it empty */

/* The built-in data set (the digits, embedded into gcbench-worker when the build found
 * them): its bytes, or NULL with *len = 0 when this build has none. Defined by the
 * program (worker/wk_blob.S), not by libgcbench.a. */
const void *gc_data_builtin(size_t *len);

/* A rank's view of the training samples: every world-th sample starting at rank,
 * visited in a fresh pseudo-random order each epoch (seeded by rank and epoch). */
typedef struct gc_data_shard {
	const gc_data *d;
	size_t *idx, n, next;
	uint64_t epoch;
	int rank;
	float *xb;                     /* batch x features, gathered (owned) */
	int *yb;                       /* batch labels (owned) */
	int batch;
} gc_data_shard;

/* GC_E_INVAL if the rank's share is smaller than one batch. */
gc_rc gc_data_shard_init(gc_data_shard *s, const gc_data *d, int rank, int world, int batch,
			 gc_err *e);
/* Gather the next batch into s->xb, s->yb (reshuffling at the end of an epoch). */
void gc_data_shard_next(gc_data_shard *s);
void gc_data_shard_release(gc_data_shard *s);

#endif
