#!/usr/bin/env bash
# tools/gen-man.sh OUTDIR: man pages (section 1) for gcbench, gcbench-worker and
# gcbench-netem, made from their --help (BIN=build/bin by default); gcbench's page holds
# every command's --help. `make man` writes them to build/man, `make install` installs
# them. help2man is not needed.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin}
out=${1:?usage: tools/gen-man.sh OUTDIR}
mkdir -p "$out"
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
version=$("$BIN/gcbench" --version 2>/dev/null | head -n 1 || echo gcbench)

# roff-escape text: backslashes, leading dots and quotes
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
block() { echo '.nf'; esc; echo '.fi'; }

page() { # NAME SUMMARY
	echo ".TH $(tr a-z A-Z <<<"$1") 1 \"$date\" \"$version\" \"gcbench\""
	echo '.SH NAME'
	echo "$1 \\- $2"
	echo '.SH DESCRIPTION'
}

{
	page gcbench "benchmark gradient compression on a real or emulated cluster"
	"$BIN/gcbench" --help 2>&1 | block
	for cmd in $(sed -n 's/^GC_CMD(\([a-z]*\),.*/\1/p' orchestrator/cli/commands.def); do
		echo ".SH \"GCBENCH $(tr a-z A-Z <<<"$cmd")\""
		"$BIN/gcbench" "$cmd" --help 2>&1 |
			awk '/^exit status \(every gcbench command\):/ { exit } { print }' | block
	done
	echo '.SH "SEE ALSO"'
	echo 'gcbench-worker(1), gcbench-netem(1); docs/guide.md and docs/glossary.md in the source.'
} >"$out/gcbench.1"
{
	page gcbench-worker "one rank of data-parallel training with gradient compression (MPI or NCCL)"
	"$BIN/gcbench-worker" --help 2>&1 | block
	echo '.SH "SEE ALSO"'
	echo 'gcbench(1)'
} >"$out/gcbench-worker.1"
{
	page gcbench-netem "cap and read back a host's bandwidth and latency (tc through libnl)"
	"$BIN/gcbench-netem" --help 2>&1 | block
	echo '.SH "SEE ALSO"'
	echo 'gcbench(1)'
} >"$out/gcbench-netem.1"
