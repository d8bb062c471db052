#!/usr/bin/env bash
# tests/integration/test_slurm_submit.sh: `gcbench submit` against a stand-in sbatch on
# PATH (no SLURM needed): --dry-run prints the script and the sbatch command and writes
# or submits nothing; --account/--qos/--constraint/--reservation are #SBATCH lines and
# what follows `--` reaches sbatch's argv; a failed sbatch leaves no script; a job whose
# batch host cannot see gcbench's bin folder (hidden there by a mount namespace) fails
# at its first lines with a message that `submit --wait` prints from the job's log; a
# job that failed before its log existed is said so, with the likely reason; a line
# break in an sbatch argument is refused before anything is written.
. "$(dirname "$0")/../lib.sh"
cases="dry_run_submits_nothing options_reach_sbatch failed_sbatch_leaves_nothing
wait_prints_log wait_without_log extra_newline_refused"
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
