#!/usr/bin/env bash
# tools/degrade-port.sh: slow one node of an emulated cluster underneath gcbench, so
# that a sweep's points keep their keys (same cap, same spec) while one port is
# slower: a token bucket (tc tbf) on the host side of the node's veth, that is, on
# what the node receives. For tests of regress (a regression that is really there).
#
#   sudo tools/degrade-port.sh --cluster NAME --node N --rate RATE   # e.g. 100mbit
#   sudo tools/degrade-port.sh --cluster NAME --node N --clear
#
# NAME is the cluster's name (gcbench cluster up --name), N the node's number (1 for
# n1), RATE in tc's spelling (digits then kbit, mbit or gbit). GCBENCH_HOME as for
# gcbench cluster. Exit 0 done, 2 usage, 1 when tc failed.
set -u
name="" node="" rate="" clear=0
while [ $# -gt 0 ]; do
	case $1 in
	--cluster) name=${2-}; shift 2 ;;
	--node) node=${2-}; shift 2 ;;
	--rate) rate=${2-}; shift 2 ;;
	--clear) clear=1; shift ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "degrade-port: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
done
case $name in ''|*[!A-Za-z0-9_-]*) echo "degrade-port: invalid --cluster '$name': the cluster's name" >&2; exit 2 ;; esac
case $node in ''|*[!0-9]*) echo "degrade-port: invalid --node '$node': the node's number (1 for n1)" >&2; exit 2 ;; esac
if [ "$clear" = 0 ]; then
	[[ $rate =~ ^[0-9]+(kbit|mbit|gbit)$ ]] ||
		{ echo "degrade-port: invalid --rate '$rate': digits then kbit, mbit or gbit (100mbit)" >&2; exit 2; }
fi
conf=${GCBENCH_HOME:-$HOME/.gcbench}/clusters/$name/cluster.conf
subnet=$(sed -n 's/^subnet=\([0-9]*\)$/\1/p' "$conf" 2>/dev/null)
[ -n "$subnet" ] || { echo "degrade-port: no cluster '$name' ('$conf' has no subnet=): see gcbench cluster list" >&2; exit 2; }
dev=gc$subnet-v$node
ip link show "$dev" >/dev/null 2>&1 || { echo "degrade-port: cluster '$name' has no node $node (no link '$dev')" >&2; exit 2; }
if [ "$clear" = 1 ]; then
	tc qdisc del dev "$dev" root 2>/dev/null
	exit 0
fi
tc qdisc replace dev "$dev" root tbf rate "$rate" burst 64kb latency 100ms ||
	{ echo "degrade-port: tc could not shape '$dev' to $rate" >&2; exit 1; }
