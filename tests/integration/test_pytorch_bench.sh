#!/usr/bin/env bash
# tests/integration/test_pytorch_bench.sh: tools/bench_vs_pytorch.sh end to end on a tiny
# model, once on its own local cluster and once with --inventory pointed at a cluster this
# test brings up (the ssh path a real cluster takes): every cell of both stacks has a
# figure, the caps are gone afterwards, and nothing of the benchmark's cluster is left.
# Needs root, torch, mpirun and a built tree; SKIPs otherwise. Time: about 3-5 minutes.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/tools/bench_vs_pytorch.sh
name=pti$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-ptb.XXXXXX")
export GCBENCH_HOME=$tmp/home GCBENCH_NETEM_STATE_DIR=$tmp/home/netem-state
trap '"$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
cases="local_cluster_table inventory_table caps_cleared"

need_root $cases || exit 0
need_cmd mpirun $cases || exit 0
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done; exit 0; }
for b in gcbench gcbench-netem gcbench-worker; do
	[ -x "$BIN/$b" ] || { for n in $cases; do skip "$n" "$BIN/$b is not built"; done; exit 0; }
done
BUILD_ABS=$(cd "$BUILD" && pwd)

cat >"$tmp/small.csv" <<'EOF'
# small: 3 tensors
index,name,shape,numel
0,a.weight,512x256,131072
1,a.bias,512,512
2,b.weight,64x3x3x3,1728
EOF
# table_ok LOG: the row of the cap has 6 numbers, 3 ratios, the ring bound (133312 floats,
# 4 nodes, 2 Gbit/s at 1448/1514 goodput: 0.003 s) and the 2 ratios to it
table_ok() {
	awk -v m="csv:$tmp/small.csv" '$1 == m && $2 == "2" { n = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9.]+$/) n++
		ring = sprintf("%.3f", 1.5 * 32 * 133312 / (2e9 * 1448 / 1514)); ok = (n == 12 && $(NF - 2) == ring) }
		END { exit !ok }' "$1"
}
args=(--models "csv:$tmp/small.csv" --caps 2 --iters 2 --warmup 2 --force)

BUILD=$BUILD_ABS "$B" "${args[@]}" --keep "$tmp/keep1" >"$tmp/local.log" 2>&1; rc=$?
if [ "$rc" = 0 ] && table_ok "$tmp/local.log"; then pass local_cluster_table
else fail local_cluster_table "rc $rc: $(grep -E 'failed|WARN|csv:' "$tmp/local.log" | tail -n 4 | tr '\n' ' ')"; fi

# --shared-fs: the script's inventory mode expects this checkout at one path on every
# host (docs/pytorch.md), as hosts sharing an NFS tree have it
if ! "$BIN/gcbench" cluster up 4 --name "$name" --shared-fs >"$tmp/up.log" 2>&1; then
	fail inventory_table "cluster up failed: $(tail -n 2 "$tmp/up.log")"
	skip caps_cleared "no cluster"; exit 0
fi
inv=$GCBENCH_HOME/clusters/$name/inventory.yaml
BUILD=$BUILD_ABS "$B" "${args[@]}" --inventory "$inv" >"$tmp/inv.log" 2>&1; rc=$?
if [ "$rc" = 0 ] && table_ok "$tmp/inv.log"; then pass inventory_table
else fail inventory_table "rc $rc: $(grep -E 'failed|WARN|csv:' "$tmp/inv.log" | tail -n 4 | tr '\n' ' ')"; fi

# after the run no node of the inventory cluster keeps a tbf qdisc
left=""
for i in 1 2 3 4; do
	ip netns exec "gcb-$name-n$i" tc qdisc show dev eth0 2>/dev/null | grep -q tbf && left="$left n$i"
done
if [ -z "$left" ]; then pass caps_cleared; else fail caps_cleared "still capped:$left"; fi
