/* netem/netns.h: enter a named network namespace (/var/run/netns/NAME) and return.
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

#endif
