#!/usr/bin/env bash
# tests/integration/test_readonly_db.sh: the commands that only read a results database
# (status, history, regress, model, report, whatif --db) work on a database in a folder
# the user cannot write (another user's file), on a read-only mount, and next to a
# live writer; they never create a missing database, never migrate an old one, and
# change nothing on disk.
. "$(dirname "$0")/../lib.sh"
GC=$BIN/gcbench
MKR=$BUILD/tests/test_regress
MKM=$BUILD/tests/test_model_db
names="other_user_same_output other_user_nothing_written other_user_says_immutable
model_other_user_no_store ro_mount live_writer_seen missing_never_created old_schema_not_migrated"
[ -x "$GC" ] && [ -x "$MKR" ] && [ -x "$MKM" ] ||
	{ for n in $names; do skip "$n" "$GC, $MKR or $MKM not built"; done; exit 0; }
need_cmd sqlite3 $names || exit 0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-readonly.XXXXXX")
mnt=""
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"

"$MKR" --make-db "$tmp/r.db" >/dev/null && "$MKM" --make-db "$tmp/m.db" >/dev/null ||
	{ for n in $names; do fail "$n" "cannot build the synthetic databases"; done; exit 0; }

# readers DB: every reading command, one per line "NAME ARGS" (report writes to $out)
readers() {
	local db=$1
	printf '%s\n' "status --db $db" \
		"history --db $db --model resnet50 --method powersgd" \
		"regress --db $db --baseline nccl=2.18 --candidate nccl=2.19" \
		"model --db $db --no-store" \
		"whatif --db $db --workers 8 --bandwidth 10gbit"
}
# run_all DB AS TAG: each reader's stdout and exit status, the warnings apart
run_all() {
	local db=$1 as=$2 line
	# shellcheck disable=SC2034
	while read -r line; do
		# shellcheck disable=SC2086
		echo "== $line"; $as "$GC" $line 2>>"$tmp/err.$3"; echo "rc=$?"
	done < <(readers "$db") | sed "s|$db|DB|g"
}

# --- another user's database, in a folder that user cannot write -------------------
as_nobody=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
	as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
if [ -z "$as_nobody" ]; then
	for n in other_user_same_output report_other_user other_user_nothing_written \
		other_user_says_immutable shared_folder_no_files model_other_user_no_store; do skip "$n" "needs root and setpriv to run as nobody"; done
else
	mkdir "$tmp/ro" "$tmp/out" && cp "$tmp/r.db" "$tmp/m.db" "$tmp/ro/" && chown nobody "$tmp/out"
	chmod 0444 "$tmp/ro/"*.db && chmod 0555 "$tmp/ro"
	declare -A sum0
	for d in r m; do sum0[$d]=$(sha256sum <"$tmp/ro/$d.db"); done
	ok=1
	for d in r m; do
		cp "$tmp/$d.db" "$tmp/$d-rw.db"
		want=$(run_all "$tmp/$d-rw.db" "" rw)
		got=$(run_all "$tmp/ro/$d.db" "$as_nobody" ro)
		if [ "$want" != "$got" ]; then
			ok=0; fail other_user_same_output "$d.db: $(diff <(echo "$want") <(echo "$got") | head -n 8 | tr '\n' ' ')"
		fi
	done
	if [ $ok = 1 ]; then
		if grep -q 'rc=0' <<<"$got"; then pass other_user_same_output
		else fail other_user_same_output "no reader succeeded: $(head -n 4 <<<"$got" | tr '\n' ' ')"; fi
	fi
	$as_nobody "$GC" report --db "$tmp/ro/m.db" --out "$tmp/out/rep" >/dev/null 2>>"$tmp/err.ro"; rc=$?
	if [ $rc -eq 0 ] && [ -s "$tmp/out/rep/index.html" ]; then pass report_other_user
	else fail report_other_user "rc $rc: $(tail -n 2 "$tmp/err.ro" | tr '\n' ' ')"; fi
	extra=$(ls "$tmp/ro" | grep -v '^[rm]\.db$')
	if [ -z "$extra" ] && [ "$(sha256sum <"$tmp/ro/r.db")" = "${sum0[r]}" ] &&
	   [ "$(sha256sum <"$tmp/ro/m.db")" = "${sum0[m]}" ]; then pass other_user_nothing_written
	else fail other_user_nothing_written "new files '$extra' or a changed database"; fi
	if grep -q 'read as an immutable snapshot' "$tmp/err.ro" &&
	   ! grep -q 'attempt to write' "$tmp/err.ro"; then pass other_user_says_immutable
	else fail other_user_says_immutable "stderr: $(head -n 3 "$tmp/err.ro" | tr '\n' ' ')"; fi
	# another user's database in a folder this user may write (a shared, sticky
	# folder): no -shm or -wal of the reader's is left next to it (it would lock the
	# owner's next sweep out), and the reader says it reads a snapshot
	mkdir "$tmp/shared" && chmod 1777 "$tmp/shared" && cp "$tmp/r.db" "$tmp/shared/" &&
		chmod 0644 "$tmp/shared/r.db"
	out=$($as_nobody "$GC" status --db "$tmp/shared/r.db" 2>&1); rc=$?
	extra=$(ls "$tmp/shared" | grep -v '^r\.db$')
	if [ $rc -eq 0 ] && [ -z "$extra" ] && grep -q 'immutable snapshot' <<<"$out"; then
		pass shared_folder_no_files
	else fail shared_folder_no_files "rc $rc, new files '$extra': $(head -n 2 <<<"$out" | tr '\n' ' ')"; fi
	# model without --no-store on a database it cannot write: predicts, stores nothing
	out=$($as_nobody "$GC" model --db "$tmp/ro/m.db" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q 'predictions (not stored)' <<<"$out" &&
	   grep -q 'not writable for this user' <<<"$out" &&
	   [ "$(sha256sum <"$tmp/ro/m.db")" = "${sum0[m]}" ]; then pass model_other_user_no_store
	else fail model_other_user_no_store "rc $rc: $(head -n 3 <<<"$out" | tr '\n' ' ')"; fi
fi

# --- a read-only mount (root: only the mount stops the writes) ----------------------
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip ro_mount "needs root and unshare for a private read-only bind mount"
else
	mkdir -p "$tmp/src" "$tmp/mnt" && cp "$tmp/m.db" "$tmp/src/"
	out=$(unshare -m --propagation private sh -c '
		mount --bind "$1/src" "$1/mnt" && mount -o remount,bind,ro "$1/mnt" || exit 99
		"$2" status --db "$1/mnt/m.db" && "$2" model --db "$1/mnt/m.db"' sh "$tmp" "$GC" 2>&1); rc=$?
	if [ $rc -eq 99 ]; then skip ro_mount "cannot make a read-only bind mount here"
	elif [ $rc -eq 0 ] && grep -q 'sweeps in' <<<"$out" && grep -q 'not stored' <<<"$out" &&
	     [ -z "$(ls "$tmp/src" | grep -v '^m\.db$')" ]; then pass ro_mount
	else fail ro_mount "rc $rc: $(grep -m 3 -E 'error|warning' <<<"$out" | tr '\n' ' ')"; fi
fi

# --- a live writer holds the WAL: a reader sees its uncommitted-to-file writes -----
if ! command -v python3 >/dev/null; then
	skip live_writer_seen "python3 is not installed"
else
	cp "$tmp/r.db" "$tmp/live.db"
	python3 - "$tmp/live.db" "$tmp/live.ready" <<'EOF' &
import sqlite3, sys, time, os
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma journal_mode=wal"); c.execute("pragma wal_autocheckpoint=0")
c.execute("update sweeps set name='walsweep' where id=(select max(id) from sweeps)")
open(sys.argv[2], "w").close()
time.sleep(20)
EOF
	wpid=$!
	for _ in $(seq 100); do [ -e "$tmp/live.ready" ] && break; sleep 0.1; done
	chmod 0555 "$tmp"   # the folder is read-only for nobody anyway; -shm exists
	if [ -n "$as_nobody" ]; then out=$($as_nobody "$GC" status --db "$tmp/live.db" 2>&1); rc=$?
	else out=$("$GC" status --db "$tmp/live.db" 2>&1); rc=$?; fi
	chmod 0755 "$tmp"
	kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
	if [ $rc -eq 0 ] && grep -q walsweep <<<"$out" && ! grep -q immutable <<<"$out"; then
		pass live_writer_seen
	else fail live_writer_seen "rc $rc: $(head -n 4 <<<"$out" | tr '\n' ' ')"; fi
fi

# --- a missing database is an error and is never created ----------------------------
bad=""
while read -r line; do
	# shellcheck disable=SC2086
	"$GC" $line >/dev/null 2>"$tmp/err.miss"; rc=$?
	[ $rc -ne 0 ] && grep -q 'no results database at' "$tmp/err.miss" || bad="$bad [$line: rc $rc]"
done < <(readers "$tmp/typo.db"; echo "model --db $tmp/typo.db"; echo "report --db $tmp/typo.db --out $tmp/rep2")
[ -e "$tmp/typo.db" ] && bad="$bad [typo.db was created]"
if [ -z "$bad" ]; then pass missing_never_created; else fail missing_never_created "$bad"; fi

# --- an older schema: read through a migrated copy in memory, the file left as it was --
awk '/^-- @migration 2/ { exit } { print }' db/schema.sql >"$tmp/m1.sql"
sqlite3 "$tmp/old.db" <"$tmp/m1.sql" && sqlite3 "$tmp/old.db" "PRAGMA user_version = 1;
INSERT INTO sweeps (id, name, spec_text, spec_hash, baseline, started, status)
  VALUES (1, 'oldsweep', '', 'h1', 'syncsgd', 1700000000, 'done');"
sum_old=$(sha256sum <"$tmp/old.db")
out=$("$GC" status --db "$tmp/old.db" 2>&1); rc=$?
v=$(sqlite3 "$tmp/old.db" 'PRAGMA user_version')
if [ $rc -eq 0 ] && grep -q oldsweep <<<"$out" && grep -q 'reading a copy upgraded in memory' <<<"$out" &&
   [ "$v" = 1 ] && [ "$(sha256sum <"$tmp/old.db")" = "$sum_old" ]; then
	pass old_schema_not_migrated
else fail old_schema_not_migrated "rc $rc, user_version now $v: $out"; fi
