#!/usr/bin/env bash
# The users' nightly loop on a private 2-node cluster: the same spec run three times
# (tags a, b, c, as three nights or a rerun after an upgrade) gives three sweeps and
# three times the runs; while 'b' runs, two busy loops load the CPUs. regress flags the
# slowed points of b against a (exit 1) and nothing of c against a (exit 0); history
# shows each sweep as its own row.
. "$(dirname "$0")/../lib.sh"
cases="three_sweeps regress_flags_loaded regress_quiet_same history_per_sweep previous_sweeps"
need_sweep $cases || exit 0

name=ngt$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-nightly.XXXXXX)
export GCBENCH_HOME=$work/home
busy=""
cleanup() {
	for p in $busy; do kill "$p" 2>/dev/null; done
	"$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
cluster_up 2 $cases || exit 0
db=$work/n.db
q() { sqlite3 "$db" "$1"; }
cat >"$work/spec.yaml" <<YAML
name: nightly
workload: replay
models: [resnet50]
methods: [syncsgd, powersgd: {rank: 4}]
baseline: syncsgd
bandwidth: [unlimited]
world_size: 2
batch: 8
iterations: 12
warmup: 2
timeout: 120
YAML
run() { "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --calibrate 0 --tag "$1" >"$work/out.$1" 2>&1; }

ok=1
run a || ok=0
# two busy loops, each in its own session with the priority of a greedy neighbour
# (autogroup nice -10): with the kernel's autogroup scheduling, plain loops at nice 0
# were measured to slow these workers by 0-15% only, which is what noise does too
for _ in 1 2; do setsid bash -c 'while :; do :; done' & busy="$busy $!"; done
sleep 0.2
for p in $busy; do echo -10 >"/proc/$p/autogroup" 2>/dev/null; done
run b || ok=0
for p in $busy; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
busy=""
run c || ok=0
sweeps=$(q "SELECT count(*) FROM sweeps WHERE status = 'done'")
runs=$(q "SELECT count(*) FROM runs WHERE status = 'ok'")
[ "$ok" = 1 ] && [ "$sweeps" = 3 ] && [ "$runs" = 6 ] && grep -q "new sweep" "$work/out.c" && pass three_sweeps ||
	fail three_sweeps "runs ok=$ok, $sweeps done sweeps, $runs ok runs (want 3 and 6): $(tail -3 "$work/out.c" | tr '\n' ' ')"

# ResNet-50's 25.6M-float gradient, uncapped: the exchange (the kernel's TCP over the
# veths), decode, PowerSGD's products and the SGD step are CPU work, so the loops slow
# every point far more than the minimum effect (about 3x here); two quiet nights differ
# by noise. That noise is large for PowerSGD on this 2-core emulated cluster: one quiet
# night against another was measured at +26.5% (interval +23..+45%, one run of 10
# iterations a point, fresh-clone CI), so the minimum effect is 50%, still far below
# what the loaded night shows. The cause of PowerSGD's run-to-run spread here is not
# established (the ranks already get one thread each: run_point.c, shared_cores).
min=0.5
out=$("$BIN/gcbench" regress --db "$db" --baseline tag=a --candidate tag=b --min-effect $min 2>&1); rc=$?
n=$(grep -c 'REGRESSION$' <<<"$out")
[ "$rc" = 1 ] && [ "$n" -ge 1 ] && pass regress_flags_loaded ||
	fail regress_flags_loaded "exit $rc, $n regressions: $out"
out=$("$BIN/gcbench" regress --db "$db" --baseline tag=a --candidate tag=c --min-effect $min 2>&1); rc=$?
[ "$rc" = 0 ] && grep -q "0 regressions" <<<"$out" && pass regress_quiet_same ||
	fail regress_quiet_same "exit $rc: $out"

out=$("$BIN/gcbench" history --db "$db" --model resnet50 --method powersgd 2>&1)
rows=$(grep -cE '^[0-9]+ +20[0-9-]+ ' <<<"$out")
[ "$rows" = 3 ] && grep -q ' b ' <<<"$out" && pass history_per_sweep ||
	fail history_per_sweep "$rows rows (want 3): $out"

out=$("$BIN/gcbench" regress --db "$db" --baseline previous --min-effect $min 2>&1); rc=$?
grep -q "candidate: latest (sweep 3)" <<<"$out" && grep -q "baseline:  previous (sweep 2)" <<<"$out" &&
	[ "$rc" = 0 ] && pass previous_sweeps || fail previous_sweeps "exit $rc: $out"
