/* tests/fuzz/fuzz_shares.c: gcbench-netem shares' --leaf parser on arbitrary bytes
 * (netem/shares.h). Properties checked (abort on violation): a parsed leaf has a rate
 * in gc_rate_parse's range, a known match, 1..GC_SHARES_MAX_ADDR valid addresses for
 * src/dst and 1 <= lo <= hi for a port range, whose blocks cover it exactly; every
 * refusal explains itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "netem/shares.h"

static struct gc_share_leaf l;

static void check_blocks(uint16_t lo, uint16_t hi)
{
	uint16_t v[32], m[32];
	size_t n = gc_share_port_blocks(lo, hi, v, m, 32);
	uint32_t next = lo;

	if (!n || n > 32)
		abort();
	for (size_t i = 0; i < n; i++) {
		uint32_t size = 0x10000u - m[i];
		if (v[i] != next || (v[i] & (size - 1)))
			abort();
		next += size;
	}
	if (next != (uint32_t)hi + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[2048];
	gc_err e;

	e.msg[0] = 0;
	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	if (gc_share_leaf_parse(s, &l, &e) != GC_OK) {
		if (!e.msg[0])
			abort();
		return 0;
	}
	if (l.rate_bps < 8 || l.rate_bps > GC_RATE_MAX)
		abort();
	switch (l.match) {
	case GC_SHARE_DEFAULT:
		break;
	case GC_SHARE_SRC:
	case GC_SHARE_DST:
		if (!l.n_addr || l.n_addr > GC_SHARES_MAX_ADDR)
			abort();
		for (size_t i = 0; i < l.n_addr; i++)
			if (l.addr[i].prefix < 0 || l.addr[i].prefix > 32 ||
			    (l.addr[i].prefix < 32 && (l.addr[i].addr & (0xffffffffu >> l.addr[i].prefix))))
				abort();
		break;
	case GC_SHARE_PORT:
		if (!l.port_lo || l.port_lo > l.port_hi)
			abort();
		check_blocks(l.port_lo, l.port_hi);
		break;
	default:
		abort();
	}
	return 0;
}
