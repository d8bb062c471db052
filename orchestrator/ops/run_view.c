/* orchestrator/ops/run_view.c: how the CLI's tables show a run (run_view.h). */
#include <stdio.h>
#include <string.h>

#include "kernels/compress.h"
#include "run_view.h"
#include "strutil.h"

/* 1 if "k=v" (len bytes at tok) is one of the comma-separated items of list */
static int has_item(const char *list, const char *tok, size_t len)
{
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && !strncmp(p, tok, len))
			return 1;
		p += n + (end ? 1 : 0);
	}
	return 0;
}

/* 1 when workload is one gcbench's worker runs, with gcbench's methods */
static int gcbench_workload(const char *w)
{
	return w && (!strcmp(w, "replay") || !strcmp(w, "train") || !strncmp(w, "replay:", 7) ||
		     !strncmp(w, "train:", 6));
}

void gc_params_brief(const char *workload, const char *method, const char *params, char *out,
		     size_t n)
{
	gc_method m;
	gc_params d;
	char def[256];
	size_t o = 0;

	if (!n)
		return;
	out[0] = '\0';
	if (!params || !*params || !gcbench_workload(workload) || gc_method_parse(method, &m)) {
		gc_strlcpy(out, params && *params ? params : "-", n);
		return;
	}
	gc_params_default(&d, m);
	gc_params_format(&d, def, sizeof(def));
	for (const char *p = params; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (!has_item(def, p, len) && o + len + 2 <= n) {
			if (o)
				out[o++] = ',';
			memcpy(out + o, p, len);
			o += len;
			out[o] = '\0';
		}
		p += len + (end ? 1 : 0);
	}
	if (!o)
		gc_strlcpy(out, "defaults", n);
}

const char *gc_stack_method(const char *stack, const char *method, char *out, size_t n)
{
	if (!stack || !*stack || !method)
		return method;
	snprintf(out, n, "%s/%s", stack, method);
	return out;
}
