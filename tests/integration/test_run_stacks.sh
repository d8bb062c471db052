#!/usr/bin/env bash
# tests/integration/test_run_stacks.sh: a `workload: command` spec with two stacks on its
# own 2-node local cluster, both gcbench-worker started through {bin} with
# {method_arg}: one overlapping the exchange with backward, one not (--no-overlap), at
# one cap, syncsgd and powersgd. Each method's stacks run back to back, runs.stack
# holds the name, the speedup view pairs each method with the baseline of its own
# stack, stack_pairs puts the stacks side by side, the summary names the stack, and a
# second tagged run of the same spec is compared by regress point by point, stacks
# apart. Time: about 30 s.
. "$(dirname "$0")/../lib.sh"
cases="stacks_run stack_order own_baseline stack_pairs summary_names regress_stacks"
need_sweep $cases || exit 0

name=stacks$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-stacks.XXXXXX)
export GCBENCH_HOME=$work/home
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$work"; }
trap cleanup EXIT
cluster_up 2 $cases || exit 0

cat >"$work/spec.yaml" <<'YAML'
name: stacks-test
workload: command
stacks:
  overlap: ["{bin}/gcbench-worker", --workload, "replay:{model}", --method, "{method_arg}",
            --iters, "{iterations}", --warmup, "{warmup}", --batch, "{batch}", --threads, "1",
            --out, "{records}"]
  serial: ["{bin}/gcbench-worker", --workload, "replay:{model}", --method, "{method_arg}",
           --iters, "{iterations}", --warmup, "{warmup}", --batch, "{batch}", --threads, "1",
           --no-overlap, --out, "{records}"]
models: [tiny]
methods:
  - syncsgd
  - powersgd: {rank: 2}
baseline: syncsgd
bandwidth: 200mbit
world_size: 2
batch: 8
iterations: 4
warmup: 1
timeout: 120
YAML
db=$work/s.db
q() { sqlite3 "$db" "$1"; }

"$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --tag a >"$work/out" 2>&1
rc=$?
got=$(q "SELECT stack || ':' || method || ':' || params || ':' || status FROM runs ORDER BY id" | tr '\n' ' ')
want="overlap:syncsgd::ok serial:syncsgd::ok overlap:powersgd:rank=2:ok serial:powersgd:rank=2:ok "
[ "$rc" = 0 ] && [ "$got" = "$want" ] && pass stacks_run ||
	fail stacks_run "exit $rc, runs: $got (want $want): $(tail -6 "$work/out" | tr '\n' ' ')"

# the keys end in ;stack=NAME and each run's records came from gcbench-worker
keys=$(q "SELECT count(*) FROM runs WHERE point_key LIKE '%;stack=' || stack AND producer LIKE 'gcbench-worker%'")
[ "$keys" = 4 ] && pass stack_order || fail stack_order "$keys of 4 runs keyed by stack with the worker's records: $(q 'SELECT point_key, producer FROM runs' | tr '\n' ' ')"

# powersgd against syncsgd of the same stack, never across
own=$(q "SELECT count(*) FROM speedup WHERE method = 'powersgd' AND stack IN ('overlap', 'serial')")
base=$(q "SELECT group_concat(printf('%.6f', abs(s.t_iter_baseline - p.t_iter)), ',') FROM speedup s JOIN point_summary p ON p.stack = s.stack AND p.method = 'syncsgd' WHERE s.method = 'powersgd'")
[ "$own" = 2 ] && [ "$base" = "0.000000,0.000000" ] && pass own_baseline ||
	fail own_baseline "$own rows; baseline differences $base: $(q 'SELECT stack, method, t_iter, t_iter_baseline FROM speedup' | tr '\n' ' ')"

# one row per method: overlap against serial, ratio = t_iter / t_iter_other
pairs=$(q "SELECT method || ':' || stack || ':' || other_stack || ':' || (abs(ratio - t_iter / t_iter_other) < 1e-12) || ':' || (speedup IS NOT NULL) FROM stack_pairs ORDER BY method" | tr '\n' ' ')
[ "$pairs" = "powersgd:overlap:serial:1:1 syncsgd:overlap:serial:1:1 " ] && pass stack_pairs ||
	fail stack_pairs "got: $pairs"

grep -q "overlap/powersgd" "$work/out" && grep -q "serial/powersgd" "$work/out" && grep -q "tiny overlap/syncsgd @" "$work/out" &&
	pass summary_names || fail summary_names "$(grep -E 'powersgd|syncsgd' "$work/out" | head -8 | tr '\n' ' ')"

"$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --tag b >"$work/out2" 2>&1
rc=0
"$BIN/gcbench" regress --db "$db" --baseline tag=a --candidate tag=b --json >"$work/reg" 2>&1 || rc=$?
n=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(sorted("%s/%s" % (p["stack"], p["method"]) for p in r["points"])))' "$work/reg" 2>/dev/null)
[ "$rc" -le 1 ] && [ "$n" = "overlap/powersgd overlap/syncsgd serial/powersgd serial/syncsgd" ] && pass regress_stacks ||
	fail regress_stacks "regress exit $rc, points: '$n': $(head -c 400 "$work/reg")"
