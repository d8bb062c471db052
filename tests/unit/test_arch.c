/* tests/unit/test_arch.c: the architecture builders against the reference parameter
 * lists ($GCBENCH_SHARED/data/models, default ../shared), known FLOPs totals, timing,
 * and the csv: and profile loaders' errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "formats/arch.h"

static const char *shared_dir(void)
{
	const char *s = getenv("GCBENCH_SHARED");
	return s && *s ? s : "../shared";
}

/* Build `name` and the reference csv; returns 0 (and SKIP/FAIL set) if not comparable. */
static int compare_with_reference(const char *name, size_t want_n, size_t want_numel)
{
	char path[512];
	gc_arch a, r;
	gc_err e;
	size_t i;

	snprintf(path, sizeof(path), "csv:%s/data/models/%s.csv", shared_dir(), name);
	if (access(path + 4, R_OK)) {
		gct_skipf("reference '%s' not found (set GCBENCH_SHARED to the folder holding "
			  "data/models)", path + 4);
		return 0;
	}
	if (gc_arch_build(name, &a, &e)) {
		gct_failf(__FILE__, __LINE__, "build %s: %s", name, e.msg);
		return 0;
	}
	if (gc_arch_build(path, &r, &e)) {
		gct_failf(__FILE__, __LINE__, "load %s: %s", path, e.msg);
		gc_arch_release(&a);
		return 0;
	}
	if (a.n != want_n || r.n != want_n || a.numel != want_numel || r.numel != want_numel)
		gct_failf(__FILE__, __LINE__, "%s: built %zu tensors/%zu params, reference %zu/%zu, "
			  "expected %zu/%zu", name, a.n, a.numel, r.n, r.numel, want_n, want_numel);
	for (i = 0; i < a.n && i < r.n && !gct_state; i++) {
		const gc_arch_tensor *x = &a.t[i], *y = &r.t[i];
		if (strcmp(x->name, y->name) || x->ndim != y->ndim || x->numel != y->numel ||
		    memcmp(x->shape, y->shape, sizeof(size_t) * (size_t)x->ndim))
			gct_failf(__FILE__, __LINE__, "%s tensor %zu: built '%s' (%d-D, %zu), "
				  "reference '%s' (%d-D, %zu)", name, i, x->name, x->ndim, x->numel,
				  y->name, y->ndim, y->numel);
	}
	gc_arch_release(&a);
	gc_arch_release(&r);
	return !gct_state;
}

static void test_resnet50_reference(void) { compare_with_reference("resnet50", 161, 25557032); }
static void test_resnet101_reference(void) { compare_with_reference("resnet101", 314, 44549160); }
static void test_vgg16_reference(void) { compare_with_reference("vgg16", 32, 138357544); }
static void test_bert_reference(void) { compare_with_reference("bert-base", 199, 109482240); }
static void test_gpt2_reference(void) { compare_with_reference("gpt2-small", 148, 124439808); }

/* Totals without the reference files: these must hold even where CI lacks them. */
static void test_builtin_totals(void)
{
	static const struct { const char *n; size_t numel, nt; } w[] = {
		{ "resnet50", 25557032, 161 }, { "resnet101", 44549160, 314 },
		{ "vgg16", 138357544, 32 }, { "bert-base", 109482240, 199 },
		{ "gpt2-small", 124439808, 148 }, { "tiny", 985408, 6 },
	};
	const char *const *names = gc_arch_names();
	size_t i, k = 0;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		gc_arch a;
		gc_err e;
		CHECKF(!gc_arch_build(w[i].n, &a, &e), "%s: %s", w[i].n, e.msg);
		CHECKF(a.numel == w[i].numel && a.n == w[i].nt, "%s: %zu params in %zu tensors",
		       w[i].n, a.numel, a.n);
		CHECK_STR(a.name, w[i].n);
		gc_arch_release(&a);
	}
	while (names[k])
		k++;
	CHECK_EQ_INT(k, 6);
}

static double flops_of(const char *name)
{
	gc_arch a;
	gc_err e;
	double f;

	if (gc_arch_build(name, &a, &e))
		return -1;
	f = a.flops_fwd;
	gc_arch_release(&a);
	return f;
}

static void test_flops_totals(void)
{
	/* ResNet-50 4.1 GMACs, ResNet-101 7.8 GMACs, VGG-16 15.5 GMACs per 224x224 image */
	CHECK_NEAR(flops_of("resnet50") / 8.2e9, 1.0, 0.03);
	CHECK_NEAR(flops_of("resnet101") / 15.6e9, 1.0, 0.03);
	CHECK_NEAR(flops_of("vgg16") / 31.0e9, 1.0, 0.03);
	/* BERT-base at S=128: 12 x (4 d^2 + 2 d 4d) x 2 x S + 12 x 4 S^2 d + pooler 2 d^2 */
	CHECK_NEAR(flops_of("bert-base"),
		   12.0 * 2 * (4.0 * 768 * 768 + 2.0 * 768 * 3072) * 128 +
		   12.0 * 4 * 128 * 128 * 768 + 2.0 * 768 * 768, 1.0);
	/* GPT-2 small: same blocks plus the tied LM head 2 d V per token */
	CHECK_NEAR(flops_of("gpt2-small"),
		   12.0 * 2 * (4.0 * 768 * 768 + 2.0 * 768 * 3072) * 128 +
		   12.0 * 4 * 128 * 128 * 768 + 2.0 * 768 * 50257 * 128, 1.0);
}

static void test_flops_attribution(void)
{
	gc_arch a;
	gc_err e;
	size_t i;

	CHECK(!gc_arch_build("resnet50", &a, &e));
	CHECK_STR(a.t[0].name, "conv1.weight");
	CHECK_NEAR(a.t[0].flops_fwd, 2.0 * 7 * 7 * 3 * 64 * 112 * 112, 1.0);
	CHECK_NEAR(a.t[a.n - 2].flops_fwd, 2.0 * 2048 * 1000, 1.0);   /* fc.weight */
	for (i = 0; i < a.n; i++)
		if (a.t[i].ndim == 1 && a.t[i].flops_fwd != 0) {
			gc_arch_release(&a);
			CHECKF(0, "1-D tensor %zu has flops", i);
		}
	gc_arch_release(&a);
}

static void test_set_timing(void)
{
	gc_arch a;
	gc_err e;
	double tot;

	CHECK(!gc_arch_build("resnet50", &a, &e));
	gc_arch_set_timing(&a, 64, 0, 0);       /* defaults: V100, scale 1 */
	tot = gc_arch_backward_total(&a);
	CHECK_NEAR(tot, 2.0 * a.flops_fwd * 64 / GC_V100_FLOPS, 1e-12);
	/* ResNet-50 b=64 backward on a V100 fp32 is about 0.11-0.12 s */
	CHECKF(tot > 0.08 && tot < 0.16, "backward %g s", tot);
	gc_arch_set_timing(&a, 64, GC_V100_FLOPS, 4.0);
	CHECK_NEAR(gc_arch_backward_total(&a), tot / 4, 1e-12);
	gc_arch_release(&a);
	gc_arch_release(NULL);
}

static void test_unknown_arch(void)
{
	gc_arch a;
	gc_err e;

	CHECK_EQ_INT(gc_arch_build("resnet51", &a, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'resnet51'");
	CHECK_CONTAINS(e.msg, "resnet50");
	CHECK_EQ_INT(gc_arch_build("csv:/nonexistent/x.csv", &a, &e), GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "/nonexistent/x.csv");
	CHECK(a.t == NULL && a.n == 0);
}

static void test_csv_ok(void)
{
	static const char ok[] = "# comment\r\nindex,name,shape,numel,flops_fwd\r\n"
				 "0,fc.weight,10x20,200,4000\n1,fc.bias,10,10,0\n";
	gc_arch a;
	gc_err e;

	CHECKF(!gc_arch_parse_csv(ok, strlen(ok), "dir/m.csv", &a, &e), "%s", e.msg);
	CHECK_EQ_INT(a.n, 2);
	CHECK_EQ_INT(a.numel, 210);
	CHECK_NEAR(a.flops_fwd, 4000, 0);
	CHECK_STR(a.name, "m.csv");
	CHECK_EQ_INT(a.t[0].shape[1], 20);
	gc_arch_release(&a);
}

/* Every error names the line, the column and the field expected, and never quotes
 * what it found: S3CR3T stands for a password hash (csv:/etc/shadow). */
#define SECRET "S3CR3T"
static void test_csv_errors(void)
{
	static const struct { const char *text, *want; } c[] = {
		{ "", "no tensors" },
		{ "index,name,shape,numel\n", "only a header" },
		{ "idx,name\n0,a,1,1\n", "m.csv:1:1: expected the header" },
		{ "root:$y$" SECRET ":19000:0:99999:7:::\n", "m.csv:1:1: expected the header" },
		{ "# c\n\n" SECRET "\n", "m.csv:3:1: expected the header" },
		{ "index,name,shape,numel\n1" SECRET ",a,2,2\n", "m.csv:2:1: field 1 (index) should be 0" },
		{ "index,name,shape,numel\n0,a,2x3,5" SECRET "\n", "m.csv:2:9: field 4 (numel)" },
		{ "index,name,shape,numel\n0,a,2x3,5\n", "m.csv:2:9: field 4 (numel) is not the "
		  "product of the shape (6)" },
		{ "index,name,shape,numel\n0,a,2x0" SECRET ",0\n", "m.csv:2:5: field 3 (shape)" },
		{ "index,name,shape,numel\n0,a,1x1x1x1x1,1\n", "field 3 (shape)" },
		{ "index,name,shape,numel\n0,a,2,2," SECRET "\n", "m.csv:2: expected 4 comma-separated" },
		{ "index,name,shape,numel\n0,,2,2\n", "m.csv:2:3: field 2 (name) is empty" },
		{ "index,name,shape,numel\n0,a " SECRET ",2,2\n", "m.csv:2:3: field 2 (name)" },
		{ "index,name,shape,numel\n0,a" SECRET ",2,2\n1,a" SECRET ",3,3\n",
		  "rows 0 and 1 have the same tensor name" },
		{ "index,name,shape,numel\n0,a,99999999999x99999999999,1\n", "field 3 (shape)" },
		{ "index,name,shape,numel,flops_fwd\n0,a,2,2,-1" SECRET "\n",
		  "m.csv:2:9: field 5 (flops_fwd)" },
		{ "index,name,shape,numel\n0,a,2,2\n" SECRET "\x01\0x\n", "m.csv:3: line longer" },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i].text);
		gc_arch a;
		gc_err e;
		e.msg[0] = 0;
		if (strstr(c[i].text, "\x01"))
			n += 3;   /* the case with a NUL byte */
		CHECKF(gc_arch_parse_csv(c[i].text, n, "m.csv", &a, &e) == GC_E_FORMAT,
		       "case %zu accepted", i);
		CHECKF(strstr(e.msg, c[i].want), "case %zu: '%s' lacks '%s'", i, e.msg, c[i].want);
		CHECKF(!strstr(e.msg, SECRET), "case %zu quotes the file: '%s'", i, e.msg);
	}
}

/* Write text to a temporary file; path must hold 64 bytes. */
static int write_tmp(char *path, const char *text)
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/gcbench-arch-XXXXXX");
	if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

static gc_rc profile(gc_arch *a, const char *text, gc_err *e)
{
	char path[64];
	gc_rc rc;

	if (write_tmp(path, text))
		return GC_E_IO;
	rc = gc_arch_load_profile(a, path, e);
	unlink(path);
	return rc;
}

static void test_profile(void)
{
	static const struct { const char *text, *want; gc_rc rc; } bad[] = {
		{ "conv1.weight,1\n", "'conv1.bias' (index 1) has no time", GC_E_FORMAT },
		{ "conv1.weight,1\nconv1.weight,2\n", ":2:1: tensor 'conv1.weight' of 'tiny' "
		  "appears again (first on line 1)", GC_E_FORMAT },
		{ "conv1.weight,-0.5" SECRET "\n", ":1:14: field 2 (seconds) of tensor "
		  "'conv1.weight'", GC_E_FORMAT },
		{ "conv1.weight,abc\n", ":1:14: field 2 (seconds)", GC_E_FORMAT },
		{ "conv9" SECRET ".weight,1\n", ":1:1: field 1 (name) is not a parameter of 'tiny'",
		  GC_E_NOTFOUND },
		{ "root:$y$" SECRET ":19000:0:99999:7:::\n", ":1: expected 2 comma-separated "
		  "fields 'name,seconds'", GC_E_FORMAT },
		{ "a,b," SECRET "\n", "found more than 2", GC_E_FORMAT },
	};
	const char *good = "name,t_bwd_seconds\n# measured\nconv1.weight,0.5\nconv1.bias,0\n"
			   "fc1.weight,1\nfc1.bias,0.25\nfc2.weight,2\nfc2.bias,0\n";
	gc_arch a;
	gc_err e;
	size_t i;

	CHECK(!gc_arch_build("tiny", &a, &e));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_rc rc = profile(&a, bad[i].text, &e);
		if (rc != bad[i].rc || !strstr(e.msg, bad[i].want) || strstr(e.msg, SECRET)) {
			gc_arch_release(&a);
			CHECKF(0, "case %zu: rc %d, '%s' lacks '%s'", i, rc, e.msg, bad[i].want);
		}
	}
	CHECK_NEAR(gc_arch_backward_total(&a), 0, 0);   /* failures left it unchanged */
	i = profile(&a, good, &e);
	CHECK_NEAR(gc_arch_backward_total(&a), 3.75, 1e-12);
	gc_arch_release(&a);
	CHECKF(i == GC_OK, "%s", e.msg);
}

int main(void)
{
	GCT_SUITE("arch");
	GCT_RUN(test_resnet50_reference);
	GCT_RUN(test_resnet101_reference);
	GCT_RUN(test_vgg16_reference);
	GCT_RUN(test_bert_reference);
	GCT_RUN(test_gpt2_reference);
	GCT_RUN(test_builtin_totals);
	GCT_RUN(test_flops_totals);
	GCT_RUN(test_flops_attribution);
	GCT_RUN(test_set_timing);
	GCT_RUN(test_unknown_arch);
	GCT_RUN(test_csv_ok);
	GCT_RUN(test_csv_errors);
	GCT_RUN(test_profile);
	return gct_finish();
}
