/* netem/u32.h: what netem/classes.c and netem/shares.c add to an htb root's filters,
 * and the message for a refused netlink call.
 *
 * gc_u32_add: one u32 filter at parent (prio 1, protocol ip) sending what matches to
 * classid: an address key (the 32-bit IPv4 address at offset off, 12 for the source or
 * 16 for the destination, under mask) or, with port set, IP protocol 6 (TCP) and the
 * 16-bit value at off (20: the source port, 22: the destination port of an IPv4 header
 * without options) under mask. GC_E_NETLINK (GC_E_PERM without the right) naming what
 * and dev. */
#ifndef GC_NETEM_U32_H
#define GC_NETEM_U32_H

#include <netlink/netlink.h>
#include <stdint.h>

#include "result.h"

struct gc_u32_key {
	int port;                 /* 0: an address key */
	uint32_t val, mask;       /* the address, or the port's value and 16-bit mask */
	int off;
};

gc_rc gc_u32_add(struct nl_sock *sk, int ifindex, uint32_t parent, const struct gc_u32_key *k,
		 uint32_t classid, const char *what, const char *dev, gc_err *e);

/* The mask of an IPv4 prefix length (0..32). */
uint32_t gc_u32_prefix_mask(int prefix);

/* "WHAT on 'DEV' failed: libnl's message", GC_E_PERM for -NLE_PERM, else GC_E_NETLINK. */
gc_rc gc_nl_fail(gc_err *e, int err, const char *what, const char *dev);

#endif
