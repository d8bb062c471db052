#!/usr/bin/env bash
# tests/integration/test_leftovers.sh: `tests/run.sh -l` (what `make test` runs) names
# each script that leaves something up. Two scripts run under it: one leaves a network
# namespace and an sshd inside it, the other nothing; the suite's last test must fail
# naming the first script and both things it left, and not the second; the same
# scripts' own results are counted as before. Without -l there is no such test.
. "$(dirname "$0")/../lib.sh"
cases="names_what_was_left clean_script_not_named counted_as_a_test off_without_flag"
need_root $cases || exit 0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gcbench-leftovers.XXXXXX)
ns=gcblo$$
cleanup() {
	local p
	for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cp "$(command -v sleep)" "$tmp/sshd"   # a daemon by its name, as ps shows it
cat >"$tmp/leaky.sh" <<SH
ip netns add $ns && setsid ip netns exec $ns $tmp/sshd 120 </dev/null >/dev/null 2>&1 &
sleep 1; echo "PASS leaky/ok"
SH
echo 'echo "PASS clean/ok"' >"$tmp/clean.sh"
out=$(cd "$tmp" && "$ROOT/tests/run.sh" -l leaky.sh clean.sh 2>&1); rc=$?
line=$(grep '^FAIL leftovers/nothing_left_up' <<<"$out")
pid=$(ip netns pids "$ns" 2>/dev/null | head -n 1)
if grep -q "leaky.sh left .*netns $ns" <<<"$line" && [ -n "$pid" ] && grep -q "proc sshd $pid" <<<"$line"
then pass names_what_was_left
else fail names_what_was_left "rc $rc, sshd pid '$pid': $(tr '\n' ' ' <<<"$out")"; fi
[ -n "$line" ] && ! grep -q "clean.sh left" <<<"$line" && pass clean_script_not_named ||
	fail clean_script_not_named "$line"
[ "$rc" -ne 0 ] && grep -q '^2 passed, 1 failed, 0 skipped$' <<<"$out" && pass counted_as_a_test ||
	fail counted_as_a_test "rc $rc: $(tail -n 1 <<<"$out")"
cleanup; mkdir -p "$tmp"; echo 'echo "PASS clean/ok"' >"$tmp/clean.sh"
out=$(cd "$tmp" && "$ROOT/tests/run.sh" clean.sh 2>&1); rc=$?
[ "$rc" -eq 0 ] && ! grep -q leftovers <<<"$out" && grep -q '^1 passed, 0 failed' <<<"$out" &&
	pass off_without_flag || fail off_without_flag "rc $rc: $(tr '\n' ' ' <<<"$out")"
