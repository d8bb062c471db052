/* orchestrator/ops/rec_ingest.h: what `gcbench ingest` checks before anything is
 * written: record files made by any program (docs/records.md), one per rank of one
 * run, read whole and refused, naming the file, unless
 *   - each is complete (trailer present, count matching) and well-formed;
 *   - each header is one JSON object with the required keys (after the overrides);
 *   - ranks 0..world-1 each appear exactly once (no rank missing or duplicated);
 *   - all headers agree on method, params, workload, model, world, backend and batch;
 *   - every record's rank is its header's; every rank has the same number of records
 *     and of warmup records, and at least one record after warmup.
 * Then gc_ingest_request() fills the database request (db/db.h, gc_db_ingest_run).
 */
#ifndef GC_REC_INGEST_H
#define GC_REC_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "formats/rec_header.h"

struct gc_ingest_opts {
	const char *sweep, *baseline;
	/* NULL/0: from the headers; else they replace what every header says */
	const char *model, *method, *params, *workload;
	int batch;
	int nodes;                /* 0: the distinct "host" values of the headers */
	uint64_t bw_cap_bps;      /* the cap the run's links had (0: unlimited/unknown) */
	double latency_s;         /* the delay they had */
};

struct gc_ingest_set {
	size_t n;                   /* files, sorted by rank */
	gc_rec_file *files;
	struct gc_rec_header *hdr;
	const char **names;         /* the paths, in rank order (not owned) */
	int iterations, warmup;     /* per rank: records after warmup, warmup records */
	int nodes;                  /* o->nodes, else the distinct "host"s of the headers */
	char point_key[512];
};

/* Read and check paths[0..n) (see above). *out is owned by the caller on success and
 * empty on error; release with gc_ingest_set_release (accepts an empty one). */
gc_rc gc_ingest_load(const char *const *paths, size_t n, const struct gc_ingest_opts *o,
		     struct gc_ingest_set *out, gc_err *e);
void gc_ingest_set_release(struct gc_ingest_set *s);

/* The request for gc_db_ingest_run; points into s, o and env (keep them alive). */
void gc_ingest_request(const struct gc_ingest_set *s, const struct gc_ingest_opts *o,
		       const struct gc_envinfo *env, struct gc_db_ingest_req *q);

#endif
