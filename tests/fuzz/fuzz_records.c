/* Fuzz target: the record-file reader (gc_rec_parse) and its header reader
 * (gc_rec_header_parse, gc_rec_header_require) must reject, not crash on, any input; a
 * parsed file's count must fit in the input. The same bytes streamed from a file
 * (gc_rec_open, the database's ingest) must give the same answer: a complete parse
 * streams to the same header and records, anything else fails both ways, with the same
 * message (formats/records.h: one reader). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/rec_header.h"
#include "formats/records.h"

static char path[64];

static void rm_path(void)
{
	unlink(path);
}

/* the input as a file (one per process, rewritten each time, removed at exit); 0 when
 * written */
static int put(const uint8_t *data, size_t size)
{
	FILE *f;
	int ok;

	if (!path[0]) {
		int fd;
		snprintf(path, sizeof(path), "/tmp/gcbench-fuzz-rec.XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			return -1;
		close(fd);
		atexit(rm_path);
	}
	if (!(f = fopen(path, "wb")))
		return -1;
	ok = !size || fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* stream path as the database's ingest does: its result, message in e; with a
 * complete parse f, abort() unless the stream yields f's header and records */
static gc_rc stream(const gc_rec_file *f, gc_err *e)
{
	struct gc_iter_rec buf[4];
	gc_rec_stream s;
	size_t got = 0, n = 0;
	char *h = NULL;
	gc_rc rc = gc_rec_open(&s, path, e);

	while (!rc) {
		if ((rc = gc_rec_next(&s, buf, 4, &n, e)) || !n)
			break;
		if (f && (got + n > f->n || memcmp(buf, f->recs + got, n * sizeof(*buf))))
			abort();   /* (a header with a NUL byte fails only once it is read) */
		got += n;
	}
	if (!rc)
		rc = gc_rec_stream_header(&s, &h, e);
	if (!rc && (!f || got != f->n || strcmp(h, f->header)))
		abort();
	free(h);
	gc_rec_close(&s);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_rec_file f;
	gc_err e, es;
	gc_rc rc = gc_rec_parse(data, size, &f, &e), rs;

	if (rc == GC_OK) {
		struct gc_rec_header h;
		if (!gc_rec_header_parse(f.header, strlen(f.header), &h, &e) &&
		    (strlen(h.producer) >= GC_RECH_TEXT || strlen(h.method) >= GC_RECH_NAME))
			abort();
		if (!gc_rec_header_require(&h, &e) && (h.rank < 0 || h.rank >= h.world))
			abort();
		if (f.n * sizeof(struct gc_iter_rec) > size || !f.header ||
		    strlen(f.header) > size)
			abort();
		for (size_t i = 0; i < f.n; i++)   /* touch every record */
			if (f.recs[i].rank == 0xdeadbeef && f.recs[i].iter == 0xdeadbeef)
				e.msg[0] = 0;
		rc = gc_rec_require_complete(&f, &e);
	}
	if (put(data, size) == 0) {
		rs = stream(rc ? NULL : &f, &es);
		/* the stream checks the header for NUL bytes only when it reads it, after the
		 * frame: a file with that and another fault is refused for the other one */
		if (rs != rc || (rc && strcmp(e.msg, es.msg) && !strstr(e.msg, "NUL byte")))
			abort();
	}
	gc_rec_file_release(&f);
	return 0;
}
