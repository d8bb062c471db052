/* netem/classes.c: per-destination htb classes (classes.h). */
#include "classes.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netlink/route/class.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/tc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "rate.h"
#include "shape.h"
#include "u32.h"

#define H_ROOT  0x00010000u   /* 1: */
#define H_CROSS 0x00010002u   /* 1:2 */

gc_rc gc_class_dest_parse(const char *s, struct gc_class_dest *d, gc_err *e)
{
	char buf[32], *slash;
	struct in_addr a;
	long p = 32;

	if (!s || strlen(s) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "a destination is an IPv4 address or prefix (10.0.0.3, "
			       "10.0.0.0/24)");
	strcpy(buf, s);
	if ((slash = strchr(buf, '/'))) {
		char *end;
		*slash = 0;
		p = strtol(slash + 1, &end, 10);
		if (!slash[1] || *end || p < 0 || p > 32 || (slash[1] == '0' && slash[2]))
			return gc_fail(e, GC_E_INVAL, "destination '%s': the prefix length is not "
				       "0..32", s);
	}
	if (inet_pton(AF_INET, buf, &a) != 1)
		return gc_fail(e, GC_E_INVAL, "destination '%s' is not an IPv4 address or prefix "
			       "(10.0.0.3, 10.0.0.0/24)", s);
	d->addr = ntohl(a.s_addr);
	d->prefix = (int)p;
	if (p < 32 && (d->addr & (0xffffffffu >> p)))
		return gc_fail(e, GC_E_INVAL, "destination '%s' has bits set outside its /%ld; "
			       "write the network's address", s, p);
	return GC_OK;
}

static gc_rc add_class(struct nl_sock *sk, int ifindex, const struct gc_qdisc_plan *p,
		       const char *dev, gc_err *e)
{
	struct rtnl_class *k = rtnl_class_alloc();
	int err = k ? 0 : -NLE_NOMEM;

	if (k) {
		rtnl_tc_set_ifindex(TC_CAST(k), ifindex);
		rtnl_tc_set_parent(TC_CAST(k), H_ROOT);
		rtnl_tc_set_handle(TC_CAST(k), H_CROSS);
		if ((err = rtnl_tc_set_kind(TC_CAST(k), "htb")) >= 0 &&
		    (err = rtnl_htb_set_rate64(k, p->rate_bytes)) >= 0 &&
		    (err = rtnl_htb_set_ceil64(k, p->rate_bytes)) >= 0 &&
		    (err = rtnl_htb_set_rbuffer(k, p->burst)) >= 0 &&
		    (err = rtnl_htb_set_cbuffer(k, p->burst)) >= 0 &&
		    (err = rtnl_htb_set_quantum(k, p->quantum)) >= 0)
			err = rtnl_class_add(sk, k, NLM_F_CREATE | NLM_F_EXCL);
		rtnl_class_put(k);
	}
	return err < 0 ? gc_nl_fail(e, err, "adding class 1:2", dev) : GC_OK;
}

static gc_rc add_filter(struct nl_sock *sk, int ifindex, const struct gc_class_dest *d,
			const char *dev, gc_err *e)
{
	struct gc_u32_key k = { 0, d->addr, gc_u32_prefix_mask(d->prefix), 16 };

	return gc_u32_add(sk, ifindex, H_ROOT, &k, H_CROSS, "adding a destination filter", dev, e);
}

/* what the kernel holds: class 1:2's rate and the filters under 1: */
static gc_rc verify(struct nl_sock *sk, int ifindex, const struct gc_qdisc_plan *p, size_t n,
		    const char *dev, gc_err *e)
{
	struct nl_cache *cc = NULL, *fc = NULL;
	struct rtnl_class *k;
	uint64_t rate = 0;
	int err, filters;
	gc_rc rc = GC_OK;

	if ((err = rtnl_class_alloc_cache(sk, ifindex, &cc)) < 0 ||
	    (err = rtnl_cls_alloc_cache(sk, ifindex, H_ROOT, &fc)) < 0) {
		nl_cache_free(cc);
		return gc_nl_fail(e, err, "reading the classes back", dev);
	}
	if ((k = rtnl_class_get(cc, ifindex, H_CROSS))) {
		rtnl_htb_get_rate64(k, &rate);
		rtnl_class_put(k);
	}
	filters = nl_cache_nitems(fc);
	/* u32 lists its hash table as an entry of its own beside the filters */
	if (rate != p->rate_bytes || filters < (int)n)
		rc = gc_fail(e, GC_E_MISMATCH, "'%s' holds class 1:2 at %llu bytes/s with %d "
			     "filters, not %llu with %zu; restored the link", dev,
			     (unsigned long long)rate, filters, (unsigned long long)p->rate_bytes, n);
	nl_cache_free(cc);
	nl_cache_free(fc);
	return rc;
}

gc_rc gc_shape_classes(const char *dev, const char *netns, uint64_t host_bps,
		       const struct gc_class_dest *dest, size_t n, uint64_t rate_bps, pid_t owner,
		       gc_err *e)
{
	struct gc_shape_req r = { 0 };
	struct gc_qdisc_plan p;
	struct gc_links l = { 0 };
	int ifindex = 0;
	gc_rc rc;

	if (!n || n > GC_CLASSES_MAX_DEST)
		return gc_fail(e, GC_E_INVAL, "give 1 to %d destinations for the class",
			       GC_CLASSES_MAX_DEST);
	if ((rc = gc_qdisc_plan_make(rate_bps, 0, &p, e)))
		return rc;
	r.dev = dev, r.netns = netns, r.rate_bps = host_bps, r.owner = owner, r.htb = 1;
	if ((rc = gc_shape_set(&r, e)))
		return rc;
	if ((rc = gc_links_open(&l, netns, e)) || (rc = gc_links_ifindex(&l, dev, &ifindex, e)))
		goto out;
	rc = add_class(l.sk, ifindex, &p, dev, e);
	for (size_t i = 0; !rc && i < n; i++)
		rc = add_filter(l.sk, ifindex, &dest[i], dev, e);
	if (!rc)
		rc = verify(l.sk, ifindex, &p, n, dev, e);
out:
	gc_links_release(&l);
	if (rc)
		gc_shape_clear(dev, netns, NULL);   /* nothing half-made is left */
	return rc;
}
