/* common/grow.h: the growable array of gcbench (after git's ALLOC_GROW), for arrays
 * whose owner keeps a pointer, a count and a capacity (in elements).
 *
 *	if (GC_GROW(l->v, l->cap, l->n + 1, 64))
 *		return GC_E_NOMEM;
 *	l->v[l->n++] = x;
 *
 * GC_GROW(p, cap, need, first) makes room for need elements at p. When need <= cap it
 * does nothing. Else the capacity becomes the largest of need, twice cap and (when cap
 * is 0) first; p is realloc'ed to it and cap set; GC_OK. On failure (out of memory, or
 * a byte size that would overflow size_t) p and cap are left exactly as they were, the
 * array intact and still the caller's, and it returns GC_E_NOMEM.
 *
 * p: an lvalue of type T * (NULL while cap is 0; elements past the count are not
 * initialized); cap: an lvalue of type size_t (another type does not compile). Both are
 * evaluated more than once: pass plain names or members, nothing with side effects.
 */
#ifndef GC_GROW_H
#define GC_GROW_H

#include <stddef.h>

#include "result.h"

#define GC_GROW(p, cap, need, first) \
	((size_t)(need) <= (cap) ? GC_OK : gc_grow_(&(p), &(cap), (need), sizeof(*(p)), (first)))

/* GC_GROW's slow path: pp points at the array's pointer (any object pointer type). */
gc_rc gc_grow_(void *pp, size_t *cap, size_t need, size_t elem, size_t first);

#endif
