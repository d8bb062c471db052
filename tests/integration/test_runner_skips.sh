#!/usr/bin/env bash
# tests/integration/test_runner_skips.sh: tests/run.sh says how many of the skipped
# tests name an optional package (tools/deps.sh --list-extra, what `make deps-extra`
# installs), before its unchanged last line; none of them: no such line.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-skips.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/a.sh" <<'SH'
echo "PASS a/one"
echo "SKIP a/torch: no python3 imports torch (apt-get install python3-torch)"
echo "SKIP a/slurm: SLURM is not installed ('slurmd' is missing): apt-get install -y slurmctld slurmd slurm-client munge"
echo "SKIP a/root: needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN)"
echo "SKIP a/mungedx: mungedx and torchy are not packages of tools/deps.sh"
SH
out=$(cd "$tmp" && "$ROOT/tests/run.sh" a.sh 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -q '^# 2 of the 4 skipped need an optional package (clang .*munge): make deps-extra installs them$' <<<"$out" &&
   [ "$(tail -n 1 <<<"$out")" = "1 passed, 0 failed, 4 skipped" ]
then pass optional_skips_counted
else fail optional_skips_counted "rc $rc: $(tr '\n' ' ' <<<"$out")"; fi
printf 'echo "SKIP b/root: needs root"\n' >"$tmp/b.sh"
out=$(cd "$tmp" && "$ROOT/tests/run.sh" b.sh 2>&1)
! grep -q 'optional package' <<<"$out" && pass no_line_without_them || fail no_line_without_them "$out"
grep -q 'make deps-extra' "$ROOT/README.md" && grep -q '^deps-extra:' "$ROOT/Makefile" &&
	pass readme_names_target || fail readme_names_target "README or Makefile lacks deps-extra"
