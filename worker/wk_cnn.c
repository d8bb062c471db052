/* worker/wk_cnn.c: the trained CNN: conv3x3(16, pad 1)-ReLU-conv3x3(32, pad 1)-ReLU-
 * avgpool 2x2-fc, softmax cross-entropy. Convolutions run as im2col + cblas_sgemm over
 * the whole batch; activations are kept channels-last (row = sample x position), so
 * the convolution weights are the (out, in x 3 x 3) matrices PowerSGD factorises. */
#include "wk.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "wk_data.h"

enum { W1, B1, W2, B2, W3, B3 };

typedef struct cnn {
	int n;                         /* samples of the last forward */
	const int *y;
	float *col1, *a1, *col2, *a2, *pool, *z;       /* forward */
	float *dpool, *da2, *dcol2, *da1;              /* backward */
} cnn;

/* An element (b, c, y, x) of an input is at in[b * sb + c * sc + (y * W + x) * sp]. */
struct img { const float *p; size_t ch, h, w, sb, sc, sp; };

/* The input element under tap k (0..8, row-major 3x3) of output (y, x), or 0 in the
 * zero padding. */
static float tap(const struct img *in, size_t b, size_t c, size_t y, size_t x, int k)
{
	long yy = (long)y + k / 3 - 1, xx = (long)x + k % 3 - 1;
	if (yy < 0 || xx < 0 || (size_t)yy >= in->h || (size_t)xx >= in->w)
		return 0;
	return in->p[b * in->sb + c * in->sc + ((size_t)yy * in->w + (size_t)xx) * in->sp];
}

/* col[(b, y, x)][c * 9 + k] = the input under tap k of output (y, x) in channel c. */
static void im2col(const struct img *in, size_t n, float *col)
{
	const size_t hw = in->h * in->w, K = in->ch * 9;
	for (size_t b = 0; b < n; b++)
		for (size_t y = 0; y < in->h; y++)
			for (size_t x = 0; x < in->w; x++) {
				float *r = col + (b * hw + y * in->w + x) * K;
				for (size_t c = 0; c < in->ch; c++)
					for (int k = 0; k < 9; k++)
						r[c * 9 + (size_t)k] = tap(in, b, c, y, x, k);
			}
}

/* The adjoint of im2col into a channels-last output of ch channels (accumulated). */
static void col2im(const float *col, size_t n, size_t ch, size_t H, size_t W, float *out)
{
	const size_t hw = H * W;
	memset(out, 0, sizeof(float) * n * hw * ch);
	for (size_t b = 0; b < n; b++)
		for (size_t y = 0; y < H; y++)
			for (size_t x = 0; x < W; x++) {
				const float *r = col + (b * hw + y * W + x) * ch * 9;
				for (int k = 0; k < 9; k++) {
					long yy = (long)y + k / 3 - 1, xx = (long)x + k % 3 - 1;
					if (yy < 0 || xx < 0 || (size_t)yy >= H || (size_t)xx >= W)
						continue;
					float *o = out + (b * hw + (size_t)yy * W + (size_t)xx) * ch;
					for (size_t c = 0; c < ch; c++)
						o[c] += r[c * 9 + (size_t)k];
				}
			}
}

/* out (rows x cout) = col (rows x k) . w^T (w: cout x k) + bias, then ReLU. */
static void conv_fwd(const float *col, int rows, int k, const float *w, const float *bias,
		     int cout, float *out)
{
	for (int i = 0; i < rows; i++)
		memcpy(out + (size_t)i * (size_t)cout, bias, sizeof(float) * (size_t)cout);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, cout, k, 1.0f, col, k, w, k,
		    1.0f, out, cout);
	for (size_t i = 0; i < (size_t)rows * (size_t)cout; i++)
		out[i] = out[i] > 0 ? out[i] : 0;
}

static void col_sums(const float *a, int rows, int cols, float *out)
{
	memset(out, 0, sizeof(float) * (size_t)cols);
	for (int i = 0; i < rows; i++)
		for (int k = 0; k < cols; k++)
			out[k] += a[(size_t)i * (size_t)cols + k];
}

/* 2x2 average pooling of channels-last a (n x H x W x C) into n x H/2 x W/2 x C. */
static void avgpool(const float *a, size_t n, size_t H, size_t W, size_t C, float *out)
{
	const size_t h2 = H / 2, w2 = W / 2;
	for (size_t b = 0; b < n; b++)
		for (size_t py = 0; py < h2; py++)
			for (size_t px = 0; px < w2; px++) {
				float *o = out + (b * h2 * w2 + py * w2 + px) * C;
				const float *r = a + (b * H * W + 2 * py * W + 2 * px) * C;
				for (size_t c = 0; c < C; c++)
					o[c] = 0.25f * (r[c] + r[C + c] + r[W * C + c] + r[(W + 1) * C + c]);
			}
}

/* da[pos][c] = dpool[cell of pos][c] / 4 where a > 0 (ReLU), else 0. */
static void unpool_relu(const float *dp, const float *a, size_t n, size_t H, size_t W,
			size_t C, float *da)
{
	const size_t w2 = W / 2;
	for (size_t b = 0; b < n; b++)
		for (size_t y = 0; y < H; y++)
			for (size_t x = 0; x < W; x++) {
				size_t pos = (b * H * W + y * W + x) * C;
				const float *g = dp + (b * (H / 2) * w2 + (y / 2) * w2 + x / 2) * C;
				for (size_t c = 0; c < C; c++)
					da[pos + c] = a[pos + c] > 0 ? 0.25f * g[c] : 0;
			}
}

static double cnn_forward(gc_wk_net *m, const float *x, const int *y, int n, int *correct)
{
	cnn *s = m->st;
	const int H = m->height, W = m->width, M = n * H * W, P = (H / 2) * (W / 2) * GC_CNN_C2;
	const size_t hw = (size_t)(H * W), ch = (size_t)m->channels, C = (size_t)m->classes;
	struct img in = { x, ch, (size_t)H, (size_t)W, ch * hw, hw, 1 };
	struct img a1 = { s->a1, GC_CNN_C1, (size_t)H, (size_t)W, hw * GC_CNN_C1, 1, GC_CNN_C1 };
	s->n = n, s->y = y;
	im2col(&in, (size_t)n, s->col1);
	conv_fwd(s->col1, M, m->channels * 9, m->p[W1], m->p[B1], GC_CNN_C1, s->a1);
	im2col(&a1, (size_t)n, s->col2);
	conv_fwd(s->col2, M, GC_CNN_C1 * 9, m->p[W2], m->p[B2], GC_CNN_C2, s->a2);
	avgpool(s->a2, (size_t)n, (size_t)H, (size_t)W, GC_CNN_C2, s->pool);
	for (int i = 0; i < n; i++)
		memcpy(s->z + (size_t)i * C, m->p[B3], sizeof(float) * C);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, m->classes, P, 1.0f, s->pool, P,
		    m->p[W3], P, 1.0f, s->z, m->classes);
	return gc_wk_softmax_xent(s->z, y, n, m->classes, correct);
}

static void cnn_backward(gc_wk_net *m, void (*produced)(void *arg, size_t k), void *arg)
{
	cnn *s = m->st;
	const int n = s->n, H = m->height, W = m->width, M = n * H * W, C = m->classes;
	const int P = (H / 2) * (W / 2) * GC_CNN_C2, K1 = m->channels * 9, K2 = GC_CNN_C1 * 9;
	gc_wk_xent_grad(s->z, s->y, n, C);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, P, n, 1.0f, s->z, C, s->pool, P,
		    0.0f, m->g[W3], P);
	col_sums(s->z, n, C, m->g[B3]);
	if (produced)
		produced(arg, 2);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, P, C, 1.0f, s->z, C, m->p[W3], P,
		    0.0f, s->dpool, P);
	unpool_relu(s->dpool, s->a2, (size_t)n, (size_t)H, (size_t)W, GC_CNN_C2, s->da2);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, GC_CNN_C2, K2, M, 1.0f, s->da2,
		    GC_CNN_C2, s->col2, K2, 0.0f, m->g[W2], K2);
	col_sums(s->da2, M, GC_CNN_C2, m->g[B2]);
	if (produced)
		produced(arg, 4);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, K2, GC_CNN_C2, 1.0f, s->da2,
		    GC_CNN_C2, m->p[W2], K2, 0.0f, s->dcol2, K2);
	col2im(s->dcol2, (size_t)n, GC_CNN_C1, (size_t)H, (size_t)W, s->da1);
	for (size_t i = 0; i < (size_t)M * GC_CNN_C1; i++)
		s->da1[i] = s->a1[i] > 0 ? s->da1[i] : 0;
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, GC_CNN_C1, K1, M, 1.0f, s->da1,
		    GC_CNN_C1, s->col1, K1, 0.0f, m->g[W1], K1);
	col_sums(s->da1, M, GC_CNN_C1, m->g[B1]);
	if (produced)
		produced(arg, 6);
}

static void cnn_release(gc_wk_net *m)
{
	cnn *s = m->st;
	if (s) {
		float *b[] = { s->col1, s->a1, s->col2, s->a2, s->pool, s->z, s->dpool, s->da2,
			       s->dcol2, s->da1 };
		for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
			free(b[i]);
		free(s);
	}
	m->st = NULL;
}

static int alloc_buffers(cnn *s, const gc_wk_net *m)
{
	const size_t B = (size_t)m->batch, M = B * (size_t)(m->height * m->width);
	const size_t P = (size_t)(m->height / 2 * (m->width / 2)) * GC_CNN_C2;
	s->col1 = malloc(sizeof(float) * M * (size_t)m->channels * 9);
	s->a1 = malloc(sizeof(float) * M * GC_CNN_C1);
	s->col2 = malloc(sizeof(float) * M * GC_CNN_C1 * 9);
	s->a2 = malloc(sizeof(float) * M * GC_CNN_C2);
	s->pool = malloc(sizeof(float) * B * P);
	s->z = malloc(sizeof(float) * B * (size_t)m->classes);
	s->dpool = malloc(sizeof(float) * B * P);
	s->da2 = malloc(sizeof(float) * M * GC_CNN_C2);
	s->dcol2 = malloc(sizeof(float) * M * GC_CNN_C1 * 9);
	s->da1 = malloc(sizeof(float) * M * GC_CNN_C1);
	return s->col1 && s->a1 && s->col2 && s->a2 && s->pool && s->z && s->dpool && s->da2 &&
	       s->dcol2 && s->da1;
}

gc_rc gc_cnn_new(gc_wk_net *m, const gc_data *d, int batch, gc_err *e)
{
	const size_t ch = (size_t)d->channels, C = (size_t)d->classes;
	const size_t P = (size_t)(d->height / 2) * (size_t)(d->width / 2) * GC_CNN_C2;
	const size_t w1[4] = { GC_CNN_C1, ch, 3, 3 }, b1[1] = { GC_CNN_C1 };
	const size_t w2[4] = { GC_CNN_C2, GC_CNN_C1, 3, 3 }, b2[1] = { GC_CNN_C2 };
	const size_t w3[2] = { C, P }, b3[1] = { C };
	cnn *s = calloc(1, sizeof(*s));
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "cnn");
	m->batch = batch, m->features = d->features, m->classes = d->classes;
	m->channels = d->channels, m->height = d->height, m->width = d->width;
	m->forward = cnn_forward, m->backward = cnn_backward, m->release = cnn_release;
	m->st = s;
	gc_wk_net_tensor(m, "conv1.weight", 4, w1);
	gc_wk_net_tensor(m, "conv1.bias", 1, b1);
	gc_wk_net_tensor(m, "conv2.weight", 4, w2);
	gc_wk_net_tensor(m, "conv2.bias", 1, b2);
	gc_wk_net_tensor(m, "fc.weight", 2, w3);
	gc_wk_net_tensor(m, "fc.bias", 1, b3);
	if (!s || !alloc_buffers(s, m)) {
		gc_wk_net_release(m);
		return gc_fail(e, GC_E_NOMEM, "out of memory for the CNN at batch %d", batch);
	}
	return GC_OK;
}
