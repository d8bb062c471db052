/* netem/link.c: bridges, veth pairs, master/up, addresses through libnl-route. */
#include "link.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if.h>
#include <netlink/addr.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/bridge.h>
#include <netlink/route/link/veth.h>

#include "netns.h"
#include "u32.h"
#include "strutil.h"

/* " in namespace 'X'" or "" */
static const char *where(const struct gc_links *l, char *buf, size_t n)
{
	if (l->netns[0])
		snprintf(buf, n, " in namespace '%s'", l->netns);
	else
		buf[0] = 0;
	return buf;
}

/* "cannot <what>[ in namespace 'X']: <libnl's text>", with the code for libnl's err. */
__attribute__((format(printf, 4, 5)))
static gc_rc link_fail(const struct gc_links *l, gc_err *e, int err, const char *fmt, ...)
{
	char what[256], w[96];
	va_list ap;
	gc_rc rc;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (err < 0)
		err = -err;
	if (err == NLE_PERM)
		return gc_fail(e, GC_E_PERM, "cannot %s%s: operation not permitted (need "
			       "CAP_NET_ADMIN: run as root)", what, where(l, w, sizeof(w)));
	rc = err == NLE_EXIST ? GC_E_BUSY : err == NLE_NOMEM ? GC_E_NOMEM
	   : err == NLE_OBJ_NOTFOUND || err == NLE_NODEV ? GC_E_NOTFOUND : GC_E_NETLINK;
	return gc_fail(e, rc, "cannot %s%s: %s", what, where(l, w, sizeof(w)), nl_geterror(err));
}

void gc_links_release(struct gc_links *l)
{
	if (!l)
		return;
	if (l->sk)
		nl_socket_free(l->sk);
	l->sk = NULL;
}

gc_rc gc_links_open(struct gc_links *l, const char *netns, gc_err *e)
{
	char w[96];
	int saved, err;
	gc_rc rc;

	memset(l, 0, sizeof(*l));
	if (netns)
		gc_strlcpy(l->netns, netns, sizeof(l->netns));
	if ((rc = gc_netns_enter(netns, &saved, e)))
		return rc;
	l->sk = nl_socket_alloc();
	err = l->sk ? nl_connect(l->sk, NETLINK_ROUTE) : -NLE_NOMEM;
	gc_netns_leave(saved);   /* the socket stays in the namespace */
	if (err >= 0)
		return GC_OK;
	gc_links_release(l);
	return gc_fail(e, GC_E_NETLINK, "cannot open a netlink socket%s: %s",
		       where(l, w, sizeof(w)), nl_geterror(err));
}

/* Create bridge name (add) or delete link name: the libnl error, or 0. */
static int bridge_add_or_delete(struct gc_links *l, const char *name, int add)
{
	struct rtnl_link *k = add ? rtnl_link_bridge_alloc() : rtnl_link_alloc();
	int err;

	if (!k)
		return -NLE_NOMEM;
	rtnl_link_set_name(k, name);
	/* EXCL: an existing bridge is someone else's, never taken over */
	err = add ? rtnl_link_add(l->sk, k, NLM_F_CREATE | NLM_F_EXCL) : rtnl_link_delete(l->sk, k);
	rtnl_link_put(k);
	return err;
}

gc_rc gc_links_add_bridge(struct gc_links *l, const char *name, gc_err *e)
{
	int err = bridge_add_or_delete(l, name, 1);

	return err < 0 ? link_fail(l, e, err, "create bridge '%s'", name) : GC_OK;
}

/* Open namespace name for IFLA_NET_NS_FD into *fd. */
static gc_rc netns_fd(const char *name, int *fd, gc_err *e)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", GC_NETNS_DIR, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open network "
			       "namespace '%s' (%s): %s", name, path, strerror(errno));
	return GC_OK;
}

gc_rc gc_links_add_veth(struct gc_links *l, const char *name, const char *peer,
			const char *peer_netns, gc_err *e)
{
	struct rtnl_link *k = NULL, *p;
	int fd = -1, err;
	gc_rc rc;

	if (peer_netns && (rc = netns_fd(peer_netns, &fd, e)))
		return rc;
	k = rtnl_link_veth_alloc();
	if (!k) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
		goto out;
	}
	p = rtnl_link_veth_get_peer(k);
	rtnl_link_set_name(k, name);
	rtnl_link_set_name(p, peer);
	if (fd >= 0)
		rtnl_link_set_ns_fd(p, fd);   /* the peer is born in its namespace */
	err = rtnl_link_add(l->sk, k, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(p);
	rc = err < 0 ? link_fail(l, e, err, "create veth pair '%s' <-> '%s'%s%s%s", name, peer,
				 peer_netns ? " (in namespace '" : "", peer_netns ? peer_netns : "",
				 peer_netns ? "')" : "")
		     : GC_OK;
out:
	if (k)
		rtnl_link_put(k);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The kernel's view of dev (caller puts it). */
static gc_rc get_link(struct gc_links *l, const char *dev, struct rtnl_link **out, gc_err *e)
{
	int err = rtnl_link_get_kernel(l->sk, 0, dev, out);

	if (err < 0)
		return link_fail(l, e, err, "find link '%s' (list them with 'ip link')", dev);
	return GC_OK;
}

gc_rc gc_links_set_up(struct gc_links *l, const char *dev, const char *master, gc_err *e)
{
	struct rtnl_link *cur = NULL, *m = NULL, *chg = NULL;
	int err;
	gc_rc rc;

	if ((rc = get_link(l, dev, &cur, e)) || (master && (rc = get_link(l, master, &m, e))))
		goto out;
	chg = rtnl_link_alloc();
	if (!chg) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
		goto out;
	}
	if (m)
		rtnl_link_set_master(chg, rtnl_link_get_ifindex(m));
	rtnl_link_set_flags(chg, IFF_UP);
	err = rtnl_link_change(l->sk, cur, chg, 0);
	if (err < 0)
		rc = master ? link_fail(l, e, err, "put '%s' into bridge '%s' and up", dev, master)
			    : link_fail(l, e, err, "bring '%s' up", dev);
out:
	if (chg)
		rtnl_link_put(chg);
	if (m)
		rtnl_link_put(m);
	if (cur)
		rtnl_link_put(cur);
	return rc;
}

gc_rc gc_links_add_addr(struct gc_links *l, const char *dev, const char *cidr, gc_err *e)
{
	struct nl_addr *local = NULL;
	struct rtnl_link *k = NULL;
	struct rtnl_addr *a = NULL;
	int err;
	gc_rc rc;

	if ((err = nl_addr_parse(cidr, AF_INET, &local)) < 0)
		return gc_fail(e, GC_E_INVAL, "invalid IPv4 address '%s': %s", cidr, nl_geterror(err));
	if ((rc = get_link(l, dev, &k, e)))
		goto out;
	a = rtnl_addr_alloc();
	if (!a) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
		goto out;
	}
	rtnl_addr_set_ifindex(a, rtnl_link_get_ifindex(k));
	if ((err = rtnl_addr_set_local(a, local)) >= 0)
		err = rtnl_addr_add(l->sk, a, NLM_F_EXCL);
	if (err < 0)
		rc = link_fail(l, e, err, "add address %s to '%s'", cidr, dev);
out:
	if (a)
		rtnl_addr_put(a);
	if (k)
		rtnl_link_put(k);
	nl_addr_put(local);
	return rc;
}

gc_rc gc_links_ifindex(struct gc_links *l, const char *dev, int *ifindex, gc_err *e)
{
	struct rtnl_link *link = NULL;
	int err = rtnl_link_get_kernel(l->sk, 0, dev, &link);

	if (err < 0)
		return gc_nl_fail(e, err, "finding the interface", dev);
	*ifindex = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return GC_OK;
}

gc_rc gc_links_delete(struct gc_links *l, const char *dev, gc_err *e)
{
	int err = bridge_add_or_delete(l, dev, 0);

	return err < 0 ? link_fail(l, e, err, "delete link '%s'", dev) : GC_OK;
}
