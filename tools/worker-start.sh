#!/usr/bin/env bash
# tools/worker-start.sh: how long gcbench-worker takes for a point apart from its
# iterations. Runs each given binary (default: build/bin/gcbench-worker) as NP ranks
# under mpirun with 1 iteration and no warm-up, interleaved (A B A B ...) REPS times,
# and prints each binary's median and min wall seconds, whole and less rank 0's
# iteration (t_iter from its record file: what is left is the start and the end). Compute is scaled away
# (--compute-scale 1e6), over loopback only (interfaces that other tests create and
# remove do not break it), so what remains is MPI's start, the model's layout, buffers,
# the fill, the one exchange, the checksums and the record file.
#   tools/worker-start.sh [-n NP] [-r REPS] [-w WORKLOAD] [BINARY...]
# Not a test: it never fails on time.
set -u
NP=1 REPS=7 WL=resnet50
while getopts n:r:w: o; do
	case $o in
	n) NP=$OPTARG ;; r) REPS=$OPTARG ;; w) WL=$OPTARG ;;
	*) echo "usage: tools/worker-start.sh [-n NP] [-r REPS] [-w WORKLOAD] [BINARY...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${BUILD:-build}/bin/gcbench-worker"
for b in "$@"; do
	[ -x "$b" ] || { echo "worker-start: '$b' is not an executable; build it or name another" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "worker-start: mpirun is missing; install openmpi-bin" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-wstart.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "worker-start: replay:$WL, $NP rank(s), $REPS interleaved runs each, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < REPS; r++)); do
	i=0
	for b in "$@"; do
		t0=$(date +%s.%N)
		if ! mpirun --oversubscribe -np "$NP" --mca btl self,tcp --mca btl_tcp_if_include lo \
			--mca oob_tcp_if_include lo "$b" --workload "replay:$WL" \
			--iters 1 --warmup 0 --compute-scale 1e6 --out "$tmp/r%r.gcr" >"$tmp/out" 2>&1; then
			echo "worker-start: '$b' failed: $(tail -n 1 "$tmp/out")" >&2; exit 1
		fi
		t1=$(date +%s.%N)
		it=$("$b" --dump "$tmp/r0.gcr" | awk '$1 ~ /^[0-9]+$/ && NF > 10 { s += $11 } END { printf "%.6f", s }')
		echo "$i $(echo "$t1 - $t0" | bc) $(echo "$t1 - $t0 - $it" | bc)" >>"$tmp/times"
		i=$((i + 1))
	done
done
med() { sort -g | awk '{ t[NR] = $1 } END { printf "median %.3f s  min %.3f s",
	(NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2, t[1] }'; }
i=0
for b in "$@"; do
	printf "%-32s whole: %s   less the iteration: %s  (%d runs)\n" "$b" \
		"$(awk -v i=$i '$1 == i { print $2 }' "$tmp/times" | med)" \
		"$(awk -v i=$i '$1 == i { print $3 }' "$tmp/times" | med)" "$REPS"
	i=$((i + 1))
done
