/* Fuzz target: the environment reader (gc_envinfo_parse_json) must reject, not crash
 * on, any input; what it accepts has NUL-terminated fields and a host, and writes back
 * to JSON that reads back the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/envinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gc_envinfo a, b;
	char json[8192];
	gc_err e;

	if (gc_envinfo_parse_json((const char *)data, size, &a, &e) != GC_OK) {
		if (strlen(e.msg) >= sizeof(e.msg))
			abort();
		return 0;
	}
	if (!a.host[0] || memchr(a.host, 0, sizeof(a.host)) == NULL ||
	    memchr(a.tag, 0, sizeof(a.tag)) == NULL || a.gpu_count < 0)
		abort();
	if (gc_envinfo_json(&a, json, sizeof(json)) != GC_OK ||
	    gc_envinfo_parse_json(json, strlen(json), &b, &e) != GC_OK || memcmp(&a, &b, sizeof(a)))
		abort();
	return 0;
}
