/* netem/cluster.c: the local cluster's names and paths, cluster.conf, status, and the
 * up/down orchestration (see cluster.h): namespaces + veth + bridge per node, links
 * through libnl-route (netem/link.h), namespaces made in C (netem/netns.h). Each node's
 * file-system view is in cluster_view.c, its sshd and the keys in cluster_sshd.c, SLURM
 * (--slurm) in cluster_slurm.c. */
#include "cluster_int.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fnv.h"
#include "fsutil.h"
#include "home.h"
#include "log.h"
#include "link.h"
#include "netns.h"
#include "pids.h"
#include "shape.h"
#include "strutil.h"

int gc_cluster_valid_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n >= 1 && n <= 12 && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

int gc_cluster_subnet(const char *name)
{
	return 1 + (int)(gc_fnv1a32(name) % 250);
}

gc_rc gc_cluster_dir(const char *name, char *buf, size_t n, gc_err *e)
{
	const char *home = gc_home();
	int len;

	if (home[0] != '/' || strchr(home, '\n') || strchr(home, ' '))
		return gc_fail(e, GC_E_INVAL, "GCBENCH_HOME '%s' must be an absolute path without "
			       "spaces", home);
	len = snprintf(buf, n, "%s/clusters/%s", home, name);
	if (len < 0 || (size_t)len >= n || len > 60)
		return gc_fail(e, GC_E_INVAL, "cluster directory '%s/clusters/%s' is too long (at "
			       "most 60 bytes: ssh's control sockets live there)", home, name);
	return GC_OK;
}

void cl_node_netns(const struct cl *c, int i, char *buf, size_t n)
{
	snprintf(buf, n, "gcb-%s-n%d", c->name, i);
}

void cl_node_addr(const struct cl *c, int i, char *buf, size_t n)
{
	snprintf(buf, n, "10.213.%d.%d", c->k, 10 + i);
}

static void host_veth(const struct cl *c, int i, char *buf, size_t n)
{
	snprintf(buf, n, "gc%d-v%d", c->k, i);
}

static void bridge_name(const struct cl *c, char *buf, size_t n)
{
	snprintf(buf, n, "gc%d-br", c->k);
}

/* rack j's bridge, gcK-r<j> */
static void rack_bridge(const struct cl *c, int j, char *buf, size_t n)
{
	snprintf(buf, n, "gc%d-r%d", c->k, j);
}

int cl_node_rack(const struct cl *c, int i)
{
	return c->racks >= 2 && c->n > 0 ? 1 + (i - 1) / (c->n / c->racks) : 0;
}

void cl_uplink_names(const struct cl *c, int j, char *out, char *in, size_t n)
{
	snprintf(out, n, "gc%d-u%d", c->k, j);
	snprintf(in, n, "gc%d-c%d", c->k, j);
}

void cl_path_of(const struct cl *c, const char *file, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", c->dir, file);
}

/* $GCBENCH_HOME/nodes/NAME (beside clusters/NAME, which the nodes see) */
void cl_nodes_dir(const struct cl *c, char *buf, size_t n)
{
	size_t len = strlen(c->dir) - strlen(c->name) - strlen("clusters/");

	snprintf(buf, n, "%.*snodes/%s", (int)len, c->dir, c->name);
}

static int link_exists(const char *dev)
{
	char p[128];
	snprintf(p, sizeof(p), "/sys/class/net/%s", dev);
	return access(p, F_OK) == 0;
}

static gc_rc need_root(gc_err *e)
{
	if (geteuid() != 0)
		return gc_fail(e, GC_E_PERM, "the local cluster needs root (CAP_NET_ADMIN and "
			       "CAP_SYS_ADMIN to create namespaces, links and bridges): run as root");
	return GC_OK;
}

static gc_rc cl_init(struct cl *c, const char *name, gc_err *e)
{
	if (!gc_cluster_valid_name(name))
		return gc_fail(e, GC_E_INVAL, "invalid cluster name '%.32s': use 1-12 of [a-z0-9-]",
			       name ? name : "");
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->k = gc_cluster_subnet(name);
	return gc_cluster_dir(name, c->dir, sizeof(c->dir), e);
}

/* The subnet this cluster claimed in its cluster.conf, if any (sets c->k_known). */
static void read_conf_subnet(struct cl *c)
{
	char path[PATH_MAX], line[128];
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "%s/cluster.conf", c->dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "subnet=", 7) && (k = atoi(line + 7)) >= 1 && k <= 250) {
			c->k = k;
			c->k_known = 1;
		}
	if (f)
		fclose(f);
}

gc_rc cl_write_file(const char *path, const char *text, gc_err *e)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno));
	return GC_OK;
}

pid_t cl_read_pid(const struct cl *c, const char *file)
{
	char path[PATH_MAX], line[32] = "";
	FILE *f;

	cl_path_of(c, file, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return (pid_t)atoi(line);
}

/* The number of cluster.conf's line KEY=N (key with its '='); 0 when absent. */
static int read_conf_int(const struct cl *c, const char *key)
{
	char path[PATH_MAX], line[128];
	size_t kl = strlen(key);
	FILE *f;
	int v = 0;

	cl_path_of(c, "cluster.conf", path, sizeof(path));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl))
			v = atoi(line + kl);
	if (f)
		fclose(f);
	return v;
}

/* 1 when cluster.conf says slurm=1 */
static int read_conf_slurm(const struct cl *c)
{
	return read_conf_int(c, "slurm=") == 1;
}

/* Read nodes=N from cluster.conf; 0 when absent or unreadable. */
static int read_conf_nodes(const struct cl *c, char *owner, size_t on)
{
	char path[PATH_MAX], line[128];
	FILE *f;
	int n = 0;

	cl_path_of(c, "cluster.conf", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "nodes=", 6))
			n = atoi(line + 6);
		if (owner && !strncmp(line, "name=", 5))
			snprintf(owner, on, "%.*s", (int)strcspn(line + 5, "\n"), line + 5);
	}
	fclose(f);
	return n > 0 && n <= GC_CLUSTER_MAX_NODES ? n : 0;
}

static void node_status(const struct cl *c, int i, struct gc_node_status *s)
{
	snprintf(s->name, sizeof(s->name), "n%d", i);
	cl_node_netns(c, i, s->netns, sizeof(s->netns));
	cl_node_addr(c, i, s->address, sizeof(s->address));
	s->netns_exists = gc_netns_exists(s->netns);
	s->sshd_pid = cl_sshd_pid(c, i);
	s->slurmd_pid = cl_slurm_pid(c, i);
	s->reachable = s->sshd_pid && cl_tcp_reachable(s->address, 1000);
}

gc_rc gc_cluster_status(const char *name, struct gc_cluster_status *st, gc_err *e)
{
	struct cl c;
	char br[32];
	gc_rc rc;
	int i, n;

	memset(st, 0, sizeof(*st));
	if ((rc = cl_init(&c, name, e)))
		return rc;
	read_conf_subnet(&c);
	gc_strlcpy(st->name, name, sizeof(st->name));
	gc_strlcpy(st->dir, c.dir, sizeof(st->dir));
	st->subnet = c.k;
	st->nodes = read_conf_nodes(&c, NULL, 0);
	bridge_name(&c, br, sizeof(br));
	st->bridge_exists = c.k_known && link_exists(br);
	st->healthy = st->nodes > 0 && st->bridge_exists;
	st->slurm = read_conf_slurm(&c);
	st->racks = read_conf_int(&c, "racks=");
	for (i = 1; st->racks >= 2 && i <= st->racks && i <= GC_CLUSTER_MAX_RACKS; i++) {
		char rb[32], uo[32], ui[32];
		rack_bridge(&c, i, rb, sizeof(rb));
		cl_uplink_names(&c, i, uo, ui, sizeof(uo));
		if (!c.k_known || !link_exists(rb) || !link_exists(uo))
			st->healthy = 0;
	}
	st->slurmctld_pid = cl_slurm_pid(&c, 0);
	st->munged_pid = cl_slurm_pid(&c, -1);
	if (st->slurm && (!st->slurmctld_pid || !st->munged_pid))
		st->healthy = 0;
	/* look past the configured size too: a half-built cluster may have more */
	for (i = 1, n = st->nodes; i <= GC_CLUSTER_MAX_NODES; i++) {
		node_status(&c, i, &st->node[i - 1]);
		if (i > n && !st->node[i - 1].netns_exists && !st->node[i - 1].sshd_pid)
			break;
		if (i > st->nodes)
			st->nodes = i, st->healthy = 0;
		if (!st->node[i - 1].reachable || !st->node[i - 1].netns_exists ||
		    (st->slurm && !st->node[i - 1].slurmd_pid))
			st->healthy = 0;
	}
	return GC_OK;
}

/* Best effort: what is left is reported by check_gone. host: a socket on this
 * machine's links (host->sk NULL: none could be opened). */
static void down_node(const struct cl *c, struct gc_links *host, int i)
{
	char ns[32], v[32];

	cl_node_netns(c, i, ns, sizeof(ns));
	host_veth(c, i, v, sizeof(v));
	if (gc_netns_exists(ns)) {
		gc_shape_clear("eth0", ns, NULL);
		gc_netns_kill_all(ns);
		gc_netns_del(ns, NULL);
	}
	if (c->k_known && host->sk && link_exists(v))
		gc_links_delete(host, v, NULL);
}

/* Rack j's uplink (its state files restored first) and bridge; best effort. */
static void down_rack(const struct cl *c, struct gc_links *host, int j)
{
	char rb[32], uo[32], ui[32];

	if (!c->k_known || !host->sk)
		return;
	rack_bridge(c, j, rb, sizeof(rb));
	cl_uplink_names(c, j, uo, ui, sizeof(uo));
	gc_shape_clear(uo, NULL, NULL);
	gc_shape_clear(ui, NULL, NULL);
	if (link_exists(uo))
		gc_links_delete(host, uo, NULL);
	if (link_exists(rb))
		gc_links_delete(host, rb, NULL);
}

static int remove_tree_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT ? -1 : 0;
}

/* Remove the cluster directory: the files gcbench wrote and SLURM's folders (never
 * crossing into another file system). */
static gc_rc remove_dir(const struct cl *c, gc_err *e)
{
	if (access(c->dir, F_OK))
		return GC_OK;
	if (nftw(c->dir, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) &&
	    errno != ENOENT)
		return gc_fail(e, GC_E_IO, "cannot remove '%s': %s", c->dir, strerror(errno));
	return GC_OK;
}

/* Remove the nodes' trees (never crossing into another file system). */
static gc_rc remove_node_trees(const struct cl *c, gc_err *e)
{
	char p[PATH_MAX];

	cl_nodes_dir(c, p, sizeof(p));
	if (access(p, F_OK))
		return GC_OK;
	if (nftw(p, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT))
		return gc_fail(e, GC_E_IO, "cannot remove the nodes' files in '%s': %s", p,
			       strerror(errno));
	return GC_OK;
}

/* After down: what is still there, as an error. */
static gc_rc check_gone(const struct cl *c, gc_err *e)
{
	char ns[32], br[32], needle[PATH_MAX];
	int i;

	for (i = 1; i <= GC_CLUSTER_MAX_NODES; i++) {
		cl_node_netns(c, i, ns, sizeof(ns));
		if (gc_netns_exists(ns))
			return gc_fail(e, GC_E_STATE, "namespace '%s' is still there after down", ns);
	}
	bridge_name(c, br, sizeof(br));
	if (c->k_known && link_exists(br))
		return gc_fail(e, GC_E_STATE, "bridge '%s' is still there after down", br);
	for (i = 1; c->k_known && i <= GC_CLUSTER_MAX_RACKS; i++) {
		rack_bridge(c, i, br, sizeof(br));
		if (link_exists(br))
			return gc_fail(e, GC_E_STATE, "bridge '%s' is still there after down", br);
	}
	snprintf(needle, sizeof(needle), "%s/", c->dir);
	if (access(c->dir, F_OK) == 0)
		return gc_fail(e, GC_E_STATE, "directory '%s' is still there after down", c->dir);
	return GC_OK;
}

gc_rc gc_cluster_down(const char *name, gc_err *e)
{
	struct gc_links host = { 0 };
	struct cl c;
	char br[32], needle[PATH_MAX];
	gc_rc rc;
	int i;

	if ((rc = cl_init(&c, name, e)) || (rc = need_root(e)))
		return rc;
	read_conf_subnet(&c);   /* without it, no bridge or host veth is this cluster's */
	cl_slurm_stop(&c);      /* slurmd, slurmctld, munged by their pid files */
	/* sshd (-f DIR/n1.sshd_config) and ssh ControlMaster processes (DIR/cm-...) */
	snprintf(needle, sizeof(needle), "%s/", c.dir);
	gc_kill_matching(needle);
	gc_links_open(&host, NULL, NULL);   /* without it, check_gone names what is left */
	for (i = 1; i <= GC_CLUSTER_MAX_NODES; i++)
		down_node(&c, &host, i);
	for (i = 1; i <= GC_CLUSTER_MAX_RACKS; i++)   /* racks: uplinks (the caps go along) */
		down_rack(&c, &host, i);
	bridge_name(&c, br, sizeof(br));
	if (c.k_known && host.sk && link_exists(br))
		gc_links_delete(&host, br, NULL);
	gc_links_release(&host);
	if ((rc = remove_dir(&c, e)) || (rc = remove_node_trees(&c, e)))
		return rc;
	return check_gone(&c, e);
}

/* Write net.ipv4.tcp_congestion_control=reno inside namespace ns. */
static gc_rc set_reno(const char *ns, gc_err *e)
{
	int saved, fd, ok;
	gc_rc rc = gc_netns_enter(ns, &saved, e);

	if (rc)
		return rc;
	fd = open("/proc/sys/net/ipv4/tcp_congestion_control", O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, "reno\n", 5) == 5;
	if (fd >= 0)
		close(fd);
	gc_netns_leave(saved);
	return ok ? GC_OK : gc_fail(e, GC_E_IO, "cannot set tcp congestion control reno in '%s'", ns);
}

/* The bridge gcK-br with 10.213.K.1/24, up. GC_E_BUSY when it exists already. */
static gc_rc make_bridge(const struct cl *c, struct gc_links *host, gc_err *e)
{
	char br[32], addr[32];
	gc_rc rc;

	bridge_name(c, br, sizeof(br));
	snprintf(addr, sizeof(addr), "10.213.%d.1/24", c->k);
	if ((rc = gc_links_add_bridge(host, br, e)) || (rc = gc_links_add_addr(host, br, addr, e)))
		return rc;
	return gc_links_set_up(host, br, NULL, e);
}

/* Inside node i's namespace: eth0 with its address, eth0 and lo up. */
static gc_rc node_links_up(const struct cl *c, int i, const char *ns, gc_err *e)
{
	struct gc_links in;
	char addr[32];
	gc_rc rc;

	cl_node_addr(c, i, addr, sizeof(addr));
	strcat(addr, "/24");
	if ((rc = gc_links_open(&in, ns, e)))
		return rc;
	if (!(rc = gc_links_add_addr(&in, "eth0", addr, e)) &&
	    !(rc = gc_links_set_up(&in, "eth0", NULL, e)))
		rc = gc_links_set_up(&in, "lo", NULL, e);
	gc_links_release(&in);
	return rc;
}

/* Rack j's bridge gcK-r<j>, up, and its uplink gcK-u<j> (in it) <-> gcK-c<j> (in the
 * core bridge), both up. */
static gc_rc make_rack(const struct cl *c, struct gc_links *host, int j, gc_err *e)
{
	char rb[32], br[32], uo[32], ui[32];
	gc_rc rc;

	rack_bridge(c, j, rb, sizeof(rb));
	bridge_name(c, br, sizeof(br));
	cl_uplink_names(c, j, uo, ui, sizeof(uo));
	if ((rc = gc_links_add_bridge(host, rb, e)) || (rc = gc_links_set_up(host, rb, NULL, e)) ||
	    (rc = gc_links_add_veth(host, uo, ui, NULL, e)))
		return rc;
	if ((rc = gc_links_set_up(host, uo, rb, e)))
		return rc;
	return gc_links_set_up(host, ui, br, e);
}

/* Node i's namespace, and a veth pair: gcK-v<i> up in the bridge, eth0 inside. */
static gc_rc make_node_net(const struct cl *c, struct gc_links *host, int i, gc_err *e)
{
	char ns[32], v[32], br[32];
	gc_rc rc;

	cl_node_netns(c, i, ns, sizeof(ns));
	host_veth(c, i, v, sizeof(v));
	if (cl_node_rack(c, i))   /* racks: the node's rack's bridge */
		rack_bridge(c, cl_node_rack(c, i), br, sizeof(br));
	else
		bridge_name(c, br, sizeof(br));
	if ((rc = gc_netns_add(ns, e)) || (rc = gc_links_add_veth(host, v, "eth0", ns, e)) ||
	    (rc = gc_links_set_up(host, v, br, e)) || (rc = node_links_up(c, i, ns, e)))
		return rc;
	return set_reno(ns, e);
}

static gc_rc mkdirs(const char *dir, gc_err *e)
{
	gc_rc rc = gc_mkdir_p(dir, 0700, e);

	if (rc)
		return rc;
	mkdir("/run/sshd", 0755);   /* sshd's privilege separation directory */
	mkdir("/run/gcbench", 0755);
	mkdir(GC_CLUSTER_CM_DIR, 0700);
	return GC_OK;
}

static gc_rc write_conf(const struct cl *c, gc_err *e)
{
	char path[PATH_MAX], conf[128];

	snprintf(conf, sizeof(conf), "name=%s\nnodes=%d\nsubnet=%d\nuser=%s\nshared_fs=%d\n"
		 "slurm=%d\nracks=%d\n", c->name, c->n, c->k, c->user ? c->user : "", c->shared_fs,
		 c->slurm, c->racks);
	cl_path_of(c, "cluster.conf", path, sizeof(path));
	return cl_write_file(path, conf, e);
}

/* Claim a free subnet: the name's hash K first, then K+1, ... (mod 250); a subnet is
 * taken when its bridge gcK-br exists (another cluster, or a crashed one). The claim
 * is written to cluster.conf before the bridge is made, so down finds it; when two
 * clusters race for one K, the second's bridge creation (NLM_F_EXCL) fails and it moves
 * on. */
static gc_rc make_bridge_free(struct cl *c, struct gc_links *host, gc_err *e)
{
	int first = c->k, tries;
	gc_rc rc = GC_OK;

	for (tries = 0; tries < 250; tries++, c->k = c->k % 250 + 1) {
		char br[32];
		bridge_name(c, br, sizeof(br));
		if (link_exists(br))
			continue;
		c->k_known = 1;
		if ((rc = write_conf(c, e)))
			return rc;
		if (!(rc = make_bridge(c, host, e)))
			break;
		if (!link_exists(br))
			return rc;   /* failed for another reason than a race */
	}
	if (tries == 250)
		return gc_fail(e, GC_E_BUSY, "no free subnet 10.213.K.0/24 (K = 1..250): every "
			       "bridge gcK-br exists; take a cluster down (gcbench cluster down)");
	if (c->k != first)
		gc_info("cluster '%s': subnet 10.213.%d.0/24 (10.213.%d.0/24, its name's hash, "
			"is taken by another cluster)", c->name, c->k, first);
	return rc;
}

/* Bridge, then each node: namespace and links (on one socket of this machine's
 * links), its tree, its sshd; then wait for every sshd. */
static gc_rc build(struct cl *c, gc_err *e)
{
	struct gc_links host;
	gc_rc rc;
	int i;

	if ((rc = mkdirs(c->dir, e)) || (rc = cl_make_keys(c, e)) ||
	    (rc = gc_links_open(&host, NULL, e)))
		return rc;
	rc = make_bridge_free(c, &host, e);
	for (i = 1; !rc && c->racks >= 2 && i <= c->racks; i++)
		rc = make_rack(c, &host, i, e);
	for (i = 1; !rc && i <= c->n; i++)
		if (!(rc = make_node_net(c, &host, i, e)) && !(rc = cl_make_node_tree(c, i, e)))
			rc = cl_start_sshd(c, i, e);
	gc_links_release(&host);
	if (rc)
		return rc;
	for (i = 1; i <= c->n; i++)
		if ((rc = cl_wait_sshd(c, i, e)))
			return rc;
	if ((rc = cl_write_client_files(c, e)))
		return rc;
	return c->slurm ? cl_slurm_start(c, e) : GC_OK;
}

/* cluster.conf holds these options (a file of before them: no user, own views) */
static int conf_opts_are(const struct cl *c, const char *user, int shared_fs)
{
	char path[PATH_MAX], line[128], want[80];
	FILE *f;
	int same_user = !user || !*user, same_fs = !shared_fs;

	snprintf(want, sizeof(want), "user=%s\n", user ? user : "");
	cl_path_of(c, "cluster.conf", path, sizeof(path));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "user=", 5))
			same_user = !strcmp(line, want);
		if (!strncmp(line, "shared_fs=", 10))
			same_fs = atoi(line + 10) == (shared_fs != 0);
	}
	if (f)
		fclose(f);
	return same_user && same_fs;
}

static int valid_user(const char *u)
{
	size_t n = strlen(u);
	return n >= 1 && n <= 16 && u[0] >= 'a' && u[0] <= 'z' &&
	       strspn(u, "abcdefghijklmnopqrstuvwxyz0123456789-") == n && strcmp(u, "root");
}

gc_rc gc_cluster_up(const char *name, int nodes, int *was_up, gc_err *e)
{
	return gc_cluster_up_opts(name, nodes, NULL, was_up, e);
}

gc_rc gc_cluster_up_opts(const char *name, int nodes, const struct gc_cluster_opts *o,
			 int *was_up, gc_err *e)
{
	const char *user = o ? o->user : NULL;
	char missing[64];
	struct gc_cluster_status *st;
	struct cl c;
	gc_rc rc;
	int exists;

	if (was_up)
		*was_up = 0;
	if ((rc = cl_init(&c, name, e)) || (rc = need_root(e)))
		return rc;
	if (nodes < 1 || nodes > GC_CLUSTER_MAX_NODES)
		return gc_fail(e, GC_E_INVAL, "cannot make %d nodes: give 1 to %d", nodes,
			       GC_CLUSTER_MAX_NODES);
	if (user && !valid_user(user))
		return gc_fail(e, GC_E_INVAL, "invalid login user '%.32s': use 1-16 of [a-z0-9-], "
			       "starting with a letter, not root", user);
	if (o && o->racks >= 2 && (o->racks > GC_CLUSTER_MAX_RACKS || nodes % o->racks))
		return gc_fail(e, GC_E_INVAL, "cannot put %d nodes in %d racks: give 2 to %d racks "
			       "that divide the nodes evenly (4 nodes: --racks 2)", nodes, o->racks,
			       GC_CLUSTER_MAX_RACKS);
	if (o && o->slurm && gc_cluster_slurm_missing(missing, sizeof(missing)))
		return gc_fail(e, GC_E_NOTFOUND, "cannot give the cluster SLURM: '%s' is not "
			       "installed; run as root: apt-get install -y slurmctld slurmd "
			       "slurm-client munge", missing);
	c.n = nodes;
	c.user = user;
	c.shared_fs = o ? o->shared_fs != 0 : 0;
	c.slurm = o ? o->slurm != 0 : 0;
	c.racks = o && o->racks >= 2 ? o->racks : 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = gc_cluster_status(name, st, e);
	exists = st->nodes > 0 || st->bridge_exists || access(c.dir, F_OK) == 0;
	if (!rc && st->healthy && st->nodes == nodes &&
	    conf_opts_are(&c, user, c.shared_fs) && st->slurm == c.slurm &&
	    st->racks == c.racks) {
		if (was_up)
			*was_up = 1;
		free(st);
		return GC_OK;
	}
	free(st);
	if (!rc && exists) {
		gc_info("cluster '%s' is incomplete or of another size: rebuilding it", name);
		rc = gc_cluster_down(name, e);
	}
	if (!rc && (rc = build(&c, e)))
		gc_cluster_down(name, NULL);   /* leave nothing half-built */
	return rc;
}
