/* Fuzz target: the record-file stream a node sends (orchestrator/remote/fetch.h) must be
 * rejected, not crash the reader, and every file it accepts must lie inside the input
 * and carry a record file's name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/remote/fetch.h"

struct span {
	const char *lo, *hi;
};

static int check(const char *name, const char *data, size_t size, void *arg, gc_err *e)
{
	const struct span *s = arg;

	(void)e;
	if (strncmp(name, "records-r", 9) || strchr(name, '/') || strlen(name) > 255 ||
	    data < s->lo || data + size > s->hi)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct span s;
	gc_err e;

	if (!copy)
		return 0;
	memcpy(copy, data, size);   /* exactly size bytes: a read past it is caught */
	s.lo = copy;
	s.hi = copy + size;
	gc_fetch_parse(copy, size, check, &s, &e);
	free(copy);
	return 0;
}
