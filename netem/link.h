/* netem/link.h: links through libnl-route, what `ip link` and `ip addr` do for the
 * local cluster: bridges, veth pairs (one end in another namespace), master and up,
 * IPv4 addresses, deletion.
 *
 * A struct gc_links is one rtnetlink socket opened inside a network namespace (or the
 * caller's own): every call on it acts in that namespace, whatever namespace the
 * calling thread is in afterwards. Needs CAP_NET_ADMIN (and CAP_SYS_ADMIN to open one
 * in a namespace). Errors name the link, the namespace and libnl's text: GC_E_PERM
 * (no privilege), GC_E_NOTFOUND (no such link or namespace), GC_E_BUSY (a link of that
 * name exists already), GC_E_INVAL (bad name or address), GC_E_NETLINK otherwise.
 */
#ifndef GC_NETEM_LINK_H
#define GC_NETEM_LINK_H

#include "result.h"

struct nl_sock;

struct gc_links {
	struct nl_sock *sk;
	char netns[65];        /* "" for the caller's own namespace */
};

/* Open a socket in namespace netns (NULL: the caller's). On failure *l is released. */
gc_rc gc_links_open(struct gc_links *l, const char *netns, gc_err *e);

/* Close the socket; accepts a zeroed or released struct. */
void gc_links_release(struct gc_links *l);

/* Create bridge name (down, no address); GC_E_BUSY when a link of that name exists. */
gc_rc gc_links_add_bridge(struct gc_links *l, const char *name, gc_err *e);

/* Create a veth pair: name here, its peer named peer in namespace peer_netns (NULL:
 * here too), both down. GC_E_BUSY when either name is taken. */
gc_rc gc_links_add_veth(struct gc_links *l, const char *name, const char *peer,
			const char *peer_netns, gc_err *e);

/* Put dev into bridge master (NULL: leave its master as it is) and bring it up. */
gc_rc gc_links_set_up(struct gc_links *l, const char *dev, const char *master, gc_err *e);

/* Add IPv4 address cidr ("10.213.5.1/24") to dev. */
gc_rc gc_links_add_addr(struct gc_links *l, const char *dev, const char *cidr, gc_err *e);

/* The open socket's namespace's index of dev into *ifindex (GC_E_NETLINK, GC_E_PERM
 * without the right, naming dev, when the kernel has no such link). */
gc_rc gc_links_ifindex(struct gc_links *l, const char *dev, int *ifindex, gc_err *e);

/* Delete dev (a veth takes its peer along). GC_E_NOTFOUND when it does not exist. */
gc_rc gc_links_delete(struct gc_links *l, const char *dev, gc_err *e);

#endif
