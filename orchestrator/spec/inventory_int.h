/* orchestrator/spec/inventory_int.h: shared by inventory.c and inventory_racks.c (not an
 * API). */
#ifndef GC_INVENTORY_INT_H
#define GC_INVENTORY_INT_H

#include "inventory.h"

struct inv_ctx {
	yaml_document_t *doc;
	struct gc_diags *d;
	struct gc_inventory *inv;
};

/* racks: and uplink_ifaces: of root, after the hosts (or local: N) are parsed: every
 * name a host, every host in one rack; problems into c->d. */
void inv_parse_racks(struct inv_ctx *c, yaml_node_t *root);

#endif
