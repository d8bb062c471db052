#!/usr/bin/env bash
# tools/validation-table.sh: the performance model's validation table on held-out sweeps
# of the emulated cluster (docs/model.md, "How far to trust it").
#
#   sudo tools/validation-table.sh [--fit DB] [--heldout DB] [--only a,b,...]
#
# 1. Fits: runs experiments/quickstart.yaml (ResNet-50 replay, 4 ranks on 4 nodes, 4
#    methods at 1, 2, 5 and 10 Gbit/s) into --fit (default a temporary database; an
#    existing one is used as it is).
# 2. Holds out: runs these specs into --heldout (default a temporary database; an
#    existing one keeps its runs and each spec resumes), on points the fit never saw:
#      caps   experiments/heldout.yaml        3 and 7 Gbit/s
#      scale  experiments/heldout-scale.yaml  2, 6 and 8 ranks (1 and 2 per node)
#      pack   experiments/heldout-pack.yaml   4 ranks, 2 per node on 2 nodes
#      slow   experiments/heldout-net.yaml    one host at half the cap
#      trace  experiments/heldout-trace.yaml  a square-wave cap
#      bg     experiments/heldout-bg.yaml     one bulk TCP flow per link
#    --only picks some of them by these names.
# 3. Prints `gcbench model --db FIT --validate HELDOUT`: per method, cap, world size,
#    ranks per node and network the median and p95 |error| and the verdicts that agree.
# Needs root (the local emulated cluster) and a built tree (make). About 6 minutes on a
# 2-core machine. Take the figures on a quiet machine.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/build/bin}
fit="" held="" only="caps,scale,pack,slow,trace,bg"
while [ $# -gt 0 ]; do
	case $1 in
	--fit) fit=${2:?}; shift 2 ;;
	--heldout) held=${2:?}; shift 2 ;;
	--only) only=${2:?}; shift 2 ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "validation-table: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
done
[ -x "$BIN/gcbench" ] || { echo "validation-table: no '$BIN/gcbench': run make first" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "validation-table: needs root (the local emulated cluster)" >&2; exit 2; }
declare -A spec=([caps]=heldout [scale]=heldout-scale [pack]=heldout-pack [slow]=heldout-net
	[trace]=heldout-trace [bg]=heldout-bg)
IFS=, read -r -a picked <<<"$only"
for k in "${picked[@]}"; do
	[ -n "${spec[$k]:-}" ] || { echo "validation-table: --only: no set '$k' (caps, scale, pack, slow, trace, bg)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/gcbench-validation.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -n "$fit" ] || fit=$work/fit.db
[ -n "$held" ] || held=$work/heldout.db
inv=$here/experiments/inventory-local.yaml
sweep() {   # SPEC DB: one sweep, its progress to stderr
	echo "validation-table: $(basename "$1") into $2 ($(date -u +%H:%M:%S))" >&2
	"$BIN/gcbench" run "$1" --inventory "$inv" --db "$2" >"$work/run.log" 2>&1 ||
		{ echo "validation-table: the sweep of $1 failed:" >&2; tail -5 "$work/run.log" >&2; exit 1; }
}
[ -s "$fit" ] || sweep "$here/experiments/quickstart.yaml" "$fit"
for k in "${picked[@]}"; do
	sweep "$here/experiments/${spec[$k]}.yaml" "$held"
done
"$BIN/gcbench" model --db "$fit" --validate "$held"
