/* Fuzz target: method parameters from text, then one simulated step of that method on
 * arbitrary float bits (NaN, inf, subnormals): errors are fine, crashes are not.
 * Input: byte 0 picks the method, byte 1 the world (1..3) and byte 2 the tensor split;
 * then lines "key=value" up to an empty line; the rest is the gradient bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"

#define MAXN 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Apply the "key=value" lines of [p, end) up to an empty line; returns where it stopped. */
static const uint8_t *apply_lines(gc_params *p, const uint8_t *q, const uint8_t *end)
{
	char line[128];
	gc_err e;

	while (q < end) {
		const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
		size_t len = nl ? (size_t)(nl - q) : (size_t)(end - q);
		char *eq;
		if (len == 0)
			return q + 1;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, q, len);
		line[len] = '\0';
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			gc_params_set(p, line, eq + 1, &e);
		}
		q = nl ? nl + 1 : end;
	}
	return end;
}

static void one_step(const gc_params *p, int world, size_t split, const float *g, size_t n)
{
	gc_tensor_desc t[2];
	gc_bucket *b[3] = { 0 };
	float *avg[3] = { 0 }, *res = malloc(n * sizeof(float));
	const float *in[3] = { g, g, g };
	size_t nt = split > 0 && split < n ? 2 : 1, r0 = nt == 2 ? split : n;
	gc_err e;
	int w, ok = 1;

	t[0] = (gc_tensor_desc){ r0 % 7 == 0 && r0 >= 7 ? 7 : r0, r0 % 7 == 0 && r0 >= 7 ? r0 / 7 : 1,
				 r0 % 7 == 0 && r0 >= 7 ? 2 : 1 };
	t[1] = (gc_tensor_desc){ n - r0, 1, 1 };
	for (w = 0; w < world && ok; w++) {
		avg[w] = malloc(n * sizeof(float));
		ok = avg[w] && !gc_bucket_new(&b[w], p, GC_BACKEND_CPU, NULL, t, nt, world, w, &e);
	}
	if (ok && res && !gc_simulate_step(b, world, in, avg, NULL, NULL, &e))
		gc_bucket_residual(b[0], res);
	for (w = 0; w < 3; w++) {
		gc_bucket_free(b[w]);
		free(avg[w]);
	}
	free(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *q, *end = data + size;
	gc_params p;
	gc_err e;
	char fmt[256];
	float g[MAXN];
	size_t n;

	if (size < 3)
		return 0;
	gc_params_default(&p, (gc_method)(data[0] % GC_M__COUNT));
	q = apply_lines(&p, data + 3, end);
	gc_params_format(&p, fmt, sizeof(fmt));
	if (gc_params_check(&p, &e))
		return 0;
	n = (size_t)(end - q) / sizeof(float);
	if (n == 0)
		return 0;
	if (n > MAXN)
		n = MAXN;
	memcpy(g, q, n * sizeof(float));
	one_step(&p, 1 + data[1] % 3, data[2], g, n);
	return 0;
}
