#!/usr/bin/env bash
# tests/integration/test_worker_nccl.sh: gcbench-worker --backend nccl on a GPU (one
# rank per GPU; 1 rank when the machine has one GPU). SKIP without a device or NCCL.
source "$(dirname "$0")/../lib.sh"
W=$BIN/gcbench-worker
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-wnccl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cases="nccl_syncsgd nccl_methods"
[ -x "$W" ] || { for n in $cases; do skip "$n" "$W is not built"; done; exit 0; }
need_cmd mpirun $cases || exit 0
if ! command -v nvidia-smi >/dev/null 2>&1 || ! ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || [ "$ngpu" -lt 1 ]; then
	for n in $cases; do skip "$n" "no GPU on this machine"; done; exit 0
fi
if "$W" --backend nccl --workload replay:tiny --iters 1 2>&1 | grep -q "built without NCCL"; then
	for n in $cases; do skip "$n" "gcbench-worker built without NCCL (CUDA=1 and nccl.h needed)"; done; exit 0
fi
p=$ngpu; [ "$p" -gt 4 ] && p=4
MPI=(mpirun --oversubscribe --mca btl self,tcp -np "$p" -x NCCL_IB_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo)
run() { timeout 120 "${MPI[@]}" "$W" --backend nccl --workload replay:tiny --iters 5 --warmup 1 \
	--compute-scale 0.01 --deadline 30 --out "$tmp/n-r%r.gcr" "$@" >"$tmp/out" 2>&1; }
if run --method syncsgd; then
	h=$("$W" --dump "$tmp/n-r0.gcr" | sed -n 's/^header //p')
	g=$("$W" --dump "$tmp/n-r0.gcr" | awk 'NR > 3 { print $12 }' | sort -g | tail -1)
	if grep -q '"backend":"nccl"' <<<"$h" && grep -q '"NCCL_IB_DISABLE":"1"' <<<"$h" &&
	   awk -v g="$g" 'BEGIN { exit !(g > 0) }'; then pass nccl_syncsgd
	else fail nccl_syncsgd "header or t_iter_gpu wrong: $h / $g"; fi
else fail nccl_syncsgd "$(tail -n 5 "$tmp/out" | tr '\n' ' ')"; fi
bad=""
for m in fp16 signsgd topk mstopk powersgd; do
	run --method "$m" || bad="$bad [$m: $(tail -n 2 "$tmp/out" | tr '\n' ' ')]"
done
if [ -z "$bad" ]; then pass nccl_methods; else fail nccl_methods "$bad"; fi
