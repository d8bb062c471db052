#!/usr/bin/env bash
# tests/integration/test_run_trace.sh: bandwidth: [trace:FILE] in gcbench run (docs/spec.md,
# "Traces in a run") on a local cluster of 3 nodes, a square wave of 400/200 Mbit/s.
#   bad_trace      a trace line that does not parse: exit 2 with the trace's FILE:LINE,
#                  nothing run
#   dry_run_key    --dry-run shows the point key with bw=trace:NAME@DIGEST
#   sweep_ok       the sweep runs; runs.bw_cap_bps is the trace's mean (300 Mbit/s)
#   model_mean     gcbench model predicts the run at the trace's mean (300 Mbit/s)
#   trace_stored   runs.network_json "trace" has the name, the mean, a start spread, and
#                  for each of the 3 hosts at least one 1-s window and a summary
#   restored       no qdisc left on any node, and no trace player left
#   sigint         SIGINT to gcbench while the players run: the run is 'interrupted',
#                  its trace record stored, no qdisc and no player left
#   sigkill        SIGKILL to gcbench while the players run: within 10 s every player
#                  has seen its owner (the keeper gcbench held open) gone, stopped and
#                  restored its link
. "$(dirname "$0")/../lib.sh"
cases="bad_trace dry_run_key sweep_ok model_mean trace_stored restored sigint sigkill"
need_sweep $cases || exit 0
G=$BIN/gcbench
[ -x "$G" ] || { for c in $cases; do fail "$c" "$G is not built"; done; exit 0; }
name=trace-$(( $$ % 10000 ))
export GCBENCH_HOME=$(mktemp -d /tmp/gcbench-trace.XXXXXX)
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"; }
trap cleanup EXIT

spec=$GCBENCH_HOME/spec.yaml
printf '# square wave\n0 400mbit\n0.5 200mbit\n1 end\n' >"$GCBENCH_HOME/sq.txt"
printf '0 400mbit\n0.5 200mbps\n' >"$GCBENCH_HOME/bad.txt"
cat >"$spec" <<'YAML'
name: trace
workload: replay
models: [tiny]
methods: [syncsgd]
bandwidth: [trace:bad.txt]
world_size: [3]
batch: 8
iterations: 30
warmup: 1
timeout: 120
YAML
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "^$spec:5:[0-9]*: bandwidth trace: $GCBENCH_HOME/bad.txt:2:" <<<"$out" &&
	[ ! -e "$GCBENCH_HOME/x.db" ]; then pass bad_trace
else fail bad_trace "rc=$rc $out"; fi
sed -i 's/trace:bad.txt/trace:sq.txt/' "$spec"
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
digest=$(sed -n 's/.*;bw=trace:sq.txt@\([0-9a-f]\{16\}\);.*/\1/p' <<<"$out" | head -1)
if [ $rc -eq 0 ] && [ -n "$digest" ]; then pass dry_run_key
else fail dry_run_key "rc=$rc $out"; fi

cluster_up 3 sweep_ok model_mean trace_stored restored sigint sigkill || exit 0
db=$GCBENCH_HOME/s.db
out=$("$G" run "$spec" --inventory "$inv" --db "$db" 2>&1); rc=$?
ok=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok' AND bw_cap_bps = 300000000" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 1 ]; then pass sweep_ok
else fail sweep_ok "rc=$rc ok=$ok: $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi
m=$("$G" model --db "$db" --no-store --json 2>&1)
if grep -q '"runs":\[{"run_id":1,[^}]*"bw_cap_bps":300000000,' <<<"$m"; then pass model_mean
else fail model_mean "$(head -c 600 <<<"$m")"; fi
got=$(sqlite3 "$db" "SELECT json_extract(network_json, '$.trace.name') || ' ' ||
	json_extract(network_json, '$.trace.mean_bps') || ' ' ||
	(json_extract(network_json, '$.trace.start_spread_us') IS NOT NULL) || ' ' ||
	(SELECT group_concat(h.key || ':' ||
		(SELECT count(*) FROM json_each(h.value) w WHERE json_extract(w.value, '$.window') IS NOT NULL) || ':' ||
		(SELECT count(*) FROM json_each(h.value) w WHERE json_extract(w.value, '$.summary') = 1), ',')
	 FROM json_each(network_json, '$.trace.hosts') h) FROM runs" 2>&1)
echo "# trace record: $got; start spread $(sqlite3 "$db" "SELECT json_extract(network_json, '$.trace.start_spread_us') FROM runs") us"
if [[ "$got" =~ ^sq.txt\ 300000000\ 1\ n1:[1-9][0-9]*:1,n2:[1-9][0-9]*:1,n3:[1-9][0-9]*:1$ ]]; then
	pass trace_stored
else fail trace_stored "'$got': $(sqlite3 "$db" "SELECT network_json FROM runs" | head -c 800)"; fi
leftovers() {
	left=""
	for i in 1 2 3; do
		q=$(tc -n "gcb-$name-n$i" qdisc show dev eth0 2>&1)
		grep -qE 'tbf|htb|netem|cannot' <<<"$q" && left="$left n$i: $q;"
	done
	# a player of this test: it plays files/trace-DIGEST.txt of this trace
	players && left="$left a player runs;"
}
players() { pgrep -af "gcbench-netem play" | grep -qF "trace-$digest.txt"; }
leftovers
if [ -z "$left" ]; then pass restored; else fail restored "$left"; fi

sed -i 's/^iterations: .*/iterations: 3000/' "$spec"
db2=$GCBENCH_HOME/int.db
"$G" run "$spec" --inventory "$inv" --db "$db2" >"$GCBENCH_HOME/int.out" 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 600); do players && { seen=1; break; }; sleep 0.1; done
sleep 1.5
kill -INT "$pid"
wait "$pid"; rc=$?
st=$(sqlite3 "$db2" "SELECT status || ' ' || (json_extract(network_json, '$.trace.name') IS NOT NULL) FROM runs" 2>&1)
leftovers
if [ $seen = 1 ] && [ "$st" = "interrupted 1" ] && [ -z "$left" ]; then pass sigint
else fail sigint "rc=$rc players seen: $seen; status/record: '$st'; left: $left; $(tail -n 4 "$GCBENCH_HOME/int.out" | tr '\n' ' ')"; fi

db3=$GCBENCH_HOME/kill.db
"$G" run "$spec" --inventory "$inv" --db "$db3" >"$GCBENCH_HOME/kill.out" 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 600); do players && { seen=1; break; }; sleep 0.1; done
sleep 1.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 1 100); do leftovers; [ -z "$left" ] && break; sleep 0.1; done
if [ $seen = 1 ] && [ -z "$left" ]; then pass sigkill
else fail sigkill "players seen: $seen; left 10 s after SIGKILL: $left"; fi
