/* formats/records.h: the per-iteration record file a worker rank writes and the
 * orchestrator ingests (format "GCBREC", version 1; see docs/records.md).
 *
 * Layout (little-endian):
 *   bytes 0..7   magic "GCBREC1\n"
 *   u32          header length H
 *   H bytes      header: one JSON object (UTF-8, no NUL) describing the run: method,
 *                params, workload, world, rank, backend, network settings, versions
 *   records      zero or more struct gc_iter_rec, 128 bytes each, in iteration order
 *   trailer      u64 0xFFFFFFFFFFFFFFFF then u64 record count: present only if the
 *                run finished; a file without it is incomplete and never counted as ok
 * Times are seconds (double). Version 1 gained the validation fields in what were
 * reserved bytes (see struct gc_iter_rec), so old and new files parse alike. A writer buffers records in memory during the run and
 * writes the file once at the end (no I/O in the timed loop).
 */
#ifndef GC_RECORDS_H
#define GC_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_REC_MAGIC "GCBREC1\n"
#define GC_REC_TRAILER UINT64_MAX
#define GC_REC_MAX_HEADER (1u << 20)

struct gc_iter_rec {
	uint32_t rank;
	uint32_t iter;          /* 0-based, counting warmup iterations */
	uint32_t warmup;        /* 1 for warmup iterations */
	uint32_t flags;         /* GC_REC_F_* bits; 0 in files of older workers */
	double t_forward;       /* forward compute */
	double t_backward;      /* backward compute (emulated or real), incl. waits for it */
	double t_encode;        /* compressor encode, all buckets, incl. between rounds */
	double t_decode;        /* compressor decode, all buckets */
	double t_comm;          /* inside collectives (sum over buckets and rounds) */
	double t_exposed;       /* communication not hidden by compute: from the end of
	                         * backward to the end of the last decode */
	double t_optimizer;     /* applying the averaged gradient */
	double t_iter;          /* wall clock of the whole iteration */
	double t_iter_gpu;      /* CUDA-event time of the iteration (0 on CPU) */
	double loss;            /* training loss (real training), else 0 */
	uint64_t bytes_sent;    /* payload bytes this rank sent in collectives */
	uint64_t bytes_recv;    /* payload bytes this rank received */
	/* Validation, when flags has GC_REC_F_EVAL (every --eval-every iterations of a
	 * training workload, after t_iter ends, so outside the timed part). Each rank
	 * evaluates its slice of the validation samples (GC_REC_EVAL_N(flags) of them);
	 * a run's accuracy is the mean over its ranks weighted by those counts. These 16
	 * bytes were reserved (0) before: files of older workers read as "not evaluated". */
	double val_loss;        /* mean cross-entropy on the rank's validation slice */
	float val_acc;          /* fraction of the slice classified right */
	float t_eval;           /* seconds the evaluation took (not in t_iter) */
};

#define GC_REC_F_EVAL 1u        /* val_loss, val_acc and t_eval hold an evaluation */
#define GC_REC_EVAL_N(flags) ((flags) >> 8)   /* validation samples it covered */
#define GC_REC_EVAL_MAX_N 0xFFFFFFu

_Static_assert(sizeof(struct gc_iter_rec) == 128, "gc_iter_rec must stay 128 bytes");

/* Write a complete record file (header JSON, records, trailer) to path, atomically
 * (temporary file, then rename). */
gc_rc gc_rec_write(const char *path, const char *header_json, const struct gc_iter_rec *recs,
		   size_t n, gc_err *e);

/* A parsed record file. Caller owns it; release with gc_rec_file_release(). */
typedef struct gc_rec_file {
	char *header;                /* NUL-terminated JSON */
	struct gc_iter_rec *recs;
	size_t n;
	int complete;                /* 1 if the trailer is present and matches n */
} gc_rec_file;

/* Parse an in-memory image. Malformed input (bad magic, header too long or
 * truncated, partial record, trailer count mismatch) fails with GC_E_FORMAT; a
 * missing trailer is not an error but leaves complete = 0. */
gc_rc gc_rec_parse(const void *buf, size_t len, gc_rec_file *out, gc_err *e);
gc_rc gc_rec_read(const char *path, gc_rec_file *out, gc_err *e);
void gc_rec_file_release(gc_rec_file *f);

/* GC_OK when f is complete; else GC_E_FORMAT saying the file is incomplete (the rank
 * did not finish), which is never ingested. */
gc_rc gc_rec_require_complete(const gc_rec_file *f, gc_err *e);

/* The same reader over a file on disk, in chunks the caller sizes, without holding the
 * file whole (the database's ingest). gc_rec_open checks the frame as gc_rec_parse
 * does, with the same messages, and also fails, as gc_rec_require_complete, on a file
 * without its trailer: what a stream yields is a complete file. The header is checked
 * (no NUL byte) when gc_rec_stream_header reads it. Messages name no path (the caller
 * knows it). */
typedef struct gc_rec_stream {
	int fd;          /* -1 when closed */
	int64_t off;     /* of the next record */
	size_t n, done;  /* records in the file, records read so far */
	uint32_t hl;     /* header length */
} gc_rec_stream;

/* Open path and check its frame; on failure nothing is left open. */
gc_rc gc_rec_open(gc_rec_stream *s, const char *path, gc_err *e);

/* The next up to max records into buf; *n gets how many (0 at the end). */
gc_rc gc_rec_next(gc_rec_stream *s, struct gc_iter_rec *buf, size_t max, size_t *n, gc_err *e);

/* The header as a NUL-terminated string (malloc'ed, caller frees) into *out; GC_E_FORMAT
 * when it holds a NUL byte. Any time between gc_rec_open and gc_rec_close. */
gc_rc gc_rec_stream_header(const gc_rec_stream *s, char **out, gc_err *e);

/* Close the file (accepts a closed or failed stream). */
void gc_rec_close(gc_rec_stream *s);

#endif
