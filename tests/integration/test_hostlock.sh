#!/usr/bin/env bash
# The host lock (docs/spec.md, "Who holds a host"): two controllers (two GCBENCH_HOMEs,
# two inventories naming the same hosts of one emulated cluster). While the first runs
# a sweep, the second stops with the first's description, exit 3, and changes nothing
# (no qdisc, no database); so does a run that logs in to the same hosts as another
# user; `local: N` of another size does not rebuild the cluster under it, nor do `cluster
# up` of another size and `cluster down`; after the first is killed with SIGKILL the second takes over, restores the
# links the killed sweep left capped and completes.
. "$(dirname "$0")/../lib.sh"
cases="second_stops other_login_stops local_not_rebuilt cluster_cmds_refused takeover_after_sigkill"
need_sweep $cases || exit 0
need_cmd flock $cases || exit 0

name=hostlock-$(( $$ % 1000 ))
work=$(mktemp -d /tmp/gcbench-hostlock.XXXXXX)
export GCBENCH_HOME=$work/a
cleanup() {
	[ -n "${gpid:-}" ] && kill -9 "$gpid" 2>/dev/null
	GCBENCH_HOME=$work/a "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
if ! out=$("$BIN/gcbench" cluster up 2 --name "$name" --user hlu 2>&1); then
	for c in $cases; do fail "$c" "cluster up failed: $out"; done
	exit 0
fi
inv=$GCBENCH_HOME/clusters/$name/inventory.yaml
sed "s/^name: .*/name: first/" "$inv" >"$work/inv-a.yaml"
sed "s/^name: .*/name: second/" "$inv" >"$work/inv-b.yaml"
sed -e "s/^name: .*/name: login/" -e "s/^\( *\)user: root/\1user: hlu/" "$inv" >"$work/inv-u.yaml"
mkdir -p "$work/b"

spec() {   # spec FILE ITERATIONS
	cat >"$1" <<YAML
name: hostlock
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [1gbit]
world_size: 2
batch: 8
iterations: $2
warmup: 1
timeout: 300
YAML
}
qdiscs() { local i; for i in 1 2; do tc -n "gcb-$name-n$i" qdisc show dev eth0 2>&1; done; }
capped() { qdiscs | grep -Eq 'tbf|htb'; }
workers_in() {   # pids of gcbench-worker inside node $1's namespace
	local p
	for p in $(ip netns pids "gcb-$name-n$1" 2>/dev/null); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = gcbench-worker ] && echo "$p"
	done
}
second() {   # second SPEC INVENTORY DB: gcbench run as the second controller; rc in $rc
	GCBENCH_HOME=$work/b "$BIN/gcbench" run "$1" --inventory "$2" --db "$3" --calibrate 0 \
		>"$work/b.out" 2>&1
	rc=$?
}

# the first controller: a slow sweep, until its workers run under a cap
spec "$work/slow.yaml" 100000
"$BIN/gcbench" run "$work/slow.yaml" --inventory "$work/inv-a.yaml" --db "$work/a.db" \
	--calibrate 0 >"$work/a.out" 2>&1 &
gpid=$!
started=0
for _ in $(seq 1 300); do
	[ -n "$(workers_in 2)" ] && capped && { started=1; break; }
	kill -0 "$gpid" 2>/dev/null || break
	sleep 0.2
done
if [ "$started" != 1 ]; then
	for c in $cases; do fail "$c" "the first sweep did not start: $(tail -3 "$work/a.out" | tr '\n' ' ')"; done
	exit 0
fi

# 1. the second controller stops with the first's description and changes nothing
before=$(qdiscs)
spec "$work/short.yaml" 20
second "$work/short.yaml" "$work/inv-b.yaml" "$work/b.db"
after=$(qdiscs)
msg=$(cat "$work/b.out")
if [ "$rc" = 3 ] && [[ "$msg" == *"is held by another gcbench run: user 'root'"* ]] &&
	[[ "$msg" == *"gcbench run pid $gpid,"* ]] && [[ "$msg" == *"GCBENCH_HOME $work/a,"* ]] &&
	[[ "$msg" == *"inventory $work/inv-a.yaml"* ]] && [ "$before" = "$after" ] &&
	[ ! -e "$work/b.db" ] && kill -0 "$gpid" 2>/dev/null && [ -n "$(workers_in 2)" ]; then
	pass second_stops
else
	fail second_stops "exit $rc, qdiscs changed: $([ "$before" = "$after" ] && echo no || echo yes), database: $(ls "$work/b.db" 2>&1), output: $(echo "$msg" | tail -2 | tr '\n' ' ')"
fi

# 2. the same hosts through another login (hlu): the root run's lock file is theirs too
second "$work/short.yaml" "$work/inv-u.yaml" "$work/u.db"
after=$(qdiscs)
if [ "$rc" = 3 ] && grep -q "is held by another gcbench run: user 'root'" "$work/b.out" &&
	grep -q "gcbench run pid $gpid," "$work/b.out" && grep -q "user: hlu" "$work/inv-u.yaml" &&
	[ "$before" = "$after" ] && [ ! -e "$work/u.db" ]; then
	pass other_login_stops
else
	fail other_login_stops "exit $rc, qdiscs changed: $([ "$before" = "$after" ] && echo no || echo yes): $(tail -2 "$work/b.out" | tr '\n' ' ')"
fi

# 3. local: 3 on the same cluster, from either home: not rebuilt, the first goes on
printf 'name: %s\nlocal: 3\n' "$name" >"$work/local3.yaml"
second "$work/short.yaml" "$work/local3.yaml" "$work/c.db"
rc_b=$rc; msg_b=$(cat "$work/b.out")
GCBENCH_HOME=$work/a "$BIN/gcbench" run "$work/short.yaml" --inventory "$work/local3.yaml" \
	--db "$work/c.db" --calibrate 0 >"$work/c.out" 2>&1
rc_a=$?
if [ "$rc_b" = 3 ] && [ "$rc_a" = 3 ] && [[ "$msg_b" == *"local cluster '$name' is in use: its node n1 is held by user 'root'"* ]] &&
	grep -q "gcbench run pid $gpid," "$work/c.out" && ! ip netns list | grep -q "gcb-$name-n3" &&
	[ "$(qdiscs)" = "$before" ] && kill -0 "$gpid" 2>/dev/null && [ -n "$(workers_in 2)" ]; then
	pass local_not_rebuilt
else
	fail local_not_rebuilt "exits $rc_b/$rc_a, n3: $(ip netns list | grep -c "gcb-$name-n3"), first alive: $(kill -0 "$gpid" 2>/dev/null && echo yes || echo no): $(echo "$msg_b" | tail -1)"
fi

# 4. `gcbench cluster up` of another size and `cluster down` refuse a cluster in use
GCBENCH_HOME=$work/a "$BIN/gcbench" cluster up 3 --name "$name" >"$work/up3.out" 2>&1; rc_u=$?
GCBENCH_HOME=$work/a "$BIN/gcbench" cluster down --name "$name" >"$work/down.out" 2>&1; rc_d=$?
if [ "$rc_u" = 3 ] && [ "$rc_d" = 3 ] && grep -q "gcbench run pid $gpid," "$work/up3.out" &&
	grep -q "gcbench run pid $gpid," "$work/down.out" && ! ip netns list | grep -q "gcb-$name-n3" &&
	ip netns list | grep -q "gcb-$name-n1" && [ "$(qdiscs)" = "$before" ] && kill -0 "$gpid" 2>/dev/null; then
	pass cluster_cmds_refused
else
	fail cluster_cmds_refused "exits up $rc_u, down $rc_d: $(tail -1 "$work/up3.out") / $(tail -1 "$work/down.out")"
fi

# 4. SIGKILL the first: its links stay capped; the second takes over, restores and runs
kill -9 "$gpid"; wait "$gpid" 2>/dev/null; gpid=
capped && left_capped=1 || left_capped=0
sleep 1
second "$work/short.yaml" "$work/inv-b.yaml" "$work/b.db"
st=$(sqlite3 "$work/b.db" "SELECT status FROM runs ORDER BY id DESC LIMIT 1" 2>/dev/null)
if [ "$left_capped" = 1 ] && [ "$rc" = 0 ] && [ "$st" = ok ] && ! capped; then
	pass takeover_after_sigkill
else
	fail takeover_after_sigkill "capped after the kill: $left_capped, second exit $rc, run '$st', capped now: $(capped && echo yes || echo no): $(tail -2 "$work/b.out" | tr '\n' ' ')"
fi
