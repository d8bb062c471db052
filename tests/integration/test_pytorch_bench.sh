#!/usr/bin/env bash
# tests/integration/test_pytorch_bench.sh: tools/bench_vs_pytorch.sh (make
# bench-vs-pytorch), one `gcbench run` of a two-stack spec, end to end on the tiny model:
# once on its own local cluster and once with --inventory pointed at a cluster this test
# brings up. Every row has both stacks' figures; the ring bound is the bytes gcbench's
# syncsgd rank sent, and those are what a ring all-reduce of the model's parameters
# (gcbench-worker --print-model) sends; caps are gone afterwards; the guards refuse a
# busy machine and bad arguments before anything starts. Needs root, torch, mpirun,
# sqlite3 and a built tree; SKIPs otherwise, but for the first two cases (run without
# torch): the script takes down the cluster it brought up, and not an --inventory's.
# Time: about 1.5-3 minutes.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/tools/bench_vs_pytorch.sh
cases="bench_refuses_busy bench_bad_args local_cluster_table ring_from_bytes inventory_table caps_cleared"
need_sweep $cases own_cluster_removed inventory_cluster_kept || exit 0

# the script takes down the cluster it brought up, and only that one (not the one of an
# --inventory); with a python that only claims torch and a one-point spec of gcbench's
# own stack, so that this runs where torch is missing too
t=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-ptc.XXXXXX")
printf '#!/bin/sh\nexit 0\n' >"$t/python3"; chmod +x "$t/python3"
printf 'name: ptc\nworkload: replay\nmodels: [tiny]\nmethods: [syncsgd]\nbaseline: syncsgd\nbandwidth: [1gbit]\nworld_size: 2\nbatch: 8\niterations: 2\nwarmup: 1\ntimeout: 90\n' >"$t/s.yaml"
out=$(PYTHON=$t/python3 BUILD=$(cd "$BUILD" && pwd) "$B" --spec "$t/s.yaml" --force -- --calibrate 0 2>&1); rc=$?
n=$(sed -n 's/.*local 4-node cluster (\(pt[0-9]*\)).*/\1/p' <<<"$out")
left=$(ip netns list | grep "^gcb-$n-" | cut -d' ' -f1 | tr '\n' ' ')
[ "$rc" = 0 ] && [ -n "$n" ] && [ -z "$left" ] && pass own_cluster_removed ||
	fail own_cluster_removed "rc $rc, cluster '$n', namespaces left: '$left': $(tail -n 3 <<<"$out" | tr '\n' ' ')"
kn=ptk$(( $$ % 100000 ))
trap 'GCBENCH_HOME=$t/home "$BIN/gcbench" cluster down --name "$kn" >/dev/null 2>&1; rm -rf "$t"' EXIT
if out=$(GCBENCH_HOME=$t/home "$BIN/gcbench" cluster up 2 --name "$kn" 2>&1); then
	out=$(BUILD=$(cd "$BUILD" && pwd) "$B" --spec "$t/s.yaml" --force \
		--inventory "$t/home/clusters/$kn/inventory.yaml" -- --calibrate 0 2>&1); rc=$?
	[ "$rc" = 0 ] && [ "$(ip netns list | grep -c "^gcb-$kn-n")" = 2 ] && pass inventory_cluster_kept ||
		fail inventory_cluster_kept "rc $rc, namespaces of $kn: $(ip netns list | grep -c "^gcb-$kn-n"): $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	GCBENCH_HOME=$t/home "$BIN/gcbench" cluster down --name "$kn" >/dev/null 2>&1
else fail inventory_cluster_kept "cluster up: $out"; fi
rm -rf "$t"; trap - EXIT
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
[ -n "$PY" ] || { for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done; exit 0; }
name=ptb$(( $$ % 100000 ))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-ptb.XXXXXX")
export GCBENCH_HOME=$tmp/home
trap '"$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
BUILD_ABS=$(cd "$BUILD" && pwd)

# the guards: before any cluster or run
if awk '{ exit !($1 == 0) }' /proc/loadavg; then
	skip bench_refuses_busy "load average is exactly 0.00: cannot exceed --max-load 0"
else
	out=$(BUILD=$BUILD_ABS "$B" --max-load 0 2>&1); rc=$?
	if [ "$rc" = 1 ] && grep -q 'busy.*refusing to measure' <<<"$out" && ! grep -q 'bringing up' <<<"$out"; then
		pass bench_refuses_busy
	else fail bench_refuses_busy "rc $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
fi
bad=""
for args in "--max-load x" "--spec $tmp/none.yaml" "--inventory $tmp/none.yaml" "--caps 1" "--keep"; do
	out=$(BUILD=$BUILD_ABS "$B" $args 2>&1); rc=$?
	[ "$rc" = 2 ] && grep -q '^bench-vs-pytorch: ' <<<"$out" || bad="$bad [$args: rc $rc: $out]"
done
[ -z "$bad" ] && pass bench_bad_args || fail bench_bad_args "$bad"

# the shipped spec made small: tiny, one cap, two methods, few iterations; this python
# and the files by absolute path (the nodes share this file system)
sed -e "s|\[python3,|[$PY,|" -e "s|\.\./|$ROOT/|g" -e 's/^models: .*/models: [tiny]/' \
	-e 's/^bandwidth: .*/bandwidth: 2gbit/' -e 's/^iterations: .*/iterations: 2/' \
	-e 's/^warmup: .*/warmup: 2/' -e 's/^timeout: .*/timeout: 120/' \
	-e '/^  - fp16$/d' -e '/^  - topk: /d' "$ROOT/experiments/bench-vs-pytorch.yaml" >"$tmp/small.yaml"
# row_ok LOG METHOD: the method's row has both times, their ratio and both speedups
row_ok() {
	awk -v m="$2" '$1 == "tiny" && $2 == "2" && $3 ~ "^" m { n = 0; for (i = 4; i <= NF; i++) if ($i ~ /^[0-9.]+$/) n++; ok = n >= 5 }
		END { exit !ok }' "$1"
}
BUILD=$BUILD_ABS "$B" --spec "$tmp/small.yaml" --force --keep "$tmp/keep1" >"$tmp/local.log" 2>&1; rc=$?
if [ "$rc" = 0 ] && row_ok "$tmp/local.log" syncsgd && row_ok "$tmp/local.log" powersgd; then pass local_cluster_table
else fail local_cluster_table "rc $rc: $(grep -E 'failed|error|WARN|^tiny' "$tmp/local.log" | tail -n 5 | tr '\n' ' ')"; fi

# ring_s is bytes x 8 x 1514/1448 / cap; the bytes are the ring all-reduce's
# 2 (p-1)/p x 4 B per parameter of the list gcbench-worker prints
numel=$("$BIN/gcbench-worker" --print-model tiny | awk -F, '$1 ~ /^[0-9]+$/ { n += $4 } END { print n }')
want=$(awk -v n="$numel" 'BEGIN { printf "%.3f", 2 * 3 / 4 * 4 * n * 8 * 1514 / 1448 / 2e9 }')
bytes=$(sqlite3 "$tmp/keep1/bench.db" "SELECT bytes_sent_median FROM run_summary WHERE stack = 'gcbench' AND method = 'syncsgd'")
got=$(awk '$1 == "tiny" && $3 == "syncsgd" { print $(NF - 2) }' "$tmp/local.log")
[ -n "$numel" ] && [ "$got" = "$want" ] && awk -v b="$bytes" -v n="$numel" 'BEGIN { exit !(b == 6 * n) }' &&
	pass ring_from_bytes || fail ring_from_bytes "ring $got, want $want (numel $numel, bytes sent $bytes)"

if ! "$BIN/gcbench" cluster up 4 --name "$name" >"$tmp/up.log" 2>&1; then
	fail inventory_table "cluster up: $(tail -n 3 "$tmp/up.log")"; fail caps_cleared "no cluster"; exit 0
fi
inv=$GCBENCH_HOME/clusters/$name/inventory.yaml
BUILD=$BUILD_ABS "$B" --spec "$tmp/small.yaml" --inventory "$inv" --force --db "$tmp/inv.db" >"$tmp/inv.log" 2>&1; rc=$?
if [ "$rc" = 0 ] && row_ok "$tmp/inv.log" syncsgd && row_ok "$tmp/inv.log" powersgd; then pass inventory_table
else fail inventory_table "rc $rc: $(grep -E 'failed|error|WARN|^tiny' "$tmp/inv.log" | tail -n 5 | tr '\n' ' ')"; fi
left=""
for i in 1 2 3 4; do
	tc -n "gcb-$name-n$i" qdisc show dev eth0 2>/dev/null | grep -Eq 'tbf|htb' && left="$left n$i"
done
[ -z "$left" ] && pass caps_cleared || fail caps_cleared "still capped:$left"
