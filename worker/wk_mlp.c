/* worker/wk_mlp.c: the real-training workload, a 784-256-10 MLP (ReLU, softmax
 * cross-entropy) with forward and backward through cblas_sgemm, trained on Gaussian
 * clusters (one centre per class from a fixed seed; each rank draws its own samples). */
#include "wk.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CENTRE_SCALE 0.1f
#define SEED_CENTRES 1234
#define SEED_INIT 7

static const size_t shp_w1[2] = { GC_MLP_HID, GC_MLP_IN }, shp_b1[1] = { GC_MLP_HID };
static const size_t shp_w2[2] = { GC_MLP_OUT, GC_MLP_HID }, shp_b2[1] = { GC_MLP_OUT };

void gc_mlp_tensors(gc_wk_tensor_in *out, size_t *nt)
{
	out[0] = (gc_wk_tensor_in){ "fc1.weight", 2, shp_w1, GC_MLP_HID * GC_MLP_IN, 0 };
	out[1] = (gc_wk_tensor_in){ "fc1.bias", 1, shp_b1, GC_MLP_HID, 0 };
	out[2] = (gc_wk_tensor_in){ "fc2.weight", 2, shp_w2, GC_MLP_OUT * GC_MLP_HID, 0 };
	out[3] = (gc_wk_tensor_in){ "fc2.bias", 1, shp_b2, GC_MLP_OUT, 0 };
	*nt = 4;
}

static size_t offset_of(const gc_wk_layout *lay, const char *name)
{
	for (size_t i = 0; i < lay->nt; i++)
		if (!strcmp(lay->t[i].name, name))
			return lay->t[i].off;
	return 0;
}

static int gen_shard(gc_mlp *m, int rank)
{
	float *centres = malloc(sizeof(float) * GC_MLP_OUT * GC_MLP_IN);
	uint64_t s = (uint64_t)rank * 7919 + 1000;
	if (!centres)
		return -1;
	gc_wk_fill_random(centres, GC_MLP_OUT * GC_MLP_IN, SEED_CENTRES, CENTRE_SCALE);
	gc_wk_fill_random(m->x, m->nshard * GC_MLP_IN, s, 1.0f);
	for (size_t i = 0; i < m->nshard; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		int c = (int)((s >> 33) % GC_MLP_OUT);
		m->y[i] = c;
		for (int k = 0; k < GC_MLP_IN; k++)
			m->x[i * GC_MLP_IN + k] += centres[c * GC_MLP_IN + k];
	}
	free(centres);
	return 0;
}

static void bind(gc_mlp *m, const gc_wk_layout *lay, float *param, float *grad)
{
	size_t o_w1 = offset_of(lay, "fc1.weight"), o_b1 = offset_of(lay, "fc1.bias");
	size_t o_w2 = offset_of(lay, "fc2.weight"), o_b2 = offset_of(lay, "fc2.bias");
	m->w1 = param + o_w1, m->b1 = param + o_b1, m->w2 = param + o_w2, m->b2 = param + o_b2;
	m->g_w1 = grad + o_w1, m->g_b1 = grad + o_b1, m->g_w2 = grad + o_w2, m->g_b2 = grad + o_b2;
	gc_wk_fill_random(m->w1, GC_MLP_HID * GC_MLP_IN, SEED_INIT, sqrtf(2.0f / GC_MLP_IN));
	gc_wk_fill_random(m->w2, GC_MLP_OUT * GC_MLP_HID, SEED_INIT + 1, sqrtf(1.0f / GC_MLP_HID));
	memset(m->b1, 0, sizeof(float) * GC_MLP_HID);
	memset(m->b2, 0, sizeof(float) * GC_MLP_OUT);
}

gc_rc gc_mlp_init(gc_mlp *m, const gc_wk_layout *lay, float *param, float *grad, int batch,
		  int rank, size_t nshard, gc_err *e)
{
	size_t b = (size_t)batch;
	memset(m, 0, sizeof(*m));
	m->batch = batch;
	m->nshard = nshard < b ? b : nshard;
	m->h = malloc(sizeof(float) * b * GC_MLP_HID);
	m->dh = malloc(sizeof(float) * b * GC_MLP_HID);
	m->p = malloc(sizeof(float) * b * GC_MLP_OUT);
	m->x = malloc(sizeof(float) * m->nshard * GC_MLP_IN);
	m->y = malloc(sizeof(int) * m->nshard);
	if (!m->h || !m->dh || !m->p || !m->x || !m->y) {
		gc_mlp_release(m);
		return gc_fail(e, GC_E_NOMEM, "out of memory for the MLP at batch %d", batch);
	}
	bind(m, lay, param, grad);
	if (gen_shard(m, rank)) {
		gc_mlp_release(m);
		return gc_fail(e, GC_E_NOMEM, "out of memory for the MLP's class centres");
	}
	return GC_OK;
}

void gc_mlp_release(gc_mlp *m)
{
	if (!m)
		return;
	free(m->h);
	free(m->dh);
	free(m->p);
	free(m->x);
	free(m->y);
	memset(m, 0, sizeof(*m));
}

static double softmax_loss(gc_mlp *m, const int *y)
{
	double loss = 0;
	for (int i = 0; i < m->batch; i++) {
		float *z = m->p + (size_t)i * GC_MLP_OUT, mx = z[0];
		double sum = 0;
		for (int k = 1; k < GC_MLP_OUT; k++)
			mx = z[k] > mx ? z[k] : mx;
		for (int k = 0; k < GC_MLP_OUT; k++) {
			z[k] = expf(z[k] - mx);
			sum += z[k];
		}
		for (int k = 0; k < GC_MLP_OUT; k++)
			z[k] = (float)(z[k] / sum);
		loss -= log((double)z[y[i]] + 1e-30);
	}
	return loss / m->batch;
}

double gc_mlp_forward(gc_mlp *m)
{
	const int B = m->batch;
	if (m->next + (size_t)B > m->nshard)
		m->next = 0;
	const float *x = m->x + m->next * GC_MLP_IN;
	const int *y = m->y + m->next;
	for (int i = 0; i < B; i++)
		memcpy(m->h + (size_t)i * GC_MLP_HID, m->b1, sizeof(float) * GC_MLP_HID);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, GC_MLP_HID, GC_MLP_IN, 1.0f, x,
		    GC_MLP_IN, m->w1, GC_MLP_IN, 1.0f, m->h, GC_MLP_HID);
	for (size_t i = 0; i < (size_t)B * GC_MLP_HID; i++)
		m->h[i] = m->h[i] > 0 ? m->h[i] : 0;
	for (int i = 0; i < B; i++)
		memcpy(m->p + (size_t)i * GC_MLP_OUT, m->b2, sizeof(float) * GC_MLP_OUT);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, GC_MLP_OUT, GC_MLP_HID, 1.0f, m->h,
		    GC_MLP_HID, m->w2, GC_MLP_HID, 1.0f, m->p, GC_MLP_OUT);
	return softmax_loss(m, y);
}

static void col_sums(const float *a, int rows, int cols, float *out)
{
	memset(out, 0, sizeof(float) * (size_t)cols);
	for (int i = 0; i < rows; i++)
		for (int k = 0; k < cols; k++)
			out[k] += a[(size_t)i * cols + k];
}

void gc_mlp_backward(gc_mlp *m, void (*produced)(void *arg, size_t k), void *arg)
{
	const int B = m->batch;
	const float *x = m->x + m->next * GC_MLP_IN;
	const int *y = m->y + m->next;
	float *dz = m->p;                                  /* becomes (P - onehot) / B */
	for (int i = 0; i < B; i++) {
		dz[(size_t)i * GC_MLP_OUT + y[i]] -= 1.0f;
		for (int k = 0; k < GC_MLP_OUT; k++)
			dz[(size_t)i * GC_MLP_OUT + k] /= (float)B;
	}
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, GC_MLP_OUT, GC_MLP_HID, B, 1.0f, dz,
		    GC_MLP_OUT, m->h, GC_MLP_HID, 0.0f, m->g_w2, GC_MLP_HID);
	col_sums(dz, B, GC_MLP_OUT, m->g_b2);
	if (produced)
		produced(arg, 2);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, GC_MLP_HID, GC_MLP_OUT, 1.0f, dz,
		    GC_MLP_OUT, m->w2, GC_MLP_HID, 0.0f, m->dh, GC_MLP_HID);
	for (size_t i = 0; i < (size_t)B * GC_MLP_HID; i++)
		m->dh[i] = m->h[i] > 0 ? m->dh[i] : 0;
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, GC_MLP_HID, GC_MLP_IN, B, 1.0f, m->dh,
		    GC_MLP_HID, x, GC_MLP_IN, 0.0f, m->g_w1, GC_MLP_IN);
	col_sums(m->dh, B, GC_MLP_HID, m->g_b1);
	m->next += (size_t)B;
	if (produced)
		produced(arg, 4);
}
