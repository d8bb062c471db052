/* netem/classes.h: per-destination classes on a link's egress, the helper protocol's
 * `classes` operation (netem/protocol.h; docs/netem.md, "Racks"): the approximation of
 * a rack's shared uplink on real hosts, where nobody can shape the switch.
 *
 * What is installed on DEV (in NETNS, or the caller's own namespace):
 *   root htb 1: (default class 1:1) and class 1:1 at host_bps, as gc_shape_set with
 *   htb = 1 installs it (its state file, owner and restore are a cap's: clear and
 *   restore-all remove the classes with it); then class 1:2 under 1: at rate_bps
 *   (rate = ceil, buffers max(64 KiB, rate x 4 ms)) and one u32 filter per destination
 *   prefix (IPv4 destination address under its mask, prio 1) sending it to 1:2.
 * So traffic to the prefixes leaves at rate_bps at most, everything else at host_bps.
 * What the kernel holds is read back: the rate of 1:2 and the number of filters; any
 * difference is GC_E_MISMATCH and the link is restored. Errors as netem/shape.h, and
 * GC_E_INVAL for a bad prefix, a rate outside gc_qdisc_plan_make's range, or no prefix.
 */
#ifndef GC_NETEM_CLASSES_H
#define GC_NETEM_CLASSES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "result.h"

#define GC_CLASSES_MAX_DEST 4096

struct gc_class_dest {
	uint32_t addr;          /* IPv4, host byte order, the bits outside the mask zero */
	int prefix;             /* 0..32 */
};

/* Parse "10.0.0.3", "10.0.0.0/24" (host bits must be zero). GC_E_INVAL otherwise. */
gc_rc gc_class_dest_parse(const char *s, struct gc_class_dest *d, gc_err *e);

/* Install the classes described above. host_bps and rate_bps in bits/s (layer 2);
 * owner as gc_shape_req.owner. */
gc_rc gc_shape_classes(const char *dev, const char *netns, uint64_t host_bps,
		       const struct gc_class_dest *dest, size_t n, uint64_t rate_bps, pid_t owner,
		       gc_err *e);

#endif
