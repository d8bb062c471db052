#!/usr/bin/env bash
# tests/integration/test_hostlock_users.sh: two logins that are not root, alice and bob
# (gcbha, gcbhb), on the same emulated hosts see each other's host lock
# (docs/guide.md, "One sweep per host"). While alice's sweep runs, bob's stops with
# exit 3 and alice's run described, and changes nothing; the lock is the shared file
# /run/lock/gcbench/host@N (1777 directory, 0666 file), not a file in either home;
# once alice's sweep ends, bob's runs in that same file. Both shape through sudo (a
# NOPASSWD line in the nodes' own sudoers.d); the cluster and both logins are removed.
. "$(dirname "$0")/../lib.sh"
cases="second_login_stops lock_is_shared second_login_runs_after"
need_sweep $cases || exit 0
need_cmd sudo $cases || exit 0
need_cmd flock $cases || exit 0
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built"; done; exit 0; }

name=hu$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-hlusers.XXXXXX)
export GCBENCH_HOME=$work/a
D=$GCBENCH_HOME/clusters/$name
T=$GCBENCH_HOME/nodes/$name
a=gcbha b=gcbhb buid=64124
gpid=
cleanup() {
	[ -n "$gpid" ] && kill -9 "$gpid" 2>/dev/null
	GCBENCH_HOME=$work/a "$G" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
if ! out=$("$G" cluster up 2 --name "$name" --user "$a" 2>&1); then
	for c in $cases; do fail "$c" "cluster up failed: $out"; done
	exit 0
fi
# bob: a second login on every node (the files are bound over the node's /etc: in place)
for i in 1 2; do
	for f in passwd group shadow; do
		line=$(grep "^$a:" "$T/n$i/etc/$f" | sed -e "s/^$a:/$b:/" -e "s/:64123:/:$buid:/g" -e "s#/home/$a#/home/$b#")
		[ "$f" = group ] && line="$b:x:$buid:"
		printf '%s\n' "$line" >>"$T/n$i/etc/$f"
	done
	mkdir -p "$T/n$i/home/$b/.ssh"
	cp "$T/n$i/home/$a/.ssh/authorized_keys" "$T/n$i/home/$b/.ssh/"
	chown -R "$buid:$buid" "$T/n$i/home/$b" && chmod 0700 "$T/n$i/home/$b/.ssh"
	install -m 0440 /dev/null "$T/n$i/sudoers.d/gcbench"
	printf '%s ALL=(root) NOPASSWD: ALL\n' "$a" "$b" >"$T/n$i/sudoers.d/gcbench"
done
for u in "$a" "$b"; do
	sed "s/^  User root$/  User $u/" "$D/ssh_config" >"$work/ssh_config.$u"
	{ echo "name: $u"; echo "ssh_config: $work/ssh_config.$u"; echo "sudo: true"; echo "hosts:"
	  for i in 1 2; do
		ad=$(awk -v n="n$i" '$1 == "Host" { h = $2 } h == n && $1 == "HostName" { print $2 }' "$D/ssh_config")
		echo "  - {name: n$i, address: $ad, user: $u, iface: eth0}"
	  done; } >"$work/inv-$u.yaml"
done
spec() {   # spec FILE ITERATIONS
	printf 'name: hlusers\nworkload: replay\nmodels: [tiny]\nmethods: [syncsgd]\nbaseline: syncsgd\nbandwidth: [1gbit]\nworld_size: 2\nbatch: 8\niterations: %s\nwarmup: 1\ntimeout: 300\n' "$2" >"$1"
}
spec "$work/slow.yaml" 100000
spec "$work/short.yaml" 5
qdiscs() { local i; for i in 1 2; do tc -n "gcb-$name-n$i" qdisc show dev eth0 2>&1; done; }
capped() { qdiscs | grep -Eq 'tbf|htb'; }
workers_in() {   # pids of gcbench-worker inside node $1's namespace
	local p
	for p in $(ip netns pids "gcb-$name-n$1" 2>/dev/null); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = gcbench-worker ] && echo "$p"
	done
}

"$G" run "$work/slow.yaml" --inventory "$work/inv-$a.yaml" --db "$work/a.db" --calibrate 0 >"$work/a.out" 2>&1 &
gpid=$!
started=0
for _ in $(seq 1 400); do
	[ -n "$(workers_in 2)" ] && capped && { started=1; break; }
	kill -0 "$gpid" 2>/dev/null || break
	sleep 0.2
done
if [ "$started" != 1 ]; then
	for c in $cases; do fail "$c" "alice's sweep did not start: $(tail -3 "$work/a.out" | tr '\n' ' ')"; done
	exit 0
fi

before=$(qdiscs)
mkdir -p "$work/b"
GCBENCH_HOME=$work/b "$G" run "$work/short.yaml" --inventory "$work/inv-$b.yaml" --db "$work/b.db" \
	--calibrate 0 >"$work/b.out" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q "is held by another gcbench run: user '[^']*' on '[^']*' (gcbench run pid $gpid," "$work/b.out" &&
   grep -q "inventory $work/inv-$a.yaml" "$work/b.out" && [ "$(qdiscs)" = "$before" ] && [ ! -e "$work/b.db" ] &&
   kill -0 "$gpid" 2>/dev/null; then pass second_login_stops
else fail second_login_stops "exit $rc: $(tail -2 "$work/b.out" | tr '\n' ' ')"; fi

# the lock alice holds: /run/lock/gcbench/host@<n1's namespace inode>, 0666, locked,
# its record naming her sweep's inventory (the file's owner is whoever made it first: a
# namespace inode is reused once a namespace is gone, and lock files stay, so it may be
# an older login's)
ino=$(stat -L -c %i "/run/netns/gcb-$name-n1" 2>/dev/null)
f=/run/lock/gcbench/host@$ino
if [ "$(stat -c '%a %u' /run/lock/gcbench 2>/dev/null | cut -d' ' -f1)" = 1777 ] &&
   [ "$(stat -c '%a' "$f" 2>/dev/null)" = 666 ] && grep -qxF "inventory=$work/inv-$a.yaml" "$f" &&
   ! flock -n "$f" true &&
   [ -z "$(ls "$T"/n*/home/*/.cache/gcbench/hostlock 2>/dev/null)" ]; then pass lock_is_shared
else fail lock_is_shared "$(ls -la /run/lock/gcbench 2>&1 | tr '\n' ' ') homes: $(ls -d "$T"/n*/home/*/.cache/gcbench/hostlock 2>&1 | tr '\n' ' ')"; fi

kill -INT "$gpid" 2>/dev/null
for _ in $(seq 1 150); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.2; done
gpid=
GCBENCH_HOME=$work/b "$G" run "$work/short.yaml" --inventory "$work/inv-$b.yaml" --db "$work/b.db" \
	--calibrate 0 >"$work/b2.out" 2>&1
rc=$?
ok=$(sqlite3 "$work/b.db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 1 ] && ! capped; then pass second_login_runs_after
else fail second_login_runs_after "exit $rc, ok runs ${ok:-?}: $(tail -2 "$work/b2.out" | tr '\n' ' ')"; fi
