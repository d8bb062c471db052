/* model/racks.c: a ring's bottleneck over racks that share uplinks (racks.h). */
#include "racks.h"

#include <stdlib.h>
#include <string.h>

static int rack_ok(int r)
{
	return r >= 1 && r <= GC_RACKS_MAX;
}

void gc_racks_ring(const int *host, const int *rack, size_t n, const double *uplink_bps,
		   struct gc_racks_ring *out)
{
	int outf[GC_RACKS_MAX + 1] = { 0 }, inf[GC_RACKS_MAX + 1] = { 0 };
	size_t i;

	memset(out, 0, sizeof(*out));
	if (n < 2)
		return;
	for (i = 0; i < n; i++) {
		size_t j = (i + 1) % n;
		if (host[i] == host[j] || rack[i] == rack[j] || !rack_ok(rack[i]) ||
		    !rack_ok(rack[j]))
			continue;
		outf[rack[i]]++;
		inf[rack[j]]++;
		out->crossings++;
	}
	for (i = 0; i < n; i++) {
		size_t j = (i + 1) % n;
		double a, b;
		if (host[i] == host[j] || rack[i] == rack[j] || !rack_ok(rack[i]) ||
		    !rack_ok(rack[j]))
			continue;
		a = uplink_bps[rack[i] - 1] / outf[rack[i]];
		b = uplink_bps[rack[j] - 1] / inf[rack[j]];
		a = a < b ? a : b;
		if (out->bps == 0 || a < out->bps)
			out->bps = a;
		if (outf[rack[i]] > out->max_flows)
			out->max_flows = outf[rack[i]];
		if (inf[rack[j]] > out->max_flows)
			out->max_flows = inf[rack[j]];
	}
}

void gc_ring_place_by_node(const int *slots, size_t nhosts, int *host, size_t n)
{
	size_t r = 0;
	int round = 0, placed = 1;

	while (r < n && placed) {
		placed = 0;
		for (size_t h = 0; h < nhosts && r < n; h++)
			if (slots[h] > round)
				host[r++] = (int)h, placed = 1;
		round++;
	}
	while (r < n)
		host[r++] = -1;
}

int gc_ring_host_flows(const int *host, size_t n)
{
	int most = 0;

	for (size_t i = 0; n > 1 && i < n; i++) {
		int k = 0;
		if (host[i] == host[(i + 1) % n])
			continue;
		for (size_t j = 0; j < n; j++)   /* n is a world size: quadratic is fine */
			k += host[j] == host[i] && host[j] != host[(j + 1) % n];
		most = k > most ? k : most;
	}
	return most;
}

double gc_gather_host_flows(const int *host, size_t n)
{
	double most = 0;

	for (size_t i = 0; n > 1 && i < n; i++) {
		size_t r = 0;
		for (size_t j = 0; j < n; j++)
			r += host[j] == host[i];
		if ((double)(r * (n - r)) / (double)(n - 1) > most)
			most = (double)(r * (n - r)) / (double)(n - 1);
	}
	return most;
}

double gc_racks_even_bps(int p, int gpn, int racks, double node_bps, double uplink_bps,
			 double ratio)
{
	int nodes, *host, *rack, per[GC_RACKS_MAX + 1] = { 0 };
	double up[GC_RACKS_MAX];
	struct gc_racks_ring r;

	gpn = gpn < 1 ? 1 : gpn;
	nodes = (p + gpn - 1) / gpn;
	if (racks < 2 || nodes < 2 || p < 2)
		return node_bps;
	racks = racks > GC_RACKS_MAX ? GC_RACKS_MAX : racks;
	host = calloc((size_t)p, sizeof(int));
	rack = calloc((size_t)p, sizeof(int));
	if (!host || !rack) {
		free(host);
		free(rack);
		return node_bps;
	}
	for (int i = 0; i < p; i++) {
		host[i] = i / gpn;
		rack[i] = 1 + (int)((long long)host[i] * racks / nodes);
	}
	for (int h = 0; h < nodes; h++)
		per[1 + (int)((long long)h * racks / nodes)]++;
	for (int k = 0; k < racks; k++)
		up[k] = uplink_bps > 0 ? uplink_bps : per[k + 1] * node_bps / (ratio > 0 ? ratio : 1);
	gc_racks_ring(host, rack, (size_t)p, up, &r);
	free(host);
	free(rack);
	return r.bps > 0 && r.bps < node_bps ? r.bps : node_bps;
}
