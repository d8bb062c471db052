/* netem/cluster.h: the local emulated cluster (gcbench cluster up|down|status).
 *
 * A cluster NAME ([a-z0-9-]{1,12}) of N nodes (1..64) on this machine:
 *   subnet    10.213.K.0/24, K in 1..250: gc_cluster_subnet(NAME) (a hash of the
 *             name) when free, else the next free one (a subnet is taken when its
 *             bridge exists); up says which it took; cluster.conf records it
 *   bridge    gcK-br on the host, address 10.213.K.1/24 (nothing outside the subnet;
 *             net.ipv4.ip_forward is left untouched)
 *   node i    namespace gcb-NAME-n<i>; veth gcK-v<i> (host, in the bridge) <-> eth0
 *             (inside), address 10.213.K.(10+i); lo up; tcp_congestion_control reno;
 *             its own UTS namespace with hostname n<i>; an sshd listening only on
 *             the node's address, port 22, in a mount namespace of its own: a private
 *             /tmp, /root, /home, /var/lib/gcbench, /run/gcbench, /etc/sudoers.d (in
 *             $GCBENCH_HOME/nodes/NAME/n<i> on this machine), the cluster directory
 *             read-only, and the top directory of this program's source tree covered
 *             by an empty tmpfs: it behaves like a separate host
 *   directory $GCBENCH_HOME/clusters/NAME (gc_home(), common/home.h: /var/lib/gcbench for root):
 *             cluster.conf, host_key(.pub), id_ed25519(.pub), authorized_keys,
 *             known_hosts, ssh_config, inventory.yaml, n<i>.sshd_config, n<i>.pid,
 *             n<i>.log; with SLURM also slurm.conf, slurm.env, munge*, slurmctld*,
 *             slurmd/ (netem/cluster_slurm.c). ControlMaster sockets live in
 *             GC_CLUSTER_CM_DIR (a socket path must stay under 108 bytes). The user's ~/.ssh is never touched.
 * All of it needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): GC_E_PERM otherwise.
 */
#ifndef GC_NETEM_CLUSTER_H
#define GC_NETEM_CLUSTER_H

#include <limits.h>
#include <sys/types.h>

#include "result.h"

#define GC_CLUSTER_MAX_NODES 64
/* ssh ControlMaster sockets of every cluster (%C hashes host, port and user) */
#define GC_CLUSTER_CM_DIR "/run/gcbench/ssh"

struct gc_node_status {
	char name[8];          /* n1 */
	char netns[32];        /* gcb-NAME-n1 */
	char address[16];
	int netns_exists;
	pid_t sshd_pid;        /* 0 when no live sshd */
	pid_t slurmd_pid;      /* 0 when no live slurmd (or no SLURM) */
	int reachable;         /* port 22 accepts a TCP connection */
};

struct gc_cluster_status {
	char name[16];
	char dir[PATH_MAX];
	int subnet;            /* K */
	int nodes;             /* from cluster.conf (0 when absent) */
	int bridge_exists;
	int slurm;             /* cluster.conf says SLURM */
	int racks;             /* cluster.conf's racks (0: one bridge) */
	pid_t slurmctld_pid, munged_pid;   /* 0 when not running */
	struct gc_node_status node[GC_CLUSTER_MAX_NODES];
	int healthy;           /* everything exists, every sshd alive and reachable (and,
	                        * with SLURM, munged, slurmctld and every slurmd alive) */
};

/* 1 when name matches [a-z0-9-]{1,12}. */
int gc_cluster_valid_name(const char *name);

/* K for a name: 1 + FNV-1a(name) % 250. */
int gc_cluster_subnet(const char *name);

/* $GCBENCH_HOME/clusters/NAME into buf. */
gc_rc gc_cluster_dir(const char *name, char *buf, size_t n, gc_err *e);

/* Build the cluster and wait until every sshd accepts connections. On an existing
 * healthy cluster of the same size: nothing is changed, *was_up = 1. On a half-built
 * one (or another size): it is taken down and rebuilt. On failure, what was built is
 * removed. was_up may be NULL. */
gc_rc gc_cluster_up(const char *name, int nodes, int *was_up, gc_err *e);

/* Options of a cluster beyond its size. */
struct gc_cluster_opts {
	/* an unprivileged login on every node (NULL: none): [a-z][a-z0-9-]{0,15}, uid
	 * GC_CLUSTER_USER_UID, in each node's own passwd, group and shadow, home
	 * /home/USER, the cluster's key */
	const char *user;
	/* 1: the nodes share this machine's file system (no mount view of their own),
	 * like hosts with one NFS tree; for tools that expect a checkout everywhere */
	int shared_fs;
	/* 1: also SLURM (munged, slurmctld on 10.213.K.1, one slurmd per node), every file
	 * in the cluster directory; clients use SLURM_CONF=DIR/slurm.conf (also in
	 * DIR/slurm.env); up returns when sinfo shows every node idle */
	int slurm;
	/* R >= 2: the nodes in R racks of N/R consecutive nodes (R divides N, at most 16):
	 * each rack's nodes on a bridge gcK-r<j> of its own, joined to the core bridge gcK-br
	 * (which keeps 10.213.K.1) by the rack's uplink, a veth pair gcK-u<j> (in the rack's
	 * bridge: its egress is the rack's outbound traffic) <-> gcK-c<j> (in the core: the
	 * rack's inbound traffic), both on this machine, where `gcbench run` caps them; the
	 * inventory carries racks: and uplink_ifaces: (docs/netem.md, "Racks"). 0 or 1: one
	 * bridge, as before */
	int racks;
};
#define GC_CLUSTER_MAX_RACKS 16
#define GC_CLUSTER_USER_UID 64123
/* slurmctld of the cluster on subnet K listens on PORT0 + 2K, the slurmds on PORT0 + 2K + 1 */
#define GC_CLUSTER_SLURM_PORT0 16800

/* 1 when a program SLURM needs is not installed, its path into what; else 0. */
int gc_cluster_slurm_missing(char *what, size_t n);

/* The ports of the SLURM of subnet k (1..250); -1 for another k. */
int gc_cluster_slurm_ports(int k, int *ctld, int *slurmd);

/* gc_cluster_up with options (o may be NULL); a healthy cluster with other options is
 * rebuilt. */
gc_rc gc_cluster_up_opts(const char *name, int nodes, const struct gc_cluster_opts *o,
			 int *was_up, gc_err *e);

/* Remove every namespace, link, bridge, process and file of the cluster; works on a
 * half-built one and succeeds when nothing is left to remove. */
gc_rc gc_cluster_down(const char *name, gc_err *e);

/* Fill *st with what exists (no changes). */
gc_rc gc_cluster_status(const char *name, struct gc_cluster_status *st, gc_err *e);

#endif
