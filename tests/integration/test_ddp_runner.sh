#!/usr/bin/env bash
# tests/integration/test_ddp_runner.sh: python/gcbench_ddp.py (workload: ddp's runner)
# without torch or a GPU: --plan shows the NCCL route's choices (process group nccl,
# device cuda:LOCAL_RANK, CUDA-event timing, NCCL_SOCKET_IFNAME) and gloo's for mpi; a
# missing LOCAL_RANK, an unknown method without a hook, a malformed hook and a bad
# parameter are refused (exit 2) with what to write; a hook's path maps to where
# gcbench ships it (spec_files.c's rule). `gcbench init hook NAME` writes a hook that
# compiles and a spec that parses (a dry run lists its 6 points), keeps existing files
# and refuses PyTorch's names and bad ones. Time: a few seconds.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
R=$ROOT/python/gcbench_ddp.py
cases="plan_nccl plan_gloo plan_topk_user refusals landed_paths init_hook"
need_cmd python3 $cases || exit 0

out=$(RANK=3 WORLD_SIZE=4 LOCAL_RANK=1 NCCL_SOCKET_IFNAME=eth9 python3 -B "$R" --plan --backend nccl \
	--hook int8 --params hook=../h/int8_hook.py:make_hook,bits=8 --model tiny 2>&1)
want='"device": "cuda:1", "hook": "h/int8_hook.py:make_hook", "iters": 20, "method": "int8", "model": "tiny", "params": "bits=8,hook=../h/int8_hook.py:make_hook", "process_group": "nccl", "rank": "3", "socket_ifname": "eth9", "timing": "cuda-events"'
[[ $out == *"$want"* ]] && pass plan_nccl || fail plan_nccl "got: $out"

out=$(RANK=0 WORLD_SIZE=2 GLOO_SOCKET_IFNAME=eth1 python3 -B "$R" --plan --hook powersgd:rank=2 --model tiny 2>&1)
[[ $out == *'"device": "cpu"'* && $out == *'"process_group": "gloo"'* && $out == *'"timing": "cpu"'* &&
	$out == *'"socket_ifname": "eth1"'* && $out == *'"params": "rank=2"'* ]] && pass plan_gloo || fail plan_gloo "got: $out"

# topk is the runner's own, but a spec's label topk with hook= is the user's hook
# (experiments/pytorch-hooks.yaml: examples/topk_hook.py:make_hook)
out=$(RANK=0 WORLD_SIZE=2 python3 -B "$R" --plan --hook topk \
	--params hook=../examples/topk_hook.py:make_hook,ratio=0.01 --model tiny 2>&1)
[[ $out == *'"hook": "examples/topk_hook.py:make_hook"'* && $out == *'"method": "topk"'* &&
	$out == *'"params": "hook=../examples/topk_hook.py:make_hook,ratio=0.01"'* ]] && pass plan_topk_user ||
	fail plan_topk_user "got: $out"

bad=""
check() {   # WANT ARGS...: exit 2 and WANT in stderr
	local want=$1 o rc=0; shift
	o=$(env -u LOCAL_RANK python3 -B "$R" --plan "$@" 2>&1) || rc=$?
	[ "$rc" = 2 ] && [[ $o == *"$want"* ]] || bad="$bad [$*: rc $rc: $o]"
}
check "--backend nccl needs LOCAL_RANK" --backend nccl --hook fp16 --model tiny
check "unknown method 'int9': use syncsgd, fp16, bf16, powersgd, batched_powersgd, topk, or your own hook" --hook int9 --model tiny
check "hook 'x.txt:f' is not FILE.py:FUNCTION" --hook q --params hook=x.txt:f --model tiny
check "hook 'x.py:1f' is not FILE.py:FUNCTION" --hook q --params hook=x.py:1f --model tiny
check "parameter 'bits' is given twice" --hook q --params hook=x.py:f,bits=1,bits=2 --model tiny
check "method powersgd takes no parameter 'rnak'" --hook powersgd --params rnak=2 --model tiny
check "method fp16 takes no parameter 'hook'" --hook fp16 --params hook=x.py:f --model tiny
check "method topk takes no parameter 'rank'" --hook topk --params rank=2 --model tiny
[ -z "$bad" ] && pass refusals || fail refusals "$bad"

got=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import gcbench_ddp as g
print(" ".join(g.landed(p) for p in sys.argv[2:]))' "$ROOT/python" h.py ./h.py pkg/h.py ./pkg/./sub/h.py \
	../x/h.py /abs/dir/h.py a/../b/h.py ../h.py 2>&1)
[ "$got" = "h.py h.py pkg/h.py pkg/sub/h.py x/h.py dir/h.py b/h.py h.py" ] && pass landed_paths ||
	fail landed_paths "got: $got"

tmp=$(mktemp -d /tmp/gcbench-ddp-runner.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bad=""
"$BIN/gcbench" init hook int4 --dir "$tmp" >"$tmp/out" 2>&1 || bad="$bad [init: $(cat "$tmp/out")]"
python3 -m py_compile "$tmp/int4_hook.py" 2>>"$tmp/out" || bad="$bad [does not compile]"
n=$("$BIN/gcbench" run "$tmp/int4.yaml" --inventory "$ROOT/experiments/inventory-local.yaml" --dry-run 2>&1 |
	grep -c '^  resnet50 \(syncsgd\|fp16\|int4(hook=int4_hook\.py:make_hook)\) @ ')
[ "$n" = 6 ] || bad="$bad [dry run: $n points, want 6]"
echo "# mine" >>"$tmp/int4_hook.py"
rc=0; o=$("$BIN/gcbench" init hook int4 --dir "$tmp" 2>&1) || rc=$?
[ "$rc" = 2 ] && [[ $o == *"exists; keep it, or give --force"* ]] && tail -1 "$tmp/int4_hook.py" | grep -q mine ||
	bad="$bad [existing: rc $rc: $o]"
for nm in fp16 syncsgd 9x "a-b" Int8 "$(printf 'x%.0s' {1..30})"; do
	rc=0; o=$("$BIN/gcbench" init hook "$nm" --dir "$tmp" 2>&1) || rc=$?
	[ "$rc" = 2 ] && [[ $o == *"write e.g. gcbench init hook int8"* ]] || bad="$bad [$nm: rc $rc: $o]"
done
[ -z "$bad" ] && pass init_hook || fail init_hook "$bad"
