#!/usr/bin/env bash
# tests/integration/test_slurm_timelimit.sh: a submitted sweep that reaches its time
# limit, on `gcbench cluster up 2 --slurm --shared-fs`. `gcbench submit --time 1 --wait
# -- --signal=B:TERM@40` (sbatch's own option after --): the job is told 40 s before its
# limit, the point in flight is stored as interrupted, so is the sweep, no link stays
# capped, `--wait` fails and prints the end of the job's log; the next submit of the
# same spec continues that sweep (one sweep, every point ok). Time: about 2-3 minutes.
. "$(dirname "$0")/../lib.sh"
cases="timelimit_interrupted timelimit_nothing_capped timelimit_wait_says next_submit_resumes"
need_sweep $cases || exit 0
for c in slurmctld slurmd munged sbatch squeue scontrol; do
	if ! command -v "$c" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$c" ]; then
		for n in $cases; do
			skip "$n" "SLURM is not installed ('$c' is missing): apt-get install -y slurmctld slurmd slurm-client munge"
		done
		exit 0
	fi
done
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built (make)"; done; exit 0; }

name=slurmtl-$(($$ % 1000))
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcb-tl.XXXXXX")
D=$GCBENCH_HOME/clusters/$name W=$GCBENCH_HOME/w
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"; }
trap cleanup EXIT
mkdir -p "$W"
if ! out=$("$G" cluster up 2 --slurm --shared-fs --name "$name" 2>&1); then
	for c in $cases; do fail "$c" "cluster up 2 --slurm: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; done
	exit 0
fi
. "$D/slurm.env"
export SLURM_CONF
qdiscs() {
	local n s=
	for n in 1 2; do s="$s n$n:$(ip netns exec "gcb-$name-n$n" tc qdisc show dev eth0 | awk '/root/ {print $2; exit}')"; done
	echo "$s"
}
printf 'slurm: true\niface: eth0\n' >"$GCBENCH_HOME/slurm.yaml"   # the site file
spec() {   # spec ITERATIONS: the second point (2gbit) outlives a one-minute job
	cat >"$W/spec.yaml" <<YAML
name: timelimit
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [1gbit, 2gbit]
world_size: 2
batch: 8
iterations: $1
warmup: 1
timeout: 300
YAML
}
spec 20000
db=$W/t.db
cd /   # steps start in the submitting folder: one the nodes have
"$G" submit "$W/spec.yaml" --nodes 2 --time 1 --db "$db" --wait -- --signal=B:TERM@40 >"$W/out1" 2>"$W/err1"
r=$?
st=$(sqlite3 "$db" "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY id)" 2>&1)
sw=$(sqlite3 "$db" "SELECT status FROM sweeps" 2>&1)
if grep -q interrupted <<<"$st" && ! grep -q failed <<<"$st" && [ "$sw" = interrupted ]
then pass timelimit_interrupted
else fail timelimit_interrupted "exit $r, runs '$st', sweep '$sw': $(tail -n 5 "$W/err1" | tr '\n' ' ')"; fi
if ! qdiscs | grep -Eq 'tbf|netem|htb'; then pass timelimit_nothing_capped
else fail timelimit_nothing_capped "qdiscs after the job:$(qdiscs)"; fi
if [ "$r" -ne 0 ] && grep -q 'failed (exit [0-9]*); the end of its log' "$W/err1"
then pass timelimit_wait_says
else fail timelimit_wait_says "exit $r: $(tail -n 5 "$W/err1" | tr '\n' ' ')"; fi

# the next submit of the same spec (no limit): it continues that sweep; once its first
# run row exists it has chosen, and is cancelled (the long point would take minutes)
before=$(sqlite3 "$db" "SELECT count(*) FROM runs")
okkeys=$(sqlite3 "$db" "SELECT group_concat(point_key, ' ') FROM runs WHERE status = 'ok'" 2>&1)
"$G" submit "$W/spec.yaml" --nodes 2 --db "$db" --wait >"$W/out2" 2>"$W/err2" &
bg=$!
for _ in $(seq 600); do
	[ "$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null)" -gt "$before" ] 2>/dev/null && break
	kill -0 "$bg" 2>/dev/null || break
	sleep 0.25
done
job2=$(head -n 1 "$W/out2")
[ -n "$job2" ] && scancel "$job2"
wait "$bg"
nsw=$(sqlite3 "$db" "SELECT count(*) FROM sweeps" 2>&1)
again=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE slurm_job = '$job2' AND ' ' || '$okkeys' || ' ' LIKE '% ' || point_key || ' %'" 2>&1)
n2=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE slurm_job = '$job2'" 2>&1)
if [ "$nsw" = 1 ] && [ "$again" = 0 ] && [ "${n2:-0}" -ge 1 ] 2>/dev/null
then pass next_submit_resumes
else fail next_submit_resumes "$nsw sweeps, $n2 runs in job '$job2', $again of them already ok: $(tail -n 5 "$W/err2" | tr '\n' ' ')"; fi
