#!/usr/bin/env bash
# tests/integration/test_docs.sh: the documents cannot drift (tools/doc-check.sh): every
# link resolves inside the repository, every ```sql runnable / ```sh runnable block runs
# against a small database, docs/commands.md is the binaries' --help, docs/environment.md
# names every GCBENCH_* variable of the sources, and the man pages
# (tools/gen-man.sh) hold every command and render. The checker must also fail when it
# should: a bad link, a link out of the tree, a failing SQL block.
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.." || exit 1

cases="links blocks commands env catches_bad_link catches_outside catches_bad_sql catches_bad_sh
catches_missing_env man_pages"
if [ ! -x "$BIN/gcbench" ] || [ ! -x "$BUILD/tests/test_report" ]; then
	for c in $cases; do skip "$c" "build $BIN/gcbench and $BUILD/tests/test_report first"; done
	exit 0
fi
if ! command -v sqlite3 >/dev/null; then
	for c in $cases; do skip "$c" "sqlite3 is not installed (apt-get install sqlite3)"; done
	exit 0
fi
tmp=$(mktemp -d "$BUILD/doc-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for what in links blocks commands env; do
	if out=$(BUILD=$BUILD BIN=$BIN tools/doc-check.sh $what 2>&1); then
		pass $what
	else
		fail $what "$(grep -v ' 0 problems' <<<"$out" | head -n 8 | tr '\n' ' ')"
	fi
done

# the checker fails on what it is for
printf 'see [x](no-such-file.md) and docs/nothing-here.md\n' >"$tmp/bad.md"
out=$(DOC_FILES="$tmp/bad.md" tools/doc-check.sh links 2>&1)
if [ $? -ne 0 ] && grep -q "link 'no-such-file.md' does not resolve" <<<"$out" &&
   grep -q "names 'docs/nothing-here.md'" <<<"$out"; then
	pass catches_bad_link
else
	fail catches_bad_link "$out"
fi
printf 'read [d](../../../../etc/hostname) and ../shared/DESIGN.md\n' >"$tmp/out.md"
out=$(DOC_FILES="$tmp/out.md" tools/doc-check.sh links 2>&1)
if [ $? -ne 0 ] && grep -q "points outside the repository" <<<"$out"; then
	pass catches_outside
else
	fail catches_outside "$out"
fi
printf '```sql runnable\nSELECT status FROM runs JOIN sweeps ON sweeps.id = runs.sweep_id;\n```\n' >"$tmp/sql.md"
out=$(DOC_FILES="$tmp/sql.md" BUILD=$BUILD BIN=$BIN tools/doc-check.sh blocks 2>&1)
if [ $? -ne 0 ] && grep -q "sql.md:1: sql block fails: .*ambiguous column name: status" <<<"$out"; then
	pass catches_bad_sql
else
	fail catches_bad_sql "$out"
fi

printf 'text\n\n```sh runnable\ngcbench status --db gcbench.db\ngcbench report --db gcbench.db --no-such-option\n```\n' >"$tmp/sh.md"
out=$(DOC_FILES="$tmp/sh.md" BUILD=$BUILD BIN=$BIN tools/doc-check.sh blocks 2>&1)
if [ $? -ne 0 ] && grep -q "sh.md:3: sh block fails: .*no-such-option" <<<"$out"; then
	pass catches_bad_sh
else
	fail catches_bad_sh "$out"
fi

undoc=NOT_DOCUMENTED_X
printf 'x = getenv("GCBENCH_%s"); /* GCBENCH_HOME */\n' "$undoc" >"$tmp/env.c"
out=$(ENV_SOURCES="$tmp/env.c" tools/doc-check.sh env 2>&1)
if [ $? -ne 0 ] && grep -q "does not name GCBENCH_$undoc" <<<"$out" && ! grep -q GCBENCH_HOME <<<"$out"; then
	pass catches_missing_env
else
	fail catches_missing_env "$out"
fi

# man pages: gcbench(1), one per command (gcbench-run(1) ...) and the two other programs,
# each with ENVIRONMENT, FILES and EXIT STATUS; they render without warnings; after
# `make install` into a scratch prefix, `man gcbench-run` finds its page
if ! BIN=$BIN tools/gen-man.sh "$tmp/man" >"$tmp/man.out" 2>&1; then
	fail man_pages "tools/gen-man.sh: $(cat "$tmp/man.out")"
else
	missing=""
	pages="gcbench gcbench-worker gcbench-netem"
	for cmd in $(sed -n 's/^GC_CMD(\([a-z]*\),.*/\1/p' orchestrator/cli/commands.def); do
		pages="$pages gcbench-$cmd"
		grep -qF ".BR gcbench\\-$cmd (1)" "$tmp/man/gcbench.1" 2>/dev/null || missing="$missing gcbench.1:$cmd"
		grep -q "^usage: gcbench $cmd" "$tmp/man/gcbench-$cmd.1" 2>/dev/null || missing="$missing usage:$cmd"
	done
	for p in $pages; do
		[ -s "$tmp/man/$p.1" ] || { missing="$missing $p.1"; continue; }
		for sec in ENVIRONMENT FILES '"EXIT STATUS"'; do
			grep -q "^\.SH $sec\$" "$tmp/man/$p.1" || missing="$missing $p.1:$sec"
		done
	done
	grep -q '^\.B GCBENCH_HOME$' "$tmp/man/gcbench-run.1" || missing="$missing run:GCBENCH_HOME"
	if [ -n "$missing" ]; then
		fail man_pages "missing:$missing"
	elif command -v man >/dev/null; then
		err=$(for p in $pages; do MANWIDTH=80 man --warnings -l "$tmp/man/$p.1" 2>&1 >/dev/null; done)
		make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/inst.out" 2>&1
		got=$(MANPATH="$tmp/root/usr/share/man" MANWIDTH=80 man gcbench-run 2>&1 | head -n 5)
		if [ -z "$err" ] && grep -q "gcbench-run - run a sweep" <<<"$got"; then pass man_pages
		else fail man_pages "man warns: $(head -c 300 <<<"$err"); man gcbench-run: $got $(tail -n 3 "$tmp/inst.out")"; fi
	else
		pass man_pages
	fi
fi
