#!/usr/bin/env bash
# tools/bench-netem.sh (make bench-netem): how close TCP goodput gets to a cap.
#
# Brings up a 2-node local cluster, caps n1's eth0 at 1, 2, 5, 10 and 20 Gbit/s, and
# measures goodput n1 -> n2 with gcbench-probe and with iperf3 (the outside reference),
# beside the unshaped veth rate, so a reader sees which limit binds. Then tears down.
#
# Expected goodput: tc counts layer-2 bytes, a full TCP segment at MTU 1500 carries
# 1448 payload bytes (1500 - 20 IP - 20 TCP - 12 timestamp option) in a 1514-byte frame
# (1500 + 14 Ethernet header; tc sees no preamble or FCS): 1448/1514 = 0.9564 of the cap.
# Ratios are measured / expected. A benchmark: it never fails on the figures.
#   BENCH_SECONDS (default 2) per measurement.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/bin
secs=${BENCH_SECONDS:-2}
caps="1 2 5 10 20"

if [ "$(id -u)" -ne 0 ]; then
	echo "bench-netem: skipped: needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) for namespaces and qdiscs"
	exit 0
fi
for b in gcbench gcbench-netem gcbench-probe; do
	[ -x "$BIN/$b" ] || { echo "bench-netem: $BIN/$b is not built (run make)" >&2; exit 1; }
done
have_iperf=1
command -v iperf3 >/dev/null || { have_iperf=0; echo "bench-netem: iperf3 not installed: no reference column"; }

name=bn$$
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcbb.XXXXXX")
export GCBENCH_NETEM_STATE_DIR=$GCBENCH_HOME/netem-state
trap '"$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"' EXIT

load=$(cut -d' ' -f1 /proc/loadavg) ncpu=$(nproc)
echo "bench-netem: load average $load on $ncpu cores before measuring"
if awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l > 0.5 * n) }'; then
	echo "bench-netem: WARNING: the machine is busy (load $load > half of $ncpu cores): the figures measure the CPU as much as the link"
fi

"$BIN/gcbench" cluster up 2 --name "$name" >/dev/null || { echo "bench-netem: cluster up failed" >&2; exit 1; }
ns1=gcb-$name-n1 ns2=gcb-$name-n2
a2=$(sed -n 's/^    address: //p' "$GCBENCH_HOME/clusters/$name/inventory.yaml" | sed -n 2p)

probe() {
	ip netns exec "$ns2" "$BIN/gcbench-probe" server --bind "$a2" --port 5301 --once >/dev/null &
	local s=$!; sleep 0.3
	ip netns exec "$ns1" "$BIN/gcbench-probe" client --connect "$a2" --port 5301 --time "$secs" |
		sed -n 's/.*goodput_bps=\([0-9]*\).*/\1/p'
	wait "$s" 2>/dev/null
}
iperf() {
	[ "$have_iperf" = 1 ] || { echo 0; return; }
	ip netns exec "$ns2" iperf3 -s -1 -B "$a2" -p 5302 >/dev/null 2>&1 &
	local s=$!; sleep 0.3
	ip netns exec "$ns1" iperf3 -c "$a2" -p 5302 -t "$secs" -J 2>/dev/null |
		python3 -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))' 2>/dev/null || echo 0
	wait "$s" 2>/dev/null
}
g() { awk -v v="$1" 'BEGIN { printf "%.3f", v / 1e9 }'; }
r() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }'; }

u_probe=$(probe) u_iperf=$(iperf)
echo "unshaped veth n1->n2: probe $(g "$u_probe") Gbit/s, iperf3 $(g "$u_iperf") Gbit/s (congestion control reno)"
printf "%-9s %-11s %-11s %-7s %-12s %-7s %-9s\n" cap_gbit expect_gbit probe_gbit ratio iperf3_gbit ratio unshaped
for c in $caps; do
	"$BIN/gcbench-netem" set --dev eth0 --netns "$ns1" --rate "${c}gbit" --owner $$ >/dev/null ||
		{ echo "bench-netem: cannot cap at ${c}gbit" >&2; continue; }
	exp=$(awk -v c="$c" 'BEGIN { printf "%.0f", c * 1e9 * 1448 / 1514 }')
	p=$(probe) i=$(iperf)
	"$BIN/gcbench-netem" clear --dev eth0 --netns "$ns1"
	printf "%-9s %-11s %-11s %-7s %-12s %-7s %-9s\n" "$c" "$(g "$exp")" "$(g "${p:-0}")" \
		"$(r "${p:-0}" "$exp")" "$(g "$i")" "$(r "$i" "$exp")" "$(g "$u_probe")"
done
echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
