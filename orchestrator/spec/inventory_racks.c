/* orchestrator/spec/inventory_racks.c: racks: [[n1, n2], [n3, n4]] and the emulated
 * cluster's uplink_ifaces: of an inventory (inventory.h). */
#include "inventory_int.h"

#include <stdio.h>
#include <string.h>

#include "strutil.h"

/* the host's rack slot: &hosts[i].rack, or &local_rack[i] for local: N; NULL: no host */
static int *rack_slot(struct gc_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_hosts; i++)
		if (!strcmp(inv->hosts[i].name, name))
			return &inv->hosts[i].rack;
	for (int i = 1; i <= inv->local; i++) {
		char n[16];
		snprintf(n, sizeof(n), "n%d", i);
		if (!strcmp(n, name))
			return &inv->local_rack[i];
	}
	return NULL;
}

static void one_rack(struct inv_ctx *c, yaml_node_t *r, int k)
{
	size_t n = gc_yaml_seq_len(r);

	if (r->type != YAML_SEQUENCE_NODE || n == 0) {
		gc_diag(c->d, r, "racks: rack %d is %s; write the names of the hosts that share "
			"its uplink, e.g. [n1, n2]", k, r->type == YAML_SEQUENCE_NODE ? "empty" :
			gc_yaml_kind(r));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *h = gc_yaml_seq_at(c->doc, r, i);
		const char *t = gc_yaml_text(h);
		int *slot;

		if (!t || !*t) {
			gc_diag(c->d, h, "racks: rack %d: item %zu is %s; write a host's name", k,
				i + 1, gc_yaml_kind(h));
			continue;
		}
		if (!(slot = rack_slot(c->inv, t))) {
			if (c->inv->local)
				gc_diag(c->d, h, "racks: host '%.63s' is not in the inventory (local: "
					"%d has n1 to n%d)", t, c->inv->local, c->inv->local);
			else
				gc_diag(c->d, h, "racks: host '%.63s' is not in the inventory; name "
					"one of its hosts", t);
			continue;
		}
		if (*slot) {
			gc_diag(c->d, h, "racks: host '%.63s' is in rack %d and rack %d; a host sits "
				"in one rack", t, *slot, k);
			continue;
		}
		*slot = k;
	}
}

/* every host in some rack */
static void check_all_placed(struct inv_ctx *c, yaml_node_t *racks)
{
	for (size_t i = 0; i < c->inv->n_hosts; i++)
		if (!c->inv->hosts[i].rack)
			gc_diag(c->d, racks, "racks: host '%s' is in no rack; add it to one (every "
				"host sits in a rack)", c->inv->hosts[i].name);
	for (int i = 1; i <= c->inv->local; i++)
		if (!c->inv->local_rack[i])
			gc_diag(c->d, racks, "racks: host 'n%d' is in no rack; add it to one (every "
				"host sits in a rack)", i);
}

/* an interface name of this machine: a safe token of 1-15 bytes, not starting '.' */
static int dev_ok(const char *t)
{
	size_t n = t ? strlen(t) : 0;
	return n >= 1 && n <= 15 && t[0] != '.' && gc_is_safe_token(t) &&
	       strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void uplink_ifaces(struct inv_ctx *c, yaml_node_t *v)
{
	size_t n = gc_yaml_seq_len(v);

	if (!c->inv->n_racks) {
		gc_diag(c->d, v, "the inventory: uplink_ifaces names each rack's uplink; it needs "
			"racks: (gcbench cluster up N --racks R writes both)");
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE || n != c->inv->n_racks) {
		gc_diag(c->d, v, "uplink_ifaces: write one [OUT, IN] pair of interfaces per rack "
			"(%zu racks), e.g. [[gc7-u1, gc7-c1], [gc7-u2, gc7-c2]]", c->inv->n_racks);
		return;
	}
	for (size_t r = 0; r < n; r++) {
		yaml_node_t *p = gc_yaml_seq_at(c->doc, v, r);
		if (p->type != YAML_SEQUENCE_NODE || gc_yaml_seq_len(p) != 2) {
			gc_diag(c->d, p, "uplink_ifaces: rack %zu needs [OUT, IN], its uplink's two "
				"ends on this machine", r + 1);
			continue;
		}
		for (size_t k = 0; k < 2; k++) {
			yaml_node_t *d = gc_yaml_seq_at(c->doc, p, k);
			const char *t = gc_yaml_text(d);
			if (!dev_ok(t)) {
				gc_diag(c->d, d, "uplink_ifaces: rack %zu: not an interface name (1-15 "
					"of [A-Za-z0-9._-])", r + 1);
				continue;
			}
			gc_strlcpy(c->inv->uplink_if[r][k], t, sizeof(c->inv->uplink_if[r][k]));
		}
	}
	c->inv->uplink_ifaces = 1;
}

void inv_parse_racks(struct inv_ctx *c, yaml_node_t *root)
{
	yaml_node_t *v = gc_yaml_get(c->doc, root, "racks"),
		    *u = gc_yaml_get(c->doc, root, "uplink_ifaces");
	size_t n = v ? gc_yaml_seq_len(v) : 0;

	if (v && c->inv->slurm) {
		gc_diag(c->d, v, "the inventory: racks name hosts, and with 'slurm: true' the hosts "
			"come from the allocation; remove 'racks'");
		return;
	}
	if (v && (v->type != YAML_SEQUENCE_NODE || n == 0 || n > GC_INV_MAX_RACKS)) {
		gc_diag(c->d, v, "racks is %s; write a list of racks, each a list of the hosts "
			"that share its uplink: racks: [[n1, n2], [n3, n4]] (at most %d racks)",
			n > GC_INV_MAX_RACKS ? "too long" : v->type == YAML_SEQUENCE_NODE ?
			"empty" : gc_yaml_kind(v), GC_INV_MAX_RACKS);
		v = NULL;
	}
	if (v) {
		for (size_t r = 0; r < n; r++)
			one_rack(c, gc_yaml_seq_at(c->doc, v, r), (int)r + 1);
		c->inv->n_racks = n;
		if (!c->d->n)   /* a host already named wrong would be reported twice */
			check_all_placed(c, v);
	}
	if (u)
		uplink_ifaces(c, u);
}

int gc_inventory_rack_of(const struct gc_inventory *inv, const char *host)
{
	if (!inv->n_racks || !host)
		return 0;
	for (size_t i = 0; i < inv->n_hosts; i++)
		if (!strcmp(inv->hosts[i].name, host))
			return inv->hosts[i].rack;
	for (int i = 1; i <= inv->local; i++) {
		char n[16];
		snprintf(n, sizeof(n), "n%d", i);
		if (!strcmp(n, host))
			return inv->local_rack[i];
	}
	return 0;
}
