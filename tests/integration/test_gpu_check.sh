#!/usr/bin/env bash
# tests/integration/test_gpu_check.sh: tools/gpu-check.sh up to the GPU, on any host.
#
# With fakes in place of the test program, the worker test and compute-sanitizer
# (GPU_CHECK_KERNELS, GPU_CHECK_WORKER_TEST, GPU_CHECK_SANITIZER):
#   - --dry-run prints the plan, builds nothing, and says so in summary.txt;
#   - a step past its cap is killed with everything it started (a nested timeout's own
#     process group included) and counts as FAIL;
#   - gpu-check stopped by a signal kills the running step and leaves summary.txt;
#   - a worker test killed after printing PASS counts as FAIL;
#   - memcheck: "Device not supported" is N/A, API errors alone are not a failure,
#     a memory error is FAIL, a clean run PASS;
#   - the Makefile keeps -lopenblas when pkg-config knows OpenBLAS but not the others;
#   - tools/torch_codecs.py --quick on the CPU (self-checks of every codec).
# GCBENCH_TEST_GPU_CHECK_BUILD=1 adds the --stubs build and a rerun that compiles
# nothing (minutes: nvcc on every .cu).
source "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
gc=$root/tools/gpu-check.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-gpucheck.XXXXXX")
mark="61.$$"                   # a sleep only this test starts
cleanup() {
	local p
	for p in $(pgrep -f "^sleep $mark\$" 2>/dev/null); do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
unset GCBENCH_EXPECT_GPU
orphans() { pgrep -f "^sleep $mark\$" >/dev/null 2>&1; }
# row OUT STEP: the summary row of STEP
row_of() { grep "^$2 " "$1/summary.txt" 2>/dev/null | head -n 1; }
run_gc() { "$gc" --no-torch --build "$tmp/b" "$@" >>"$tmp/gc.out" 2>&1; }

mkdir -p "$tmp/b/cuda-check"
cat >"$tmp/slow" <<EOF
#!/usr/bin/env bash
echo "PASS fake/started"
timeout 30 sleep $mark
EOF
cat >"$tmp/killed.sh" <<'EOF'
echo "PASS fake/first"
kill -KILL $$
EOF
printf '#!/bin/sh\nexit 1\n' >"$tmp/b/cuda-check/gcbench-worker"
chmod +x "$tmp/slow" "$tmp/b/cuda-check/gcbench-worker"

# ---- --dry-run ----
if run_gc --dry-run --out "$tmp/dry"; then rc=0; else rc=$?; fi
b=$(row_of "$tmp/dry" build)
if [ "$rc" -eq 0 ] && grep -q '^result: dry run' "$tmp/dry/summary.txt" && [[ $b == *WERROR=* ]] &&
   [[ $b == *CUDA_ARCH=90* ]] && [ "$(grep -c '^dry-run: ' "$tmp/dry/gpu-check.log")" -ge 5 ] &&
   [ ! -e "$tmp/b/obj" ] && grep -q '^nccl.h: ' "$tmp/dry/env.txt" && grep -q '^mpirun: ' "$tmp/dry/env.txt"; then
	pass gpu_check_dry_run
else fail gpu_check_dry_run "rc $rc; build row '$b'; $(tail -n 3 "$tmp/dry/summary.txt" 2>/dev/null | tr '\n' ' ')"; fi

# ---- a step past its cap: killed whole ----
t0=$(date +%s)
GPU_CHECK_KERNELS=$tmp/slow run_gc --only kernels --budget 8 --out "$tmp/cap"
took=$(( $(date +%s) - t0 ))
sleep 0.5
r=$(row_of "$tmp/cap" test_kernels_cuda)
if orphans; then fail gpu_check_cap_kills_session "the nested 'timeout 30 sleep' outlived the step"
elif [[ $r == *FAIL* ]] && [ "$took" -lt 25 ]; then pass gpu_check_cap_kills_session
else fail gpu_check_cap_kills_session "${took}s; row '$r'"; fi

# ---- gpu-check itself stopped: the step killed, summary.txt kept ----
GPU_CHECK_KERNELS=$tmp/slow timeout 6 "$gc" --no-torch --build "$tmp/b" --only kernels --budget 200 \
	--out "$tmp/stop" >>"$tmp/gc.out" 2>&1; rc=$?
sleep 0.5
if orphans; then fail gpu_check_stopped_keeps_summary "the step outlived gpu-check"
elif [ "$rc" -ne 0 ] && grep -q '^result: stopped by SIGTERM' "$tmp/stop/summary.txt" &&
     [ -n "$(row_of "$tmp/stop" preflight)" ]; then pass gpu_check_stopped_keeps_summary
else fail gpu_check_stopped_keeps_summary "rc $rc: $(tail -n 2 "$tmp/stop/summary.txt" 2>/dev/null | tr '\n' ' ')"; fi

# ---- a killed worker test is a failure ----
GPU_CHECK_WORKER_TEST=$tmp/killed.sh run_gc --only worker --out "$tmp/wk"
r=$(row_of "$tmp/wk" test_worker_nccl)
if [[ $r == *FAIL* ]] && [[ $r == *"rc 137"* ]]; then pass gpu_check_killed_test_fails
else fail gpu_check_killed_test_fails "row '$r'"; fi

# ---- memcheck's verdicts ----
fake_san() {   # fake_san NAME EXIT LINES...
	local n=$1 x=$2; shift 2
	{ echo '#!/bin/sh'; echo '[ "$1" = --help ] && exit 0'; printf 'echo "%s"\n' "$@"; echo "exit $x"; } >"$tmp/san-$n"
	chmod +x "$tmp/san-$n"
}
fake_san na 1 "========= Error: Device not supported"
fake_san mem 99 "========= Invalid __global__ write of size 4 bytes" "========= ERROR SUMMARY: 1 error"
fake_san api 99 "========= Program hit cudaErrorNoDevice (error 100) due to \"no CUDA-capable device\" on CUDA API call to cudaGetDeviceCount." "========= ERROR SUMMARY: 1 error"
fake_san ok 0 "PASS x" "========= ERROR SUMMARY: 0 errors"
bad=""
for c in "na N/A" "mem FAIL" "api INFO" "ok PASS"; do
	set -- $c
	GPU_CHECK_KERNELS=$tmp/slow GPU_CHECK_SANITIZER=$tmp/san-$1 run_gc --only memcheck --out "$tmp/san-$1.out"
	r=$(row_of "$tmp/san-$1.out" memcheck)
	[[ $r == "memcheck "*" $2 "* ]] || bad="$bad [$1: want $2, got '$r']"
done
if [ -z "$bad" ]; then pass gpu_check_memcheck_verdicts; else fail gpu_check_memcheck_verdicts "$bad"; fi

# ---- the Makefile with a pkg-config that knows OpenBLAS only ----
mkdir -p "$tmp/pc"
cat >"$tmp/pc/pkg-config" <<'EOF'
#!/bin/sh
for a; do case $a in --*) ;; openblas) ;; *) exit 1 ;; esac; done
case $1 in --exists) exit 0 ;; --libs) echo -lopenblas ;; --cflags) echo ;; esac
EOF
chmod +x "$tmp/pc/pkg-config"
libs=$(cd "$root" && make -pn PKG_CONFIG="$tmp/pc/pkg-config" CUDA=0 BUILD="$tmp/mk" 2>/dev/null | sed -n 's/^DEP_LIBS := //p')
if [[ " $libs " == *" -lopenblas "* ]]; then pass makefile_partial_pkgconfig_keeps_openblas
else fail makefile_partial_pkgconfig_keeps_openblas "DEP_LIBS '$libs'"; fi

# ---- the PyTorch script on the CPU ----
py=""
for c in ${PYTHON:-} python3 /usr/bin/python3; do
	command -v "$c" >/dev/null 2>&1 && "$c" -c 'import torch' >/dev/null 2>&1 && { py=$c; break; }
done
if [ -z "$py" ]; then skip torch_codecs_quick "no python3 with torch here (python3-torch)"
elif "$py" "$root/tools/torch_codecs.py" --device cpu --quick >"$tmp/torch.txt" 2>&1 &&
     [ "$(grep -c -E '^(resnet50|bert-base) +quick ' "$tmp/torch.txt")" -eq 18 ] && ! grep -q '^FAIL' "$tmp/torch.txt"; then
	pass torch_codecs_quick
else fail torch_codecs_quick "$(grep -m2 -e '^FAIL' -e 'Error' "$tmp/torch.txt" | tr '\n' ' ') ($(grep -c -E '^(resnet50|bert-base) ' "$tmp/torch.txt") rows)"; fi

# ---- the bare-machine build and a rerun that compiles nothing ----
if [ "${GCBENCH_TEST_GPU_CHECK_BUILD:-0}" != 1 ]; then
	skip gpu_check_stubs_build_rerun "builds the CUDA subset with nvcc (minutes): GCBENCH_TEST_GPU_CHECK_BUILD=1 runs it"
elif ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
	skip gpu_check_stubs_build_rerun "no nvcc here"
else
	"$gc" --no-torch --stubs --only build --build "$tmp/sb" --budget 3000 --out "$tmp/sb1" >>"$tmp/gc.out" 2>&1
	"$gc" --no-torch --stubs --only build --build "$tmp/sb" --budget 3000 --out "$tmp/sb2" >>"$tmp/gc.out" 2>&1
	n=$(grep -c -E '^  (CC|NVCC) ' "$tmp/sb2/build.log")
	if [[ $(row_of "$tmp/sb1" build) == *PASS* ]] && [[ $(row_of "$tmp/sb2" build) == *PASS* ]] && [ "$n" -eq 0 ]; then
		pass gpu_check_stubs_build_rerun
	else fail gpu_check_stubs_build_rerun "$(row_of "$tmp/sb1" build | cut -c1-120) / rerun compiled $n files"; fi
fi
