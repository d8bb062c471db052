#!/usr/bin/env bash
# tools/bench_vs_pytorch.sh (make bench-vs-pytorch): gcbench-worker against the study's
# own stack, PyTorch DDP with its communication hooks, as one `gcbench run` of
# experiments/bench-vs-pytorch.yaml: two stacks (docs/spec.md, stacks:), every method on
# both, back to back at every cap, on the same nodes and parameter shapes; then the
# table of tools/stack_pairs.sql (docs/pytorch.md says what it holds).
#
# Usage: tools/bench_vs_pytorch.sh [options] [-- options for gcbench run]
#   --spec FILE        the spec; experiments/bench-vs-pytorch.yaml
#   --inventory FILE   run on the hosts of a gcbench inventory (python3 with torch on
#                      every host) instead of a local 4-node cluster brought up here
#   --db FILE          the results database; DIR/bench.db with --keep, else a temporary
#   --max-load L       refuse when the 1-minute load average exceeds L before the run
#                      (1.5, for 2 cores); --force runs anyway and says so
#   --keep DIR         keep the database and gcbench's log in DIR
#   PYTHON=...         the local cluster's python with torch (default: the first of
#                      python3, /usr/bin/python3 that imports it)
# Exit: 0 reported, or "skipped" (a local cluster needs root; no torch); 1 refused (busy)
# or the sweep failed; 2 bad arguments.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) BIN=$BUILD/bin ;; *) BIN=$ROOT/$BUILD/bin ;; esac
spec=$ROOT/experiments/bench-vs-pytorch.yaml inventory="" db="" max_load=1.5 force=0 keep=""

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
say() { echo "bench-vs-pytorch: $*"; }
while [ $# -gt 0 ]; do
	case $1 in --spec|--inventory|--db|--max-load|--keep)
		[ $# -ge 2 ] || { say "$1 needs a value (see --help)" >&2; exit 2; } ;;
	esac
	case $1 in
	--spec) spec=$2; shift ;;
	--inventory) inventory=$2; shift ;;
	--db) db=$2; shift ;;
	--max-load) max_load=$2; shift ;;
	--force) force=1 ;;
	--keep) keep=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) say "unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
awk -v l="$max_load" 'BEGIN { exit !(l ~ /^[0-9]+(\.[0-9]+)?$/) }' ||
	{ say "--max-load takes a number of CPUs, e.g. 1.5" >&2; exit 2; }
[ -r "$spec" ] || { say "cannot read the spec $spec" >&2; exit 2; }
[ -z "$inventory" ] || [ -r "$inventory" ] || { say "cannot read the inventory $inventory" >&2; exit 2; }
if [ -z "$inventory" ] && [ "$(id -u)" -ne 0 ]; then
	say "skipped: a local cluster needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN); or give --inventory"; exit 0
fi
PY=python3
if [ -z "$inventory" ]; then   # the local nodes share this machine's file system
	PY=""
	for p in ${PYTHON:-} python3 /usr/bin/python3; do
		if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$(command -v "$p"); break; fi
	done
	[ -n "$PY" ] || { say "skipped: no python3 can import torch (apt-get install python3-torch, or set PYTHON)"; exit 0; }
fi
for b in gcbench gcbench-worker; do
	[ -x "$BIN/$b" ] || { say "$BIN/$b is not built (run make)" >&2; exit 1; }
done
command -v sqlite3 >/dev/null || { say "sqlite3 is missing (apt-get install sqlite3)" >&2; exit 1; }

load=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average $load on $(nproc) cores before the run (limit $max_load)"
if awk -v l="${load%% *}" -v m="$max_load" 'BEGIN { exit !(l > m) }'; then
	if [ "$force" != 1 ]; then
		say "WARNING: the machine is busy (load ${load%% *} > $max_load): refusing to measure; wait, or pass --force" >&2
		exit 1
	fi
	say "WARNING: the machine is busy (load ${load%% *} > $max_load): the figures measure the CPU as much as the network (--force)"
	busy=1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-vspt.XXXXXX")
name=pt$(( $$ % 100000 ))
ours=""   # set before this script brings up its cluster: cleanup takes that one down
cleanup() {
	# down before rm: cluster down needs the cluster's folder under $tmp/home
	[ -n "$ours" ] && GCBENCH_HOME=$tmp/home "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ -n "$keep" ] && { mkdir -p "$keep" || exit 1; }
[ -n "$db" ] || db=${keep:-$tmp}/bench.db
log=${keep:-$tmp}/run.log

run_spec=$spec
if [ -z "$inventory" ]; then
	export GCBENCH_HOME=$tmp/home
	say "bringing up a local 4-node cluster ($name)"
	ours=1
	"$BIN/gcbench" cluster up 4 --name "$name" >"$tmp/up.log" 2>&1 ||
		{ say "cluster up failed: $(tail -n 3 "$tmp/up.log")" >&2; exit 1; }
	inventory=$GCBENCH_HOME/clusters/$name/inventory.yaml
	if [ "$PY" != "$(command -v python3)" ]; then   # this python, the files by absolute path
		dir=$(cd "$(dirname "$spec")" && pwd)
		sed -e "s|\[python3,|[$PY,|" -e "/^files:/s|\([[ ,] *\)\([^][/ ,][^], ]*\)|\1$dir/\2|g" \
			"$spec" >"$tmp/spec.yaml"
		run_spec=$tmp/spec.yaml
	fi
fi
say "gcbench run $spec -> $db (log: $log)"
"$BIN/gcbench" run "$run_spec" --inventory "$inventory" --db "$db" "$@" 2>&1 | tee "$log" |
	grep --line-buffered -E '^\[[0-9]+/[0-9]+\]|error|failed' >&2
rc=${PIPESTATUS[0]}
echo
sqlite3 -column -header "$db" <"$ROOT/tools/stack_pairs.sql"
echo
say "$(date -u +%F) on $(nproc) cores; gcbench / PyTorch below 1: gcbench is faster"
[ -n "${busy:-}" ] && say "measured on a busy machine (load ${load%% *} > $max_load, --force)"
[ "$rc" = 0 ] || say "gcbench run exited $rc: some points failed (see $log and gcbench status --db $db)" >&2
exit $(( rc != 0 ))
