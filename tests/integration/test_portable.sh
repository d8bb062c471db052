#!/usr/bin/env bash
# tests/integration/test_portable.sh: the build that provisioning copies runs on any
# x86-64-v2 CPU (kernels/isa.h). objdump of gcbench-worker finds no AVX-512 instruction
# (zmm, mask or EVEX-only registers) and no AVX instruction at all outside the
# dispatched kernels' variants (<kernel>_avx2, <kernel>_avx512 and their OpenMP
# bodies <kernel>_avx512._omp_fn.N), and finds some inside them (so the check sees
# what it looks for); the worker's --self-test passes under qemu-x86_64 -cpu Nehalem
# (x86-64-v2: the baseline kernels) and -cpu Haswell (the avx2 ones); an ARCH=native
# build (made here in a temporary BUILD, a few minutes; GCBENCH_NATIVE_WORKER names one
# instead) records its CPU flags and dies with SIGILL under Nehalem, which provisioning
# reports as a refusal (tests/unit/test_provision.c, test_check_cpu). And no program
# links cuBLAS (its initializers cost every process ~80 ms of CPU at start; GPU code
# loads it on first use, kernels/cuda/cublas_load.h).
. "$(dirname "$0")/../lib.sh"
cases="no_avx512_outside_variants no_avx_outside_variants selftest_nehalem selftest_haswell
native_refused_nehalem no_cublas_linked"
W=$BIN/gcbench-worker
[ -x "$W" ] || { for c in $cases; do skip "$c" "$W is not built (it needs MPI: libopenmpi-dev)"; done; exit 0; }
info=$("$W" --build-info 2>&1)

linked=
for b in "$BIN"/gcbench*; do
	readelf -d "$b" 2>/dev/null | grep -q 'NEEDED.*libcublas' && linked="$linked ${b##*/}"
done
if [ -z "$linked" ]; then pass no_cublas_linked
else fail no_cublas_linked "linked at start:$linked (load it with gc_cublas())"; fi
arch=$(sed -n 's/^arch=//p' <<<"$info")

# --- objdump: what the baseline code holds -----------------------------------------------
# prints "outside inside first-offenders" for AVX-512 ($1 = 512) or any AVX ($1 = avx)
scan() {
	objdump -d --no-show-raw-insn "$W" | awk -v kind="$1" '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
	/^ *[0-9a-f]+:\t/ {
		split($0, f, "\t"); ins = f[2]; mn = ins; sub(/ .*/, "", mn)
		if (kind == "512")
			hit = ins ~ /%zmm|%k[0-7]|%[xy]mm(1[6-9]|2[0-9]|3[01])|\{1to/
		else
			hit = mn ~ /^v/ && mn !~ /^ver[rw]/
		if (!hit) next
		ok = kind == "512" ? fn ~ /_avx512[.>]/ : fn ~ /_avx(2|512)[.>]/
		if (ok) inside++
		else { outside++; if (n < 3) { bad = bad " " fn " " mn; n++ } }
	}
	END { printf "%d %d%s\n", outside, inside, bad }'
}
if [ "${arch#x86-64}" = "$arch" ]; then
	for c in no_avx512_outside_variants no_avx_outside_variants; do
		skip "$c" "this build is ARCH=$arch (the check is for the portable default)"; done
elif ! command -v objdump >/dev/null; then
	for c in no_avx512_outside_variants no_avx_outside_variants; do
		skip "$c" "'objdump' is not installed (binutils)"; done
else
	read -r out in bad <<<"$(scan 512)"
	echo "# AVX-512 instructions: $out outside the variants, $in inside"
	if [ "$out" = 0 ] && [ "$in" -gt 0 ]; then pass no_avx512_outside_variants
	else fail no_avx512_outside_variants "$out outside (first:$bad), $in inside"; fi
	read -r out in bad <<<"$(scan avx)"
	echo "# AVX/AVX-512 instructions: $out outside the variants, $in inside"
	if [ "$out" = 0 ] && [ "$in" -gt 0 ]; then pass no_avx_outside_variants
	else fail no_avx_outside_variants "$out outside (first:$bad), $in inside"; fi
fi

# --- the self-test on older CPUs (qemu-user) ----------------------------------------------
# qemu <cpu> <binary> --self-test: its output, and the status in $qrc
qemu() { local cpu=$1; shift; out=$(qemu-x86_64 -cpu "$cpu" "$@" 2>&1); qrc=$?; out=$(grep -v "TCG doesn't support" <<<"$out"); }
if need_cmd qemu-x86_64 selftest_nehalem selftest_haswell native_refused_nehalem; then
	if [ "${arch#x86-64}" = "$arch" ]; then
		skip selftest_nehalem "this build is ARCH=$arch"
		skip selftest_haswell "this build is ARCH=$arch"
	else
		qemu Nehalem "$W" --self-test
		if [ $qrc = 0 ] && grep -q '^self-test: ok: .*kernels at level default' <<<"$out"
		then pass selftest_nehalem
		else fail selftest_nehalem "status $qrc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
		qemu Haswell "$W" --self-test
		if [ $qrc = 0 ] && grep -q '^self-test: ok: .*kernels at level avx2' <<<"$out"
		then pass selftest_haswell
		else fail selftest_haswell "status $qrc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	fi

	# --- an ARCH=native build is not runnable on Nehalem ---------------------------------
	flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	if ! grep -qw avx <<<"$flags"; then
		skip native_refused_nehalem "this CPU has no AVX: a native build here needs nothing Nehalem lacks"
	else
		NW=${GCBENCH_NATIVE_WORKER:-}
		tmp=
		if [ -z "$NW" ]; then
			tmp=$(mktemp -d /tmp/gcbench-portable.XXXXXX)
			trap 'rm -rf "$tmp"' EXIT
			root=$(cd "$(dirname "$0")/../.." && pwd)
			if ! bout=$(make -C "$root" -s -j2 ARCH=native BUILD="$tmp/b" CUDA=0 \
					"$tmp/b/bin/gcbench-worker" 2>&1); then
				fail native_refused_nehalem "the native build failed: $(tail -n 3 <<<"$bout" | tr '\n' ' ')"
			fi
			NW=$tmp/b/bin/gcbench-worker
		fi
		if [ -x "$NW" ]; then
			ninfo=$("$NW" --build-info 2>&1)
			qemu Nehalem "$NW" --self-test
			echo "# native build under Nehalem: status $qrc"
			if grep -q '^native=1' <<<"$ninfo" && grep -qw avx <<<"$(sed -n 's/^needs=//p' <<<"$ninfo")" &&
			   [ $qrc = 132 ]; then pass native_refused_nehalem
			else fail native_refused_nehalem "status $qrc, build info: $(tr '\n' ' ' <<<"$ninfo")"; fi
		fi
	fi
fi
