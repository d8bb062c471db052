/* model/fit.c: least-squares fits of the model's parameters from measurements. */
#include <math.h>

#include "model.h"

/* Solve the 2x2 normal equations of y ~ c1 x1 + c2 x2. */
static int lsq2(const double *x1, const double *x2, const double *y, size_t n, double *c1,
		double *c2)
{
	double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0, det;
	size_t i;

	for (i = 0; i < n; i++) {
		s11 += x1[i] * x1[i], s12 += x1[i] * x2[i], s22 += x2[i] * x2[i];
		b1 += x1[i] * y[i], b2 += x2[i] * y[i];
	}
	det = s11 * s22 - s12 * s12;
	if (!(fabs(det) > 1e-12 * s11 * s22))
		return -1;
	*c1 = (b1 * s22 - b2 * s12) / det;
	*c2 = (s11 * b2 - s12 * b1) / det;
	return 0;
}

#define FIT_MAX 100000

gc_rc gc_model_fit_link(const gc_calib_sample *s, size_t n, double *alpha, double *bw,
			gc_err *e)
{
	static double x1[FIT_MAX], x2[FIT_MAX], y[FIT_MAX];
	double inv_bw;
	size_t i;

	if (n < 2 || n > FIT_MAX)
		return gc_fail(e, GC_E_INVAL, "fitting latency and bandwidth needs 2 to %d "
			       "calibration samples, got %zu", FIT_MAX, n);
	for (i = 0; i < n; i++) {
		double p = s[i].p;
		if (s[i].p < 2 || !(s[i].bytes >= 0) || !(s[i].seconds >= 0))
			return gc_fail(e, GC_E_INVAL, "calibration sample %zu: p %d (need >= 2), "
				       "%g bytes, %g s (need >= 0)", i, s[i].p, s[i].bytes, s[i].seconds);
		x1[i] = s[i].coll == GC_COLL_ALLREDUCE ? 2 * (p - 1) : p - 1;
		x2[i] = s[i].coll == GC_COLL_ALLREDUCE ? 2 * s[i].bytes * (p - 1) / p
						       : (p - 1) * s[i].bytes;
		y[i] = s[i].seconds;
	}
	if (lsq2(x1, x2, y, n, alpha, &inv_bw))
		return gc_fail(e, GC_E_INVAL, "calibration samples do not separate latency from "
			       "bandwidth: measure at least two different sizes");
	if (!(inv_bw > 0))
		return gc_fail(e, GC_E_INVAL, "fitted bandwidth is not positive (1/BW = %g): "
			       "times do not grow with size; measure larger transfers", inv_bw);
	*bw = 1 / inv_bw;
	if (*alpha < 0)
		*alpha = 0;
	return GC_OK;
}

/* slope of y ~ c x through the origin */
static gc_rc slope(const double *x, const double *y, size_t n, double *c, const char *what,
		   gc_err *e)
{
	double sxy = 0, sxx = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(x[i] >= 0) || !(y[i] >= 0))
			return gc_fail(e, GC_E_INVAL, "fitting %s: sample %zu has a negative or "
				       "non-numeric value (%g, %g)", what, i, x[i], y[i]);
		sxy += x[i] * y[i], sxx += x[i] * x[i];
	}
	if (!n || !(sxx > 0) || !(sxy > 0))
		return gc_fail(e, GC_E_INVAL, "fitting %s needs at least one sample with both "
			       "values > 0 (got %zu samples)", what, n);
	*c = sxy / sxx;
	return GC_OK;
}

gc_rc gc_model_fit_lambda(const double *compute, const double *measured, size_t n,
			  double *lambda, gc_err *e)
{
	return slope(compute, measured, n, lambda, "lambda", e);
}

gc_rc gc_model_fit_rate(const double *elements, const double *seconds, size_t n,
			double *rate, gc_err *e)
{
	double inv;
	gc_rc rc = slope(elements, seconds, n, &inv, "a rate", e);

	if (!rc)
		*rate = 1 / inv;
	return rc;
}

/* y ~ c x through 0 (any signs) and its squared residual; c = 0 if x is all 0. */
static double slope_any(const double *x, const double *y, size_t n, double *res)
{
	double sxy = 0, sxx = 0, c;
	size_t i;

	for (i = 0; i < n; i++)
		sxy += x[i] * y[i], sxx += x[i] * x[i];
	c = sxx > 0 ? sxy / sxx : 0;
	for (*res = 0, i = 0; i < n; i++)
		*res += (y[i] - c * x[i]) * (y[i] - c * x[i]);
	return c;
}

gc_rc gc_model_fit_comm(const double *steps, const double *wire, const double *extra,
			size_t n, double *alpha, double *host_bw, gc_err *e)
{
	double a = 0, inv = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!(steps[i] >= 0) || !(wire[i] >= 0) || !isfinite(extra[i]))
			return gc_fail(e, GC_E_INVAL, "fitting collectives: sample %zu is not "
				       "usable (%g steps, %g bytes, %g s)", i, steps[i], wire[i],
				       extra[i]);
	if (lsq2(steps, wire, extra, n, &a, &inv) || a < 0 || inv < 0) {
		double ra, rw, sa = slope_any(steps, extra, n, &ra),
			       sw = slope_any(wire, extra, n, &rw);
		a = inv = 0;
		if (sa > 0 && (!(sw > 0) || ra <= rw))
			a = sa;
		else if (sw > 0)
			inv = sw;
	}
	if (!(a > 0) && !(inv > 0))
		return gc_fail(e, GC_E_INVAL, "fitting collectives: the %zu samples leave no "
			       "positive latency or host cost (collectives are no slower than "
			       "the link)", n);
	*alpha = a;
	*host_bw = inv > 0 ? 1 / inv : 0;
	return GC_OK;
}
