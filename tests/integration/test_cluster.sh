#!/usr/bin/env bash
# tests/integration/test_cluster.sh: gcbench cluster up/status/down with 2 nodes: ssh into
# every node, a 1 Gbit/s cap measured with gcbench-probe, repair of a half-built
# cluster, and nothing left behind after down.
. "$(dirname "$0")/../lib.sh"
cases="up ssh_hostnames reno status_healthy up_again_noop inventory goodput_1gbit counters rtt_probe
repair_half_built down_leaves_nothing subnet_taken"
need_root $cases || exit 0
need_cmd sshd $cases || exit 0
need_cmd ssh-keygen $cases || exit 0
G=$BIN/gcbench N=$BIN/gcbench-netem P=$BIN/gcbench-probe
for b in "$G" "$N" "$P"; do
	[ -x "$b" ] || { for c in $cases; do fail "$c" "$b is not built"; done; exit 0; }
done

name=it$$
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcb.XXXXXX")
export GCBENCH_NETEM_STATE_DIR=$GCBENCH_HOME/netem-state
D=$GCBENCH_HOME/clusters/$name
cleanup() {
	"$G" cluster down --name "$name" >/dev/null 2>&1
	"$G" cluster down --name "is$$" >/dev/null 2>&1
	rm -rf "$GCBENCH_HOME"
}
trap cleanup EXIT

if out=$("$G" cluster up 2 --name "$name" 2>&1); then pass up
else fail up "$out"; for c in $cases; do [ "$c" = up ] || skip "$c" "cluster up failed"; done; exit 0; fi

h1=$(ssh -F "$D/ssh_config" n1 hostname 2>&1) h2=$(ssh -F "$D/ssh_config" n2 hostname 2>&1)
if [ "$h1" = n1 ] && [ "$h2" = n2 ]; then pass ssh_hostnames; else fail ssh_hostnames "n1 -> '$h1', n2 -> '$h2'"; fi

cc=$(ssh -F "$D/ssh_config" n2 cat /proc/sys/net/ipv4/tcp_congestion_control 2>&1)
[ "$cc" = reno ] && pass reno || fail reno "congestion control in n2: '$cc'"

st=$("$G" cluster status --name "$name" --json)
case $st in *'"healthy":true'*'"reachable":true'*'"reachable":true'*) pass status_healthy ;;
*) fail status_healthy "$st" ;; esac

out=$("$G" cluster up 2 --name "$name" 2>&1)
grep -q "already up" <<<"$out" && pass up_again_noop || fail up_again_noop "$out"

inv=$D/inventory.yaml
if head -1 "$inv" | grep -qx '# gcbench inventory written by `gcbench cluster up`' &&
	grep -qx "name: $name" "$inv" && grep -qx "ssh_config: $D/ssh_config" "$inv" &&
	[ "$(grep -c '^  - name: n[12]$' "$inv")" = 2 ] && grep -qx "    netns: gcb-$name-n2" "$inv" &&
	grep -qx "    identity: $D/id_ed25519" "$inv" && grep -qx "    iface: eth0" "$inv"; then
	pass inventory; else fail inventory "$(tr '\n' '|' <"$inv")"; fi

# 1 Gbit/s on n1's egress; goodput n1 -> n2 must be 0.8..1.0 of 95.6% of the cap
a2=$(sed -n 's/^    address: //p' "$inv" | sed -n 2p)
"$N" set --dev eth0 --netns "gcb-$name-n1" --rate 1gbit --owner $$ >/dev/null
ip netns exec "gcb-$name-n2" "$P" server --bind "$a2" --port 5301 --once >/dev/null &
srv=$!
sleep 0.3
res=$(ip netns exec "gcb-$name-n1" "$P" client --connect "$a2" --port 5301 --time 2 2>&1)
wait "$srv" 2>/dev/null
gp=$(sed -n 's/.*goodput_bps=\([0-9]*\).*/\1/p' <<<"$res")
sj=$("$N" show --dev eth0 --netns "gcb-$name-n1" --json)
tcs=$(ip netns exec "gcb-$name-n1" tc -s qdisc show dev eth0 | sed -n 's/^ *Sent \([0-9]*\) bytes.*/\1/p' | head -1)
"$N" clear --dev eth0 --netns "gcb-$name-n1"
nb=$(sed -n 's/.*"bytes":\([0-9]*\).*/\1/p' <<<"$sj")
# 2 s at 1 Gbit/s is about 250 MB on the wire; tc (read a moment later) agrees within 1%
if [ -n "$nb" ] && [ -n "$tcs" ] && awk -v b="$nb" -v t="$tcs" 'BEGIN { exit !(b > 2e8 && b < 3e8 && t >= b && t < b * 1.01 + 100000) }'; then
	pass counters; else fail counters "libnl bytes '$nb', tc Sent '$tcs' ($sj)"; fi
if [ -n "$gp" ] && awk -v g="$gp" 'BEGIN { e = 0.956e9; exit !(g >= 0.8 * e && g <= 1.0e9) }'; then
	pass goodput_1gbit; echo "# goodput at 1gbit: $gp bit/s (expected about 956000000)"
else fail goodput_1gbit "measured '$res' (want 0.8..1.0 of 956 Mbit/s)"; fi

ip netns exec "gcb-$name-n2" "$P" server --bind "$a2" --port 5301 --once >/dev/null &
srv=$!
sleep 0.3
res=$(ip netns exec "gcb-$name-n1" "$P" client --connect "$a2" --port 5301 --rtt 200 2>&1)
wait "$srv" 2>/dev/null
rtt=$(sed -n 's/^rtt_s=\([0-9.]*\) .*samples=200$/\1/p' <<<"$res")
if [ -n "$rtt" ] && awk -v r="$rtt" 'BEGIN { exit !(r > 0 && r < 0.05) }'; then pass rtt_probe
else fail rtt_probe "'$res' (want rtt_s in (0, 50 ms) over 200 samples)"; fi

# half-built: one namespace gone -> status says degraded, up repairs it. The ssh
# master this test opened to n2 (ControlPersist) ends first: its session sshd would
# otherwise live on in the deleted namespace, where no reset can reach it
ssh -F "$D/ssh_config" -O exit n2 >/dev/null 2>&1
ip netns del "gcb-$name-n2"
"$G" cluster status --name "$name" >/dev/null; srv_rc=$?
out=$("$G" cluster up 2 --name "$name" 2>&1)
h2=$(ssh -F "$D/ssh_config" n2 hostname 2>&1)
if [ "$srv_rc" = 3 ] && [ "$h2" = n2 ] && "$G" cluster status --name "$name" >/dev/null; then
	pass repair_half_built; else fail repair_half_built "status rc $srv_rc, up: $out, n2: $h2"; fi

k=$("$G" cluster status --name "$name" --json | sed -n 's/.*"subnet":"10\.213\.\([0-9]*\)\..*/\1/p')
out=$("$G" cluster down --name "$name" 2>&1)
left=$(ip netns list | grep "gcb-$name-"; ip -o link | grep -o "gc$k-[a-z0-9]*";
	[ -e "$D" ] && echo "$D"; pgrep -af "$D/" | grep -v pgrep)
if [ -z "$left" ] && [ -n "$k" ]; then pass down_leaves_nothing
else fail down_leaves_nothing "left behind: $(tr '\n' ' ' <<<"$left") ($out)"; fi

# a subnet already taken (here: a bare bridge on the hash of another name) is skipped:
# up takes the next free one and says which; down leaves the foreign bridge alone
name2=is$$
k2=$("$G" cluster status --name "$name2" --json | sed -n 's/.*"subnet":"10\.213\.\([0-9]*\)\..*/\1/p')
if [ -n "$k2" ] && ! ip link show "gc$k2-br" >/dev/null 2>&1 && ip link add "gc$k2-br" type bridge; then
	out=$("$G" cluster up 1 --name "$name2" 2>&1); rc=$?
	k3=$("$G" cluster status --name "$name2" --json | sed -n 's/.*"subnet":"10\.213\.\([0-9]*\)\..*/\1/p')
	h=$(ssh -F "$GCBENCH_HOME/clusters/$name2/ssh_config" n1 hostname 2>&1)
	"$G" cluster down --name "$name2" >/dev/null 2>&1
	if [ $rc -eq 0 ] && [ "$k3" != "$k2" ] && [ "$h" = n1 ] &&
	   grep -qF "subnet 10.213.$k3.0/24 (10.213.$k2.0/24, its name's hash, is taken" <<<"$out" &&
	   ip link show "gc$k2-br" >/dev/null 2>&1 && ! ip link show "gc$k3-br" >/dev/null 2>&1
	then pass subnet_taken
	else fail subnet_taken "rc $rc, subnet $k2 -> $k3, n1 says '$h': $out"; fi
	ip link del "gc$k2-br" 2>/dev/null
else
	skip subnet_taken "subnet $k2 of '$name2' is in use already"
fi
