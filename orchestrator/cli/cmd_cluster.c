/* orchestrator/cli/cmd_cluster.c: gcbench cluster up|down|status (netem/cluster.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json.h"
#include "log.h"
#include "netem/cluster.h"
#include "orchestrator/run/hostlock.h"
#include "strutil.h"

static const char cluster_usage[] =
"usage: gcbench cluster up N [--name NAME] [--user LOGIN] [--shared-fs] [--slurm]\n"
"                            [--racks R]\n"
"       gcbench cluster down [--name NAME]\n"
"       gcbench cluster status [--name NAME] [--json]\n"
"\n"
"Builds a local emulated cluster of N nodes on this machine: one network namespace\n"
"per node (gcb-NAME-n1...), joined by veth pairs to a bridge, addresses 10.213.K.11,\n"
".12, ... (K from a hash of NAME, or the next free subnet; the bridge has .1), TCP\n"
"reno, hostnames n1, n2..., and an sshd per node on a per-cluster key. Each node has\n"
"its own file system view, like a separate host: a private /tmp, /root, /home,\n"
"/var/lib/gcbench and /run/gcbench, and no view of this source tree (docs/netem.md);\n"
"'gcbench run' provisions the binaries there. Files, keys and the inventory are in\n"
"$GCBENCH_HOME/clusters/NAME (default /var/lib/gcbench/clusters/NAME); your ~/.ssh is\n"
"not touched. 'up' on a healthy cluster does nothing; on a half-built one it rebuilds.\n"
"'down' removes everything 'up' made. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN).\n"
"\n";

static const char cluster_usage_tail[] =
"\n"
"example: gcbench cluster up 4 && ssh -F /var/lib/gcbench/clusters/gcb/ssh_config n2 hostname\n"
"         gcbench cluster up 4 --slurm &&\n"
"           SLURM_CONF=/var/lib/gcbench/clusters/gcb/slurm.conf srun -N4 --chdir /tmp hostname\n";

static void print_status_text(const struct gc_cluster_status *s)
{
	int i;

	printf("cluster %s: %s, %d node%s, subnet 10.213.%d.0/24, bridge %s\n  dir %s\n",
	       s->name, s->healthy ? "up" : s->nodes || s->bridge_exists ? "DEGRADED" : "down",
	       s->nodes, s->nodes == 1 ? "" : "s", s->subnet, s->bridge_exists ? "present" : "absent",
	       s->dir);
	if (s->racks)
		printf("  racks: %d of %d nodes, uplinks gc%d-u1.. (rack side), gc%d-c1.. (core side)\n",
		       s->racks, s->nodes / s->racks, s->subnet, s->subnet);
	for (i = 0; i < s->nodes; i++) {
		const struct gc_node_status *n = &s->node[i];
		printf("  %-4s %-15s netns %-20s %s sshd %-8s %s%s%s\n", n->name, n->address,
		       n->netns, n->netns_exists ? "ok     " : "MISSING",
		       n->sshd_pid ? "running" : "DOWN", n->reachable ? "reachable" : "UNREACHABLE",
		       s->slurm ? " slurmd " : "", s->slurm ? (n->slurmd_pid ? "running" : "DOWN") : "");
	}
	if (s->slurm)
		printf("  slurm: slurmctld %s, munged %s; SLURM_CONF=%s/slurm.conf\n",
		       s->slurmctld_pid ? "running" : "DOWN", s->munged_pid ? "running" : "DOWN", s->dir);
}

static void node_json(gc_json *j, const struct gc_node_status *n)
{
	gc_json_obj_open(j);
	gc_json_str_field(j, "name", n->name);
	gc_json_str_field(j, "address", n->address);
	gc_json_str_field(j, "netns", n->netns);
	gc_json_key(j, "netns_exists");
	gc_json_bool(j, n->netns_exists);
	gc_json_int_field(j, "sshd_pid", (int)n->sshd_pid);
	gc_json_int_field(j, "slurmd_pid", (int)n->slurmd_pid);
	gc_json_key(j, "reachable");
	gc_json_bool(j, n->reachable);
	gc_json_obj_close(j);
}

/* GC_OK, or GC_E_NOMEM (e says so; nothing printed). */
static gc_rc print_status_json(const struct gc_cluster_status *s, gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	char subnet[32];
	gc_json j;
	gc_rc rc;
	int i;

	snprintf(subnet, sizeof(subnet), "10.213.%d.0/24", s->subnet);
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "name", s->name);
	gc_json_str_field(&j, "dir", s->dir);
	gc_json_str_field(&j, "subnet", subnet);
	gc_json_key(&j, "healthy");
	gc_json_bool(&j, s->healthy);
	gc_json_key(&j, "bridge");
	gc_json_bool(&j, s->bridge_exists);
	gc_json_key(&j, "slurm");
	gc_json_bool(&j, s->slurm);
	gc_json_int_field(&j, "racks", s->racks);
	gc_json_int_field(&j, "slurmctld_pid", (int)s->slurmctld_pid);
	gc_json_int_field(&j, "munged_pid", (int)s->munged_pid);
	gc_json_key(&j, "nodes");
	gc_json_arr_open(&j);
	for (i = 0; i < s->nodes; i++)
		node_json(&j, &s->node[i]);
	gc_json_arr_close(&j);
	gc_json_obj_close(&j);
	rc = gc_json_finish(&j);
	if (rc)
		gc_fail(e, rc, "cannot write the status as JSON: %s", gc_strerror(rc));
	else
		printf("%s\n", b.p);
	gc_buf_release(&b);
	return rc;
}

struct cl_args {
	const char *verb, *name, *count, *user;
	int json, shared_fs, slurm, racks;
};

static struct cl_args ca = { .name = "gcb" };   /* the declarations' targets */

static gc_rc racks_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int64_t nr;

	if (gc_parse_i64(v, &nr) || nr < 2 || nr > GC_CLUSTER_MAX_RACKS)
		return gc_fail(e, GC_E_INVAL, "--racks '%s' is not a number of racks from 2 to %d",
			       v, GC_CLUSTER_MAX_RACKS);
	ca.racks = (int)nr;
	return GC_OK;
}

static const struct gc_option cluster_opts[] = {
	GC_OPTION_STRING("--name", NULL, &ca.name, "NAME",
			 "cluster name, 1-12 of [a-z0-9-] (default: gcb)"),
	GC_OPTION_STRING("--user", NULL, &ca.user, "LOGIN",
			 "also an unprivileged login LOGIN on every node (the cluster key,\n"
			 "home /home/LOGIN; in the nodes' own /etc/passwd, not this machine's)"),
	GC_OPTION_FLAG("--shared-fs", NULL, &ca.shared_fs,
		       "the nodes share this machine's file system (like hosts with one NFS\n"
		       "tree), for tools that expect a checkout on every host"),
	GC_OPTION_FLAG("--slurm", NULL, &ca.slurm,
		       "also a SLURM batch system: munged, slurmctld on the bridge's address,\n"
		       "one slurmd per node, every file in the cluster's directory (never\n"
		       "/etc/slurm); 'up' waits until sinfo shows every node idle. Clients\n"
		       "use SLURM_CONF=DIR/slurm.conf (printed; also in DIR/slurm.env).\n"
		       "Needs: apt-get install slurmctld slurmd slurm-client munge"),
	GC_OPTION_CALLBACK("--racks", NULL, GC_OPT_ARG, racks_cb, "R",
			   "the nodes in R racks of N/R nodes (n1..): each rack on a bridge of its\n"
			   "own, joined to the core bridge by a veth pair (the rack's uplink) that\n"
			   "'gcbench run' caps for a spec's uplink: or oversubscription:; the\n"
			   "inventory says racks: and uplink_ifaces: (docs/netem.md, Racks)"),
	GC_OPTION_FLAG("--json", NULL, &ca.json, "status as one JSON object"),
};

static void cluster_help(FILE *f)
{
	fputs(cluster_usage, f);
	gc_opts_usage(f, cluster_opts, sizeof cluster_opts / sizeof cluster_opts[0], 15);
	fputs(cluster_usage_tail, f);
}

/* 0 to go on, 1 when help or version was printed, else the exit status (2). */
static int parse_args(int argc, char **argv, struct cl_args *a)
{
	static const char *const verbs[] = { "up", "down", "status" };
	gc_opts o;
	int r;

	gc_opts_decl_init(&o, "gcbench cluster", cluster_opts,
			  sizeof cluster_opts / sizeof cluster_opts[0], argc, argv, NULL);
	o.positional = 1;
	while ((r = gc_opts_next(&o)) == GC_OPTS_POS) {   /* the verb, then up's N */
		if (!ca.verb) {
			ca.verb = o.val;
			if (strcmp(ca.verb, "up") && strcmp(ca.verb, "down") &&
			    strcmp(ca.verb, "status"))
				return gc_cli_unknown_sub("gcbench cluster", ca.verb, verbs, 3);
		} else if (!ca.count && !strcmp(ca.verb, "up")) {
			ca.count = o.val;
		} else {
			gc_error("unexpected argument '%s' for gcbench cluster %s (see 'gcbench "
				 "cluster --help')", o.val, ca.verb);
			return GC_EXIT_USAGE;
		}
	}
	*a = ca;
	if (r != GC_OPTS_END)
		return (r = gc_cli_opts_stop(&o, r, cluster_help)) ? r : 1;
	if (!a->verb) {
		cluster_help(stderr);
		return GC_EXIT_USAGE;
	}
	if (a->racks && strcmp(a->verb, "up")) {
		gc_error("--racks applies to 'gcbench cluster up' only, not '%s'", a->verb);
		return GC_EXIT_USAGE;
	}
	if (a->json && strcmp(a->verb, "status")) {
		gc_error("--json applies to 'gcbench cluster status' only, not '%s'", a->verb);
		return GC_EXIT_USAGE;
	}
	return 0;
}

/* A cluster that `up` would rebuild (it exists with another number of nodes or racks) or that
 * `down` removes must not hold a live host lock (orchestrator/run/hostlock.h): a sweep
 * runs on it. */
static gc_rc guard_in_use(const char *name, int nodes, int racks, gc_err *e)
{
	struct gc_cluster_status *st = calloc(1, sizeof(*st));
	gc_rc rc = st ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");

	if (!rc && nodes > 0 && (gc_cluster_status(name, st, e) || st->nodes == 0 ||
				 (st->nodes == nodes && st->racks == racks)))
		nodes = -1;   /* nothing to rebuild */
	if (!rc && nodes != -1)
		rc = gc_hostlock_check_cluster(name, e);
	free(st);
	return rc;
}

/* Returns -1 after a usage error (printed), else the gc_rc of gc_cluster_up. */
static int do_up(const struct cl_args *a, gc_err *e)
{
	uint64_t n = 0;
	int was_up = 0;
	gc_rc rc;

	if (!a->count || gc_parse_u64(a->count, &n) || n < 1 || n > GC_CLUSTER_MAX_NODES) {
		gc_error("cluster up: give the number of nodes, 1 to %d (e.g. 'gcbench cluster up 4'), "
			 "not '%s'", GC_CLUSTER_MAX_NODES, a->count ? a->count : "");
		return -1;
	}
	struct gc_cluster_opts o = { a->user, a->shared_fs, a->slurm, a->racks };
	char dir[PATH_MAX];

	rc = guard_in_use(a->name, (int)n, a->racks, e);
	rc = rc ? rc : gc_cluster_up_opts(a->name, (int)n, &o, &was_up, e);
	if (!rc)
		rc = gc_cluster_dir(a->name, dir, sizeof(dir), e);
	if (rc)
		return rc;
	printf("cluster '%s' %s: %d nodes; inventory: %s/inventory.yaml\n", a->name,
	       was_up ? "is already up (nothing changed)" : "is up", (int)n, dir);
	if (a->slurm)
		printf("slurm: every node idle; clients: export SLURM_CONF=%s/slurm.conf\n", dir);
	if (a->racks)
		printf("racks: %d of %d nodes, each joined to the core by its own uplink (capped "
		       "by 'gcbench run' for a spec's uplink: or oversubscription:)\n", a->racks,
		       (int)n / a->racks);
	return 0;
}

int cmd_cluster(int argc, char **argv)
{
	struct gc_cluster_status *st;
	struct cl_args a = { 0 };
	gc_err e = { { 0 } };
	int r = parse_args(argc, argv, &a);
	gc_rc rc = GC_OK;

	if (r == 1)
		return GC_EXIT_OK;
	if (r)
		return r;
	if (!strcmp(a.verb, "up")) {
		r = do_up(&a, &e);
		if (r < 0)
			return GC_EXIT_USAGE;
		rc = (gc_rc)r;
	} else if (!strcmp(a.verb, "down")) {
		rc = guard_in_use(a.name, 0, 0, &e);
		rc = rc ? rc : gc_cluster_down(a.name, &e);
		if (!rc)
			printf("cluster '%s' is down (nothing of it is left)\n", a.name);
	} else if (!strcmp(a.verb, "status")) {
		st = calloc(1, sizeof(*st));
		rc = st ? gc_cluster_status(a.name, st, &e) : GC_E_NOMEM;
		if (!rc && a.json)
			rc = print_status_json(st, &e);
		else if (!rc)
			print_status_text(st);
		r = !rc && st && !st->healthy;
		free(st);
		if (!rc)
			return r ? GC_EXIT_ENV : GC_EXIT_OK;
	} else {
		gc_error("cluster: unknown action '%s'; use up, down or status", a.verb);
		return GC_EXIT_USAGE;
	}
	if (rc)
		gc_error("cluster %s: %s", a.verb, e.msg[0] ? e.msg : gc_strerror(rc));
	return gc_exit_code(rc);
}
