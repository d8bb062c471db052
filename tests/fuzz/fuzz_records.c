/* Fuzz target: the record-file reader (gc_rec_parse) and its header reader
 * (gc_rec_header_parse, gc_rec_header_require) must reject, not crash on, any input; a
 * parsed file's count must fit in the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/rec_header.h"
#include "formats/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_rec_file f;
	gc_err e;

	if (gc_rec_parse(data, size, &f, &e) == GC_OK) {
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
		gc_rec_file_release(&f);
	}
	return 0;
}
