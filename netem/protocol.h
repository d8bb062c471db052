/* netem/protocol.h: the privileged helper's protocol, what a gcbench on the controller
 * may ask of gcbench-netem on a host (docs/netem.md, "Helper protocol").
 *
 * The protocol number changes only when an operation changes in a way an older
 * caller would misread (an option's meaning, an output field removed). A new
 * operation or a new option does not change it: it joins the helper's table of operations (netem/main.c), and a
 * caller asks 'gcbench-netem version --json' ({"protocol":2,"operations":[...],...})
 * whether the installed helper has what it needs before it touches anything.
 *
 * Protocol 2 (protocol 1: set, show, clear, restore-all, check, without 'version'):
 *   set, show, clear, restore-all, check   as in protocol 1
 *   change   --dev --rate              a cap's rate in place (tc's change)
 *   play     --dev --trace --duration [--start] [--owner]   the trace player
 *   classes  --dev --rate RATE --class DEST[,DEST...]=RATE [--owner]   per-destination
 *            htb classes (racks on real hosts, an approximation of a shared uplink;
 *            netem/classes.h)
 *   shares   --dev --rate CAP --leaf SPEC [--leaf SPEC ...] [--owner] [--json]   fair
 *            htb leaves under one cap, each guaranteed its rate, borrowing up to the
 *            cap (SPEC: default=RATE, src:ADDR[,ADDR..]=RATE, dst:...=RATE,
 *            port:LO[-HI]=RATE; netem/shares.h): a rack's emulated uplink shared
 *            fairly among its hosts, a host's ranks against background flows
 *   version  [--json]                  this list
 * Reserved in protocol 2, designed (docs/netem.md) and not yet in this build; a caller
 * finds them in "operations" once a build has them:
 *   flows    start|stop|show --to ADDR --flows N --owner PID   background bulk TCP
 *            flows, owned like a cap (stopped by restore-all once the owner is gone)
 */
#ifndef GC_NETEM_PROTOCOL_H
#define GC_NETEM_PROTOCOL_H

#define GC_NETEM_PROTOCOL 2

/* Where the package installs the helper (root:gcbench 0750, cap_net_admin+ep); a
 * controller uses it when its protocol equals GC_NETEM_PROTOCOL (docs/netem.md, "The
 * package"), else the copy it provisioned. */
#define GC_NETEM_INSTALLED_PATH "/usr/lib/gcbench/gcbench-netem"

#endif
