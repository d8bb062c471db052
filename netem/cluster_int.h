/* netem/cluster_int.h: shared by cluster.c, cluster_view.c, cluster_sshd.c and cluster_slurm.c
 * (not an API). */
#ifndef GC_CLUSTER_INT_H
#define GC_CLUSTER_INT_H

#include <sys/types.h>

#include "cluster.h"

struct cl {
	const char *name;
	const char *user;   /* an extra unprivileged login on every node, or NULL */
	int shared_fs;      /* the nodes see this machine's file system */
	int slurm;          /* munged, slurmctld and one slurmd per node (cluster_slurm.c) */
	int racks;          /* >= 2: racks of n/racks nodes, each on its own bridge (cluster.h) */
	int k, n;
	int k_known;     /* k was read from cluster.conf (else: the name's hash, unclaimed) */
	char dir[128];
};

/* ---- cluster.c: names and paths ---- */

/* Node i's network namespace, gcb-NAME-n<i>. */
void cl_node_netns(const struct cl *c, int i, char *buf, size_t n);
/* Node i's rack (1-based) with c->racks >= 2, else 0. */
int cl_node_rack(const struct cl *c, int i);
/* Rack j's uplink ends: gcK-u<j> (in the rack's bridge) and gcK-c<j> (in the core). */
void cl_uplink_names(const struct cl *c, int j, char *out, char *in, size_t n);
/* Node i's address, 10.213.K.(10+i). */
void cl_node_addr(const struct cl *c, int i, char *buf, size_t n);
/* DIR/file: a file in the cluster directory. */
void cl_path_of(const struct cl *c, const char *file, char *buf, size_t n);
/* $GCBENCH_HOME/nodes/NAME, the nodes' trees (beside clusters/NAME). */
void cl_nodes_dir(const struct cl *c, char *buf, size_t n);
/* Write text to path (created or truncated); GC_E_IO naming path on failure. */
gc_rc cl_write_file(const char *path, const char *text, gc_err *e);
/* The number on the first line of DIR/file (a pid file), as written; 0 when the file
 * is missing or holds none. Whether that process still runs is the caller's to check. */
pid_t cl_read_pid(const struct cl *c, const char *file);

/* ---- cluster_view.c: each node's own mount view, and a child's way into its node ---- */

/* Node i's tree under cl_nodes_dir: its directories, etc/hosts and (with c->user) the
 * login user's passwd/group/shadow entries and home. */
gc_rc cl_make_node_tree(const struct cl *c, int i, gc_err *e);
/* In sshd's child, after unshare(CLONE_NEWNS): bind node i's tree over the host's paths;
 * 0 on success, -1 (errno set) on failure. */
int cl_enter_node_view(const struct cl *c, int i);
/* In a forked child that will exec a daemon: stdout and stderr to log (created or
 * truncated, 0600), stdin from /dev/null. Best effort: what cannot be opened stays. */
void cl_child_stdio(const char *log);
/* In a forked child: into node i's network namespace, a UTS namespace with hostname n<i>
 * and, without shared_fs, a mount namespace with the node's view (cl_enter_node_view).
 * On failure it says what on stderr and _exit(126)s: it returns only inside the node. */
void cl_child_enter_node(const struct cl *c, int i);

/* ---- cluster_sshd.c: each node's sshd, the cluster's keys and client files ---- */

/* 1 when addr:22 accepts a TCP connection within timeout_ms. */
int cl_tcp_reachable(const char *addr, int timeout_ms);
/* The pid of node i's sshd from its pid file, when it still runs; else 0. */
pid_t cl_sshd_pid(const struct cl *c, int i);
/* Write node i's sshd_config and fork its sshd (in the node's namespaces); pid in DIR/n<i>.pid. */
gc_rc cl_start_sshd(const struct cl *c, int i, gc_err *e);
/* Wait until node i's sshd accepts connections (15 s); GC_E_TIMEOUT with its log's last line. */
gc_rc cl_wait_sshd(const struct cl *c, int i, gc_err *e);
/* The host key, the client key id_ed25519 and authorized_keys in the cluster directory. */
gc_rc cl_make_keys(const struct cl *c, gc_err *e);
/* known_hosts, ssh_config and inventory.yaml for nodes 1..c->n. */
gc_rc cl_write_client_files(const struct cl *c, gc_err *e);

/* ---- cluster_slurm.c: SLURM on the cluster (DIR/slurm.conf, munged, slurmctld, slurmd) ---- */

/* DIR/slurm.conf and DIR/slurm.env for nodes 1..c->n with cpus CPUs each. */
gc_rc cl_slurm_write_conf(const struct cl *c, int cpus, gc_err *e);
/* munged, slurmctld, every node's slurmd (in its namespaces and view); then wait until
 * sinfo shows every node idle (60 s; GC_E_TIMEOUT naming the slurmd log; GC_E_CHILD at
 * once, naming the log, when a slurmd exited). */
gc_rc cl_slurm_start(const struct cl *c, gc_err *e);
/* The same wait alone. */
gc_rc cl_slurm_wait_idle(const struct cl *c, gc_err *e);
/* The live pid from DIR's pid files: node i's slurmd (i >= 1), slurmctld (0), munged
 * (-1); 0 when it does not run. */
pid_t cl_slurm_pid(const struct cl *c, int node);
/* End every slurmd, then slurmctld, then munged, by their pid files (SIGTERM, SIGKILL
 * after 5 s). */
void cl_slurm_stop(const struct cl *c);

#endif
