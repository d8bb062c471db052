#!/usr/bin/env bash
# tools/trace-gen.sh: writes gcbench's synthetic bandwidth traces (docs/netem.md,
# "Bandwidth traces") on stdout, in the trace format of netem/trace.h.
#   tools/trace-gen.sh square LOW HIGH HALF_PERIOD_S     LOW and HIGH alternate
#   tools/trace-gen.sh steps RATE... STEP_S                one rate after another
#   tools/trace-gen.sh walk LOW_MBIT HIGH_MBIT STEP_S N SEED   a random walk
#                      (each step multiplies the rate by 0.9..1.1, kept in range)
#   tools/trace-gen.sh mahimahi FILE [BIN_MS]   converts a Mahimahi trace (one line per
#                      1500-byte delivery opportunity, in ms) to rates per BIN_MS (100)
# The shipped traces in experiments/traces/ came from the commands in their headers.
set -euo pipefail
kind=${1:-}; shift || true
case $kind in
square)
	[ $# -eq 3 ] || { echo "usage: $0 square LOW HIGH HALF_PERIOD_S" >&2; exit 2; }
	echo "# square wave: $1 and $2, $3 s each (tools/trace-gen.sh square $*)"
	echo "0 $1"; echo "$3 $2" ;;
steps)
	[ $# -ge 2 ] || { echo "usage: $0 steps RATE... STEP_S" >&2; exit 2; }
	step=${!#}; n=$(( $# - 1 ))
	echo "# steps of ${step} s (tools/trace-gen.sh steps $*)"
	i=0; for r in "${@:1:$n}"; do awk -v i="$i" -v s="$step" -v r="$r" 'BEGIN { printf "%g %s\n", i * s, r }'; i=$((i + 1)); done
	awk -v i="$i" -v s="$step" 'BEGIN { printf "%g end\n", i * s }' ;;
walk)
	[ $# -eq 5 ] || { echo "usage: $0 walk LOW_MBIT HIGH_MBIT STEP_S N SEED" >&2; exit 2; }
	echo "# random walk in [$1, $2] mbit, ${3} s steps (tools/trace-gen.sh walk $*)"
	awk -v lo="$1" -v hi="$2" -v s="$3" -v n="$4" -v seed="$5" 'BEGIN {
		srand(seed); r = (lo + hi) / 2
		for (i = 0; i < n; i++) {
			printf "%.6g %dmbit\n", i * s, r
			r = r * (0.9 + 0.2 * rand()); if (r < lo) r = lo; if (r > hi) r = hi
		}
		printf "%.6g end\n", n * s }' ;;
mahimahi)
	[ $# -ge 1 ] || { echo "usage: $0 mahimahi FILE [BIN_MS]" >&2; exit 2; }
	bin=${2:-100}
	echo "# from Mahimahi trace $(basename "$1"), ${bin} ms bins (tools/trace-gen.sh mahimahi)"
	awk -v bin="$bin" '/^[0-9]+$/ { c[int($1 / bin)]++; if ($1 > last) last = $1 }
		END {
			nb = int(last / bin) + 1
			for (i = 0; i < nb; i++) {
				r = int((c[i] + 0) * 1500 * 8 * 1000 / bin / 1000000 + 0.5)
				if (r < 1) r = 1
				printf "%.6g %dmbit\n", i * bin / 1000, r
			}
			printf "%.6g end\n", nb * bin / 1000 }' "$1" ;;
*)
	echo "usage: $0 square|steps|walk|mahimahi ARGS (see the header)" >&2; exit 2 ;;
esac
