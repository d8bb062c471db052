/* Fuzz target: the host lock's owner record parser (orchestrator/run/hostlock.h) must
 * reject, not crash on, any input, and what it accepts must be printable and complete. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/run/hostlock.h"

static int printable(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gc_hostlock_owner o;
	char *text = malloc(size + 1), desc[4096];
	gc_err e;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (gc_hostlock_owner_parse(text, &o, &e) == GC_OK) {
		if (!printable(o.controller, sizeof(o.controller)) || !*o.controller ||
		    !printable(o.user, sizeof(o.user)) || !printable(o.home, sizeof(o.home)) ||
		    !printable(o.inventory, sizeof(o.inventory)) || !printable(o.spec, sizeof(o.spec)) ||
		    !printable(o.db, sizeof(o.db)) || !printable(o.machine, sizeof(o.machine)) ||
		    !printable(o.boot, sizeof(o.boot)) || o.pid <= 0 || o.since <= 0)
			abort();
		gc_hostlock_owner_describe(&o, 0, desc, sizeof(desc));
	}
	free(text);
	return 0;
}
