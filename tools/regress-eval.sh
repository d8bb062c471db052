#!/usr/bin/env bash
# tools/regress-eval.sh: the nightly verdict's false-alarm rate and recall on this
# machine's own nights (docs/regress.md, "How often it cries wolf").
#
#   sudo tools/regress-eval.sh [--nights K] [--db PATH] [--trials N] [--csv PATH]
#
# 1. Runs a small sweep (2 emulated nodes, 3 methods, 2 caps) K times (default 12) as
#    K nights, into PATH (default a temporary database; an existing PATH keeps its
#    nights and only the missing ones are run).
# 2. Shows the old verdict's false alarms: every night against the night before with
#    explicit sweep selectors (one run a point: pooled iterations, Mann-Whitney).
# 3. Writes each point's nightly medians (gcbench regress --series --format csv) to
#    --csv (default: next to the database) and prints the table of
#    gcbench regress --evaluate: N (default 3000) unchanged comparisons resampled from
#    the measured nights, and as many with a step of max(3 x spread, 5%) that begins at
#    the first night judged and lasts; the one-night verdict (--confirm 1) at that
#    night, the confirmed one (--confirm 2) at the next, with the false-alarm rate's
#    95% interval; then the measured nights as they are.
# Needs root (the cluster), mpirun and a built tree (make).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/build/bin}
nights=12 db="" trials=3000 csv=""
while [ $# -gt 0 ]; do
	case $1 in
	--nights) nights=$2; shift 2 ;;
	--db) db=$2; shift 2 ;;
	--trials) trials=$2; shift 2 ;;
	--csv) csv=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "regress-eval: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
done
case $nights$trials in *[!0-9]*) echo "regress-eval: --nights and --trials take whole numbers" >&2; exit 2 ;; esac
[ -x "$BIN/gcbench" ] || { echo "regress-eval: no '$BIN/gcbench': run make first" >&2; exit 2; }

name=rev$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-regress-eval.XXXXXX)
export GCBENCH_HOME=$work/home
[ -n "$db" ] || db=$work/nights.db
[ -n "$csv" ] || csv=${db%.db}.csv
cleanup() {
	"$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
cat >"$work/spec.yaml" <<YAML
name: regress-eval
workload: replay
models: [resnet50]
methods: [syncsgd, fp16, powersgd: {rank: 4}]
baseline: syncsgd
bandwidth: [unlimited, 2gbit]
world_size: 2
batch: 8
iterations: 12
warmup: 2
timeout: 120
YAML

have=0
[ -f "$db" ] && have=$(sqlite3 "$db" "SELECT count(*) FROM sweeps WHERE name = 'regress-eval' AND status = 'done'" 2>/dev/null || echo 0)
if [ "$have" -lt "$nights" ]; then
	"$BIN/gcbench" cluster up 2 --name "$name" >"$work/up.log" 2>&1 ||
		{ echo "regress-eval: cluster up failed: $(tail -3 "$work/up.log")" >&2; exit 1; }
	inv=$GCBENCH_HOME/clusters/$name/inventory.yaml
	for i in $(seq $((have + 1)) "$nights"); do
		echo "night $i of $nights ($(date -u +%H:%M:%S))" >&2
		"$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --calibrate 0 \
			--tag "night-$i" >"$work/run.log" 2>&1 ||
			{ echo "regress-eval: night $i failed: $(tail -3 "$work/run.log")" >&2; exit 1; }
	done
fi

ids=$(sqlite3 "$db" "SELECT id FROM sweeps WHERE name = 'regress-eval' AND status = 'done' ORDER BY id")
prev="" pairs=0 alarmed=0 flagged=0 compared=0
for s in $ids; do
	if [ -n "$prev" ]; then
		out=$("$BIN/gcbench" regress --db "$db" --baseline "sweep=$prev" --candidate "sweep=$s" --format json 2>/dev/null)
		rc=$?
		pairs=$((pairs + 1))
		[ "$rc" = 1 ] && alarmed=$((alarmed + 1))
		flagged=$((flagged + $(grep -o '"verdict":"REGRESSION"' <<<"$out" | wc -l)))
		compared=$((compared + $(grep -oE '"verdict":"(same|REGRESSION|improvement)"' <<<"$out" | wc -l)))
	fi
	prev=$s
done
echo "pooled iterations (sweep=N-1 against sweep=N, no history): $alarmed of $pairs unchanged" \
	"nights exit 1; $flagged of $compared point comparisons REGRESSION"
"$BIN/gcbench" regress --db "$db" --series --format csv >"$csv" ||
	{ echo "regress-eval: cannot write the nightly medians to '$csv'" >&2; exit 1; }
"$BIN/gcbench" regress --evaluate "$csv" --trials "$trials"
