/* netem/protocol.h: the version of gcbench-netem's command-line protocol.
 *
 * `gcbench-netem version --json` prints {"version":..,"protocol":N,"operations":[..]}
 * (the networks issue defines the operations of later protocols). A controller uses a
 * helper installed
 * by the package (/usr/lib/gcbench/gcbench-netem, docs/netem.md "The package") only
 * when that N equals its own GC_NETEM_PROTOCOL; otherwise it falls back to the copy
 * it provisioned (sudo by digest, or the file capability). Raise N only when a command
 * or option the orchestrator sends changes meaning or is added; a new build of the
 * same N must accept every command line an older one did.
 */
#ifndef GC_NETEM_PROTOCOL_H
#define GC_NETEM_PROTOCOL_H

#define GC_NETEM_PROTOCOL 1

/* Where the package installs the helper (root:gcbench 0750, cap_net_admin+ep). */
#define GC_NETEM_INSTALLED_PATH "/usr/lib/gcbench/gcbench-netem"

#endif
