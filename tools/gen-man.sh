#!/usr/bin/env bash
# tools/gen-man.sh OUTDIR: man pages (section 1), as git has them: gcbench(1), one page
# per command (gcbench-run(1), gcbench-submit(1), ...: the command's --help), and
# gcbench-worker(1) and gcbench-netem(1), made from the programs' --help (BIN=build/bin
# by default). Every page has ENVIRONMENT (from docs/environment.md, "What gcbench
# reads"), FILES and EXIT STATUS. `make man` writes them to build/man, `make install`
# installs them, so that `man gcbench-run` works. help2man is not needed.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin}
out=${1:?usage: tools/gen-man.sh OUTDIR}
mkdir -p "$out"
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
version=$("$BIN/gcbench" --version 2>/dev/null | head -n 1 || echo gcbench)
cmds=$(sed -n 's/^GC_CMD(\([a-z]*\),.*/\1/p' orchestrator/cli/commands.def)

# roff-escape text: backslashes, leading dots and quotes
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
block() { echo '.nf'; esc; echo '.fi'; }

page() { # NAME SUMMARY
	echo ".TH $(tr a-z A-Z <<<"$1") 1 \"$date\" \"$version\" \"gcbench\""
	echo '.SH NAME'
	echo "$1 \\- $(esc <<<"$2")"
	echo '.SH DESCRIPTION'
}

# ENVIRONMENT: the rows of docs/environment.md's "What gcbench reads" table
environment() {
	echo '.SH ENVIRONMENT'
	awk -F' [|] ' '/^## / { on = ($0 ~ /What gcbench reads/) } on && /^[|] `GCBENCH_/ {
		gsub(/^[|] /, "", $1); gsub(/ [|]$/, "", $3); print $1 "\t" $3 }' docs/environment.md |
	while IFS=$'\t' read -r var effect; do
		echo '.TP'
		echo ".B $(tr -d '`' <<<"$var" | esc)"
		tr -d '`' <<<"$effect" | esc
	done
	echo '.PP'
	echo 'Every variable, and what gcbench sets for a workload: docs/environment.md.'
}

files() {
	echo '.SH FILES'
	cat <<'EOF'
.TP
.B $GCBENCH_HOME
gcbench's folder on the controller: /var/lib/gcbench for root, else
~/.local/share/gcbench. It holds clusters/NAME (a local cluster's keys, ssh_config,
inventory.yaml), locks/, ssh/ (ControlMaster sockets), fetch/ and slurm.yaml.
.TP
.B /etc/gcbench/slurm.yaml
the SLURM site file (slurm: true, iface: NAME), when GCBENCH_HOME has none.
.TP
.B gcbench.db
the results database in the current folder, unless --db says otherwise.
.TP
.B /run/gcbench/netem
gcbench-netem's record of the links it shaped (root), for restore-all.
EOF
}

# EXIT STATUS: the table every gcbench command shares, from gcbench --help
exit_status() {
	echo '.SH "EXIT STATUS"'
	"$BIN/gcbench" --help 2>&1 | awk '/^exit status \(every gcbench command\):/ { on = 1; next } on' | block
}

see_also() { # PAGES...
	echo '.SH "SEE ALSO"'
	echo "$*; docs/guide.md and docs/glossary.md in the source."
}

{
	page gcbench "benchmark gradient compression on a real or emulated cluster"
	"$BIN/gcbench" --help 2>&1 | awk '/^exit status \(every gcbench command\):/ { exit } { print }' | block
	echo '.SH COMMANDS'
	for cmd in $cmds; do
		echo '.TP'
		echo ".BR gcbench\\-$cmd (1)"
		sed -n "s/^GC_CMD($cmd, [a-z_]*, \"\\(.*\\)\")\$/\\1/p" orchestrator/cli/commands.def | esc
	done
	environment
	files
	exit_status
	see_also "$(for c in $cmds; do printf 'gcbench-%s(1), ' "$c"; done)gcbench-worker(1), gcbench-netem(1)"
} >"$out/gcbench.1"

for cmd in $cmds; do
	{
		page "gcbench-$cmd" "$(sed -n "s/^GC_CMD($cmd, [a-z_]*, \"\\(.*\\)\")\$/\\1/p" orchestrator/cli/commands.def)"
		"$BIN/gcbench" "$cmd" --help 2>&1 |
			awk '/^exit status \(every gcbench command\):/ { exit } { print }' | block
		environment
		files
		exit_status
		see_also "gcbench(1)"
	} >"$out/gcbench-$cmd.1"
done

{
	page gcbench-worker "one rank of data-parallel training with gradient compression (MPI or NCCL)"
	"$BIN/gcbench-worker" --help 2>&1 | block
	environment
	echo '.SH FILES'
	echo 'The record file of --out (docs/records.md).'
	echo '.SH "EXIT STATUS"'
	echo '0 when every iteration ran; non-zero with the reason on stderr otherwise.'
	see_also "gcbench(1), gcbench-run(1)"
} >"$out/gcbench-worker.1"
{
	page gcbench-netem "cap and read back a host's bandwidth and latency (tc through libnl)"
	"$BIN/gcbench-netem" --help 2>&1 | block
	environment
	files
	echo '.SH "EXIT STATUS"'
	echo '0 when the change was made or the query answered; non-zero with the reason on stderr otherwise.'
	see_also "gcbench(1), gcbench-run(1)"
} >"$out/gcbench-netem.1"
