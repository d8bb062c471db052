/* Fuzz target: the sweep spec parser (and the expansion of what it accepts) must
 * reject, not crash on, any input. */
#include <stddef.h>
#include <stdint.h>

#include "orchestrator/spec/spec.h"
#include "orchestrator/run/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gc_spec s;
	struct gc_diags d;

	gc_diags_init(&d, "fuzz.yaml");
	if (gc_spec_parse((const char *)data, size, "fuzz.yaml", &s, &d) == GC_OK) {
		struct gc_sweep sw;
		if (gc_sweep_expand(&s, &sw, NULL) == GC_OK)
			gc_sweep_release(&sw);
		gc_spec_release(&s);
	}
	gc_diags_release(&d);
	return 0;
}
