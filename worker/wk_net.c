/* worker/wk_net.c: what the trained models share: choosing one, binding it to the flat
 * buffers, initialising it, softmax cross-entropy, and validation. */
#include "wk.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wk_data.h"

#define SEED_INIT 7

gc_rc gc_wk_net_new(gc_wk_net *m, const char *model, const gc_data *d, int batch, gc_err *e)
{
	memset(m, 0, sizeof(*m));
	if (!strcmp(model, "mlp"))
		return gc_mlp_new(m, d, batch, e);
	if (!strcmp(model, "cnn"))
		return gc_cnn_new(m, d, batch, e);
	return gc_fail(e, GC_E_INVAL, "unknown trained model '%s': use mlp or cnn", model);
}

static const gc_wk_tensor *find(const gc_wk_layout *lay, const char *name)
{
	for (size_t i = 0; i < lay->nt; i++)
		if (!strcmp(lay->t[i].name, name))
			return &lay->t[i];
	return NULL;
}

gc_rc gc_wk_net_bind(gc_wk_net *m, const gc_wk_layout *lay, float *param, float *grad,
		     gc_err *e)
{
	for (size_t i = 0; i < m->nt; i++) {
		const gc_wk_tensor *t = find(lay, m->t[i].name);
		if (!t || t->numel != m->t[i].numel)
			return gc_fail(e, GC_E_STATE, "the layout lacks tensor '%s' of the %s",
				       m->t[i].name, m->name);
		m->p[i] = param + t->off;
		m->g[i] = grad + t->off;
		if (m->t[i].ndim >= 2) {
			size_t fan_in = m->t[i].numel / m->t[i].shape[0];
			gc_wk_fill_random(m->p[i], t->numel, SEED_INIT + i,
					  sqrtf(2.0f / (float)fan_in));
		} else {
			memset(m->p[i], 0, t->numel * sizeof(float));
		}
	}
	return GC_OK;
}

double gc_wk_softmax_xent(float *z, const int *y, int n, int classes, int *correct)
{
	double loss = 0;
	int hits = 0;
	for (int i = 0; i < n; i++) {
		float *r = z + (size_t)i * (size_t)classes, mx = r[0];
		int arg = 0;
		double sum = 0;
		for (int k = 1; k < classes; k++)
			if (r[k] > mx)
				mx = r[k], arg = k;
		hits += arg == y[i];
		for (int k = 0; k < classes; k++) {
			r[k] = expf(r[k] - mx);
			sum += r[k];
		}
		for (int k = 0; k < classes; k++)
			r[k] = (float)(r[k] / sum);
		loss -= log((double)r[y[i]] + 1e-30);
	}
	if (correct)
		*correct = hits;
	return n ? loss / n : 0;
}

void gc_wk_xent_grad(float *p, const int *y, int n, int classes)
{
	for (int i = 0; i < n; i++) {
		float *r = p + (size_t)i * (size_t)classes;
		r[y[i]] -= 1.0f;
		for (int k = 0; k < classes; k++)
			r[k] /= (float)n;
	}
}

void gc_wk_net_eval(gc_wk_net *m, const gc_data *d, size_t lo, size_t hi, double *loss,
		    double *acc)
{
	double sum = 0;
	size_t hits = 0;
	hi = hi < d->n_val ? hi : d->n_val;
	for (size_t i = lo; i < hi; i += (size_t)m->batch) {
		size_t j = d->n_train + i;
		int n = (int)(hi - i < (size_t)m->batch ? hi - i : (size_t)m->batch), c = 0;
		sum += m->forward(m, d->x + j * d->features, d->y + j, n, &c) * n;
		hits += (size_t)c;
	}
	*loss = hi > lo ? sum / (double)(hi - lo) : 0;
	*acc = hi > lo ? (double)hits / (double)(hi - lo) : 0;
}

void gc_wk_net_release(gc_wk_net *m)
{
	if (!m)
		return;
	if (m->release)
		m->release(m);
	memset(m, 0, sizeof(*m));
}

void gc_wk_net_tensor(gc_wk_net *m, const char *name, int ndim, const size_t *shape)
{
	size_t i = m->nt++, numel = 1;
	for (int k = 0; k < ndim; k++)
		numel *= (m->shape[i][k] = shape[k]);
	m->t[i] = (gc_wk_tensor_in){ name, ndim, m->shape[i], numel, 0 };
	m->numel += numel;
}
