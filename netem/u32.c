/* netem/u32.c: u32 filters by address or TCP port (u32.h). */
#include "u32.h"

#include <linux/if_ether.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/tc.h>

gc_rc gc_nl_fail(gc_err *e, int err, const char *what, const char *dev)
{
	return gc_fail(e, err == -NLE_PERM ? GC_E_PERM : GC_E_NETLINK, "%s on '%s' failed: %s",
		       what, dev, nl_geterror(err));
}

uint32_t gc_u32_prefix_mask(int prefix)
{
	return prefix > 0 ? 0xffffffffu << (32 - (prefix > 32 ? 32 : prefix)) : 0;
}

gc_rc gc_u32_add(struct nl_sock *sk, int ifindex, uint32_t parent, const struct gc_u32_key *k,
		 uint32_t classid, const char *what, const char *dev, gc_err *e)
{
	struct rtnl_cls *f = rtnl_cls_alloc();
	int err = f ? 0 : -NLE_NOMEM;

	if (f) {
		rtnl_tc_set_ifindex(TC_CAST(f), ifindex);
		rtnl_tc_set_parent(TC_CAST(f), parent);
		rtnl_cls_set_prio(f, 1);
		rtnl_cls_set_protocol(f, ETH_P_IP);
		if ((err = rtnl_tc_set_kind(TC_CAST(f), "u32")) >= 0) {
			if (k->port) {
				err = rtnl_u32_add_key_uint8(f, 6, 0xff, 9, 0);
				if (err >= 0)
					err = rtnl_u32_add_key_uint16(f, (uint16_t)k->val,
								      (uint16_t)k->mask, k->off, 0);
			} else {
				err = rtnl_u32_add_key_uint32(f, k->val, k->mask, k->off, 0);
			}
		}
		if (err >= 0 && (err = rtnl_u32_set_classid(f, classid)) >= 0 &&
		    (err = rtnl_u32_set_cls_terminal(f)) >= 0)
			err = rtnl_cls_add(sk, f, NLM_F_CREATE);
		rtnl_cls_put(f);
	}
	return err < 0 ? gc_nl_fail(e, err, what, dev) : GC_OK;
}
