/* netem/shares.h: fair htb leaves under one cap, the helper protocol's `shares`
 * operation (netem/protocol.h; docs/netem.md, "Racks" and "Helper protocol"): a link
 * whose cap is shared by several kinds of traffic (the hosts of a rack on its uplink;
 * a host's ranks and its background flows), each kind guaranteed its rate and free to
 * borrow what the others leave.
 *
 * What is installed on DEV (in NETNS, or the caller's own namespace):
 *   root htb 1: whose default class is the DEFAULT leaf, and class 1:1 at rate = ceil
 *   = cap (the parent), as gc_shape_set with htb = 1 installs it (its state file,
 *   owner and restore are a cap's: clear and restore-all delete the root, and the
 *   leaves and filters go with it);
 *   leaves 1:10, 1:11, ... (hex minors 0x10 + i, in the order given) under 1:1, each at
 *   rate = its rate_bps and ceil = cap, rbuffer max(64 KiB, rate x 4 ms), cbuffer the
 *   cap's, each with its own queue (htb's default pfifo, txqueuelen packets); every
 *   leaf has the same quantum, so what is left over is borrowed in equal parts. So a
 *   leaf gets at least its rate whenever it has traffic, all of the cap when alone,
 *   and the link never sends above the cap (work conserving);
 *   u32 filters at 1: (prio 1, protocol ip) sending matched packets to their leaf:
 *   SRC matches the IPv4 source address under its mask (offset 12), DST the
 *   destination (offset 16), PORT IP protocol 6 (TCP) and the TCP source port OR the
 *   destination port in lo..hi (two filters per mask-aligned block of the range;
 *   ports are read at offset 20 + 0/2, i.e. an IPv4 header without options, as tc's
 *   'match ip sport' does). Everything else (ARP, other addresses, UDP on a PORT
 *   leaf) goes to the DEFAULT leaf.
 * What the kernel holds is read back (the parent's and every leaf's rate and ceil, the
 * number of filters); any difference is GC_E_MISMATCH. On any failure the link is
 * restored: nothing half-made is left. Errors as netem/shape.h; GC_E_INVAL (nothing
 * touched) for leaves that are not exactly one DEFAULT and 0..GC_SHARES_MAX_LEAVES-1
 * others, rates that sum above the cap, a rate outside gc_qdisc_plan_make's range, an
 * SRC/DST leaf without an address or a PORT leaf with port 0 or lo > hi.
 */
#ifndef GC_NETEM_SHARES_H
#define GC_NETEM_SHARES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "classes.h"
#include "result.h"

#define GC_SHARES_MAX_ADDR 64     /* addresses or prefixes in one SRC/DST leaf */
#define GC_SHARES_MAX_LEAVES 64   /* leaves on one link, the DEFAULT one included */
#define GC_SHARES_MINOR0 0x10     /* the first leaf is 1:10 */

enum gc_share_match { GC_SHARE_DEFAULT, GC_SHARE_SRC, GC_SHARE_DST, GC_SHARE_PORT };

struct gc_share_leaf {
	enum gc_share_match match;
	struct gc_class_dest addr[GC_SHARES_MAX_ADDR]; size_t n_addr; /* SRC/DST (classes.h) */
	uint16_t port_lo, port_hi;   /* PORT: TCP source OR destination port in lo..hi */
	uint64_t rate_bps;           /* guaranteed rate; every leaf's ceil is the cap */
};

/* Install the leaves described above on dev. cap_bps and the rates in bits/s (layer
 * 2); owner as gc_shape_req.owner (0: the calling process). */
gc_rc gc_shape_shares(const char *dev, const char *netns, uint64_t cap_bps,
		      const struct gc_share_leaf *leaf, size_t n, pid_t owner, gc_err *e);

/* Parse one "--leaf" argument: default=RATE, src:A[/P][,A..]=RATE, dst:...=RATE,
 * port:LO[-HI]=RATE (RATE in tc units, gc_rate_parse; ports 1..65535, lo <= hi).
 * GC_E_INVAL with a message that says what to write otherwise (*out undefined). */
gc_rc gc_share_leaf_parse(const char *s, struct gc_share_leaf *out, gc_err *e);

/* Check a set of leaves against a cap without touching anything (what
 * gc_shape_shares checks first): GC_OK or GC_E_INVAL with the reason. */
gc_rc gc_shares_check(uint64_t cap_bps, const struct gc_share_leaf *leaf, size_t n,
		      gc_err *e);

/* The mask-aligned blocks covering lo..hi (lo <= hi): value[i] under mask[i] (16-bit
 * masks, high bits set). Returns the number of blocks (at most 32), written up to max. */
size_t gc_share_port_blocks(uint16_t lo, uint16_t hi, uint16_t *value, uint16_t *mask,
			    size_t max);

#endif
