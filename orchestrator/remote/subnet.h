/* orchestrator/remote/subnet.h: each host's data-interface address, and the subnet
 * MPI and NCCL are pinned to (docs/spec.md, Reaching the hosts).
 *
 * At setup `gcbench run` asks every host for the IPv4 address of its inventory `iface`
 * (`ip -o -4 addr show dev IFACE`, the first global address) and requires one common
 * subnet: the same network and prefix length on every host. That subnet, as a CIDR,
 * is what btl_tcp_if_include and each rank's NCCL_SOCKET_IFNAME are chosen by, so
 * interface names may differ from host to host.
 */
#ifndef GC_SUBNET_H
#define GC_SUBNET_H

#include <stddef.h>
#include <stdint.h>

#include "nodes.h"
#include "result.h"

/* The first "inet A.B.C.D/P" of `ip -o -4 addr show` output: *addr (host order) and
 * *prefix (0..32). GC_E_FORMAT when there is none or it is malformed. */
gc_rc gc_subnet_parse_ip(const char *out, uint32_t *addr, int *prefix);

/* "A.B.C.D/P" of the network addr/prefix belongs to (host bits cleared). */
void gc_subnet_cidr(uint32_t addr, int prefix, char *buf, size_t n);

/* "A.B.C.D/P" as written (host bits kept), for people. */
void gc_subnet_addr_text(uint32_t addr, int prefix, char *buf, size_t n);

/* 1 when every address lies in one network of one prefix length (then cidr holds
 * it), else 0. n > 0. */
int gc_subnet_common(const uint32_t *addr, const int *prefix, size_t n, char *cidr, size_t len);

/* Ask node nd for the address of its data interface nd->iface. GC_E_COMM/GC_E_CHILD
 * as gc_node_exec; GC_E_NOTFOUND when the interface has no IPv4 address (e names the
 * node and the interface). */
gc_rc gc_node_data_addr(gc_node *nd, uint32_t *addr, int *prefix, gc_err *e);

#endif
