/* netem/shape.h: cap a link's egress through libnl-route, read it back, undo it.
 *
 * What gcbench installs on DEV (in network namespace NETNS, or the caller's own):
 *   rate <= 34.36 Gbit/s: root tbf (handle 1:) rate, burst, limit = burst + 10 ms;
 *   rate  > 34.36 Gbit/s: root htb (handle 1:, default class 1:1) and class 1:1 with
 *                         rate64 = ceil64, rbuffer = cbuffer = burst;
 *   delay/jitter/loss:    with a rate, a netem qdisc (handle 10:) under class 1:1 (the
 *                         tbf's own class or the htb class); without a rate, a root
 *                         netem (handle 1:). Needs sch_netem (else GC_E_UNSUPPORTED,
 *                         and nothing is left). shape_int.h builds these objects.
 * (see netem/rate.h for the mapping and its reasons).
 *
 * Before touching the kernel, set() writes a state file, atomically:
 *   $GCBENCH_NETEM_STATE_DIR (default /run/gcbench/netem)/<netns or "-">_<dev>.state
 * holding what was there before (the kernel's default root qdisc), the cap, and the
 * owner (pid and its start time). clear() restores what was there and removes the
 * file; restore_all() clears every link whose owner process is gone, so a crashed run
 * never leaves a link capped for good. A root qdisc that someone else configured
 * (non-default, no state file) is left alone: set() fails with GC_E_BUSY and says how
 * to remove it.
 *
 * All functions need CAP_NET_ADMIN (and CAP_SYS_ADMIN to enter a namespace); without
 * it they fail with GC_E_PERM and a message that says so. They enter NETNS with
 * setns() and return to the caller's namespace before returning (not thread-safe:
 * call from one thread). Errors: GC_E_INVAL (bad name or value), GC_E_NOTFOUND
 * (interface or namespace missing, named in the message), GC_E_NETLINK,
 * GC_E_MISMATCH (the kernel holds other than asked; the change is rolled back),
 * GC_E_UNSUPPORTED (no netem qdisc), GC_E_IO (state file).
 */
#ifndef GC_NETEM_SHAPE_H
#define GC_NETEM_SHAPE_H

#include <stdint.h>
#include <sys/types.h>

#include "result.h"

struct gc_shape_req {
	const char *dev;        /* interface name (required) */
	const char *netns;      /* namespace name under /var/run/netns, or NULL */
	uint64_t rate_bps;      /* cap in bits/s (layer 2, as tc counts); 0 = no cap */
	uint64_t burst;         /* bytes; 0 = max(64 KiB, rate x 4 ms) */
	uint32_t delay_us;      /* 0 = no netem */
	uint32_t jitter_us;
	double loss_pct;        /* 0..100 */
	pid_t owner;            /* restore_all undoes the cap once this pid is gone;
				   0 = the calling process */
	int htb;                /* 1: an htb class at any rate (not a tbf below 34.36
				   Gbit/s): its rate changes in place without refilling
				   its bucket, as a tbf's does (the trace player) */
	uint32_t htb_default;   /* with an htb root: the minor of its default class (the
				   class unclassified packets go to); 0 = 1, class 1:1.
				   netem/shares.c adds that class after the set */
};

struct gc_shape_info {
	char kind[16];          /* root qdisc kind: "tbf", "htb", "noqueue", "pfifo_fast"... */
	uint32_t handle;        /* root handle (0: the kernel's default qdisc) */
	int managed;            /* 1 when a gcbench state file exists for this link */
	uint64_t rate_bps;      /* the cap the kernel holds (tbf/htb), else 0 */
	uint32_t burst;         /* bytes (tbf bucket or htb rbuffer), else 0 */
	uint64_t bytes, packets, drops, overlimits;   /* root qdisc counters */
	int netem;              /* 1 when a netem child is attached */
	uint32_t delay_us, jitter_us;
	pid_t owner;            /* from the state file, 0 if none */
};

/* Install the cap described by r; verified by reading the kernel back. */
gc_rc gc_shape_set(const struct gc_shape_req *r, gc_err *e);

/* Fill *out with what the kernel holds on dev (no state changes). */
gc_rc gc_shape_show(const char *dev, const char *netns, struct gc_shape_info *out, gc_err *e);

/* Restore what was on dev before gcbench's set and remove the state file. Idempotent:
 * a link never touched (no state file) is left unchanged and GC_OK returned. A state
 * file whose namespace or interface no longer exists is simply removed. */
gc_rc gc_shape_clear(const char *dev, const char *netns, gc_err *e);

/* Clear every link whose state file's owner process is gone (or, with all != 0,
 * every link). *n_restored (may be NULL) counts them. Continues past failures and
 * returns the first error. */
gc_rc gc_shape_restore_all(int all, int *n_restored, gc_err *e);

/* In-place rate changes, as tc's 'change' (RTM_NEWQDISC / RTM_NEWTCLASS without
 * NLM_F_EXCL on the qdisc or class gcbench installed): the queue, the packets in it and
 * the counters survive, which delete-and-add does not. Only a cap that gc_shape_set
 * installed (a state file, a tbf or htb root) can be changed; the state file keeps the
 * set's rate and what to restore, so clear and restore-all work as after a set. The
 * burst follows the new rate (gc_burst_default). A tbf holds at most 34.36 Gbit/s: to
 * play rates above, set the cap at the highest one first (an htb class).
 *
 * gc_shape_link_open: enter the namespace and hold a netlink socket for repeated
 * changes (the trace player); GC_E_STATE when the link has no gcbench cap. The caller
 * stays in NETNS until gc_shape_link_close (accepts NULL). gc_shape_link_rate: change
 * the rate (not read back: gc_shape_link_read reads what the kernel holds and its
 * counters). GC_E_INVAL for a rate outside [8 bit/s, 1000 tbit] or above a tbf's
 * range, GC_E_NETLINK when the kernel refuses. */
struct gc_shape_link;
gc_rc gc_shape_link_open(const char *dev, const char *netns, struct gc_shape_link **out,
			 gc_err *e);
gc_rc gc_shape_link_rate(struct gc_shape_link *l, uint64_t rate_bps, gc_err *e);
gc_rc gc_shape_link_read(struct gc_shape_link *l, struct gc_shape_info *out, gc_err *e);
void gc_shape_link_close(struct gc_shape_link *l);

/* One change, read back and verified (GC_E_MISMATCH when the kernel holds other). */
gc_rc gc_shape_change_rate(const char *dev, const char *netns, uint64_t rate_bps, gc_err *e);

/* Whether this kernel has the netem qdisc (module sch_netem): with CAP_SYS_ADMIN, by
 * adding one on lo in a private network namespace that ends at once (nothing is left
 * and nothing of the caller's changes); without it, by looking for the module
 * (/sys/module/sch_netem, /lib/modules/RELEASE/modules.builtin or modules.dep). GC_OK
 * when present, GC_E_UNSUPPORTED (naming sch_netem) when not, another code when it
 * cannot tell. how (size n) says how it was decided. */
gc_rc gc_netem_available(char *how, size_t n, gc_err *e);

/* The state directory in use: $GCBENCH_NETEM_STATE_DIR, else /run/gcbench/netem as root,
 * else ~/.cache/gcbench/netem-state of the real user (a login shaping through the
 * cap_net_admin file capability cannot write /run/gcbench). */
const char *gc_shape_state_dir(void);

/* The libnl version this program runs with ("3.7.0"), for a host's environment record.
 * Static storage: never NULL, never freed. */
const char *gc_netem_libnl_version(void);

/* 1 when the name is a valid interface name (1-15 bytes of [A-Za-z0-9._-], not
 * starting with '-' or '.'), else 0. Namespace names: the same, up to 64 bytes. */
int gc_shape_valid_dev(const char *dev);
int gc_shape_valid_netns(const char *netns);

#endif
