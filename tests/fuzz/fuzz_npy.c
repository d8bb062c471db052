/* Fuzz target: the .npy parser must reject, not crash on, any input. */
#include <stdint.h>
#include <stddef.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_npy a;
	gc_err e;
	if (gc_npy_parse(data, size, &a, &e) == GC_OK)
		gc_npy_release(&a);
	return 0;
}
