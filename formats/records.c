/* formats/records.c: the one reader and writer of record files (records.h). */
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The first 12 bytes of a file of size bytes (read only when size >= 12): the magic
 * and the header length *hl, which must fit in the file. */
static gc_rc frame_head(const unsigned char *head, uint64_t size, uint32_t *hl, gc_err *e)
{
	if (size < 12 || memcmp(head, GC_REC_MAGIC, 8))
		return gc_fail(e, GC_E_FORMAT, "not a gcbench record file (bad magic)");
	memcpy(hl, head + 8, 4);
	if (*hl > GC_REC_MAX_HEADER || *hl > size - 12)
		return gc_fail(e, GC_E_FORMAT, "header length %u exceeds the file", *hl);
	return GC_OK;
}

/* The body (body bytes after the header) by its last 16 bytes (tail; NULL when body <
 * 16): *complete when the trailer is there and its count matches, and *n records (of
 * a file without trailer, a partial last record is dropped). */
static gc_rc frame_tail(uint64_t body, const unsigned char *tail, size_t *n, int *complete,
			gc_err *e)
{
	*complete = 0;
	if (tail) {
		uint64_t tr[2];
		memcpy(tr, tail, 16);
		if (tr[0] == GC_REC_TRAILER) {
			if ((body - 16) % sizeof(struct gc_iter_rec) ||
			    tr[1] != (body - 16) / sizeof(struct gc_iter_rec))
				return gc_fail(e, GC_E_FORMAT, "trailer count does not match the records");
			*complete = 1;
			body -= 16;
		}
	}
	*n = (size_t)(body / sizeof(struct gc_iter_rec));
	return GC_OK;
}

static gc_rc incomplete(gc_err *e)
{
	return gc_fail(e, GC_E_FORMAT, "the record file is incomplete (no trailer: the rank "
		       "did not finish); it is not ingested, mark the run failed");
}

gc_rc gc_rec_require_complete(const gc_rec_file *f, gc_err *e)
{
	return f->complete ? GC_OK : incomplete(e);
}

/* h holds the len bytes of a header and room for one more: NUL-terminated into *out,
 * or freed when it holds a NUL byte (GC_E_FORMAT) */
static gc_rc header_done(char *h, size_t len, char **out, gc_err *e)
{
	h[len] = 0;
	if (memchr(h, 0, len)) {
		free(h);
		return gc_fail(e, GC_E_FORMAT, "header holds a NUL byte");
	}
	*out = h;
	return GC_OK;
}

gc_rc gc_rec_parse(const void *buf, size_t len, gc_rec_file *out, gc_err *e)
{
	const unsigned char *b = buf;
	uint64_t body;
	uint32_t hl = 0;
	size_t n = 0;
	char *h;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if ((rc = frame_head(b, len, &hl, e)))
		return rc;
	body = len - 12 - hl;
	if ((rc = frame_tail(body, body >= 16 ? b + len - 16 : NULL, &n, &out->complete, e)))
		return rc;
	h = malloc(hl + 1);
	out->recs = malloc(n ? n * sizeof(struct gc_iter_rec) : 1);
	if (!h || !out->recs) {
		free(h);
		gc_rec_file_release(out);
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	memcpy(h, b + 12, hl);
	if ((rc = header_done(h, hl, &out->header, e))) {
		gc_rec_file_release(out);
		return rc;
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

/* --- the stream ------------------------------------------------------------------- */

static gc_rc pread_all(int fd, void *buf, size_t len, off_t off, gc_err *e)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return gc_fail(e, GC_E_IO, "read failed: %s",
				       r ? strerror(errno) : "the file shrank while being read");
		got += (size_t)r;
	}
	return GC_OK;
}

/* Check the frame of the open file of size bytes; s->off and s->n get the records. */
static gc_rc stream_frame(gc_rec_stream *s, off_t size, gc_err *e)
{
	unsigned char head[12] = { 0 }, tail[16];
	uint64_t body;
	uint32_t hl = 0;
	size_t n = 0;
	int complete = 0;
	gc_rc rc;

	if (size >= 12 && (rc = pread_all(s->fd, head, 12, 0, e)))
		return rc;
	if ((rc = frame_head(head, (uint64_t)size, &hl, e)))
		return rc;
	body = (uint64_t)size - 12 - hl;
	if (body >= 16 && (rc = pread_all(s->fd, tail, 16, size - 16, e)))
		return rc;
	if ((rc = frame_tail(body, body >= 16 ? tail : NULL, &n, &complete, e)))
		return rc;
	if (!complete)
		return incomplete(e);
	s->off = 12 + (int64_t)hl;
	s->hl = hl;
	s->n = n;
	s->done = 0;
	return GC_OK;
}

gc_rc gc_rec_open(gc_rec_stream *s, const char *path, gc_err *e)
{
	struct stat st;
	gc_rc rc;

	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open it: %s",
			       strerror(errno));
	if (fstat(s->fd, &st))
		rc = gc_fail(e, GC_E_IO, "cannot stat it: %s", strerror(errno));
	else
		rc = stream_frame(s, st.st_size, e);
	if (rc)
		gc_rec_close(s);
	return rc;
}

gc_rc gc_rec_next(gc_rec_stream *s, struct gc_iter_rec *buf, size_t max, size_t *n, gc_err *e)
{
	size_t k = s->n - s->done < max ? s->n - s->done : max;
	gc_rc rc = k ? pread_all(s->fd, buf, k * sizeof(*buf), (off_t)s->off, e) : GC_OK;

	*n = rc ? 0 : k;
	s->off += (int64_t)(k * sizeof(*buf));
	s->done += k;
	return rc;
}

gc_rc gc_rec_stream_header(const gc_rec_stream *s, char **out, gc_err *e)
{
	char *h = malloc(s->hl + 1);
	gc_rc rc = h ? pread_all(s->fd, h, s->hl, 12, e) : gc_fail(e, GC_E_NOMEM, "out of memory");

	*out = NULL;
	if (rc) {
		free(h);
		return rc;
	}
	return header_done(h, s->hl, out, e);
}

void gc_rec_close(gc_rec_stream *s)
{
	if (s && s->fd >= 0)
		close(s->fd);
	if (s)
		s->fd = -1;
}
