#!/usr/bin/env bash
# tests/integration/test_layers.sh: tools/check-layers.sh passes on this tree, and fails,
# naming the file and line, on a copy of it given an include against the layers, a
# library header outside its owner, an include against orchestrator's inner order, and
# an include that is not in the tree; the order it enforces is the one CONTRIBUTING writes.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
chk=$top/tools/check-layers.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-layers.XXXXXX")
trap 'rm -rf "$work"' EXIT

if out=$("$chk" 2>&1); then pass tree
else fail tree "$(echo "$out" | head -n 8 | tr '\n' ' ')"; fi

# the order the check enforces is the one docs/CONTRIBUTING.md writes
order=$("$chk" --order)
if [ -n "$order" ] && grep -qF "orchestrator's parts, highest first: \`$order\`" \
	"$top/docs/CONTRIBUTING.md"; then pass order_in_docs
else fail order_in_docs "docs/CONTRIBUTING.md does not write the order '$order' of tools/check-layers.sh"; fi

# copy_tree: the components' tracked files into $work/t (what the check reads)
copy_tree() {
	rm -rf "$work/t" && mkdir -p "$work/t"
	(cd "$top" && git ls-files -z -- common formats kernels netem worker db model report \
		orchestrator | tar --null -T - -cf -) | tar -xf - -C "$work/t"
}

# expect_bad NAME FILE LINE-TEXT WANT: FILE (in the copy) gets LINE-TEXT appended; the
# check must exit 1 and print FILE:LINE with WANT
expect_bad() {
	local name=$1 f=$2 text=$3 want=$4 out rc n
	copy_tree
	echo "$text" >>"$work/t/$f"
	n=$(wc -l <"$work/t/$f")
	out=$("$chk" --root "$work/t" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -qF "$f:$n: " <<<"$out" && grep -qF -- "$want" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "rc $rc (want 1), output lacks '$f:$n: ... $want': $(echo "$out" | head -n 4 | tr '\n' ' ')"
	fi
}

if [ ! -d "$top/.git" ] && ! git -C "$top" rev-parse >/dev/null 2>&1; then
	for c in upward db_reads_orchestrator sqlite_outside_db cli_from_below ops_reads_run \
		spec_reads_ops remote_reads_run_by_name unknown_include; do
		skip "$c" "not a git checkout (the copy is made from git ls-files)"
	done
	exit 0
fi
expect_bad upward common/log.c '#include "db/db.h"' 'common/ may include only itself'
expect_bad db_reads_orchestrator db/db.c '#include "orchestrator/run/run.h"' \
	'db/ may include only common formats'
expect_bad sqlite_outside_db model/model.c '#include <sqlite3.h>' 'which only db/ may use'
expect_bad cli_from_below orchestrator/run/run.c '#include "orchestrator/cli/commands.h"' \
	'only orchestrator/cli/ may include'
# orchestrator's own floors (docs/CONTRIBUTING.md: cli > run > ops > remote > spec)
expect_bad ops_reads_run orchestrator/ops/table.c '#include "orchestrator/run/run.h"' \
	'orchestrator/ops/ may include only remote spec'
expect_bad spec_reads_ops orchestrator/spec/spec.c '#include "orchestrator/ops/notify.h"' \
	'orchestrator/spec/ may include only itself'
expect_bad remote_reads_run_by_name orchestrator/remote/ssh.c '#include "../run/run.h"' \
	'orchestrator/remote/ may include only spec'
expect_bad unknown_include kernels/compress.c '#include "no_such_header.h"' 'not in the tree'
