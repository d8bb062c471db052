#!/usr/bin/env bash
# tests/integration/test_worker_nccl.sh: gcbench-worker --backend nccl.
#
# Without a GPU (runs here): two ranks whose launcher variable OMPI_COMM_WORLD_LOCAL_RANK
# is removed must still tell their local ranks apart (MPI_Comm_split_type) and fail
# with the CUDA error and the driver version, not hang.
# With GPUs (one rank per GPU, 1 to 5): syncsgd and every method; the communication
# thread sets the device itself (an LD_PRELOAD shim logs cudaSetDevice per thread);
# the averaged gradient's checksum of --backend nccl equals --backend mpi's for the
# methods whose sums are order-free at that world size.
# GCBENCH_EXPECT_GPU=1 (tools/gpu-check.sh) turns "no GPU" from SKIP into FAIL.
# GCBENCH_WORKER: the worker to test (default $BIN/gcbench-worker; gpu-check.sh passes
# the one of make cuda-check-worker). GCBENCH_WORKER_DIRECT=1: no mpirun (a worker built
# with tools/gpu-check/mpi, world size 1): one rank, started directly.
# GCBENCH_MPI_FLAVOR=openmpi|mpich: mpirun's flavour (default: from mpirun --version);
# MPICH gets no Open MPI flags and passes the environment on by itself.
# GCBENCH_DEADLINE_EPOCH: no launch runs past this time (gpu-check.sh's cap). Launches
# stay in this script's process group (timeout --foreground), so killing the group
# (tests/run.sh, gpu-check.sh) leaves nothing behind.
source "$(dirname "$0")/../lib.sh"
W=${GCBENCH_WORKER:-$BIN/gcbench-worker}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-wnccl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gpu_cases="nccl_syncsgd nccl_methods nccl_comm_thread_device nccl_vs_mpi"
expect=${GCBENCH_EXPECT_GPU:-0}
# no_gpu NAME... REASON: SKIP, or FAIL when a GPU is expected
no_gpu() {
	local why=${!#} n
	for n in "${@:1:$#-1}"; do
		if [ "$expect" = 1 ]; then fail "$n" "GCBENCH_EXPECT_GPU=1 but $why"; else skip "$n" "$why"; fi
	done
}
[ -x "$W" ] || { no_gpu nccl_no_gpu_local_rank $gpu_cases "$W is not built"; exit 0; }
direct=${GCBENCH_WORKER_DIRECT:-0}
[ "$direct" = 1 ] || need_cmd mpirun nccl_no_gpu_local_rank $gpu_cases || exit 0
if "$W" --backend nccl --workload replay:tiny --iters 1 --out "$tmp/probe-r%r.gcr" 2>&1 | grep -q "built without NCCL"; then
	no_gpu nccl_no_gpu_local_rank $gpu_cases "gcbench-worker built without NCCL (CUDA=1 and nccl.h needed)"; exit 0
fi
ngpu=0
command -v nvidia-smi >/dev/null 2>&1 && ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
flavor=${GCBENCH_MPI_FLAVOR:-}
if [ -z "$flavor" ] && [ "$direct" != 1 ]; then
	case $(mpirun --version 2>&1 | head -n 5) in
	*"Open MPI"*|*"Open RTE"*|*OpenRTE*|*PRRTE*) flavor=openmpi ;;
	*) flavor=mpich ;;
	esac
fi
if [ "$flavor" = openmpi ]; then
	MPIBASE=(mpirun --oversubscribe --mca btl self,tcp -x NCCL_IB_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo)
else
	MPIBASE=(env NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo mpirun)
fi
# limit S: S seconds, or less to end by GCBENCH_DEADLINE_EPOCH (at least 5)
limit() {
	local s=$1 l
	[ -n "${GCBENCH_DEADLINE_EPOCH:-}" ] || { echo "$s"; return; }
	l=$(( GCBENCH_DEADLINE_EPOCH - $(date +%s) ))
	[ "$l" -lt "$s" ] && s=$l
	[ "$s" -lt 5 ] && s=5
	echo "$s"
}
# launch N [VAR=VALUE]... CMD...: run N ranks by mpirun (Open MPI: the variables exported
# with -x; MPICH: in the environment), or with GCBENCH_WORKER_DIRECT=1 one process under
# env; 180 s at most
launch() {
	local n=$1 e=() x=(); shift
	while [ $# -gt 0 ] && [[ $1 == [A-Z_]*=* ]]; do e+=("$1"); x+=(-x "$1"); shift; done
	if [ "$direct" = 1 ]; then timeout --foreground -k 5 "$(limit 180)" env NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo "${e[@]}" "$@"
	elif [ "$flavor" = openmpi ]; then timeout --foreground -k 5 "$(limit 180)" "${MPIBASE[@]}" -np "$n" "${x[@]}" "$@"
	else timeout --foreground -k 5 "$(limit 180)" env "${e[@]}" "${MPIBASE[@]}" -np "$n" "$@"; fi
}

# ---- no GPU: local ranks from MPI, the reason printed ----
if [ "$ngpu" -lt 1 ] && [ "$direct" = 1 ]; then
	no_gpu nccl_no_gpu_local_rank $gpu_cases "no GPU on this machine (and no mpirun: the one-rank stub)"; exit 0
elif [ "$ngpu" -lt 1 ]; then
	cat >"$tmp/nolr.sh" <<-'EOF'
	#!/bin/sh
	unset OMPI_COMM_WORLD_LOCAL_RANK MPI_LOCALRANKID
	exec "$@"
	EOF
	chmod +x "$tmp/nolr.sh"
	timeout --foreground -k 5 "$(limit 60)" "${MPIBASE[@]}" -np 2 "$tmp/nolr.sh" "$W" --backend nccl --workload replay:tiny \
		--iters 1 --deadline 20 --out "$tmp/x-r%r.gcr" >"$tmp/out" 2>&1; rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "rank 1 (local rank 1)" "$tmp/out" &&
	   grep -q "rank 0 (local rank 0)" "$tmp/out" && grep -q "driver" "$tmp/out"; then
		pass nccl_no_gpu_local_rank
	else
		fail nccl_no_gpu_local_rank "rc $rc; want both local ranks and the driver in: $(tail -n 4 "$tmp/out" | tr '\n' ' ')"
	fi
	no_gpu $gpu_cases "no GPU on this machine ($(grep -o 'cudaGetDeviceCount[^)]*)' "$tmp/out" | head -1))"
	exit 0
fi
skip nccl_no_gpu_local_rank "a GPU is present (this case is for hosts without one)"

p=$ngpu; [ "$p" -gt 5 ] && p=5
[ "$direct" = 1 ] && p=1
args=(--workload replay:tiny --iters 5 --warmup 1 --compute-scale 0.01 --deadline 60)
run() { launch "$p" "$W" --backend nccl "${args[@]}" --out "$tmp/n-r%r.gcr" "$@" >"$tmp/out" 2>&1; }
header() { "$W" --dump "$1" | sed -n 's/^header //p'; }
jfield() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" <<<"$2"; }

if run --method syncsgd; then
	h=$(header "$tmp/n-r0.gcr")
	g=$("$W" --dump "$tmp/n-r0.gcr" | awk 'NR > 3 { print $12 }' | sort -g | tail -1)
	if grep -q '"backend":"nccl"' <<<"$h" && grep -q '"NCCL_IB_DISABLE":"1"' <<<"$h" &&
	   awk -v g="$g" 'BEGIN { exit !(g > 0) }'; then pass nccl_syncsgd
	else fail nccl_syncsgd "header or t_iter_gpu wrong: $h / $g"; fi
else fail nccl_syncsgd "p=$p: $(tail -n 5 "$tmp/out" | tr '\n' ' ')"; fi

bad=""
for m in fp16 signsgd topk mstopk powersgd; do
	run --method "$m" || bad="$bad [$m: $(tail -n 2 "$tmp/out" | tr '\n' ' ')]"
done
if [ -z "$bad" ]; then pass nccl_methods; else fail nccl_methods "p=$p: $bad"; fi

# The communication thread runs kernels and cuBLAS: it must set the device itself.
cat >"$tmp/shim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int cudaSetDevice(int dev);
int cudaSetDevice(int dev)
{
	static int (*real)(int);
	const char *log = getenv("GC_SHIM_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "cudaSetDevice");
	if (f) {
		fprintf(f, "%d %ld %d\n", (int)getpid(), (long)syscall(SYS_gettid), dev);
		fclose(f);
	}
	return real ? real(dev) : 1;
}
EOF
if ! cc -shared -fPIC -o "$tmp/shim.so" "$tmp/shim.c" -ldl 2>"$tmp/cc.err"; then
	fail nccl_comm_thread_device "cannot build the cudaSetDevice shim: $(head -n 3 "$tmp/cc.err" | tr '\n' ' ')"
elif launch "$p" LD_PRELOAD="$tmp/shim.so" GC_SHIM_LOG="$tmp/setdev.log" "$W" \
	--backend nccl "${args[@]}" --method topk --out "$tmp/s-r%r.gcr" >"$tmp/out" 2>&1; then
	# per process: the distinct threads that set a device, and whether all set the same one
	v=$(awk '{ t[$1 " " $2] = 1; d[$1] = d[$1] == "" ? $3 : (d[$1] == $3 ? $3 : "mixed") }
		 END { for (k in t) { split(k, a, " "); n[a[1]]++ }
		       for (p in n) print p, n[p], d[p] }' "$tmp/setdev.log" 2>/dev/null)
	if [ -n "$v" ] && awk '$2 < 2 || $3 == "mixed" { bad = 1 } END { exit bad }' <<<"$v"; then
		pass nccl_comm_thread_device
	else fail nccl_comm_thread_device "want >= 2 threads per rank setting one device; pid threads device: $(tr '\n' ';' <<<"$v")"; fi
else fail nccl_comm_thread_device "$(tail -n 3 "$tmp/out" | tr '\n' ' ')"; fi

# --backend nccl against --backend mpi: the averaged gradient bit for bit. The gathered
# methods decode in worker order on both; an all-reduce sums in the same order only
# for p <= 2. PowerSGD (cuBLAS vs the CPU's products) is compared by its loss of
# nothing here: it is left out, and said so.
cmp_methods="signsgd topk mstopk"
[ "$p" -le 2 ] && cmp_methods="syncsgd fp16 $cmp_methods"
bad=""
for m in $cmp_methods; do
	if ! run --method "$m"; then bad="$bad [$m nccl: $(tail -n 2 "$tmp/out" | tr '\n' ' ')]"; continue; fi
	if ! launch "$p" "$W" --backend mpi "${args[@]}" --method "$m" --out "$tmp/m-r%r.gcr" >"$tmp/out" 2>&1; then
		bad="$bad [$m mpi: $(tail -n 2 "$tmp/out" | tr '\n' ' ')]"; continue
	fi
	a=$(jfield checksum_grad "$(header "$tmp/n-r0.gcr")") b=$(jfield checksum_grad "$(header "$tmp/m-r0.gcr")")
	[ -n "$a" ] && [ "$a" = "$b" ] || bad="$bad [$m: nccl $a mpi $b]"
done
if [ -z "$bad" ]; then pass nccl_vs_mpi
else fail nccl_vs_mpi "p=$p, checksum_grad differs or a run failed: $bad (powersgd not compared)"; fi
