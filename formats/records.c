#include "records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"

gc_rc gc_rec_write(const char *path, const char *header_json, const struct gc_iter_rec *recs,
		   size_t n, gc_err *e)
{
	char tmp[4096];
	uint32_t hl = (uint32_t)strlen(header_json);
	uint64_t tr[2] = { GC_REC_TRAILER, n };
	FILE *f;
	int ok;

	if (hl > GC_REC_MAX_HEADER)
		return gc_fail(e, GC_E_INVAL, "record header of %u bytes is too long", hl);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return gc_fail(e, GC_E_IO, "cannot create '%s': %s", tmp, strerror(errno));
	ok = fwrite(GC_REC_MAGIC, 1, 8, f) == 8 && fwrite(&hl, 4, 1, f) == 1 &&
	     fwrite(header_json, 1, hl, f) == hl &&
	     (n == 0 || fwrite(recs, sizeof(*recs), n, f) == n) && fwrite(tr, 8, 2, f) == 2;
	if (fclose(f))
		ok = 0;
	if (!ok || rename(tmp, path)) {
		gc_rc rc = gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		return rc;
	}
	return GC_OK;
}

gc_rc gc_rec_parse(const void *buf, size_t len, gc_rec_file *out, gc_err *e)
{
	const unsigned char *b = buf;
	size_t body, n;
	uint32_t hl;

	memset(out, 0, sizeof(*out));
	if (len < 12 || memcmp(b, GC_REC_MAGIC, 8))
		return gc_fail(e, GC_E_FORMAT, "not a gcbench record file (bad magic)");
	memcpy(&hl, b + 8, 4);
	if (hl > GC_REC_MAX_HEADER || hl > len - 12)
		return gc_fail(e, GC_E_FORMAT, "header length %u exceeds the file", hl);
	body = len - 12 - hl;
	if (body >= 16) {
		uint64_t tr[2];
		memcpy(tr, b + len - 16, 16);
		if (tr[0] == GC_REC_TRAILER) {
			if ((body - 16) % sizeof(struct gc_iter_rec) ||
			    tr[1] != (body - 16) / sizeof(struct gc_iter_rec))
				return gc_fail(e, GC_E_FORMAT, "trailer count does not match the records");
			out->complete = 1;
			body -= 16;
		}
	}
	if (body % sizeof(struct gc_iter_rec) && !out->complete)
		body -= body % sizeof(struct gc_iter_rec);   /* drop a partial last record */
	n = body / sizeof(struct gc_iter_rec);
	out->header = malloc(hl + 1);
	out->recs = malloc(n ? n * sizeof(struct gc_iter_rec) : 1);
	if (!out->header || !out->recs) {
		gc_rec_file_release(out);
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	memcpy(out->header, b + 12, hl);
	out->header[hl] = 0;
	if (memchr(out->header, 0, hl)) {
		gc_rec_file_release(out);
		return gc_fail(e, GC_E_FORMAT, "header holds a NUL byte");
	}
	memcpy(out->recs, b + 12 + hl, n * sizeof(struct gc_iter_rec));
	out->n = n;
	return GC_OK;
}

gc_rc gc_rec_read(const char *path, gc_rec_file *out, gc_err *e)
{
	unsigned char *buf;
	size_t len;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if ((rc = gc_read_whole(path, NULL, 0, &buf, &len, e)))
		return rc;
	rc = gc_rec_parse(buf, len, out, e);
	free(buf);
	if (rc && e) {
		char inner[GC_ERRLEN];
		snprintf(inner, sizeof(inner), "%s", e->msg);
		gc_fail(e, rc, "'%s': %s", path, inner);
	}
	return rc;
}

void gc_rec_file_release(gc_rec_file *f)
{
	if (!f)
		return;
	free(f->header);
	free(f->recs);
	memset(f, 0, sizeof(*f));
}
