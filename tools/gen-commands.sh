#!/usr/bin/env bash
# tools/gen-commands.sh: print docs/commands.md, the reference of every command, from the
# binaries' own --help (BIN=build/bin by default), in the order of
# orchestrator/cli/commands.def. tools/doc-check.sh fails when docs/commands.md differs:
#   tools/gen-commands.sh >docs/commands.md
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin}
# the exit status table every --help ends with is printed once, at the top
strip_exit() { awk '/^exit status \(every gcbench command\):/ { exit } { print }'; }
fence() { echo '```'; sed -e 's/[[:space:]]*$//'; echo '```'; }

cat <<'HEAD'
# Commands

Generated from the programs' `--help` by `tools/gen-commands.sh`; `tools/doc-check.sh`
(run by `make test`) fails when this page and the binaries differ. The same text is in
`gcbench help CMD` and the man pages (`man gcbench`). Words: docs/glossary.md; renamed
options: docs/options.md.

HEAD
echo '## gcbench'
echo
"$BIN/gcbench" --help 2>&1 | fence
for cmd in $(sed -n 's/^GC_CMD(\([a-z]*\),.*/\1/p' orchestrator/cli/commands.def); do
	echo
	echo "## gcbench $cmd"
	echo
	"$BIN/gcbench" "$cmd" --help 2>&1 | strip_exit | fence
done
for prog in gcbench-worker gcbench-netem; do
	echo
	echo "## $prog"
	echo
	"$BIN/$prog" --help 2>&1 | strip_exit | fence
done
