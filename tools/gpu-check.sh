#!/usr/bin/env bash
# tools/gpu-check.sh: the GPU half of gcbench in one run of at most --budget seconds,
# on a bare GPU machine (docs/cuda.md).
#
#   tools/gpu-check.sh [--out DIR] [--build DIR] [--arch 90] [--jobs N] [--budget S]
#                      [--reps N] [--only STEPS] [--no-sanitizer] [--no-worker]
#                      [--no-torch] [--stubs] [--dry-run] [-h]
#
# 0. preflight: gcc/g++, make, pkg-config, nvcc, where cublas_v2.h/libcublas and
#    nccl.h/libnccl are (the toolkit, /usr, or pip wheels' nvidia/*/include and lib),
#    mpirun and which MPI (Open MPI or MPICH), torch with CUDA; the build follows what
#    it finds: WERROR= (warnings of an unknown gcc do not stop the build), libraries
#    without their dev symlink linked through build/gpu-libs, the one-process MPI stub
#    and the CBLAS shim where MPI or OpenBLAS is missing;
# 1. build: make cuda-check-build cuda-check-worker (no sqlite, libnl, yaml or curl);
# 2. kernels: test_kernels_cuda, CUDA against CPU for every method;
# 3. bench: gcbench-bench-kernels --cuda-only --spin (CUDA events): encode/decode ms
#    and x the d2d copy for ResNet-50, ResNet-101, BERT-base; spin accuracy/contention;
# 4. torch: tools/torch_codecs.py, the study's code paths in PyTorch eager per bucket
#    (PowerSGD rank 4 and 16, topk 1%, MSTop-K 20 rounds, sign packing), if torch has CUDA;
#    then python/gcbench_ddp.py (workload: ddp's runner) on NCCL, one rank on cuda:0
#    with CUDA events, the fp16 hook and a user's hook (ddp.txt);
# 5. worker: test_worker_nccl.sh, then a ResNet-50 replay at world 1 per method with
#    and without overlap, and whether NCCL takes 2 ranks on one GPU;
# 6. memcheck: the CUDA tests under compute-sanitizer with the time left ("Device not
#    supported" and API errors are "not available"; memory errors FAIL).
# --only STEPS: a comma list of build,kernels,bench,torch,worker,memcheck (a rerun of
# one part after a fix; the binaries of --build are used as they are).
# Every step runs in its own session under a cap taken from the budget: on expiry the
# whole session is killed (nested timeouts' process groups included), and so is the
# running step when gpu-check itself is stopped. summary.txt is rewritten after every
# step, so a killed run still brings back what it measured. Files under $OUT (flat):
# env.txt, build.log, kernels.log, bench.txt, torch.txt, ddp.txt, worker.txt, sanitizer.log,
# summary.txt, gpu-check.log (each step starts its files afresh; with --only, the
# other steps' files stay). A rerun in the same --build rebuilds only what changed.
# GCBENCH_EXPECT_GPU=1 is exported: a missing GPU fails loudly instead of skipping.
# --stubs builds as on a bare machine (no pkg-config, the MPI stub, the CBLAS shim).
# Test hooks (tests/integration/test_gpu_check.sh): GPU_CHECK_KERNELS,
# GPU_CHECK_WORKER_TEST, GPU_CHECK_SANITIZER replace the test program, the worker test
# script and compute-sanitizer.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$here/gpu-check-out}
build=build-gpu arch=90 jobs=$(nproc 2>/dev/null || echo 4) budget=300 reps=5
sanitizer=1 worker=1 torch=1 dry=0 stubs=0 only=""
usage() { sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--build) build=${2:?--build needs a directory}; shift 2 ;;
	--arch) arch=${2:?--arch needs a compute capability, e.g. 90}; shift 2 ;;
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--budget) budget=${2:?--budget needs seconds}; shift 2 ;;
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	--only) only=${2:?--only needs steps, e.g. kernels,bench}; shift 2 ;;
	--no-sanitizer) sanitizer=0; shift ;;
	--no-worker) worker=0; shift ;;
	--no-torch) torch=0; shift ;;
	--dry-run) dry=1; shift ;;
	--stubs) stubs=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
for v in jobs budget reps arch; do
	case ${!v} in ''|*[!0-9]*) echo "gpu-check: --$v '${!v}' is not a whole number" >&2; exit 2 ;; esac
done
for s in ${only//,/ }; do
	case $s in build|kernels|bench|torch|worker|memcheck) ;;
	*) echo "gpu-check: --only: unknown step '$s' (build, kernels, bench, torch, worker, memcheck)" >&2; exit 2 ;;
	esac
done
want() { [ -z "$only" ] || [[ ,$only, == *,$1,* ]]; }
case $build in /*) ;; *) build=$here/$build ;; esac
cd "$here" || exit 2
mkdir -p "$out" || { echo "gpu-check: cannot create '$out'" >&2; exit 2; }
out=$(cd "$out" && pwd)
export GCBENCH_EXPECT_GPU=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t_start=$(date +%s)
log=$out/gpu-check.log
: >"$log"
rows=()
fails=0
say() { echo "gpu-check: $*" | tee -a "$log" >&2; }
left() { echo $(( budget - ($(date +%s) - t_start) )); }
since() { echo $(( $(date +%s) - $1 )); }
# cap S [RESERVE]: the seconds a step may take: S, or what is left of the budget less
# RESERVE (for the steps after it), at least 5
cap() { local l; l=$(( $(left) - ${2:-0} )); [ "$l" -gt "$1" ] && l=$1; [ "$l" -lt 5 ] && l=5; echo "$l"; }

# summary.txt, rewritten after every row: a killed run keeps what it measured
write_summary() {
	{
		echo "gpu-check $(date -u '+%Y-%m-%d %H:%M UTC') on ${gpu_name:-no GPU} (${ngpu:-0} GPU), $(since "$t_start") s of --budget $budget"
		printf '%-22s %-5s %6s  %s\n' check result time detail
		[ "${#rows[@]}" -gt 0 ] && printf '%s\n' "${rows[@]}"
		echo "result: $1"
	} >"$out/summary.txt"
}
# row STEP RESULT SECONDS DETAIL; RESULT: PASS, FAIL, N/A (not available, not a
# failure), INFO, SKIP
row() {
	local r=$2
	[ "$dry" = 1 ] && [ "$r" != FAIL ] && [ "$r" != INFO ] && r=DRY
	rows+=("$(printf '%-22s %-5s %5ss  %s' "$1" "$r" "$3" "$4")")
	[ "$r" = FAIL ] && fails=$((fails + 1))
	say "$1: $r ($3 s) $4"
	write_summary "in progress ($fails failed so far)"
}

# ---- steps in their own session, killed whole ----------------------------------
step_pid=""
ssid=$(command -v setsid)
# session_pids SID: the live processes of session SID (zombies left out), from /proc
# (no procps needed)
session_pids() {
	local f l st s p
	for f in /proc/[0-9]*/stat; do
		{ read -r l <"$f"; } 2>/dev/null || continue
		read -r st _ _ s _ <<<"${l##*) }"
		[ "$s" = "$1" ] && [ "$st" != Z ] && { p=${f#/proc/}; echo "${p%/stat}"; }
	done
}
# kill_session SID: every process of the session (the step and whatever it started,
# whatever process groups nested timeouts made), TERM then KILL
kill_session() {
	local sid=$1 i p
	p=$(session_pids "$sid"); [ -z "$p" ] && p=$sid   # no setsid: the step alone
	kill -TERM $p 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -z "$(session_pids "$sid")" ] && return 0
		sleep 0.3
	done
	p=$(session_pids "$sid")
	kill -KILL $p "$sid" 2>/dev/null
	return 0
}
on_signal() {
	[ -n "$step_pid" ] && kill_session "$step_pid"
	say "stopped by SIG$1 after $(since "$t_start") s"
	write_summary "stopped by SIG$1 after $(since "$t_start") s; $fails check(s) failed before"
	exit 3
}
for sig in TERM INT HUP; do trap "on_signal $sig" "$sig"; done
# run_to FILE CAP CMD...: run CMD in a new session, output appended to FILE; after CAP
# seconds the whole session is killed and 124 returned; else CMD's exit status
run_to() {
	local f=$1 t=$2 end rc; shift 2
	echo "+ [cap ${t}s] $*" >>"$f"
	if [ "$dry" = 1 ]; then echo "dry-run: [cap ${t}s] $*" | tee -a "$log" >&2; return 0; fi
	$ssid "$@" >>"$f" 2>&1 </dev/null &
	step_pid=$!
	end=$(( $(date +%s) + t ))
	while kill -0 "$step_pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
	if kill -0 "$step_pid" 2>/dev/null; then
		kill_session "$step_pid"
		wait "$step_pid" 2>/dev/null
		echo "gpu-check: stopped at the cap of $t s; its session killed" >>"$f"
		rc=124
	else
		wait "$step_pid"; rc=$?
		[ -n "$ssid" ] && [ -n "$(session_pids "$step_pid")" ] && kill_session "$step_pid"   # left-behind children
	fi
	step_pid=""
	return "$rc"
}
# counts LOG: "P F S unexpected-skips" from PASS/FAIL/SKIP lines; SKIPs of the cases
# meant for hosts without a GPU are expected
counts() {
	local p f s u
	p=$(grep -c '^PASS ' "$1") f=$(grep -c '^FAIL ' "$1") s=$(grep -c '^SKIP ' "$1")
	u=$(grep '^SKIP ' "$1" | grep -v -c -e 'absent_fails_cleanly' -e 'no_gpu' -e 'a GPU is present')
	echo "$p $f $s $u"
}
# gpu_left: compute processes still on the GPU after a step (none expected)
gpu_left() {
	[ "$dry" = 1 ] || [ "${ngpu:-0}" -lt 1 ] && return 0
	local l
	l=$(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null | tr '\n' ' ')
	[ -n "$l" ] && say "GPU processes still running after $1: $l"
	return 0
}

# ---- 0. preflight ------------------------------------------------------------------
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
ngpu=0 gpu_name="" smi="nvidia-smi is not installed"
if command -v nvidia-smi >/dev/null 2>&1; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') smi=$(nvidia-smi -L 2>&1 | head -n 1)
	gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
fi
ver() { command -v "$1" >/dev/null 2>&1 && { "$1" --version 2>&1 | head -n 1; } || echo "not found"; }
# the pip wheels' nvidia/*/include and nvidia/*/lib (torch's CUDA libraries)
wheel_inc=() wheel_lib=()
for d in $(timeout 20 python3 -c 'import nvidia; print(" ".join(nvidia.__path__))' 2>/dev/null); do
	for s in "$d"/*/; do
		[ -d "$s/include" ] && wheel_inc+=("${s%/}/include")
		[ -d "$s/lib" ] && wheel_lib+=("${s%/}/lib")
	done
done
# find_hdr NAME: the first include directory that has NAME
find_hdr() {
	local d
	for d in "$CUDA_HOME/include" /usr/include /usr/local/include "${wheel_inc[@]}"; do
		[ -f "$d/$1" ] && { echo "$d"; return 0; }
	done
	return 1
}
# find_lib NAME: the first libNAME.so, else libNAME.so.N, on the usual paths and the wheels
find_lib() {
	local d f
	for d in "$CUDA_HOME/lib64" "$CUDA_HOME/lib" "$CUDA_HOME/targets/x86_64-linux/lib" \
		 /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib "${wheel_lib[@]}"; do
		[ -e "$d/lib$1.so" ] && { echo "$d/lib$1.so"; return 0; }
		f=$(ls "$d/lib$1.so".* 2>/dev/null | head -n 1)
		[ -n "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}
cublas_h=$(find_hdr cublas_v2.h) cublas_l=$(find_lib cublas)
nccl_h=$(find_hdr nccl.h) nccl_l=$(find_lib nccl)
mpi_flavor=none
if command -v mpirun >/dev/null 2>&1; then
	case $(mpirun --version 2>&1 | head -n 5) in
	*"Open MPI"*|*"Open RTE"*|*OpenRTE*|*PRRTE*) mpi_flavor=openmpi ;;
	*HYDRA*|*MPICH*|*"Intel(R) MPI"*) mpi_flavor=mpich ;;
	*) mpi_flavor=unknown ;;
	esac
fi
# python: $PYTHON, else the first python3 on PATH or /usr/bin/python3 that imports torch
torch_v="" py=${PYTHON:-python3}
if [ "$torch" = 1 ] && want torch; then
	for c in ${PYTHON:-} python3 /usr/bin/python3; do
		command -v "$c" >/dev/null 2>&1 || continue
		torch_v=$(timeout 90 "$c" -c 'import torch; print(torch.__version__, "cuda" if torch.cuda.is_available() else "no-cuda")' 2>/dev/null | tail -n 1)
		[ -n "$torch_v" ] && { py=$c; break; }
	done
fi
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "host: $(uname -n) $(uname -m), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
	echo "gcc: $(ver "${CC:-gcc}")"
	echo "g++: $(ver g++)"
	echo "make: $(ver make)"
	echo "pkg-config: $(ver pkg-config)"
	echo "nvcc: $(nvcc --version 2>/dev/null | tail -n 2 | tr '\n' ' ')"
	echo "cublas_v2.h: ${cublas_h:-not found}; libcublas: ${cublas_l:-not found}"
	echo "nccl.h: ${nccl_h:-not found}; libnccl: ${nccl_l:-not found}"
	echo "pip wheels: ${wheel_lib[*]:-none}"
	echo "mpirun: $(command -v mpirun || echo 'not found') ($mpi_flavor) $(mpirun --version 2>/dev/null | head -n 1)"
	echo "python: $py ($(ver "$py")); torch: ${torch_v:-not found}"
	echo "compute-sanitizer: $(command -v compute-sanitizer || echo 'not found')"
	if command -v nvidia-smi >/dev/null 2>&1; then
		nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.max.mem,power.limit --format=csv 2>&1
		nvidia-smi -L 2>&1
	else echo "nvidia-smi: not found"; fi
} >"$out/env.txt" 2>&1
if [ "$ngpu" -lt 1 ] && [ "$dry" = 1 ]; then
	row gpu INFO 0 "dry run: no GPU found here"
elif [ "$ngpu" -lt 1 ]; then
	row gpu FAIL 0 "no GPU found ($smi); every device check below fails"
else
	row gpu PASS 0 "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
fi

# ---- the build's arguments, from what the preflight found --------------------------
mkargs=(CUDA=1 "CUDA_ARCH=$arch" "BUILD=$build" WERROR= -j"$jobs")
pc() { [ "$stubs" = 0 ] && command -v pkg-config >/dev/null 2>&1 && pkg-config "$@" 2>/dev/null; }
[ "$stubs" = 1 ] && mkargs+=(PKG_CONFIG=false)
command -v pkg-config >/dev/null 2>&1 || mkargs+=(PKG_CONFIG=false)
libdir=$build/gpu-libs
# use_lib NAME FILE: -lNAME finds FILE (a link in $libdir where there is no libNAME.so
# or the directory is not a default one), and the programs find it at run time
use_lib() {
	local d=${2%/*}
	case $d in "$CUDA_HOME/lib64"|/usr/lib/x86_64-linux-gnu|/usr/lib64|/usr/lib) [ -e "$d/lib$1.so" ] && return 0 ;; esac
	mkdir -p "$libdir" && ln -sf "$2" "$libdir/lib$1.so"
	case :${LIBRARY_PATH:-}: in *:$libdir:*) ;; *) export LIBRARY_PATH=$libdir${LIBRARY_PATH:+:$LIBRARY_PATH} ;; esac
	case :${LD_LIBRARY_PATH:-}: in *:$d:*) ;; *) export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;; esac
}
# use_hdr DIR: headers found outside the default paths, for gcc (CPATH) and nvcc
nvinc=""
use_hdr() {
	case $1 in "$CUDA_HOME/include"|/usr/include) return 0 ;; esac
	case :${CPATH:-}: in *:$1:*) ;; *) export CPATH=$1${CPATH:+:$CPATH}; nvinc="$nvinc -I$1" ;; esac
}
[ -n "$cublas_h" ] && use_hdr "$cublas_h"
[ -n "$cublas_l" ] && use_lib cublas "$cublas_l"
if [ -n "$nccl_h" ] && [ -n "$nccl_l" ]; then
	use_hdr "$nccl_h"; use_lib nccl "$nccl_l"; mkargs+=(HAVE_NCCL=1)
	# the wheels' other libraries (cublasLt, nvrtc ...) at run time
	for d in "${wheel_lib[@]}"; do case :${LD_LIBRARY_PATH:-}: in *:$d:*) ;; *) export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d ;; esac; done
fi
[ -n "$nvinc" ] && mkargs+=("EXTRA_NVCCFLAGS=${nvinc# }")
# MPI: pkg-config (ompi-c or mpich), else the compiler wrapper's flags, of the flavour mpirun is
mpi_ok=0
if [ "$stubs" = 0 ] && [ "$mpi_flavor" = openmpi ] && pc --exists ompi-c; then mpi_ok=1
elif [ "$stubs" = 0 ] && [ "$mpi_flavor" = mpich ] && pc --exists mpich; then
	mpi_ok=1 mkargs+=(HAVE_MPI=1 "MPI_CFLAGS=$(pc --cflags mpich)" "MPI_LIBS=$(pc --libs mpich)")
elif [ "$stubs" = 0 ] && { [ "$mpi_flavor" = openmpi ] || [ "$mpi_flavor" = mpich ]; } && command -v mpicc >/dev/null 2>&1; then
	if [ "$mpi_flavor" = openmpi ]; then
		mc=$(mpicc -showme:compile 2>/dev/null) ml=$(mpicc -showme:link 2>/dev/null)
	else
		mc=$(mpicc -compile_info 2>/dev/null | cut -d' ' -f2-) ml=$(mpicc -link_info 2>/dev/null | cut -d' ' -f2-)
	fi
	[ -n "$ml" ] && { mpi_ok=1; mkargs+=(HAVE_MPI=1 "MPI_CFLAGS=$mc" "MPI_LIBS=$ml"); }
fi
direct=0 mpi_what="$mpi_flavor MPI"
if [ "$mpi_ok" = 0 ]; then     # no usable MPI: the one-process stub, world size 1, no mpirun
	direct=1 mpi_what="no usable MPI ($mpi_flavor): the one-process stub tools/gpu-check/mpi (world 1)"
	mkargs+=(HAVE_MPI=1 MPI_STUB=1 MPI_CFLAGS= MPI_LIBS=)
fi
export GCBENCH_MPI_FLAVOR=$mpi_flavor
blas=openblas
if ! pc --exists openblas; then blas="shim (tools/gpu-check/cblas.h)"; mkargs+=(CBLAS_SHIM=1); fi
# mpi_cmd N [VAR=VALUE]... : the launcher for N ranks in the array MPICMD (flavour's flags)
mpi_cmd() {
	local n=$1 e=() x=(); shift
	for a; do e+=("$a"); x+=(-x "$a"); done
	case $mpi_flavor in
	openmpi) MPICMD=(mpirun --oversubscribe --mca btl self,tcp "${x[@]}" -np "$n")
		 [ -n "${LD_LIBRARY_PATH:-}" ] && MPICMD+=(-x LD_LIBRARY_PATH) ;;
	*) MPICMD=(env "${e[@]}" mpirun -np "$n") ;;   # MPICH passes the environment on
	esac
}
pre="$([ -z "$ssid" ] && echo 'no setsid (a step killed at its cap may leave children), ')gcc $(${CC:-gcc} -dumpfullversion 2>/dev/null || echo '?'), make $(command -v make >/dev/null && echo yes || echo NO), pkg-config $(command -v pkg-config >/dev/null && echo yes || echo no), cublas ${cublas_l:-NOT FOUND}, nccl ${nccl_l:-not found}, mpi $mpi_flavor, torch ${torch_v:-none}"
if ! command -v make >/dev/null 2>&1 || ! command -v nvcc >/dev/null 2>&1; then
	row preflight FAIL 0 "$pre; make and nvcc are needed to build"
else
	row preflight INFO 0 "$pre (env.txt)"
fi

# ---- 1. build ----------------------------------------------------------------------
cc=$build/cuda-check
kt=${GPU_CHECK_KERNELS:-$cc/test_kernels_cuda}
wk=""
# A copied tree may come with every file's time reset, which would make make rebuild all:
# sources whose content matches the last build's stamp get that build's time back.
stamps=$build/.src-stamps
srcs() { find Makefile common formats kernels worker tests/unit tests/harness.h tools/gpu-check \
	-type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' -o -name '*.mk' -o -name Makefile \) 2>/dev/null; }
restore_times() {
	[ -f "$stamps" ] || return 0
	local sum t f
	while read -r sum t f; do
		[ -f "$f" ] && [ "$(sha1sum "$f" | cut -d' ' -f1)" = "$sum" ] && touch -d "@$t" "$f"
	done <"$stamps"
}
save_times() { mkdir -p "$build"; srcs | while read -r f; do echo "$(sha1sum "$f" | cut -d' ' -f1) $(stat -c %Y "$f") $f"; done >"$stamps"; }
built=0
if want build; then
	t0=$(date +%s)
	targets=(cuda-check-build)
	want_wk=0
	if [ "$worker" = 1 ] && [ -n "$nccl_h" ] && [ -n "$nccl_l" ]; then targets+=(cuda-check-worker); want_wk=1; fi
	[ "$dry" = 1 ] || restore_times
	: >"$out/build.log"
	# one make for both (-k: the tests and the benchmark even if the worker does not link);
	# make -q then says which are up to date, i.e. built
	run_to "$out/build.log" "$(cap 200 90)" make -k "${mkargs[@]}" "${targets[@]}"
	rc=$?
	[ "$dry" = 1 ] || save_times
	upto() { make -q "${mkargs[@]}" "$@" >/dev/null 2>&1; }
	if [ "$dry" = 1 ] || upto "$cc/test_kernels_cuda" "$cc/gcbench-bench-kernels"; then
		built=1
		row build PASS "$(since "$t0")" "make ${mkargs[*]} ${targets[*]} (blas: $blas)"
	else
		why=$([ "$rc" = 124 ] && echo "stopped at its cap" || grep -m1 -i 'error' "$out/build.log" | cut -c1-200)
		row build FAIL "$(since "$t0")" "rc $rc: $why (build.log)"
	fi
	if [ "$worker" = 1 ] && [ "$want_wk" = 0 ]; then
		row build-worker FAIL 0 "nccl.h or libnccl not found (the toolkit, /usr, the pip wheels' nvidia/*/)"
	elif [ "$worker" = 1 ] && { [ "$dry" = 1 ] || upto "$cc/gcbench-worker"; }; then
		wk=$cc/gcbench-worker
		row build-worker PASS 0 "$mpi_what"
	elif [ "$worker" = 1 ]; then
		row build-worker FAIL 0 "gcbench-worker did not link: $(grep -m1 -e 'undefined reference' -e 'cannot find -l' "$out/build.log" | cut -c1-200) (build.log)"
	fi
else
	{ [ -x "$kt" ] || [ -x "$cc/gcbench-bench-kernels" ]; } && built=1
	[ "$worker" = 1 ] && [ -x "$cc/gcbench-worker" ] && wk=$cc/gcbench-worker
	[ "$built" = 1 ] || [ "$dry" = 1 ] || row build FAIL 0 "--only without build, and nothing built in $build: add build to --only"
fi

# ---- 2. the CUDA tests ---------------------------------------------------------------
if want kernels && [ "$built" = 1 ]; then
	t0=$(date +%s) c=$(cap 120 60)
	: >"$out/kernels.log"
	inner=$(( c * 9 / 10 )); [ "$inner" -lt 3 ] && inner=3
	run_to "$out/kernels.log" "$c" tests/run.sh -t "$inner" "$kt"
	rc=$?
	read -r p f s u < <(counts "$out/kernels.log")
	if [ "$dry" = 1 ]; then row test_kernels_cuda SKIP 0 "dry run"
	elif [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$u" -eq 0 ] && [ "$p" -gt 0 ]; then
		row test_kernels_cuda PASS "$(since "$t0")" "$p passed, $s skipped (expected)"
	else
		why="rc $rc"; [ "$rc" -eq 124 ] && why="stopped at its cap of $c s"
		row test_kernels_cuda FAIL "$(since "$t0")" "$why: $p passed, $f failed, $s skipped ($u unexpected): $(grep -m2 '^FAIL' "$out/kernels.log" | cut -c1-200 | tr '\n' ' ')"
	fi
	gpu_left test_kernels_cuda
fi

# ---- 3. the kernel benchmark -----------------------------------------------------------
if want bench && [ "$built" = 1 ]; then
	t0=$(date +%s) c=$(cap 90 50)
	: >"$out/bench.txt"
	run_to "$out/bench.txt" "$c" "$cc/gcbench-bench-kernels" --cuda-only --spin \
		--reps "$reps" --model resnet50 --model resnet101 --model bert-base
	rc=$?
	if [ "$rc" -eq 0 ]; then
		row bench-kernels PASS "$(since "$t0")" "bench.txt: $(grep -c '^[a-z0-9-]* *cuda ' "$out/bench.txt") CUDA rows"
	else
		why="rc $rc"; [ "$rc" -eq 124 ] && why="stopped at its cap of $c s"
		row bench-kernels FAIL "$(since "$t0")" "$why: $(grep -m1 -i 'error' "$out/bench.txt" | cut -c1-200)"
	fi
	gpu_left bench-kernels
fi

# ---- 4. the study's code paths in PyTorch eager ------------------------------------------
if want torch && [ "$torch" = 1 ]; then
	t0=$(date +%s)
	if [ "$dry" = 0 ] && [[ $torch_v != *" cuda" ]]; then
		row torch-eager N/A 0 "torch with CUDA not found (${torch_v:-no torch}); not a failure"
	else
		c=$(cap 60 40)
		: >"$out/torch.txt"
		run_to "$out/torch.txt" "$c" "$py" tools/torch_codecs.py --device cuda --reps "$(( reps < 3 ? reps : 3 ))"
		rc=$?
		if [ "$rc" -eq 0 ]; then row torch-eager PASS "$(since "$t0")" "torch.txt: $(grep -c '^[a-z0-9-]* ' "$out/torch.txt") rows"
		else row torch-eager FAIL "$(since "$t0")" "rc $rc$([ "$rc" -eq 124 ] && echo ", stopped at its cap of $c s"): $(grep -m1 -i 'error' "$out/torch.txt" | cut -c1-200)"; fi
	fi
	gpu_left torch-eager
	# gcbench's DDP runner (workload: ddp) on NCCL: one rank on cuda:LOCAL_RANK, timed
	# with CUDA events, the fp16 hook and a hook of a user's (docs/hooks.md's shape)
	t0=$(date +%s)
	if [ "$dry" = 0 ] && [[ $torch_v != *" cuda" ]]; then
		row torch-ddp-nccl N/A 0 "torch with CUDA not found (${torch_v:-no torch}); not a failure"
	else
		c=$(cap 90 40)
		: >"$out/ddp.txt"
		printf 'index,name,shape,numel\n0,w,1024x1024,1048576\n1,b,1024,1024\n' >"$out/ddp-model.csv"
		printf 'import torch.distributed as dist\n\ndef make_hook():\n    def hook(s, b):\n        return dist.all_reduce(b.buffer().div_(dist.get_world_size()), async_op=True).get_future().then(lambda f: f.value()[0])\n    return None, hook\n' >"$out/ddp_user_hook.py"
		rc=0
		for h in "fp16" "mine --params hook=ddp_user_hook.py:make_hook"; do
			# shellcheck disable=SC2086
			run_to "$out/ddp.txt" "$c" env -C "$out" RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 \
				MASTER_ADDR=127.0.0.1 MASTER_PORT=29561 NCCL_SOCKET_IFNAME=lo "$py" \
				"$here/python/gcbench_ddp.py" --backend nccl --hook $h --model "csv:$out/ddp-model.csv" \
				--out "$out/ddp-${h%% *}.gcr" --iters 5 --warmup 2 || rc=$?
		done
		if [ "$rc" -eq 0 ]; then row torch-ddp-nccl PASS "$(since "$t0")" "ddp.txt: fp16 and a user's hook on NCCL, CUDA events"
		else row torch-ddp-nccl FAIL "$(since "$t0")" "rc $rc: $(grep -m1 -i 'error' "$out/ddp.txt" | cut -c1-200)"; fi
	fi
	gpu_left torch-ddp-nccl
fi

# ---- 5. gcbench-worker --backend nccl -----------------------------------------------------
# replay_fig OVERLAP_RECORD NOOVERLAP_RECORD: "requested measured_noovl x measured_ovl x enc_ms"
replay_fig() {
	local req a b te
	req=$("$wk" --dump "$2" | sed -n 's/.*"t_backward_model":\([0-9.e+-]*\).*/\1/p')
	a=$("$wk" --dump "$2" | awk 'NR > 3 && $3 == 0 { print $5 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	b=$("$wk" --dump "$1" | awk 'NR > 3 && $3 == 0 { print $5 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	te=$("$wk" --dump "$1" | awk 'NR > 3 && $3 == 0 { print $6 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }')
	awk -v r="$req" -v a="$a" -v b="$b" -v te="$te" 'BEGIN { printf "%.4f %.4f %.3f %.4f %.3f %.3f", r, a, a / r, b, b / a, te * 1e3 }'
}
if want worker && [ "$worker" = 1 ] && [ -n "$wk" ]; then
	t0=$(date +%s) c=$(cap 90 40)
	W=$out/worker.txt
	: >"$W"
	run_to "$W" "$c" env GCBENCH_WORKER="$wk" GCBENCH_WORKER_DIRECT="$direct" \
		GCBENCH_DEADLINE_EPOCH=$(( $(date +%s) + c - 5 )) bash "${GPU_CHECK_WORKER_TEST:-tests/integration/test_worker_nccl.sh}"
	rc=$?
	read -r p f s u < <(counts "$W")
	if [ "$dry" = 1 ]; then row test_worker_nccl SKIP 0 "dry run"
	elif [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$u" -eq 0 ] && [ "$p" -gt 0 ]; then row test_worker_nccl PASS "$(since "$t0")" "$p passed"
	else
		why="rc $rc"; [ "$rc" -eq 124 ] && why="stopped at its cap of $c s"
		row test_worker_nccl FAIL "$(since "$t0")" "$why: $p passed, $f failed, $u unexpected skips: $(grep -m2 '^FAIL' "$W" | cut -c1-200 | tr '\n' ' ')"
	fi
	gpu_left test_worker_nccl

	t0=$(date +%s)
	rec=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-rec.XXXXXX")
	mpi_cmd 1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
	one=("${MPICMD[@]}")
	[ "$direct" = 1 ] && one=(env NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
	rargs=(--backend nccl --workload replay:resnet50 --iters 6 --warmup 1 --deadline 30)
	{
		echo "# ResNet-50 replay, world 1, GPU compute emulation (seconds; medians of the measured iterations)"
		echo "# t_bwd_req: the model's emulated backward; noovl: t_backward with --no-overlap (compute alone);"
		echo "# ovl: t_backward with buckets encoding on the communication stream; ovl_x = ovl / noovl;"
		echo "# enc_ms: t_encode per iteration with overlap (CUDA events on the communication stream)"
		printf '%-10s %10s %10s %8s %10s %8s %8s\n' method t_bwd_req noovl noovl_x ovl ovl_x enc_ms
	} >>"$W"
	bad=""
	for m in syncsgd fp16 signsgd topk mstopk powersgd; do
		[ "$(left)" -lt 25 ] && { bad="$bad [$m: out of time]"; continue; }
		if run_to "$W" "$(cap 40 15)" "${one[@]}" "$wk" "${rargs[@]}" --method "$m" --no-overlap --out "$rec/$m-n-r%r.gcr" &&
		   run_to "$W" "$(cap 40 15)" "${one[@]}" "$wk" "${rargs[@]}" --method "$m" --out "$rec/$m-o-r%r.gcr"; then
			[ "$dry" = 1 ] || printf '%-10s %10s %10s %8s %10s %8s %8s\n' "$m" $(replay_fig "$rec/$m-o-r0.gcr" "$rec/$m-n-r0.gcr") >>"$W"
		else bad="$bad [$m]"; fi
		write_summary "in progress: replay $m"
	done
	if [ -z "$bad" ]; then row replay-resnet50 PASS "$(since "$t0")" "worker.txt: requested vs measured backward, overlap slowdown, t_encode"
	else row replay-resnet50 FAIL "$(since "$t0")" "failed:$bad (worker.txt)"; fi
	gpu_left replay-resnet50

	t0=$(date +%s)
	echo "# two ranks on one GPU (NCCL usually refuses: one GPU per rank)" >>"$W"
	if [ "$direct" = 1 ]; then
		row two-ranks-one-gpu INFO 0 "not tried: no usable MPI on this machine"
	elif [ "$dry" = 1 ]; then
		mpi_cmd 2 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
		run_to "$W" 30 "${MPICMD[@]}" "$wk" --backend nccl --workload replay:tiny --iters 2 --deadline 20 --method syncsgd
		row two-ranks-one-gpu INFO 0 "dry run"
	elif [ "$(left)" -lt 25 ]; then
		row two-ranks-one-gpu INFO 0 "not tried: out of time"
	else
		mpi_cmd 2 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
		if run_to "$W" "$(cap 30 10)" "${MPICMD[@]}" "$wk" --backend nccl --workload replay:tiny --iters 2 \
			--deadline 20 --method syncsgd --out "$rec/two-r%r.gcr"; then
			row two-ranks-one-gpu INFO "$(since "$t0")" "NCCL ran 2 ranks on one GPU"
		else
			row two-ranks-one-gpu INFO "$(since "$t0")" "NCCL does not run 2 ranks on one GPU: $(grep -m1 -o 'ncclCommInitRank failed[^(]*' "$W")"
		fi
	fi
	rm -rf "$rec"
	gpu_left two-ranks
fi

# ---- 6. compute-sanitizer ------------------------------------------------------------------
# not available: the tool cannot run here (the device, the driver, the injection)
na_pat='^========= .*(not supported|Unable to find injection|Could not find injection|failed to initialize|No attachable process)'
# memory errors: what memcheck exists for
mem_pat='^========= (Invalid|Misaligned|Out-of-range|Address .* is out of bounds|Uninitialized|Malloc|Free|Leaked|Memory access)'
sanitizer_bin=${GPU_CHECK_SANITIZER:-compute-sanitizer}
if want memcheck && [ "$sanitizer" = 1 ] && [ "$built" = 1 ]; then
	t0=$(date +%s) lt=$(( $(left) - 10 ))
	: >"$out/sanitizer.log"
	if ! command -v "$sanitizer_bin" >/dev/null 2>&1; then
		row memcheck N/A 0 "compute-sanitizer not on PATH; not a failure"
	elif [ "$lt" -lt 30 ]; then
		row memcheck N/A 0 "no time left ($(left) s); not a failure"
	else
		# memory errors only: API errors (the tests make some on purpose) are not reported,
		# and the timing tests, which may fail under the slowdown, are left out
		noapi=(); "$sanitizer_bin" --help 2>&1 | grep -q -- --report-api-errors && noapi=(--report-api-errors no)
		run_to "$out/sanitizer.log" "$lt" env GCBENCH_CUDA_QUICK=1 "$sanitizer_bin" --tool memcheck \
			"${noapi[@]}" --error-exitcode 99 "$kt"
		rc=$?
		nerr=$(grep -E -c "$mem_pat" "$out/sanitizer.log")
		napi=$(grep -c '^========= Program hit' "$out/sanitizer.log")
		tf="$(grep -c '^FAIL' "$out/sanitizer.log") test(s) failed under memcheck (timing tests may)"
		if [ "$dry" = 1 ]; then row memcheck SKIP 0 "dry run"
		elif [ "$nerr" -gt 0 ]; then
			row memcheck FAIL "$(since "$t0")" "rc $rc, $nerr memory error(s): $(grep -E -m1 "$mem_pat" "$out/sanitizer.log" | cut -c1-200)"
		elif grep -E -q -i "$na_pat" "$out/sanitizer.log"; then
			row memcheck N/A "$(since "$t0")" "not available here: $(grep -E -m1 -i "$na_pat" "$out/sanitizer.log" | cut -c1-200); not a failure"
		elif [ "$rc" -eq 124 ]; then
			row memcheck INFO "$(since "$t0")" "stopped at the time limit ($lt s) after $(grep -c '^PASS' "$out/sanitizer.log") tests, no memory error so far"
		elif grep -q 'ERROR SUMMARY: 0 errors' "$out/sanitizer.log" || { [ "$rc" -ne 99 ] && grep -q 'ERROR SUMMARY' "$out/sanitizer.log"; }; then
			row memcheck PASS "$(since "$t0")" "no memory error; $tf"
		elif [ "$napi" -gt 0 ]; then
			row memcheck INFO "$(since "$t0")" "rc $rc: $napi CUDA API error(s) reported, no memory error: $(grep -m1 '^========= Program hit' "$out/sanitizer.log" | cut -c1-160)"
		else
			row memcheck N/A "$(since "$t0")" "rc $rc, no verdict from the tool: $(grep -m1 '^=========' "$out/sanitizer.log" | cut -c1-160); not a failure"
		fi
	fi
	gpu_left memcheck
fi

# ---- summary -----------------------------------------------------------------------------
final="$([ "$fails" -eq 0 ] && echo "all checks passed" || echo "$fails check(s) FAILED")"
[ "$dry" = 1 ] && final="dry run: nothing was built or run"
write_summary "$final"
cat "$out/summary.txt"
[ "$fails" -eq 0 ]
