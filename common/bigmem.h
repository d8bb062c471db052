/* common/bigmem.h: memory for large float buffers (gradients, residuals).
 *
 * gc_big_alloc(bytes): like posix_memalign(64, bytes), but a buffer of 2 MiB or more is
 * 2 MiB-aligned, rounded up to whole 2 MiB, and advised MADV_HUGEPAGE, so that where
 * the kernel's transparent huge pages are on "madvise" (Debian's default) its first
 * touch costs one fault per 2 MiB instead of 512: a ResNet-50 replay rank touched
 * 420 MB a 4 KiB page at a time before its first iteration (docs/measurements.md, "The
 * ranks' start"). Without THP the advice is ignored and nothing else changes. The
 * contents are undefined, as malloc's; free() releases it. NULL when out of memory.
 */
#ifndef GC_BIGMEM_H
#define GC_BIGMEM_H

#include <stdlib.h>
#include <sys/mman.h>

#define GC_BIG_PAGE ((size_t)2 << 20)

static inline void *gc_big_alloc(size_t bytes)
{
	void *p = NULL;
	size_t align = bytes >= GC_BIG_PAGE ? GC_BIG_PAGE : 64;

	if (bytes >= GC_BIG_PAGE)
		bytes = (bytes + GC_BIG_PAGE - 1) / GC_BIG_PAGE * GC_BIG_PAGE;
	if (posix_memalign(&p, align, bytes ? bytes : 64))
		return NULL;
#ifdef MADV_HUGEPAGE
	if (bytes >= GC_BIG_PAGE)
		(void)madvise(p, bytes, MADV_HUGEPAGE);   /* advice: 4 KiB pages without THP */
#endif
	return p;
}

#endif
