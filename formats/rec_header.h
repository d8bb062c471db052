/* formats/rec_header.h: the JSON header of a record file (formats/records.h), read
 * back: the whole text is checked to be one JSON object (RFC 8259, nesting at most 64
 * deep) and the keys gcbench needs are taken from its top level. docs/records.md,
 * "Header", is the contract; any other key is kept only in the stored text.
 *
 *   struct gc_rec_header h;
 *   if (gc_rec_header_parse(f.header, strlen(f.header), &h, &e) ||
 *       gc_rec_header_require(&h, &e)) ... refuse the file, e says which key and why
 */
#ifndef GC_REC_HEADER_H
#define GC_REC_HEADER_H

#include <stddef.h>

#include "result.h"

#define GC_RECH_NAME 64     /* method, backend: at most 63 bytes */
#define GC_RECH_TEXT 256    /* producer, host: at most 255 bytes */
#define GC_RECH_PATH 4096   /* workload, model (a csv: model is a path), params: at most 4095 */

/* bits of gc_rec_header.have: the keys the header gives */
enum {
	GC_RECH_PRODUCER = 1u << 0, GC_RECH_METHOD = 1u << 1, GC_RECH_PARAMS = 1u << 2,
	GC_RECH_WORKLOAD = 1u << 3, GC_RECH_MODEL = 1u << 4, GC_RECH_BACKEND = 1u << 5,
	GC_RECH_WORLD = 1u << 6, GC_RECH_RANK = 1u << 7, GC_RECH_BATCH = 1u << 8,
	GC_RECH_HOST = 1u << 9,   /* optional */
};

struct gc_rec_header {
	unsigned have;                      /* GC_RECH_* */
	char producer[GC_RECH_TEXT];        /* "producer"; for a gcbench-worker file (which
	                                     * writes "format": "gcbench-worker" instead),
	                                     * "gcbench-worker VERSION" from versions.gcbench */
	char method[GC_RECH_NAME];
	char params[GC_RECH_PATH];          /* "k=v,..." or "" */
	char workload[GC_RECH_PATH];        /* "replay:csv:/path/m.csv", "command" */
	char model[GC_RECH_PATH];
	char backend[GC_RECH_NAME];
	char host[GC_RECH_TEXT];            /* optional: the rank's host name */
	long long world, rank, batch;       /* -1 when absent */
};

/* Parse text (len bytes, no NUL needed) into *out (cleared first). GC_E_FORMAT, with e
 * naming the byte offset and what is wrong (nothing of the text is quoted), when text
 * is not exactly one JSON object, nests deeper than 64, holds a raw control character
 * or \u0000 in a string, gives a key gcbench reads twice or with
 * the wrong type (a string where an integer is read, ...), a string longer than its
 * field, or world/rank/batch out of range (world 1..65536, rank 0..65535, batch
 * 1..2^31-1). */
gc_rc gc_rec_header_parse(const char *text, size_t len, struct gc_rec_header *out, gc_err *e);

/* GC_E_FORMAT naming the first required key that *h lacks (docs/records.md): producer,
 * method, params, workload, model, world, rank, backend, batch; or a rank >= world. */
gc_rc gc_rec_header_require(const struct gc_rec_header *h, gc_err *e);

#endif
