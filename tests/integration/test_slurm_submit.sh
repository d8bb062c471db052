#!/usr/bin/env bash
# tests/integration/test_slurm_submit.sh: `gcbench submit` against a stand-in sbatch on
# PATH (no SLURM needed): --dry-run prints the script and the sbatch command and writes
# or submits nothing; --account/--qos/--constraint/--reservation are #SBATCH lines and
# what follows `--` reaches sbatch's argv; a failed sbatch leaves no script; a job whose
# batch host cannot see gcbench's bin folder (hidden there by a mount namespace) fails
# at its first lines with a message that `submit --wait` prints from the job's log; a
# job that failed before its log existed is said so, with the likely reason; a line
# break in an sbatch argument is refused before anything is written. `gcbench run
# --dry-run --nodes N` outside an allocation plans that job from the site file (every
# node and each point's hosts and ranks) and creates nothing; without --nodes it says
# to add it, and --nodes without --dry-run is refused.
. "$(dirname "$0")/../lib.sh"
cases="dry_run_submits_nothing options_reach_sbatch failed_sbatch_leaves_nothing
wait_prints_log wait_without_log extra_newline_refused run_dry_run_plans_job run_dry_run_needs_nodes"
G=$(realpath "$BIN/gcbench" 2>/dev/null)
[ -x "$G" ] || { for c in $cases; do fail "$c" "$BIN/gcbench is not built"; done; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-submit.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/fake" "$T/w"
cat >"$T/fake/sbatch" <<'SH'
#!/bin/bash
# a stand-in sbatch: records its argv and script, then acts as $T/mode says
T=$(dirname "$(dirname "$0")")
printf '%s\n' "$@" >"$T/argv"
script=${!#}
cp "$script" "$T/script.copy"
case $(cat "$T/mode") in
ok) echo 42 ;;
fail) echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" >&2; exit 1 ;;
hidden) echo 42   # the batch host does not see gcbench's bin folder
	out=$(sed -n 's/^#SBATCH --output=//p' "$script"); out=${out//%j/42}
	SLURM_JOB_ID=42 unshare -m bash -c 'mount -t tmpfs none "$1" && exec bash "$2"' sh \
		"$(cat "$T/hide")" "$script" >"$out" 2>&1 ;;
nolog) echo 42; exit 1 ;;
esac
SH
chmod +x "$T/fake/sbatch"
printf 'name: sub\nworkload: replay\nmodels: [tiny]\nmethods: [syncsgd]\nbaseline: syncsgd\nbandwidth: [1gbit]\nworld_size: 2\nbatch: 8\niterations: 2\n' >"$T/w/s.yaml"
sub() { (cd "$T/w" && PATH=$T/fake:$PATH "$G" submit s.yaml --nodes 2 --db "$T/w/r.db" "$@"); }
files() { ls "$T/w" | grep -v '^s.yaml$' | tr '\n' ' '; }

echo ok >"$T/mode"
out=$(sub --account X --dry-run -- --comment=y 2>&1); r=$?
if [ "$r" = 0 ] && grep -q '^#SBATCH --account=X$' <<<"$out" && grep -q "^exec .*/gcbench' 'run' " <<<"$out" &&
   grep -q "^# submitted with: 'sbatch' '--parsable' '--comment=y' '$T/w/sub.sbatch'$" <<<"$out" &&
   [ ! -e "$T/argv" ] && [ -z "$(files)" ]; then pass dry_run_submits_nothing
else fail dry_run_submits_nothing "exit $r, sbatch called: $([ -e "$T/argv" ] && echo yes), files: $(files): $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi

out=$(sub --account X --qos high --constraint 'a100&ib' --reservation maint -- --comment=y --mail-type=END 2>"$T/err"); r=$?
argv=$(tr '\n' ' ' <"$T/argv" 2>/dev/null)
if [ "$r" = 0 ] && [ "$argv" = "--parsable --comment=y --mail-type=END $T/w/sub.sbatch " ] &&
   grep -q '^#SBATCH --account=X$' "$T/script.copy" && grep -q '^#SBATCH --qos=high$' "$T/script.copy" &&
   grep -q '^#SBATCH --constraint=a100&ib$' "$T/script.copy" &&
   grep -q '^#SBATCH --reservation=maint$' "$T/script.copy" && [ "$(head -n 1 <<<"$out")" = 42 ]
then pass options_reach_sbatch
else fail options_reach_sbatch "exit $r, argv '$argv', stdout '$out': $(tail -n 3 "$T/err" | tr '\n' ' ')"; fi
rm -f "$T/w/sub.sbatch"

echo fail >"$T/mode"
out=$(sub --account nosuch 2>&1); r=$?
if [ "$r" = 3 ] && grep -q 'Invalid account' <<<"$out" && grep -q 'sbatch did not submit' <<<"$out" &&
   [ -z "$(files)" ]; then pass failed_sbatch_leaves_nothing
else fail failed_sbatch_leaves_nothing "exit $r, files: $(files): $(tr '\n' ' ' <<<"$out")"; fi

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip wait_prints_log "needs root and unshare (a mount namespace hides the bin folder)"
else
	echo hidden >"$T/mode"; dirname "$G" >"$T/hide"
	out=$(sub --wait 2>&1); r=$?
	if [ "$r" = 2 ] && grep -q 'job 42 failed (exit 2); the end of its log' <<<"$out" &&
	   grep -q "job 42 on .*: cannot read $G here; it must be on a file system" <<<"$out"
	then pass wait_prints_log
	else fail wait_prints_log "exit $r: $(tr '\n' ' ' <<<"$out")"; fi
fi
rm -f "$T/w/"sub*

echo nolog >"$T/mode"
out=$(sub --wait 2>&1); r=$?
if [ "$r" = 1 ] && grep -q "job 42 failed (exit 1) before it could write its log '$T/w/sub-42.out'" <<<"$out" &&
   grep -q "does not see '$T/w'" <<<"$out"; then pass wait_without_log
else fail wait_without_log "exit $r: $(tr '\n' ' ' <<<"$out")"; fi
rm -f "$T/w/"sub* "$T/argv"

echo ok >"$T/mode"
out=$(sub -- "--comment=a
rm -rf /" 2>&1); r=$?
if [ "$r" = 2 ] && grep -q 'control character' <<<"$out" && [ ! -e "$T/argv" ] && [ -z "$(files)" ]
then pass extra_newline_refused
else fail extra_newline_refused "exit $r, files: $(files): $(tr '\n' ' ' <<<"$out")"; fi

# run --dry-run on a login node: no allocation, the site file, a plan for --nodes N
export GCBENCH_HOME=$T/home
mkdir -p "$GCBENCH_HOME"; printf 'slurm: true\niface: eth0\n' >"$GCBENCH_HOME/slurm.yaml"
out=$(cd "$T/w" && env -u SLURM_JOB_ID "$G" run s.yaml --dry-run --nodes 4 --gpus-per-node 2 --db r.db 2>&1); r=$?
if [ "$r" = 0 ] && [ "$(grep -c '^  node[1-4] *srun step, shapes eth0$' <<<"$out")" = 4 ] &&
   grep -q 'placement 2 nodes x 1 rank (node1:1,node2:1)' <<<"$out" &&
   grep -q 'a plan for a SLURM job of 4 nodes, 2 GPUs per node' <<<"$out" &&
   [ -z "$(files)" ] && [ "$(ls "$GCBENCH_HOME")" = slurm.yaml ]
then pass run_dry_run_plans_job
else fail run_dry_run_plans_job "exit $r, files '$(files)' '$(ls "$GCBENCH_HOME" | tr '\n' ' ')': $(tr '\n' ' ' <<<"$out")"; fi
bad=""
out=$(cd "$T/w" && env -u SLURM_JOB_ID "$G" run s.yaml --dry-run --inventory slurm --db r.db 2>&1); r=$?
[ "$r" = 2 ] && grep -q 'outside an allocation needs the job.s size: add --nodes N' <<<"$out" || bad="$bad [no --nodes: exit $r: $out]"
out=$(cd "$T/w" && env -u SLURM_JOB_ID "$G" run s.yaml --nodes 4 --db r.db 2>&1); r=$?
[ "$r" = 2 ] && grep -q 'add --dry-run' <<<"$out" || bad="$bad [no --dry-run: exit $r: $out]"
printf 'local: 2\n' >"$T/local.yaml"
out=$(cd "$T/w" && "$G" run s.yaml --dry-run --nodes 2 --inventory "$T/local.yaml" --db r.db 2>&1); r=$?
[ "$r" = 2 ] && grep -q 'drop --nodes' <<<"$out" || bad="$bad [local inventory: exit $r: $out]"
[ -z "$(files)" ] || bad="$bad [files: $(files)]"
[ -z "$bad" ] && pass run_dry_run_needs_nodes || fail run_dry_run_needs_nodes "$bad"
