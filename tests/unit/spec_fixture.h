/* tests/unit/spec_fixture.h: a spec from text, and its diagnostics, for the spec tests
 * (test_spec*.c). Each test file includes it once. */
#ifndef GC_TEST_SPEC_FIXTURE_H
#define GC_TEST_SPEC_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "harness.h"
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

/* One malformed spec: what follows the test file's base text, and a part of the message
 * it must get (with file:line:col where the case is about the place). */
struct spec_bad {
	const char *tail, *want;
};

/* base + tail, parsed as the file path, must be refused (GC_E_INVAL) with a diagnostic
 * containing want; a failure names the tail. */
static inline void spec_reject(const char *path, const char *base, const char *tail,
			       const char *want)
{
	char text[1024], first[512];
	struct gc_spec s;
	struct gc_diags d;
	int rc, found;

	CHECKF((size_t)snprintf(text, sizeof(text), "%s%s", base, tail) < sizeof(text),
	       "case too long for the fixture: %s", tail);
	rc = parse_at(path, text, &s, &d);
	if (rc == GC_OK)
		gc_spec_release(&s);
	found = has_diag(&d, want);
	snprintf(first, sizeof(first), "%s", d.n ? d.msg[0] : "none");
	gc_diags_release(&d);
	CHECKF(rc == GC_E_INVAL, "accepted (rc %d): %s", rc, tail);
	CHECKF(found, "'%s': no message with '%s' (first: %s)", tail, want, first);
}

/* spec_reject for every case of a table, in order (the harness reports the first case
 * that fails). */
static inline void spec_reject_table(const char *path, const char *base,
				     const struct spec_bad *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		spec_reject(path, base, t[i].tail, t[i].want);
}

#define SPEC_REJECT_TABLE(path, base, table) \
	spec_reject_table((path), (base), (table), sizeof(table) / sizeof((table)[0]))

#endif
