/* Fuzz target: the inventory parser must reject, not crash on, any input, and what it
 * accepts must hold only safe tokens. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "orchestrator/spec/inventory.h"
#include "strutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gc_inventory inv;
	struct gc_diags d;

	gc_diags_init(&d, "fuzz.yaml");
	if (gc_inventory_parse((const char *)data, size, "fuzz.yaml", &inv, &d) == GC_OK) {
		for (size_t i = 0; i < inv.n_hosts; i++) {
			const struct gc_host *h = &inv.hosts[i];
			/* the security contract: a violation is a crash the fuzzer reports */
			if (!gc_is_safe_token(h->name) || !gc_is_safe_token(h->address) ||
			    !gc_is_safe_token(h->iface) ||
			    (h->user[0] && !gc_is_safe_token(h->user)) ||
			    (h->netns[0] && !gc_is_safe_token(h->netns)) ||
			    (h->identity[0] && !gc_is_safe_token(h->identity)) ||
			    (h->sudo != 0 && h->sudo != 1) || (inv.local && inv.sudo))
				abort();
		}
		for (size_t r = 0; r < inv.n_racks && r < GC_INV_MAX_RACKS; r++)
			for (int k = 0; k < 2; k++)   /* uplink ends reach netlink as names */
				if (inv.uplink_if[r][k][0] && !gc_is_safe_token(inv.uplink_if[r][k]))
					abort();
		gc_inventory_release(&inv);
	}
	gc_diags_release(&d);
	return 0;
}
