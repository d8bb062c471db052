#!/usr/bin/env bash
# tests/integration/test_netem_shares.sh: gcbench-netem shares (netem/shares.h) on a veth
# pair between two namespaces this test creates: the parent, the leaves and the filters
# it installs (cross-checked with tc), the packets each leaf classifies (counters, no
# timing), clear and restore-all removing everything, and malformed leaves refused with
# exit 2 before anything is touched.
. "$(dirname "$0")/../lib.sh"
cases="install_readback default_leaf_second classify_src classify_port clear_restores
owner_gone_restore_all malformed_leaf refused_sets change_refused set_replaces_shares"
need_root $cases || exit 0
need_cmd tc $cases || exit 0
N=$BIN/gcbench-netem
[ -x "$N" ] || { for c in $cases; do fail "$c" "$N is not built"; done; exit 0; }

ns=gcbs-$$ peer=gcbsp-$$ b=gcbsb$$ p=gcbsp$$
net=10.251.$(($$ % 250)).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-shares.XXXXXX")
export GCBENCH_NETEM_STATE_DIR=$tmp/state
sleeper=
cleanup() {
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	ip netns del "$peer" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" && ip netns add "$peer" &&
	ip -n "$ns" link add "$b" type veth peer name "$p" netns "$peer" &&
	ip -n "$ns" addr add "${net}2/24" dev "$b" && ip -n "$peer" addr add "${net}1/24" dev "$p" &&
	ip -n "$ns" link set "$b" up && ip -n "$peer" link set "$p" up ||
	{ for c in $cases; do fail "$c" "cannot create the namespaces and veth"; done; exit 0; }

tcq() { ip netns exec "$ns" tc -s qdisc show dev "$b"; }
tcc() { ip netns exec "$ns" tc -s class show dev "$b"; }
flowids() { ip netns exec "$ns" tc filter show dev "$b" | grep -c "flowid"; }
# the packets class 1:X has sent
sent() { tcc | grep -A1 "class htb 1:$1 " | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p'; }
clean() { tcq | grep -q "noqueue 0: root" && ! tcq | grep -q htb && [ -z "$(tcc)" ] &&
	[ -z "$(ls "$GCBENCH_NETEM_STATE_DIR" 2>/dev/null)" ]; }
shares() { $N shares --dev "$b" --netns "$ns" "$@"; }

out=$(shares --rate 1gbit --leaf default=10mbit --leaf "src:${net}2=490mbit" \
	--leaf "dst:${net}7,10.9.0.0/16=490mbit" --leaf port:5310-5317=1mbit --json 2>&1); rc=$?
c=$(tcc); q=$(tcq); j=$($N show --dev "$b" --netns "$ns" --json); t=$($N show --dev "$b" --netns "$ns")
if [ $rc -eq 0 ] && grep -q "htb 1: root .*default 0x10" <<<"$q" &&
	grep -q "class htb 1:1 root rate 1Gbit ceil 1Gbit" <<<"$c" &&
	grep -q "class htb 1:10 parent 1:1 .*rate 10Mbit ceil 1Gbit" <<<"$c" &&
	grep -q "class htb 1:11 parent 1:1 .*rate 490Mbit ceil 1Gbit" <<<"$c" &&
	grep -q "class htb 1:12 parent 1:1 .*rate 490Mbit ceil 1Gbit" <<<"$c" &&
	grep -q "class htb 1:13 parent 1:1 .*rate 1Mbit ceil 1Gbit" <<<"$c" &&
	[ "$(flowids)" = 9 ] && grep -q '"kind":"htb".*"rate_bps":1000000000.*"leaves":4}' <<<"$j" &&
	grep -q "htb rate 1gbit .* with 4 leaves" <<<"$t" &&
	grep -q '"leaves":\[{"class":"1:10","match":"default","rate_bps":10000000' <<<"$out" &&
	grep -q '"class":"1:13","match":"port","rate_bps":1000000,"ceil_bps":1000000000' <<<"$out"; then
	pass install_readback
else fail install_readback "rc=$rc $out; tc: $(tr '\n' ' ' <<<"$q $c") filters $(flowids)"; fi

# a TCP connection from the namespace (refused: nothing listens): its SYN leaves with
# source .2 and port 9, the src leaf 1:11 (the first filter that matches wins)
tcp() { ip netns exec "$ns" timeout 3 bash -c "echo > /dev/tcp/${net}1/$1" 2>/dev/null; }
udp() { ip netns exec "$ns" timeout 3 bash -c "echo > /dev/udp/${net}1/$1" 2>/dev/null; }
tcp 9; tcp 5313
s11=$(sent 11); s10=$(sent 10)
if [ "${s11:-0}" -ge 2 ] && [ "$(sent 13)" = 0 ] && [ "$(sent 12)" = 0 ]; then pass classify_src
else fail classify_src "1:11 sent ${s11:-?} packets, 1:10 ${s10:-?}, 1:13 $(sent 13): $(tcc | tr '\n' ' ')"; fi

# the default leaf anywhere in the list; TCP to a port in the range goes to the port leaf
out=$(shares --rate 200mbit --leaf port:5310-5317=100mbit --leaf default=100mbit 2>&1); rc=$?
if [ $rc -eq 0 ] && tcq | grep -q "htb 1: root .*default 0x11" && [ "$(flowids)" = 6 ]; then
	pass default_leaf_second
else fail default_leaf_second "rc=$rc $out; $(tcq | head -1) filters $(flowids)"; fi
# (UDP to the same port is not TCP: the default leaf)
tcp 5313; tcp 5318; udp 5313; udp 5313
s10=$(sent 10); s11=$(sent 11)
if [ "${s10:-0}" -ge 1 ] && [ "${s11:-0}" -ge 3 ]; then pass classify_port
else fail classify_port "1:10 (port) sent ${s10:-?}, 1:11 (default) ${s11:-?}: $(tcc | tr '\n' ' ')"; fi

if $N clear --dev "$b" --netns "$ns" && clean; then pass clear_restores
else fail clear_restores "after clear: $(tcq | tr '\n' ' ') $(tcc | tr '\n' ' ') state: $(ls "$GCBENCH_NETEM_STATE_DIR")"; fi

# owned like a cap: restore-all leaves it while the owner lives, removes it all after
sleep 60 & sleeper=$!
shares --rate 1gbit --leaf default=10mbit --leaf "src:${net}2=500mbit" --owner "$sleeper" >/dev/null
$N restore-all >/dev/null
alive=$(tcc | grep -c "class htb")
kill "$sleeper"; wait "$sleeper" 2>/dev/null; sleeper=
out=$($N restore-all)
if [ "$alive" = 3 ] && [ "$out" = "restored 1 link" ] && clean; then pass owner_gone_restore_all
else fail owner_gone_restore_all "classes while the owner lived: $alive; after: $out $(tcq | head -1)"; fi

bad=0 why=
for leaf in default src:10.0.0.1 default=10 default=10gbps "src:=1mbit" src:10.0.0.256=1mbit \
	src:10.0.0.1/24=1mbit port:0=1mbit port:10-5=1mbit port:5-=1mbit "port:5;reboot=1mbit" \
	"dst:10.0.0.1 =1mbit" sport:80=1mbit; do
	out=$(shares --rate 1gbit --leaf default=1mbit --leaf "$leaf" 2>&1); rc=$?
	if [ $rc -ne 2 ] || ! grep -q "leaf" <<<"$out" || ! clean; then bad=1 why="$why [$leaf: rc=$rc $out]"; fi
done
[ $bad = 0 ] && pass malformed_leaf || fail malformed_leaf "$why"

bad=0 why=
# check_refused WHAT_THE_MESSAGE_SAYS ARGS...
check_refused() {
	local want=$1 out rc; shift
	out=$(shares "$@" 2>&1); rc=$?
	if [ $rc -ne 2 ] || ! grep -q -- "$want" <<<"$out" || ! clean; then
		bad=1 why="$why [$*: rc=$rc $out]"
	fi
}
check_refused "above the cap" --rate 1gbit --leaf default=600mbit --leaf "src:${net}2=500mbit"
check_refused "no default leaf" --rate 1gbit --leaf "src:${net}2=500mbit"
check_refused "more than one default" --rate 1gbit --leaf default=1mbit --leaf default=2mbit
check_refused "not unlimited" --rate unlimited --leaf default=1mbit
check_refused "takes --rate CAP" --leaf default=1mbit
check_refused "takes --rate CAP" --rate 1gbit
[ $bad = 0 ] && pass refused_sets || fail refused_sets "$why"

# change of the cap alone is refused on a link with leaves (their ceil would stay above)
shares --rate 1gbit --leaf default=10mbit --leaf "src:${net}2=500mbit" >/dev/null
out=$($N change --dev "$b" --netns "$ns" --rate 500mbit 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "holds 2 leaves under its cap" <<<"$out" &&
	tcc | grep -q "class htb 1:1 root rate 1Gbit ceil 1Gbit"; then pass change_refused
else fail change_refused "rc=$rc $out; $(tcc | tr '\n' ' ')"; fi

# set on a link with leaves replaces them all (the root goes, the leaves with it)
out=$($N set --dev "$b" --netns "$ns" --rate 500mbit 2>&1); rc=$?
if [ $rc -eq 0 ] && tcq | grep -q "tbf 1: root" && [ -z "$(tcc | grep 'class htb')" ] &&
	$N clear --dev "$b" --netns "$ns" && clean; then pass set_replaces_shares
else fail set_replaces_shares "rc=$rc $out; $(tcq | tr '\n' ' ') $(tcc | tr '\n' ' ')"; fi
