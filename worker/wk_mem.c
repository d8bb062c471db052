/* worker/wk_mem.c: pre-mapped zeroed host buffers (wk_mem.h). */
#include "wk_mem.h"

#include <sys/mman.h>

static size_t bytes_of(size_t n)
{
	size_t b = n * sizeof(float);
	return b ? b : 1;
}

float *gc_wk_zeroed(size_t n)
{
	void *p;

	if (n > ((size_t)-1) / sizeof(float))
		return NULL;
	/* page-aligned, zero-filled by the kernel, populated now */
	p = mmap(NULL, bytes_of(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void gc_wk_unzeroed(float *p, size_t n)
{
	if (p)
		munmap(p, bytes_of(n));
}
