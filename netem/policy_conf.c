/* netem/policy_conf.c: the admin's allowlist, /etc/gcbench/netem.conf (netem/policy.h). */
#include "policy.h"

#include <fnmatch.h>
#include <string.h>

#include "strutil.h"

static int pattern_ok(const char *p, size_t n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._-*?";
	size_t i;

	if (n < 1 || n > 15 || p[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!p[i] || !strchr(ok, p[i]))
			return 0;
	return 1;
}

gc_rc gc_netem_conf_parse(const char *text, struct gc_netem_conf *c, gc_err *e)
{
	const char *p = text;
	int line = 0;

	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *end = p + strcspn(p, "\n"), *w, *h;
		size_t n;

		line++;
		h = memchr(p, '#', (size_t)(end - p));
		if (!h)
			h = end;
		while (p < h && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		while (h > p && (h[-1] == ' ' || h[-1] == '\t' || h[-1] == '\r'))
			h--;
		if (p < h) {
			if ((size_t)(h - p) < 6 || strncmp(p, "allow", 5) || (p[5] != ' ' && p[5] != '\t'))
				return gc_fail(e, GC_E_FORMAT, "netem.conf line %d: expected 'allow "
					       "INTERFACE' (e.g. 'allow eth0')", line);
			w = p + 5;
			while (w < h && (*w == ' ' || *w == '\t'))
				w++;
			n = (size_t)(h - w);
			if (memchr(w, ' ', n) || memchr(w, '\t', n))
				return gc_fail(e, GC_E_FORMAT, "netem.conf line %d: one interface a "
					       "line", line);
			if (!pattern_ok(w, n))
				return gc_fail(e, GC_E_FORMAT, "netem.conf line %d: not an interface "
					       "name or pattern (1 to 15 of A-Z a-z 0-9 . _ - * ?)",
					       line);
			if (c->n == GC_NETEM_CONF_MAX)
				return gc_fail(e, GC_E_FORMAT, "netem.conf line %d: more than %d "
					       "interfaces; use a pattern (eth*)", line,
					       GC_NETEM_CONF_MAX);
			memcpy(c->allow[c->n], w, n);
			c->allow[c->n++][n] = 0;
		}
		p = *end ? end + 1 : end;
	}
	return GC_OK;
}

int gc_netem_conf_allows(const struct gc_netem_conf *c, const char *dev)
{
	size_t i;

	for (i = 0; dev && i < c->n; i++)
		if (!fnmatch(c->allow[i], dev, 0))
			return 1;
	return 0;
}
