/* netem/shares.c: fair htb leaves under one cap (shares.h). */
#include "shares.h"

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
#include "shape_int.h"
#include "u32.h"

#define H_ROOT   GC_SHAPE_H_ROOT
#define H_PARENT GC_SHAPE_H_CLASS

static uint32_t leaf_handle(size_t i)
{
	return H_ROOT | (uint32_t)(GC_SHARES_MINOR0 + i);
}

/* ---- parsing ---- */

/* "1".."65535", digits only, no leading zero */
static int port_parse(const char *s, size_t len, uint16_t *out)
{
	unsigned long v = 0;

	if (!len || len > 5 || s[0] == '0')
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static gc_rc parse_addrs(const char *s, size_t len, const char *whole, struct gc_share_leaf *l,
			 gc_err *e)
{
	char item[32];
	const char *p = s, *end = s + len;
	gc_err re;

	if (!len)
		return gc_fail(e, GC_E_INVAL, "leaf '%.80s' names no address: write src:10.0.0.3=RATE "
			       "or dst:10.0.0.0/24,10.0.1.5=RATE", whole);
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (l->n_addr == GC_SHARES_MAX_ADDR)
			return gc_fail(e, GC_E_INVAL, "leaf '%.80s' has more than %d addresses: use "
				       "prefixes (10.0.0.0/24) or several leaves", whole,
				       GC_SHARES_MAX_ADDR);
		if (!n || n >= sizeof(item))
			return gc_fail(e, GC_E_INVAL, "leaf '%.80s': an empty or overlong address in "
				       "its list; separate IPv4 addresses with single commas", whole);
		memcpy(item, p, n);
		item[n] = 0;
		if (gc_class_dest_parse(item, &l->addr[l->n_addr], &re))
			return gc_fail(e, GC_E_INVAL, "leaf '%.80s': %s", whole, re.msg);
		l->n_addr++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return GC_OK;
}

static gc_rc parse_ports(const char *s, size_t len, const char *whole, struct gc_share_leaf *l,
			 gc_err *e)
{
	const char *dash = memchr(s, '-', len);
	size_t n1 = dash ? (size_t)(dash - s) : len;

	if (port_parse(s, n1, &l->port_lo) ||
	    (dash ? port_parse(dash + 1, len - n1 - 1, &l->port_hi) : (l->port_hi = l->port_lo, 0)))
		return gc_fail(e, GC_E_INVAL, "leaf '%.80s': ports are 1..65535, written port:LO=RATE "
			       "or port:LO-HI=RATE (port:5310-5317=500mbit)", whole);
	if (l->port_lo > l->port_hi)
		return gc_fail(e, GC_E_INVAL, "leaf '%.80s': the range ends below its start; write "
			       "port:%u-%u", whole, l->port_hi, l->port_lo);
	return GC_OK;
}

gc_rc gc_share_leaf_parse(const char *s, struct gc_share_leaf *out, gc_err *e)
{
	const char *eq, *colon, *sel;
	size_t klen;
	gc_err re;

	if (!s || !out)
		return gc_fail(e, GC_E_INVAL, "a leaf is default=RATE, src:ADDR[,ADDR..]=RATE, "
			       "dst:ADDR[,ADDR..]=RATE or port:LO[-HI]=RATE");
	memset(out, 0, sizeof(*out));
	if (!(eq = strrchr(s, '=')))
		return gc_fail(e, GC_E_INVAL, "leaf '%.80s' has no rate: add =RATE (default=10mbit, "
			       "src:10.0.0.3=500mbit, port:5310-5317=500mbit)", s);
	if (gc_rate_parse(eq + 1, &out->rate_bps, &re))
		return gc_fail(e, GC_E_INVAL, "leaf '%.80s': %s", s, re.msg);
	colon = memchr(s, ':', (size_t)(eq - s));
	klen = colon ? (size_t)(colon - s) : (size_t)(eq - s);
	sel = colon ? colon + 1 : eq;
	if (klen == 7 && !strncmp(s, "default", 7) && !colon) {
		out->match = GC_SHARE_DEFAULT;
		return GC_OK;
	}
	if (colon && klen == 3 && (!strncmp(s, "src", 3) || !strncmp(s, "dst", 3))) {
		out->match = s[0] == 's' ? GC_SHARE_SRC : GC_SHARE_DST;
		return parse_addrs(sel, (size_t)(eq - sel), s, out, e);
	}
	if (colon && klen == 4 && !strncmp(s, "port", 4)) {
		out->match = GC_SHARE_PORT;
		return parse_ports(sel, (size_t)(eq - sel), s, out, e);
	}
	return gc_fail(e, GC_E_INVAL, "leaf '%.80s': unknown match; write default=RATE, "
		       "src:ADDR[,ADDR..]=RATE, dst:ADDR[,ADDR..]=RATE or port:LO[-HI]=RATE", s);
}

size_t gc_share_port_blocks(uint16_t lo, uint16_t hi, uint16_t *value, uint16_t *mask,
			    size_t max)
{
	uint32_t a = lo, b = hi;
	size_t n = 0;

	while (a <= b) {
		uint32_t size = 1;
		/* the largest power of two that a is aligned to and that fits in a..b */
		while (size < 65536 && !(a & size) && a + size * 2 - 1 <= b)
			size *= 2;
		if (n < max) {
			value[n] = (uint16_t)a;
			mask[n] = (uint16_t)(0xffffu & ~(size - 1));
		}
		n++;
		a += size;
	}
	return n;
}

gc_rc gc_shares_check(uint64_t cap_bps, const struct gc_share_leaf *leaf, size_t n, gc_err *e)
{
	struct gc_qdisc_plan p;
	uint64_t sum = 0;
	size_t defaults = 0;
	gc_err re;

	if (gc_qdisc_plan_make(cap_bps, 0, &p, &re))
		return gc_fail(e, GC_E_INVAL, "the cap: %s", re.msg);
	if (!n || n > GC_SHARES_MAX_LEAVES)
		return gc_fail(e, GC_E_INVAL, "give 1 to %d leaves, exactly one of them default=RATE",
			       GC_SHARES_MAX_LEAVES);
	for (size_t i = 0; i < n; i++) {
		const struct gc_share_leaf *l = &leaf[i];

		if (gc_qdisc_plan_make(l->rate_bps, 0, &p, &re))
			return gc_fail(e, GC_E_INVAL, "leaf %zu: %s", i + 1, re.msg);
		if (l->match == GC_SHARE_DEFAULT)
			defaults++;
		else if ((l->match == GC_SHARE_SRC || l->match == GC_SHARE_DST) &&
			 (!l->n_addr || l->n_addr > GC_SHARES_MAX_ADDR))
			return gc_fail(e, GC_E_INVAL, "leaf %zu: give 1 to %d addresses", i + 1,
				       GC_SHARES_MAX_ADDR);
		else if (l->match == GC_SHARE_PORT && (!l->port_lo || l->port_lo > l->port_hi))
			return gc_fail(e, GC_E_INVAL, "leaf %zu: ports are 1..65535 with lo <= hi",
				       i + 1);
		else if (l->match != GC_SHARE_SRC && l->match != GC_SHARE_DST &&
			 l->match != GC_SHARE_PORT)
			return gc_fail(e, GC_E_INVAL, "leaf %zu: unknown match", i + 1);
		sum += l->rate_bps;
	}
	if (defaults != 1)
		return gc_fail(e, GC_E_INVAL, "%s default leaf: give exactly one default=RATE (where "
			       "everything no other leaf matches goes)", defaults ? "more than one" :
			       "no");
	if (sum > cap_bps)
		return gc_fail(e, GC_E_INVAL, "the leaves' rates sum to %llu bit/s, above the cap of "
			       "%llu bit/s: lower them (each leaf borrows up to the cap anyway)",
			       (unsigned long long)sum, (unsigned long long)cap_bps);
	return GC_OK;
}

/* ---- the kernel ---- */

static gc_rc add_leaf(struct nl_sock *sk, int ifindex, size_t i, uint64_t rate_bps,
		      const struct gc_qdisc_plan *cap, const char *dev, gc_err *e)
{
	struct rtnl_class *k = rtnl_class_alloc();
	struct gc_qdisc_plan p;
	char what[48];
	int err = k ? 0 : -NLE_NOMEM;
	gc_rc rc = gc_qdisc_plan_make(rate_bps, 0, &p, e);

	if (rc) {
		if (k)
			rtnl_class_put(k);
		return rc;
	}
	if (k) {
		rtnl_tc_set_ifindex(TC_CAST(k), ifindex);
		rtnl_tc_set_parent(TC_CAST(k), H_PARENT);
		rtnl_tc_set_handle(TC_CAST(k), leaf_handle(i));
		if ((err = rtnl_tc_set_kind(TC_CAST(k), "htb")) >= 0 &&
		    (err = rtnl_htb_set_rate64(k, p.rate_bytes)) >= 0 &&
		    (err = rtnl_htb_set_ceil64(k, cap->rate_bytes)) >= 0 &&
		    (err = rtnl_htb_set_rbuffer(k, p.burst)) >= 0 &&
		    (err = rtnl_htb_set_cbuffer(k, cap->burst)) >= 0 &&
		    (err = rtnl_htb_set_quantum(k, cap->quantum)) >= 0)
			err = rtnl_class_add(sk, k, NLM_F_CREATE | NLM_F_EXCL);
		rtnl_class_put(k);
	}
	snprintf(what, sizeof(what), "adding leaf 1:%x", GC_SHARES_MINOR0 + (unsigned)i);
	return err < 0 ? gc_nl_fail(e, err, what, dev) : GC_OK;
}

/* The filters of leaf i; *count grows by each one added. */
static gc_rc add_filters(struct nl_sock *sk, int ifindex, size_t i, const struct gc_share_leaf *l,
			 const char *dev, size_t *count, gc_err *e)
{
	uint16_t v[32], m[32];
	struct gc_u32_key k;
	gc_rc rc = GC_OK;
	size_t nb;

	if (l->match == GC_SHARE_SRC || l->match == GC_SHARE_DST) {
		for (size_t a = 0; !rc && a < l->n_addr; a++) {
			k.port = 0;
			k.val = l->addr[a].addr;
			k.mask = gc_u32_prefix_mask(l->addr[a].prefix);
			k.off = l->match == GC_SHARE_SRC ? 12 : 16;
			if (!(rc = gc_u32_add(sk, ifindex, H_ROOT, &k, leaf_handle(i),
						"adding a leaf's filter", dev, e)))
				(*count)++;
		}
	} else if (l->match == GC_SHARE_PORT) {
		nb = gc_share_port_blocks(l->port_lo, l->port_hi, v, m, 32);
		for (size_t b = 0; !rc && b < nb && b < 32; b++)
			for (int off = 20; !rc && off <= 22; off += 2) {
				k.port = 1, k.val = v[b], k.mask = m[b], k.off = off;
				if (!(rc = gc_u32_add(sk, ifindex, H_ROOT, &k, leaf_handle(i),
						"adding a leaf's filter", dev, e)))
					(*count)++;
			}
	}
	return rc;
}

static int class_is(struct nl_cache *cc, int ifindex, uint32_t h, uint64_t rate, uint64_t ceil)
{
	struct rtnl_class *k = rtnl_class_get(cc, ifindex, h);
	uint64_t r = 0, c = 0;

	if (!k)
		return 0;
	rtnl_htb_get_rate64(k, &r);
	rtnl_htb_get_ceil64(k, &c);
	rtnl_class_put(k);
	return r == rate && c == ceil;
}

/* what the kernel holds: the parent's and every leaf's rate and ceil, and the filters
 * under 1: (u32 lists its hash table as an entry of its own: node 0 of a handle) */
static gc_rc verify(struct nl_sock *sk, int ifindex, const struct gc_qdisc_plan *cap,
		    const struct gc_share_leaf *leaf, size_t n, size_t filters, const char *dev,
		    gc_err *e)
{
	struct nl_cache *cc = NULL, *fc = NULL;
	struct nl_object *o;
	size_t got = 0, bad = 0;
	int err;
	gc_rc rc = GC_OK;

	if ((err = rtnl_class_alloc_cache(sk, ifindex, &cc)) < 0 ||
	    (err = rtnl_cls_alloc_cache(sk, ifindex, H_ROOT, &fc)) < 0) {
		nl_cache_free(cc);
		return gc_nl_fail(e, err, "reading the leaves back", dev);
	}
	if (!class_is(cc, ifindex, H_PARENT, cap->rate_bytes, cap->rate_bytes))
		bad = 1;
	for (size_t i = 0; !bad && i < n; i++) {
		struct gc_qdisc_plan p;
		if (gc_qdisc_plan_make(leaf[i].rate_bps, 0, &p, NULL) ||
		    !class_is(cc, ifindex, leaf_handle(i), p.rate_bytes, cap->rate_bytes))
			bad = i + 2;
	}
	for (o = nl_cache_get_first(fc); o; o = nl_cache_get_next(o))
		if (rtnl_tc_get_handle(TC_CAST(o)) & 0xfff)
			got++;
	if (bad)
		rc = gc_fail(e, GC_E_MISMATCH, "'%s' does not hold class 1:%x at the rate and ceil "
			     "asked for; restored the link", dev,
			     bad == 1 ? 1u : GC_SHARES_MINOR0 + (unsigned)(bad - 2));
	else if (got != filters)
		rc = gc_fail(e, GC_E_MISMATCH, "'%s' holds %zu leaf filters, not the %zu asked for; "
			     "restored the link", dev, got, filters);
	nl_cache_free(cc);
	nl_cache_free(fc);
	return rc;
}

gc_rc gc_shape_shares(const char *dev, const char *netns, uint64_t cap_bps,
		      const struct gc_share_leaf *leaf, size_t n, pid_t owner, gc_err *e)
{
	struct gc_shape_req r = { 0 };
	struct gc_qdisc_plan cap;
	struct gc_links l = { 0 };
	size_t def = 0, filters = 0;
	int ifindex = 0;
	gc_rc rc;

	if ((rc = gc_shares_check(cap_bps, leaf, n, e)) ||
	    (rc = gc_qdisc_plan_make(cap_bps, 0, &cap, e)))
		return rc;
	for (size_t i = 0; i < n; i++)
		if (leaf[i].match == GC_SHARE_DEFAULT)
			def = i;
	r.dev = dev, r.netns = netns, r.rate_bps = cap_bps, r.owner = owner, r.htb = 1;
	r.htb_default = GC_SHARES_MINOR0 + (uint32_t)def;
	if ((rc = gc_shape_set(&r, e)))
		return rc;
	if ((rc = gc_links_open(&l, netns, e)) || (rc = gc_links_ifindex(&l, dev, &ifindex, e)))
		goto out;
	for (size_t i = 0; !rc && i < n; i++)
		rc = add_leaf(l.sk, ifindex, i, leaf[i].rate_bps, &cap, dev, e);
	for (size_t i = 0; !rc && i < n; i++)
		rc = add_filters(l.sk, ifindex, i, &leaf[i], dev, &filters, e);
	if (!rc)
		rc = verify(l.sk, ifindex, &cap, leaf, n, filters, dev, e);
out:
	gc_links_release(&l);
	if (rc)
		gc_shape_clear(dev, netns, NULL);   /* nothing half-made is left */
	return rc;
}
