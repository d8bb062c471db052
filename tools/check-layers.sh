#!/usr/bin/env bash
# tools/check-layers.sh: fail on an #include that goes against the layers of
# docs/CONTRIBUTING.md ("Layers"), and on a library header included outside the
# component that owns it (SQLite only in db/, libnl only in netem/, ...).
#
#   tools/check-layers.sh [--root DIR] [-v]
#   tools/check-layers.sh --order     orchestrator's parts, highest first ("cli > ...")
#
# Reads every .c .h .cu .cuh file below the components of DIR (default: the tree this
# script is in). A quoted include is resolved the way the compiler finds it: beside the
# including file, else from the top of the tree, else in common/ (-Icommon). Exit 0 when
# every include is allowed, 1 with one line per offending include (FILE:LINE: ...), 2 on
# a usage error. make test runs it (tests/integration/test_layers.sh).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
verbose=0
order_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=${2:?--root needs a folder}; shift 2 ;;
	-v) verbose=1; shift ;;
	--order) order_only=1; shift ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-layers: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ -d "$root" ] || { echo "check-layers: no folder '$root'" >&2; exit 2; }

# The layers, lowest first: a component may include itself and what its line names.
# Keep this table and docs/CONTRIBUTING.md's in step.
declare -A may=(
	[common]=""
	[formats]="common"
	[kernels]="common formats"
	[netem]="common"
	[worker]="common formats kernels"
	[db]="common formats"
	[model]="common formats kernels db"
	[report]="common formats kernels db model"
	[orchestrator]="common formats kernels netem worker db model report"
)
# Inside orchestrator/ its parts are floors too, highest first: a part may include
# itself and the parts after it (docs/CONTRIBUTING.md writes the same order).
orch_order="cli run ops remote spec"
# The command-line front end (cli/) is the top: nothing else includes it.
top_only="orchestrator/cli"

# Library headers and the components that own them (a prefix of the header's name).
owners=(
	"sqlite3.h:db"
	"netlink/:netem"
	"yaml.h:orchestrator/spec"
	"curl/:orchestrator/ops"
	"mpi.h:worker"
	"nccl.h:worker"
)

if [ $order_only -eq 1 ]; then
	echo "$orch_order" | sed 's/ / > /g'
	exit 0
fi

cd "$root" || exit 2
files=$(find "${!may[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
	2>/dev/null | sort)
n=$(echo "$files" | grep -c .)
rules=$(for c in "${!may[@]}"; do echo "$c ${may[$c]}"; done)

# One pass over every file: resolve each quoted include, check it against the rules.
out=$(awk -v rules="$rules" -v owners="${owners[*]}" -v top="$top_only" -v order="$orch_order" \
	-v verbose=$verbose '
function dirof(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
function compof(p) { return p ~ /\// ? substr(p, 1, index(p, "/") - 1) : p }
# orchestrator/PART of a path below orchestrator/ ("orchestrator" for a file directly in it)
function partof(p,   q) {
	q = substr(p, 14)
	return q ~ /\// ? "orchestrator/" substr(q, 1, index(q, "/") - 1) : "orchestrator"
}
# a/b/../c -> a/c, ./a -> a
function norm(p) {
	while (sub(/\/\.\//, "/", p)) ;
	sub(/^\.\//, "", p)
	while (match(p, /[^\/]+\/\.\.\//) && substr(p, RSTART, 3) != "../")
		p = substr(p, 1, RSTART - 1) substr(p, RSTART + RLENGTH)
	return p
}
function resolve(f, name,   d) {
	d = dirof(f)
	if (norm(d "/" name) in exists) return norm(d "/" name)
	if (name in exists) return name
	if (("common/" name) in exists) return "common/" name
	return ""
}
BEGIN {
	nr = split(rules, rl, "\n")
	for (i = 1; i <= nr; i++) {
		k = split(rl[i], w, " ")
		allow[w[1], w[1]] = 1; list[w[1]] = ""
		for (j = 2; j <= k; j++) { allow[w[1], w[j]] = 1; list[w[1]] = list[w[1]] " " w[j] }
	}
	no = split(owners, ol, " ")
	np = split(order, po, " ")
	order_text = order; gsub(/ /, " > ", order_text)
	for (i = 1; i <= np; i++) {
		rank["orchestrator/" po[i]] = i; below[po[i]] = ""
		for (j = i + 1; j <= np; j++) below[po[i]] = below[po[i]] " " po[j]
	}
}
NR == FNR { exists[$0] = 1; next }
/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
	f = FILENAME; from = compof(f)
	line = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
	q = substr(line, 1, 1); name = substr(line, 2); sub(/[">].*$/, "", name)
	if (q == "<") {
		for (i = 1; i <= no; i++) {
			pre = ol[i]; sub(/:.*/, "", pre); own = ol[i]; sub(/^[^:]*:/, "", own)
			if (index(name, pre) == 1 && index(f, own "/") != 1)
				printf "%s:%d: includes <%s>, which only %s/ may use\n", f, FNR, name, own
		}
		next
	}
	if (name ~ /\.(inc|def)$/) next
	to = resolve(f, name)
	if (to == "") {
		printf "%s:%d: includes \"%s\", which is not in the tree (give its path from the top, e.g. \"db/db.h\")\n", f, FNR, name
		next
	}
	tc = compof(to)
	if (!((from, tc) in allow))
		printf "%s:%d: %s/ includes \"%s\": %s/ may include only%s\n", f, FNR, from, to, from, list[from] == "" ? " itself" : list[from]
	else if (index(to, top "/") == 1 && index(f, top "/") != 1)
		printf "%s:%d: includes \"%s\": only %s/ may include the command-line front end\n", f, FNR, to, top
	else if (from == "orchestrator" && tc == "orchestrator" && partof(f) != partof(to) &&
		 rank[partof(f)] >= rank[partof(to)]) {
		p = substr(partof(f), 14)
		printf "%s:%d: %s/ includes \"%s\": orchestrator/%s/ may include only%s (%s)\n", \
			f, FNR, partof(f), to, p, below[p] == "" ? " itself" : below[p], order_text
	}
	else if (verbose)
		printf "ok %s -> %s\n", f, to
}
' <(find . -path ./.git -prune -o -type f -print | sed 's|^\./||') $files)
bad=$(echo "$out" | grep -vc '^ok \|^$')
[ -n "$out" ] && echo "$out"

if [ $bad -gt 0 ]; then
	echo "check-layers: $bad include(s) against the layers in $n files (docs/CONTRIBUTING.md, Layers)" >&2
	exit 1
fi
echo "check-layers: $n files, every include within the layers"
