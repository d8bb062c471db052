/* model/whatif.c: argument lists, presets and sweeps of gcbench whatif (whatif.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/whatif.h"
#include "strutil.h"

/* Split s at commas into doubles; what names the option in messages. */
static gc_rc parse_list(const char *s, double *out, size_t max, size_t *n, const char *what,
			gc_err *e)
{
	char buf[2048], *tok, *save = NULL;

	*n = 0;
	if (!s || !*s || gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "%s: empty or too long a list '%.40s'; give "
			       "comma-separated values", what, s ? s : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return gc_fail(e, GC_E_INVAL, "%s: more than %zu values", what, max);
		if (gc_parse_double(tok, &out[*n]) || !(out[*n] > 0))
			return gc_fail(e, GC_E_INVAL, "%s: '%s' is not a number > 0", what, tok);
		(*n)++;
	}
	if (!*n)
		return gc_fail(e, GC_E_INVAL, "%s: '%s' holds no values", what, s);
	return GC_OK;
}

gc_rc gc_whatif_parse_workers(const char *s, gc_whatif *w, gc_err *e)
{
	double v[GC_WHATIF_MAX_LIST];
	size_t i;
	gc_rc rc = parse_list(s, v, GC_WHATIF_MAX_LIST, &w->nworkers, "--workers", e);

	for (i = 0; !rc && i < w->nworkers; i++) {
		if (v[i] != floor(v[i]) || v[i] < 1 || v[i] > 1e6)
			return gc_fail(e, GC_E_INVAL, "--workers: '%g' is not a whole number of "
				       "workers in 1..1000000", v[i]);
		w->workers[i] = (int)v[i];
	}
	if (rc && strstr(e->msg, "> 0"))
		gc_fail(e, rc, "--workers: '%s' must list worker counts >= 1, like 8,16,32", s);
	return rc;
}

static gc_rc parse_range(const char *s, gc_whatif *w, gc_err *e)
{
	char buf[128], *c1, *c2;
	double lo, hi, step = 1;
	size_t i, n;

	if (gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%.40s...' too long", s);
	c1 = strchr(buf, ':');
	*c1 = '\0';
	if ((c2 = strchr(c1 + 1, ':')))
		*c2 = '\0';
	if (gc_parse_double(buf, &lo) || gc_parse_double(c1 + 1, &hi) ||
	    (c2 && gc_parse_double(c2 + 1, &step)) || !(lo > 0) || !(step > 0))
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%s' is not LOW:HIGH[:STEP] "
			       "in Gbit/s with LOW > 0 and STEP > 0 (like 1:30 or 1:30:0.5)", s);
	if (hi < lo)
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%s' runs backwards (%g > %g); "
			       "write it LOW:HIGH, like %g:%g", s, lo, hi, hi, lo);
	n = (size_t)floor((hi - lo) / step + 1e-9) + 1;
	if (n > GC_WHATIF_MAX_LIST)
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%s' has %zu points, more "
			       "than %d; use a larger step", s, n, GC_WHATIF_MAX_LIST);
	for (i = 0; i < n; i++)
		w->bw_gbps[i] = lo + step * (double)i;
	w->nbw = n;
	return GC_OK;
}

gc_rc gc_whatif_parse_bw(const char *s, gc_whatif *w, gc_err *e)
{
	if (s && strchr(s, ':'))
		return parse_range(s, w, e);
	return parse_list(s, w->bw_gbps, GC_WHATIF_MAX_LIST, &w->nbw, "--bandwidth (Gbit/s)", e);
}

gc_rc gc_whatif_parse_speedup(const char *s, gc_whatif *w, gc_err *e)
{
	return parse_list(s, w->speedup, GC_WHATIF_MAX_LIST, &w->nspeed, "--compute-speedup", e);
}

gc_rc gc_whatif_parse_methods(const char *s, gc_whatif *w, gc_err *e)
{
	char buf[1024], spec[256] = "", *tok, *save = NULL;
	gc_rc rc;

	w->nmethods = 0;
	if (!s || !*s || gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "--method: empty or too long; use e.g. "
			       "signsgd,topk:ratio=0.01,powersgd:rank=4");
	for (tok = strtok_r(buf, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
		int cont = tok && strchr(tok, '=') && !strchr(tok, ':') && *spec;
		if (cont) {                           /* powersgd:rank=4,min_compression=1 */
			if (strlen(spec) + strlen(tok) + 2 > sizeof(spec))
				return gc_fail(e, GC_E_INVAL, "--method: '%s' too long", spec);
			strcat(spec, ",");
			strcat(spec, tok);
			continue;
		}
		if (*spec) {
			if (w->nmethods == GC_WHATIF_MAX_METHODS)
				return gc_fail(e, GC_E_INVAL, "--method: more than %d methods",
					       GC_WHATIF_MAX_METHODS);
			if ((rc = gc_model_method_parse(spec, &w->methods[w->nmethods++], e)))
				return rc;
		}
		if (!tok)
			break;
		gc_strlcpy(spec, tok, sizeof(spec));
	}
	if (!w->nmethods)
		return gc_fail(e, GC_E_INVAL, "--method: '%s' names no method", s);
	return GC_OK;
}

/* Encode/decode rates (elements/s on one V100) of the "paper" preset: assumptions of
 * this project that put the study's per-iteration overheads in the right order for
 * ResNet-50 (tens of ms for top-k, a few ms for signSGD/PowerSGD); see docs/model.md. */
static const double paper_enc[GC_M__COUNT] = { 0, 5e10, 5e9, 4e8, 1.7e9, 4e8 };
static const double paper_dec[GC_M__COUNT] = { 0, 5e10, 1e10, 1e10, 1e10, 1e10 };

gc_rc gc_whatif_preset(gc_whatif *w, const char *name, gc_err *e)
{
	gc_model_params *mp = &w->mp;

	gc_model_params_default(mp);
	w->paper = 0;
	gc_strlcpy(w->source, name, sizeof(w->source));
	if (!strcmp(name, "ideal"))
		return GC_OK;
	if (strcmp(name, "paper"))
		return gc_fail(e, GC_E_INVAL, "unknown preset '%s'; use paper or ideal", name);
	w->paper = 1;
	mp->alpha = 25e-6;
	mp->lambda = 1.05;
	memcpy(mp->enc_rate, paper_enc, sizeof(paper_enc));
	memcpy(mp->dec_rate, paper_dec, sizeof(paper_dec));
	return GC_OK;
}

gc_rc gc_whatif_point(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
		      double bw_gbps, double s, double *speedup, gc_model_result *rm,
		      gc_model_result *rs, gc_err *e)
{
	gc_model_method sync;
	gc_model_params mp = w->mp;
	gc_rc rc;
	int i;

	gc_arch_set_timing(a, w->batch, GC_V100_FLOPS, s);
	mp.bw = bw_gbps * 1e9 / 8;
	for (i = 0; i < GC_M__COUNT; i++) {     /* the codecs run on the same, faster device */
		mp.enc_rate[i] *= s;
		mp.dec_rate[i] *= s;
	}
	if ((rc = gc_model_method_parse("syncsgd", &sync, e)) ||
	    (rc = gc_model_predict(a, &sync, &mp, p, rs, e)) ||
	    (rc = gc_model_predict(a, m, &mp, p, rm, e)))
		return rc;
	*speedup = rs->total / rm->total;
	return GC_OK;
}

static gc_rc gain(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p, double s,
		  double gbps, double *g, gc_err *e)
{
	gc_model_result rm, rs;
	gc_rc rc = gc_whatif_point(w, a, m, p, gbps, s, g, &rm, &rs, e);

	*g -= 1;
	return rc;
}

gc_rc gc_whatif_crossover(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
			  double s, double *gbps, gc_err *e)
{
	double lo = -1, hi = 4, g, step = 0.1, x;  /* log10 Gbit/s */
	int i, k, last = -1;
	gc_rc rc;

	for (i = 0; i <= 50; i++) {
		if ((rc = gain(w, a, m, p, s, pow(10, lo + step * i), &g, e)))
			return rc;
		if (g > 0)
			last = i;
	}
	if (last < 0 || last == 50) {
		*gbps = last < 0 ? 0 : INFINITY;
		return GC_OK;
	}
	lo = -1 + step * last, hi = lo + step;
	for (k = 0; k < 40; k++) {
		x = (lo + hi) / 2;
		if ((rc = gain(w, a, m, p, s, pow(10, x), &g, e)))
			return rc;
		if (g > 0)
			lo = x;
		else
			hi = x;
	}
	*gbps = pow(10, lo);
	return GC_OK;
}
