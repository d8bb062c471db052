#!/usr/bin/env bash
# tests/leftovers.sh: what a test can leave up on this machine, for tests/run.sh -l.
#
# Usage: tests/leftovers.sh snapshot        the current state, one item a line, sorted
#        tests/leftovers.sh new BEFORE AFTER the items of AFTER not in BEFORE (files
#                                            written by snapshot)
# Items: "netns NAME" (network namespaces: emulated nodes), "bridge NAME" (a cluster's
# bridge), "proc COMM PID" for the daemons a cluster starts: sshd in a network
# namespace other than this host's (the host's own sshd and its sessions are not a
# test's), and every slurmd, slurmctld and munged. Reads /proc and `ip`; changes nothing.
set -u

snapshot() {
	local f p comm host
	ip netns list 2>/dev/null | awk '{ print "netns " $1 }'
	ip -o link show type bridge 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print "bridge " $2 }'
	host=$(readlink /proc/1/ns/net 2>/dev/null)
	for f in /proc/[0-9]*/comm; do
		{ read -r comm <"$f"; } 2>/dev/null || continue
		p=${f#/proc/}; p=${p%/comm}
		case $comm in
		sshd) [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" != "$host" ] &&
			echo "proc sshd $p" ;;
		slurmd|slurmctld|munged) echo "proc $comm $p" ;;
		esac
	done
}

case ${1:-} in
snapshot) snapshot | LC_ALL=C sort -u ;;
new) [ $# -eq 3 ] || { echo "usage: $0 new BEFORE AFTER" >&2; exit 2; }
	LC_ALL=C comm -13 "$2" "$3" ;;
*) echo "usage: $0 snapshot | new BEFORE AFTER" >&2; exit 2 ;;
esac
