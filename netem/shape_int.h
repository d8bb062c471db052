/* netem/shape_int.h: the qdisc chain gcbench-netem asks the kernel for, as libnl
 * objects, built without a socket so that a test can check the request on a kernel
 * without sch_netem (tests/unit/test_netem_request.c). Internal to netem/.
 *
 *   rate only:         root tbf 1: (or htb 1: + class 1:1)      leaf NULL
 *   rate and delay:    root tbf 1: (or htb 1: + class 1:1)      leaf netem 10: under 1:1
 *   delay only:        root netem 1:                            no class, no leaf
 * (delay stands for delay, jitter or loss). netem's delay and jitter are set in
 * microseconds (libnl turns them into the kernel's ticks).
 */
#ifndef GC_NETEM_SHAPE_INT_H
#define GC_NETEM_SHAPE_INT_H

#include <stdint.h>

#include "rate.h"
#include "shape.h"

#define GC_SHAPE_H_ROOT   0x00010000u   /* 1:  */
#define GC_SHAPE_H_CLASS  0x00010001u   /* 1:1 */
#define GC_SHAPE_H_NETEM  0x000a0000u   /* 10: */

struct rtnl_qdisc;
struct rtnl_class;

struct gc_shape_objs {
	struct rtnl_qdisc *root;   /* tbf, htb or netem, parent root, handle 1: */
	struct rtnl_class *cls;    /* htb class 1:1, or NULL */
	struct rtnl_qdisc *leaf;   /* netem 10: under 1:1, or NULL */
};

/* 1 when r asks for a netem qdisc (delay, jitter or loss). */
int gc_shape_wants_netem(const struct gc_shape_req *r);

/* Fill o for link ifindex: p is the rate plan (gc_qdisc_plan_make), NULL when
 * r->rate_bps is 0. Returns 0, or a negative libnl error (-NLE_NOMEM; -NLE_OBJ_NOTFOUND
 * when this libnl knows no netem); on error o holds nothing. */
int gc_shape_objs_build(int ifindex, const struct gc_shape_req *r,
			const struct gc_qdisc_plan *p, struct gc_shape_objs *o);
void gc_shape_objs_release(struct gc_shape_objs *o);

#endif
