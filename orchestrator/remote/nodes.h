/* orchestrator/remote/nodes.h: what `gcbench run` does on each node, over SSH.
 *
 * A node is a host of the inventory as the orchestrator uses it. Every operation is a
 * remote command through orchestrator/remote/ssh.h with a deadline; the local emulated
 * cluster's nodes are reached exactly like real hosts. The gcbench binaries live in
 * bin_dir on every node (for the local cluster: this build's bin directory, which
 * the namespaces share with the host).
 */
#ifndef GC_NODES_H
#define GC_NODES_H

#include <stdint.h>

#include "formats/envinfo.h"
#include "orchestrator/spec/envvars.h"
#include "backend.h"
#include "ssh.h"
#include "result.h"

typedef struct gc_node {
	char name[64];            /* inventory name: n1 */
	char address[256];        /* with ssh_config: the HostName, unless equal to name */
	char user[64];            /* "" = ssh's default */
	int port;                 /* 0 = ssh's default (the ssh_config's Port, or 22) */
	char identity[1024];      /* "" = none */
	char ssh_config[1024];    /* "" = none */
	char iface[32];           /* data interface to shape */
	char netns[64];           /* "" unless a local-cluster node */
	int gpus;
	int sudo;                 /* 1: gcbench-netem runs as `sudo -n -- gcbench-netem ...` */
	char python[256];         /* the inventory's python: for its ranks ("" none) */
	char env[GC_ENV_MAX][GC_ENV_LEN]; size_t n_env;  /* its env:, "NAME=VALUE" */
	char bin_dir[1024];       /* where gcbench, gcbench-worker, gcbench-netem, gcbench-probe are */
	char netem_path[64];      /* set by gc_node_check: the helper the package installed
	                           * (GC_NETEM_INSTALLED_PATH) when a login that is not root
	                           * may run it and its protocol is this build's; "" = the
	                           * copy in bin_dir */
	int netem_sudo;           /* with netem_path: through `sudo -n` (no setcap there) */
	char control_dir[1024];   /* ControlMaster sockets ("" = no multiplexing) */
	int connect_timeout;      /* ssh's ConnectTimeout in s; 0 = 10 (inventory's) */
	char tcp_cc[32];          /* filled by gc_node_check */
	int launcher;             /* enum gc_launcher (backend.h): ssh (0) or slurm steps */
	int rack;                 /* the inventory's racks: its rack (1-based), 0 = none */
	uint32_t data_ip;         /* its data interface's IPv4 address, host order (set by
	                           * gc_run_data_subnet; 0 = not known) */
	int down;                 /* set when a command found the node unreachable or hung:
	                           * later commands fail at once (cleared per point) */
} gc_node;

/* The ssh target for a node (pointers into n). Without an ssh_config, ssh connects to
 * the address and port. With one, ssh is given the node's name, so that the config's
 * Host block applies (user, jump host, known hosts), and the inventory's address and
 * port still win: an address other than the name becomes `-o HostName=`, a port `-p`. */
void gc_node_target(const gc_node *n, gc_ssh_target *t);

/* How the node is reached, for the dry run, into buf: "ssh root@10.0.0.1:22",
 * "ssh 10.0.0.1:22 (Host n1 of /lab/ssh_config)", "ssh n1 (HostName and Port from
 * /lab/ssh_config)", "srun step, shapes eth0"; what the config leaves unset is
 * said so. */
void gc_node_describe(const gc_node *n, char *buf, size_t len);

/* The local command line that runs argv on the node through its back end (ssh with
 * the quoted argv, or a one-task srun step: orchestrator/remote/backend.h); owned,
 * free with gc_argv_free. GC_E_INVAL names an unsafe value. */
gc_rc gc_node_argv(const gc_node *n, char *const argv[], char ***out, gc_err *e);

/* Run argv on the node; on any failure e says which node, what command, how it ended
 * and the tail of its stderr. res is released by the caller; the remote status must be
 * 0 for GC_OK. When the node is unreachable or the command hangs, n->down is set and
 * every later call fails at once with GC_E_COMM until it is cleared. */
gc_rc gc_node_exec(gc_node *n, char *const argv[], double timeout_s,
		   gc_proc_result *res, gc_err *e);

/* Provisioning check: ssh works, the binaries are in bin_dir and run, and the remote
 * user may shape, as `gcbench-netem check` on the node says: as root, with
 * CAP_NET_ADMIN (also the cap_net_admin file capability of gcbench-netem), or with
 * n->sudo through `sudo -n`. A login that is not root uses the helper the package
 * installed (netem/protocol.h) when the node's helper speaks this build's protocol
 * and lets it shape (the group gcbench), whatever n->sudo says; else the copy in
 * bin_dir as above. Changes nothing on the node. GC_E_PERM when it may not,
 * with what to do in e: when sudo would ask for a password or refuses, the sudoers
 * line to add (user, the binary's sha256 digest and path); when sudo is missing, the
 * package; when the package is there but the login is not in its group, the usermod
 * line. Fills n->tcp_cc, n->netem_path and n->netem_sudo. */
gc_rc gc_node_check(gc_node *n, gc_err *e);

/* Cap egress of n->iface at rate_bps (bits/s, layer 2; 0 = no cap) and delay it by
 * delay_us (a netem qdisc chained under the cap, docs/netem.md; 0 = no netem: then
 * exactly the rate-only command). Both 0 removes any shaping. *applied_us (may be NULL)
 * gets the delay the node's kernel holds, read back by gcbench-netem; GC_E_MISMATCH
 * when it is not the delay asked (within 1 us). A node without netem fails with
 * gcbench-netem's message naming sch_netem (and nothing is left on its link). */
gc_rc gc_node_shape(gc_node *n, uint64_t rate_bps, uint32_t delay_us, uint32_t *applied_us,
		    gc_err *e);

/* Whether the node's kernel has the netem qdisc (`gcbench-netem check --netem` there,
 * through sudo as for shaping; changes nothing). GC_E_UNSUPPORTED with a message that
 * names the node, its address and sch_netem when not; another code when the node
 * cannot tell (unreachable, not permitted). */
gc_rc gc_node_check_netem(gc_node *n, gc_err *e);
/* Restore the interface (idempotent). */
gc_rc gc_node_unshape(gc_node *n, gc_err *e);

/* Racks on real hosts (netem/classes.h, `gcbench-netem classes`): the node's egress
 * capped at rate_bps, and its traffic to dests (comma-separated IPv4 addresses or
 * prefixes: the other racks' hosts) in a class of its own at class_bps, the host's fair
 * share of its rack's uplink. Restored like a cap (gc_node_unshape). Fails as
 * gc_node_shape. */
gc_rc gc_node_classes(gc_node *n, uint64_t rate_bps, const char *dests, uint64_t class_bps,
		      gc_err *e);
/* Background flows under a fair queue (netem/shares.h, `gcbench-netem shares`): the
 * node's egress capped at rate_bps by an htb with two classes, each guaranteed its rate
 * and borrowing up to the cap what the other leaves: the default one (the ranks and
 * anything else) at rate_bps - bg_bps, and one at bg_bps for TCP traffic whose source or
 * destination port is in port_lo..port_hi (the background flows' data and ACKs).
 * Restored like a cap (gc_node_unshape). Fails as gc_node_shape; GC_E_INVAL when
 * bg_bps is not below rate_bps or the ports are not a range. */
gc_rc gc_node_shares(gc_node *n, uint64_t rate_bps, uint16_t port_lo, uint16_t port_hi,
		     uint64_t bg_bps, gc_err *e);
/* Restore every link a crashed gcbench left capped on the node. */
gc_rc gc_node_restore_all(gc_node *n, gc_err *e);

/* This node's environment: `gcbench env --json` run there, read with
 * gc_envinfo_parse_json; tag (may be NULL) is stored with it. GC_E_FORMAT when the
 * node's output is not an environment (e names the node). */
gc_rc gc_node_env(gc_node *n, const char *tag, struct gc_envinfo *out, gc_err *e);

/* Measure goodput (bits/s) from a to b with gcbench-probe for `seconds`, and the RTT. */
gc_rc gc_node_probe(gc_node *a, gc_node *b, double seconds, double *goodput_bps,
		    double *rtt_s, gc_err *e);

#endif
