/* worker/wk_mem.h: a rank's large host buffers, zeroed and already in memory.
 *
 * gc_wk_zeroed(n) returns n floats, 64-byte aligned, zero, every page mapped before it
 * returns (mmap with MAP_POPULATE: the kernel maps them in one call instead of one
 * fault a page on first touch, which was a third of a ResNet-50 rank's start), or NULL
 * when the memory is not there. Release it with gc_wk_unzeroed(p, n) (the same n);
 * NULL is ignored. The timed loop never takes a first-touch fault on these buffers. */
#ifndef GC_WK_MEM_H
#define GC_WK_MEM_H

#include <stddef.h>

float *gc_wk_zeroed(size_t n);
void gc_wk_unzeroed(float *p, size_t n);

#endif
