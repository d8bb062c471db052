/* tests/unit/spec_fixture.h: a spec from text, and its diagnostics, for the spec tests
 * (test_spec*.c). Each test file includes it once. */
#ifndef GC_TEST_SPEC_FIXTURE_H
#define GC_TEST_SPEC_FIXTURE_H

#include <string.h>

#include "orchestrator/spec/spec.h"
#include "orchestrator/spec/yamlutil.h"

/* Parse text as the file path (its folder is where relative paths in it start) into
 * s, its diagnostics into d. */
static inline int parse_at(const char *path, const char *text, struct gc_spec *s,
			   struct gc_diags *d)
{
	gc_diags_init(d, path);
	return gc_spec_parse(text, strlen(text), path, s, d);
}

/* parse_at as the file t.yaml */
static inline int parse(const char *text, struct gc_spec *s, struct gc_diags *d)
{
	return parse_at("t.yaml", text, s, d);
}

/* 1 if some diagnostic contains needle */
static inline int has_diag(const struct gc_diags *d, const char *needle)
{
	for (size_t i = 0; i < d->n; i++)
		if (strstr(d->msg[i], needle))
			return 1;
	return 0;
}

#endif
