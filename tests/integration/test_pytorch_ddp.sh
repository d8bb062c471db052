#!/usr/bin/env bash
# tests/integration/test_pytorch_ddp.sh: tools/ddp_bench.py (PyTorch DDP with the default
# all-reduce, fp16_compress_hook and powerSGD_hook on a model's shapes) with 2 ranks on
# loopback, its built-in BERT-base list against the reference, its argument checks, and
# the guards of tools/bench_vs_pytorch.sh (busy machine, bad caps). SKIPs without torch.
# Time: about 1-2 minutes (torch start-up dominates).
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${GCBENCH_SHARED:-$ROOT/../shared}
DDP=$ROOT/tools/ddp_bench.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-ddp.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

cases="bert_base_list ddp_allreduce ddp_fp16 ddp_powersgd powersgd_start_checked bench_refuses_busy bench_rejects_bad_cap"
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done
	exit 0
fi

# the built-in BERT-base list equals the reference rows
ref=$SHARED/data/models/bert-base.csv
if [ ! -r "$ref" ]; then skip bert_base_list "no reference list $ref (set GCBENCH_SHARED)"
elif ! "$PY" "$DDP" --model bert-base --write-csv "$tmp/bert.csv" 2>"$tmp/b.err"; then
	fail bert_base_list "$(cat "$tmp/b.err")"
elif d=$(diff <(grep -v '^#' "$tmp/bert.csv") <(grep -v '^#' "$ref")); then pass bert_base_list
else fail bert_base_list "rows differ: $(head -n 6 <<<"$d" | tr '\n' ' ')"; fi

# a small model: two matrices (PowerSGD compresses them) and a vector (sent as is)
cat >"$tmp/small.csv" <<'EOF'
# small: 3 tensors
index,name,shape,numel
0,a.weight,256x128,32768
1,a.bias,256,256
2,b.weight,64x3x3x3,1728
EOF
port=$((29700 + $$ % 200))
for hook in allreduce fp16 powersgd; do
	port=$((port + 1))
	pids=()
	for r in 0 1; do
		timeout 300 "$PY" "$DDP" --rank "$r" --world 2 --master 127.0.0.1 --port "$port" --iface lo \
			--model "csv:$tmp/small.csv" --hook "$hook" --iters 3 --warmup 2 --bucket-mb 0.05 \
			--deadline 240 >"$tmp/$hook.r$r.out" 2>"$tmp/$hook.r$r.err" &
		pids+=($!)
	done
	rc=0 rcs=""
	for p in "${pids[@]}"; do wait "$p"; r=$?; rcs="$rcs $r"; [ $r = 0 ] || rc=1; done
	pids=()
	line=$(sed -n 's/^ddp_bench //p' "$tmp/$hook.r0.out")
	if [ "$rc" != 0 ] || [ -z "$line" ]; then
		fail "ddp_$hook" "ranks failed (exit status$rcs): $(for r in 0 1; do echo "r$r:"; tail -n 4 "$tmp/$hook.r$r.err" "$tmp/$hook.r$r.out"; done | tr '\n' ' ')"; continue; fi
	# 3 timed iterations, a positive median, identical replicas, the hook and 3 tensors
	if "$PY" - "$hook" "$line" >"$tmp/$hook.chk" 2>&1 <<'EOF'
import json, sys
d = json.loads(sys.argv[2])
assert d["hook"] == sys.argv[1], d["hook"]
assert len(d["iter_s"]) == 3 and d["median_s"] > 0, d["iter_s"]
assert d["tensors"] == 3 and d["numel"] == 34752, (d["tensors"], d["numel"])
assert d["replicas_equal"] is True
assert (d["powersgd_rank"] == 4) == (sys.argv[1] == "powersgd")
EOF
	then pass "ddp_$hook"; else fail "ddp_$hook" "$(tail -n 1 "$tmp/$hook.chk"): $line"; fi
done

# PowerSGD must compress in the timed iterations: start_powerSGD_iter <= warmup, >= 2
"$PY" "$DDP" --rank 0 --world 2 --master 127.0.0.1 --hook powersgd --warmup 1 >/dev/null 2>"$tmp/s.err"; rc=$?
if [ "$rc" = 2 ] && grep -q 'start-powersgd-iter must be in' "$tmp/s.err"; then pass powersgd_start_checked
else fail powersgd_start_checked "rc $rc: $(tail -n 1 "$tmp/s.err")"; fi

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
