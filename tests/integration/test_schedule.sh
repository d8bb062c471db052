#!/usr/bin/env bash
# tests/integration/test_schedule.sh: `gcbench schedule` end to end under a temporary
# root (--root / GCBENCH_SCHEDULE_ROOT): nothing is installed on this machine.
. "$(dirname "$0")/../lib.sh"
GC=$(cd "$(dirname "$BIN/gcbench")" 2>/dev/null && pwd)/gcbench
unset SUDO_USER   # jobs here run as root (a login that ran sudo: test_schedule_user.sh)
names="install_systemd install_cron list_remove bad_at_exit2 unsafe_path_refused bad_spec_refused bad_inventory_refused build_tree_refused installed_binary slurm_install slurm_refusals slurm_command_runs"
[ -x "$GC" ] || { for n in $names; do skip "$n" "$GC not built"; done; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-sched.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/run/systemd/system" "$tmp/w" "$tmp/cr"
# a spec and an inventory that 'gcbench run --dry-run' accepts (install checks them)
spec() {   # spec FILE BANDWIDTH
	printf 'name: nightly\nmodels: [tiny]\nmethods: [syncsgd]\nbandwidth: [%s]\nworld_size: 2\nbatch: 8\niterations: 5\n' "$2" >"$1"
}
spec "$tmp/w/nightly.yaml" 1gbit
printf 'local: 2\n' >"$tmp/w/inv.yaml"
cd "$tmp/w" || exit 1
# this gcbench is in a build tree: every install below but the last says so
B=--allow-build-tree

out=$("$GC" schedule install nightly.yaml --inventory inv.yaml --at 'daily 02:00' --tag nccl-2.19 --root "$tmp/root" $B 2>&1); rc=$?
svc=$tmp/root/etc/systemd/system/gcbench-nightly.service
if [ $rc -eq 0 ] && grep -qx "ExecStart=$GC run $tmp/w/nightly.yaml --inventory $tmp/w/inv.yaml --db $tmp/w/gcbench.db --tag nccl-2.19" "$svc" &&
   grep -qx 'OnCalendar=\*-\*-\* 02:00:00' "${svc%.service}.timer"; then pass install_systemd
else fail install_systemd "rc=$rc out=$out"; fi

out=$(GCBENCH_SCHEDULE_ROOT=$tmp/cr "$GC" schedule install nightly.yaml --inventory inv.yaml --at '30 1 * * mon-fri' --name wk $B 2>&1); rc=$?
line=$(grep -v '^#' "$tmp/cr/etc/cron.d/gcbench-wk" 2>/dev/null | tail -n 1)
if [ $rc -eq 0 ] && [ "${line%% root *}" = "30 1 * * 1-5" ] && echo "$line" | grep -q ">> /var/log/gcbench/wk.log 2>&1$"; then pass install_cron
else fail install_cron "rc=$rc out=$out line=$line"; fi

l1=$("$GC" schedule list --root "$tmp/root" 2>&1)
"$GC" schedule remove nightly --root "$tmp/root" >/dev/null 2>&1; r1=$?
"$GC" schedule remove nightly --root "$tmp/root" >/dev/null 2>&1; r2=$?
l2=$("$GC" schedule list --root "$tmp/root" 2>&1)
if echo "$l1" | grep -q '^nightly  *systemd  *daily 02:00' && [ $r1 -eq 0 ] && [ $r2 -eq 2 ] &&
   echo "$l2" | grep -q "no scheduled sweeps" && [ ! -e "$svc" ]; then pass list_remove
else fail list_remove "list=$l1 rm=$r1,$r2 after=$l2"; fi

bad=0
for at in 'daily 25:00' 'weekly Xyz 03:00' '* * * *' '0 0 1 * 1' '@reboot' 'daily 02:00; reboot'; do
	"$GC" schedule install nightly.yaml --inventory inv.yaml --at "$at" --root "$tmp/root" $B >/dev/null 2>&1
	[ $? -eq 2 ] || { bad=1; echo "accepted --at '$at'"; }
done
[ $bad -eq 0 ] && pass bad_at_exit2 || fail bad_at_exit2 "an invalid --at was not refused with exit 2"

mkdir -p "$tmp/w/a b" && spec "$tmp/w/a b/s.yaml" 1gbit && spec "$tmp/w/x\$(id).yaml" 1gbit
out1=$("$GC" schedule install "a b/s.yaml" --inventory inv.yaml --at hourly --root "$tmp/root" $B 2>&1); r1=$?
out2=$("$GC" schedule install "x\$(id).yaml" --name x --inventory inv.yaml --at hourly --root "$tmp/root" $B 2>&1); r2=$?
if [ $r1 -eq 2 ] && [ $r2 -eq 2 ] && echo "$out1" | grep -q "no spaces" && [ -z "$(ls "$tmp/root/etc/systemd/system")" ]; then
	pass unsafe_path_refused
else fail unsafe_path_refused "rc=$r1,$r2 out=$out1 / $out2"; fi

# what 'gcbench run --dry-run' refuses is not scheduled: exit 2, the file:line, nothing written
rm -rf "$tmp/r2" && mkdir -p "$tmp/r2/run/systemd/system"
spec "$tmp/w/bad.yaml" 10Gbps
out=$("$GC" schedule install bad.yaml --inventory inv.yaml --at hourly --root "$tmp/r2" $B 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "bad.yaml:4:[0-9]*: " && echo "$out" | grep -q "refusing to schedule 'bad'" &&
   [ -z "$(ls "$tmp/r2/etc/systemd/system" 2>/dev/null)" ]; then pass bad_spec_refused
else fail bad_spec_refused "rc=$rc out=$out"; fi
printf 'hosts:\n  - {name: h1, address: 192.0.2.1, port: ssh, iface: eth0}\n' >"$tmp/w/badinv.yaml"
out=$("$GC" schedule install nightly.yaml --inventory badinv.yaml --at hourly --root "$tmp/r2" $B 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "badinv.yaml:2:[0-9]*: " && [ -z "$(ls "$tmp/r2/etc/systemd/system" 2>/dev/null)" ]; then
	pass bad_inventory_refused
else fail bad_inventory_refused "rc=$rc out=$out"; fi

# a build-tree gcbench is refused without --allow-build-tree; an installed one is not
out=$("$GC" schedule install nightly.yaml --inventory inv.yaml --at hourly --root "$tmp/r2" 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "make install" && [ -z "$(ls "$tmp/r2/etc/systemd/system" 2>/dev/null)" ]; then
	pass build_tree_refused
else fail build_tree_refused "rc=$rc out=$out"; fi
install -D -m 0755 "$GC" "$tmp/prefix/bin/gcbench"
out=$("$GC" schedule install nightly.yaml --inventory inv.yaml --at hourly --root "$tmp/r2" --gcbench "$tmp/prefix/bin/gcbench" 2>&1); rc=$?
if [ $rc -eq 0 ] && ! echo "$out" | grep -q "build tree" &&
   grep -q "^ExecStart=$tmp/prefix/bin/gcbench run " "$tmp/r2/etc/systemd/system/gcbench-nightly.service"; then
	pass installed_binary
else fail installed_binary "rc=$rc out=$out"; fi

# --slurm: the job submits the sweep as a batch job and waits for it (docs/slurm.md)
printf 'slurm: true\niface: eth0\n' >"$tmp/w/slurm.yaml"
rm -rf "$tmp/r3" && mkdir -p "$tmp/r3/run/systemd/system"
out=$("$GC" schedule install nightly.yaml --inventory slurm.yaml --slurm --nodes 4 --partition gpu --time 2:00:00 --gpus-per-node 2 --tag nccl-2.19 --db "$tmp/w/r.db" --at 'daily 02:00' --root "$tmp/r3" $B 2>&1); rc=$?
out2=$(GCBENCH_SCHEDULE_ROOT=$tmp/cr "$GC" schedule install nightly.yaml --inventory slurm.yaml --slurm --nodes 2 --at hourly --name sl $B 2>&1); rc2=$?
svc=$tmp/r3/etc/systemd/system/gcbench-nightly.service
line=$(grep -v '^#' "$tmp/cr/etc/cron.d/gcbench-sl" 2>/dev/null | tail -n 1)
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -qx "ExecStart=$GC submit $tmp/w/nightly.yaml --nodes 4 --partition gpu --time 2:00:00 --gpus-per-node 2 --inventory $tmp/w/slurm.yaml --db $tmp/w/r.db --tag nccl-2.19 --wait" "$svc" &&
   echo "$line" | grep -qF "flock -n /run/lock/gcbench-sl.lock $GC submit $tmp/w/nightly.yaml --nodes 2 --inventory $tmp/w/slurm.yaml --db $tmp/w/gcbench.db --wait >> /var/log/gcbench/sl.log 2>&1"; then
	pass slurm_install
else fail slurm_install "rc=$rc,$rc2 out=$out / $out2 line=$line svc=$(grep ExecStart "$svc" 2>/dev/null)"; fi

# every malformed --slurm option, and --slurm with a spec 'gcbench run' refuses: exit 2,
# nothing written
rm -rf "$tmp/r4" && mkdir -p "$tmp/r4/run/systemd/system"
bad=""
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	out=$("$GC" schedule install $args --at hourly --root "$tmp/r4" $B 2>&1); rc=$?
	{ [ $rc -eq 2 ] && echo "$out" | grep -qF -- "$want"; } || bad="$bad [$args: rc=$rc $out]"
done <<'EOF2'
nightly.yaml --inventory slurm.yaml --slurm|add --nodes N
nightly.yaml --inventory slurm.yaml --slurm --nodes 0|--nodes needs a whole number
nightly.yaml --inventory slurm.yaml --slurm --nodes x|--nodes needs a whole number
nightly.yaml --inventory slurm.yaml --slurm --nodes +2|--nodes needs a whole number
nightly.yaml --inventory slurm.yaml --slurm --nodes 2 --gpus-per-node -1|--gpus-per-node needs
nightly.yaml --inventory slurm.yaml --slurm --nodes 2 --gpus-per-node 99|--gpus-per-node 99
nightly.yaml --inventory slurm.yaml --slurm --nodes 2 --partition g;pu|partition 'g;pu'
nightly.yaml --inventory slurm.yaml --slurm --nodes 2 --partition -gpu|partition '-gpu'
nightly.yaml --inventory slurm.yaml --slurm --nodes 2 --time 1day|time limit '1day'
nightly.yaml --inventory slurm.yaml --nodes 2|add --slurm
nightly.yaml --inventory slurm.yaml --partition gpu|add --slurm
bad.yaml --inventory slurm.yaml --slurm --nodes 2|refusing to schedule 'bad'
EOF2
if [ -z "$bad" ] && [ -z "$(ls "$tmp/r4/etc/systemd/system" 2>/dev/null)" ]; then pass slurm_refusals
else fail slurm_refusals "$bad; written: $(ls "$tmp/r4/etc/systemd/system" 2>/dev/null)"; fi

# the installed command itself, with a stand-in sbatch (no SLURM needed): it writes the
# batch script (with --tag) and ends with the job's status (the stand-in's 3)
mkdir -p "$tmp/sbin"
printf '#!/bin/sh\necho "$@" >"%s/sbatch.args"\necho 4242\nexit 3\n' "$tmp" >"$tmp/sbin/sbatch"
chmod +x "$tmp/sbin/sbatch"
cmd=$(sed -n 's/^ExecStart=//p' "$tmp/r3/etc/systemd/system/gcbench-nightly.service")
# shellcheck disable=SC2086
out=$(PATH=$tmp/sbin:$PATH $cmd 2>&1); rc=$?
if [ $rc -eq 3 ] && [ "$(head -n 1 <<<"$out")" = 4242 ] && grep -q -- "--wait $tmp/w/nightly.sbatch" "$tmp/sbatch.args" &&
   grep -q "^#SBATCH --nodes=4" "$tmp/w/nightly.sbatch" && grep -q "^#SBATCH --partition=gpu" "$tmp/w/nightly.sbatch" &&
   grep -q "'--db' '$tmp/w/r.db' '--tag' 'nccl-2.19'$" "$tmp/w/nightly.sbatch"; then pass slurm_command_runs
else fail slurm_command_runs "rc=$rc (want 3) out=$out args=$(cat "$tmp/sbatch.args" 2>/dev/null) script=$(cat "$tmp/w/nightly.sbatch" 2>/dev/null)"; fi
