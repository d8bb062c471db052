/* From an inventory to the nodes of a sweep (orchestrator/run/run_setup.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "home.h"
#include "log.h"
#include "netem/cluster.h"
#include "orchestrator/remote/subnet.h"
#include "orchestrator/spec/inventory.h"
#include "hostlock.h"
#include "lock.h"
#include "run_setup.h"
#include "run_slurm.h"
#include "strutil.h"

#define LOCAL_CLUSTER "gcb"

static gc_rc load_inventory(const char *path, struct gc_inventory *inv, gc_err *e)
{
	struct gc_diags d;
	gc_rc rc;

	gc_diags_init(&d, path);
	rc = gc_inventory_load(path, inv, &d, e);
	if (d.n)
		gc_diags_print(&d, stderr);
	gc_diags_release(&d);
	return rc;
}

/* `local: N` (and optionally `name: NAME`, default "gcb", and racks:): bring the
 * emulated cluster up (or reuse it) and read the inventory it writes. racks: must be
 * what `cluster up --racks R` builds: R racks of N/R consecutive nodes. */
static gc_rc local_cluster(int n, struct gc_inventory *inv, gc_err *e)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], name[64];
	int was_up = 0, want[GC_INV_MAX_LOCAL + 1];
	struct gc_cluster_opts co = { NULL, 0, 0, (int)inv->n_racks };
	gc_rc rc;

	gc_strlcpy(name, *inv->name ? inv->name : LOCAL_CLUSTER, sizeof(name));
	memcpy(want, inv->local_rack, sizeof(want));
	if (!gc_cluster_valid_name(name))
		return gc_fail(e, GC_E_INVAL, "local cluster name '%s' must be 1-12 of [a-z0-9-]", name);
	if (getuid() != 0)
		return gc_fail(e, GC_E_PERM,
			       "the local emulated cluster needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): run 'sudo gcbench run ...', or give an inventory of real hosts with --inventory");
	for (int i = 1; co.racks && i <= n; i++)
		if (n % co.racks || want[i] != 1 + (i - 1) / (n / co.racks))
			return gc_fail(e, GC_E_INVAL, "local: %d with %d racks builds racks of %d "
				       "consecutive nodes (racks: [[n1, n2], [n3, n4]] for 4 nodes in "
				       "2); n%d is in rack %d: write the racks that way, or list the "
				       "hosts", n, co.racks, n % co.racks ? 0 : n / co.racks, i, want[i]);
	rc = gc_hostlock_check_cluster(name, e);   /* never rebuild a cluster in use */
	rc = rc ? rc : gc_cluster_up_opts(name, n, &co, &was_up, e);
	rc = rc ? rc : gc_cluster_dir(name, dir, sizeof(dir), e);
	if (rc)
		return rc;
	gc_info("%s local cluster '%s' of %d nodes (%s)", was_up ? "using the" : "brought up the",
		name, n, dir);
	snprintf(path, sizeof(path), "%s/inventory.yaml", dir);
	gc_inventory_release(inv);
	return load_inventory(path, inv, e);
}

/* The inventory's racks and the emulated cluster's uplink ends (run_racks.h). */
static void copy_racks(const struct gc_inventory *inv, struct gc_sweep_ctx *c)
{
	c->n_racks = inv->n_racks;
	for (size_t r = 0; inv->uplink_ifaces && r < inv->n_racks && r < 64; r++)
		for (int k = 0; k < 2; k++)
			gc_strlcpy(c->uplink_if[r][k], inv->uplink_if[r][k], sizeof(c->uplink_if[r][k]));
}

static void node_of(const struct gc_run_opts *o, const struct gc_inventory *inv,
		    const struct gc_host *h, const char *bin_dir, const char *ctl, gc_node *nd)
{
	memset(nd, 0, sizeof(*nd));
	gc_strlcpy(nd->name, h->name, sizeof(nd->name));
	gc_strlcpy(nd->address, h->address, sizeof(nd->address));
	gc_strlcpy(nd->user, h->user, sizeof(nd->user));
	/* an ssh_config's Port holds unless the inventory wrote one */
	nd->port = h->port_set || !*inv->ssh_config ? h->port : 0;
	gc_strlcpy(nd->identity, h->identity, sizeof(nd->identity));
	gc_strlcpy(nd->ssh_config, inv->ssh_config, sizeof(nd->ssh_config));
	nd->connect_timeout = inv->connect_timeout_s;
	gc_strlcpy(nd->iface, h->iface, sizeof(nd->iface));
	gc_strlcpy(nd->netns, h->netns, sizeof(nd->netns));
	nd->gpus = h->gpus;
	nd->sudo = h->sudo;
	gc_strlcpy(nd->python, h->python, sizeof(nd->python));
	memcpy(nd->env, h->env, sizeof(nd->env));
	nd->n_env = h->n_env;
	gc_strlcpy(nd->bin_dir, o->bin_dir ? o->bin_dir : bin_dir, sizeof(nd->bin_dir));
	/* a local cluster's ssh_config has its own ControlPath; every other host shares
	 * this process's masters, with or without an inventory ssh_config (ssh's -o
	 * options come before the file's, so a user's ControlPath does not apply) */
	if (!*h->netns)
		gc_strlcpy(nd->control_dir, ctl, sizeof(nd->control_dir));
}

/* The OpenMPI control channel of a local cluster: its /24. */
static void local_oob(const struct gc_host *h, char *cidr, size_t n)
{
	unsigned a, b, c;
	if (sscanf(h->address, "%u.%u.%u.", &a, &b, &c) == 3)
		snprintf(cidr, n, "%u.%u.%u.0/24", a, b, c);
}

/* Where the workers write records on the nodes: unique to this controller and sweep
 * process (/tmp/gcbench-records-HOST-PID-TIME), so that two controllers (or two
 * databases, whose run ids collide) never share one; each run's run-N is removed
 * after ingest. */
static void remote_work_dir(char *buf, size_t n)
{
	char host[64] = "controller";

	if (gethostname(host, sizeof(host) - 1))
		gc_strlcpy(host, "controller", sizeof(host));
	for (char *p = host; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-'))
			*p = '_';
	snprintf(buf, n, "/tmp/gcbench-records-%.40s-%ld-%ld", host, (long)getpid(),
		 (long)time(NULL));
}

/* Empty dir's entries (sockets a master left), then dir itself; 0 when gone. */
static int remove_flat_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char f[600];
		if (de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%.300s/%s", dir, de->d_name);
		unlink(f);
	}
	if (d)
		closedir(d);
	return rmdir(dir);
}

/* The folders of processes that are gone (a SIGKILLed gcbench run): ours, named
 * gcbench-ssh-PID-..., whose PID no longer runs. Their masters ended on their own
 * (ControlPersist). */
static void remove_stale_ssh_dirs(void)
{
	DIR *d = opendir("/tmp");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[300];
		struct stat st;
		long pid;
		char *end;

		if (strncmp(de->d_name, "gcbench-ssh-", 12))
			continue;
		pid = strtol(de->d_name + 12, &end, 10);
		snprintf(path, sizeof(path), "/tmp/%s", de->d_name);
		if (pid <= 0 || *end != '-' || lstat(path, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != getuid() || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		remove_flat_dir(path);
	}
	if (d)
		closedir(d);
}

/* The ControlMaster sockets of this process: a folder of its own (0700, a short path:
 * a socket's must stay under 108 bytes), so no other sweep or user shares its
 * connections, removed at the end (close_ssh_dir). Without it: no multiplexing. */
static void private_ssh_dir(struct gc_sweep_ctx *c)
{
	remove_stale_ssh_dirs();
	snprintf(c->ssh_dir, sizeof(c->ssh_dir), "/tmp/gcbench-ssh-%ld-XXXXXX", (long)getpid());
	if (!mkdtemp(c->ssh_dir)) {
		gc_warn("cannot create a folder for ssh's shared connections in /tmp (%s): every "
			"command opens its own connection", strerror(errno));
		c->ssh_dir[0] = 0;
	}
}

/* Every master connection in the folder ends (ssh -O exit), then the folder goes. */
static void close_ssh_dir(struct gc_sweep_ctx *c)
{
	DIR *d;
	struct dirent *de;
	int any = 0;

	if (!*c->ssh_dir)
		return;
	if ((d = opendir(c->ssh_dir))) {
		while ((de = readdir(d)))
			any |= de->d_name[0] != '.';
		closedir(d);
	}
	for (size_t i = 0; any && c->nodes && i < c->n_nodes; i++) {
		gc_ssh_target t;
		gc_node_target(&c->nodes[i], &t);
		if (t.control_dir && c->nodes[i].launcher == GC_LAUNCHER_SSH)
			gc_ssh_close(&t);
	}
	if (remove_flat_dir(c->ssh_dir))   /* with what a master that did not answer left */
		gc_warn("cannot remove '%s': %s", c->ssh_dir, strerror(errno));
	c->ssh_dir[0] = 0;
}

static gc_rc dry_nodes(int n, struct gc_sweep_ctx *c, gc_err *e)
{
	int i;

	c->nodes = calloc((size_t)n, sizeof(gc_node));
	if (!c->nodes)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
		snprintf(c->nodes[i].name, sizeof(c->nodes[i].name), "n%d", i + 1);
	c->n_nodes = (size_t)n;
	return GC_OK;
}

/* A dry run of a `slurm: true` inventory: the job of --nodes N, or the allocation */
static gc_rc dry_slurm_nodes(const struct gc_run_opts *o, const struct gc_inventory *inv,
			     struct gc_sweep_ctx *c, gc_err *e)
{
	if (!o->plan_nodes) {
		const char *job = getenv("SLURM_JOB_ID");
		if (job && *job)
			return gc_run_slurm_nodes(o, inv, c, e);
		return gc_fail(e, GC_E_INVAL, "a dry run of a 'slurm: true' inventory outside an "
			       "allocation needs the job's size: add --nodes N (and "
			       "--gpus-per-node G for GPU points)");
	}
	c->nodes = calloc((size_t)o->plan_nodes, sizeof(gc_node));
	if (!c->nodes)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (int i = 0; i < o->plan_nodes; i++) {
		gc_node *nd = &c->nodes[i];
		snprintf(nd->name, sizeof(nd->name), "node%d", i + 1);
		gc_strlcpy(nd->iface, inv->iface, sizeof(nd->iface));
		nd->gpus = o->plan_gpus;
		nd->sudo = inv->sudo;
		nd->launcher = GC_LAUNCHER_SLURM;
	}
	c->n_nodes = (size_t)o->plan_nodes;
	gc_info("a plan for a SLURM job of %d node%s, %d GPU%s per node (--nodes, "
		"--gpus-per-node); the job's own nodes get their names", o->plan_nodes,
		o->plan_nodes == 1 ? "" : "s", o->plan_gpus, o->plan_gpus == 1 ? "" : "s");
	return GC_OK;
}

gc_rc gc_run_setup_nodes(const struct gc_run_opts *o, struct gc_sweep_ctx *c,
			 struct gc_inventory *given, char *lockpath, size_t lockpath_len, gc_err *e)
{
	struct gc_inventory inv = { .local = 4 };
	char self[PATH_MAX];
	size_t i;
	gc_rc rc = GC_OK;

	if (given) {                       /* taken over: released below with inv */
		inv = *given;
		memset(given, 0, sizeof(*given));
	} else if (o->inventory_path) {
		rc = load_inventory(o->inventory_path, &inv, e);
	}
	if (!rc && o->plan_nodes && !inv.slurm)
		rc = gc_fail(e, GC_E_INVAL, "--nodes plans a job of a 'slurm: true' inventory; "
			     "'%s' lists its own hosts: drop --nodes", o->inventory_path);
	if (!rc && inv.local && o->dry_run) {
		rc = dry_nodes(inv.local, c, e);     /* a dry run changes nothing */
		for (size_t k = 0; !rc && k < c->n_nodes; k++)
			c->nodes[k].rack = inv.local_rack[k + 1];
		c->n_racks = inv.n_racks;
		return rc;
	}
	if (!rc && inv.slurm && o->dry_run) {
		rc = dry_slurm_nodes(o, &inv, c, e);
		gc_inventory_release(&inv);
		return rc;
	}
	if (!rc && inv.slurm) {   /* the allocation's nodes, through srun (run_slurm.h) */
		rc = gc_run_slurm_nodes(o, &inv, c, e);
		snprintf(lockpath, lockpath_len, "%.1000s/locks/slurm-%.40s.lock", gc_home(),
			 c->slurm ? c->slurm->job_id : "none");
		snprintf(c->local_work, sizeof(c->local_work), "%.1000s/fetch", gc_home());
		remote_work_dir(c->remote_work, sizeof(c->remote_work));
		gc_inventory_release(&inv);
		return rc;
	}
	if (!rc && inv.local)
		rc = local_cluster(inv.local, &inv, e);
	if (!rc)
		copy_racks(&inv, c);
	if (!rc && !inv.n_hosts)
		rc = gc_fail(e, GC_E_INVAL, "the inventory lists no hosts");
	gc_self_dir(self, sizeof(self));
	if (!rc && !o->dry_run)   /* a dry run creates nothing */
		private_ssh_dir(c);
	if (!rc && !(c->nodes = calloc(inv.n_hosts, sizeof(gc_node))))
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
	for (i = 0; !rc && i < inv.n_hosts; i++) {
		node_of(o, &inv, &inv.hosts[i], *inv.hosts[i].netns ? self : "/usr/local/bin",
			c->ssh_dir, &c->nodes[i]);
		c->nodes[i].rack = inv.hosts[i].rack;
	}
	if (!rc) {
		c->n_nodes = inv.n_hosts;
		if (*inv.hosts[0].netns) {
			local_oob(&inv.hosts[0], c->oob_cidr, sizeof(c->oob_cidr));
			c->shared_cores = 1;
		}
		snprintf(lockpath, lockpath_len, "%.1000s/locks/%.60s.lock", gc_home(),
			 *inv.name ? inv.name : "default");
		snprintf(c->local_work, sizeof(c->local_work), "%.1000s/fetch", gc_home());
		remote_work_dir(c->remote_work, sizeof(c->remote_work));
	}
	gc_inventory_release(&inv);
	return rc;
}

void gc_run_release_nodes(struct gc_sweep_ctx *c)
{
	close_ssh_dir(c);
	free(c->slurm);
	c->slurm = NULL;
	free(c->nodes);
	c->nodes = NULL;
	c->n_nodes = 0;
}

gc_rc gc_run_check_latency(struct gc_sweep_ctx *c, const struct gc_exec_point *pts, size_t n,
			   gc_err *e)
{
	char names[512] = "", first[600] = "";
	double most = 0;
	size_t i, absent = 0;

	for (i = 0; i < n; i++)
		most = pts[i].pt->latency_s > most ? pts[i].pt->latency_s : most;
	if (most <= 0)
		return GC_OK;
	for (i = 0; i < c->n_nodes; i++) {
		gc_err ne;
		gc_rc rc = gc_node_check_netem(&c->nodes[i], &ne);
		if (rc && rc != GC_E_UNSUPPORTED)
			return gc_fail(e, rc, "%s", ne.msg);
		if (!rc)
			continue;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s'%s'",
			 absent++ ? ", " : "", c->nodes[i].name);
		if (!*first)
			gc_strlcpy(first, ne.msg, sizeof(first));
	}
	if (!absent)
		return GC_OK;
	return gc_fail(e, GC_E_UNSUPPORTED, "the spec asks for latencies up to %g ms, but node%s %s "
		       "ha%s no netem qdisc (kernel module sch_netem); nothing was shaped and no point "
		       "ran. Load it there ('modprobe sch_netem'; some distributions ship it in the "
		       "kernel's extra modules package), or keep only 'latency: [0]' in the spec. "
		       "(%s)", most * 1e3, absent > 1 ? "s" : "", names, absent > 1 ? "ve" : "s",
		       first);
}

/* The table of who has what, when the data interfaces share no subnet. */
static void subnet_table(const struct gc_sweep_ctx *c, const uint32_t *addr, const int *prefix)
{
	char a[32];

	fprintf(stderr, "  %-16s %-16s %s\n", "host", "iface", "address");
	for (size_t i = 0; i < c->n_nodes; i++) {
		gc_subnet_addr_text(addr[i], prefix[i], a, sizeof(a));
		fprintf(stderr, "  %-16s %-16s %s\n", c->nodes[i].name, c->nodes[i].iface, a);
	}
}

gc_rc gc_run_data_subnet(struct gc_sweep_ctx *c, gc_err *e)
{
	uint32_t *addr = calloc(c->n_nodes ? c->n_nodes : 1, sizeof(uint32_t));
	int *prefix = calloc(c->n_nodes ? c->n_nodes : 1, sizeof(int));
	gc_rc rc = addr && prefix ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");

	for (size_t i = 0; !rc && i < c->n_nodes; i++)
		if (!(rc = gc_node_data_addr(&c->nodes[i], &addr[i], &prefix[i], e)))
			c->nodes[i].data_ip = addr[i];   /* racks' classes (run_racks.h) */
	for (size_t i = 0; !rc && i < c->n_nodes; i++)   /* a SLURM node: probes bind there */
		if (c->nodes[i].launcher == GC_LAUNCHER_SLURM) {
			char *slash = c->nodes[i].address;
			gc_subnet_addr_text(addr[i], 32, slash, sizeof(c->nodes[i].address));
			if ((slash = strchr(slash, '/')))
				*slash = 0;
		}
	if (!rc && !gc_subnet_common(addr, prefix, c->n_nodes, c->data_cidr, sizeof(c->data_cidr))) {
		gc_error("the hosts' data interfaces are not on one subnet:");
		subnet_table(c, addr, prefix);
		rc = gc_fail(e, GC_E_INVAL, "MPI and NCCL traffic needs one data subnet that every "
			     "host's iface is on (same network and prefix length); set each host's "
			     "iface in the inventory to its interface on that network");
	}
	if (!rc && *c->oob_cidr)   /* the local cluster: the control channel too */
		gc_strlcpy(c->oob_cidr, c->data_cidr, sizeof(c->oob_cidr));
	free(addr);
	free(prefix);
	return rc;
}
