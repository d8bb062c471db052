/* tests/unit/test_netem_request.c: the qdisc chain gcbench-netem asks for, checked in
 * the netlink messages libnl would send (rtnl_*_build_add_request), without a socket
 * or the kernel's sch_netem: kinds, parent/handle chain, the rate, and the netem delay
 * in the kernel's unit (psched ticks, converted here with /proc/net/psched on its own,
 * not with libnl's helpers). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/class.h>
#include <netlink/route/qdisc.h>

#include "harness.h"
#include "netem/rate.h"
#include "netem/shape_int.h"

#define IFX 7

/* What one add request carries. */
struct sent {
	uint32_t ifindex, parent, handle;
	char kind[16];
	struct tc_netem_qopt netem;   /* when kind is netem */
	struct tc_tbf_qopt tbf;       /* when kind is tbf */
	uint64_t htb_rate64;          /* class: TCA_HTB_RATE64 (bytes/s) */
	int has_netem, has_tbf, has_htb_rate64;
};

static void decode(struct nl_msg *m, struct sent *s)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	struct tcmsg *t = nlmsg_data(h);
	struct nlattr *tb[TCA_MAX + 1], *o[TCA_HTB_MAX + 1];

	memset(s, 0, sizeof(*s));
	s->ifindex = (uint32_t)t->tcm_ifindex;
	s->parent = t->tcm_parent;
	s->handle = t->tcm_handle;
	if (nlmsg_parse(h, sizeof(*t), tb, TCA_MAX, NULL) < 0)
		return;
	if (tb[TCA_KIND])
		snprintf(s->kind, sizeof(s->kind), "%s", (char *)nla_data(tb[TCA_KIND]));
	if (!tb[TCA_OPTIONS])
		return;
	if (!strcmp(s->kind, "netem") && nla_len(tb[TCA_OPTIONS]) >= (int)sizeof(s->netem)) {
		/* netem's options start with the fixed struct (then optional attributes) */
		memcpy(&s->netem, nla_data(tb[TCA_OPTIONS]), sizeof(s->netem));
		s->has_netem = 1;
	} else if (!strcmp(s->kind, "tbf") &&
		   nla_parse_nested(o, TCA_TBF_MAX, tb[TCA_OPTIONS], NULL) >= 0 && o[TCA_TBF_PARMS]) {
		memcpy(&s->tbf, nla_data(o[TCA_TBF_PARMS]), sizeof(s->tbf));
		s->has_tbf = 1;
	} else if (!strcmp(s->kind, "htb") &&
		   nla_parse_nested(o, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL) >= 0 && o[TCA_HTB_RATE64]) {
		s->htb_rate64 = nla_get_u64(o[TCA_HTB_RATE64]);
		s->has_htb_rate64 = 1;
	}
}

static int sent_qdisc(struct rtnl_qdisc *q, struct sent *s)
{
	struct nl_msg *m = NULL;

	if (rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_EXCL, &m) < 0)
		return -1;
	decode(m, s);
	nlmsg_free(m);
	return 0;
}

static int sent_class(struct rtnl_class *k, struct sent *s)
{
	struct nl_msg *m = NULL;

	if (rtnl_class_build_add_request(k, NLM_F_CREATE | NLM_F_EXCL, &m) < 0)
		return -1;
	decode(m, s);
	nlmsg_free(m);
	return 0;
}

/* nanoseconds per psched tick, as the kernel says (0 when unreadable) */
static double ns_per_tick(void)
{
	unsigned ns_per_us = 0, ns_tick = 0;
	FILE *f = fopen("/proc/net/psched", "r");

	if (f && fscanf(f, "%x %x", &ns_per_us, &ns_tick) != 2)
		ns_tick = 0;
	if (f)
		fclose(f);
	return ns_per_us == 1000 ? (double)ns_tick : 0;
}

/* The netem delay a request carries, in microseconds. */
static double sent_delay_us(const struct tc_netem_qopt *n, double tick)
{
	return n->latency * tick / 1000.0;
}

static void plan(uint64_t bps, struct gc_qdisc_plan *p)
{
	gc_err e;
	if (gc_qdisc_plan_make(bps, 0, p, &e))
		memset(p, 0, sizeof(*p));
}

static void test_rate_only_unchanged(void)
{
	struct gc_shape_req r = { .dev = "eth0", .rate_bps = 1000000000ull };
	struct gc_qdisc_plan p;
	struct gc_shape_objs o;
	struct sent s;

	plan(r.rate_bps, &p);
	CHECK(!gc_shape_wants_netem(&r));
	CHECK(gc_shape_objs_build(IFX, &r, &p, &o) == 0);
	CHECK(o.root && !o.cls && !o.leaf);
	CHECK(sent_qdisc(o.root, &s) == 0);
	CHECK(!strcmp(s.kind, "tbf") && s.ifindex == IFX);
	CHECK(s.parent == TC_H_ROOT && s.handle == 0x00010000u);
	CHECK(s.has_tbf && s.tbf.rate.rate == 125000000u);
	gc_shape_objs_release(&o);
	CHECK(!o.root);
}

static void test_tbf_then_netem(void)
{
	struct gc_shape_req r = { .dev = "eth0", .rate_bps = 1000000000ull, .delay_us = 10000 };
	struct gc_qdisc_plan p;
	struct gc_shape_objs o;
	struct sent s;
	double tick = ns_per_tick();

	if (tick <= 0) {
		SKIP("/proc/net/psched is unreadable: no tick length to convert the delay");
		return;
	}
	plan(r.rate_bps, &p);
	CHECK(gc_shape_objs_build(IFX, &r, &p, &o) == 0);
	CHECK(o.root && !o.cls && o.leaf);
	CHECK(sent_qdisc(o.root, &s) == 0);
	CHECK(!strcmp(s.kind, "tbf") && s.parent == TC_H_ROOT && s.handle == 0x00010000u);
	CHECK(s.tbf.rate.rate == 125000000u);
	CHECK(sent_qdisc(o.leaf, &s) == 0);
	CHECK(!strcmp(s.kind, "netem") && s.ifindex == IFX);
	CHECK(s.parent == 0x00010001u && s.handle == 0x000a0000u);   /* 10: under 1:1 */
	CHECK(s.has_netem);
	CHECKF(fabs(sent_delay_us(&s.netem, tick) - 10000) <= 1, "delay %.3f us, not 10 ms",
		  sent_delay_us(&s.netem, tick));
	CHECK(s.netem.jitter == 0 && s.netem.loss == 0 && s.netem.limit == 100000);
	gc_shape_objs_release(&o);
}

static void test_htb_then_netem(void)
{
	struct gc_shape_req r = { .dev = "eth0", .rate_bps = 40000000000ull, .delay_us = 250,
				  .jitter_us = 50, .loss_pct = 1 };
	struct gc_qdisc_plan p;
	struct gc_shape_objs o;
	struct sent s;
	double tick = ns_per_tick();

	if (tick <= 0) {
		SKIP("/proc/net/psched is unreadable");
		return;
	}
	plan(r.rate_bps, &p);
	CHECK(p.kind == GC_QDISC_HTB);
	CHECK(gc_shape_objs_build(IFX, &r, &p, &o) == 0);
	CHECK(o.root && o.cls && o.leaf);
	CHECK(sent_qdisc(o.root, &s) == 0);
	CHECK(!strcmp(s.kind, "htb") && s.parent == TC_H_ROOT && s.handle == 0x00010000u);
	CHECK(sent_class(o.cls, &s) == 0);
	CHECK(!strcmp(s.kind, "htb") && s.parent == 0x00010000u && s.handle == 0x00010001u);
	CHECK(s.has_htb_rate64 && s.htb_rate64 == 5000000000ull);
	CHECK(sent_qdisc(o.leaf, &s) == 0);
	CHECK(!strcmp(s.kind, "netem") && s.parent == 0x00010001u && s.handle == 0x000a0000u);
	CHECK(fabs(sent_delay_us(&s.netem, tick) - 250) <= 1);
	CHECK(fabs(s.netem.jitter * tick / 1000.0 - 50) <= 1);
	CHECK(s.netem.loss == (uint32_t)llround(0.01 * UINT32_MAX));
	gc_shape_objs_release(&o);
}

static void test_delay_without_rate(void)
{
	struct gc_shape_req r = { .dev = "eth0", .delay_us = 10000 };
	struct gc_shape_objs o;
	struct sent s;
	double tick = ns_per_tick();

	if (tick <= 0) {
		SKIP("/proc/net/psched is unreadable");
		return;
	}
	CHECK(gc_shape_wants_netem(&r));
	CHECK(gc_shape_objs_build(IFX, &r, NULL, &o) == 0);
	CHECK(o.root && !o.cls && !o.leaf);
	CHECK(sent_qdisc(o.root, &s) == 0);
	CHECK(!strcmp(s.kind, "netem") && s.parent == TC_H_ROOT && s.handle == 0x00010000u);
	CHECK(fabs(sent_delay_us(&s.netem, tick) - 10000) <= 1);
	gc_shape_objs_release(&o);
}

int main(void)
{
	GCT_SUITE("netem_request");
	GCT_RUN(test_rate_only_unchanged);
	GCT_RUN(test_tbf_then_netem);
	GCT_RUN(test_htb_then_netem);
	GCT_RUN(test_delay_without_rate);
	return gct_finish();
}
