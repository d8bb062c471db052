/* Checks before a sweep touches a host (orchestrator/run/validate.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "orchestrator/spec/inventory.h"
#include "strutil.h"
#include "sweep.h"
#include "validate.h"

gc_rc gc_run_load_spec(const char *path, struct gc_spec *spec, struct gc_sweep *sw, gc_err *e)
{
	struct gc_diags d;
	gc_rc rc;

	gc_diags_init(&d, path);
	rc = gc_spec_load(path, spec, &d, e);
	if (d.n)
		gc_diags_print(&d, stderr);
	gc_diags_release(&d);
	if (rc)
		return rc;
	return gc_sweep_expand(spec, sw, e);
}

/* msg as a diagnostic at the node at path of the YAML text (line 0 when not found) */
static void diag_path(struct gc_diags *d, const char *text, const char *path, const char *msg)
{
	size_t line = 0, col = 0;

	if (text)
		gc_yaml_locate(text, strlen(text), path, &line, &col);
	gc_diag_at(d, line, col, "%s", msg);
}

/* path as the program that uses it sees it: relative to dir (a spec's folder, as
 * provisioning reads a csv: model) unless absolute or dir is NULL; with tilde, "~/"
 * expanded (as ssh does for -i and -F) */
static void resolve(const char *p, const char *dir, int tilde, char *out, size_t n)
{
	const char *home = getenv("HOME");

	if (tilde && !strncmp(p, "~/", 2) && home)
		snprintf(out, n, "%s/%s", home, p + 2);
	else if (p[0] == '/' || !dir)
		snprintf(out, n, "%s", p);
	else
		snprintf(out, n, "%s/%s", dir, p);
}

/* NULL when path is a readable regular file, else why not */
static const char *file_problem(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == ENOENT ? "no such file" : strerror(errno);
	if (S_ISDIR(st.st_mode))
		return "a directory, not a file";
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (access(path, R_OK))
		return "not readable by this user";
	return NULL;
}

static void check_models(const struct gc_run_opts *o, const struct gc_spec *s, struct gc_diags *d)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], where[32], msg[1400];
	const char *slash = strrchr(o->spec_path, '/'), *why;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - o->spec_path) : 1,
		 slash ? o->spec_path : ".");
	for (size_t i = 0; i < s->n_models; i++) {
		if (strncmp(s->models[i], "csv:", 4))
			continue;
		resolve(s->models[i] + 4, slash ? dir : NULL, 0, path, sizeof(path));
		if (!(why = file_problem(path)))
			continue;
		snprintf(where, sizeof(where), "models/%zu", i);
		snprintf(msg, sizeof(msg), "model '%.300s': '%.400s': %s; give the path of a "
			 "parameter list (relative to the spec's folder, or absolute)",
			 s->models[i], path, why);
		diag_path(d, s->text, where, msg);
	}
}

static int by_key(const void *a, const void *b)
{
	const struct gc_point *const *x = a, *const *y = b;
	int c = strcmp((*x)->key, (*y)->key);

	return c ? c : ((*x)->index > (*y)->index) - ((*x)->index < (*y)->index);
}

/* no point left, or two points with one key (sorted: a sweep has up to 20,000) */
static void check_points(const struct gc_spec *s, const struct gc_sweep *sw, struct gc_diags *d)
{
	char msg[GC_POINT_KEY_MAX + 300];
	const struct gc_point **v;

	if (!sw->n) {
		snprintf(msg, sizeof(msg), "exclude drops every one of the %zu points of the sweep, "
			 "so it would run nothing; remove an entry or add values to an axis",
			 sw->n_product);
		diag_path(d, s->text, sw->n_excluded ? "exclude" : "", msg);
		return;
	}
	if (!(v = malloc(sw->n * sizeof(*v)))) {
		d->oom = 1;
		return;
	}
	for (size_t i = 0; i < sw->n; i++)
		v[i] = &sw->pts[i];
	qsort(v, sw->n, sizeof(*v), by_key);
	for (size_t i = 1; i < sw->n; i++) {
		if (strcmp(v[i]->key, v[i - 1]->key))
			continue;
		snprintf(msg, sizeof(msg), "points %zu and %zu have the same key (%s): two values "
			 "of an axis, two zipped tuples or two method variants are the same; "
			 "remove one", v[i - 1]->index + 1, v[i]->index + 1, v[i]->key);
		diag_path(d, s->text, s->n_zip ? "zip" : "methods", msg);
		break;
	}
	free(v);
}

/* backend nccl: one rank per GPU, so some host must give the sweep a GPU (how many
 * ranks fit where is the placement's to say, with every host's GPUs) */
static void check_gpus(const struct gc_spec *s, const struct gc_inventory *inv,
		       const char *inv_path, struct gc_diags *d)
{
	char msg[700], where[32];
	long gpus = 0;

	for (size_t h = 0; h < inv->n_hosts; h++)
		gpus += inv->hosts[h].gpus > 0 ? inv->hosts[h].gpus : 0;
	for (size_t b = 0; b < s->n_backend && !gpus; b++) {
		if (strcmp(s->backend[b], "nccl"))
			continue;
		snprintf(where, sizeof(where), "backend/%zu", b);
		snprintf(msg, sizeof(msg), "backend 'nccl' runs one rank per GPU, but no host of "
			 "'%.300s' gives the sweep a GPU (gpus: 0 or unset); set gpus: N on its "
			 "hosts, or use backend: mpi", inv_path);
		diag_path(d, s->text, where, msg);
		return;
	}
}

/* the inventory's ssh_config and every identity: files ssh can read */
static void check_ssh_files(const struct gc_inventory *inv, const char *text, struct gc_diags *d)
{
	char path[PATH_MAX + 8], where[64], msg[1200];
	const char *why;

	if (*inv->ssh_config) {
		resolve(inv->ssh_config, NULL, 1, path, sizeof(path));
		if ((why = file_problem(path))) {
			snprintf(msg, sizeof(msg), "ssh_config '%.400s': %s; give the path of an "
				 "ssh_config file, or remove the key", path, why);
			diag_path(d, text, "ssh_config", msg);
		}
	}
	for (size_t h = 0; h < inv->n_hosts; h++) {
		if (!*inv->hosts[h].identity)
			continue;
		resolve(inv->hosts[h].identity, NULL, 1, path, sizeof(path));
		if (!(why = file_problem(path)))
			continue;
		snprintf(where, sizeof(where), "hosts/%zu/identity", h);
		snprintf(msg, sizeof(msg), "host '%s': identity '%.400s': %s; give the path of "
			 "its private key, or remove the key to use ssh's default", inv->hosts[h].name,
			 path, why);
		diag_path(d, text, where, msg);
	}
}

/* slow: names hosts of the inventory (local: N has n1..nN; a SLURM allocation's hosts
 * are known only inside it: gcbench run checks them there) */
static int slow_host_known(const struct gc_inventory *inv, const char *h)
{
	char name[16];
	int found = 0;

	for (size_t k = 0; k < inv->n_hosts && !found; k++)
		found = !strcmp(inv->hosts[k].name, h);
	for (int k = 1; k <= inv->local && !found; k++) {
		snprintf(name, sizeof(name), "n%d", k);
		found = !strcmp(name, h);
	}
	return found;
}

static void check_slow(const struct gc_spec *s, const struct gc_inventory *inv,
		       const char *inv_path, struct gc_diags *d)
{
	char msg[700], where[112];
	size_t line, col;

	for (size_t v = 0; v < s->n_slow && !inv->slurm; v++)
		for (size_t i = 0; i < s->slow[v].n; i++) {
			const char *h = s->slow[v].host[i].host;

			if (slow_host_known(inv, h))
				continue;
			/* slow: [{...}, ...] or slow: {...} */
			snprintf(where, sizeof(where), "slow/%zu/%s", v, h);
			if (!s->text || !gc_yaml_locate(s->text, strlen(s->text), where, &line, &col))
				snprintf(where, sizeof(where), "slow/%s", h);
			if (inv->local)
				snprintf(msg, sizeof(msg), "slow: host '%s' is not in the inventory "
					 "(local: %d has n1 to n%d)", h, inv->local, inv->local);
			else
				snprintf(msg, sizeof(msg), "slow: host '%s' is not in the inventory "
					 "'%.300s'; name one of its hosts", h, inv_path);
			diag_path(d, s->text, where, msg);
		}
}

/* uplink:/oversubscription: needs racks in the inventory (docs/spec.md, "Racks and
 * uplinks") */
static void check_uplink(const struct gc_spec *s, const struct gc_inventory *inv,
			 const char *inv_path, struct gc_diags *d)
{
	const char *key = s->n_uplink && s->uplink[0].ratio > 0 ? "oversubscription" : "uplink";
	char msg[700];

	if (!s->n_uplink)
		return;
	if (inv->n_racks && !inv->uplink_ifaces && !inv->local) {   /* the approximation */
		int unlimited = 0, delayed = 0;
		for (size_t b = 0; b < s->n_bandwidth; b++)
			unlimited |= s->bandwidth[b] == 0;
		for (size_t l = 0; l < s->n_latency; l++)
			delayed |= s->latency[l] > 0;
		if (!unlimited && !delayed)
			return;
		snprintf(msg, sizeof(msg), "%s: the racks of '%.300s' are real hosts' (no "
			 "uplink_ifaces), where each host's cross-rack traffic gets a class of "
			 "its own beside its cap: give every bandwidth a rate and every latency 0, "
			 "or run it on the emulated cluster (gcbench cluster up N --racks R)", key,
			 inv_path);
		diag_path(d, s->text, key, msg);
		return;
	}
	if (inv->n_racks)
		return;
	snprintf(msg, sizeof(msg), "%s: the inventory '%.300s' has no racks, so no host shares "
		 "an uplink; add racks: [[n1, n2], [n3, n4]] to it (gcbench cluster up N --racks R "
		 "writes them), or drop '%s'", key, inv_path, key);
	diag_path(d, s->text, key, msg);
}

/* 1 when host is in the inventory (local: N has n1..nN) */
static int inv_has(const struct gc_inventory *inv, const char *h)
{
	char name[16];

	for (size_t k = 0; k < inv->n_hosts; k++)
		if (!strcmp(inv->hosts[k].name, h))
			return 1;
	for (int k = 1; k <= inv->local; k++) {
		snprintf(name, sizeof(name), "n%d", k);
		if (!strcmp(name, h))
			return 1;
	}
	return 0;
}

/* background: pairs name hosts of the inventory (as slow: does) */
static void check_bg_pairs(const struct gc_spec *s, const struct gc_inventory *inv,
			   const char *inv_path, struct gc_diags *d)
{
	char msg[700], where[96];

	for (size_t i = 0; s->bg.flows && i < s->bg.n_pairs && !inv->slurm; i++)
		for (int k = 0; k < 2; k++) {
			const char *h = k ? s->bg.pairs[i].to : s->bg.pairs[i].from;
			if (inv_has(inv, h))
				continue;
			snprintf(where, sizeof(where), "background/pairs/%zu/%d", i, k);
			if (inv->local)
				snprintf(msg, sizeof(msg), "background: host '%s' is not in the "
					 "inventory (local: %d has n1 to n%d)", h, inv->local, inv->local);
			else
				snprintf(msg, sizeof(msg), "background: host '%s' is not in the "
					 "inventory '%.300s'; name one of its hosts", h, inv_path);
			diag_path(d, s->text, where, msg);
		}
}

/* background: queue: fair (the default) gives a sending host's capped egress an htb
 * with the ranks' class and the flows' (docs/netem.md, "Background flows"): refuse the
 * points it cannot shape that way, before anything is touched. */
static void check_bg_queue(const struct gc_spec *s, const struct gc_sweep *sw,
			   const struct gc_inventory *inv, struct gc_diags *d)
{
	size_t line, col;
	const char *where = s->text && gc_yaml_locate(s->text, strlen(s->text),
						      "background/queue", &line, &col) ?
			    "background/queue" : "background";
	int trace = 0, delay = 0, racks = 0;
	char msg[600];

	if (!s->bg.flows || s->bg.queue != GC_BG_QUEUE_FAIR)
		return;
	for (size_t i = 0; i < sw->n; i++) {
		const struct gc_point *pt = &sw->pts[i];
		if (!pt->bw_bps)   /* no cap: nothing is shaped, as without background */
			continue;
		trace |= pt->trace != NULL;
		delay |= pt->latency_s > 0;
		racks |= pt->uplink && inv->n_racks && !inv->uplink_ifaces;
	}
	if (trace) {
		snprintf(msg, sizeof(msg), "background: queue fair (the default) cannot follow a "
			 "trace: bandwidth (the player changes the cap, not the classes' shares "
			 "under it); write background: {..., queue: fifo} or a fixed bandwidth");
		diag_path(d, s->text, where, msg);
	}
	if (delay) {
		snprintf(msg, sizeof(msg), "background: queue fair (the default) cannot go with a "
			 "latency under a cap (netem cannot sit under the fair queue's classes); "
			 "write background: {..., queue: fifo} or latency: 0");
		diag_path(d, s->text, where, msg);
	}
	if (racks) {
		snprintf(msg, sizeof(msg), "background: queue fair (the default) and the racks' "
			 "approximation on real hosts (racks: without uplink_ifaces) both want "
			 "the host's egress classes; write background: {..., queue: fifo}, drop "
			 "uplink:/oversubscription:, or run it on the emulated cluster");
		diag_path(d, s->text, where, msg);
	}
}

/* Load the inventory into *inv (`local: 4` without one) and its problems into d (its
 * own file); GC_OK when it parsed. */
static gc_rc check_inventory(const struct gc_run_opts *o, const struct gc_spec *s,
			     struct gc_inventory *inv, struct gc_diags *sd, struct gc_diags *d,
			     gc_err *e)
{
	char *text = NULL;
	size_t len = 0;
	gc_rc rc;

	memset(inv, 0, sizeof(*inv));
	inv->local = 4;
	if (!o->inventory_path) {   /* local: 4 */
		check_slow(s, inv, "local: 4", sd);
		check_uplink(s, inv, "local: 4", sd);
		check_bg_pairs(s, inv, "local: 4", sd);
		return GC_OK;
	}
	rc = gc_inventory_load(o->inventory_path, inv, d, e);
	if (rc)
		return rc;
	check_slow(s, inv, o->inventory_path, sd);
	check_uplink(s, inv, o->inventory_path, sd);
	check_bg_pairs(s, inv, o->inventory_path, sd);
	if (!inv->local && !inv->slurm) {   /* SLURM's GPUs come from the allocation */
		if (gc_read_file(o->inventory_path, &text, &len, e))
			text = NULL;
		check_ssh_files(inv, text, d);
		check_gpus(s, inv, o->inventory_path, sd);
	}
	free(text);
	return GC_OK;
}

/* The database: an SQLite file, or a new one in a folder that exists. GC_E_INVAL for
 * a wrong path, GC_E_PERM for one this user cannot use; messages printed. */
static gc_rc check_db(const struct gc_run_opts *o)
{
	static const char magic[16] = "SQLite format 3";
	const char *p = o->db_path;
	char head[16], dir[PATH_MAX];
	const char *slash = strrchr(p, '/');
	struct stat st;
	size_t got = 0;
	FILE *f;

	if (stat(p, &st)) {
		if (errno != ENOENT)
			return gc_error("--db '%s': %s; check the path", p, strerror(errno)), GC_E_INVAL;
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - p) + (slash == p) : 1,
			 slash ? p : ".");
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			return gc_error("--db '%s': the folder '%s' does not exist; create it or give "
					"another path", p, dir), GC_E_INVAL;
		if (!o->dry_run && access(dir, W_OK | X_OK))
			return gc_error("--db '%s': cannot create it: this user cannot write to '%s'",
					p, dir), GC_E_PERM;
		return GC_OK;
	}
	if (S_ISDIR(st.st_mode))
		return gc_error("--db '%s' is a directory; give the path of a results database "
				"file, e.g. %s/gcbench.db", p, p), GC_E_INVAL;
	if (!S_ISREG(st.st_mode))
		return gc_error("--db '%s' is not a regular file; give the path of a results "
				"database file", p), GC_E_INVAL;
	if (!(f = fopen(p, "rb")))
		return gc_error("--db '%s': cannot read it: %s", p, strerror(errno)), GC_E_PERM;
	got = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (got && (got < sizeof(head) || memcmp(head, magic, sizeof(magic))))
		return gc_error("--db '%s' is not a SQLite database; give the path of a gcbench "
				"results database, or move the file away and let 'gcbench run' "
				"create a new one", p), GC_E_INVAL;
	if (!o->dry_run && access(p, W_OK))
		return gc_error("--db '%s': this user cannot write to it", p), GC_E_PERM;
	return GC_OK;
}

/* Check the plan's spec and points against o's inventory (loaded into p->inv) and
 * database; as gc_run_plan_load. */
static gc_rc validate(const struct gc_run_opts *o, struct gc_run_plan *p, gc_err *e)
{
	const struct gc_spec *spec = &p->spec;
	struct gc_diags sd, idl;
	gc_rc irc, dbrc, rc;
	size_t n;

	gc_diags_init(&sd, o->spec_path);
	gc_diags_init(&idl, o->inventory_path ? o->inventory_path : "inventory");
	check_models(o, spec, &sd);
	check_points(spec, &p->sw, &sd);
	irc = check_inventory(o, spec, &p->inv, &sd, &idl, e);
	if (!irc)
		check_bg_queue(spec, &p->sw, &p->inv, &sd);
	gc_diags_sort(&sd);
	gc_diags_sort(&idl);
	gc_diags_print(&sd, stderr);
	gc_diags_print(&idl, stderr);
	dbrc = check_db(o);
	n = sd.n + idl.n + (dbrc != GC_OK);
	if (irc && !idl.n)
		gc_error("%s", e->msg);   /* the inventory file itself: missing, unreadable */
	if (irc || sd.n || idl.n || dbrc == GC_E_INVAL)
		(void)gc_fail(e, GC_E_INVAL, "the sweep cannot run: %zu problem%s above; nothing was "
			"changed", n + (irc && !idl.n), n + (irc && !idl.n) == 1 ? "" : "s");
	else if (dbrc)
		gc_fail(e, dbrc, "the sweep cannot run: the results database is not usable");
	rc = irc || sd.n || idl.n || dbrc == GC_E_INVAL ? GC_E_INVAL : dbrc;
	gc_diags_release(&sd);
	gc_diags_release(&idl);
	return rc;
}

void gc_run_plan_release(struct gc_run_plan *p)
{
	gc_sweep_release(&p->sw);
	gc_spec_release(&p->spec);
	gc_inventory_release(&p->inv);
	memset(p, 0, sizeof(*p));
}

gc_rc gc_run_plan_load(const struct gc_run_opts *o, struct gc_run_plan *p, gc_err *e)
{
	gc_rc rc;

	memset(p, 0, sizeof(*p));
	rc = gc_run_load_spec(o->spec_path, &p->spec, &p->sw, e);
	if (rc)
		rc = rc == GC_E_NOMEM ? rc : GC_E_INVAL;
	else
		rc = validate(o, p, e);
	if (rc)
		gc_run_plan_release(p);
	return rc;
}

gc_rc gc_run_check(const struct gc_run_opts *o, size_t *points, gc_err *e)
{
	struct gc_run_plan p;
	gc_rc rc = gc_run_plan_load(o, &p, e);

	if (points)
		*points = p.sw.n;
	gc_run_plan_release(&p);
	return rc;
}
