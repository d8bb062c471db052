/* orchestrator/spec/inventory.c: host inventories, validated token by token. */
#include "inventory_int.h"
#include "envvars_parse.h"

#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "strutil.h"

static const char *const top_keys[] = { "local", "name", "ssh_config", "sudo", "hosts",
					"slurm", "iface", "connect_timeout", "racks",
					"uplink_ifaces" };
static const char *const host_keys[] = { "name", "address", "user", "port", "identity",
					 "iface", "netns", "gpus", "sudo", "python", "env" };

/* why s is not a safe token, for the message */
static const char *unsafe_why(const char *s)
{
	if (!*s)
		return "it is empty";
	if (*s == '-')
		return "it starts with '-' and would be read as an option";
	if (strlen(s) > 255)
		return "it is longer than 255 bytes";
	if (strpbrk(s, "\n\r"))
		return "it contains a line break";
	if (strpbrk(s, "$`"))
		return "it contains '$' or a backtick (shell expansion)";
	if (strpbrk(s, ";|&<>"))
		return "it contains a shell operator (; | & < >)";
	return "it contains a space, quote or other character outside [A-Za-z0-9._:@%+=,/-]";
}

/* copy a safe-token value of key into dst; 0 if absent, -1 if invalid, 1 if set */
static int token(struct inv_ctx *c, const yaml_node_t *map, const char *key, char *dst,
		 size_t n, const char *where)
{
	yaml_node_t *v = gc_yaml_get(c->doc, map, key);
	const char *t = gc_yaml_text(v);

	if (!v)
		return 0;
	if (!t) {
		gc_diag(c->d, v, "%s: '%s' is %s; write one value", where, key, gc_yaml_kind(v));
		return -1;
	}
	if (!gc_is_safe_token(t)) {
		gc_diag(c->d, v, "%s: %s is refused: %s; use only letters, digits and "
			"._:@%%+=,/-", where, key, unsafe_why(t));
		return -1;
	}
	if (strlen(t) >= n) {
		gc_diag(c->d, v, "%s: %s is longer than %zu bytes; shorten it", where,
			key, n - 1);
		return -1;
	}
	gc_strlcpy(dst, t, n);
	return 1;
}

static int number(struct inv_ctx *c, const yaml_node_t *map, const char *key, int dflt,
		  int lo, int hi, const char *where)
{
	yaml_node_t *v = gc_yaml_get(c->doc, map, key);
	const char *t = gc_yaml_text(v);
	int64_t x;

	if (!v)
		return dflt;
	if (!t || gc_parse_i64(t, &x) || x < lo || x > hi) {
		gc_diag(c->d, v, "%s: %s%s%s is not a whole number in %d..%d; write e.g. %d",
			where, key, t ? "" : ", ", t ? "" : gc_yaml_kind(v), lo, hi,
			dflt > lo ? dflt : lo);
		return dflt;
	}
	return (int)x;
}

/* a boolean (true/false, yes/no) of key, dflt if absent */
static int boolean(struct inv_ctx *c, const yaml_node_t *map, const char *key, int dflt,
		   const char *where)
{
	yaml_node_t *v = gc_yaml_get(c->doc, map, key);
	const char *t = gc_yaml_text(v);

	if (!v)
		return dflt;
	if (t && (!strcmp(t, "true") || !strcmp(t, "yes")))
		return 1;
	if (t && (!strcmp(t, "false") || !strcmp(t, "no")))
		return 0;
	if (!t)
		gc_diag(c->d, v, "%s: %s is %s, not true or false; write %s: true", where, key,
			gc_yaml_kind(v), key);
	else
		gc_diag(c->d, v, "%s: %s is not true or false; write %s: true", where,
			key, key);
	return dflt;
}

static void check_unique(struct inv_ctx *c, yaml_node_t *it, size_t i)
{
	struct gc_host *h = &c->inv->hosts[i];

	for (size_t j = 0; j < i; j++) {
		if (h->name[0] && !strcmp(c->inv->hosts[j].name, h->name))
			gc_diag(c->d, gc_yaml_get(c->doc, it, "name"), "host '%s' is listed twice; "
				"give every host its own name", h->name);
		if (h->address[0] && !strcmp(c->inv->hosts[j].address, h->address) &&
		    !strcmp(c->inv->hosts[j].netns, h->netns) && c->inv->hosts[j].port == h->port)
			gc_diag(c->d, gc_yaml_get(c->doc, it, "address"), "hosts '%s' and '%s' have "
				"the same address and port; each host needs its own",
				c->inv->hosts[j].name, h->name);
	}
}

/* python: and env: of a host (envvars.h) */
static void host_env(struct inv_ctx *c, yaml_node_t *it, struct gc_host *h, const char *where)
{
	yaml_node_t *py = gc_yaml_get(c->doc, it, "python"), *env = gc_yaml_get(c->doc, it, "env");
	const char *p = py ? gc_yaml_text(py) : NULL, *why = NULL;
	char what[128];

	if (py && (!p || !*p || *p == '-' || (why = gc_env_value_problem(p))))
		gc_diag(c->d, py, "%s: python is the interpreter its ranks run%s%s; write e.g. "
			"python: /usr/bin/python3 or python: ~/venv/bin/python3", where,
			why ? ": it " : "", why ? why : "");
	else if (p)
		gc_strlcpy(h->python, p, sizeof(h->python));
	snprintf(what, sizeof(what), "%s env", where);
	if (env)
		h->n_env = gc_env_parse(c->doc, env, what, h->env, c->d);
}

static void parse_host(struct inv_ctx *c, yaml_node_t *it, size_t i)
{
	struct gc_host *h = &c->inv->hosts[i];
	char where[96];

	snprintf(where, sizeof(where), "host %zu", i + 1);
	if (it->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, it, "%s is %s; write a mapping {name: n1, address: 10.0.0.11, "
			"iface: eth0}", where, gc_yaml_kind(it));
		return;
	}
	gc_yaml_check_keys(c->doc, it, host_keys, 11, where, c->d);
	if (token(c, it, "name", h->name, sizeof(h->name), where) == 0)
		gc_diag(c->d, it, "%s has no 'name'; add name: n%zu", where, i + 1);
	if (h->name[0])
		snprintf(where, sizeof(where), "host '%s'", h->name);
	if (token(c, it, "address", h->address, sizeof(h->address), where) == 0)
		gc_diag(c->d, it, "%s has no 'address'; add the IP or DNS name ssh connects to",
			where);
	token(c, it, "user", h->user, sizeof(h->user), where);
	token(c, it, "identity", h->identity, sizeof(h->identity), where);
	if (token(c, it, "iface", h->iface, sizeof(h->iface), where) == 0)
		gc_diag(c->d, it, "%s has no 'iface'; add the data interface to shape, e.g. "
			"iface: eth0", where);
	token(c, it, "netns", h->netns, sizeof(h->netns), where);
	h->port = number(c, it, "port", 22, 1, 65535, where);
	h->port_set = gc_yaml_get(c->doc, it, "port") != NULL;
	h->gpus = number(c, it, "gpus", 0, 0, 1024, where);
	h->sudo = boolean(c, it, "sudo", c->inv->sudo, where);
	host_env(c, it, h, where);
	check_unique(c, it, i);
}

static void parse_hosts(struct inv_ctx *c, yaml_node_t *v)
{
	size_t n = gc_yaml_seq_len(v);

	if (v->type != YAML_SEQUENCE_NODE || n == 0) {
		gc_diag(c->d, v, "'hosts' is %s; write a list of hosts (name, address, iface, ...)",
			v->type == YAML_SEQUENCE_NODE ? "empty" : gc_yaml_kind(v));
		return;
	}
	if (n > GC_INV_MAX_HOSTS) {
		gc_diag(c->d, v, "%zu hosts is over the limit of %d; split the inventory", n,
			GC_INV_MAX_HOSTS);
		return;
	}
	c->inv->hosts = calloc(n, sizeof(*c->inv->hosts));
	if (!c->inv->hosts) {
		c->d->oom = 1;
		return;
	}
	c->inv->n_hosts = n;
	for (size_t i = 0; i < n; i++)
		parse_host(c, gc_yaml_seq_at(c->doc, v, i), i);
}

/* `slurm: true`: the hosts come from the allocation; iface (required) is every node's. */
static void parse_slurm(struct inv_ctx *c, yaml_node_t *root, yaml_node_t *local,
			yaml_node_t *hosts)
{
	yaml_node_t *v;

	if (!c->inv->slurm) {
		v = gc_yaml_get(c->doc, root, "iface");
		gc_diag(c->d, v, "the inventory: a top-level 'iface' is for 'slurm: true' (hosts "
			"from the allocation); give each host its own iface under 'hosts'");
		return;
	}
	if (local || hosts)
		gc_diag(c->d, local ? local : hosts, "the inventory: with 'slurm: true' the hosts "
			"come from the SLURM allocation; remove '%s'", local ? "local" : "hosts");
	if (gc_yaml_get(c->doc, root, "ssh_config"))
		gc_diag(c->d, gc_yaml_get(c->doc, root, "ssh_config"), "the inventory: with "
			"'slurm: true' nodes are reached through srun, not ssh; remove 'ssh_config'");
	if (token(c, root, "iface", c->inv->iface, sizeof(c->inv->iface), "the inventory") == 0)
		gc_diag(c->d, root, "the inventory: 'slurm: true' needs the nodes' data interface "
			"to shape; add iface: NAME (e.g. iface: eth0)");
}

/* connect_timeout: a duration as the CLI writes one (10, 10s, 1min), whole seconds */
static void connect_timeout(struct inv_ctx *c, yaml_node_t *root)
{
	yaml_node_t *v = gc_yaml_get(c->doc, root, "connect_timeout");
	const char *t = gc_yaml_text(v);
	double x;
	gc_err e;

	if (!v)
		return;
	if (!t || gc_opts_seconds("connect_timeout", t, 1, 600, &x, &e) || x != (int)x)
		gc_diag(c->d, v, "the inventory: connect_timeout is not a whole number of seconds "
			"from 1 to 600; write e.g. connect_timeout: 30s");
	else
		c->inv->connect_timeout_s = (int)x;
}

static void parse_root(struct inv_ctx *c, yaml_node_t *root)
{
	yaml_node_t *local, *hosts;

	if (root->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, root, "an inventory is a mapping (local: 4, or hosts: [...]), not %s",
			gc_yaml_kind(root));
		return;
	}
	if (gc_yaml_get(c->doc, root, "models") || gc_yaml_get(c->doc, root, "methods")) {
		gc_diag(c->d, root, "this looks like a sweep spec, not an inventory; pass the "
			"inventory (local: 4, or hosts: [...]) here");
		return;
	}
	gc_yaml_check_keys(c->doc, root, top_keys, 10, "the inventory", c->d);
	connect_timeout(c, root);
	c->inv->sudo = boolean(c, root, "sudo", 0, "the inventory");
	local = gc_yaml_get(c->doc, root, "local");
	hosts = gc_yaml_get(c->doc, root, "hosts");
	token(c, root, "name", c->inv->name, sizeof(c->inv->name), "the inventory");
	if (token(c, root, "ssh_config", c->inv->ssh_config, sizeof(c->inv->ssh_config),
		  "the inventory") > 0 && c->inv->ssh_config[0] != '/')
		gc_diag(c->d, gc_yaml_get(c->doc, root, "ssh_config"), "ssh_config is not "
			"an absolute path; write the full path, e.g. /root/.ssh/config");
	if (local && c->inv->sudo)
		gc_diag(c->d, gc_yaml_get(c->doc, root, "sudo"), "the inventory: 'sudo' is for "
			"hosts with a non-root login; the local cluster logs in as root");
	c->inv->slurm = boolean(c, root, "slurm", 0, "the inventory");
	if (c->inv->slurm || gc_yaml_get(c->doc, root, "iface")) {
		parse_slurm(c, root, local, hosts);
		inv_parse_racks(c, root);
		return;
	}
	if (local && hosts)
		gc_diag(c->d, local, "the inventory has both 'local' and 'hosts'; keep one");
	else if (local)
		c->inv->local = number(c, root, "local", 0, 1, GC_INV_MAX_LOCAL, "the inventory");
	else if (hosts)
		parse_hosts(c, hosts);
	else
		gc_diag(c->d, root, "the inventory has neither 'local' nor 'hosts'; write "
			"local: 4 (emulated cluster) or a hosts list");
	inv_parse_racks(c, root);
}

gc_rc gc_inventory_parse(const char *buf, size_t len, const char *file,
			 struct gc_inventory *inv, struct gc_diags *d)
{
	yaml_document_t doc;
	struct inv_ctx c = { &doc, d, inv };
	gc_rc rc;

	memset(inv, 0, sizeof(*inv));
	rc = gc_yaml_load(buf, len, &doc, d);
	if (rc)
		return rc;
	parse_root(&c, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	gc_diags_sort(d);
	if (d->n || d->oom) {
		gc_inventory_release(inv);
		return d->n ? GC_E_INVAL : GC_E_NOMEM;
	}
	return GC_OK;
}

gc_rc gc_inventory_load(const char *path, struct gc_inventory *inv, struct gc_diags *d,
			gc_err *e)
{
	char *buf;
	size_t len;
	gc_rc rc;

	memset(inv, 0, sizeof(*inv));
	rc = gc_read_file(path, &buf, &len, e);
	if (rc)
		return rc;
	rc = gc_inventory_parse(buf, len, path, inv, d);
	free(buf);
	if (rc)
		gc_diags_result(d, e);
	return rc;
}

void gc_inventory_release(struct gc_inventory *inv)
{
	if (!inv)
		return;
	free(inv->hosts);
	memset(inv, 0, sizeof(*inv));
}
