/* common/grow.c: the growable array (grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

gc_rc gc_grow_(void *pp, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t nc = *cap ? (*cap > SIZE_MAX / 2 ? need : *cap * 2) : first;
	void *old, *nv;

	if (need <= *cap)
		return GC_OK;
	if (nc < need)
		nc = need;
	if (nc > SIZE_MAX / elem) {        /* the doubling overflows: ask for need */
		nc = need;
		if (need > SIZE_MAX / elem)
			return GC_E_NOMEM;
	}
	/* the pointer is read and written as bytes: it may be any object pointer type */
	memcpy(&old, pp, sizeof(old));
	nv = realloc(old, nc * elem);  /* need > *cap >= 0 and elem = sizeof: never 0 */
	if (!nv)
		return GC_E_NOMEM;
	memcpy(pp, &nv, sizeof(nv));
	*cap = nc;
	return GC_OK;
}
