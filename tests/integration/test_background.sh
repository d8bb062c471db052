#!/usr/bin/env bash
# tests/integration/test_background.sh: background: {flows: N} in gcbench run (docs/spec.md,
# "Cross traffic") on a local cluster of 3 nodes at a 100 Mbit/s cap, replay of `tiny`.
#   unknown_host   a pair naming a host not in the inventory: exit 2 with FILE:LINE:COL
#   dry_run_key    --dry-run shows the point key with ;bg=flows:1
#   clean_ok       the same point without background runs (the reference)
#   bg_ok          with one flow per ring link the run is ok
#   bg_stored      runs.network_json "background": flows 1, share 0.5, the 3 ring pairs
#                  n1>n2, n2>n3, n3>n1 each with its tool and a goodput, left 0
#   bg_marked      while the flows run, `gcbench reap --dry-run` on a node lists them
#                  (they carry the run's reap mark)
#   model_share    gcbench model takes the fair share: the run's bottleneck is 50 Mbit/s
#   slowdown       sync SGD under the flow is slower than without, and at least as slow
#                  as the model (fitted to the clean run, out of sample) predicts for TCP's
#                  fair share, less BG_TOL (default 0.15). The fair share is a lower bound
#                  here, not a prediction: the flow keeps the cap's queue full and the
#                  ranks' round trips wait behind it (docs/netem.md, "Background flows",
#                  has the measured table and tools/bg-slowdown.sh)
#   whatif_share   gcbench whatif --background-flows 1 at 2gbit predicts what it does at
#                  1gbit without; --background-flows 17 is refused (exit 2)
#   probe_opts     gcbench-probe refuses --parallel 17 and --on without --off (exit 2)
#   restored       no qdisc and no flow process left on any node after the runs
#   sigint         SIGINT to gcbench while the flows run (here 2 a pair, gcbench-probe,
#                  on/off): the run is 'interrupted', its record stored with each pair's
#                  goodput (the probes report on SIGTERM), no flow left
#   sigkill        SIGKILL to gcbench while the flows run: within 10 s no flow is left
#                  (the keepers end them), and the next run is ok and leaves none
. "$(dirname "$0")/../lib.sh"
cases="unknown_host dry_run_key whatif_share probe_opts clean_ok bg_ok bg_stored bg_marked model_share slowdown restored sigint sigkill"
need_sweep $cases || exit 0
G=$BIN/gcbench
[ -x "$G" ] || { for c in $cases; do fail "$c" "$G is not built"; done; exit 0; }
name=bg-$(( $$ % 10000 ))
tol=${BG_TOL:-0.15}
export GCBENCH_HOME=$(mktemp -d /tmp/gcbench-bg.XXXXXX)
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"; }
trap cleanup EXIT

clean=$GCBENCH_HOME/clean.yaml
spec=$GCBENCH_HOME/bg.yaml
cat >"$clean" <<'YAML'
name: bg
workload: replay
models: [tiny]
methods: [syncsgd]
bandwidth: [100mbit]
world_size: [3]
batch: 8
iterations: 5
warmup: 1
timeout: 300
YAML
{ cat "$clean"; printf 'background: {flows: 1, pairs: [[n1, n2], [n2, n9]]}\n'; } >"$spec"
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "^$spec:11:[0-9]*: background: host 'n9' is not in the inventory" <<<"$out" &&
	[ ! -e "$GCBENCH_HOME/x.db" ]; then pass unknown_host
else fail unknown_host "rc=$rc $out"; fi
sed -i 's/^background: .*/background: {flows: 1}/' "$spec"
out=$("$G" run "$spec" --dry-run --db "$GCBENCH_HOME/x.db" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "key .*;repeat=0;bg=flows:1$" <<<"$out"; then pass dry_run_key
else fail dry_run_key "rc=$rc $out"; fi

w1=$("$G" whatif --model tiny --workers 3 --bandwidth 1gbit --method topk:ratio=0.01 --json 2>&1)
w2=$("$G" whatif --model tiny --workers 3 --bandwidth 2gbit --method topk:ratio=0.01 \
	--background-flows 1 --json 2>&1)
s1=$(sed -n 's/.*"syncsgd_s": *\([0-9.e+-]*\).*/\1/p' <<<"$w1")
s2=$(sed -n 's/.*"syncsgd_s": *\([0-9.e+-]*\).*/\1/p' <<<"$w2")
"$G" whatif --background-flows 17 >/dev/null 2>&1; rc=$?
if [ -n "$s1" ] && [ "$s1" = "$s2" ] && grep -q '"background_flows": *1,' <<<"$w2" && [ $rc -eq 2 ]; then
	pass whatif_share
else fail whatif_share "1gbit: '$s1', 2gbit with one flow: '$s2', rc of 17 flows: $rc; $(head -c 300 <<<"$w2")"; fi
P=$BIN/gcbench-probe
"$P" client --connect 127.0.0.1 --parallel 17 >/dev/null 2>&1; r1=$?
"$P" client --connect 127.0.0.1 --on 1 >/dev/null 2>&1; r2=$?
"$P" client --connect 127.0.0.1 --parallel 0 >/dev/null 2>&1; r3=$?
if [ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ]; then pass probe_opts
else fail probe_opts "exit codes $r1 $r2 $r3, want 2 2 2"; fi

cluster_up 3 clean_ok bg_ok bg_stored bg_marked model_share slowdown restored sigint sigkill || exit 0
# flow processes of this test's cluster: iperf3 or gcbench-probe on a port of run_bg.h
flows() {
	local i p
	for i in 1 2 3; do
		for p in $(ip netns pids "gcb-$name-n$i" 2>/dev/null); do
			{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null |
				grep -qE '^(iperf3|[^ ]*gcbench-probe) .*(-p|--port) 53[1-7][0-9]' &&
				echo "n$i:$p"
		done
	done
}
leftovers() {
	left=""
	for i in 1 2 3; do
		q=$(tc -n "gcb-$name-n$i" qdisc show dev eth0 2>&1)
		grep -qE 'tbf|htb|netem|cannot' <<<"$q" && left="$left n$i: $q;"
	done
	f=$(flows | tr '\n' ' ')
	[ -n "$f" ] && left="$left flows: $f"
}

db0=$GCBENCH_HOME/clean.db
out=$("$G" run "$clean" --inventory "$inv" --db "$db0" 2>&1); rc=$?
ok=$(sqlite3 "$db0" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 1 ]; then pass clean_ok
else fail clean_ok "rc=$rc ok=$ok: $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi

db=$GCBENCH_HOME/bg.db
"$G" run "$spec" --inventory "$inv" --db "$db" >"$GCBENCH_HOME/bg.out" 2>&1 &
pid=$!
marked=""
for _ in $(seq 1 600); do [ -n "$(flows)" ] && break; sleep 0.1; done
sleep 0.5
marked=$(ip netns exec "gcb-$name-n1" "$G" reap --dry-run 2>&1)
wait "$pid"; rc=$?
ok=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 1 ]; then pass bg_ok
else fail bg_ok "rc=$rc ok=$ok: $(tail -n 5 "$GCBENCH_HOME/bg.out" | tr '\n' ' ')"; fi
if grep -qE 'would end (iperf3|gcbench-probe) \(pid [0-9]+\) of run 1' <<<"$marked"; then pass bg_marked
else fail bg_marked "reap --dry-run on n1 while the flows ran: $marked"; fi
got=$(sqlite3 "$db" "SELECT json_extract(network_json, '$.background.flows') || ' ' ||
	json_extract(network_json, '$.background.share') || ' ' ||
	json_extract(network_json, '$.background.left') || ' ' ||
	(SELECT group_concat(json_extract(p.value, '$.from') || '>' || json_extract(p.value, '$.to') || ':' ||
		(json_extract(p.value, '$.goodput_bps') > 0) || ':' ||
		(json_extract(p.value, '$.tool') IN ('iperf3', 'gcbench-probe')), ',')
	 FROM json_each(network_json, '$.background.pairs') p) FROM runs" 2>&1)
echo "# background record: $got; goodput $(sqlite3 "$db" "SELECT json_extract(network_json, '$.background.goodput_bps') FROM runs") bit/s over 3 pairs"
if [ "$got" = "1 0.5 0 n1>n2:1:1,n2>n3:1:1,n3>n1:1:1" ]; then pass bg_stored
else fail bg_stored "'$got': $(sqlite3 "$db" "SELECT network_json FROM runs" | head -c 900)"; fi
m=$("$G" model --db "$db" --no-store --json 2>&1)
if grep -q '"runs":\[{"run_id":1,[^}]*"bw_cap_bps":50000000,' <<<"$m"; then pass model_share
else fail model_share "$(head -c 600 <<<"$m")"; fi

# the model fitted to the clean run, then the run under the flow predicted out of sample
m0=$("$G" model --db "$db0" --no-store --json 2>&1)
m1=$("$G" model --db "$db0" --predict "$db" --json 2>&1)
num() { sed -n "s/.*\"runs\":\[{\"run_id\":1,[^}]*\"$2\":\([0-9.e+-]*\)[,}].*/\1/p" <<<"$1"; }
c_meas=$(num "$m0" measured_s); c_pred=$(num "$m0" predicted_s)
b_meas=$(num "$m1" measured_s); b_pred=$(num "$m1" predicted_s)
echo "# clean: measured ${c_meas:-?} s, predicted ${c_pred:-?} s; one flow per link: measured ${b_meas:-?} s, predicted ${b_pred:-?} s"
if [ -n "$c_meas" ] && [ -n "$b_meas" ] && [ -n "$b_pred" ] && [ -n "$c_pred" ] &&
	awk -v cm="$c_meas" -v bm="$b_meas" -v cp="$c_pred" -v bp="$b_pred" -v t="$tol" 'BEGIN {
		printf "# slowdown: measured %.3fx, predicted %.3fx; run under the flow: predicted/measured %.3f (tolerance %s)\n", bm / cm, bp / cp, bp / bm, t
		exit !(bm > 1.3 * cm && bm >= bp * (1 - t)) }'; then pass slowdown
else fail slowdown "clean $c_meas/$c_pred, background $b_meas/$b_pred (measured/predicted): $(head -c 400 <<<"$m1")"; fi
leftovers
if [ -z "$left" ]; then pass restored; else fail restored "$left"; fi

sed -i -e 's/^iterations: .*/iterations: 3000/' \
	-e 's/^background: .*/background: {flows: 2, tool: probe, pattern: onoff, on: 1, off: 0.5}/' "$spec"
db2=$GCBENCH_HOME/int.db
"$G" run "$spec" --inventory "$inv" --db "$db2" >"$GCBENCH_HOME/int.out" 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 600); do [ -n "$(flows)" ] && { seen=1; break; }; sleep 0.1; done
sleep 1.5
kill -INT "$pid"
wait "$pid"; rc=$?
st=$(sqlite3 "$db2" "SELECT status || ' ' || json_extract(network_json, '$.background.left') || ' ' ||
	(SELECT group_concat(json_extract(p.value, '$.tool') || ':' || (json_extract(p.value, '$.goodput_bps') > 0), ',')
	 FROM json_each(network_json, '$.background.pairs') p) FROM runs" 2>&1)
leftovers
if [ $seen = 1 ] && [ "$st" = "interrupted 0 gcbench-probe:1,gcbench-probe:1,gcbench-probe:1" ] && [ -z "$left" ]; then pass sigint
else fail sigint "rc=$rc flows seen: $seen; status/left: '$st'; left: $left; $(tail -n 4 "$GCBENCH_HOME/int.out" | tr '\n' ' ')"; fi

db3=$GCBENCH_HOME/kill.db
"$G" run "$spec" --inventory "$inv" --db "$db3" >"$GCBENCH_HOME/kill.out" 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 600); do [ -n "$(flows)" ] && { seen=1; break; }; sleep 0.1; done
sleep 1.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 1 100); do [ -z "$(flows)" ] && break; sleep 0.1; done
after_kill=$(flows | tr '\n' ' ')
sed -i 's/^iterations: .*/iterations: 3/' "$spec"
out=$("$G" run "$spec" --inventory "$inv" --db "$db3" 2>&1); rc=$?
ok=$(sqlite3 "$db3" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
leftovers
if [ $seen = 1 ] && [ -z "$after_kill" ] && [ $rc -eq 0 ] && [ "$ok" = 1 ] && [ -z "$left" ]; then
	pass sigkill
else fail sigkill "flows seen: $seen; 10 s after SIGKILL: '$after_kill'; next run rc=$rc ok=$ok; left: $left; $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
