#!/usr/bin/env bash
# tests/integration/test_grace_adapter.sh: python/gcbench_grace.py, the adapter that runs
# a GRACE-style compressor as a DDP hook, on 2 gloo ranks over loopback with compressors
# written in GRACE's shape in tests/python/grace_adapter_check.py: exact averages for
# every per (tensor, bucket) x comm (allreduce, allgather), top-k with a residual memory
# equal on both ranks, bad parameters refused. SKIPs without torch. Time: ~10 s.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cases="grace_adapter"
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
if [ -z "$PY" ]; then
	skip grace_adapter "no python3 imports torch (apt-get install python3-torch)"
	exit 0
fi
out=$(mktemp /tmp/gcbench-grace.XXXXXX)
trap 'rm -f "$out"' EXIT
if r=$(timeout 120 "$PY" -B "$ROOT/tests/python/grace_adapter_check.py" "$out" 2>&1); then
	pass grace_adapter
else
	fail grace_adapter "$(tail -15 <<<"$r" | tr '\n' ' ')"
fi
