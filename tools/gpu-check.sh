#!/usr/bin/env bash
# tools/gpu-check.sh: the GPU half of gcbench in one go, on a bare GPU machine (issue 17).
#
#   tools/gpu-check.sh [--out DIR] [--build DIR] [--arch 90] [--jobs N] [--budget S]
#                      [--reps N] [--no-sanitizer] [--no-worker] [--stubs] [--dry-run] [-h]
#
# Builds only what the GPU checks need (make cuda-check-build, cuda-check-worker: no
# sqlite, libnl, yaml or curl; OpenBLAS replaced by a shim where missing), then:
#   1. test_kernels_cuda: CUDA against CPU for every method (small layouts, 4.6M
#      elements, ResNet-50 and BERT-base buckets, 1-5 workers, non-blocking stream);
#   2. gcbench-bench-kernels --cuda-only --spin: encode/decode ms and x d2d copy for
#      ResNet-50, ResNet-101, BERT-base; spin accuracy; spin vs encode contention;
#   3. gcbench-worker --backend nccl: test_worker_nccl.sh, then ResNet-50 replay at
#      world 1 with every method, with and without overlap (emulated backward requested
#      vs measured, and its slowdown while buckets encode), and whether NCCL takes 2
#      ranks on one GPU;
#   4. if time is left: the CUDA tests once under compute-sanitizer --tool memcheck;
#   5. a summary table; exit 1 if any check failed (an unexpected SKIP counts).
# GCBENCH_EXPECT_GPU=1 is exported: a missing GPU fails loudly instead of skipping.
# Every figure and log goes under $OUT (at most 8 files, flat): env.txt, build.log,
# kernels.log, bench.txt, worker.txt, sanitizer.log, summary.txt, gpu-check.log.
# A rerun in the same --build directory rebuilds only what changed (make -MMD).
# --stubs builds as on a bare machine even here (no pkg-config, the MPI stub and the
# CBLAS shim), to test that path.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$here/gpu-check-out}
build=build-gpu arch=90 jobs=$(nproc 2>/dev/null || echo 4) budget=470 reps=5
sanitizer=1 worker=1 dry=0 stubs=0
usage() { sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--build) build=${2:?--build needs a directory}; shift 2 ;;
	--arch) arch=${2:?--arch needs a compute capability, e.g. 90}; shift 2 ;;
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--budget) budget=${2:?--budget needs seconds}; shift 2 ;;
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	--no-sanitizer) sanitizer=0; shift ;;
	--no-worker) worker=0; shift ;;
	--dry-run) dry=1; shift ;;
	--stubs) stubs=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
for v in jobs budget reps arch; do
	case ${!v} in ''|*[!0-9]*) echo "gpu-check: --$v '${!v}' is not a whole number" >&2; exit 2 ;; esac
done
cd "$here" || exit 2
mkdir -p "$out" || { echo "gpu-check: cannot create '$out'" >&2; exit 2; }
export GCBENCH_EXPECT_GPU=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t_start=$(date +%s)
log=$out/gpu-check.log
: >"$log"
rows=()
fails=0
say() { echo "gpu-check: $*" | tee -a "$log" >&2; }
left() { echo $(( budget - ($(date +%s) - t_start) )); }
# cap S: the seconds a step may take: S, or what is left of the budget (at least 10)
cap() { local l; l=$(left); [ "$l" -gt "$1" ] && l=$1; [ "$l" -lt 10 ] && l=10; echo "$l"; }
# row STEP RESULT SECONDS DETAIL
row() {
	local r=$2
	[ "$dry" = 1 ] && [ "$r" != FAIL ] && r=DRY
	rows+=("$(printf '%-22s %-5s %5ss  %s' "$1" "$r" "$3" "$4")"); [ "$r" = FAIL ] && fails=$((fails + 1)); say "$1: $r ($3 s) $4"; }
# run_to FILE TIMEOUT CMD...: run with a deadline, output appended to FILE; returns rc
run_to() {
	local f=$1 t=$2; shift 2
	echo "+ $*" >>"$f"
	if [ "$dry" = 1 ]; then echo "dry-run: $*" | tee -a "$log"; return 0; fi
	timeout --kill-after=10 "$t" "$@" >>"$f" 2>&1
}
# counts LOG: "P F S unexpected-skips" from PASS/FAIL/SKIP lines; SKIPs of the cases
# meant for hosts without a GPU are expected
counts() {
	local p f s u
	p=$(grep -c '^PASS ' "$1") f=$(grep -c '^FAIL ' "$1") s=$(grep -c '^SKIP ' "$1")
	u=$(grep '^SKIP ' "$1" | grep -v -c -e 'absent_fails_cleanly' -e 'no_gpu')
	echo "$p $f $s $u"
}

# ---- the machine -----------------------------------------------------------
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "host: $(uname -n) $(uname -m), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
	echo "nvcc: $(nvcc --version 2>/dev/null | tail -n 2 | tr '\n' ' ')"
	echo "gcc: $(${CC:-gcc} --version 2>/dev/null | head -n 1)"
	echo "mpi: $(mpirun --version 2>/dev/null | head -n 1)"
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv 2>&1
	nvidia-smi -L 2>&1
} >"$out/env.txt" 2>&1
ngpu=0 smi="nvidia-smi is not installed"
if command -v nvidia-smi >/dev/null 2>&1; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') smi=$(nvidia-smi -L 2>&1 | head -n 1)
fi
if [ "$ngpu" -lt 1 ] && [ "$dry" = 1 ]; then
	row gpu INFO 0 "dry run: no GPU found here"
elif [ "$ngpu" -lt 1 ]; then
	row gpu FAIL 0 "no GPU found ($smi); every device check below fails"
else
	row gpu PASS 0 "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
fi

# ---- build (subset) --------------------------------------------------------
# NCCL: the toolkit's, /usr's, or the nvidia-nccl wheel's (include/ and lib/libnccl.so.2)
nccl_dir=""
for d in "$CUDA_HOME" /usr $(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null) \
	 $(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "nccl"))' 2>/dev/null); do
	[ -f "$d/include/nccl.h" ] && { nccl_dir=$d; break; }
done
mkargs=(CUDA=1 "CUDA_ARCH=$arch" "BUILD=$build" -j"$jobs")
pc() { [ "$stubs" = 0 ] && pkg-config "$@" 2>/dev/null; }
[ "$stubs" = 1 ] && mkargs+=(PKG_CONFIG=false)
if [ -n "$nccl_dir" ] && [ "$nccl_dir" != "$CUDA_HOME" ] && [ "$nccl_dir" != /usr ]; then
	mkdir -p "$build/nccl-lib"
	lib=$(ls "$nccl_dir"/lib/libnccl.so* 2>/dev/null | head -n 1)
	[ -n "$lib" ] && ln -sf "$lib" "$build/nccl-lib/libnccl.so"
	export CPATH=$nccl_dir/include${CPATH:+:$CPATH}
	export LIBRARY_PATH=$here/$build/nccl-lib${LIBRARY_PATH:+:$LIBRARY_PATH}
	export LD_LIBRARY_PATH=$nccl_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	mkargs+=(HAVE_NCCL=1)
fi
# MPI: pkg-config ompi-c (the Makefile's own), else the compiler wrapper's flags
mpi_ok=0
if pc --exists ompi-c; then mpi_ok=1
elif [ "$stubs" = 0 ] && command -v mpicc >/dev/null 2>&1; then
	mc=$(mpicc -showme:compile 2>/dev/null || mpicc -compile_info 2>/dev/null | cut -d' ' -f2-)
	ml=$(mpicc -showme:link 2>/dev/null || mpicc -link_info 2>/dev/null | cut -d' ' -f2-)
	[ -n "$ml" ] && { mpi_ok=1; mkargs+=(HAVE_MPI=1 "MPI_CFLAGS=$mc" "MPI_LIBS=$ml"); }
fi
command -v mpirun >/dev/null 2>&1 || mpi_ok=0
[ "$stubs" = 1 ] && mpi_ok=0
direct=0 mpi_what="MPI"
if [ "$mpi_ok" = 0 ]; then     # no MPI: the one-process stub, world size 1, no mpirun
	direct=1 mpi_what="no MPI here: the one-process stub tools/gpu-check/mpi (world 1)"
	mkargs+=(HAVE_MPI=1 MPI_STUB=1 MPI_CFLAGS= MPI_LIBS=)
fi
blas=openblas
if ! pc --exists openblas; then blas="shim (tools/gpu-check/cblas.h)"; mkargs+=(CBLAS_SHIM=1); fi
# A copied tree may come with every file's time reset, which would make make rebuild all:
# sources whose content matches the last build's stamp get that build's time back.
stamps=$build/.src-stamps
srcs() { find Makefile common formats kernels worker tests/unit tests/harness.h tools/gpu-check \
	-type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' -o -name '*.mk' -o -name Makefile \) 2>/dev/null; }
restore_times() {
	[ -f "$stamps" ] || return 0
	local sum t f cur
	while read -r sum t f; do
		[ -f "$f" ] || continue
		cur=$(sha1sum "$f" | cut -d' ' -f1)
		[ "$cur" = "$sum" ] && touch -d "@$t" "$f"
	done <"$stamps"
}
save_times() { mkdir -p "$build"; srcs | while read -r f; do echo "$(sha1sum "$f" | cut -d' ' -f1) $(stat -c %Y "$f") $f"; done >"$stamps"; }
[ "$dry" = 1 ] || restore_times
t0=$(date +%s)
if run_to "$out/build.log" 300 make "${mkargs[@]}" cuda-check-build; then
	row build PASS $(( $(date +%s) - t0 )) "make ${mkargs[*]} cuda-check-build (nccl: ${nccl_dir:-none}, blas: $blas)"
	built=1
else
	row build FAIL $(( $(date +%s) - t0 )) "see build.log: $(grep -m1 -i 'error' "$out/build.log")"
	built=0
fi
wk=""
if [ "$worker" = 1 ] && [ "$built" = 1 ]; then
	t0=$(date +%s)
	if [ -z "$nccl_dir" ]; then
		row build-worker FAIL 0 "no nccl.h found ($CUDA_HOME/include, /usr/include, the nvidia-nccl wheel)"
	elif run_to "$out/build.log" 200 make "${mkargs[@]}" HAVE_MPI=1 cuda-check-worker; then
		wk=$build/cuda-check/gcbench-worker
		row build-worker PASS $(( $(date +%s) - t0 )) "make cuda-check-worker ($mpi_what)"
	else
		row build-worker FAIL $(( $(date +%s) - t0 )) "see build.log"
	fi
fi
cc=$build/cuda-check
[ "$dry" = 1 ] || [ "$built" = 0 ] || save_times

# ---- 1. the CUDA tests -----------------------------------------------------
if [ "$built" = 1 ]; then
	t0=$(date +%s)
	run_to "$out/kernels.log" "$(cap 240)" tests/run.sh "$cc/test_kernels_cuda"
	rc=$?
	read -r p f s u < <(counts "$out/kernels.log")
	if [ "$dry" = 1 ]; then row test_kernels_cuda SKIP 0 "dry run"
	elif [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$u" -eq 0 ] && [ "$p" -gt 0 ]; then
		row test_kernels_cuda PASS $(( $(date +%s) - t0 )) "$p passed, $s skipped (expected)"
	else
		row test_kernels_cuda FAIL $(( $(date +%s) - t0 )) "rc $rc: $p passed, $f failed, $s skipped ($u unexpected): $(grep -m2 '^FAIL' "$out/kernels.log" | cut -c1-200 | tr '\n' ' ')"
	fi
fi

# ---- 2. the kernel benchmark -------------------------------------------------
if [ "$built" = 1 ]; then
	t0=$(date +%s)
	run_to "$out/bench.txt" "$(cap 150)" "$cc/gcbench-bench-kernels" --cuda-only --spin \
		--reps "$reps" --model resnet50 --model resnet101 --model bert-base
	rc=$?
	if [ "$rc" -eq 0 ]; then
		row bench-kernels PASS $(( $(date +%s) - t0 )) "bench.txt: $(grep -c '^[a-z0-9-]* *cuda ' "$out/bench.txt") CUDA rows"
	else
		row bench-kernels FAIL $(( $(date +%s) - t0 )) "rc $rc: $(grep -m1 -i 'error' "$out/bench.txt")"
	fi
fi

# ---- 3. gcbench-worker --backend nccl ----------------------------------------
# replay_fig OVERLAP_RECORD NOOVERLAP_RECORD: "requested measured_noovl x measured_ovl x"
replay_fig() {
	local req a b
	req=$("$wk" --dump "$2" | sed -n 's/.*"t_backward_model":\([0-9.e+-]*\).*/\1/p')
	a=$("$wk" --dump "$2" | awk 'NR > 3 && $3 == 0 { print $5 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	b=$("$wk" --dump "$1" | awk 'NR > 3 && $3 == 0 { print $5 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	awk -v r="$req" -v a="$a" -v b="$b" 'BEGIN { printf "%.4f %.4f %.3f %.4f %.3f", r, a, a / r, b, b / a }'
}
if [ -n "$wk" ]; then
	t0=$(date +%s)
	W=$out/worker.txt
	run_to "$W" "$(cap 150)" env GCBENCH_WORKER="$wk" GCBENCH_WORKER_DIRECT="$direct" \
		bash tests/integration/test_worker_nccl.sh
	read -r p f s u < <(counts "$W")
	if [ "$dry" = 1 ]; then row test_worker_nccl SKIP 0 "dry run"
	elif [ "$f" -eq 0 ] && [ "$u" -eq 0 ] && [ "$p" -gt 0 ]; then row test_worker_nccl PASS $(( $(date +%s) - t0 )) "$p passed"
	else row test_worker_nccl FAIL $(( $(date +%s) - t0 )) "$p passed, $f failed, $u unexpected skips: $(grep -m2 '^FAIL' "$W" | cut -c1-200 | tr '\n' ' ')"; fi

	t0=$(date +%s)
	rec=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-rec.XXXXXX")
	mpi=(mpirun --oversubscribe --mca btl self,tcp -x NCCL_IB_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo)
	[ -n "${LD_LIBRARY_PATH:-}" ] && mpi+=(-x LD_LIBRARY_PATH)
	one=("${mpi[@]}" -np 1)
	[ "$direct" = 1 ] && one=(env NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
	rargs=(--backend nccl --workload replay:resnet50 --iters 6 --warmup 1 --deadline 60)
	echo "# ResNet-50 replay, world 1, GPU compute emulation (seconds; medians of the measured iterations)" >>"$W"
	echo "# t_bwd_req: the model's emulated backward; noovl: t_backward with --no-overlap (compute alone);" >>"$W"
	echo "# ovl: t_backward with buckets encoding on the communication stream; ovl_x = ovl / noovl" >>"$W"
	printf '%-10s %10s %10s %8s %10s %8s\n' method t_bwd_req noovl noovl_x ovl ovl_x >>"$W"
	bad=""
	for m in syncsgd fp16 signsgd topk mstopk powersgd; do
		[ "$(left)" -lt 40 ] && { bad="$bad [$m: out of time]"; continue; }
		if run_to "$W" 90 "${one[@]}" "$wk" "${rargs[@]}" --method "$m" --no-overlap --out "$rec/$m-n-r%r.gcr" &&
		   run_to "$W" 90 "${one[@]}" "$wk" "${rargs[@]}" --method "$m" --out "$rec/$m-o-r%r.gcr"; then
			[ "$dry" = 1 ] || printf '%-10s %10s %10s %8s %10s %8s\n' "$m" $(replay_fig "$rec/$m-o-r0.gcr" "$rec/$m-n-r0.gcr") >>"$W"
		else bad="$bad [$m]"; fi
	done
	if [ -z "$bad" ]; then row replay-resnet50 PASS $(( $(date +%s) - t0 )) "worker.txt: requested vs measured backward, overlap slowdown"
	else row replay-resnet50 FAIL $(( $(date +%s) - t0 )) "failed:$bad (worker.txt)"; fi

	t0=$(date +%s)
	echo "# two ranks on one GPU (NCCL usually refuses: one GPU per rank)" >>"$W"
	if [ "$direct" = 1 ]; then
		row two-ranks-one-gpu INFO 0 "not tried: no MPI on this machine"
	elif run_to "$W" 60 "${mpi[@]}" -np 2 "$wk" --backend nccl --workload replay:tiny --iters 2 --deadline 30 \
		--method syncsgd --out "$rec/two-r%r.gcr"; then
		row two-ranks-one-gpu INFO $(( $(date +%s) - t0 )) "NCCL ran 2 ranks on one GPU"
	else
		row two-ranks-one-gpu INFO $(( $(date +%s) - t0 )) "NCCL does not run 2 ranks on one GPU: $(grep -m1 -o 'ncclCommInitRank failed[^(]*' "$W")"
	fi
	rm -rf "$rec"
fi

# ---- 4. compute-sanitizer ----------------------------------------------------
if [ "$sanitizer" = 1 ] && [ "$built" = 1 ]; then
	t0=$(date +%s) lt=$(( $(left) - 20 ))
	if ! command -v compute-sanitizer >/dev/null 2>&1; then
		row memcheck SKIP 0 "compute-sanitizer not on PATH (not counted as a failure)"
	elif [ "$lt" -lt 45 ]; then
		row memcheck SKIP 0 "no time left ($(left) s); not counted as a failure"
	else
		# memory errors only: the timing tests may fail under the sanitizer's slowdown
		run_to "$out/sanitizer.log" "$lt" env GCBENCH_CUDA_QUICK=1 compute-sanitizer --tool memcheck \
			--error-exitcode 99 "$cc/test_kernels_cuda"
		rc=$?
		nerr=$(grep -c '^========= Invalid\|^========= Program hit\|ERROR SUMMARY: [1-9]' "$out/sanitizer.log")
		tf="$(grep -c '^FAIL' "$out/sanitizer.log") test(s) failed under memcheck (timing tests may)"
		if [ "$dry" = 1 ]; then row memcheck SKIP 0 "dry run"
		elif [ "$rc" -eq 99 ] || [ "$nerr" -gt 0 ]; then row memcheck FAIL $(( $(date +%s) - t0 )) "rc $rc, $nerr reports: $(grep -m1 '^========= Invalid\|ERROR SUMMARY' "$out/sanitizer.log")"
		elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then row memcheck INFO $(( $(date +%s) - t0 )) "stopped at the time limit ($lt s) after $(grep -c '^PASS' "$out/sanitizer.log") tests, no error reported so far"
		elif grep -q 'ERROR SUMMARY: 0 errors' "$out/sanitizer.log"; then row memcheck PASS $(( $(date +%s) - t0 )) "0 errors; $tf"
		else row memcheck FAIL $(( $(date +%s) - t0 )) "rc $rc, no ERROR SUMMARY: $(tail -n 1 "$out/sanitizer.log")"; fi
	fi
fi

# ---- 5. summary ----------------------------------------------------------------
{
	echo "gpu-check $(date -u '+%Y-%m-%d %H:%M UTC') on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1) (${ngpu} GPU), $(( $(date +%s) - t_start )) s"
	printf '%-22s %-5s %6s  %s\n' check result time detail
	printf '%s\n' "${rows[@]}"
	echo "result: $([ "$fails" -eq 0 ] && echo "all checks passed" || echo "$fails check(s) FAILED")"
} | tee "$out/summary.txt"
[ "$fails" -eq 0 ]
