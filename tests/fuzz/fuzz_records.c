/* Fuzz target: the record-file reader (gc_rec_parse) must reject, not crash on, any
 * input; a parsed file's count must fit in the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_rec_file f;
	gc_err e;

	if (gc_rec_parse(data, size, &f, &e) == GC_OK) {
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
