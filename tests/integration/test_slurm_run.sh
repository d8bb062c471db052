#!/usr/bin/env bash
# tests/integration/test_slurm_run.sh: a sweep inside a SLURM allocation on `gcbench
# cluster up 4 --slurm` (docs/slurm.md): every node reached through srun steps (the
# nodes' sshd are stopped first), links shaped and restored on every node, rows that
# carry the job; a job without --exclusive refused before anything changes; a job
# cancelled with scancel mid-point leaves no qdisc on any node, its run interrupted,
# and the next run continues the sweep; the same spec through `gcbench submit --wait`
# (the nodes share this machine's file system: --shared-fs).
. "$(dirname "$0")/../lib.sh"
# gcbench submit refuses bad options before it writes or submits anything (no SLURM needed)
sub_refuses() {
	local d r bad= out
	d=$(mktemp -d "${TMPDIR:-/tmp}/gcb-sub.XXXXXX")
	printf 'name: s\nworkload: replay\nmodels: [tiny]\nmethods: [syncsgd]\nbandwidth: [1gbit]\nworld_size: 2\nbatch: 8\niterations: 2\n' >"$d/s.yaml"
	for args in "" "$d/s.yaml" "$d/s.yaml --nodes 0" "$d/s.yaml --nodes x" "$d/s.yaml --nodes 2 --gpus-per-node -1" \
		"$d/s.yaml --nodes 2 --time 1:2:3:4" "$d/s.yaml --nodes 2 --begin \$(id)" "$d/s.yaml --nodes 2 --partition a;b" \
		"$d/s.yaml --nodes 2 --bogus" "$d/s.yaml --nodes" "$d/s.yaml --nodes 2 --db /nonexistent/dir/x.db"; do
		# shellcheck disable=SC2086
		out=$(PATH=/nonexistent "$BIN/gcbench" submit $args 2>&1); r=$?
		[ "$r" = 2 ] && grep -q 'error:' <<<"$out" || bad="$bad [$args: exit $r: $(tail -n 1 <<<"$out")]"
	done
	[ -z "$(ls "$d" | grep -v '^s.yaml$')" ] || bad="$bad [wrote: $(ls "$d" | tr '\n' ' ')]"
	rm -rf "$d"
	if [ -z "$bad" ]; then pass submit_refuses; else fail submit_refuses "$bad"; fi
}
sub_refuses
# inside an allocation without a site file: the run says what to write (no SLURM needed)
no_site() {
	local h out r bad=
	h=$(mktemp -d "${TMPDIR:-/tmp}/gcb-site.XXXXXX")
	for how in "env SLURM_JOB_ID=7" "env -u SLURM_JOB_ID"; do
		extra=; [ "$how" = "env -u SLURM_JOB_ID" ] && extra="--inventory slurm"
		# shellcheck disable=SC2086
		out=$($how GCBENCH_HOME="$h" "$BIN/gcbench" run "$h/none.yaml" $extra --db "$h/x.db" 2>&1); r=$?
		[ "$r" = 2 ] && grep -q "$h/slurm.yaml" <<<"$out" && grep -q "iface: NAME" <<<"$out" ||
			bad="$bad [$how $extra: exit $r: $(tail -n 1 <<<"$out")]"
	done
	printf 'slurm: true\niface: eth0\n' >"$h/slurm.yaml"
	out=$(env -u SLURM_JOB_ID GCBENCH_HOME="$h" "$BIN/gcbench" run "$h/none.yaml" --inventory slurm --db "$h/x.db" 2>&1)
	grep -q "slurm.yaml" <<<"$out" && bad="$bad [a site file was refused: $(tail -n 1 <<<"$out")]"
	rm -rf "$h"
	if [ -z "$bad" ]; then pass no_site_file; else fail no_site_file "$bad"; fi
}
no_site
cases="sweep_no_ssh rows_carry_job links_restored refused_not_exclusive scancel_restores
scancel_interrupted next_run_continues submit_wait"
need_sweep $cases || exit 0
for c in slurmctld slurmd munged salloc scancel squeue scontrol; do
	if ! command -v "$c" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$c" ]; then
		for n in $cases; do
			skip "$n" "SLURM is not installed ('$c' is missing): apt-get install -y slurmctld slurmd slurm-client munge"
		done
		exit 0
	fi
done
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built (make)"; done; exit 0; }

name=slurmrun-$(($$ % 1000))
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcb.XXXXXX")
D=$GCBENCH_HOME/clusters/$name W=$GCBENCH_HOME/w
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	"$G" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$GCBENCH_HOME"
}
trap cleanup EXIT
mkdir -p "$W"
if ! out=$("$G" cluster up 4 --slurm --shared-fs --name "$name" 2>&1); then
	for c in $cases; do fail "$c" "cluster up 4 --slurm: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; done
	exit 0
fi
. "$D/slurm.env"
export SLURM_CONF
ns() { echo "gcb-$name-n$1"; }
# the root qdisc of every node's eth0, "n1:noqueue n2:tbf ..."
qdiscs() {
	local n s=
	for n in 1 2 3 4; do s="$s n$n:$(ip netns exec "$(ns $n)" tc qdisc show dev eth0 | awk '/root/ {print $2; exit}')"; done
	echo "$s"
}
clean_links() { ! qdiscs | grep -Eq 'tbf|netem|htb'; }

printf 'slurm: true\niface: eth0\n' >"$W/inv.yaml"
cat >"$W/spec.yaml" <<YAML
name: slurmrun
workload: replay
models: [tiny]
methods: [syncsgd, signsgd]
baseline: syncsgd
bandwidth: [1gbit, 2gbit]
world_size: 4
batch: 8
iterations: 3
warmup: 1
timeout: 120
YAML
db=$W/r.db
q() { sqlite3 "$1" "$2"; }

# nothing through ssh: every node's sshd is stopped (their pids are the cluster's)
for n in 1 2 3 4; do kill "$(cat "$D/n$n.pid")" 2>/dev/null; done
cd /   # steps start in the submitting folder: one the nodes have
salloc -N4 --exclusive -J "$name" "$G" run "$W/spec.yaml" --inventory "$W/inv.yaml" --db "$db" >"$W/out" 2>&1
r=$?
ok=$(q "$db" "SELECT count(*) FROM runs WHERE status='ok'" 2>/dev/null)
if [ "$r" = 0 ] && [ "$ok" = 4 ]; then pass sweep_no_ssh
else fail sweep_no_ssh "exit $r, $ok ok runs of 4: $(tail -n 6 "$W/out" | tr '\n' ' ')"; fi

job=$(sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p' "$W/out")
rows=$(q "$db" "SELECT DISTINCT slurm_job || '|' || slurm_partition || '|' || slurm_nodes FROM runs" 2>&1)
if [ -n "$job" ] && [ "$rows" = "$job|main|n[1-4]" ]; then pass rows_carry_job
else fail rows_carry_job "job '$job', rows '$rows'"; fi

# shaped: each run's calibration measured its cap (0.8-1.0 of it); restored: no qdisc left
bad=$(q "$db" "SELECT count(*) FROM runs r JOIN links l ON l.run_id = r.id
	WHERE l.goodput_bps NOT BETWEEN 0.8 * r.bw_cap_bps AND 1.0 * r.bw_cap_bps" 2>&1)
nl=$(q "$db" "SELECT count(*) FROM links" 2>&1)
if [ "$bad" = 0 ] && [ "${nl:-0}" -ge 4 ] 2>/dev/null && clean_links; then pass links_restored
else fail links_restored "$bad of $nl links off their cap; qdiscs after:$(qdiscs)"; fi

# a job that shares its nodes: refused before any step changes a node, and no database
salloc -N2 -J "$name-s" "$G" run "$W/spec.yaml" --inventory "$W/inv.yaml" --db "$W/shared.db" >"$W/out2" 2>&1
r=$?
if [ "$r" = 3 ] && grep -q -- "--exclusive" "$W/out2" && ! grep -q provision "$W/out2" &&
	[ ! -e "$W/shared.db" ] && clean_links; then pass refused_not_exclusive
else fail refused_not_exclusive "exit $r: $(grep -v '^salloc' "$W/out2" | tail -n 3 | tr '\n' ' ')"; fi

# scancel in the middle of the second point (2gbit) of a 2-point sweep
sed -e 's/methods: \[syncsgd, signsgd\]/methods: [syncsgd]/' -e 's/iterations: 3/iterations: 40/' \
	-e 's/name: slurmrun/name: slurmrun-cancel/' "$W/spec.yaml" >"$W/cancel.yaml"
cdb=$W/c.db
salloc -N4 --exclusive -J "$name-c" "$G" run "$W/cancel.yaml" --inventory "$W/inv.yaml" --db "$cdb" >"$W/out3" 2>&1 &
bg=$!
for i in $(seq 240); do
	ip netns exec "$(ns 1)" tc qdisc show dev eth0 | grep -q 'rate 2Gbit' && break
	sleep 0.25
done
sleep 1
cjob=$(squeue -h -n "$name-c" -o %i)
before=$(qdiscs)
scancel "$cjob"
for i in $(seq 80); do kill -0 "$bg" 2>/dev/null || break; sleep 0.25; done
bg=
if grep -q tbf <<<"$before" && clean_links; then pass scancel_restores
else fail scancel_restores "before scancel:$before; after:$(qdiscs); $(tail -n 4 "$W/out3" | tr '\n' ' ')"; fi
st=$(q "$cdb" "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY id)" 2>&1)
sw=$(q "$cdb" "SELECT status FROM sweeps" 2>&1)
if [ "$st" = "ok,interrupted" ] && [ "$sw" = interrupted ]; then pass scancel_interrupted
else fail scancel_interrupted "runs '$st', sweep '$sw': $(tail -n 4 "$W/out3" | tr '\n' ' ')"; fi

salloc -N4 --exclusive -J "$name-r" "$G" run "$W/cancel.yaml" --inventory "$W/inv.yaml" --db "$cdb" >"$W/out4" 2>&1
r=$?
ok=$(q "$cdb" "SELECT count(*) FROM runs WHERE status='ok'" 2>&1)
nsw=$(q "$cdb" "SELECT count(*) FROM sweeps" 2>&1)
if [ "$r" = 0 ] && [ "$ok" = 2 ] && [ "$nsw" = 1 ] && grep -q "1 of 2 points already done" "$W/out4" && clean_links; then
	pass next_run_continues
else fail next_run_continues "exit $r, $ok ok, $nsw sweeps: $(tail -n 4 "$W/out4" | tr '\n' ' ')"; fi

# submit: the script next to the database, the job id printed, rows of that job
printf 'slurm: true\niface: eth0\n' >"$GCBENCH_HOME/slurm.yaml"   # the site file
sdb=$W/sub/s.db
mkdir -p "$W/sub"
"$G" submit "$W/spec.yaml" --nodes 4 --time 10 --db "$sdb" --wait >"$W/out5" 2>"$W/err5"
r=$?
sjob=$(head -n 1 "$W/out5")
rows=$(q "$sdb" "SELECT count(*) || ' ' || group_concat(DISTINCT slurm_job) FROM runs WHERE status = 'ok'" 2>&1)
if [ "$r" = 0 ] && [ "$rows" = "4 $sjob" ] && grep -qx '#SBATCH --exclusive.*' "$W/sub/slurmrun.sbatch" &&
	[ -f "$W/sub/slurmrun-$sjob.out" ] && ! grep -q CANCELLED "$W/sub/slurmrun-$sjob.out" && clean_links; then pass submit_wait
else fail submit_wait "exit $r, job '$sjob', rows '$rows': $(tail -n 3 "$W/err5" | tr '\n' ' ')"; fi
