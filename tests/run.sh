#!/usr/bin/env bash
# tests/run.sh: run test programs and scripts, count their PASS/FAIL/SKIP lines, and
# end with "N passed, N failed, N skipped" (before it, how many of the skipped name an
# optional package of tools/deps.sh --extra: make deps-extra).
#
# Usage: tests/run.sh [-t SECONDS] [-l] PROGRAM_OR_SCRIPT...
#   -l  after each script, compare what is up (tests/leftovers.sh: namespaces, bridges,
#       sshd in a namespace, slurmd, slurmctld, munged) with what it found, and end with
#       one more test, leftovers/nothing_left_up, that fails naming each script and what
#       it left (`make test` passes -l; other runs on a shared machine would count what
#       someone else brings up meanwhile)
# Every program prints one line per test (see tests/harness.h, tests/lib.sh). A program
# that exits non-zero without printing FAIL (a crash, a sanitizer report, a timeout)
# counts as one failure, with the tail of its output shown.
# Each program runs in its own session (setsid): when it times out, or run.sh itself is
# told to stop (TERM, INT, HUP: an outer timeout), every process of that session is
# killed, those in the process groups of nested timeouts included, so nothing it
# started outlives it.
set -u
timeout_s=${GCBENCH_TEST_TIMEOUT:-900}
leftovers=0
while [ $# -gt 0 ]; do
	case $1 in
	-t) timeout_s=$2; shift 2 ;;
	-l) leftovers=1; shift ;;
	*) break ;;
	esac
done
LO=$(dirname "$0")/leftovers.sh
left=""
# the optional packages (tools/deps.sh --list-extra): a SKIP that names one is counted
extra=$("$(dirname "$0")/../tools/deps.sh" --list-extra 2>/dev/null | tr '\n' '|')
extra=${extra%|}
optional=0

pass=0 fail=0 skip=0
logdir=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT
child=""
ssid=$(command -v setsid)
# session_pids SID: the live processes of session SID (zombies left out), from /proc
# (no procps needed)
session_pids() {
	local f l st s p
	for f in /proc/[0-9]*/stat; do
		{ read -r l <"$f"; } 2>/dev/null || continue
		read -r st _ _ s _ <<<"${l##*) }"
		[ "$s" = "$1" ] && [ "$st" != Z ] && { p=${f#/proc/}; echo "${p%/stat}"; }
	done
}
# kill_session SID: every process left in the program's session (TERM, then KILL)
kill_session() {
	local p
	p=$(session_pids "$1")
	[ -n "$p" ] || return 0
	kill -TERM $p 2>/dev/null
	sleep 1
	p=$(session_pids "$1")
	[ -n "$p" ] && kill -KILL $p 2>/dev/null
	return 0
}
stop_child() {
	[ -n "$child" ] || return 0
	kill_session "$child"
	kill -KILL -- "-$child" "$child" 2>/dev/null
	child=""
}
for sig in TERM INT HUP; do
	trap "stop_child; echo 'run.sh: stopped by SIG$sig' >&2; exit 143" "$sig"
done

for t in "$@"; do
	name=$(basename "$t")
	log="$logdir/$name.log"
	start=$(date +%s)
	script=0
	[ "${t##*.}" = sh ] && [ "$leftovers" = 1 ] && script=1 && "$LO" snapshot >"$logdir/before"
	# in the background, so that a signal's trap runs at once (bash defers traps until a
	# foreground command returns)
	if [ -x "$t" ] && [ "${t##*.}" != sh ]; then
		$ssid timeout --kill-after=10 "$timeout_s" "$t" >"$log" 2>&1 </dev/null &
	else
		$ssid timeout --kill-after=10 "$timeout_s" bash "$t" >"$log" 2>&1 </dev/null &
	fi
	child=$!
	wait "$child"
	rc=$?
	# timed out: what it started in other process groups goes too
	[ -n "$ssid" ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && kill_session "$child"
	child=""
	p=$(grep -c '^PASS ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	s=$(grep -c '^SKIP ' "$log")
	grep -E '^(PASS|FAIL|SKIP) ' "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then why="timed out after ${timeout_s}s"; else why="exited $rc"; fi
		echo "FAIL $name: $why without reporting a failure; last output:"
		tail -n 20 "$log" | sed 's/^/    /'
		f=$((f + 1))
	elif [ "$f" -gt 0 ]; then
		echo "---- $name: output around failures:"
		grep -v -E '^(PASS|SKIP) ' "$log" | tail -n 30 | sed 's/^/    /'
	fi
	if [ "$script" = 1 ]; then   # a daemon may take a moment to go after its namespace
		for _ in 1 2 3; do
			"$LO" snapshot >"$logdir/after"
			new=$("$LO" new "$logdir/before" "$logdir/after")
			[ -z "$new" ] && break
			sleep 1
		done
		[ -n "$new" ] && left="$left; $name left $(tr '\n' ',' <<<"$new" | sed 's/,$//')"
	fi
	[ -n "$extra" ] && optional=$((optional + $(grep '^SKIP ' "$log" | grep -cwE "$extra")))
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	echo "# $name: $p passed, $f failed, $s skipped ($(( $(date +%s) - start ))s)" >&2
done
if [ "$leftovers" = 1 ]; then
	if [ -z "$left" ]; then echo "PASS leftovers/nothing_left_up"; pass=$((pass + 1))
	else echo "FAIL leftovers/nothing_left_up: ${left#; } (take each down: gcbench cluster down --name NAME)"; fail=$((fail + 1)); fi
fi
[ "$optional" -gt 0 ] && echo "# $optional of the $skip skipped need an optional package ($(tr '|' ' ' <<<"$extra")): make deps-extra installs them"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
