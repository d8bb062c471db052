#!/usr/bin/env bash
# tests/integration/test_slow.sh: slow: {HOST: FACTOR} (docs/spec.md, "Slow hosts").
#   unknown_host   a host not in the inventory: exit 2 with FILE:LINE:COL, nothing run
#   dry_run_key    --dry-run shows the point key with ;slow=
#   sweep_ok       a 3-node sweep at 200mbit with n2 at 0.5 runs
#   slow_link      the calibrated ring pairs: n2's egress at its own 100mbit cap (its
#                  goodput within 0.8-1.02 of it), the others' at 200mbit, each stored with
#                  its own cap; runs.network_json holds "slow":{"n2":0.5}
#   model_bottleneck  gcbench model predicts the run at the ring's bottleneck: n2's
#                  100mbit cap, and the links' goodput scaled to it
#   restored       no qdisc left on any node afterwards
. "$(dirname "$0")/../lib.sh"
cases="unknown_host dry_run_key sweep_ok slow_link model_bottleneck restored"
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

cluster_up 3 sweep_ok slow_link model_bottleneck restored || exit 0
db=$GCBENCH_HOME/s.db
out=$("$G" run "$spec" --inventory "$inv" --db "$db" --calibrate-all 2>&1); rc=$?
ok=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 1 ]; then pass sweep_ok
else fail sweep_ok "rc=$rc ok=$ok: $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi
links=$(sqlite3 "$db" "SELECT group_concat(src || ':' || cap_bps || ':' || (goodput_bps > 0.8 * cap_bps AND goodput_bps < 1.02 * cap_bps), ' ') FROM (SELECT * FROM links ORDER BY src)" 2>/dev/null)
net=$(sqlite3 "$db" "SELECT network_json FROM runs" 2>/dev/null)
if [ "$links" = "n1:200000000:1 n2:100000000:1 n3:200000000:1" ] && grep -q '"slow":{"n2":0.5}}$' <<<"$net"; then
	pass slow_link
else fail slow_link "links (src:cap:within): '$links' $(sqlite3 "$db" "SELECT src, goodput_bps FROM links" | tr '\n' ' '); network_json: $net"; fi
m=$("$G" model --db "$db" --no-store --json 2>&1)
used=$(sed -n 's/.*"runs":\[{"run_id":1,[^}]*"bw_cap_bps":100000000,"bw_used_bps":\([0-9.e+]*\),.*/\1/p' <<<"$m")
if [ -n "$used" ] && awk -v u="$used" 'BEGIN { exit !(u > 0.8e8 && u <= 1.02e8) }'; then pass model_bottleneck
else fail model_bottleneck "$(head -c 600 <<<"$m")"; fi
left=""
for i in 1 2 3; do
	q=$(tc -n "gcb-$name-n$i" qdisc show dev eth0 2>&1)
	grep -qE 'tbf|htb|netem|cannot' <<<"$q" && left="$left n$i: $q;"
done
if [ -z "$left" ]; then pass restored; else fail restored "$left"; fi
