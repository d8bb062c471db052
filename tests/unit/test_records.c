/* tests/unit/test_records.c: the one record-file reader (formats/records.h): an image
 * read whole (gc_rec_parse) and the same file streamed from disk (gc_rec_open, the
 * database's ingest) agree on every well-formed and malformed frame, with the same
 * messages; a stream refuses what gc_rec_require_complete refuses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/records.h"
#include "harness.h"

static char path[64];

/* a complete image of n records (rank 2, iter i) with header h */
static unsigned char *image(const char *h, size_t n, size_t *len)
{
	uint32_t hl = (uint32_t)strlen(h);
	uint64_t tr[2] = { GC_REC_TRAILER, n };
	unsigned char *b;
	size_t o = 0;

	*len = 12 + hl + n * sizeof(struct gc_iter_rec) + 16;
	b = calloc(1, *len);
	if (!b)
		return NULL;
	memcpy(b, GC_REC_MAGIC, 8);
	memcpy(b + 8, &hl, 4);
	memcpy(b + 12, h, hl);
	o = 12 + hl;
	for (size_t i = 0; i < n; i++, o += sizeof(struct gc_iter_rec)) {
		struct gc_iter_rec r = { .rank = 2, .iter = (uint32_t)i, .t_iter = (double)i };
		memcpy(b + o, &r, sizeof(r));
	}
	memcpy(b + o, tr, 16);
	return b;
}

static int put(const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(b, 1, len, f) == len;
	return (f && fclose(f) == 0 && ok) ? 0 : -1;
}

/* Stream the file at path in chunks of `chunk`: GC_OK with the header and every record
 * compared with f (a complete parse of the same bytes), or the stream's failure. */
static gc_rc stream_matches(const gc_rec_file *f, size_t chunk, int *same, gc_err *e)
{
	gc_rec_stream s;
	struct gc_iter_rec buf[8];
	size_t got = 0, n = 0;
	char *h = NULL;
	gc_rc rc = gc_rec_open(&s, path, e);

	*same = 0;
	if (rc)
		return rc;
	*same = s.n == f->n;
	while (!rc && *same) {
		if ((rc = gc_rec_next(&s, buf, chunk, &n, e)) || !n)
			break;
		*same = n <= chunk && got + n <= f->n &&
			!memcmp(buf, f->recs + got, n * sizeof(*buf));
		got += n;
	}
	if (!rc)
		rc = gc_rec_stream_header(&s, &h, e);
	if (!rc)
		*same = *same && got == f->n && !strcmp(h, f->header);
	free(h);
	gc_rec_close(&s);
	gc_rec_close(&s);   /* a second close is harmless */
	return rc;
}

/* parse b and stream it: both succeed alike, or both fail with the same message */
static void agree(const char *name, const unsigned char *b, size_t len, gc_rc want,
		  const char *msg)
{
	gc_rec_file f;
	gc_err e1 = { "" }, e2 = { "" };
	gc_rc p, st;
	int same = 0;

	gct_name = name;
	if (put(b, len)) {
		gct_failf(__FILE__, __LINE__, "cannot write '%s'", path);
		return;
	}
	p = gc_rec_parse(b, len, &f, &e1);
	if (!p)
		p = gc_rec_require_complete(&f, &e1);
	if (p) {
		gc_rec_stream s;   /* the frame at open, the header when read */
		char *h = NULL;
		st = gc_rec_open(&s, path, &e2);
		if (!st)
			st = gc_rec_stream_header(&s, &h, &e2);
		free(h);
		gc_rec_close(&s);
	} else {
		st = stream_matches(&f, 3, &same, &e2);
	}
	gc_rec_file_release(&f);
	if (p != want || st != want)
		gct_failf(__FILE__, __LINE__, "parse %d, stream %d, want %d (%s | %s)", p, st, want,
			  e1.msg, e2.msg);
	else if (want && (!strstr(e1.msg, msg) || strcmp(e1.msg, e2.msg)))
		gct_failf(__FILE__, __LINE__, "messages '%s' and '%s', want both '%s'", e1.msg,
			  e2.msg, msg);
	else if (!want && !same)
		gct_failf(__FILE__, __LINE__, "the stream read other records or header");
}

static void test_frames(void)
{
	size_t len;
	unsigned char *b = image("{\"rank\":2}", 20, &len), *c;
	uint64_t bad = 19, zero = 0;

	CHECK(b);
	agree("complete", b, len, GC_OK, NULL);
	CHECK(!gct_state);
	agree("truncated", b, 12 + 10 + 16, GC_E_FORMAT, "incomplete");
	CHECK(!gct_state);
	free(b);
	b = image("", 0, &len);
	CHECK(b);
	agree("empty", b, len, GC_OK, NULL);
	CHECK(!gct_state);
	agree("no_trailer", b, 12, GC_E_FORMAT, "the record file is incomplete");
	CHECK(!gct_state);
	free(b);
	b = image("{}", 5, &len);
	CHECK(b && (c = malloc(len)));
	memcpy(c, b, len);
	memcpy(c + len - 8, &bad, 8);
	agree("trailer_count", c, len, GC_E_FORMAT, "trailer count does not match the records");
	CHECK(!gct_state);
	memcpy(c, b, len);
	memcpy(c + len - 16, &zero, 8);     /* no trailer mark: a rank that did not finish */
	agree("trailer_missing", c, len, GC_E_FORMAT, "incomplete");
	CHECK(!gct_state);
	memcpy(c, b, len);
	c[3] = 'X';
	agree("magic", c, len, GC_E_FORMAT, "not a gcbench record file (bad magic)");
	CHECK(!gct_state);
	agree("short", c, 7, GC_E_FORMAT, "bad magic");
	CHECK(!gct_state);
	memcpy(c, b, len);
	memset(c + 8, 0xff, 3);
	agree("header_length", c, len, GC_E_FORMAT, "exceeds the file");
	CHECK(!gct_state);
	memcpy(c, b, len);
	c[13] = 0;
	agree("header_nul", c, len, GC_E_FORMAT, "header holds a NUL byte");
	CHECK(!gct_state);
	free(c);
	free(b);
}

static void test_missing_file(void)
{
	gc_rec_stream s;
	gc_err e = { "" };

	unlink(path);
	CHECK(gc_rec_open(&s, path, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "cannot open it");
	CHECK(s.fd == -1);
	gc_rec_close(&s);
}

int main(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/gcbench-records.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	GCT_SUITE("records");
	GCT_RUN(test_frames);
	GCT_RUN(test_missing_file);
	unlink(path);
	return gct_finish();
}
