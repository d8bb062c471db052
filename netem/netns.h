/* netem/netns.h: named network namespaces (/var/run/netns/NAME): make, delete, enter
 * and return. They are the ones iproute2 makes: `ip netns list|exec|del` see them.
 *
 * gc_netns_enter() saves the caller's namespace in *saved (an fd, -1 when name is NULL
 * and nothing was changed) and switches the calling thread into NAME with setns().
 * gc_netns_leave() switches back and closes the fd; it accepts -1. Sockets opened
 * inside keep working in NAME after leaving. Errors: GC_E_INVAL (bad name),
 * GC_E_NOTFOUND (no such namespace), GC_E_PERM (needs CAP_SYS_ADMIN), GC_E_IO.
 */
#ifndef GC_NETEM_NETNS_H
#define GC_NETEM_NETNS_H

#include "result.h"

#define GC_NETNS_DIR "/var/run/netns"

gc_rc gc_netns_enter(const char *name, int *saved, gc_err *e);
void gc_netns_leave(int saved);

/* 1 when /var/run/netns/NAME exists. */
int gc_netns_exists(const char *name);

/* Make namespace NAME the way `ip netns add` does: /var/run/netns becomes a shared
 * mount point (once), the file NAME is created, and a new network namespace (made by
 * a short-lived thread: the caller's stays as it is) is bind-mounted onto it. Its lo
 * is down. GC_E_BUSY when NAME exists, GC_E_INVAL for a bad name, GC_E_PERM without
 * CAP_SYS_ADMIN, GC_E_IO otherwise; on failure nothing is left. */
gc_rc gc_netns_add(const char *name, gc_err *e);

/* Delete namespace NAME like `ip netns del`: detach its mount and remove the file.
 * The namespace itself ends with its last process. GC_OK when NAME does not exist. */
gc_rc gc_netns_del(const char *name, gc_err *e);

#endif
