#!/usr/bin/env bash
# Every built-in method in one short sweep on its own 2-node local cluster at two caps,
# with two baselines (baseline: [syncsgd, bf16], the study's fair 16-bit baseline
# beside fp32): every point ok, and the speedup view has a row for each method against
# each baseline at each cap; the end-of-run table shows each method once.
. "$(dirname "$0")/../lib.sh"
cases="all_methods_ok speedup_both_baselines run_table_once"
need_sweep $cases || exit 0

name=bl$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-bl.XXXXXX)
export GCBENCH_HOME=$work/home
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

methods=$("$BIN/gcbench-worker" --help 2>&1 | sed -n 's/^.*--method M\[:k=v,...\] *\([a-z0-9_ ]*\);.*$/\1/p' | head -1)
nm=$(wc -w <<<"$methods")
if [ "$nm" -lt 7 ]; then
	for c in $cases; do fail "$c" "cannot read the methods from gcbench-worker --help ('$methods')"; done
	exit 1
fi
cluster_up 2 $cases || exit 0
cat >"$work/spec.yaml" <<YAML
name: baselines
workload: replay
models: [tiny]
methods: [$(sed 's/ /, /g' <<<"$methods")]
baseline: [syncsgd, bf16]
bandwidth: [1gbit, 2gbit]
world_size: 2
batch: 8
iterations: 3
warmup: 1
timeout: 120
YAML
db=$work/bl.db
q() { sqlite3 "$db" "$1"; }

if "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --calibrate 0 >"$work/out" 2>&1; then
	n=$(q "SELECT count(*) FROM runs WHERE status = 'ok'")
	[ "$n" = $((2 * nm)) ] && pass all_methods_ok ||
		fail all_methods_ok "$n ok runs, expected $((2 * nm)): $(q "SELECT method, status, error FROM runs WHERE status <> 'ok'" | tr '\n' ' ')"
else
	fail all_methods_ok "gcbench run failed: $(tail -8 "$work/out" | tr '\n' ' ')"
fi

# one row per (method, baseline, cap), each speedup positive, and the bf16 rows'
# baseline time is the bf16 point's own
rows=$(q "SELECT count(*) FROM speedup WHERE speedup > 0 AND baseline IN ('syncsgd', 'bf16')")
pairs=$(q "SELECT count(DISTINCT method || '/' || baseline || '/' || bw_cap_bps) FROM speedup")
own=$(q "SELECT count(*) FROM speedup s JOIN point_summary p ON p.method = 'bf16' AND
	p.bw_cap_bps = s.bw_cap_bps WHERE s.baseline = 'bf16' AND s.t_iter_baseline = p.t_iter")
if [ "$rows" = $((4 * nm)) ] && [ "$pairs" = $((4 * nm)) ] && [ "$own" = $((2 * nm)) ] &&
   [ "$(q "SELECT baselines FROM sweeps")" = '["syncsgd","bf16"]' ]; then
	pass speedup_both_baselines
else
	fail speedup_both_baselines "$rows rows, $pairs pairs, $own with bf16's time (want $((4 * nm)), $((4 * nm)), $((2 * nm))): $(q 'SELECT method, baseline, bw_cap_bps, speedup FROM speedup' | tr '\n' ' ')"
fi

# the table at the end of the run: one line per method and cap (against syncsgd)
lines=$(grep -cE "^ *tiny +($(sed 's/ /|/g' <<<"$methods")) " "$work/out")
[ "$lines" = $((2 * nm)) ] && pass run_table_once ||
	fail run_table_once "$lines table lines, expected $((2 * nm)): $(tail -20 "$work/out" | tr '\n' '|')"
