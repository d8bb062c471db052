/* orchestrator/spec/inventory.h: the hosts a sweep runs on (YAML), parsed and validated.
 *
 * Either `local: N` (the emulated cluster of N namespaced nodes on this machine,
 * brought up by `gcbench cluster up N`) or the file `gcbench cluster up` writes, which
 * is also how a real cluster is described:
 *     name: lab                         # optional
 *     ssh_config: /abs/path/ssh_config  # optional
 *     sudo: true                        # optional, default false: for every host
 *     connect_timeout: 10s              # optional: ssh's ConnectTimeout (1s..600s)
 *     hosts:
 *       - {name: n1, address: 10.0.0.11, user: root, port: 22, identity: /k,
 *          iface: eth0, netns: gcb-lab-n1, gpus: 0, sudo: false}
 * Or, inside a SLURM allocation, hosts from the allocation (docs/slurm.md):
 *     slurm: true                       # the nodes of the job this runs in
 *     iface: eth0                       # required: every node's data interface
 *     sudo: true                        # optional, as above
 * With `ssh_config`, a host is reached by its `name` through that file (its User,
 * jump host, known hosts...), and the host's `address` (when it is not the name) and
 * written `port` override the file's HostName and Port (orchestrator/remote/nodes.h).
 * A host may give its ranks' environment (workloads command and ddp; envvars.h):
 *       - {name: n1, ..., python: ~/venv/bin/python3, env: {PATH: "~/conda/bin:/usr/bin"}}
 * python: is the host's {python} (workload: ddp's interpreter), env: its variables,
 * exported after the spec's own env: (a host's value wins).
 * `slurm` admits no `local`, `hosts` or `ssh_config`; a top-level `iface` only comes
 * with `slurm: true`.
 * Racks (docs/netem.md, "Racks"): which hosts share an uplink, every host in exactly
 * one rack (with `local: N`, hosts are n1..nN; not with `slurm: true`):
 *     racks: [[n1, n2], [n3, n4]]
 * `gcbench cluster up N --racks R` writes them, and the ends of each rack's emulated
 * uplink on this machine (its out end, whose egress is the rack's outbound traffic,
 * then its in end), which `gcbench run` caps itself:
 *     uplink_ifaces: [[gc7-u1, gc7-c1], [gc7-u2, gc7-c2]]
 * `sudo` (true/false or yes/no; a host's own value overrides the top one) makes the
 * orchestrator run gcbench-netem on that host as `sudo -n gcbench-netem ...`, for a
 * login that is not root (orchestrator/remote/nodes.h). `local` with `sudo` is refused.
 * Every value that can reach a command line (name, address, user, identity, iface,
 * netns, ssh_config) must be a safe token (gc_is_safe_token: no spaces, quotes, ';',
 * '$', backticks, newlines, no leading '-'), or the file is refused. All problems are
 * reported at once, as FILE:LINE:COL messages in a gc_diags.
 */
#ifndef GC_INVENTORY_H
#define GC_INVENTORY_H

#include <stddef.h>

#include "envvars.h"
#include "result.h"
#include "yamlutil.h"

#define GC_INV_MAX_HOSTS 4096
#define GC_INV_MAX_LOCAL 64
#define GC_INV_MAX_RACKS 64

struct gc_host {
	char name[64];          /* unique in the inventory */
	char address[256];      /* IP or DNS name ssh connects to */
	char user[64];          /* "" = ssh's default (ssh_config / current user) */
	int port;               /* default 22 */
	int port_set;           /* 1: `port:` was written (with an ssh_config, it overrides
	                         * the config's Port; unwritten, the config's Port holds) */
	char identity[256];     /* private key path, "" = ssh's default */
	char iface[64];         /* data interface to shape (required) */
	char netns[64];         /* "" unless a local emulated node */
	int gpus;               /* GPUs this host gives the sweep, default 0 */
	int sudo;               /* 1: shape through `sudo -n` (the host's or the top value) */
	char python[256];       /* its ranks' {python}, "" = the spec's or python3 */
	char env[GC_ENV_MAX][GC_ENV_LEN]; size_t n_env;   /* its ranks' env: "NAME=VALUE" */
	int rack;               /* racks: its rack, 1-based; 0 without racks: */
};

struct gc_inventory {
	int local;              /* N > 0: `local: N` (hosts empty) */
	char name[64];
	char ssh_config[256];   /* "" = none */
	int sudo;               /* top-level default of every host's sudo */
	int connect_timeout_s;  /* ssh's ConnectTimeout for every host; 0 = gcbench's 10 s */
	int slurm;              /* 1: `slurm: true`, hosts from the allocation (hosts empty) */
	char iface[64];         /* with slurm: every node's data interface */
	struct gc_host *hosts;
	size_t n_hosts;
	size_t n_racks;         /* racks: (0: none); each host's rack is in its gc_host */
	int local_rack[GC_INV_MAX_LOCAL + 1];   /* local: N with racks: node i's rack (1-based),
	                                         * i in 1..N */
	int uplink_ifaces;      /* 1: uplink_ifaces: was given (an emulated cluster's) */
	char uplink_if[GC_INV_MAX_RACKS][2][16];   /* rack r-1's out end and in end */
};

/* Parse from memory; file names it in messages. On GC_OK the caller owns *inv
 * (gc_inventory_release). Else GC_E_INVAL/GC_E_NOMEM with every problem in d and
 * *inv left empty. */
gc_rc gc_inventory_parse(const char *buf, size_t len, const char *file,
			 struct gc_inventory *inv, struct gc_diags *d);

/* Read and parse a file (file errors in e; content problems in d and summarized in e). */
gc_rc gc_inventory_load(const char *path, struct gc_inventory *inv, struct gc_diags *d,
			gc_err *e);

void gc_inventory_release(struct gc_inventory *inv);   /* accepts NULL */

/* The rack of host (1-based), 0 when the inventory has no racks or no such host. */
int gc_inventory_rack_of(const struct gc_inventory *inv, const char *host);

#endif
