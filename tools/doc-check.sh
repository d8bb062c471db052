#!/usr/bin/env bash
# tools/doc-check.sh: the documents cannot drift from the programs.
#
#   tools/doc-check.sh [links|blocks|commands|env|all]  (default all; BIN=build/bin)
#
# links     every relative link in README.md and docs/*.md resolves to a file inside
#           the repository, every `docs/NAME.md` a text names exists, and no document
#           points outside the repository (../shared, /work/, $GCBENCH_SHARED).
# blocks    every fenced block marked runnable runs: ```sql runnable blocks with
#           sqlite3 -bail against a small results database (gcbench.db, built by
#           build/tests/test_report --make-db), ```sh runnable blocks with bash -e in
#           the same scratch folder (experiments/ and tools/ linked into it), with
#           BIN first in PATH. A failing block is named
#           FILE:LINE with its output.
# commands  docs/commands.md is what tools/gen-commands.sh prints for these binaries,
#           and every command of orchestrator/cli/commands.def has a section in it.
#
# env       docs/environment.md names every GCBENCH_* variable the sources use (C,
#           shell, Python, make files; ENV_SOURCES="FILE..." checks those instead), and
#           none they do not (but GCBENCH_SHARED, which links keeps out of the docs).
#
# DOC_FILES="A.md B.md" checks those files (paths from the top) instead.
# Prints one line per problem and "doc-check: N problems"; exit 0 only with none.
set -u
cd "$(dirname "$0")/.." || exit 2
root=$(pwd -P)
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/bin}
what=${1:-all}
problems=0
docs=${DOC_FILES:-"README.md docs/*.md"}

problem() { echo "doc-check: $*"; problems=$((problems + 1)); }

check_links() {
	local f dir target path line
	for f in $docs; do
		dir=$(dirname "$f")
		# [text](target): relative targets must exist inside the repository
		while IFS= read -r target; do
			case "$target" in
			http://* | https://* | mailto:* | \#*) continue ;;
			esac
			path=${target%%#*}
			[ -n "$path" ] || continue
			if [ ! -e "$dir/$path" ]; then
				problem "$f: link '$target' does not resolve"
			else
				case "$(cd "$dir" && realpath -m "$path")" in
				"$root" | "$root"/*) ;;
				*) problem "$f: link '$target' leaves the repository" ;;
				esac
			fi
		done < <(grep -o '\](\([^)]*\))' "$f" | sed 's/^](\(.*\))$/\1/')
		# docs/NAME.md named in the text
		while IFS= read -r path; do
			[ -e "$path" ] || problem "$f: names '$path', which does not exist"
		done < <(grep -o 'docs/[A-Za-z0-9_-]*\.md' "$f" | sort -u)
		while IFS= read -r line; do
			problem "$f:$line: points outside the repository"
		done < <(grep -n -e '\.\./shared' -e '/work/' -e 'GCBENCH_SHARED' "$f" | cut -d: -f1)
	done
}

# Prints "FILE LINE KIND" then the block's lines, NUL-separated blocks.
extract_blocks() {
	awk '
	FNR == 1 { inb = 0 }
	/^ *```(sql|sh) runnable *$/ && !inb {
		inb = 1; kind = ($0 ~ /sql/) ? "sql" : "sh"; start = FNR
		body = ""; next
	}
	/^ *```/ && inb {
		inb = 0; printf "%s %d %s\n%s%c", FILENAME, start, kind, body, 0; next
	}
	inb { sub(/^   /, ""); body = body $0 "\n" }
	' $docs
}

check_blocks() {
	local tmp n=0 hdr body f l kind out
	if [ ! -x "$BUILD/tests/test_report" ] || [ ! -x "$BIN/gcbench" ]; then
		problem "blocks: build $BIN/gcbench and $BUILD/tests/test_report first (make)"
		return
	fi
	command -v sqlite3 >/dev/null || { problem "blocks: sqlite3 is not installed"; return; }
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/doc-check.XXXXXX")
	trap 'rm -rf "$tmp"' RETURN
	if ! "$BUILD/tests/test_report" --make-db "$tmp/gcbench.db" 1 >"$tmp/make.out" 2>&1 ||
	   ! (cd "$tmp" && PATH="$root/$BIN:$PATH" gcbench model --db gcbench.db) >>"$tmp/make.out" 2>&1; then
		problem "blocks: cannot build the example database: $(tail -n 3 "$tmp/make.out")"
		return
	fi
	# blocks name the project's files as from the top (experiments/, tools/)
	ln -s "$root/experiments" "$tmp/experiments" && ln -s "$root/tools" "$tmp/tools"
	while IFS= read -r -d '' blk; do
		hdr=${blk%%$'\n'*}
		body=${blk#*$'\n'}
		read -r f l kind <<<"$hdr"
		n=$((n + 1))
		if [ "$kind" = sql ]; then
			out=$(cd "$tmp" && sqlite3 -bail gcbench.db <<<"$body" 2>&1) ||
				problem "$f:$l: sql block fails: $(head -c 400 <<<"$out" | tr "\n" " ")"
		else
			out=$(cd "$tmp" && PATH="$root/$BIN:$PATH" GCBENCH_HOME="$tmp/home" \
				bash -e -o pipefail <<<"$body" 2>&1) ||
				problem "$f:$l: sh block fails: $(tail -c 400 <<<"$out" | tr "\n" " ")"
		fi
	done < <(extract_blocks)
	echo "doc-check: $n runnable blocks"
	[ "$n" -gt 0 ] || problem "blocks: no block is marked runnable"
}

check_commands() {
	local cmd gen
	[ -x "$BIN/gcbench" ] || { problem "commands: build $BIN/gcbench first (make)"; return; }
	gen=$(BIN=$BIN tools/gen-commands.sh) || { problem "commands: tools/gen-commands.sh failed"; return; }
	if [ "$gen" != "$(cat docs/commands.md 2>/dev/null)" ]; then
		problem "docs/commands.md differs from the binaries' --help: run 'tools/gen-commands.sh >docs/commands.md'"
		diff <(echo "$gen") docs/commands.md | head -n 10
	fi
	for cmd in $(sed -n 's/^GC_CMD(\([a-z]*\),.*/\1/p' orchestrator/cli/commands.def); do
		grep -q "^## gcbench $cmd\$" docs/commands.md ||
			problem "docs/commands.md has no section '## gcbench $cmd'"
	done
}

# every GCBENCH_* name in the sources is in docs/environment.md, and only those
check_env() {
	local used listed v
	if [ -n "${ENV_SOURCES:-}" ]; then
		# shellcheck disable=SC2086
		used=$(cat $ENV_SOURCES 2>/dev/null | grep -oE 'GCBENCH_[A-Z0-9_]*[A-Z0-9]' | sort -u)
	else
		used=$(git ls-files -- '*.c' '*.h' '*.cu' '*.sh' '*.py' '*.mk' Makefile 2>/dev/null |
			xargs grep -ohE 'GCBENCH_[A-Z0-9_]*[A-Z0-9]' 2>/dev/null | sort -u)
	fi
	# GCBENCH_SHARED, the reference data outside the tree, is the links check's to keep
	# out of the docs
	used=$(grep -vx GCBENCH_SHARED <<<"$used")
	listed=$(grep -oE 'GCBENCH_[A-Z0-9_]*[A-Z0-9]' docs/environment.md 2>/dev/null | sort -u)
	for v in $used; do
		grep -qx "$v" <<<"$listed" || problem "docs/environment.md does not name $v (used in the sources)"
	done
	[ -n "${ENV_SOURCES:-}" ] && return
	for v in $listed; do
		grep -qx "$v" <<<"$used" || problem "docs/environment.md names $v, which no source uses"
	done
}

case "$what" in
env) check_env ;;
links) check_links ;;
blocks) check_blocks ;;
commands) check_commands ;;
all) check_links; check_blocks; check_commands; check_env ;;
*) echo "usage: tools/doc-check.sh [links|blocks|commands|env|all]" >&2; exit 2 ;;
esac
echo "doc-check: $problems problems"
[ "$problems" -eq 0 ]
