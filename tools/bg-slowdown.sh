#!/usr/bin/env bash
# tools/bg-slowdown.sh: how much background flows slow sync SGD, measured against what the
# model predicts for TCP's fair share (docs/netem.md, "Background flows"). On a local
# cluster of 3 nodes it makes (and removes), for each cap and each background, it runs
# replay of MODEL (default tiny) with syncsgd once without background and once with it,
# fits the model to the clean run, predicts the run under the flows out of sample
# (gcbench model --predict), and prints a markdown table. Needs root. Take figures on a
# quiet machine.
#   sudo tools/bg-slowdown.sh [CAPS] [ITERATIONS]     # default "100mbit 400mbit" 12
# Environment: BUILD (default build), MODEL (default tiny), BGS (';'-separated background:
# values, default "{flows: 1}; {flows: 1, tool: probe}; {flows: 2}"; the background
# column names each run's queue, fair unless the value says queue: fifo, so
# BGS="{flows: 1}; {flows: 1, queue: fifo}" compares the two).
set -uo pipefail
caps=${1:-100mbit 400mbit}
iters=${2:-12}
BUILD=${BUILD:-build}
G=$BUILD/bin/gcbench
model=${MODEL:-tiny}
bgs=${BGS:-"{flows: 1}; {flows: 1, tool: probe}; {flows: 2}"}
[ "$(id -u)" = 0 ] || { echo "bg-slowdown: needs root (a local cluster)" >&2; exit 2; }
[ -x "$G" ] || { echo "bg-slowdown: build first ('make'): $G" >&2; exit 2; }
name=bgs-$(( $$ % 10000 ))
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-bgs.XXXXXX")
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"; }
trap cleanup EXIT
"$G" cluster up 3 --name "$name" >/dev/null || { echo "bg-slowdown: cluster up failed" >&2; exit 1; }
inv=$GCBENCH_HOME/clusters/$name/inventory.yaml

# run CAP BACKGROUND DB: one point into DB (BACKGROUND "" for none)
run() {
	{
		printf 'name: bgs\nworkload: replay\nmodels: [%s]\nmethods: [syncsgd]\n' "$model"
		printf 'bandwidth: [%s]\nworld_size: [3]\nbatch: 8\niterations: %s\nwarmup: 2\n' "$1" "$iters"
		printf 'timeout: 600\n'
		[ -n "$2" ] && printf 'background: %s\n' "$2"
	} >"$GCBENCH_HOME/s.yaml"
	"$G" run "$GCBENCH_HOME/s.yaml" --inventory "$inv" --db "$3" >"$GCBENCH_HOME/run.out" 2>&1 ||
		{ echo "bg-slowdown: a run failed: $(tail -n 2 "$GCBENCH_HOME/run.out")" >&2; return 1; }
}
num() { sed -n "s/.*\"runs\":\[{\"run_id\":1,[^}]*\"$2\":\([0-9.e+-]*\)[,}].*/\1/p" <<<"$1"; }

echo "| cap | background | clean s | under flows s | slowdown | fair-share slowdown | predicted/measured | flows' goodput |"
echo "|---|---|---|---|---|---|---|---|"
k=0
for cap in $caps; do
	k=$((k + 1))
	c=$GCBENCH_HOME/clean-$k.db
	run "$cap" "" "$c" || continue
	m0=$("$G" model --db "$c" --no-store --json 2>&1)
	cm=$(num "$m0" measured_s) cp=$(num "$m0" predicted_s)
	IFS=';' read -ra list <<<"$bgs"
	for bg in "${list[@]}"; do
		bg=$(sed 's/^ *//; s/ *$//' <<<"$bg")
		k=$((k + 1))
		b=$GCBENCH_HOME/bg-$k.db
		run "$cap" "$bg" "$b" || continue
		m1=$("$G" model --db "$c" --predict "$b" --json 2>&1)
		bm=$(num "$m1" measured_s) bp=$(num "$m1" predicted_s)
		gp=$(sqlite3 "$b" "SELECT json_extract(network_json, '$.background.goodput_bps') || ' ' ||
			json_extract(network_json, '$.background.pairs[0].tool') || ' ' ||
			ifnull(json_extract(network_json, '$.background.queue'), 'fifo') FROM runs")
		awk -v cap="$cap" -v bg="$bg" -v cm="$cm" -v cp="$cp" -v bm="$bm" -v bp="$bp" -v gp="$gp" 'BEGIN {
			split(gp, g, " ")
			printf "| %s | `%s` (%s, %s queue) | %.3f | %.3f | %.2fx | %.2fx | %.2f | %.0f Mbit/s |\n",
				cap, bg, g[2], g[3], cm, bm, bm / cm, bp / cp, bp / bm, g[1] / 1e6 }'
	done
done
