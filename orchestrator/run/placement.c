/* orchestrator/run/placement.c: ranks on hosts (placement.h). */
#include "placement.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int capacity(const char *backend, int gpus)
{
	if (backend && !strcmp(backend, "nccl"))
		return gpus > 0 ? gpus : 0;
	return INT_MAX;
}

static long long room(const int *cap, size_t n, int r)
{
	long long t = 0;
	for (size_t i = 0; i < n; i++)
		t += cap[i] < r ? cap[i] : r;
	return t;
}

static gc_rc no_room(const char *backend, int world, int rpn, const char *const *names,
		     const int *cap, const int *gpus, size_t n, gc_err *e)
{
	char list[300];
	size_t o = 0;
	long long held = room(cap, n, rpn ? rpn : INT_MAX);

	list[0] = 0;
	if (backend && !strcmp(backend, "nccl")) {
		for (size_t i = 0; i < n && o < sizeof(list); i++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s %d", i ? ", " : "",
					      names[i], gpus[i]);
		return gc_fail(e, GC_E_INVAL, "world_size %d cannot be placed: backend nccl runs "
			       "one rank per GPU, and the hosts (GPUs: %s) hold %lld ranks%s; lower "
			       "world_size%s or add hosts with GPUs", world, list, held,
			       rpn ? " at this ranks_per_node" : "", rpn ? ", raise ranks_per_node" : "");
	}
	return gc_fail(e, GC_E_INVAL, "world_size %d cannot be placed: ranks_per_node %d on %zu "
		       "hosts holds %lld ranks; lower world_size, raise ranks_per_node or add hosts",
		       world, rpn, n, held);
}

gc_rc gc_placement_compute(const char *backend, int world, int rpn, const char *const *names,
			   const int *gpus, size_t n, struct gc_placement *p, gc_err *e)
{
	int cap[GC_PLACE_MAX_HOSTS];
	int r, left;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (n > GC_PLACE_MAX_HOSTS)
		n = GC_PLACE_MAX_HOSTS;
	p->n_hosts = n;
	p->world = world;
	if (world < 1 || rpn < 0)
		return gc_fail(e, GC_E_INVAL, "world_size %d and ranks_per_node %d cannot be placed",
			       world, rpn);
	if (n == 0)
		return gc_fail(e, GC_E_INVAL, "the inventory has no hosts");
	for (i = 0; i < n; i++)
		cap[i] = capacity(backend, gpus[i]);
	if (rpn) {
		r = rpn;
		if (room(cap, n, r) < world)
			return no_room(backend, world, rpn, names, cap, gpus, n, e);
		for (i = 0, left = world; i < n && left; i++) {   /* fill: fewest hosts */
			p->slots[i] = cap[i] < r ? cap[i] : r;
			if (p->slots[i] > left)
				p->slots[i] = left;
			left -= p->slots[i];
		}
	} else {
		if (room(cap, n, world) < world)
			return no_room(backend, world, 0, names, cap, gpus, n, e);
		for (r = 1; room(cap, n, r) < world; r++)
			;
		for (left = world; left;)                        /* deal: most hosts */
			for (i = 0; i < n && left; i++)
				if (p->slots[i] < (cap[i] < r ? cap[i] : r))
					p->slots[i]++, left--;
	}
	for (i = 0; i < n; i++) {
		if (p->slots[i])
			p->used = i + 1, p->nodes++;
		if (p->slots[i] > p->ranks_per_node)
			p->ranks_per_node = p->slots[i];
	}
	return GC_OK;
}

void gc_placement_text(const struct gc_placement *p, char *buf, size_t n)
{
	size_t o, i, k;
	int uniform = 1;

	for (i = 0; i < p->used; i++)
		uniform &= !p->slots[i] || p->slots[i] == p->ranks_per_node;
	o = (size_t)snprintf(buf, n, "%zu node%s x ", p->nodes, p->nodes == 1 ? "" : "s");
	if (uniform) {
		snprintf(buf + (o < n ? o : n), o < n ? n - o : 0, "%d rank%s", p->ranks_per_node,
			 p->ranks_per_node == 1 ? "" : "s");
		return;
	}
	for (i = 0, k = 0; i < p->used && o < n; i++)
		if (p->slots[i])
			o += (size_t)snprintf(buf + o, n - o, "%s%d", k++ ? "," : "", p->slots[i]);
	if (o < n)
		snprintf(buf + o, n - o, " ranks");
}

void gc_placement_hosts_text(const struct gc_placement *p, const char *const *names, char *buf,
			     size_t n)
{
	size_t o = 0;

	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < p->used && o < n; i++)
		if (p->slots[i])
			o += (size_t)snprintf(buf + o, n - o, "%s%s:%d", o ? "," : "", names[i],
					      p->slots[i]);
}
