#!/usr/bin/env bash
# tests/integration/test_slurm.sh: `gcbench cluster up 4 --slurm` (munged, slurmctld, one
# slurmd per node, every file in the cluster's directory): four idle nodes, srun on each
# node, gcbench-worker over 4 ranks started by `srun --mpi=pmix` inside `salloc -N4
# --exclusive`, the SLURM module (orchestrator/remote/slurm.h, through
# build/tests/slurm_probe) on a live allocation with and without --exclusive, an sbatch
# script it wrote run by `sbatch --wait`, the per-step cost of srun against ssh, and
# nothing of the cluster left after down.
. "$(dirname "$0")/../lib.sh"
cases="up sinfo_idle up_again_noop conf_in_cluster_dir srun_hostnames worker_pmix_4 module_hostnames
module_exclusive module_shared sbatch_script step_overhead two_clusters shared_fs_pmix status_slurm
repair_slurmd_killed down_leaves_nothing port_taken"
need_root $cases || exit 0
for c in slurmctld slurmd munged sinfo srun salloc sbatch scontrol; do
	if ! command -v "$c" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$c" ]; then
		for n in $cases; do
			skip "$n" "SLURM is not installed ('$c' is missing): apt-get install -y slurmctld slurmd slurm-client munge"
		done
		exit 0
	fi
done
need_cmd sshd $cases || exit 0
G=$BIN/gcbench PROBE=$BUILD/tests/slurm_probe
for b in "$G" "$PROBE" "$BIN/gcbench-worker"; do
	[ -x "$b" ] || { for c in $cases; do fail "$c" "$b is not built (make)"; done; exit 0; }
done
PROBE=$(realpath "$PROBE") src=$PWD   # steps run from / (the nodes have no view of this tree)
# a sanitized build (make SANITIZE=address,undefined): Open MPI's PMIx components leak
# at exit under srun (dlopen'ed, not gcbench's code): no leak check for the ranks only
noleak=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

name=slurm$$ name2=slb$$
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcb.XXXXXX")
D=$GCBENCH_HOME/clusters/$name
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	"$G" cluster down --name "$name" >/dev/null 2>&1
	"$G" cluster down --name "$name2" >/dev/null 2>&1
	rm -rf "$GCBENCH_HOME"
}
trap cleanup EXIT

if out=$("$G" cluster up 4 --slurm --name "$name" 2>&1) &&
	grep -q "SLURM_CONF=$D/slurm.conf" <<<"$out" && [ -f "$D/slurm.env" ]; then
	pass up
else
	fail up "$out"
	for c in $cases; do [ "$c" = up ] || skip "$c" "cluster up --slurm failed"; done
	exit 0
fi
# what a test or a user sources: SLURM_CONF=DIR/slurm.conf
. "$D/slurm.env"
export SLURM_CONF
[ "$SLURM_CONF" = "$D/slurm.conf" ] || fail up "slurm.env says SLURM_CONF=$SLURM_CONF"
grep -qx "# SLURM on these nodes: export SLURM_CONF=$D/slurm.conf (also in $D/slurm.env)" "$D/inventory.yaml" ||
	fail up "the inventory does not say SLURM_CONF: $(head -n 3 "$D/inventory.yaml" | tr '\n' '|')"

st=$(sinfo -h -N -o '%N %t' 2>&1)
if [ "$(grep -c ' idle$' <<<"$st")" = 4 ] && [ "$(awk '{print $1}' <<<"$st" | sort -u | tr '\n' ' ')" = "n1 n2 n3 n4 " ]; then
	pass sinfo_idle; else fail sinfo_idle "sinfo: $(tr '\n' '|' <<<"$st")"; fi

pid_ctld=$(cat "$D/slurmctld.pid")
out=$("$G" cluster up 4 --slurm --name "$name" 2>&1)
if grep -q "already up" <<<"$out" && [ "$(cat "$D/slurmctld.pid")" = "$pid_ctld" ] && [ -d "/proc/$pid_ctld" ]; then
	pass up_again_noop; else fail up_again_noop "$out"; fi

# every file in the cluster's directory: no /etc/slurm, %n for the slurmds, the cluster's ports
conf=$D/slurm.conf
k=$(sed -n 's/^subnet=//p' "$D/cluster.conf")
if ! grep -q '/etc/' "$conf" && grep -qx "SlurmdSpoolDir=$D/slurmd/%n" "$conf" &&
	grep -qx "SlurmdPidFile=$D/slurmd/%n.pid" "$conf" && grep -qx "SlurmdLogFile=$D/slurmd/%n.log" "$conf" &&
	grep -qx 'ProctrackType=proctrack/linuxproc' "$conf" && grep -qx 'TaskPlugin=task/none' "$conf" &&
	grep -qx "SlurmctldHost=ctl(10.213.$k.1)" "$conf" && grep -qx "SlurmctldPort=$((16800 + 2 * k))" "$conf" &&
	grep -qx "AuthInfo=socket=$D/munge.sock" "$conf" && [ "$(grep -c '^NodeName=n[1-4] ' "$conf")" = 4 ] &&
	[ -S "$D/munge.sock" ] && [ -f "$D/slurmd/n4.log" ] && [ "$(stat -c %a "$D/munge.key")" = 400 ]; then
	pass conf_in_cluster_dir
else
	fail conf_in_cluster_dir "$(tr '\n' '|' <"$conf")"
fi

# each task runs on its node, with its hostname and its own view (no source tree there)
h=$(cd / && timeout 60 srun -N4 --ntasks-per-node=1 --chdir /tmp sh -c 'echo "$(hostname) $(ls "$0" 2>/dev/null | wc -l)"' "$src" 2>&1 | sort | tr '\n' ' ')
[ "$h" = "n1 0 n2 0 n3 0 n4 0 " ] && pass srun_hostnames || fail srun_hostnames "srun: $h"

# the worker over 4 ranks, started by srun's PMIx inside an exclusive allocation; the
# nodes get the build the way a sweep does (gcbench provision, over ssh)
prov=$("$G" provision --inventory "$D/inventory.yaml" 2>&1)
wdir=$(sed -n 's|^n1 \(/.*/\.cache/gcbench/[0-9a-f]*\)$|\1|p' <<<"$prov" | head -1)
if [ -z "$wdir" ]; then
	fail worker_pmix_4 "gcbench provision gave no build directory: $(tail -n 3 <<<"$prov" | tr '\n' ' ')"
else
	out=$(cd / && env "$noleak" OMPI_MCA_btl=self,tcp timeout 120 salloc -N4 --exclusive srun --mpi=pmix -N4 -n4 \
		--chdir /tmp "$wdir/gcbench-worker" --workload replay:tiny --iters 3 --warmup 1 \
		--deadline 60 --out "/tmp/$name-r%r.gcr" 2>&1); rc=$?
	hosts="" ok=1
	for i in 1 2 3 4; do
		f=$GCBENCH_HOME/nodes/$name/n$i/tmp/$name-r$((i - 1)).gcr
		[ -f "$f" ] || { ok=0; continue; }
		hdr=$("$BIN/gcbench-worker" --dump "$f" | sed -n 's/^header //p')
		grep -q '"world":4' <<<"$hdr" || ok=0
		hosts="$hosts$(grep -o '"host":"[^"]*"' <<<"$hdr" | cut -d'"' -f4) "
		"$BIN/gcbench-worker" --dump "$f" | grep -q '^complete 1 ' || ok=0
	done
	if [ "$rc" = 0 ] && [ "$ok" = 1 ] && [ "$hosts" = "n1 n2 n3 n4 " ]; then pass worker_pmix_4
	else fail worker_pmix_4 "rc=$rc hosts='$hosts' records ok=$ok: $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi
fi

# the module on live allocations: hosts from SLURM_JOB_NODELIST, exclusive or not
ex=$(cd / && timeout 60 salloc -N3 --exclusive "$PROBE" 2>/dev/null)
sh=$(cd / && timeout 60 salloc -N2 "$PROBE" 2>/dev/null)
if grep -qx 'hosts=n1,n2,n3' <<<"$ex" && grep -qx 'nodelist=n\[1-3\]' <<<"$ex" &&
	grep -qx 'partition=main' <<<"$ex" && grep -qx 'num_nodes=3' <<<"$ex"; then
	pass module_hostnames; else fail module_hostnames "$(tr '\n' ' ' <<<"$ex")"; fi
grep -qx 'exclusive=1' <<<"$ex" && grep -qx 'oversubscribe=NO' <<<"$ex" && pass module_exclusive ||
	fail module_exclusive "with --exclusive: $(tr '\n' ' ' <<<"$ex")"
grep -qx 'exclusive=0' <<<"$sh" && grep -qx 'hosts=n1,n2' <<<"$sh" && pass module_shared ||
	fail module_shared "without --exclusive: $(tr '\n' ' ' <<<"$sh")"

# an sbatch script the module wrote, run as is: 4 nodes, exclusive, output where asked
"$PROBE" script 4 5 "/tmp/$name-%j.out" sh -c \
	'echo "nodes=$SLURM_JOB_NUM_NODES"; scontrol show job -o "$SLURM_JOB_ID" | grep -o "OverSubscribe=[A-Z]*"; srun hostname | sort | tr "\n" " "' \
	>"$GCBENCH_HOME/job.sh"
sb=$(cd / && timeout 120 sbatch --wait --chdir /tmp "$GCBENCH_HOME/job.sh" 2>&1); rc=$?
jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<<"$sb")
jout=$(cat "$GCBENCH_HOME/nodes/$name/n1/tmp/$name-$jid.out" 2>&1)
if [ "$rc" = 0 ] && grep -qx 'nodes=4' <<<"$jout" && grep -qx 'OverSubscribe=NO' <<<"$jout" &&
	grep -qx 'n1 n2 n3 n4 ' <<<"$jout"; then pass sbatch_script
else fail sbatch_script "rc=$rc $sb :: $(tr '\n' '|' <<<"$jout")"; fi

# the cost of one step inside an allocation (salloc -N4 --exclusive, as a sweep runs):
# srun -N4 true with the default MPI plugin (pmix) and with --mpi=none, and four
# per-host steps srun --mpi=none -N1 -w nX true one after another; against ssh to each
# node (ControlMaster warm, as a sweep's ssh is) in parallel and one after another.
# Median of 10, in ms. A figure, not a limit: it fails only when a command fails.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
cat >"$GCBENCH_HOME/steps.sh" <<'EOS'
ms() { local s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "FAILED $*"; return 1; }; echo $(( ($(date +%s%N) - s) / 1000000 )); }
per_host() { for i in 1 2 3 4; do srun --mpi=none -N1 -n1 -w "n$i" --chdir /tmp true || return 1; done; }
for r in 1 2 3 4 5 6 7 8 9 10; do
	echo "srun_pmix $(ms srun -N4 --chdir /tmp true)"
	echo "srun_none $(ms srun --mpi=none -N4 --chdir /tmp true)"
	echo "srun_per_host $(ms per_host)"
done
EOS
ms() { local s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "FAILED $*"; return 1; }; echo $(( ($(date +%s%N) - s) / 1000000 )); }
ssh_par() { for i in 1 2 3 4; do ssh -F "$D/ssh_config" "n$i" true & done; wait; }
ssh_seq() { for i in 1 2 3 4; do ssh -F "$D/ssh_config" "n$i" true || return 1; done; }
ssh_seq >/dev/null 2>&1   # the masters
steps=$(cd / && timeout 300 salloc -N4 --exclusive bash "$GCBENCH_HOME/steps.sh" 2>/dev/null)
for r in 1 2 3 4 5 6 7 8 9 10; do
	steps="$steps
ssh_par $(ms ssh_par)
ssh_seq $(ms ssh_seq)"
done
figs="" okm=1
for what in srun_pmix srun_none srun_per_host ssh_par ssh_seq; do
	v=$(awk -v k=$what '$1 == k { print $2 }' <<<"$steps")
	[ "$(grep -c '^[0-9][0-9]*$' <<<"$v")" = 10 ] || okm=0
	figs="$figs $what=$(median <<<"$v")"
done
if [ "$okm" = 1 ] && ! grep -q FAILED <<<"$steps"; then
	echo "# step cost on 4 nodes, median of 10 (ms):$figs"
	pass step_overhead
else
	fail step_overhead "a step failed: $(tr '\n' ' ' <<<"$steps" | head -c 600)"
fi

# a second cluster with SLURM beside the first, its nodes on this machine's file system
# (--shared-fs: one /tmp, so PMIx's step folders must be apart): its own ports and
# munge, both answer, and the worker runs from this build tree on its 2 nodes
if out=$("$G" cluster up 2 --slurm --shared-fs --name "$name2" 2>&1); then
	s2=$(SLURM_CONF=$GCBENCH_HOME/clusters/$name2/slurm.conf sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')
	s1=$(sinfo -h -N -o '%N %t' 2>&1)
	p1=$(sed -n 's/^SlurmctldPort=//p' "$D/slurm.conf")
	p2=$(sed -n 's/^SlurmctldPort=//p' "$GCBENCH_HOME/clusters/$name2/slurm.conf")
	w=$(env "$noleak" SLURM_CONF=$GCBENCH_HOME/clusters/$name2/slurm.conf OMPI_MCA_btl=self,tcp timeout 120 \
		salloc -N2 srun --mpi=pmix -N2 -n2 "$(realpath "$BIN/gcbench-worker")" --workload replay:tiny \
		--iters 2 --warmup 1 --deadline 60 --out "$GCBENCH_HOME/$name2-r%r.gcr" 2>&1); rc=$?
	h0=$("$BIN/gcbench-worker" --dump "$GCBENCH_HOME/$name2-r0.gcr" 2>&1 | grep -o '"host":"[^"]*"')
	h1=$("$BIN/gcbench-worker" --dump "$GCBENCH_HOME/$name2-r1.gcr" 2>&1 | grep -o '"host":"[^"]*"')
	if [ "$s2" = "n1 idle n2 idle " ] && [ "$(grep -c ' idle$' <<<"$s1")" = 4 ] && [ "$p1" != "$p2" ]; then
		pass two_clusters
	else
		fail two_clusters "second: '$s2' (port $p2), first: $(tr '\n' '|' <<<"$s1") (port $p1)"
	fi
	if [ "$rc" = 0 ] && [ "$h0" = '"host":"n1"' ] && [ "$h1" = '"host":"n2"' ]; then pass shared_fs_pmix
	else fail shared_fs_pmix "rc=$rc hosts '$h0' '$h1': $(tail -n 4 <<<"$w" | tr '\n' ' ')"; fi
	"$G" cluster down --name "$name2" >/dev/null 2>&1
	[ "$(sinfo -h -N -o '%t' | sort -u)" = idle ] || fail two_clusters "the first cluster is not idle after the second's down"
else
	fail two_clusters "cluster up 2 --slurm --shared-fs --name $name2: $out"
	skip shared_fs_pmix "the second cluster did not come up"
fi

st=$("$G" cluster status --name "$name" --json)
case $st in *'"healthy":true'*'"slurm":true'*) pass status_slurm ;; *) fail status_slurm "$st" ;; esac

# a node's slurmd dies: status says the cluster is not healthy, up rebuilds it
kill -9 "$(cat "$D/slurmd/n2.pid")" 2>/dev/null
for i in $(seq 50); do [ -d "/proc/$(cat "$D/slurmd/n2.pid")" ] || break; sleep 0.1; done
"$G" cluster status --name "$name" >/dev/null 2>&1; src_st=$?
txt=$("$G" cluster status --name "$name" 2>&1)
out=$("$G" cluster up 4 --slurm --name "$name" 2>&1); rc=$?
st=$(sinfo -h -N -o '%N %t' 2>&1)
if [ "$src_st" = 3 ] && grep -q 'n2 .*slurmd DOWN' <<<"$txt" && [ "$rc" = 0 ] &&
	grep -q 'rebuilding' <<<"$out" && [ "$(grep -c ' idle$' <<<"$st")" = 4 ]; then
	pass repair_slurmd_killed
else
	fail repair_slurmd_killed "status exit $src_st: $(tr '\n' '|' <<<"$txt") up rc=$rc: $out; sinfo: $(tr '\n' '|' <<<"$st")"
fi

pids=$(cat "$D/munged.pid" "$D/slurmctld.pid" "$D"/slurmd/n*.pid 2>/dev/null | tr '\n' ' ')
out=$("$G" cluster down --name "$name" 2>&1); rc=$?
left=""
for p in $pids; do [ -d "/proc/$p" ] && [ "$(cat /proc/$p/stat 2>/dev/null | awk '{print $3}')" != Z ] && left="$left $p"; done
mine=$(pgrep -f -- "$D/" 2>/dev/null | tr '\n' ' ')
if [ "$rc" = 0 ] && [ -n "$pids" ] && [ -z "$left" ] && [ -z "$mine" ] && [ ! -e "$D" ] &&
	[ ! -e "$GCBENCH_HOME/nodes/$name" ]; then
	pass down_leaves_nothing
else
	fail down_leaves_nothing "rc=$rc pids '$pids' left '$left' matching '$mine': $out"
fi

# slurmctld's port taken by another program: up refuses before starting anything of
# SLURM, names the port, and leaves nothing
port=$((16800 + 2 * k))
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1); time.sleep(120)' "$port" &
holder=$!
for i in $(seq 50); do ss -ltn "sport = :$port" 2>/dev/null | grep -q LISTEN && break; sleep 0.1; done
out=$("$G" cluster up 1 --slurm --name "$name" 2>&1); rc=$?
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; holder=
if [ "$rc" != 0 ] && grep -q "TCP port $port" <<<"$out" && grep -q "is in use" <<<"$out" &&
	[ ! -e "$D" ] && [ -z "$(pgrep -f -- "$D/" 2>/dev/null)" ]; then
	pass port_taken
else
	fail port_taken "rc=$rc (dir left: $([ -e "$D" ] && echo yes || echo no)): $out"
fi
