/* worker/wk_mlp.c: the trained MLP, features-256-classes (ReLU, softmax cross-entropy),
 * forward and backward through cblas_sgemm. */
#include "wk.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "wk_data.h"

enum { W1, B1, W2, B2 };

typedef struct mlp {
	float *h, *dh, *z;             /* batch x HID, batch x HID, batch x classes */
	const float *x;                /* the last forward's input and labels */
	const int *y;
	int n;
} mlp;

static double mlp_forward(gc_wk_net *m, const float *x, const int *y, int n, int *correct)
{
	mlp *s = m->st;
	const int F = (int)m->features, C = m->classes;
	s->x = x, s->y = y, s->n = n;
	for (int i = 0; i < n; i++)
		memcpy(s->h + (size_t)i * GC_MLP_HID, m->p[B1], sizeof(float) * GC_MLP_HID);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, GC_MLP_HID, F, 1.0f, x, F,
		    m->p[W1], F, 1.0f, s->h, GC_MLP_HID);
	for (size_t i = 0; i < (size_t)n * GC_MLP_HID; i++)
		s->h[i] = s->h[i] > 0 ? s->h[i] : 0;
	for (int i = 0; i < n; i++)
		memcpy(s->z + (size_t)i * (size_t)C, m->p[B2], sizeof(float) * (size_t)C);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, C, GC_MLP_HID, 1.0f, s->h,
		    GC_MLP_HID, m->p[W2], GC_MLP_HID, 1.0f, s->z, C);
	return gc_wk_softmax_xent(s->z, y, n, C, correct);
}

static void col_sums(const float *a, int rows, int cols, float *out)
{
	memset(out, 0, sizeof(float) * (size_t)cols);
	for (int i = 0; i < rows; i++)
		for (int k = 0; k < cols; k++)
			out[k] += a[(size_t)i * (size_t)cols + k];
}

static void mlp_backward(gc_wk_net *m, void (*produced)(void *arg, size_t k), void *arg)
{
	mlp *s = m->st;
	const int n = s->n, F = (int)m->features, C = m->classes;
	float *dz = s->z;
	gc_wk_xent_grad(dz, s->y, n, C);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, GC_MLP_HID, n, 1.0f, dz, C, s->h,
		    GC_MLP_HID, 0.0f, m->g[W2], GC_MLP_HID);
	col_sums(dz, n, C, m->g[B2]);
	if (produced)
		produced(arg, 2);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, GC_MLP_HID, C, 1.0f, dz, C,
		    m->p[W2], GC_MLP_HID, 0.0f, s->dh, GC_MLP_HID);
	for (size_t i = 0; i < (size_t)n * GC_MLP_HID; i++)
		s->dh[i] = s->h[i] > 0 ? s->dh[i] : 0;
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, GC_MLP_HID, F, n, 1.0f, s->dh,
		    GC_MLP_HID, s->x, F, 0.0f, m->g[W1], F);
	col_sums(s->dh, n, GC_MLP_HID, m->g[B1]);
	if (produced)
		produced(arg, 4);
}

static void mlp_release(gc_wk_net *m)
{
	mlp *s = m->st;
	if (s) {
		free(s->h);
		free(s->dh);
		free(s->z);
		free(s);
	}
	m->st = NULL;
}

gc_rc gc_mlp_new(gc_wk_net *m, const gc_data *d, int batch, gc_err *e)
{
	const size_t F = d->features, C = (size_t)d->classes, H = GC_MLP_HID, b = (size_t)batch;
	const size_t w1[2] = { H, F }, b1[1] = { H }, w2[2] = { C, H }, b2[1] = { C };
	mlp *s = calloc(1, sizeof(*s));
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "mlp");
	m->batch = batch, m->features = F, m->classes = d->classes;
	m->channels = d->channels, m->height = d->height, m->width = d->width;
	m->forward = mlp_forward, m->backward = mlp_backward, m->release = mlp_release;
	m->st = s;
	gc_wk_net_tensor(m, "fc1.weight", 2, w1);
	gc_wk_net_tensor(m, "fc1.bias", 1, b1);
	gc_wk_net_tensor(m, "fc2.weight", 2, w2);
	gc_wk_net_tensor(m, "fc2.bias", 1, b2);
	if (s) {
		s->h = malloc(sizeof(float) * b * H);
		s->dh = malloc(sizeof(float) * b * H);
		s->z = malloc(sizeof(float) * b * C);
	}
	if (!s || !s->h || !s->dh || !s->z) {
		gc_wk_net_release(m);
		return gc_fail(e, GC_E_NOMEM, "out of memory for the MLP at batch %d", batch);
	}
	return GC_OK;
}
