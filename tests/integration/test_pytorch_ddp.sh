#!/usr/bin/env bash
# tests/integration/test_pytorch_ddp.sh: the guards of tools/bench_vs_pytorch.sh (busy
# machine, bad caps). tools/ddp_bench.py itself: tests/integration/test_ddp_bench.sh.
# SKIPs without torch. Time: seconds.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-ddp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cases="bench_refuses_busy bench_rejects_bad_cap"
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done
	exit 0
fi

# the benchmark refuses to report on a busy machine (any load > --max-load 0 ... unless 0.00)
B=$ROOT/tools/bench_vs_pytorch.sh
if [ "$(id -u)" -ne 0 ]; then
	skip bench_refuses_busy "needs root (the benchmark builds a local cluster)"
elif [ ! -x "$BIN/gcbench-worker" ] || [ ! -x "$BIN/gcbench" ]; then
	skip bench_refuses_busy "$BIN/gcbench-worker or gcbench is not built"
elif awk '{ exit !($1 == 0) }' /proc/loadavg; then
	skip bench_refuses_busy "load average is exactly 0.00: cannot exceed --max-load 0"
else
	out=$(BUILD=$BUILD "$B" --max-load 0 --models resnet50 --caps 1 2>&1); rc=$?
	if [ "$rc" = 1 ] && grep -q 'busy.*refusing to report' <<<"$out" && ! grep -q 'bringing up' <<<"$out"; then
		pass bench_refuses_busy
	else fail bench_refuses_busy "rc $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
fi
out=$(BUILD=$BUILD "$B" --caps "1gbit" 2>&1); rc=$?
if [ "$rc" = 2 ] && grep -q "cap '1gbit' is not a number" <<<"$out"; then pass bench_rejects_bad_cap
else fail bench_rejects_bad_cap "rc $rc: $out"; fi
