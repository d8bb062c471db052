/* netem/shape.c: TBF/HTB (+ netem) through libnl-route, verified by reading back. */
#include "shape.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pkt_sched.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/version.h>
#include <netlink/route/class.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "netns.h"
#include "pids.h"
#include "rate.h"
#include "shape_int.h"
#include "state.h"
#include "strutil.h"

#define H_ROOT   GC_SHAPE_H_ROOT
#define H_CLASS  GC_SHAPE_H_CLASS
#define H_NETEM  GC_SHAPE_H_NETEM

/* A netlink session on one link, inside its namespace. */
struct nlctx {
	struct nl_sock *sk;
	int saved_ns;
	int ifindex;
	const char *dev, *netns;
};

static const char *where(const struct nlctx *c, char *buf, size_t n)
{
	if (c->netns)
		snprintf(buf, n, " in namespace '%s'", c->netns);
	else
		buf[0] = 0;
	return buf;
}

static gc_rc nl_fail(struct nlctx *c, gc_err *e, int err, const char *what)
{
	char w[96];

	if (err < 0)
		err = -err;
	if (err == NLE_PERM)
		return gc_fail(e, GC_E_PERM, "cannot %s on '%s'%s: operation not permitted (need "
			       "CAP_NET_ADMIN: run as root or setcap cap_net_admin+ep)", what,
			       c->dev, where(c, w, sizeof(w)));
	return gc_fail(e, GC_E_NETLINK, "cannot %s on '%s'%s: %s", what, c->dev,
		       where(c, w, sizeof(w)), nl_geterror(err));
}

int gc_shape_valid_dev(const char *dev)
{
	size_t n = dev ? strlen(dev) : 0;
	return n >= 1 && n <= 15 && gc_is_safe_token(dev) && dev[0] != '.' &&
	       strspn(dev, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int gc_shape_valid_netns(const char *ns)
{
	size_t n = ns ? strlen(ns) : 0;
	return n >= 1 && n <= 64 && ns[0] != '-' && ns[0] != '.' &&
	       strspn(ns, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void ctx_close(struct nlctx *c)
{
	if (c->sk)
		nl_socket_free(c->sk);
	c->sk = NULL;
	gc_netns_leave(c->saved_ns);
	c->saved_ns = -1;
}

/* Validate names, enter the namespace, connect, resolve dev to an ifindex. */
static gc_rc ctx_open(struct nlctx *c, const char *dev, const char *netns, gc_err *e)
{
	struct rtnl_link *link = NULL;
	char w[96];
	gc_rc rc;
	int err;

	memset(c, 0, sizeof(*c));
	c->saved_ns = -1;
	c->dev = dev;
	c->netns = netns;
	if (!gc_shape_valid_dev(dev))
		return gc_fail(e, GC_E_INVAL, "invalid interface name '%.32s': use 1-15 of "
			       "[A-Za-z0-9._-]", dev ? dev : "");
	if ((rc = gc_netns_enter(netns, &c->saved_ns, e)))
		return rc;
	c->sk = nl_socket_alloc();
	if (!c->sk || (err = nl_connect(c->sk, NETLINK_ROUTE)) < 0) {
		ctx_close(c);
		return gc_fail(e, GC_E_NETLINK, "cannot open a netlink socket");
	}
	err = rtnl_link_get_kernel(c->sk, 0, dev, &link);
	if (err < 0) {
		rc = gc_fail(e, GC_E_NOTFOUND, "interface '%s' does not exist%s (%s); list them "
			     "with 'ip link'%s", dev, where(c, w, sizeof(w)), nl_geterror(err),
			     netns ? " inside the namespace" : "");
		ctx_close(c);
		return rc;
	}
	c->ifindex = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return GC_OK;
}

/* The root qdisc of the link (caller puts it), or NULL with *err set (0: none). */
static struct rtnl_qdisc *root_qdisc(struct nlctx *c, struct nl_cache **cache, int *err)
{
	struct rtnl_qdisc *q;

	*err = rtnl_qdisc_alloc_cache(c->sk, cache);
	if (*err < 0)
		return NULL;
	q = rtnl_qdisc_get_by_parent(*cache, c->ifindex, TC_H_ROOT);
	return q;
}

static struct rtnl_qdisc *qdisc_new(int ifindex, uint32_t parent, uint32_t handle,
				    const char *kind)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	rtnl_tc_set_handle(TC_CAST(q), handle);
	if (rtnl_tc_set_kind(TC_CAST(q), kind) < 0) {
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

/* Delete the root qdisc if it is not the kernel's default (handle 0). */
static int delete_root(struct nlctx *c)
{
	struct nl_cache *cache = NULL;
	struct rtnl_qdisc *q;
	int err;

	q = root_qdisc(c, &cache, &err);
	if (q && rtnl_tc_get_handle(TC_CAST(q)) != 0)
		err = rtnl_qdisc_delete(c->sk, q);
	if (q)
		rtnl_qdisc_put(q);
	nl_cache_free(cache);
	return err < 0 ? err : 0;
}

int gc_shape_wants_netem(const struct gc_shape_req *r)
{
	return r->delay_us || r->jitter_us || r->loss_pct > 0;
}

static struct rtnl_qdisc *tbf_new(int ifindex, const struct gc_qdisc_plan *p)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, TC_H_ROOT, H_ROOT, "tbf");

	if (!q)
		return NULL;
	rtnl_qdisc_tbf_set_limit(q, (int)p->limit);
	/* libnl 3.7 takes an int of bytes/s; the kernel field is u32: cast through it */
	rtnl_qdisc_tbf_set_rate(q, (int)(uint32_t)p->rate_bytes, (int)p->burst, 0);
	return q;
}

static int htb_new(int ifindex, const struct gc_qdisc_plan *p, uint32_t defcls,
		   struct gc_shape_objs *o)
{
	struct rtnl_class *k;
	int err;

	o->root = qdisc_new(ifindex, TC_H_ROOT, H_ROOT, "htb");
	if (!o->root || rtnl_htb_set_defcls(o->root, defcls ? defcls : 1) < 0)
		return -NLE_NOMEM;
	k = o->cls = rtnl_class_alloc();
	if (!k)
		return -NLE_NOMEM;
	rtnl_tc_set_ifindex(TC_CAST(k), ifindex);
	rtnl_tc_set_parent(TC_CAST(k), H_ROOT);
	rtnl_tc_set_handle(TC_CAST(k), H_CLASS);
	if ((err = rtnl_tc_set_kind(TC_CAST(k), "htb")) >= 0 &&
	    (err = rtnl_htb_set_rate64(k, p->rate_bytes)) >= 0 &&
	    (err = rtnl_htb_set_ceil64(k, p->rate_bytes)) >= 0 &&
	    (err = rtnl_htb_set_rbuffer(k, p->burst)) >= 0 &&
	    (err = rtnl_htb_set_cbuffer(k, p->burst)) >= 0)
		err = rtnl_htb_set_quantum(k, p->quantum);
	return err < 0 ? err : 0;
}

static struct rtnl_qdisc *netem_new(int ifindex, uint32_t parent, uint32_t handle,
				    const struct gc_shape_req *r)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, parent, handle, "netem");

	if (!q)
		return NULL;
	rtnl_netem_set_limit(q, 100000);
	if (r->delay_us)
		rtnl_netem_set_delay(q, (int)r->delay_us);
	if (r->jitter_us)
		rtnl_netem_set_jitter(q, (int)r->jitter_us);
	if (r->loss_pct > 0)
		rtnl_netem_set_loss(q, (int)(uint32_t)llround(r->loss_pct / 100.0 * UINT32_MAX));
	return q;
}

void gc_shape_objs_release(struct gc_shape_objs *o)
{
	if (o->root)
		rtnl_qdisc_put(o->root);
	if (o->cls)
		rtnl_class_put(o->cls);
	if (o->leaf)
		rtnl_qdisc_put(o->leaf);
	memset(o, 0, sizeof(*o));
}

int gc_shape_objs_build(int ifindex, const struct gc_shape_req *r,
			const struct gc_qdisc_plan *p, struct gc_shape_objs *o)
{
	int err = 0;

	memset(o, 0, sizeof(*o));
	if (!p) {                        /* delay without a rate: netem alone at the root */
		o->root = netem_new(ifindex, TC_H_ROOT, H_ROOT, r);
		err = o->root ? 0 : -NLE_OBJ_NOTFOUND;   /* libnl knows no netem */
	} else if (p->kind == GC_QDISC_TBF) {
		o->root = tbf_new(ifindex, p);
		err = o->root ? 0 : -NLE_NOMEM;
	} else {
		err = htb_new(ifindex, p, r->htb_default, o);
	}
	if (!err && p && gc_shape_wants_netem(r) &&
	    !(o->leaf = netem_new(ifindex, H_CLASS, H_NETEM, r)))
		err = -NLE_OBJ_NOTFOUND;
	if (err)
		gc_shape_objs_release(o);
	return err;
}

static void fill_htb(struct nlctx *c, struct gc_shape_info *o)
{
	struct nl_cache *cc = NULL;
	struct rtnl_class *k;
	uint64_t r = 0;

	if (rtnl_class_alloc_cache(c->sk, c->ifindex, &cc) < 0)
		return;
	k = rtnl_class_get(cc, c->ifindex, H_CLASS);
	if (k) {
		if (rtnl_htb_get_rate64(k, &r) >= 0)
			o->rate_bps = r * 8;
		o->burst = rtnl_htb_get_rbuffer(k);
		rtnl_class_put(k);
	}
	nl_cache_free(cc);
}

static void fill_netem(struct rtnl_qdisc *q, struct gc_shape_info *o)
{
	o->netem = 1;
	o->delay_us = (uint32_t)rtnl_netem_get_delay(q);
	o->jitter_us = (uint32_t)rtnl_netem_get_jitter(q);
}

static void fill_root(struct nlctx *c, struct rtnl_qdisc *q, struct gc_shape_info *o)
{
	const char *kind = rtnl_tc_get_kind(TC_CAST(q));

	gc_strlcpy(o->kind, kind ? kind : "unknown", sizeof(o->kind));
	o->handle = rtnl_tc_get_handle(TC_CAST(q));
	o->bytes = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_BYTES);
	o->packets = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_PACKETS);
	o->drops = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_DROPS);
	o->overlimits = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_OVERLIMITS);
	if (!strcmp(o->kind, "tbf")) {
		/* the getter returns an int: read it back as the kernel's u32 */
		o->rate_bps = (uint64_t)(uint32_t)rtnl_qdisc_tbf_get_rate(q) * 8;
		o->burst = (uint32_t)rtnl_qdisc_tbf_get_rate_bucket(q);
	} else if (!strcmp(o->kind, "htb")) {
		fill_htb(c, o);
	} else if (!strcmp(o->kind, "netem")) {
		fill_netem(q, o);
	}
}

/* Read what the kernel holds on the open link into o. */
static gc_rc read_info(struct nlctx *c, struct gc_shape_info *o, gc_err *e)
{
	struct nl_cache *cache = NULL;
	struct rtnl_qdisc *q, *nq;
	int err;

	memset(o, 0, sizeof(*o));
	q = root_qdisc(c, &cache, &err);
	if (err < 0)
		return nl_fail(c, e, err, "read the qdiscs");
	if (!q) {
		gc_strlcpy(o->kind, "none", sizeof(o->kind));
	} else {
		fill_root(c, q, o);
		rtnl_qdisc_put(q);
	}
	nq = rtnl_qdisc_get(cache, c->ifindex, H_NETEM);
	if (nq && rtnl_tc_get_kind(TC_CAST(nq)) && !strcmp(rtnl_tc_get_kind(TC_CAST(nq)), "netem"))
		fill_netem(nq, o);
	if (nq)
		rtnl_qdisc_put(nq);
	nl_cache_free(cache);
	return GC_OK;
}

/* The delay read back may differ from the one asked by the rounding of its trip
 * through the kernel's ticks (64 ns): 1 us either way. */
static int delay_close(uint32_t got, uint32_t want)
{
	return got + 1 >= want && got <= want + 1;
}

/* Compare what the kernel holds with the request (p: its rate plan, NULL for a delay
 * alone). The burst comes back through tick arithmetic (bytes -> time -> bytes), so
 * it is compared within 1% + 64 bytes. */
static gc_rc verify(struct nlctx *c, const struct gc_shape_req *r, const struct gc_qdisc_plan *p,
		    gc_err *e)
{
	struct gc_shape_info o;
	char w[96];
	double tol = p ? p->burst * 0.01 + 64 : 0;
	gc_rc rc = read_info(c, &o, e);

	if (rc)
		return rc;
	if (p && (strcmp(o.kind, gc_qdisc_kind_name(p->kind)) || o.rate_bps != p->rate_bytes * 8 ||
		  fabs((double)o.burst - (double)p->burst) > tol))
		return gc_fail(e, GC_E_MISMATCH, "the kernel holds %s rate %llu bit/s burst %u on "
			       "'%s'%s, not the %s rate %llu bit/s burst %u asked for; the change "
			       "was rolled back", o.kind, (unsigned long long)o.rate_bps, o.burst,
			       c->dev, where(c, w, sizeof(w)), gc_qdisc_kind_name(p->kind),
			       (unsigned long long)p->rate_bytes * 8, p->burst);
	if (gc_shape_wants_netem(r) && (!o.netem || !delay_close(o.delay_us, r->delay_us) ||
					!delay_close(o.jitter_us, r->jitter_us)))
		return gc_fail(e, GC_E_MISMATCH, "the kernel holds %s delay %u us jitter %u us on "
			       "'%s'%s, not the netem delay %u us jitter %u us asked for; the change "
			       "was rolled back", o.netem ? "netem" : "no netem", o.delay_us,
			       o.jitter_us, c->dev, where(c, w, sizeof(w)), r->delay_us, r->jitter_us);
	return GC_OK;
}

gc_rc gc_shape_show(const char *dev, const char *netns, struct gc_shape_info *out, gc_err *e)
{
	struct gc_netem_state st;
	struct nlctx c;
	char path[PATH_MAX];
	gc_rc rc = ctx_open(&c, dev, netns, e);

	if (rc)
		return rc;
	rc = read_info(&c, out, e);
	ctx_close(&c);
	if (!rc && !gc_state_path(dev, netns, path, sizeof(path), NULL) &&
	    !gc_state_read(path, &st, NULL)) {
		out->managed = 1;
		out->owner = st.owner;
	}
	return rc;
}

static gc_rc check_req(const struct gc_shape_req *r, gc_err *e)
{
	if (!(r->loss_pct >= 0 && r->loss_pct <= 100))
		return gc_fail(e, GC_E_INVAL, "loss %g%% is outside 0..100", r->loss_pct);
	if (r->jitter_us && !r->delay_us)
		return gc_fail(e, GC_E_INVAL, "jitter needs a delay (netem varies the delay)");
	if (r->delay_us > 60000000u || r->jitter_us > r->delay_us)
		return gc_fail(e, GC_E_INVAL, "delay must be at most 60 s and jitter at most the delay");
	if (!r->rate_bps && !gc_shape_wants_netem(r))
		return gc_fail(e, GC_E_INVAL, "nothing to set: give a rate, a delay or a loss");
	return GC_OK;
}

/* Record what is on the link now (or keep the record of an earlier gcbench set) and
 * the new cap, before touching the kernel. */
static gc_rc save_state(struct nlctx *c, const struct gc_shape_req *r,
			const struct gc_qdisc_plan *p, struct gc_netem_state *st, gc_err *e)
{
	struct gc_shape_info now;
	char path[PATH_MAX], w[96];
	gc_rc rc = gc_state_path(c->dev, c->netns, path, sizeof(path), e);

	if (rc)
		return rc;
	rc = gc_state_read(path, st, e);
	if (rc == GC_E_NOTFOUND) {
		if ((rc = read_info(c, &now, e)))
			return rc;
		if (now.handle != 0)
			return gc_fail(e, GC_E_BUSY, "'%s'%s already has a root qdisc '%s' that "
				       "gcbench did not install; remove it first ('tc qdisc del dev "
				       "%s root') so gcbench can restore the link afterwards",
				       c->dev, where(c, w, sizeof(w)), now.kind, c->dev);
		memset(st, 0, sizeof(*st));
		gc_strlcpy(st->dev, c->dev, sizeof(st->dev));
		gc_strlcpy(st->netns, c->netns ? c->netns : "", sizeof(st->netns));
		gc_strlcpy(st->orig_kind, now.kind, sizeof(st->orig_kind));
	} else if (rc) {
		return rc;
	}
	st->owner = r->owner ? r->owner : getpid();
	st->owner_start = gc_proc_start_time(st->owner);
	if (!st->owner_start)
		return gc_fail(e, GC_E_INVAL, "owner process %d does not exist", (int)st->owner);
	gc_strlcpy(st->kind, p ? gc_qdisc_kind_name(p->kind) : "netem", sizeof(st->kind));
	st->rate_bps = p ? p->rate_bytes * 8 : 0;
	st->burst = p ? p->burst : 0;
	st->delay_us = r->delay_us;
	return gc_state_write(st, e);
}

static int no_netem(int err)
{
	return err == -NLE_OBJ_NOTFOUND || err == -NLE_OPNOTSUPP || err == -NLE_NOATTR;
}

static gc_rc netem_missing(struct nlctx *c, gc_err *e)
{
	char w[96];

	return gc_fail(e, GC_E_UNSUPPORTED, "cannot add a netem qdisc on '%s'%s: the kernel has "
		       "no netem qdisc (module sch_netem); delay/jitter/loss are unavailable "
		       "there (load it with 'modprobe sch_netem', or install the kernel's "
		       "extra modules); rate caps still work", c->dev, where(c, w, sizeof(w)));
}

/* Replace the root qdisc with the chain of gc_shape_objs_build. */
static gc_rc install(struct nlctx *c, const struct gc_shape_req *r,
		     const struct gc_qdisc_plan *p, gc_err *e)
{
	struct gc_shape_objs o;
	int err = delete_root(c);

	if (err < 0)
		return nl_fail(c, e, err, "remove the previous root qdisc");
	err = gc_shape_objs_build(c->ifindex, r, p, &o);
	if (err < 0)
		return no_netem(err) ? netem_missing(c, e) : nl_fail(c, e, err, "build the qdiscs");
	err = rtnl_qdisc_add(c->sk, o.root, NLM_F_CREATE | NLM_F_EXCL);
	if (err < 0 && !p && no_netem(err)) {
		gc_shape_objs_release(&o);
		return netem_missing(c, e);
	}
	if (err >= 0 && o.cls)
		err = rtnl_class_add(c->sk, o.cls, NLM_F_CREATE | NLM_F_EXCL);
	if (err < 0) {
		gc_shape_objs_release(&o);
		return nl_fail(c, e, err, !p ? "add a netem qdisc" : p->kind == GC_QDISC_TBF ?
			       "add a tbf qdisc" : "add an htb qdisc and class");
	}
	if (o.leaf)
		err = rtnl_qdisc_add(c->sk, o.leaf, NLM_F_CREATE | NLM_F_EXCL);
	gc_shape_objs_release(&o);
	if (no_netem(err))
		return netem_missing(c, e);
	return err < 0 ? nl_fail(c, e, err, "add a netem qdisc") : GC_OK;
}

/* Put the link back as the state file says and remove the file. */
static gc_rc restore(struct nlctx *c, const char *path, gc_err *e)
{
	struct gc_shape_info o;
	char w[96];
	int err = delete_root(c);
	gc_rc rc;

	if (err < 0)
		return nl_fail(c, e, err, "remove the root qdisc");
	if ((rc = read_info(c, &o, e)))
		return rc;
	if (o.handle != 0)
		return gc_fail(e, GC_E_MISMATCH, "'%s'%s still holds root qdisc '%s' after "
			       "removal", c->dev, where(c, w, sizeof(w)), o.kind);
	if (unlink(path) && errno != ENOENT)
		return gc_fail(e, GC_E_IO, "cannot remove state file '%s': %s", path, strerror(errno));
	return GC_OK;
}

gc_rc gc_shape_set(const struct gc_shape_req *r, gc_err *e)
{
	struct gc_qdisc_plan plan, *p = r->rate_bps ? &plan : NULL;
	struct gc_netem_state st;
	struct nlctx c;
	char path[PATH_MAX];
	gc_rc rc;

	if ((rc = check_req(r, e)) || (p && (rc = gc_qdisc_plan_make(r->rate_bps, r->burst, p, e))))
		return rc;
	if (p && r->htb)
		p->kind = GC_QDISC_HTB;
	if ((rc = ctx_open(&c, r->dev, r->netns, e)))
		return rc;
	if ((rc = gc_state_path(r->dev, r->netns, path, sizeof(path), e)) ||
	    (rc = save_state(&c, r, p, &st, e)))
		goto out;
	rc = install(&c, r, p, e);
	if (!rc)
		rc = verify(&c, r, p, e);
	if (rc)
		restore(&c, path, NULL);   /* roll back; the first error is the one to report */
out:
	ctx_close(&c);
	return rc;
}

gc_rc gc_shape_clear(const char *dev, const char *netns, gc_err *e)
{
	struct gc_netem_state st;
	struct nlctx c;
	char path[PATH_MAX];
	gc_rc rc;

	if (!gc_shape_valid_dev(dev) || (netns && !gc_shape_valid_netns(netns)))
		return ctx_open(&c, dev, netns, e);   /* for its message */
	if ((rc = gc_state_path(dev, netns, path, sizeof(path), e)))
		return rc;
	rc = gc_state_read(path, &st, e);
	if (rc == GC_E_NOTFOUND)
		return GC_OK;             /* never touched: nothing to restore */
	if (rc)
		return rc;
	rc = ctx_open(&c, dev, netns, e);
	if (rc == GC_E_NOTFOUND) {       /* namespace or link gone: so is its qdisc */
		unlink(path);
		return GC_OK;
	}
	if (rc)
		return rc;
	rc = restore(&c, path, e);
	ctx_close(&c);
	return rc;
}

static int is_state_file(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && !strcmp(name + n - 6, ".state") && name[0] != '.';
}

gc_rc gc_shape_restore_all(int all, int *n_restored, gc_err *e)
{
	const char *dir = gc_shape_state_dir();
	struct gc_netem_state st;
	char path[PATH_MAX], self[32];
	struct dirent *d;
	gc_rc rc, first = GC_OK;
	DIR *dp = opendir(dir);
	int n = 0;

	if (n_restored)
		*n_restored = 0;
	if (!dp)
		return errno == ENOENT ? GC_OK : gc_fail(e, GC_E_IO, "cannot read state directory "
			"'%s': %s", dir, strerror(errno));
	gc_state_self_ns(self, sizeof(self));
	while ((d = readdir(dp))) {
		if (!is_state_file(d->d_name))
			continue;
		/* a link of another namespace's own: restored from inside that namespace */
		if (d->d_name[0] == '@' && (strncmp(d->d_name, self, strlen(self)) ||
					    d->d_name[strlen(self)] != '_'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		rc = gc_state_read(path, &st, first ? NULL : e);
		if (!rc && (all || !gc_state_owner_alive(&st)))
			rc = gc_shape_clear(st.dev, st.netns[0] ? st.netns : NULL, first ? NULL : e);
		else if (!rc)
			continue;
		if (rc && !first)
			first = rc;
		n += !rc;
	}
	closedir(dp);
	if (n_restored)
		*n_restored = n;
	return first;
}

const char *gc_netem_libnl_version(void)
{
	static char v[32];

	if (!v[0])
		snprintf(v, sizeof(v), "%d.%d.%d", nl_ver_maj, nl_ver_min, nl_ver_mic);
	return v;
}

/* ---- in-place rate changes (tc's 'change'): the queue and its counters survive ---- */

struct gc_shape_link {
	struct nlctx c;
	enum gc_qdisc_kind kind;   /* what gcbench installed at the root */
};

gc_rc gc_shape_link_open(const char *dev, const char *netns, struct gc_shape_link **out,
			 gc_err *e)
{
	struct gc_shape_link *l = calloc(1, sizeof(*l));
	struct gc_shape_info o;
	char path[PATH_MAX], w[96];
	gc_rc rc;

	*out = NULL;
	if (!l)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	if ((rc = ctx_open(&l->c, dev, netns, e))) {
		free(l);
		return rc;
	}
	rc = gc_state_path(dev, netns, path, sizeof(path), e);
	if (!rc && access(path, F_OK))
		rc = gc_fail(e, GC_E_STATE, "'%s'%s has no cap set by gcbench to change; set one "
			     "first ('gcbench-netem set --dev %s --rate RATE')", dev,
			     where(&l->c, w, sizeof(w)), dev);
	if (!rc)
		rc = read_info(&l->c, &o, e);
	if (!rc && strcmp(o.kind, "tbf") && strcmp(o.kind, "htb"))
		rc = gc_fail(e, GC_E_STATE, "'%s'%s holds a '%s' root qdisc, not a rate cap; set "
			     "one with 'gcbench-netem set --dev %s --rate RATE'", dev,
			     where(&l->c, w, sizeof(w)), o.kind, dev);
	if (rc) {
		gc_shape_link_close(l);
		return rc;
	}
	l->kind = !strcmp(o.kind, "tbf") ? GC_QDISC_TBF : GC_QDISC_HTB;
	*out = l;
	return GC_OK;
}

void gc_shape_link_close(struct gc_shape_link *l)
{
	if (!l)
		return;
	ctx_close(&l->c);
	free(l);
}

/* RTM_NEWQDISC without NLM_F_CREATE/EXCL: tbf_change keeps its child queue. */
static int change_tbf(struct nlctx *c, const struct gc_qdisc_plan *p)
{
	struct rtnl_qdisc *q = tbf_new(c->ifindex, p);
	int err;

	if (!q)
		return -NLE_NOMEM;
	err = rtnl_qdisc_update(c->sk, q, q, 0);
	rtnl_qdisc_put(q);
	return err;
}

/* RTM_NEWTCLASS on the existing class 1:1: htb_change_class changes it in place. */
static int change_htb(struct nlctx *c, const struct gc_qdisc_plan *p)
{
	struct gc_shape_objs o;
	struct gc_qdisc_plan hp = *p;
	int err;

	hp.kind = GC_QDISC_HTB;
	memset(&o, 0, sizeof(o));
	err = htb_new(c->ifindex, &hp, 1, &o);
	if (!err)
		err = rtnl_class_add(c->sk, o.cls, 0);
	gc_shape_objs_release(&o);
	return err;
}

gc_rc gc_shape_link_rate(struct gc_shape_link *l, uint64_t rate_bps, gc_err *e)
{
	struct gc_qdisc_plan p;
	char w[96];
	gc_rc rc = gc_qdisc_plan_make(rate_bps, 0, &p, e);
	int err;

	if (rc)
		return rc;
	if (l->kind == GC_QDISC_TBF && p.kind != GC_QDISC_TBF)
		return gc_fail(e, GC_E_INVAL, "cannot change the tbf cap on '%s'%s to %llu bit/s: "
			       "a tbf holds at most 34.36 Gbit/s; set the cap at the highest rate "
			       "first (above 34.36 Gbit/s it is an htb class, which holds any rate)",
			       l->c.dev, where(&l->c, w, sizeof(w)), (unsigned long long)rate_bps);
	err = l->kind == GC_QDISC_TBF ? change_tbf(&l->c, &p) : change_htb(&l->c, &p);
	return err < 0 ? nl_fail(&l->c, e, err, "change the rate") : GC_OK;
}

gc_rc gc_shape_link_read(struct gc_shape_link *l, struct gc_shape_info *out, gc_err *e)
{
	return read_info(&l->c, out, e);
}

gc_rc gc_shape_change_rate(const char *dev, const char *netns, uint64_t rate_bps, gc_err *e)
{
	struct gc_shape_link *l;
	struct gc_shape_info o;
	struct gc_qdisc_plan p;
	char w[96];
	gc_rc rc = gc_qdisc_plan_make(rate_bps, 0, &p, e);

	if (rc || (rc = gc_shape_link_open(dev, netns, &l, e)))
		return rc;
	rc = gc_shape_link_rate(l, rate_bps, e);
	if (!rc)
		rc = read_info(&l->c, &o, e);
	if (!rc && o.rate_bps != p.rate_bytes * 8)
		rc = gc_fail(e, GC_E_MISMATCH, "the kernel holds rate %llu bit/s on '%s'%s, not "
			     "the %llu bit/s asked for", (unsigned long long)o.rate_bps, dev,
			     where(&l->c, w, sizeof(w)), (unsigned long long)p.rate_bytes * 8);
	gc_shape_link_close(l);
	return rc;
}
