/* Fuzz target: the training data reader (gc_data_parse) must reject, not crash on, any
 * input; a parsed data set must fit in the input and hold labels below its classes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "worker/wk_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_data d;
	gc_err e;

	if (gc_data_parse(data, size, &d, &e) == GC_OK) {
		size_t n = d.n_train + d.n_val;
		if (n * (d.features + 1) + GC_DATA_HEADER != size)
			abort();
		for (size_t i = 0; i < n; i++)
			if (d.y[i] < 0 || d.y[i] >= d.classes)
				abort();
		gc_data_release(&d);
	}
	return 0;
}
