/* common/opts.c: the shared option parser (see opts.h). */
#include "opts.h"

#include "bandwidth.h"

#include <stdio.h>
#include <string.h>

#include "strutil.h"

void gc_opts_init(gc_opts *o, const char *cmd, const struct gc_opt *tab, size_t n, int argc,
		  char **argv)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->tab = tab;
	o->n = n;
	o->argc = argc;
	o->argv = argv;
	o->i = 1;
}

void gc_opts_decl_init(gc_opts *o, const char *cmd, const struct gc_option *decl, size_t n,
		       int argc, char **argv, void *ctx)
{
	gc_opts_init(o, cmd, NULL, n, argc, argv);
	o->decl = decl;
	o->ctx = ctx;
}

/* The i-th table entry, from either kind of table; NULL for a usage-only line. */
static const struct gc_opt *entry(const gc_opts *o, size_t i)
{
	if (!o->decl)
		return &o->tab[i];
	return o->decl[i].type == GC_OT_DOC ? NULL : &o->decl[i].o;
}

int gc_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int d[62][62];

	if (la > 60 || lb > 60)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			/* a swap of two neighbours is one edit (Damerau) */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb] > 99 ? 99 : d[la][lb];
}

static const char *undash(const char *s)
{
	while (*s == '-')
		s++;
	return s;
}

const char *gc_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *w = undash(word), *best = NULL, *prefix = NULL;
	int bestd = 99, nprefix = 0;
	size_t lw = strlen(w);

	if (!lw)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *c = undash(cands[i]);
		int d = gc_edit_distance(w, c);
		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
		if (!strncmp(c, w, lw)) {
			nprefix++;
			prefix = cands[i];
		}
	}
	if (best && bestd <= 2 && (size_t)bestd * 2 < lw + (lw < 4))
		return best;
	return nprefix == 1 ? prefix : NULL;
}

gc_rc gc_opts_unknown(gc_err *e, const char *kind, const char *word, const char *cmd,
		      const char *suggestion, const char *help)
{
	char dym[96] = "";

	if (suggestion)
		snprintf(dym, sizeof dym, "; did you mean '%s'?", suggestion);
	return gc_fail(e, GC_E_INVAL, "unknown %s '%.60s'%s%s%s (see '%s')", kind, word,
		       cmd ? " for " : "", cmd ? cmd : "", dym, help);
}

enum opt_msg { NEEDS_VALUE, NO_VALUE, UNEXPECTED };

static gc_rc opt_error(gc_opts *o, enum opt_msg m, const char *what)
{
	char help[96];

	snprintf(help, sizeof help, "%s --help", o->cmd);
	if (m == NEEDS_VALUE)
		return gc_fail(&o->err, GC_E_INVAL, "option '%s' of %s needs a value (see '%s')",
			       what, o->cmd, help);
	if (m == NO_VALUE)
		return gc_fail(&o->err, GC_E_INVAL, "option '%s' of %s takes no value (see '%s')",
			       what, o->cmd, help);
	return gc_fail(&o->err, GC_E_INVAL, "unexpected argument '%.60s' for %s (see '%s')",
		       what, o->cmd, help);
}

static int unknown(gc_opts *o, const char *word)
{
	const char *cands[128];
	char help[96];
	size_t k = 0;

	for (size_t i = 0; i < o->n && k < 126; i++)
		if (entry(o, i))
			cands[k++] = entry(o, i)->name;
	cands[k++] = "--help";
	cands[k++] = "--version";
	snprintf(help, sizeof help, "%s --help", o->cmd);
	gc_opts_unknown(&o->err, "option", word, o->cmd, gc_suggest(word, cands, k), help);
	return GC_OPTS_ERR;
}

static const struct gc_opt *lookup(const gc_opts *o, const char *name, size_t len)
{
	for (size_t i = 0; i < o->n; i++) {
		const struct gc_opt *t = entry(o, i);
		if (t && ((strlen(t->name) == len && !strncmp(t->name, name, len)) ||
			  (t->alias && strlen(t->alias) == len && !strncmp(t->alias, name, len))))
			return t;
	}
	return NULL;
}

/* a is "--name" or "--name=value" (or an alias); the table entry and value. */
static int take(gc_opts *o, const char *a)
{
	const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct gc_opt *t = lookup(o, a, len);

	snprintf(o->buf, sizeof o->buf, "%.*s", (int)(len < 63 ? len : 63), a);
	if (!t) {
		if (len == 2 && !strncmp(a, "-h", 2))
			return eq ? opt_error(o, NO_VALUE, "--help"), GC_OPTS_ERR : GC_OPTS_HELP;
		if ((len == 6 && !strncmp(a, "--help", 6)) || (len == 9 && !strncmp(a, "--version", 9))) {
			if (eq)
				return opt_error(o, NO_VALUE, o->buf), GC_OPTS_ERR;
			return len == 6 ? GC_OPTS_HELP : GC_OPTS_VERSION;
		}
		return unknown(o, o->buf);
	}
	o->opt = t->name;
	o->val = NULL;
	if (eq) {
		if (!(t->flags & (GC_OPT_ARG | GC_OPT_OPTARG)))
			return opt_error(o, NO_VALUE, t->name),
			       GC_OPTS_ERR;
		o->val = eq + 1;
		if (!*o->val && (t->flags & GC_OPT_ARG))
			return opt_error(o, NEEDS_VALUE, t->name),
			       GC_OPTS_ERR;
	} else if (t->flags & GC_OPT_ARG) {
		if (o->i >= o->argc)
			return opt_error(o, NEEDS_VALUE, t->name),
			       GC_OPTS_ERR;
		o->val = o->argv[o->i++];
	} else if ((t->flags & GC_OPT_OPTARG) && o->i < o->argc && o->argv[o->i][0] != '-') {
		o->val = o->argv[o->i++];
	}
	return o->decl ? 1 : t->id;   /* declarations: gc_opts_next finds it by o->opt */
}

static int next_raw(gc_opts *o)
{
	const char *a;

	o->opt = NULL;
	o->val = NULL;
	o->rc = GC_E_INVAL;
	if (o->i >= o->argc)
		return GC_OPTS_END;
	a = o->argv[o->i++];
	if (!o->dashdash && !strcmp(a, "--")) {
		o->dashdash = 1;
		return next_raw(o);
	}
	if (o->dashdash || a[0] != '-' || !a[1]) {
		o->val = a;
		if (o->positional)
			return GC_OPTS_POS;
		o->i--;
		return opt_error(o, UNEXPECTED, a), GC_OPTS_ERR;
	}
	{
		int r = take(o, a);
		if (r == GC_OPTS_ERR)
			o->i--;
		return r;
	}
}

static gc_rc parse_int(const char *opt, const char *v, long long lo, long long hi, int *out,
		       gc_err *e)
{
	int64_t x;

	if (gc_parse_i64(v, &x) || x < lo || x > hi)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%.60s': expected an integer from %lld "
			       "to %lld", opt, v, lo, hi);
	*out = (int)x;
	return GC_OK;
}

static gc_rc parse_positive(const char *opt, const char *v, double *out, gc_err *e)
{
	double x;

	if (gc_parse_double(v, &x) || !(x > 0))
		return gc_fail(e, GC_E_INVAL, "invalid %s '%.60s': expected a number greater "
			       "than 0", opt, v);
	*out = x;
	return GC_OK;
}

/* Put the value of declaration d into its target. */
static gc_rc fill(gc_opts *o, const struct gc_option *d)
{
	const char *n = d->o.name, *v = o->val;

	switch (d->type) {
	case GC_OT_SET: *(int *)d->target = d->set; return GC_OK;
	case GC_OT_STRING: *(const char **)d->target = v; return GC_OK;
	case GC_OT_INT: return parse_int(n, v, d->lo, d->hi, d->target, &o->err);
	case GC_OT_POSITIVE: return parse_positive(n, v, d->target, &o->err);
	case GC_OT_SECONDS:
		return gc_opts_seconds(n, v, d->min_s, d->max_s, d->target, &o->err);
	case GC_OT_CALLBACK: return d->cb(o->ctx, d, v, &o->err);
	default: return GC_OK;
	}
}

int gc_opts_next(gc_opts *o)
{
	for (;;) {
		int r = next_raw(o);
		const struct gc_option *d;
		gc_rc rc;

		o->count += r > 0;
		o->id = r;
		if (r <= 0 || !o->decl)
			return r;
		for (d = o->decl; d->o.name != o->opt; d++)
			;
		if (d->type == GC_OT_ID)
			return o->id = d->o.id;
		if ((rc = fill(o, d))) {
			o->rc = rc;
			return GC_OPTS_ERR;
		}
	}
}

int gc_opts_parse_all(gc_opts *o)
{
	int r;

	while ((r = gc_opts_next(o)) >= 0) {
		if (r == GC_OPTS_POS) {
			o->i--;
			gc_fail(&o->err, GC_E_INVAL, "unexpected argument '%.60s' for %s (see '%s "
				"--help')", o->val, o->cmd, o->cmd);
		} else {
			gc_fail(&o->err, GC_E_INVAL, "option '%s' of %s is not handled here",
				o->opt, o->cmd);
		}
		return GC_OPTS_ERR;
	}
	return r;
}

void gc_opts_usage(FILE *f, const struct gc_option *decl, size_t n, int col)
{
	for (size_t i = 0; i < n; i++) {
		const struct gc_option *d = &decl[i];
		const char *h = d->help;
		int len;

		if (d->usage) {
			d->usage(f);
			continue;
		}
		if (!h)
			continue;
		len = fprintf(f, "  %s%s%s%s%s", d->o.alias ? d->o.alias : "",
			      d->o.alias ? ", " : "", d->o.name, d->arg ? " " : "",
			      d->arg ? d->arg : "");
		if (*h == '\n')    /* the help starts on the next line */
			fprintf(f, "\n%*s", col, ""), h++;
		else
			fprintf(f, "%*s", len < col ? col - len : 2, "");
		for (;;) {
			const char *nl = strchr(h, '\n');
			if (!nl) {
				fprintf(f, "%s\n", h);
				break;
			}
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, col, "");
			h = nl + 1;
		}
	}
}

gc_rc gc_opts_seconds(const char *opt, const char *v, double lo, double hi, double *out,
		      gc_err *e)
{
	const char *end = NULL;
	long double ld;
	double x = -1, scale = 1;

	if (v && !gc_decimal_parse(v, &ld, &end))
		x = (double)ld;
	if (end && !strcmp(end, "ms"))
		scale = 1e-3;
	else if (end && !strcmp(end, "min"))
		scale = 60;
	else if (end && *end && strcmp(end, "s"))
		x = -1;
	x *= scale;
	if (!end || !(x >= lo && x <= hi))
		return gc_fail(e, GC_E_INVAL, "invalid %s '%.40s': give a duration from %gs to %gs "
			       "(a number with s, ms or min; a bare number is seconds)", opt,
			       v ? v : "", lo, hi);
	*out = x;
	return GC_OK;
}
