/* Fuzz target: the csv: parameter-list parser must reject, not crash on, any input. */
#include <stddef.h>
#include <stdint.h>

#include "formats/arch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_arch a;
	gc_err e;

	if (gc_arch_parse_csv((const char *)data, size, "fuzz", &a, &e) == GC_OK)
		gc_arch_release(&a);
	return 0;
}
