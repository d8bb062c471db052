/* worker/wk_optim.c: momentum SGD's velocity update (wk.h). */
#include "wk.h"

void gc_wk_momentum(float *u, const float *avg, size_t n, float m)
{
	for (size_t i = 0; i < n; i++)
		u[i] = m * u[i] + avg[i];
}

int gc_wk_uses_momentum(const gc_params *p)
{
	return p->momentum > 0 && p->method != GC_M_DGC;
}
