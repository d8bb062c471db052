#!/usr/bin/env bash
# tests/integration/test_validation_specs.sh: the specs tools/validation-table.sh runs
# (docs/model.md, "How far to trust it") load and place on the local cluster's
# inventory, each with the points its comment counts, and the script refuses what it
# does not know.
#   spec_<name>     gcbench run SPEC --dry-run: exit 0 and N point keys
#   table_unknown   tools/validation-table.sh --only bogus: exit 2, naming the sets
#   table_help      tools/validation-table.sh --help: exit 0, the usage line
. "$(dirname "$0")/../lib.sh"
G=$BIN/gcbench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-valspecs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
specs="quickstart:16 heldout:8 heldout-scale:9 heldout-pack:3 heldout-net:6 heldout-trace:6 heldout-bg:6"

if [ ! -x "$G" ]; then
	for s in $specs; do skip "spec_${s%%:*}" "$G is not built (make)"; done
	exit 0
fi
names=""
for s in $specs; do names="$names spec_${s%%:*}"; done
if need_root $names table_unknown; then   # the local inventory's dry run needs root
	for s in $specs; do
		name=${s%%:*} want=${s##*:}
		out=$("$G" run "experiments/$name.yaml" --inventory experiments/inventory-local.yaml \
			--dry-run --db "$tmp/$name.db" 2>&1); rc=$?
		got=$(grep -c '^      key ' <<<"$out")
		if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then pass "spec_$name"
		else fail "spec_$name" "rc $rc, $got points (want $want): $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	done
	out=$(tools/validation-table.sh --only bogus 2>&1); rc=$?
	if [ $rc -eq 2 ] && grep -q "no set 'bogus' (caps, scale, pack, slow, trace, bg)" <<<"$out"; then pass table_unknown
	else fail table_unknown "rc $rc: $out"; fi
fi
out=$(tools/validation-table.sh --help 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "sudo tools/validation-table.sh \[--fit DB\]" <<<"$out"; then pass table_help
else fail table_help "rc $rc: $(head -n 3 <<<"$out")"; fi
