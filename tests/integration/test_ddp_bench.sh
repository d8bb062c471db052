#!/usr/bin/env bash
# tests/integration/test_ddp_bench.sh: python/gcbench_ddp.py as gcbench's wrapper starts it
# (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME, GCBENCH_DEADLINE_S set;
# here by hand, 2 ranks on loopback) on ResNet-50's shapes from gcbench-worker
# --print-model, which DDP splits into several buckets: syncsgd, fp16, powersgd and topk
# each write complete records on both ranks (nonzero encode, comm and decode for the
# compressing hooks, PowerSGD's bytes far below the all-reduce's) and end with equal
# replicas; a csv: model; and its argument checks (exit 2). SKIPs without torch.
# Time: about 1 minute (2 cores).
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DDP=$ROOT/python/gcbench_ddp.py
W=$BIN/gcbench-worker
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-ddpb.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

hooks="syncsgd fp16 powersgd topk"
cases="args_checked csv_model"
for h in $hooks; do cases="$cases multibucket_$h"; done
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done
	exit 0
fi
if [ ! -x "$W" ]; then
	for n in $cases; do skip "$n" "$W is not built (needs libopenmpi-dev)"; done
	exit 0
fi

# ---- argument checks: exit 2 and a message that says what to do (no ranks started)
bad=""
badarg() { # EXPECTED_TEXT ARGS...
	local want=$1 out rc; shift
	out=$("$PY" "$DDP" "$@" 2>&1); rc=$?
	[ "$rc" = 2 ] && grep -qF -- "$want" <<<"$out" || bad="$bad [$*: rc $rc, $(tail -n 1 <<<"$out")]"
}
badarg "unknown method 'allreduce'" --hook allreduce --model tiny --worker "$W" --out "$tmp/x"
badarg "method topk takes no parameter 'rank'" --hook topk --params rank=4 --model tiny --worker "$W" --out "$tmp/x"
badarg "rank=x of powersgd is not an integer" --hook powersgd:rank=x --model tiny --worker "$W" --out "$tmp/x"
badarg "ratio must be in (0, 1]" --hook topk --params ratio=2 --model tiny --worker "$W" --out "$tmp/x"
badarg "start=2 must be in [2, --warmup 1]" --hook powersgd --warmup 1 --model tiny --worker "$W" --out "$tmp/x"
badarg "unknown architecture 'resnet5'" --hook fp16 --model resnet5 --worker "$W" --out "$tmp/x"
badarg "give --out FILE or set GCBENCH_RECORDS" --hook fp16 --model tiny --worker "$W"
if [ -z "$bad" ]; then pass args_checked; else fail args_checked "$bad"; fi

# ranks TAG ARGS...: 2 ranks of ddp_bench; records $tmp/TAG.rR.gcr; 0 if both exit 0
ranks() {
	local tag=$1 r rc=0 port; shift
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	pids=()
	for r in 0 1; do
		RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
			GLOO_SOCKET_IFNAME=lo GCBENCH_DEADLINE_S=120 GCBENCH_RECORDS="$tmp/$tag.r$r.gcr" \
			timeout 300 "$PY" "$DDP" "$@" >"$tmp/$tag.r$r.out" 2>"$tmp/$tag.r$r.err" &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	pids=()
	return $rc
}
# check TAG HOOK: both record files complete with 5 records (2 warmup), the same
# parameter checksum, replicas_equal; prints "buckets bytes_sent" of rank 0's last record
check() {
	local tag=$1 hook=$2 r
	for r in 0 1; do "$W" --dump "$tmp/$tag.r$r.gcr" >"$tmp/$tag.r$r.dump" || return 1; done
	awk -v hook="$hook" '
		FNR == 1 { h = $0; if (h !~ /"replicas_equal": true/ || h !~ "\"method\": \"" hook "\"") exit 1
			match(h, /"checksum_param": "[0-9a-f]+"/); c[FILENAME] = substr(h, RSTART, RLENGTH)
			match(h, /"buckets": [0-9]+/); b = substr(h, RSTART + 11, RLENGTH - 11) }
		FNR == 2 { if ($0 != "complete 1 records 5") exit 1 }
		FNR > 3 && $3 == 0 { n++; enc += ($7 > 0); com += ($9 > 0); dec += ($8 > 0); bytes = $15 }
		END { k = 0; for (f in c) { if (k++ && c[f] != prev) exit 1; prev = c[f] }
			if (n != 6 || k != 2) exit 1
			# every timed record: comm > 0; the compressing hooks: encode and decode too
			if (com != n || (hook != "syncsgd" && (enc != n || dec != n))) exit 1
			print b, bytes }' "$tmp/$tag.r0.dump" "$tmp/$tag.r1.dump"
}

# ---- ResNet-50's shapes (25.6 M parameters): DDP's 1 MiB first bucket and 25 MiB ones
for h in $hooks; do
	args=(--hook "$h" --model resnet50 --worker "$W" --iters 3 --warmup 2)
	[ "$h" = powersgd ] && args+=(--params rank=4)
	[ "$h" = topk ] && args+=(--params ratio=0.01)
	if ! ranks "rn.$h" "${args[@]}"; then
		fail "multibucket_$h" "a rank failed: $(for r in 0 1; do grep -v Warning "$tmp/rn.$h.r$r.err" | tail -n 6; done | tr '\n' ' ')"
		continue
	fi
	if ! got=$(check "rn.$h" "$h"); then
		fail "multibucket_$h" "records: $(head -n 6 "$tmp/rn.$h.r0.dump" 2>/dev/null | cut -c1-300 | tr '\n' ' ')"
		continue
	fi
	read -r nb bytes <<<"$got"
	eval "bytes_$h=$bytes"
	if [ "${nb:-0}" -lt 2 ]; then fail "multibucket_$h" "only ${nb:-?} bucket(s)"
	elif [ "$h" = powersgd ] && ! { [ "$bytes" -gt 0 ] && [ "$((bytes * 10))" -lt "${bytes_syncsgd:-0}" ]; }; then
		fail "multibucket_$h" "powersgd sent $bytes bytes, syncsgd ${bytes_syncsgd:-?}"
	else pass "multibucket_$h"; fi
done

# ---- a csv: model in several small buckets (the wrapper's per-bucket groups at work)
cat >"$tmp/small.csv" <<'EOF2'
# small: 4 tensors, 1 MiB each but the bias: 4 buckets at --bucket-cap-mb 1
index,name,shape,numel
0,a.weight,512x512,262144
1,a.bias,512,512
2,b.weight,512x512,262144
3,c.weight,256x4x16x16,262144
EOF2
if ranks small --hook powersgd:rank=2 --model "csv:$tmp/small.csv" --iters 3 --warmup 2 \
		--bucket-cap-mb 1 && got=$(check small powersgd) && [ "${got%% *}" -ge 3 ] &&
		grep -q '"numel": 786944' "$tmp/small.r0.dump" && grep -q '"tensors": 4' "$tmp/small.r0.dump"; then
	pass csv_model
else
	fail csv_model "buckets/bytes '${got:-}': $(for r in 0 1; do grep -v Warning "$tmp/small.r$r.err" | tail -n 2; done | tr '\n' ' ') $(head -n 1 "$tmp/small.r0.dump" 2>/dev/null | cut -c1-300)"
fi
