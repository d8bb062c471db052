#!/usr/bin/env bash
# tests/integration/test_netem_shape.sh: gcbench-netem set/show/clear/restore-all on a
# veth pair in a namespace this test creates; what the kernel holds is read back with
# libnl (show --json) and cross-checked against `tc -s qdisc show`.
. "$(dirname "$0")/../lib.sh"
cases="tbf_1gbit tbf_30gbit htb_40gbit clear_restores clear_idempotent crash_restore_all
missing_iface missing_netns gbps_trap not_root_message delay_malformed delay_tbf delay_htb
delay_only delay_rate0_unchanged check_netem check_netem_nocap"
need_root $cases || exit 0
need_cmd tc $cases || exit 0
N=$BIN/gcbench-netem
[ -x "$N" ] || { for c in $cases; do fail "$c" "$N is not built"; done; exit 0; }

ns=gcbt-$$ a=gcbta$$ b=gcbtb$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-netem.XXXXXX")
export GCBENCH_NETEM_STATE_DIR=$tmp/state
sleeper=
cleanup() {
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	ip link del "$a" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" && ip link add "$a" type veth peer name "$b" && ip link set "$b" netns "$ns" &&
	ip link set "$a" up && ip -n "$ns" link set "$b" up ||
	{ for c in $cases; do fail "$c" "cannot create namespace/veth"; done; exit 0; }

tcq() { ip netns exec "$ns" tc -s qdisc show dev "$b"; }
json() { $N show --dev "$b" --netns "$ns" --json; }

# set_and_check NAME RATE KIND RATE_BPS TC_RATE BURST
set_and_check() {
	local name=$1 out j t
	if ! out=$($N set --dev "$b" --netns "$ns" --rate "$2" 2>&1); then fail "$name" "set: $out"; return; fi
	j=$(json); t=$(tcq; ip netns exec "$ns" tc class show dev "$b")
	case $j in *"\"kind\":\"$3\""*"\"rate_bps\":$4,\"burst\":$6,"*) ;;
	*) fail "$name" "libnl reads back: $j"; return ;; esac
	if ! grep -q "$3 1: root" <<<"$t" || ! grep -q "rate $5 .*burst $6b" <<<"$t"; then
		fail "$name" "tc shows: $(tr '\n' ' ' <<<"$t")"; return
	fi
	pass "$name"
}
set_and_check tbf_1gbit 1gbit tbf 1000000000 1Gbit 500000
set_and_check tbf_30gbit 30gbit tbf 30000000000 30Gbit 15000000
set_and_check htb_40gbit 40gbit htb 40000000000 40Gbit 20000000

if $N clear --dev "$b" --netns "$ns" && tcq | grep -q "noqueue 0: root" && ! tcq | grep -q "htb\|tbf" &&
	[ -z "$(ls "$GCBENCH_NETEM_STATE_DIR")" ]; then pass clear_restores
else fail clear_restores "after clear: $(tcq | tr '\n' ' ') state: $(ls "$GCBENCH_NETEM_STATE_DIR")"; fi

before=$(tcq | head -1)
if $N clear --dev "$b" --netns "$ns" && [ "$(tcq | head -1)" = "$before" ]; then pass clear_idempotent
else fail clear_idempotent "second clear failed or changed $before"; fi

# a capped link whose owner died: restore-all (and only it) brings the original back
sleep 60 & sleeper=$!
$N set --dev "$b" --netns "$ns" --rate 2gbit --owner "$sleeper" >/dev/null
$N restore-all >/dev/null
alive=$(tcq | head -1)
kill "$sleeper"; wait "$sleeper" 2>/dev/null; sleeper=
out=$($N restore-all)
if grep -q "tbf" <<<"$alive" && [ "$out" = "restored 1 link" ] && tcq | grep -q "noqueue 0: root"; then
	pass crash_restore_all
else fail crash_restore_all "while owner alive: $alive; after: $out $(tcq | head -1)"; fi

out=$($N set --dev nosuch$$ --netns "$ns" --rate 1gbit 2>&1)
if [ $? -ne 0 ] && grep -q "interface 'nosuch$$' does not exist in namespace '$ns'" <<<"$out"; then
	pass missing_iface; else fail missing_iface "$out"; fi
out=$($N set --dev "$b" --netns nosuchns$$ --rate 1gbit 2>&1)
if [ $? -ne 0 ] && grep -q "network namespace 'nosuchns$$' does not exist" <<<"$out"; then
	pass missing_netns; else fail missing_netns "$out"; fi
out=$($N set --dev "$b" --netns "$ns" --rate 30gbps 2>&1)
if [ $? -eq 2 ] && grep -q "write 30gbit" <<<"$out" && ! tcq | grep -q tbf; then
	pass gbps_trap; else fail gbps_trap "$out"; fi

if command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		env GCBENCH_NETEM_STATE_DIR=/tmp/gcbt-nobody-$$ $N set --dev lo --rate 1gbit 2>&1)
	rm -rf /tmp/gcbt-nobody-$$
	if grep -q "need CAP_NET_ADMIN" <<<"$out" && ! tc qdisc show dev lo | grep -q tbf; then
		pass not_root_message; else fail not_root_message "$out"; fi
else skip not_root_message "setpriv (util-linux) is not installed"; fi

# Delay: a netem qdisc under the rate's class 1:1 (or alone at the root). On a kernel
# without sch_netem (check --netem says which) the set fails naming the module and the
# link is left as it was, with no state file.
out=$($N set --dev "$b" --netns "$ns" --rate 1gbit --delay 10 2>&1)
if [ $? -eq 2 ] && grep -q "\-\-delay: time '10' needs a unit" <<<"$out" && tcq | grep -q "noqueue 0: root"; then
	pass delay_malformed; else fail delay_malformed "$out"; fi
has_netem=0; $N check --netem >/dev/null 2>&1 && has_netem=1
ns_before=$(ip netns list | wc -l)
out=$($N check --netem 2>&1); rc=$?
if { [ $rc -eq 0 ] && grep -q "^netem=1 (" <<<"$out"; } ||
	{ [ $rc -eq 1 ] && grep -q "^netem=0" <<<"$out" && grep -q "module sch_netem" <<<"$out"; } &&
	[ "$(ip netns list | wc -l)" = "$ns_before" ]; then pass "check_netem (netem=$has_netem here)"
else fail check_netem "rc=$rc: $out"; fi
# a login with CAP_NET_ADMIN but not CAP_SYS_ADMIN (the file capability) cannot make a
# namespace: check --netem looks for the module instead, and must agree with root's answer
if command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+net_admin \
		--ambient-caps=+net_admin $N check --netem 2>&1); rc=$?
	if { [ $has_netem = 1 ] && [ $rc -eq 0 ] && grep -q "^netem=1 (/" <<<"$out"; } ||
		{ [ $has_netem = 0 ] && [ $rc -eq 1 ] && grep -q "module sch_netem is neither loaded" <<<"$out"; }; then
		pass check_netem_nocap
	else fail check_netem_nocap "as root netem=$has_netem; without CAP_SYS_ADMIN rc=$rc: $out"; fi
else skip check_netem_nocap "setpriv (util-linux) is not installed"; fi
# delay_case NAME KIND_AT_ROOT ARGS...
delay_case() {
	local name=$1 root=$2 out j t; shift 2
	out=$($N set --dev "$b" --netns "$ns" "$@" --delay 10ms 2>&1); local rc=$?
	j=$(json); t=$(tcq)
	if [ $has_netem = 1 ]; then
		if [ $rc -eq 0 ] && grep -q "\"kind\":\"$root\"" <<<"$j" && grep -q '"netem":true,"delay_us":10000' <<<"$j" &&
			grep -q "netem .*delay 10ms" <<<"$t"; then pass "$name"
		else fail "$name" "set rc=$rc: $out; libnl: $j; tc: $(tr '\n' ' ' <<<"$t")"; fi
		$N clear --dev "$b" --netns "$ns"
	elif [ $rc -eq 1 ] && grep -q "module sch_netem" <<<"$out" && grep -q "'$b' in namespace '$ns'" <<<"$out" &&
		grep -q "noqueue 0: root" <<<"$t" && ! grep -q "tbf\|htb\|netem" <<<"$t" &&
		[ -z "$(ls "$GCBENCH_NETEM_STATE_DIR")" ]; then
		pass "$name (refused: this kernel has no sch_netem)"
	else fail "$name" "set rc=$rc: $out; tc: $(tr '\n' ' ' <<<"$t"); state: $(ls "$GCBENCH_NETEM_STATE_DIR")"; fi
}
delay_case delay_tbf tbf --rate 1gbit
delay_case delay_htb htb --rate 40gbit
delay_case delay_only netem
# a zero delay is the rate cap alone, exactly as without --delay
out=$($N set --dev "$b" --netns "$ns" --rate 1gbit --delay 0 2>&1); j=$(json); t=$(tcq)
if grep -q '"kind":"tbf".*"rate_bps":1000000000,"burst":500000,.*"netem":false' <<<"$j" &&
	[ "$(grep -c "qdisc" <<<"$t")" = 1 ] && ! grep -q delay_us "$GCBENCH_NETEM_STATE_DIR"/*; then
	pass delay_rate0_unchanged
else fail delay_rate0_unchanged "$out; libnl: $j; tc: $(tr '\n' ' ' <<<"$t")"; fi
$N clear --dev "$b" --netns "$ns"
