/* orchestrator/ops/rec_ingest.c: record files of one run from any producer, read and
 * checked for `gcbench ingest` (rec_ingest.h). */
#include "rec_ingest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"
#include "netem/rate.h"

void gc_ingest_set_release(struct gc_ingest_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->files && i < s->n; i++)
		gc_rec_file_release(&s->files[i]);
	free(s->files);
	free(s->hdr);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* the overrides of o replace what the header says */
static void override(struct gc_rec_header *h, const struct gc_ingest_opts *o)
{
	const struct { const char *v; char *dst; size_t n; unsigned bit; } s[] = {
		{ o->model, h->model, sizeof(h->model), GC_RECH_MODEL },
		{ o->method, h->method, sizeof(h->method), GC_RECH_METHOD },
		{ o->params, h->params, sizeof(h->params), GC_RECH_PARAMS },
		{ o->workload, h->workload, sizeof(h->workload), GC_RECH_WORKLOAD },
	};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (s[i].v) {
			gc_strlcpy(s[i].dst, s[i].v, s[i].n);
			h->have |= s[i].bit;
		}
	if (o->batch > 0) {
		h->batch = o->batch;
		h->have |= GC_RECH_BATCH;
	}
}

/* Read one file and its header; f and h are filled (f released by the caller). */
static gc_rc load_one(const char *path, const struct gc_ingest_opts *o, gc_rec_file *f,
		      struct gc_rec_header *h, gc_err *e)
{
	gc_rc rc = gc_rec_read(path, f, e);   /* its message names the path */

	if (rc)
		return rc;
	if (!f->complete)
		return gc_fail(e, GC_E_FORMAT, "'%s' is incomplete (no trailer: the rank did not "
			       "finish, or the file was cut): ingest complete files only", path);
	rc = gc_rec_header_parse(f->header, strlen(f->header), h, e);
	if (!rc) {
		override(h, o);
		rc = gc_rec_header_require(h, e);
	}
	if (rc && e) {
		char inner[GC_ERRLEN];
		gc_strlcpy(inner, e->msg, sizeof(inner));
		gc_fail(e, rc, "'%s': %s", path, inner);
	}
	return rc;
}

/* a's key and b's must agree (b: the first file's) */
static gc_rc agree(const char *const *names, size_t i, const char *key, const char *a,
		   const char *b, gc_err *e)
{
	if (!strcmp(a, b))
		return GC_OK;
	return gc_fail(e, GC_E_FORMAT, "'%s' says %s '%s' but '%s' says '%s': the files are not "
		       "of one run (ingest each run by itself)", names[i], key, a, names[0], b);
}

static gc_rc agree_all(const struct gc_ingest_set *s, const char *const *nm, size_t i,
		       gc_err *e)
{
	const struct gc_rec_header *a = &s->hdr[i], *b = &s->hdr[0];
	char wa[24], wb[24], ba[24], bb[24];
	gc_rc rc;

	snprintf(wa, sizeof(wa), "%lld", a->world);
	snprintf(wb, sizeof(wb), "%lld", b->world);
	snprintf(ba, sizeof(ba), "%lld", a->batch);
	snprintf(bb, sizeof(bb), "%lld", b->batch);
	if ((rc = agree(nm, i, "world", wa, wb, e)) || (rc = agree(nm, i, "method", a->method, b->method, e)) ||
	    (rc = agree(nm, i, "params", a->params, b->params, e)) ||
	    (rc = agree(nm, i, "workload", a->workload, b->workload, e)) ||
	    (rc = agree(nm, i, "model", a->model, b->model, e)) ||
	    (rc = agree(nm, i, "backend", a->backend, b->backend, e)))
		return rc;
	return agree(nm, i, "batch", ba, bb, e);
}

/* one file's records: its rank in each, counts of records and warmup records */
static gc_rc rank_records(const struct gc_ingest_set *s, size_t i, int *iters, int *warm,
			  gc_err *e)
{
	const gc_rec_file *f = &s->files[i];
	size_t w = 0;

	for (size_t k = 0; k < f->n; k++) {
		if (f->recs[k].rank != (uint32_t)s->hdr[i].rank)
			return gc_fail(e, GC_E_FORMAT, "'%s': record %zu is of rank %u, the header "
				       "says rank %lld", s->names[i], k, f->recs[k].rank,
				       s->hdr[i].rank);
		w += f->recs[k].warmup ? 1 : 0;
	}
	if (f->n - w == 0 || f->n > 1000000000)
		return gc_fail(e, GC_E_FORMAT, "'%s' has %zu records, %zu of them warmup: a run "
			       "needs at least one iteration after warmup", s->names[i], f->n, w);
	*iters = (int)(f->n - w);
	*warm = (int)w;
	return GC_OK;
}

/* sort the files into rank order; refuse a missing or duplicated rank */
static gc_rc by_rank(struct gc_ingest_set *s, const char *const *paths, gc_err *e)
{
	size_t n = s->n, world = (size_t)s->hdr[0].world;
	gc_rec_file *f = calloc(n, sizeof(*f));
	struct gc_rec_header *h = calloc(n, sizeof(*h));
	const char **nm = calloc(n, sizeof(*nm));
	gc_rc rc = f && h && nm ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");

	for (size_t i = 0; !rc && i < n; i++) {
		size_t r = (size_t)s->hdr[i].rank;
		if (r >= n) {
			rc = gc_fail(e, GC_E_FORMAT, "'%s' is rank %zu of a world of %zu: give "
				     "one file per rank", paths[i], r, world);
		} else if (nm[r]) {
			rc = gc_fail(e, GC_E_FORMAT, "'%s' and '%s' are both rank %zu: give one file "
				     "per rank", nm[r], paths[i], r);
		} else {
			f[r] = s->files[i];
			h[r] = s->hdr[i];
			nm[r] = paths[i];
		}
	}
	if (rc) {
		free(f), free(h), free(nm);
		return rc;
	}
	free(s->files), free(s->hdr), free(s->names);
	s->files = f, s->hdr = h, s->names = nm;
	return GC_OK;
}

/* the smallest rank below world that no header gives */
static size_t first_missing(const struct gc_ingest_set *s, size_t world)
{
	for (size_t r = 0; r < world; r++) {
		size_t i;
		for (i = 0; i < s->n && (size_t)s->hdr[i].rank != r; i++)
			;
		if (i == s->n)
			return r;
	}
	return world;
}

static gc_rc check_set(struct gc_ingest_set *s, const char *const *paths, gc_err *e)
{
	size_t world = (size_t)s->hdr[0].world;
	gc_rc rc;

	for (size_t i = 1; i < s->n; i++)
		if ((rc = agree_all(s, paths, i, e)))
			return rc;
	if (s->n < world)
		return gc_fail(e, GC_E_FORMAT, "the run has world %zu but %zu file%s given: rank "
			       "%zu is missing (give one file per rank)", world, s->n,
			       s->n == 1 ? " was" : "s were", first_missing(s, world));
	if ((rc = by_rank(s, paths, e)))
		return rc;
	for (size_t i = 0; i < s->n; i++) {
		int it = 0, w = 0;
		if ((rc = rank_records(s, i, &it, &w, e)))
			return rc;
		if (i && (it != s->iterations || w != s->warmup))
			return gc_fail(e, GC_E_FORMAT, "'%s' has %d iterations after %d warmup, "
				       "'%s' %d after %d: every rank runs the same iterations",
				       s->names[i], it, w, s->names[0], s->iterations, s->warmup);
		s->iterations = it, s->warmup = w;
	}
	return GC_OK;
}

/* the distinct "host" values of the headers (1 when none gives one) */
static int count_hosts(const struct gc_ingest_set *s)
{
	int n = 0;

	for (size_t i = 0; i < s->n; i++) {
		size_t k;
		if (!(s->hdr[i].have & GC_RECH_HOST))
			continue;
		for (k = 0; k < i && strcmp(s->hdr[k].host, s->hdr[i].host); k++)
			;
		n += k == i;
	}
	return n ? n : 1;
}

/* snprintf that may cut (a point key longer than its field is cut, not refused) */
static void key_printf(char *dst, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void key_printf(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(dst, n, fmt, ap) < 0)
		dst[0] = 0;
	va_end(ap);
}

static void make_key(struct gc_ingest_set *s, const struct gc_ingest_opts *o)
{
	const struct gc_rec_header *h = &s->hdr[0];
	char bw[32] = "unlimited";

	if (o->bw_cap_bps)
		gc_rate_format(o->bw_cap_bps, bw, sizeof(bw));
	key_printf(s->point_key, sizeof(s->point_key), "ingest;workload=%s;model=%s;method=%s;"
		 "params=%s;world=%lld;batch=%lld;backend=%s;bw=%s;latency=%.9g", h->workload,
		 h->model, h->method, h->params, h->world, h->batch, h->backend, bw, o->latency_s);
}

gc_rc gc_ingest_load(const char *const *paths, size_t n, const struct gc_ingest_opts *o,
		     struct gc_ingest_set *out, gc_err *e)
{
	gc_rc rc = GC_OK;

	memset(out, 0, sizeof(*out));
	if (!n)
		return gc_fail(e, GC_E_INVAL, "no record file given");
	out->files = calloc(n, sizeof(*out->files));
	out->hdr = calloc(n, sizeof(*out->hdr));
	if (!out->files || !out->hdr)
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
	for (size_t i = 0; !rc && i < n; i++) {
		rc = load_one(paths[i], o, &out->files[i], &out->hdr[i], e);
		out->n = i + 1;
	}
	if (!rc)
		rc = check_set(out, paths, e);
	if (!rc) {
		make_key(out, o);
		out->nodes = o->nodes > 0 ? o->nodes : count_hosts(out);
	}
	if (rc)
		gc_ingest_set_release(out);
	return rc;
}

void gc_ingest_request(const struct gc_ingest_set *s, const struct gc_ingest_opts *o,
		       const struct gc_envinfo *env, struct gc_db_ingest_req *q)
{
	const struct gc_rec_header *h = &s->hdr[0];

	memset(q, 0, sizeof(*q));
	q->sweep = o->sweep;
	q->baseline = o->baseline;
	q->env = env;
	q->producer = h->producer;
	q->files = s->files;
	q->names = s->names;
	q->n = s->n;
	q->run.point_key = s->point_key;
	q->run.workload = h->workload;
	q->run.model = h->model;
	q->run.method = h->method;
	q->run.params = h->params;
	q->run.world_size = (int)h->world;
	q->run.nodes = s->nodes;
	q->run.batch = (int)h->batch;
	q->run.bw_cap_bps = o->bw_cap_bps;
	q->run.latency_s = o->latency_s;
	q->run.backend = h->backend;
	q->run.compute_scale = 1;
	q->run.iterations = s->iterations;
	q->run.warmup = s->warmup;
}
