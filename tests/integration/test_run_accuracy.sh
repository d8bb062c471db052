#!/usr/bin/env bash
# tests/integration/test_run_accuracy.sh: a training sweep end to end on its own 4-node
# local cluster: `workload: train` with a target runs train:mlp on the real digits,
# labels the runs mlp, lands the validations in the database (evals, run_evals), and
# the time-to-target views and the end-of-sweep table show sync SGD reaching the target
# and Top-K 0.1% without error feedback never reaching it.
. "$(dirname "$0")/../lib.sh"
cases="sweep_ok labels evals_rows time_to_target summary_table"
need_sweep $cases || exit 0

name=acc$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-acc.XXXXXX)
export GCBENCH_HOME=$work/home
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
if "$BIN/gcbench-worker" --workload train:mlp --data digits --iters 1 --out "$work/probe-r%r.gcr" 2>&1 | grep -q "built without them"; then
	for c in $cases; do skip "$c" "this gcbench-worker has no built-in digits (apt-get install python3-sklearn, then make)"; done
	exit 0
fi

cluster_up 4 $cases || exit 0
cat >"$work/spec.yaml" <<YAML
name: acc-e2e
workload: train
models: [mlp]
methods: [syncsgd, {topk: {ratio: 0.001, ef: 0}}]
baseline: syncsgd
target: {accuracy: 0.9}
eval_every: 10
bandwidth: 1gbit
world_size: 4
batch: 16
iterations: 100
warmup: 2
timeout: 120
YAML
db=$work/acc.db
q() { sqlite3 "$db" "$1"; }

if "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" >"$work/out" 2>&1 &&
   [ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 2 ]; then pass sweep_ok
else fail sweep_ok "gcbench run: $(tail -8 "$work/out" | tr '\n' ' ')"; fi

got=$(q "SELECT DISTINCT workload || ':' || model FROM runs")
[ "$got" = "train:mlp" ] && pass labels || fail labels "runs are labelled '$got'"

# validations after iterations 10, 20, ..., 100 and the last (101: 2 warmup + 100), 4 ranks
# each with a slice, together the 297 validation images
got=$(q "SELECT count(*), SUM(val_n = 297) FROM run_evals")
n=$(q "SELECT count(*) FROM evals")
if [ "$got" = "22|22" ] && [ "$n" = 88 ]; then pass evals_rows
else fail evals_rows "run_evals count|complete '$got' (want 22|22), evals rows $n (want 88)"; fi

got=$(q "SELECT method, iters_to_target IS NOT NULL, t_to_target > 0, missed FROM time_to_target_speedup ORDER BY method")
want=$'syncsgd|1|1|0\ntopk|0||1'
[ "$got" = "$want" ] && pass time_to_target || fail time_to_target "got '$got', want '$want'"

if grep -q "to_target tta_speedup" "$work/out" && grep -E "^mlp +topk .* never" "$work/out" >/dev/null &&
   grep -E "^mlp +syncsgd .* [0-9]+ it +1\.00x" "$work/out" >/dev/null; then pass summary_table
else fail summary_table "$(sed -n '/^model/,/^$/p' "$work/out" | tr '\n' '~')"; fi
