#!/usr/bin/env bash
# The latency axis on a local cluster of 2 nodes: a spec with latency [0, 10ms] on a
# kernel without netem is refused before anything is shaped, naming every node and
# sch_netem (on a kernel with netem it runs and stores the delay read back); a spec
# with latency [0] runs as before and stores the read-back 0.
. "$(dirname "$0")/../lib.sh"
cases="latency_refused_or_applied latency_nothing_left latency_zero_runs"
need_sweep $cases || exit 0

name=latency-$(( $$ % 10000 ))
work=$(mktemp -d /tmp/gcbench-latency.XXXXXX)
export GCBENCH_HOME=$work/home
state_dir=/run/gcbench/netem   # gcbench-netem's default on the nodes
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

cluster_up 2 $cases || exit 0
spec() {   # spec FILE LATENCY NAME
	cat >"$1" <<YAML
name: latency-$3
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [1gbit]
latency: $2
world_size: 2
batch: 8
iterations: 3
warmup: 1
timeout: 120
YAML
}
q() { sqlite3 "$1" "$2"; }
ssh_n() { ssh -F "$GCBENCH_HOME/clusters/$name/ssh_config" "$@"; }
# what is left on the nodes' links and in their state directories
leftovers() {
	local i
	for i in 1 2; do
		tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -E 'tbf|htb|netem' | sed "s/^/n$i: /"
		ssh_n "n$i" ls "$state_dir" 2>/dev/null | sed "s/^/n$i state: /"
	done
}
has_netem=0
# the nodes are namespaces of this machine: its kernel is theirs
"$BIN/gcbench-netem" check --netem >/dev/null 2>&1 && has_netem=1

spec "$work/lat.yaml" "[0, 10ms]" ten
"$BIN/gcbench" run "$work/lat.yaml" --inventory "$inv" --db "$work/lat.db" >"$work/out" 2>&1; rc=$?
if [ $has_netem = 0 ]; then
	if [ $rc -ne 0 ] && grep -q "node 'n1'" "$work/out" && grep -q "'n1', 'n2'" "$work/out" &&
		grep -q "sch_netem" "$work/out" && grep -q "nothing was shaped" "$work/out" &&
		[ "$(q "$work/lat.db" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" = 0 ] &&
		[ "$(q "$work/lat.db" 'SELECT count(*) FROM sweeps' 2>/dev/null || echo 0)" = 0 ]; then
		pass "latency_refused_or_applied (refused, exit $rc: this kernel has no sch_netem)"
	else fail latency_refused_or_applied "exit $rc: $(tail -4 "$work/out" | tr '\n' ' ')"; fi
else
	got=$(q "$work/lat.db" "SELECT group_concat(latency_s || '/' || latency_applied_s, ' ') FROM (SELECT * FROM runs WHERE status = 'ok' ORDER BY latency_s)")
	if [ $rc -eq 0 ] && [ "$got" = "0.0/0.0 0.01/0.01" ]; then pass "latency_refused_or_applied (applied: $got)"
	else fail latency_refused_or_applied "exit $rc, asked/applied: $got; $(tail -4 "$work/out" | tr '\n' ' ')"; fi
fi
left=$(leftovers)
[ -z "$left" ] && pass latency_nothing_left || fail latency_nothing_left "$(tr '\n' ' ' <<<"$left")"

spec "$work/zero.yaml" "[0]" zero
if "$BIN/gcbench" run "$work/zero.yaml" --inventory "$inv" --db "$work/zero.db" >"$work/out0" 2>&1; then
	got=$(q "$work/zero.db" "SELECT status || ' ' || latency_s || ' ' || latency_applied_s FROM runs")
	left=$(leftovers)
	if [ "$got" = "ok 0.0 0.0" ] && [ -z "$left" ] && ! grep -q netem "$work/out0"; then pass latency_zero_runs
	else fail latency_zero_runs "runs: $got; left: $(tr '\n' ' ' <<<"$left")"; fi
else fail latency_zero_runs "gcbench run failed: $(tail -5 "$work/out0" | tr '\n' ' ')"; fi
