/* tests/fuzz/fuzz_classes.c: gcbench-netem classes' destination parser on arbitrary
 * bytes (netem/classes.h). Properties checked (abort on violation): a parsed
 * destination has a prefix in 0..32 and no address bit outside it, and formats to a
 * text that parses back to itself; every refusal explains itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netem/classes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[64], f[32];
	struct gc_class_dest d, d2;
	gc_err e;

	e.msg[0] = 0;
	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	if (gc_class_dest_parse(s, &d, &e) == GC_OK) {
		if (d.prefix < 0 || d.prefix > 32 ||
		    (d.prefix < 32 && (d.addr & (0xffffffffu >> d.prefix))))
			abort();
		snprintf(f, sizeof(f), "%u.%u.%u.%u/%d", d.addr >> 24, (d.addr >> 16) & 255,
			 (d.addr >> 8) & 255, d.addr & 255, d.prefix);
		if (gc_class_dest_parse(f, &d2, &e) != GC_OK || d2.addr != d.addr ||
		    d2.prefix != d.prefix)
			abort();
	} else if (!e.msg[0]) {
		abort();
	}
	return 0;
}
