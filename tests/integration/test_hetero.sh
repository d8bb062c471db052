#!/usr/bin/env bash
# tests/integration/test_hetero.sh: a sweep on hosts that differ the way real ones do.
# A 4-node emulated cluster made heterogeneous: n1 a root login, n2 an unprivileged
# login with `sudo: true`, n3's sshd on port 2222 (its port 22 accepts no key), a key
# per host (each node accepts only its own, given by `identity`), n4's data interface
# renamed to dat4, GPU counts 0/1/2/0, and an inventory written by hand with no
# ssh_config. The controller's ssh sees only the test's known_hosts (root's home is a
# private copy in a mount namespace of the test's own). Cases:
#   sweep_ok         MPI, world_size 4 and 7, ranks_per_node 2, a 200mbit cap: every point ok
#   placement_stored runs.nodes / ranks_per_node / placement as asked (2x2, 4 x up to 2)
#   links_shaped     every used link (calibrated ring pairs, n4 -> n1 over dat4 too) capped
#   links_restored   no qdisc left on any node's data interface afterwards
#   summary_placement the end-of-sweep table is followed by the placement line
#   dry_run_gpus     --dry-run with backend nccl places ranks by each host's gpus
#   single_node      ranks that all sit on one host under a cap: refused (dry run) unless
#                    allow_single_node: true
#   subnet_refused   a host whose iface is off the data subnet: refused with the table
#   latency_refused  a nonzero latency on a kernel without sch_netem: refused before
#                    anything is shaped, naming the host and the module
#   csv_model_logins a csv: model (provisioned with the build, which sits in each
#                    login's own home) runs on all four hosts
. "$(dirname "$0")/../lib.sh"
cases="sweep_ok placement_stored links_shaped links_restored summary_placement dry_run_gpus
single_node subnet_refused latency_refused csv_model_logins"
need_sweep $cases && need_cmd unshare $cases && need_cmd nsenter $cases || exit 0
need_cmd sudo $cases || exit 0
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built"; done; exit 0; }

name=reach-$(( $$ % 10000 ))
export GCBENCH_HOME=$(mktemp -d /tmp/gcbench-hetero.XXXXXX)
D=$GCBENCH_HOME/clusters/$name
T=$GCBENCH_HOME/nodes/$name
user=gcbhet
sshd2=
cleanup() {
	[ -n "$sshd2" ] && kill "$sshd2" 2>/dev/null
	"$G" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$GCBENCH_HOME"
}
trap cleanup EXIT

if ! out=$("$G" cluster up 4 --name "$name" --user "$user" 2>&1); then
	for c in $cases; do fail "$c" "cluster up failed: $out"; done
	exit 0
fi
addr() { awk -v n="n$1" '$1 == "Host" { h = $2 } h == n && $1 == "HostName" { print $2 }' "$D/ssh_config"; }
ns() { echo "gcb-$name-n$1"; }

# --- make the nodes differ ---------------------------------------------------------------
K=$GCBENCH_HOME/keys
H=$GCBENCH_HOME/roothome        # root's home as the controller's ssh sees it
mkdir -p "$K" "$H/.ssh"
for i in 1 2 3 4; do ssh-keygen -q -t ed25519 -N '' -C "hetero-n$i" -f "$K/k$i"; done
: >"$D/authorized_keys"          # the cluster's own key opens nothing any more
for i in 1 4; do install -d "$T/n$i/root/.ssh" && cp "$K/k$i.pub" "$T/n$i/root/.ssh/authorized_keys"; done
install -d -m 0755 "$T/n2/home/$user/.ssh" && cp "$K/k2.pub" "$T/n2/home/$user/.ssh/authorized_keys"
chmod 0644 "$T/n2/home/$user/.ssh/authorized_keys"
install -m 0440 /dev/null "$T/n2/sudoers.d/gcbench" && echo "$user ALL=(root) NOPASSWD: ALL" >"$T/n2/sudoers.d/gcbench"
# n3: a second sshd on port 2222 in n3's namespaces, accepting only k3
cp "$K/k3.pub" "$D/n3-k3.keys"
sed -e "s/^ListenAddress \(.*\):22$/ListenAddress \1:2222/" \
    -e "s|^AuthorizedKeysFile .*|AuthorizedKeysFile $D/n3-k3.keys|" "$D/n3.sshd_config" >"$D/n3-2222.sshd_config"
pid3=$(cat "$D/n3.pid" 2>/dev/null)
nsenter -t "$pid3" -n -m -u -- /usr/sbin/sshd -D -e -f "$D/n3-2222.sshd_config" 2>"$GCBENCH_HOME/sshd2.log" &
sshd2=$!
# n4: its data interface renamed
ip -n "$(ns 4)" link set eth0 down && ip -n "$(ns 4)" link set eth0 name dat4 && ip -n "$(ns 4)" link set dat4 up
hk=$(cut -d' ' -f1,2 "$D/host_key.pub")
{ for i in 1 2 4; do echo "$(addr $i) $hk"; done; echo "[$(addr 3)]:2222 $hk"; } >"$H/.ssh/known_hosts"
for t in $(seq 50); do (exec 3<>"/dev/tcp/$(addr 3)/2222") 2>/dev/null && break; sleep 0.1; done

inv=$GCBENCH_HOME/inventory.yaml
cat >"$inv" <<YAML
name: $name-inv
hosts:
  - {name: n1, address: $(addr 1), user: root, identity: $K/k1, iface: eth0, gpus: 0}
  - {name: n2, address: $(addr 2), user: $user, identity: $K/k2, iface: eth0, gpus: 1, sudo: true}
  - {name: n3, address: $(addr 3), user: root, port: 2222, identity: $K/k3, iface: eth0, gpus: 2}
  - {name: n4, address: $(addr 4), user: root, port: 22, identity: $K/k4, iface: dat4, gpus: 0}
YAML
# the controller: root's home replaced by $H, in a mount namespace of its own
ctl() { unshare -m --propagation private sh -c 'mount --bind "$0" "$(getent passwd root | cut -d: -f6)" && exec "$@"' "$H" "$@"; }

cat >"$GCBENCH_HOME/spec.yaml" <<YAML
name: hetero
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [200mbit]
world_size: [4, 7]
ranks_per_node: 2
batch: 8
iterations: 3
warmup: 1
timeout: 180
YAML
db=$GCBENCH_HOME/h.db
out=$(ctl "$G" run "$GCBENCH_HOME/spec.yaml" --inventory "$inv" --db "$db" --calibrate-all 2>&1); rc=$?
echo "$out" | tail -n 25 | sed 's/^/# /'
ok=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$ok" = 2 ]; then pass sweep_ok
else fail sweep_ok "rc $rc, ok runs ${ok:-?}: $(grep -iE 'error|fail' <<<"$out" | tail -n 3 | tr '\n' ' ')"; fi

pl=$(sqlite3 "$db" "SELECT world_size || ':' || nodes || ':' || ranks_per_node || ':' || placement FROM runs ORDER BY world_size" 2>/dev/null | tr '\n' ' ')
hosts7=$(sqlite3 "$db" "SELECT group_concat(node) FROM (SELECT h.node FROM run_hosts h JOIN runs r ON r.id = h.run_id WHERE r.world_size = 7 ORDER BY h.node)" 2>/dev/null)
if [ "$pl" = "4:2:2:n1:2,n2:2 7:4:2:n1:2,n2:2,n3:2,n4:1 " ] && [ "$hosts7" = n1,n2,n3,n4 ]; then pass placement_stored
else fail placement_stored "runs: '$pl', hosts of world 7: '$hosts7'"; fi

# the ring pairs of each point, each sender's egress capped: goodput within the cap
links=$(sqlite3 "$db" "SELECT count(*), sum(goodput_bps > 0.5 * cap_bps AND goodput_bps < 1.02 * cap_bps), sum(src = 'n4') FROM links WHERE cap_bps = 200000000" 2>/dev/null)
if [ "$links" = "6|6|1" ]; then pass links_shaped
else fail links_shaped "links (rows|within cap|from n4): '$links'"; fi

left=""
for i in 1 2 3 4; do
	dev=eth0; [ $i = 4 ] && dev=dat4
	q=$(tc -n "$(ns $i)" qdisc show dev "$dev" 2>&1)
	grep -qE 'tbf|htb|netem|ingress|cannot' <<<"$q" && left="$left n$i: $q;"
done
if [ -z "$left" ] && [ $rc -eq 0 ]; then pass links_restored
else fail links_restored "rc $rc;$left"; fi

# a csv: model: each login's build (and the model beside it) is in its own home
printf 'index,name,shape,numel\n0,l1.weight,512x256,131072\n1,l1.bias,512,512\n' >"$GCBENCH_HOME/m.csv"
sed -e 's/^models: .*/models: [csv:m.csv]/' -e 's/^name: .*/name: hetero-csv/' \
    -e 's/^world_size: .*/world_size: [4]/' -e 's/^ranks_per_node: .*/ranks_per_node: 1/' \
    "$GCBENCH_HOME/spec.yaml" >"$GCBENCH_HOME/csv.yaml"
cout=$(ctl "$G" run "$GCBENCH_HOME/csv.yaml" --inventory "$inv" --db "$GCBENCH_HOME/csv.db" --calibrate 0 2>&1); crc=$?
cok=$(sqlite3 "$GCBENCH_HOME/csv.db" "SELECT count(*) FROM runs WHERE status = 'ok' AND model = 'csv:m.csv' AND placement = 'n1:1,n2:1,n3:1,n4:1'" 2>/dev/null)
if [ $crc -eq 0 ] && [ "$cok" = 1 ]; then pass csv_model_logins
else fail csv_model_logins "rc $crc, ok runs ${cok:-?}: $(grep -iE 'error|fail' <<<"$cout" | tail -n 3 | tr '\n' ' ')"; fi

if grep -qE '^placement: world 4 \(mpi\): 2 nodes x 2 ranks \(n1:2,n2:2\); world 7 \(mpi\): 4 nodes x up to 2 ranks \(n1:2,n2:2,n3:2,n4:1\)$' <<<"$out"
then pass summary_placement
else fail summary_placement "$(grep -E '^placement' <<<"$out")"; fi

# --- nccl placement by each host's gpus (a dry run: no GPU here) ---------------------------
sed -e 's/^ranks_per_node: .*/backend: nccl/' -e 's/^world_size: .*/world_size: [3, 4]/' \
    -e 's/^name: .*/name: hetero-nccl/' "$GCBENCH_HOME/spec.yaml" >"$GCBENCH_HOME/nccl.yaml"
sed -e 's/^world_size: .*/world_size: [4]/' "$GCBENCH_HOME/nccl.yaml" >"$GCBENCH_HOME/nccl4.yaml"
sed -i 's/^world_size: \[3, 4\]/world_size: 3/' "$GCBENCH_HOME/nccl.yaml"
dout=$("$G" run "$GCBENCH_HOME/nccl.yaml" --inventory "$inv" --db "$GCBENCH_HOME/d.db" --dry-run 2>&1); drc=$?
dout4=$("$G" run "$GCBENCH_HOME/nccl4.yaml" --inventory "$inv" --db "$GCBENCH_HOME/d.db" --dry-run 2>&1); drc4=$?
if [ $drc -eq 0 ] && grep -q "placement 2 nodes x 1,2 ranks" <<<"$dout" && [ $drc4 -ne 0 ] &&
   grep -qF "world_size 4 cannot be placed: backend nccl runs one rank per GPU, and the hosts (GPUs: n1 0, n2 1, n3 2, n4 0) hold 3 ranks" <<<"$dout4" &&
   [ ! -e "$GCBENCH_HOME/d.db" ]
then pass dry_run_gpus
else fail dry_run_gpus "rc $drc/$drc4: $(grep placement <<<"$dout" | head -n 2 | tr '\n' ' ') / $(tail -n 1 <<<"$dout4")"; fi

# --- every rank on one host under a cap ----------------------------------------------------
sed -e 's/^world_size: .*/world_size: 2/' -e 's/^name: .*/name: hetero-one/' "$GCBENCH_HOME/spec.yaml" >"$GCBENCH_HOME/one.yaml"
oout=$("$G" run "$GCBENCH_HOME/one.yaml" --inventory "$inv" --db "$GCBENCH_HOME/o.db" --dry-run 2>&1); orc=$?
echo "allow_single_node: true" >>"$GCBENCH_HOME/one.yaml"
oout2=$("$G" run "$GCBENCH_HOME/one.yaml" --inventory "$inv" --db "$GCBENCH_HOME/o.db" --dry-run 2>&1); orc2=$?
if [ $orc -ne 0 ] && grep -qF "all 2 ranks sit on node 'n1', so the bandwidth cap never touches their traffic" <<<"$oout" &&
   grep -qF "allow_single_node: true" <<<"$oout" && [ $orc2 -eq 0 ] && grep -q "placement 1 node x 2 ranks" <<<"$oout2"
then pass single_node
else fail single_node "rc $orc/$orc2: $(tail -n 1 <<<"$oout") / $(grep placement <<<"$oout2")"; fi

# --- a data interface off the common subnet --------------------------------------------------
ip -n "$(ns 4)" link add off0 type veth peer name off1 && ip -n "$(ns 4)" addr add 10.99.0.4/24 dev off0 &&
	ip -n "$(ns 4)" link set off0 up && ip -n "$(ns 4)" link set off1 up
sed 's/iface: dat4/iface: off0/' "$inv" >"$GCBENCH_HOME/inv-lo.yaml"
sdb=$GCBENCH_HOME/s.db
sout=$(ctl "$G" run "$GCBENCH_HOME/spec.yaml" --inventory "$GCBENCH_HOME/inv-lo.yaml" --db "$sdb" --calibrate 0 2>&1); src=$?
sruns=$(sqlite3 "$sdb" "SELECT count(*) FROM runs" 2>/dev/null)
if [ $src -ne 0 ] && grep -q "data interfaces are not on one subnet" <<<"$sout" &&
   grep -qE "^ +n4 +off0 +10\.99\.0\.4/24$" <<<"$sout" && grep -qE "^ +n3 +eth0 +$(addr 3)/24$" <<<"$sout" &&
   [ "${sruns:-0}" = 0 ]
then pass subnet_refused
else fail subnet_refused "rc $src, runs ${sruns:-?}: $(tail -n 6 <<<"$sout" | tr '\n' ' ')"; fi

# --- a latency on a kernel without netem: refused before anything is shaped -------------------
if modprobe -n sch_netem 2>/dev/null; then
	skip latency_refused "this kernel has sch_netem: the refusal cannot be shown here"
else
	sed -e 's/^bandwidth: .*/bandwidth: [200mbit]\nlatency: [10ms]/' -e 's/^world_size: .*/world_size: [4]/' \
	    -e 's/^name: .*/name: hetero-lat/' "$GCBENCH_HOME/spec.yaml" >"$GCBENCH_HOME/lat.yaml"
	ldb=$GCBENCH_HOME/l.db
	lout=$(ctl timeout 300 "$G" run "$GCBENCH_HOME/lat.yaml" --inventory "$inv" --db "$ldb" --calibrate 0 2>&1); lrc=$?
	lruns=$(sqlite3 "$ldb" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null)
	shaped=""
	for i in 1 2 3 4; do
		dev=eth0; [ $i = 4 ] && dev=dat4
		tc -n "$(ns $i)" qdisc show dev "$dev" | grep -qE 'tbf|htb|netem' && shaped="$shaped n$i"
	done
	if [ $lrc -ne 0 ] && grep -q "sch_netem" <<<"$lout" && grep -qE "node '?n[1-4]'?" <<<"$lout" &&
	   [ "${lruns:-0}" = 0 ] && [ -z "$shaped" ]
	then pass latency_refused
	else fail latency_refused "rc $lrc, ok runs ${lruns:-?}, shaped:${shaped:-none}: $(tail -n 2 <<<"$lout" | tr '\n' ' ')"; fi
fi
exit 0
