#!/usr/bin/env bash
# tests/integration/test_exit_codes.sh: every row of the exit status table (docs/spec.md,
# "Exit status"), run for real: 0 ok / no regression, 1 regression or failed points,
# 2 usage or bad input, 3 cannot compare or environment error, 130 interrupted.
# The rows that need a sweep run on the test's own 2-node local cluster (root, mpirun).
. "$(dirname "$0")/../lib.sh"
GC=$BIN/gcbench
MK=$BUILD/tests/test_regress
offline="usage_2 bad_spec_2 dry_run_bad_input_2 bad_input_touches_nothing regress_regression_1 regress_none_0 regress_bad_selector_2 regress_no_match_3 regress_first_night_3 regress_unreadable_db_3 unreachable_host_3 bad_db_before_ssh"
sweep="points_ok_0 failed_points_1 interrupted_130"
[ -x "$GC" ] && [ -x "$MK" ] || { for n in $offline $sweep; do skip "$n" "$GC or $MK not built"; done; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gc-exit.XXXXXX")
export GCBENCH_HOME=$work/home
name=vex$(( $$ % 100000 ))
gpid=""
cleanup() {
	[ -n "$gpid" ] && kill -9 "$gpid" 2>/dev/null
	[ -n "${inv:-}" ] && "$GC" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
BIN=$(cd "$BIN" && pwd); GC=$BIN/gcbench
MK=$(cd "$(dirname "$MK")" && pwd)/test_regress
cd "$work" || exit 1

# expect NAME WANT COMMAND...: PASS when COMMAND exits WANT
expect() {
	local n=$1 want=$2 rc; shift 2
	"$@" >"$work/out" 2>&1; rc=$?
	[ "$rc" = "$want" ] && pass "$n" || fail "$n" "exit $rc, want $want: $* :: $(tail -n 4 "$work/out" | tr '\n' ' ')"
}

spec() {   # spec FILE ITERATIONS TIMEOUT [BANDWIDTH]
	cat >"$1" <<YAML
name: exitcodes
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [${4:-1gbit}]
world_size: 2
batch: 8
iterations: $2
warmup: 1
timeout: $3
YAML
}

# --- 2: usage and bad input ----------------------------------------------------------
"$GC" >/dev/null 2>&1; r1=$?
"$GC" no-such-command >/dev/null 2>&1; r2=$?
"$GC" run >/dev/null 2>&1; r3=$?
"$GC" run s.yaml --calibrate x >/dev/null 2>&1; r4=$?
"$GC" status --no-such-option >/dev/null 2>&1; r5=$?
[ "$r1$r2$r3$r4$r5" = 22222 ] && pass usage_2 || fail usage_2 "exits $r1 $r2 $r3 $r4 $r5, want 2 each"

spec bad.yaml 5 60 10Gbps
expect bad_spec_2 2 "$GC" run bad.yaml --db "$work/bad.db"

# what --dry-run and run refuse before touching anything (orchestrator/run/validate.h)
cat >inv0.yaml <<'YAML'
hosts:
  - {name: a, address: 127.0.0.1, port: 9, iface: lo, gpus: 0, identity: /nonexistent/key}
YAML
spec ok.yaml 5 60
mkdir dbdir
bad=""
"$GC" run ok.yaml --inventory inv0.yaml --db "$work/x.db" --dry-run >/dev/null 2>"$work/e1"; [ $? = 2 ] || bad="$bad identity;"
grep -q "^inv0.yaml:2:[0-9]*: host 'a': identity '/nonexistent/key': no such file" "$work/e1" || bad="$bad identity message: $(cat "$work/e1");"
"$GC" run ok.yaml --db dbdir --dry-run >/dev/null 2>&1; [ $? = 2 ] || bad="$bad db is a directory;"
printf 'name,shape\n' >notdb.db
"$GC" run ok.yaml --db notdb.db --dry-run >/dev/null 2>&1; [ $? = 2 ] || bad="$bad db is not SQLite;"
[ -z "$bad" ] && pass dry_run_bad_input_2 || fail dry_run_bad_input_2 "$bad"
"$GC" run ok.yaml --inventory inv0.yaml --db "$work/new.db" >/dev/null 2>&1; r=$?
if [ $r = 2 ] && [ ! -e "$work/new.db" ] && [ ! -e "$GCBENCH_HOME" ]; then pass bad_input_touches_nothing
else fail bad_input_touches_nothing "exit $r; created: $(ls -d "$work/new.db" "$GCBENCH_HOME" 2>/dev/null)"; fi

# --- regress: 1 regression, 0 none, 2 bad selector, 3 cannot compare -----------------
"$MK" --make-db r.db >/dev/null 2>&1 || { for n in $offline; do case $n in regress_*) fail "$n" "cannot build the synthetic database";; esac; done; }
if [ -s r.db ]; then
	expect regress_regression_1 1 "$GC" regress --db r.db --baseline nccl=2.18 --candidate nccl=2.19
	expect regress_none_0 0 "$GC" regress --db r.db --baseline nccl=2.19 --candidate nccl=2.18
	expect regress_bad_selector_2 2 "$GC" regress --db r.db --baseline color=red --candidate nccl=2.19
	expect regress_no_match_3 3 "$GC" regress --db r.db --baseline nccl=9.9 --candidate nccl=2.19
	# the first night: one sweep of the spec, nothing to compare with
	if command -v sqlite3 >/dev/null 2>&1; then
		cp r.db one.db && sqlite3 one.db "DELETE FROM sweeps WHERE id = (SELECT max(id) FROM sweeps)"
		expect regress_first_night_3 3 "$GC" regress --db one.db --baseline previous
	else skip regress_first_night_3 "'sqlite3' is not installed"; fi
	"$GC" regress --db notdb.db --baseline previous >/dev/null 2>&1; r1=$?
	"$GC" regress --db "$work/missing.db" --baseline previous >/dev/null 2>&1; r2=$?
	[ "$r1$r2" = 33 ] && pass regress_unreadable_db_3 || fail regress_unreadable_db_3 "exits $r1 $r2, want 3 3"
fi

# --- 3: a host nobody answers (a closed loopback port); no database is left behind ---
cat >down.yaml <<'YAML'
name: exitcodes-down
hosts:
  - {name: d1, address: 127.0.0.1, port: 9, iface: lo}
  - {name: d2, address: 127.0.0.2, port: 9, iface: lo}
YAML
timeout 120 "$GC" run ok.yaml --inventory down.yaml --db "$work/down.db" --calibrate 0 >"$work/out" 2>&1; r=$?
if [ $r = 3 ] && [ ! -e "$work/down.db" ]; then pass unreachable_host_3
else fail unreachable_host_3 "exit $r (want 3), database left: $(ls "$work/down.db" 2>&1) :: $(tail -n 4 "$work/out" | tr '\n' ' ')"; fi
# a bad --db on the same hosts: refused before any ssh (no cleanup of unreachable nodes)
"$GC" run ok.yaml --inventory down.yaml --db dbdir --calibrate 0 >"$work/out" 2>&1; r=$?
if [ $r = 2 ] && grep -q "is a directory" "$work/out" && ! grep -q "cannot reach" "$work/out"; then pass bad_db_before_ssh
else fail bad_db_before_ssh "exit $r: $(tr '\n' ' ' <"$work/out")"; fi

# --- on a local cluster: 0 ok, 1 failed points, 130 interrupted -----------------------
need_sweep $sweep || exit 0
cluster_up 2 $sweep || exit 0
db=$work/c.db

expect points_ok_0 0 "$GC" run ok.yaml --inventory "$inv" --db "$db" --calibrate 0

# a point that cannot finish in its timeout fails; the sweep goes on and exits 1
spec slow.yaml 200000 2
expect failed_points_1 1 "$GC" run slow.yaml --inventory "$inv" --db "$db" --calibrate 0

workers_in() {   # pids of gcbench-worker inside node $1's namespace
	local p
	for p in $(ip netns pids "gcb-$name-n$1" 2>/dev/null); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = gcbench-worker ] && echo "$p"
	done
}
spec long.yaml 200000 120
"$GC" run long.yaml --inventory "$inv" --db "$db" --calibrate 0 >"$work/out" 2>&1 &
gpid=$!
started=0
for _ in $(seq 1 300); do
	[ -n "$(workers_in 2)" ] && { started=1; sleep 1; break; }
	kill -0 "$gpid" 2>/dev/null || break
	sleep 0.2
done
if [ $started = 1 ]; then
	kill -INT "$gpid"
	for _ in $(seq 1 150); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.2; done
	if kill -0 "$gpid" 2>/dev/null; then kill -9 "$gpid"; fi
	wait "$gpid"; rc=$?; gpid=""
	[ "$rc" = 130 ] && pass interrupted_130 || fail interrupted_130 "exit $rc, want 130: $(tail -n 3 "$work/out" | tr '\n' ' ')"
else
	fail interrupted_130 "the sweep did not start: $(tail -n 5 "$work/out" | tr '\n' ' ')"
fi
