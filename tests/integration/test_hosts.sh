#!/usr/bin/env bash
# tests/integration/test_hosts.sh: the emulated nodes behave like separate hosts, and
# gcbench provisions them. On a 4-node cluster with an unprivileged login 'gcbuser':
# a node sees neither this build tree nor the host's /tmp, and each its own /tmp;
# `gcbench provision` copies the build to every node the first time and nothing the
# second (both timed), and runs the worker's self-test on every node each time; a node missing a shared library is told the Debian package;
# with `sudo: true` but no sudoers rule a sweep stops before touching anything and
# prints the sudoers line, which, installed on the nodes, lets the same sweep shape,
# measure and restore; and the cap_net_admin file capability counts without sudo.
. "$(dirname "$0")/../lib.sh"
cases="node_isolated provision_copies provision_skips provision_selftest missing_library nonroot_refused
nonroot_sudo_sweep nonroot_filecap csv_model shared_fs"
need_sweep $cases || exit 0
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built"; done; exit 0; }

name=ho$(( $$ % 100000 ))
export GCBENCH_HOME=$(mktemp -d /tmp/gcbench-hosts.XXXXXX)
D=$GCBENCH_HOME/clusters/$name
T=$GCBENCH_HOME/nodes/$name
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; "$G" cluster down --name "${name}s" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME" /tmp/gcbench-hosts-marker.$$; }
trap cleanup EXIT
user=gcbuser

if ! out=$("$G" cluster up 4 --name "$name" --user "$user" 2>&1); then
	for c in $cases; do fail "$c" "cluster up failed: $out"; done
	exit 0
fi
inv=$D/inventory.yaml
S() { ssh -F "$D/ssh_config" "$@"; }

# --- a node is a separate host --------------------------------------------------------
touch /tmp/gcbench-hosts-marker.$$
S n1 'touch /tmp/n1-only' 2>/dev/null
seen=$(S n1 "ls -d '$G' /tmp/gcbench-hosts-marker.$$ 2>/dev/null; hostname" 2>&1)
n2tmp=$(S n2 'ls /tmp' 2>&1)
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$seen" = n1 ] && ! grep -q n1-only <<<"$n2tmp" && [ ! -e /tmp/n1-only ] &&
   ! S n3 "test -e '$src/Makefile'" 2>/dev/null; then pass node_isolated
else fail node_isolated "n1 sees: $(tr '\n' ' ' <<<"$seen"); n2's /tmp: $(tr '\n' ' ' <<<"$n2tmp")"; fi

# --- provisioning twice ------------------------------------------------------------------
t0=$(date +%s.%N)
out1=$("$G" provision --inventory "$inv" 2>&1); rc1=$?
t1=$(date +%s.%N)
out2=$("$G" provision --inventory "$inv" 2>&1); rc2=$?
t2=$(date +%s.%N)
first=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") second=$(awk "BEGIN { printf \"%.2f\", $t2 - $t1 }")
echo "# provision on 4 nodes: first ${first}s, second ${second}s"
dir1=$(awk '$1 == "n1" { print $2 }' <<<"$out1")
if [ $rc1 -eq 0 ] && grep -q "(4 copied," <<<"$out1" && [ -n "$dir1" ] &&
   S n1 "cd '$dir1' && sha256sum -c --quiet SHA256SUMS && ./gcbench-worker --help >/dev/null"
then pass provision_copies
else fail provision_copies "rc $rc1: $(tail -n 6 <<<"$out1" | tr '\n' ' ')"; fi
if [ $rc2 -eq 0 ] && grep -q "(0 copied," <<<"$out2" && [ "$(grep -c ': has build' <<<"$out2")" = 4 ]
then pass provision_skips
else fail provision_skips "rc $rc2: $(tail -n 6 <<<"$out2" | tr '\n' ' ')"; fi
if [ "$(grep -c 'self-test ok, kernels: [a-z0-9]*)' <<<"$out1")" = 4 ] &&
   [ "$(grep -c 'self-test ok, kernels: [a-z0-9]*)' <<<"$out2")" = 4 ]
then pass provision_selftest
else fail provision_selftest "$(grep -m 2 'provision: n' <<<"$out2" | tr '\n' ' ')"; fi

# --- a node without libyaml (hidden in its own mount namespace) ----------------------------
pid=$(cat "$D/n2.pid" 2>/dev/null)
lib=$(ldd "$(dirname "$G")/gcbench" | awk '/libyaml-0\.so/ { print $3 }')
if [ -z "$pid" ] || [ -z "$lib" ] || [ "$(readlink /proc/$pid/ns/mnt)" = "$(readlink /proc/self/ns/mnt)" ]; then
	skip missing_library "no node mount namespace or no libyaml ($pid, $lib)"
else
	nsenter -t "$pid" -m -- mount --bind /dev/null "$lib"
	out=$("$G" provision --inventory "$inv" 2>&1); rc=$?
	nsenter -t "$pid" -m -- umount "$lib"
	if [ $rc -ne 0 ] && grep -qF "does not run on node 'n2': the shared library libyaml-0.so.2 is missing; install it there: apt-get install -y libyaml-0-2" <<<"$out"
	then pass missing_library
	else fail missing_library "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
fi

# --- an unprivileged login: sudo -n, then the file capability --------------------------------
sed "s/^  User root$/  User $user/" "$D/ssh_config" >"$GCBENCH_HOME/ssh_config.$user"
mkinv() {   # mkinv SUDO FILE
	{ echo "name: $name-u"; echo "ssh_config: $GCBENCH_HOME/ssh_config.$user"; echo "sudo: $1"; echo "hosts:"
	  for i in 1 2; do
		a=$(awk -v n="n$i" '$1 == "Host" { h = $2 } h == n && $1 == "HostName" { print $2 }' "$D/ssh_config")
		echo "  - {name: n$i, address: $a, user: $user, iface: eth0}"
	  done; } >"$2"
}
mkinv true "$GCBENCH_HOME/inv-sudo.yaml"
mkinv false "$GCBENCH_HOME/inv-nosudo.yaml"
cat >"$GCBENCH_HOME/spec.yaml" <<YAML
name: hosts-nonroot
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [1gbit]
world_size: 2
batch: 8
iterations: 3
warmup: 1
timeout: 120
YAML
db=$GCBENCH_HOME/u.db
out=$("$G" run "$GCBENCH_HOME/spec.yaml" --inventory "$GCBENCH_HOME/inv-sudo.yaml" --db "$db" 2>&1); rc=$?
line=$(grep -E "^ +$user ALL=\(root\) NOPASSWD: sha256:[0-9a-f]{64} /home/$user/\.cache/gcbench/[0-9a-f]{16}/gcbench-netem$" <<<"$out" | sed 's/^ *//')
runs=$(sqlite3 "$db" 'SELECT count(*) FROM runs' 2>/dev/null)
capped=$(for i in 1 2; do tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -E 'tbf|htb'; done)
if ! command -v sudo >/dev/null 2>&1; then
	skip nonroot_refused "'sudo' is not installed (apt-get install sudo)"
elif [ $rc -ne 0 ] && [ -n "$line" ] && grep -q "sudo would ask for a password" <<<"$out" &&
   [ "${runs:-0}" = 0 ] && [ -z "$capped" ]; then pass nonroot_refused
else fail nonroot_refused "rc $rc, runs ${runs:-?}, capped '$capped': $(tail -n 4 <<<"$out" | tr '\n' ' ')"; fi

if ! command -v sudo >/dev/null 2>&1; then
	skip nonroot_sudo_sweep "'sudo' is not installed (apt-get install sudo)"
elif [ -z "$line" ]; then
	fail nonroot_sudo_sweep "no sudoers line to install"
else
	for i in 1 2 3 4; do
		install -m 0440 /dev/null "$T/n$i/sudoers.d/gcbench" && echo "$line" >"$T/n$i/sudoers.d/gcbench"
	done
	out=$("$G" run "$GCBENCH_HOME/spec.yaml" --inventory "$GCBENCH_HOME/inv-sudo.yaml" --db "$db" 2>&1); rc=$?
	ok=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok' AND bw_cap_bps = 1000000000" 2>/dev/null)
	meas=$(sqlite3 "$db" "SELECT count(*) FROM links WHERE goodput_bps > 0.6 * cap_bps AND goodput_bps < 1.02 * cap_bps" 2>/dev/null)
	capped=$(for i in 1 2; do tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -E 'tbf|htb'; done)
	as=$(sqlite3 "$db" "SELECT count(*) FROM iterations" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$ok" = 1 ] && [ "$meas" = 1 ] && [ -z "$capped" ] && [ "${as:-0}" -gt 0 ]
	then pass nonroot_sudo_sweep
	else fail nonroot_sudo_sweep "rc $rc, ok $ok, measured links $meas, capped '$capped': $(tail -n 4 <<<"$out" | tr '\n' ' ')"; fi
	rm -f "$T"/n*/sudoers.d/gcbench
fi

# without sudo: refused, naming setcap; with the file capability on the node's copy: allowed
out=$("$G" provision --inventory "$GCBENCH_HOME/inv-nosudo.yaml" 2>&1); rc=$?
d=$(awk '$1 == "n1" { print $2 }' <<<"$(grep -E '^n[12] ' <<<"$out")")
if ! command -v setcap >/dev/null 2>&1; then
	skip nonroot_filecap "'setcap' is not installed (apt-get install libcap2-bin)"
elif [ $rc -ne 0 ] && grep -qF "cannot shape 'eth0': operation not permitted" <<<"$out" &&
     grep -qF "setcap cap_net_admin+ep /home/$user/.cache/gcbench/" <<<"$out"; then
	h=$(grep -oE "/home/$user/\.cache/gcbench/[0-9a-f]{16}" <<<"$out" | head -n 1)
	for i in 1 2; do setcap cap_net_admin+ep "$T/n$i$h/gcbench-netem"; done
	out2=$("$G" provision --inventory "$GCBENCH_HOME/inv-nosudo.yaml" 2>&1); rc2=$?
	chk=$(S -l "$user" n1 "$h/gcbench-netem check" 2>&1)
	if [ $rc2 -eq 0 ] && grep -q "uid=64123 .*cap_net_admin=1" <<<"$chk" && ! grep -q "uid=0 " <<<"$chk"
	then pass nonroot_filecap
	else fail nonroot_filecap "rc $rc2, check '$chk': $(tail -n 3 <<<"$out2" | tr '\n' ' ')"; fi
else
	fail nonroot_filecap "without sudo or capability: rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ') ($d)"
fi

# a spec's csv: model is read here (relative to the spec's folder) and provisioned: the
# nodes never see the spec's folder; a file that is not a parameter list is refused
# without quoting it
mkdir -p "$GCBENCH_HOME/specs"
printf 'index,name,shape,numel\n0,l1.weight,512x256,131072\n1,l1.bias,512,512\n' >"$GCBENCH_HOME/specs/m.csv"
printf 'root:*:20228:0:99999:7:::\n' >"$GCBENCH_HOME/specs/shadow.csv"
sed -e 's/^models: .*/models: [csv:m.csv]/' -e 's/^name: .*/name: hosts-csv/' "$GCBENCH_HOME/spec.yaml" >"$GCBENCH_HOME/specs/csv.yaml"
sed -e 's/^models: .*/models: [csv:shadow.csv]/' "$GCBENCH_HOME/specs/csv.yaml" >"$GCBENCH_HOME/specs/bad.yaml"
cdb=$GCBENCH_HOME/csv.db
out=$("$G" run "$GCBENCH_HOME/specs/csv.yaml" --inventory "$inv" --db "$cdb" --calibrate 0 2>&1); rc=$?
okm=$(sqlite3 "$cdb" "SELECT model FROM runs WHERE status = 'ok'" 2>/dev/null)
out2=$("$G" run "$GCBENCH_HOME/specs/bad.yaml" --inventory "$inv" --db "$cdb" --calibrate 0 2>&1); rc2=$?
if [ $rc -eq 0 ] && [ "$okm" = csv:m.csv ] && [ $rc2 -ne 0 ] &&
   grep -q "shadow.csv' is not a parameter list" <<<"$out2" && ! grep -q "root:" <<<"$out2"
then pass csv_model
else fail csv_model "rc $rc, ok model '$okm': $(tail -n 2 <<<"$out" | tr '\n' ' ') / bad: rc $rc2 $(tail -n 1 <<<"$out2")"; fi

# --shared-fs: the nodes see this machine's files (one NFS tree), and still their own hostname
if out=$("$G" cluster up 1 --name "${name}s" --shared-fs 2>&1) &&
   h=$(ssh -F "$GCBENCH_HOME/clusters/${name}s/ssh_config" n1 "test -x '$G' && hostname" 2>&1) && [ "$h" = n1 ]
then pass shared_fs
else fail shared_fs "$out ${h:-}"; fi
"$G" cluster down --name "${name}s" >/dev/null 2>&1
exit 0
