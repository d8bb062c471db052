#!/usr/bin/env bash
# Nightly verdicts that do not cry wolf, on a private 2-node cluster: the same small
# sweep run as 8 nights under one steady busy loop (a neighbour's load that is there
# every night), then nights 9 and 10 with node 2's port degraded underneath gcbench
# (tools/degrade-port.sh: a tbf on the host side of its veth, below the sweep's cap; the
# point keys do not change). With one run a night 'regress --baseline previous' confirms
# over two nights: nights 7 and 8 are judged by the series' noise model (5 nights before
# the two) and give no regression; night 9, the first degraded, is "suspect" (exit 0);
# night 10 confirms it (exit 1); 'regress --series' names sweep 9 as the night the step
# began, and the environment field that changed that night (the tag).
. "$(dirname "$0")/../lib.sh"
cases="eight_nights quiet_nights_same degraded_night_suspect degraded_confirmed series_names_night series_csv"
need_sweep $cases || exit 0
need_cmd tc $cases || exit 0

name=rsr$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-rseries.XXXXXX)
export GCBENCH_HOME=$work/home
busy=""
cleanup() {
	for p in $busy; do kill "$p" 2>/dev/null; done
	tools/degrade-port.sh --cluster "$name" --node 2 --clear >/dev/null 2>&1
	"$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
cluster_up 2 $cases || exit 0
db=$work/n.db
cat >"$work/spec.yaml" <<YAML
name: nightly-series
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [1gbit]
world_size: 2
batch: 8
iterations: 10
warmup: 2
timeout: 120
YAML
run() { "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --calibrate 0 --tag "$1" >"$work/out" 2>&1; }
regress() { "$BIN/gcbench" regress --db "$db" "$@" 2>&1; }

setsid bash -c 'while :; do :; done' & busy=$!
ok=1 quiet=""
for night in 1 2 3 4 5 6 7 8; do
	run nightly || { ok=0; break; }
	if [ "$night" -ge 7 ]; then
		out=$(regress --baseline previous); rc=$?
		quiet="$quiet night $night: exit $rc, $(grep -c '#' <<<"$out") marked #;"
		[ "$rc" = 0 ] && grep -q "marked #: 1 points judged by their nightly series" <<<"$out" ||
			quiet="$quiet FAILED: $out"
	fi
done
[ "$ok" = 1 ] && pass eight_nights || fail eight_nights "$(tail -3 "$work/out" | tr '\n' ' ')"
case $quiet in *FAILED*|"") fail quiet_nights_same "$quiet" ;; *) pass quiet_nights_same ;; esac

# node 2 receives at 100 Mbit/s: ring all-reduce of tiny's 3.9 MB gradient waits on it
tools/degrade-port.sh --cluster "$name" --node 2 --rate 100mbit || fail degraded_night_suspect "tc failed"
run port-degraded || fail degraded_night_suspect "night 9 failed: $(tail -3 "$work/out")"
step=$(sqlite3 "$db" "SELECT max(id) FROM sweeps")
out=$(regress --baseline previous); rc=$?
[ "$rc" = 0 ] && grep -q '# *suspect$' <<<"$out" && grep -q 'suspect: confirm tomorrow: 1 points' <<<"$out" &&
	pass degraded_night_suspect || fail degraded_night_suspect "exit $rc: $out"

run port-degraded || fail degraded_confirmed "night 10 failed: $(tail -3 "$work/out")"
tools/degrade-port.sh --cluster "$name" --node 2 --clear
out=$(regress --baseline previous); rc=$?
[ "$rc" = 1 ] && grep -q '# *REGRESSION$' <<<"$out" &&
	pass degraded_confirmed || fail degraded_confirmed "exit $rc: $out"

out=$(regress --series); rc=$?
[ "$rc" = 0 ] && grep -q "at sweep $step\$" <<<"$out" &&
	grep -q "sweep $step (.*changed that night: tag nightly -> port-degraded" <<<"$out" &&
	pass series_names_night || fail series_names_night "exit $rc, want a step at sweep $step: $out $(regress --series --format csv)"

out=$(regress --series --format csv); rc=$?
n=$(grep -c ',' <<<"$out")
[ "$rc" = 0 ] && [ "$(head -1 <<<"$out")" = "point,night,median_s" ] && [ "$n" = 11 ] &&
	"$BIN/gcbench" regress --evaluate <(echo "$out") --trials 50 >/dev/null 2>&1 &&
	pass series_csv || fail series_csv "exit $rc, $n lines (want 11): $out"
