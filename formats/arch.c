/* formats/arch.c: the built-in architectures, defined in code (see arch.h for the FLOPs
 * conventions), and the timing helpers. The csv: loader and profiles: arch_csv.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "strutil.h"
#include "arch.h"

/* A growing tensor list; the first allocation failure sticks in oom. */
struct ab {
	gc_arch *a;
	size_t cap;
	int oom;
};

static void add(struct ab *b, double flops, int ndim, const size_t *shape,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add(struct ab *b, double flops, int ndim, const size_t *shape,
		const char *fmt, ...)
{
	gc_arch_tensor *t;
	va_list ap;
	int i;

	if (b->oom)
		return;
	if (GC_GROW(b->a->t, b->cap, b->a->n + 1, 64)) {
		b->oom = 1;
		return;
	}
	t = &b->a->t[b->a->n++];
	memset(t, 0, sizeof(*t));
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof(t->name), fmt, ap);
	va_end(ap);
	t->ndim = ndim;
	t->numel = 1;
	for (i = 0; i < ndim; i++) {
		t->shape[i] = shape[i];
		t->numel *= shape[i];
	}
	t->flops_fwd = flops;
	b->a->numel += t->numel;
	b->a->flops_fwd += flops;
}

#define SHAPE(...) ((const size_t[]){ __VA_ARGS__ })

/* conv without bias (ResNet): 2*k*k*cin*cout*hout*hout FLOPs on a square map */
static void conv(struct ab *b, const char *pfx, size_t cout, size_t cin, size_t k, size_t hout)
{
	double f = 2.0 * (double)(k * k * cin * cout) * (double)(hout * hout);
	add(b, f, 4, SHAPE(cout, cin, k, k), "%s.weight", pfx);
}

static void norm(struct ab *b, const char *pfx, size_t c)
{
	add(b, 0, 1, SHAPE(c), "%s.weight", pfx);
	add(b, 0, 1, SHAPE(c), "%s.bias", pfx);
}

/* nn.Linear(in, out): weight out x in; tokens per sample; extra FLOPs on the weight */
static void linear(struct ab *b, const char *pfx, size_t out, size_t in, double tokens,
		   double extra)
{
	add(b, 2.0 * (double)in * (double)out * tokens + extra, 2, SHAPE(out, in), "%s.weight", pfx);
	add(b, 0, 1, SHAPE(out), "%s.bias", pfx);
}

/* GPT-2's Conv1D(nf, nx): weight nx x nf (in x out) */
static void conv1d(struct ab *b, const char *pfx, size_t in, size_t out, double tokens,
		   double extra)
{
	add(b, 2.0 * (double)in * (double)out * tokens + extra, 2, SHAPE(in, out), "%s.weight", pfx);
	add(b, 0, 1, SHAPE(out), "%s.bias", pfx);
}

/* "PREFIX.SUFFIX" in buf (96 bytes), for nested layer names */
static const char *cat(char buf[96], const char *pfx, const char *sfx)
{
	snprintf(buf, 96, "%s.%s", pfx, sfx);
	return buf;
}

static void bottleneck(struct ab *b, int stage, int blk, size_t inplanes, size_t planes,
		       size_t hin, size_t hout)
{
	char p[32], q[96];

	snprintf(p, sizeof(p), "layer%d.%d", stage + 1, blk);
	conv(b, cat(q, p, "conv1"), planes, inplanes, 1, hin);
	norm(b, cat(q, p, "bn1"), planes);
	conv(b, cat(q, p, "conv2"), planes, planes, 3, hout);
	norm(b, cat(q, p, "bn2"), planes);
	conv(b, cat(q, p, "conv3"), 4 * planes, planes, 1, hout);
	norm(b, cat(q, p, "bn3"), 4 * planes);
	if (blk == 0) {
		conv(b, cat(q, p, "downsample.0"), 4 * planes, inplanes, 1, hout);
		norm(b, cat(q, p, "downsample.1"), 4 * planes);
	}
}

/* torchvision resnet50/101 (v1.5: stride on the 3x3 conv), 224x224 input */
static void build_resnet(struct ab *b, const int blocks[4])
{
	size_t inplanes = 64, h = 56;
	int s, i;

	conv(b, "conv1", 64, 3, 7, 112);
	norm(b, "bn1", 64);
	for (s = 0; s < 4; s++) {
		size_t planes = (size_t)64 << s;
		for (i = 0; i < blocks[s]; i++) {
			size_t hout = (i == 0 && s > 0) ? h / 2 : h;
			bottleneck(b, s, i, inplanes, planes, h, hout);
			inplanes = 4 * planes;
			h = hout;
		}
	}
	linear(b, "fc", 1000, 2048, 1, 0);
}

static void build_resnet50(struct ab *b)
{
	static const int blocks[4] = { 3, 4, 6, 3 };
	build_resnet(b, blocks);
}

static void build_resnet101(struct ab *b)
{
	static const int blocks[4] = { 3, 4, 23, 3 };
	build_resnet(b, blocks);
}

/* torchvision vgg16 (configuration D, no batch norm): features.N / classifier.N */
static void build_vgg16(struct ab *b)
{
	static const int cfg[] = { 64, 64, 0, 128, 128, 0, 256, 256, 256, 0,
				   512, 512, 512, 0, 512, 512, 512, 0 };
	size_t cin = 3, h = 224, idx = 0, i;

	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		size_t cout = (size_t)cfg[i];
		if (!cfg[i]) {          /* MaxPool2d */
			h /= 2;
			idx++;
			continue;
		}
		add(b, 2.0 * 9.0 * (double)(cin * cout) * (double)(h * h), 4,
		    SHAPE(cout, cin, 3, 3), "features.%zu.weight", idx);
		add(b, 0, 1, SHAPE(cout), "features.%zu.bias", idx);
		cin = cout;
		idx += 2;               /* Conv2d, ReLU */
	}
	linear(b, "classifier.0", 4096, 512 * 7 * 7, 1, 0);
	linear(b, "classifier.3", 4096, 4096, 1, 0);
	linear(b, "classifier.6", 1000, 4096, 1, 0);
}

/* BERT-base uncased: embeddings, 12 encoder layers, pooler (on the [CLS] token only) */
static void build_bert(struct ab *b)
{
	const double S = GC_ARCH_SEQ_LEN, d = 768;
	char p[32], q[96];
	int l;

	add(b, 0, 2, SHAPE(30522, 768), "embeddings.word_embeddings.weight");
	add(b, 0, 2, SHAPE(512, 768), "embeddings.position_embeddings.weight");
	add(b, 0, 2, SHAPE(2, 768), "embeddings.token_type_embeddings.weight");
	norm(b, "embeddings.LayerNorm", 768);
	for (l = 0; l < 12; l++) {
		snprintf(p, sizeof(p), "encoder.layer.%d", l);
		linear(b, cat(q, p, "attention.self.query"), 768, 768, S, 0);
		linear(b, cat(q, p, "attention.self.key"), 768, 768, S, 0);
		/* QK^T and softmax(.)V: 4*S*S*d per sample, see arch.h */
		linear(b, cat(q, p, "attention.self.value"), 768, 768, S, 4.0 * S * S * d);
		linear(b, cat(q, p, "attention.output.dense"), 768, 768, S, 0);
		norm(b, cat(q, p, "attention.output.LayerNorm"), 768);
		linear(b, cat(q, p, "intermediate.dense"), 3072, 768, S, 0);
		linear(b, cat(q, p, "output.dense"), 768, 3072, S, 0);
		norm(b, cat(q, p, "output.LayerNorm"), 768);
	}
	linear(b, "pooler.dense", 768, 768, 1, 0);
}

/* GPT-2 small (HF naming, Conv1D weights in x out), LM head tied to wte */
static void build_gpt2(struct ab *b)
{
	const double S = GC_ARCH_SEQ_LEN, d = 768;
	char p[16], q[96];
	int l;

	add(b, 2.0 * d * 50257.0 * S, 2, SHAPE(50257, 768), "wte.weight");
	add(b, 0, 2, SHAPE(1024, 768), "wpe.weight");
	for (l = 0; l < 12; l++) {
		snprintf(p, sizeof(p), "h.%d", l);
		norm(b, cat(q, p, "ln_1"), 768);
		conv1d(b, cat(q, p, "attn.c_attn"), 768, 2304, S, 4.0 * S * S * d);
		conv1d(b, cat(q, p, "attn.c_proj"), 768, 768, S, 0);
		norm(b, cat(q, p, "ln_2"), 768);
		conv1d(b, cat(q, p, "mlp.c_fc"), 768, 3072, S, 0);
		conv1d(b, cat(q, p, "mlp.c_proj"), 3072, 768, S, 0);
	}
	norm(b, "ln_f", 768);
}

/* tiny: a 32x32 conv and two linear layers, 985,408 parameters */
static void build_tiny(struct ab *b)
{
	add(b, 2.0 * 9 * 3 * 32 * 32 * 32, 4, SHAPE(32, 3, 3, 3), "conv1.weight");
	add(b, 0, 1, SHAPE(32), "conv1.bias");
	linear(b, "fc1", 1024, 512, 1, 0);
	linear(b, "fc2", 448, 1024, 1, 0);
}

static const struct {
	const char *name;
	void (*build)(struct ab *b);
} builtins[] = {
	{ "resnet50", build_resnet50 },
	{ "resnet101", build_resnet101 },
	{ "vgg16", build_vgg16 },
	{ "bert-base", build_bert },
	{ "gpt2-small", build_gpt2 },
	{ "tiny", build_tiny },
};
#define NBUILTIN (sizeof(builtins) / sizeof(builtins[0]))

const char *const *gc_arch_names(void)
{
	static const char *names[NBUILTIN + 1];
	size_t i;

	for (i = 0; i < NBUILTIN; i++)
		names[i] = builtins[i].name;
	names[NBUILTIN] = NULL;
	return names;
}

gc_rc gc_arch_build(const char *name, gc_arch *out, gc_err *e)
{
	struct ab b = { out, 0, 0 };
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!name || !*name)
		return gc_fail(e, GC_E_INVAL, "no architecture given; use one of resnet50, "
			       "resnet101, vgg16, bert-base, gpt2-small, tiny, or csv:PATH");
	if (!strncmp(name, "csv:", 4))
		return gc_arch_load_csv(name + 4, out, e);
	for (i = 0; i < NBUILTIN; i++)
		if (!strcmp(builtins[i].name, name))
			break;
	if (i == NBUILTIN)
		return gc_fail(e, GC_E_INVAL, "unknown architecture '%s'; use one of resnet50, "
			       "resnet101, vgg16, bert-base, gpt2-small, tiny, or csv:PATH", name);
	gc_strlcpy(out->name, name, sizeof(out->name));
	builtins[i].build(&b);
	if (b.oom) {
		gc_arch_release(out);
		return gc_fail(e, GC_E_NOMEM, "cannot build architecture '%s': out of memory", name);
	}
	return GC_OK;
}

void gc_arch_set_timing(gc_arch *a, int batch, double device_flops, double compute_scale)
{
	double rate;
	size_t i;

	if (device_flops <= 0)
		device_flops = GC_V100_FLOPS;
	if (compute_scale <= 0)
		compute_scale = 1;
	if (batch < 1)
		batch = 1;
	rate = device_flops * compute_scale;
	for (i = 0; i < a->n; i++)
		a->t[i].t_bwd = 2.0 * a->t[i].flops_fwd * (double)batch / rate;
}

double gc_arch_backward_total(const gc_arch *a)
{
	double s = 0;
	size_t i;

	for (i = 0; i < a->n; i++)
		s += a->t[i].t_bwd;
	return s;
}

void gc_arch_release(gc_arch *a)
{
	if (!a)
		return;
	free(a->t);
	memset(a, 0, sizeof(*a));
}
