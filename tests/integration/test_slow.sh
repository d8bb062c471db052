#!/usr/bin/env bash
# tests/integration/test_slow.sh: slow: {HOST: FACTOR} and slow: [{}, {HOST: FACTOR}]
# (docs/spec.md, "Slow hosts").
#   unknown_host   a host not in the inventory: exit 2 with FILE:LINE:COL, nothing run
#                  (the mapping form, and a list item)
#   dry_run_key    --dry-run shows the point key with ;slow=
#   dry_run_keys   slow: [{}, {n2: 0.5}]: --dry-run shows both points, the uniform one's
#                  key without ;slow= (as a spec without slow: has it)
#   sweep_ok       a 3-node sweep at 200mbit of slow: [{}, {n2: 0.5}] runs both points;
#                  its closing table has a row at "200mbit, slow n2:0.5"
#   slow_link      the slow point's calibrated ring pairs: n2's egress at its own 100mbit
#                  cap (its goodput within 0.8-1.02 of it), the others' at 200mbit, each
#                  stored with its own cap; its runs.network_json holds "slow":{"n2":0.5},
#                  the uniform point's no "slow"
#   model_bottleneck  gcbench model predicts the slow run at the ring's bottleneck: n2's
#                  100mbit cap, and the links' goodput scaled to it
#   slow_vs_model  the ring runs at the slow link's bound: the slow run's median iteration
#                  time within 10% of what gcbench model predicts for it (the issue's
#                  bound; measured 0.97-0.98 of it over 5 runs), and its ratio to the
#                  uniform run's, measured, at 0.8-1.1 of the model's ratio (which says
#                  more than 1.5x: tiny's all-reduce dominates at 200mbit). Why 0.8 and
#                  not 0.9: on the loaded 2-core machine (load average 4-7, 2026-12-05)
#                  the ratio measured 0.88-0.93 of the model over 8 runs, the uniform run
#                  5-7% slower than its prediction, the slow one 2-3% faster: a cost per
#                  iteration that load adds to both, and that weighs more in the faster
#                  run; 0.9 would fail about one run in four
#   report_rows    gcbench report shows the two points as rows of their own, with the
#                  network column: uniform, slow n2:0.5
#   history_net    gcbench history --network slow (and uniform) selects that row alone,
#                  its network column and --json field included
#   restored       no qdisc left on any node afterwards
. "$(dirname "$0")/../lib.sh"
cases="unknown_host dry_run_key dry_run_keys sweep_ok slow_link model_bottleneck slow_vs_model report_rows history_net restored"
need_sweep $cases || exit 0
G=$BIN/gcbench
[ -x "$G" ] || { for c in $cases; do fail "$c" "$G is not built"; done; exit 0; }
name=slow-$(( $$ % 10000 ))
export GCBENCH_HOME=$(mktemp -d /tmp/gcbench-slow.XXXXXX)
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"; }
trap cleanup EXIT

spec=$GCBENCH_HOME/spec.yaml
cat >"$spec" <<'YAML'
name: slow
workload: replay
models: [tiny]
methods: [syncsgd]
bandwidth: [200mbit]
world_size: [3]
batch: 8
iterations: 3
warmup: 1
timeout: 180
slow: {n2: 0.5, n7: 0.5}
YAML
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "^$spec:11:[0-9]*: slow: host 'n7' is not in the inventory" <<<"$out" &&
	[ ! -e "$GCBENCH_HOME/x.db" ]; then pass unknown_host
else fail unknown_host "rc=$rc $out"; fi
sed -i 's/, n7: 0.5//' "$spec"
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "key .*;repeat=0;slow=n2:0.5$" <<<"$out"; then pass dry_run_key
else fail dry_run_key "rc=$rc $out"; fi
# the list form: the uniform point and n2 at 0.5 in one sweep (iterations enough for a
# median: tiny's all-reduce takes about 0.2 s at 200mbit)
sed -i -e 's/^slow: .*/slow: [{}, {n2: 0.5, n9: 0.5}]/' -e 's/^iterations: 3/iterations: 8/' "$spec"
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if ! { [ $rc -eq 2 ] && grep -q "^$spec:11:[0-9]*: slow: host 'n9' is not in the inventory" <<<"$out"; }; then
	fail unknown_host "list: rc=$rc $out"
fi
sed -i 's/, n9: 0.5//' "$spec"
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c "key .*;repeat=0$" <<<"$out")" = 1 ] &&
	[ "$(grep -c "key .*;repeat=0;slow=n2:0.5$" <<<"$out")" = 1 ]; then pass dry_run_keys
else fail dry_run_keys "rc=$rc $out"; fi

cluster_up 3 sweep_ok slow_link model_bottleneck slow_vs_model report_rows history_net restored || exit 0
db=$GCBENCH_HOME/s.db
out=$("$G" run "$spec" --inventory "$inv" --db "$db" --calibrate-all 2>&1); rc=$?
ok=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 2 ] && grep -q " 200mbit, slow n2:0.5 " <<<"$out"; then pass sweep_ok
else fail sweep_ok "rc=$rc ok=$ok: $(tail -n 12 <<<"$out" | tr '\n' ' ')"; fi
slow_id=$(sqlite3 "$db" "SELECT id FROM runs WHERE point_key LIKE '%;slow=n2:0.5'" 2>/dev/null)
links=$(sqlite3 "$db" "SELECT group_concat(src || ':' || cap_bps || ':' || (goodput_bps > 0.8 * cap_bps AND goodput_bps < 1.02 * cap_bps), ' ') FROM (SELECT * FROM links WHERE run_id = '$slow_id' ORDER BY src)" 2>/dev/null)
net=$(sqlite3 "$db" "SELECT network_json FROM runs WHERE id = '$slow_id'" 2>/dev/null)
net0=$(sqlite3 "$db" "SELECT network_json FROM runs WHERE id <> '$slow_id'" 2>/dev/null)
if [ "$links" = "n1:200000000:1 n2:100000000:1 n3:200000000:1" ] && grep -q '"slow":{"n2":0.5}}$' <<<"$net" &&
	[ -n "$net0" ] && ! grep -q '"slow"' <<<"$net0"; then
	pass slow_link
else fail slow_link "links (src:cap:within): '$links' $(sqlite3 "$db" "SELECT run_id, src, goodput_bps FROM links" | tr '\n' ' '); network_json: $net; uniform: $net0"; fi
m=$("$G" model --db "$db" --no-store --json 2>&1)
used=$(sed -n 's/.*{"run_id":'"$slow_id"',[^}]*"bw_cap_bps":100000000,"bw_used_bps":\([0-9.e+]*\),.*/\1/p' <<<"$m")
if [ -n "$used" ] && awk -v u="$used" 'BEGIN { exit !(u > 0.8e8 && u <= 1.02e8) }'; then pass model_bottleneck
else fail model_bottleneck "$(head -c 600 <<<"$m")"; fi
ratio=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
r = {x["run_id"]: x for x in d["runs"]}
s = r.pop(int(sys.argv[1])); u = list(r.values())[0]
print("%.4f %.4f %.4f" % (s["measured_s"] / u["measured_s"], s["predicted_s"] / u["predicted_s"],
                         s["measured_s"] / s["predicted_s"]))' "$slow_id" <<<"$m" 2>/dev/null)
# shellcheck disable=SC2086  # three numbers, split on purpose
set -- $ratio
if [ $# = 3 ] && awk -v m="$1" -v p="$2" -v own="$3" 'BEGIN { exit !(m / p > 0.8 && m / p < 1.1 && p > 1.5 && own > 0.9 && own < 1.1) }'; then
	pass slow_vs_model
	echo "# n2 at 0.5 over uniform, 200mbit, 3 nodes: measured $1, model $2; the slow run at $3 of its prediction"
else fail slow_vs_model "measured/predicted ratios, slow run over its prediction '$ratio': $(head -c 400 <<<"$m")"; fi
"$G" report --db "$db" --out "$GCBENCH_HOME/rep" >/dev/null 2>&1
md=$(cat "$GCBENCH_HOME/rep/report.md" 2>/dev/null)
if grep -q '^| tiny | syncsgd | 3 | 200mbit | uniform | ' <<<"$md" &&
	grep -q '^| tiny | syncsgd | 3 | 200mbit | slow n2:0.5 | ' <<<"$md"; then pass report_rows
else fail report_rows "$(grep -i 'network\|tiny' <<<"$md" | head -n 8)"; fi
hs=$("$G" history --db "$db" --model tiny --method syncsgd --network slow 2>&1)
hu=$("$G" history --db "$db" --model tiny --method syncsgd --network uniform --json 2>&1)
ha=$("$G" history --db "$db" --model tiny --method syncsgd 2>&1)
if [ "$(grep -c ' slow n2:0.5 ' <<<"$hs")" = 1 ] && ! grep -q ' uniform ' <<<"$hs" &&
	grep -q '"network":"uniform"' <<<"$hu" && ! grep -q 'slow' <<<"$hu" &&
	grep -q ' uniform ' <<<"$ha" && grep -q ' slow n2:0.5 ' <<<"$ha"; then pass history_net
else fail history_net "--network slow: $hs; --network uniform --json: $hu; all: $ha"; fi
left=""
for i in 1 2 3; do
	q=$(tc -n "gcb-$name-n$i" qdisc show dev eth0 2>&1)
	grep -qE 'tbf|htb|netem|cannot' <<<"$q" && left="$left n$i: $q;"
done
if [ -z "$left" ]; then pass restored; else fail restored "$left"; fi
