#!/usr/bin/env bash
# tests/integration/test_deb.sh: the package (make deb) on this machine, whose /usr and
# /etc the emulated nodes share, so that `dpkg -i` here installs it "on every node".
#   deb_builds         make deb builds a package with the helper in it
#   install_netem      make install-netem DESTDIR=...: the helper alone, where the
#                      package puts it, with the policy and the protocol query
#   dpkg_installs      dpkg -i: group gcbench, helper root:gcbench 0750 cap_net_admin
#   outsider_refused   a login outside the group: provisioning stops with the usermod fix
#   member_sweep       once in the group (no sudo, no sudoers line, no setcap on its copy)
#                      a sweep shapes the nodes' allowed interface through the helper
#   new_build_shapes   another build of gcbench (another digest: the sudoers pin would
#                      need an admin) shapes again with no admin step
#   not_allowed        the helper refuses an interface netem.conf does not allow
#   outsider_direct    a login outside the group cannot run the helper at all
#   lock_holder_only   while another login holds the node's host lock, the helper
#                      refuses to shape there
#   syslog             every change and refusal reaches syslog (only where /dev/log is
#                      free for the test's own listener)
#   protocol_fallback  a helper at that path speaking another protocol is not used:
#                      provisioning falls back to the provisioned copy and says so
#   nocap_named        a helper of this protocol that may not shape (no capability):
#                      provisioning names setcap and the package
#   purge_restores     dpkg --purge restores a link the helper left capped and leaves
#                      dpkg's status, the group and every qdisc as they were
# Makes logins gcbm<PID> (in the group) and gcbo<PID> (not) and removes them; purges the
# package even on failure. Skips everything when a gcbench package or group is there.
. "$(dirname "$0")/../lib.sh"
cases="deb_builds install_netem dpkg_installs outsider_refused member_sweep new_build_shapes not_allowed
outsider_direct lock_holder_only syslog purge_restores protocol_fallback nocap_named"
need_sweep $cases || exit 0
for c in dpkg-deb setcap getcap useradd runuser; do need_cmd "$c" $cases || exit 0; done
if dpkg-query -W gcbench >/dev/null 2>&1 || getent group gcbench >/dev/null; then
	for c in $cases; do skip "$c" "a gcbench package or group is already on this machine"; done
	exit 0
fi
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built"; done; exit 0; }
H=/usr/lib/gcbench/gcbench-netem
proto=$("$BIN/gcbench-netem" version --json | sed -n 's/.*"protocol":\([0-9]*\).*/\1/p')
name=deb$(( $$ % 100000 ))
user=gcbd m=gcbm$$ o=gcbo$$
tmp=$(mktemp -d /tmp/gcbench-deb.XXXXXX)
export GCBENCH_HOME=$tmp/home
D=$GCBENCH_HOME/clusters/$name
T=$GCBENCH_HOME/nodes/$name
ns1=gcb-$name-n1 ns2=gcb-$name-n2
sleeper= listener= made_log= fake=
cleanup() {
	[ -n "$fake" ] && rm -rf /usr/lib/gcbench
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	[ -n "$made_log" ] && rm -f /dev/log
	dpkg-query -W gcbench >/dev/null 2>&1 && dpkg --purge gcbench >/dev/null 2>&1
	userdel "$m" >/dev/null 2>&1; userdel "$o" >/dev/null 2>&1
	"$G" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
snapshot() { dpkg-query -W -f '${Package} ${Version} ${Status}\n' | sort; cat /var/lib/dpkg/statoverride; }
qdiscs() { local n; for n in "$ns1" "$ns2"; do echo "$n"; tc -n "$n" qdisc show; done; }
# a login's command in a node's namespace (runuser, as a login: setpriv's own exec
# skips the file's permission check)
as() { local u=$1 ns=$2; shift 2; ip netns exec "$ns" runuser -u "$u" -- "$@"; }
snapshot >"$tmp/dpkg.before"

# --- the package ---------------------------------------------------------------------
out=$(make --no-print-directory BUILD="$BUILD" deb 2>&1); rc=$?
deb=$(sed -n 's/^deb: \([^ ]*\.deb\) .*/\1/p' <<<"$out")
[ -f "$deb" ] && dpkg-deb -c "$deb" >"$tmp/contents" 2>&1
if [ $rc -eq 0 ] && [ -f "$deb" ] && grep -q " \./usr/lib/gcbench/gcbench-netem$" "$tmp/contents" &&
   grep -q " \./etc/gcbench/netem.conf$" "$tmp/contents"; then pass deb_builds
else
	fail deb_builds "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	for c in $cases; do [ "$c" = deb_builds ] || skip "$c" "no package"; done; exit 0
fi
out=$(make --no-print-directory BUILD="$BUILD" install-netem DESTDIR="$tmp/dest" 2>&1); rc=$?
dh=$tmp/dest$H
if [ $rc -eq 0 ] && [ "$(stat -c %a "$dh" 2>/dev/null)" = 750 ] && "$dh" version --json | grep -q "\"protocol\":$proto," &&
   [ -f "$tmp/dest/etc/gcbench/netem.conf" ] && grep -q "^d /run/lock/gcbench 1777" "$tmp/dest/usr/lib/tmpfiles.d/gcbench.conf" &&
   ! grep -q '^allow' "$tmp/dest/etc/gcbench/netem.conf"; then pass install_netem
else fail install_netem "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
out=$(dpkg -i "$deb" 2>&1); rc=$?
if [ $rc -eq 0 ] && getent group gcbench >/dev/null && [ "$(stat -c '%U:%G %a' "$H")" = "root:gcbench 750" ] &&
   getcap "$H" | grep -q cap_net_admin && [ -f /etc/gcbench/netem.conf ] &&
   dpkg-statoverride --list "$H" | grep -qx "root gcbench 750 $H" &&
   [ "$(stat -c %a /run/lock/gcbench)" = 1777 ]; then pass dpkg_installs
else
	fail dpkg_installs "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ') $(stat -c '%U:%G %a' "$H" 2>&1) $(getcap "$H" 2>&1)"
	for c in $cases; do case $c in deb_builds|install_netem|dpkg_installs) ;; *) skip "$c" "not installed" ;; esac; done; exit 0
fi
echo 'allow eth0   # the admin: the nodes data interface' >>/etc/gcbench/netem.conf

# syslog: our own listener where no syslog daemon owns /dev/log
if [ ! -e /dev/log ] && command -v python3 >/dev/null 2>&1; then
	python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("/dev/log"); os.chmod("/dev/log", 0o666)
f = open(sys.argv[1], "ab", 0)
while True: f.write(s.recv(8192) + b"\n")' "$tmp/syslog" &
	listener=$! made_log=1
	for _ in $(seq 1 50); do [ -S /dev/log ] && break; sleep 0.1; done
fi

# the host logins of the helper's own cases, made before the cluster: useradd/usermod
# replace /etc/passwd, shadow and group by a rename, which detaches the node's copies
# bound over them (the kernel drops mounts on a replaced file), so the nodes would no
# longer know $user and refuse its next fresh ssh login
useradd -M -s /usr/sbin/nologin "$m" && useradd -M -s /usr/sbin/nologin "$o" && usermod -aG gcbench "$m"
if ! out=$("$G" cluster up 2 --name "$name" --user "$user" 2>&1); then
	for c in outsider_refused member_sweep new_build_shapes not_allowed outsider_direct lock_holder_only syslog purge_restores protocol_fallback nocap_named; do
		fail "$c" "cluster up failed: $out"; done
	exit 0
fi
qdiscs >"$tmp/qdisc.before"
sed "s/^  User root$/  User $user/" "$D/ssh_config" >"$tmp/ssh_config"
{ echo "name: $name-u"; echo "ssh_config: $tmp/ssh_config"; echo "hosts:"
  for i in 1 2; do
	a=$(awk -v n="n$i" '$1 == "Host" { h = $2 } h == n && $1 == "HostName" { print $2 }' "$D/ssh_config")
	echo "  - {name: n$i, address: $a, user: $user, iface: eth0}"
  done; } >"$tmp/inv.yaml"
spec() {   # spec FILE BANDWIDTH
	printf 'name: deb\nworkload: replay\nmodels: [tiny]\nmethods: [syncsgd]\nbaseline: syncsgd\nbandwidth: [%s]\nworld_size: 2\nbatch: 8\niterations: 3\nwarmup: 1\ntimeout: 120\n' "$2" >"$1"
}
spec "$tmp/a.yaml" 1gbit
spec "$tmp/b.yaml" 500mbit

# --- through gcbench, as the nodes' login ------------------------------------------------
out=$("$G" provision --inventory "$tmp/inv.yaml" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -qF "the user is not in the group 'gcbench' there; an admin adds it once with: usermod -aG gcbench $user" <<<"$out"
then pass outsider_refused
else fail outsider_refused "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi

for i in 1 2; do   # the admin, once per node: usermod -aG gcbench (the nodes' /etc/group,
	# rewritten in place: it is bound over the node's /etc/group; $m is a member already)
	g=$(sed -e "/^gcbench:/s/[^:]$/&,/" -e "s/^gcbench:.*$/&${user}/" "$T/n$i/etc/group") && printf '%s\n' "$g" >"$T/n$i/etc/group"
done
for i in 1 2; do   # a group counts from the next login: end the logins' ssh masters
	ssh -F "$tmp/ssh_config" -O exit "n$i" >/dev/null 2>&1
	for s in "$GCBENCH_HOME"/ssh/cm-*; do [ -S "$s" ] && ssh -O exit -S "$s" "n$i" >/dev/null 2>&1; done
done
run_sweep() {   # run_sweep GCBENCH SPEC CAP_BPS: rc, output in $out, checks in $why
	out=$("$1" run "$2" --inventory "$tmp/inv.yaml" --db "$tmp/u.db" 2>&1); rc=$?
	ok=$(sqlite3 "$tmp/u.db" "SELECT count(*) FROM runs WHERE status = 'ok' AND bw_cap_bps = $3" 2>/dev/null)
	capped=$(for n in "$ns1" "$ns2"; do tc -n "$n" qdisc show dev eth0 | grep -E 'tbf|htb'; done)
	why="rc $rc, ok runs ${ok:-?}, capped '$capped': $(grep -E 'error|shapes with' <<<"$out" | tail -n 3 | tr '\n' ' ')"
	[ $rc -eq 0 ] && [ "$ok" = 1 ] && [ -z "$capped" ] && [ "$(grep -c "shapes with $H (the gcbench package" <<<"$out")" = 2 ]
}
sudoers=$(cat "$T"/n*/sudoers.d/* 2>/dev/null)
if run_sweep "$G" "$tmp/a.yaml" 1000000000 && [ -z "$sudoers" ] &&
   [ -z "$(getcap -r "$T"/n1/home/$user/.cache/gcbench 2>/dev/null)" ]; then pass member_sweep
else fail member_sweep "$why; sudoers '$sudoers'"; fi

# another build: the same programs with one more byte each, so another digest and
# another directory on the nodes (what a sudoers line pinned to the digest refuses)
mkdir -p "$tmp/b2" && cp -a "$(dirname "$G")" "$tmp/b2/bin" && cp -a "$(dirname "$(dirname "$G")")/data" "$tmp/b2/" 2>/dev/null
for f in gcbench gcbench-worker gcbench-netem gcbench-probe; do printf '\n' >>"$tmp/b2/bin/$f"; done
h1=$(ls "$T/n1/home/$user/.cache/gcbench" 2>/dev/null | sort)
if run_sweep "$tmp/b2/bin/gcbench" "$tmp/b.yaml" 500000000 &&
   [ "$(ls "$T/n1/home/$user/.cache/gcbench" | sort | comm -13 <(echo "$h1") - | grep -c '^[0-9a-f]\{16\}$')" -ge 1 ]
then pass new_build_shapes
else fail new_build_shapes "$why; cache dirs before: $(echo $h1)"; fi

# --- the helper itself, as host logins inside a node's namespace ----------------------------
lo_before=$(tc -n "$ns1" qdisc show dev lo)
out=$(as "$m" "$ns1" "$H" set --dev lo --rate 100mbit 2>&1); rc=$?
out_ok=$(as "$m" "$ns1" "$H" set --dev eth0 --rate 100mbit 2>&1); rc_ok=$?
held=$(tc -n "$ns1" qdisc show dev eth0)
as "$m" "$ns1" "$H" clear --dev eth0 >/dev/null 2>&1
if [ $rc -ne 0 ] && grep -qF "interface 'lo' is not in the admin's allowlist (/etc/gcbench/netem.conf); ask an admin to add the line 'allow lo'" <<<"$out" &&
   [ "$(tc -n "$ns1" qdisc show dev lo)" = "$lo_before" ] && [ $rc_ok -eq 0 ] && grep -q "tbf 1: root" <<<"$held" &&
   ! tc -n "$ns1" qdisc show dev eth0 | grep -q tbf
then pass not_allowed
else fail not_allowed "rc $rc: $out; allowed: rc $rc_ok $out_ok; held: $held"; fi

out=$(as "$o" "$ns1" "$H" set --dev eth0 --rate 100mbit 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -qi "permission denied" <<<"$out" && ! tc -n "$ns1" qdisc show dev eth0 | grep -q tbf
then pass outsider_direct
else fail outsider_direct "rc $rc: $out"; fi

# another login's sweep holds n1 (here: root's holder, as orchestrator/run/hostlock.c
# writes it): the member may not shape there meanwhile
ino=$(stat -L -c %i "/run/netns/$ns1")
lf=/run/lock/gcbench/host@$ino
[ -e "$lf" ] || ( umask 0; : >>"$lf" )
( me=$BASHPID; exec 9<"$lf"; flock -n 9 && printf '# gcbench host lock\nuser=root\nholder=%s\n' "$me" |
	dd of="$lf" conv=nocreat status=none && exec sleep 60 ) &
holder=$!
for _ in $(seq 1 50); do grep -q "^holder=$holder$" "$lf" 2>/dev/null && break; sleep 0.1; done
out=$(as "$m" "$ns1" "$H" set --dev eth0 --rate 100mbit 2>&1); rc=$?
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
: >"$lf"
if [ $rc -ne 0 ] && grep -qF "another login holds this host's lock (uid 0, holder pid $holder); only the lock holder shapes this host" <<<"$out" &&
   ! tc -n "$ns1" qdisc show dev eth0 | grep -q tbf
then pass lock_holder_only
else fail lock_holder_only "rc $rc: $out"; fi

if [ -z "$listener" ]; then
	skip syslog "/dev/log belongs to this machine's syslog daemon (read its log for 'gcbench-netem')"
else
	sleep 0.3
	if grep -q "gcbench-netem\[[0-9]*\]: uid [0-9]* ($m): set --dev eth0 --rate 100mbit (ok)" "$tmp/syslog" &&
	   grep -q "gcbench-netem\[[0-9]*\]: uid [0-9]* ($m): refused set of 'lo': interface 'lo' is not in the admin's allowlist" "$tmp/syslog" &&
	   grep -q "($m): clear --dev eth0 (ok)" "$tmp/syslog" && grep -q "($user): set --dev eth0 --rate 1000000000bit" "$tmp/syslog"
	then pass syslog
	else fail syslog "$(grep gcbench-netem "$tmp/syslog" | tail -n 4 | tr '\n' ' ')"; fi
fi

# --- purge: a link left capped (its owner still runs) is restored --------------------------
sleep 600 & sleeper=$!
out=$(as "$m" "$ns2" "$H" set --dev eth0 --rate 200mbit --owner "$sleeper" 2>&1); rc=$?
left=$(tc -n "$ns2" qdisc show dev eth0)
out2=$(dpkg --purge gcbench 2>&1); rc2=$?
snapshot >"$tmp/dpkg.after"
qdiscs >"$tmp/qdisc.after"
if [ $rc -eq 0 ] && grep -q tbf <<<"$left" && [ $rc2 -eq 0 ] && cmp -s "$tmp/dpkg.before" "$tmp/dpkg.after" &&
   cmp -s "$tmp/qdisc.before" "$tmp/qdisc.after" && ! getent group gcbench >/dev/null &&
   [ ! -e "$H" ] && [ ! -e /etc/gcbench ] && [ ! -e /run/lock/gcbench/netem ]
then pass purge_restores
else fail purge_restores "set rc $rc ($out), purge rc $rc2 ($out2): $(diff "$tmp/qdisc.before" "$tmp/qdisc.after" | tr '\n' ' ') $(diff "$tmp/dpkg.before" "$tmp/dpkg.after" | tr '\n' ' ')"; fi

# --- a helper of another protocol (an older package) is not used ------------------------------
if [ -e /usr/lib/gcbench ]; then
	fail protocol_fallback "/usr/lib/gcbench is still there after the purge"
else
	fake=1
	mkdir -p /usr/lib/gcbench
	printf '#!/bin/sh\n[ "$1" = version ] && echo "{\\"protocol\\":99}" && exit 0\nexit 1\n' >"$H"
	chmod 0755 "$H"
	out=$("$G" provision --inventory "$tmp/inv.yaml" 2>&1); rc=$?
	if [ $rc -ne 0 ] && grep -qF "the helper the gcbench package installed there speaks protocol 99, this gcbench $proto: upgrade the package there" <<<"$out" &&
	   grep -qF "setcap cap_net_admin+ep /home/$user/.cache/gcbench/" <<<"$out" && ! grep -q "shapes with" <<<"$out"
	then pass protocol_fallback
	else fail protocol_fallback "rc $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	# this protocol, but `check` says it may not shape (a package installed without setcap)
	printf '#!/bin/sh\n[ "$1" = version ] && echo "{\\"protocol\\":%s}" && exit 0\nexit 1\n' "$proto" >"$H"
	out=$("$G" provision --inventory "$tmp/inv.yaml" 2>&1); rc=$?
	rm -rf /usr/lib/gcbench; fake=
	if [ $rc -ne 0 ] && grep -qF "runs $H but it may not shape there: it lacks the cap_net_admin file capability" <<<"$out"
	then pass nocap_named
	else fail nocap_named "rc $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
fi
