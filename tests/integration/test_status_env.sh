#!/usr/bin/env bash
# tests/integration/test_status_env.sh: `gcbench env [--json] [--tag]` (the documented
# fields, versions found on this host, readable text) and `gcbench status [--db]` on a
# new database, on one with sweeps and runs, on a missing file and on a file that is not
# a database (each error: its exit status and its message). And `gcbench run` on the
# local cluster without root: the documented message, nothing created.
. "$(dirname "$0")/../lib.sh"
G=$BIN/gcbench

if [ ! -x "$G" ]; then
	skip status_env "$G is not built (make)"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-status-env.XXXXXX")
trap 'rm -rf "$work"' EXIT

# expect_err NAME RC WANT CMD...: exit status RC and stderr containing WANT
expect_err() {
	local name=$1 want_rc=$2 want=$3 out rc; shift 3
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want" <<<"$out"; then pass "$name"
	else fail "$name" "rc $rc (want $want_rc), stderr '$out' lacks '$want'"; fi
}

# --- gcbench env ------------------------------------------------------------------
text=$("$G" env 2>&1); rc=$?
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ +/, ""); print; exit }' <<<"$text"; }
missing=""
for k in host gpu_model gpu_count driver cuda nccl mpi kernel libnl sqlite gcbench tcp_cc tag; do
	grep -qE "^$k +[^ ]" <<<"$text" || missing="$missing $k"
done
# one "field value" line each, the values in one column
cols=$(awk '{ match($0, /^[a-z_]+ +/); print RLENGTH }' <<<"$text" | sort -u | wc -l)
if [ $rc -eq 0 ] && [ -z "$missing" ] && [ "$cols" -eq 1 ] &&
   [ "$(val kernel)" = "$(uname -r)" ]; then pass env_text
else fail env_text "rc $rc, missing:$missing, value columns: $cols, text: $(head -c 300 <<<"$text")"; fi

json=$("$G" env --json --tag after-upgrade 2>&1); rc=$?
if ! command -v python3 >/dev/null 2>&1; then
	skip env_json "python3 is not installed"
	skip env_json_versions "python3 is not installed"
else
	# the keys docs and envinfo.h document, nothing else; *_num beside every version
	check_keys='
import json, sys
d = json.load(sys.stdin)
vers = ["driver", "cuda", "nccl", "mpi", "kernel", "libnl", "sqlite"]
want = set(["host", "gpu_model", "gpu_count", "gcbench", "tcp_cc", "tag"] + vers +
           [v + "_num" for v in vers])
assert set(d) == want, "keys differ: extra %s, missing %s" % (set(d) - want, want - set(d))
assert all(isinstance(d[v + "_num"], int) for v in vers), "a *_num is not an integer"
assert isinstance(d["gpu_count"], int), "gpu_count is not an integer"
assert d["tag"] == "after-upgrade", "tag %r" % d["tag"]
'
	if [ $rc -eq 0 ] && out=$(python3 -c "$check_keys" <<<"$json" 2>&1); then pass env_json
	else fail env_json "rc $rc: $(tail -n 1 <<<"$out") :: ${json:0:300}"; fi

	# the versions this host must report: the kernel, the SQLite and libnl gcbench is
	# linked with, MPI when Open MPI is installed; each with its sortable integer
	want_sqlite=$(sqlite3 --version 2>/dev/null | awk '{print $1}')
	have_mpi=$(command -v ompi_info mpirun | head -n 1)
	check_vers='
import json, os, sys
d = json.load(sys.stdin)
def num(v):
    import re
    n = [int(x) for x in re.findall(r"\d+", v)[:3]] + [0, 0, 0]
    return n[0] * 1000000 + min(n[1], 999) * 1000 + min(n[2], 999)
need = ["kernel", "sqlite", "libnl"] + (["mpi"] if os.environ["HAVE_MPI"] else [])
for k in need:
    assert d[k], "%s is empty" % k
    assert d[k + "_num"] == num(d[k]) > 0, "%s_num %d for %r" % (k, d[k + "_num"], d[k])
assert d["kernel"] == os.uname().release, "kernel %r" % d["kernel"]
ws = os.environ["WANT_SQLITE"]
assert not ws or d["sqlite"] == ws, "sqlite %r, sqlite3 --version says %r" % (d["sqlite"], ws)
assert d["gcbench"], "gcbench version is empty"
'
	if out=$(HAVE_MPI=$have_mpi WANT_SQLITE=$want_sqlite python3 -c "$check_vers" <<<"$json" 2>&1)
	then pass env_json_versions
	else fail env_json_versions "$(tail -n 1 <<<"$out") :: ${json:0:300}"; fi
fi
expect_err env_bad_option 2 "unknown option '--jsn' for gcbench env; did you mean '--json'?" "$G" env --jsn

# --- gcbench status -----------------------------------------------------------------
db=$work/new.db
: >"$db"
out=$("$G" status --db "$db" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "^sweeps in $db" <<<"$out" &&
   grep -qF "(no sweeps yet: start one with 'gcbench run SPEC.yaml --db $db')" <<<"$out"
then pass status_new_db
else fail status_new_db "rc $rc: $(tr '\n' ' ' <<<"$out")"; fi

if need_cmd sqlite3 status_with_runs status_limits; then
	# status only read the empty file (it stays empty): give it the schema (every
	# migration of db/schema.sql, in order), then two sweeps and three runs
	[ -s "$db" ] && fail status_with_runs "status wrote to $db"
	sqlite3 "$db" <db/schema.sql &&
	sqlite3 "$db" "PRAGMA user_version = $(grep -c '^-- @migration' db/schema.sql);
INSERT INTO sweeps (id, name, spec_text, spec_hash, baseline, started, status)
  VALUES (1, 'older', '', 'h1', 'syncsgd', 1700000000, 'done'),
         (2, 'quickstart', '', 'h2', 'syncsgd', 1700001000, 'running');
INSERT INTO runs (id, sweep_id, point_key, workload, model, method, world_size, nodes,
                  batch, bw_cap_bps, backend, iterations, warmup, started, status, error,
                  finished)
  VALUES (1, 1, 'k-old', 'replay', 'resnet50', 'syncsgd', 4, 4, 32, 0, 'mpi', 10, 1,
          1700000001, 'ok', '', NULL),
         (2, 2, 'k-ok', 'replay', 'resnet50', 'topk', 4, 4, 32, 1000000000, 'mpi', 10, 1,
          1700001001, 'ok', '', 1700001004),
         (3, 2, 'k-bad', 'replay', 'resnet50', 'topk', 4, 4, 32, 1000000000, 'mpi', 10, 1,
          1700001002, 'failed', 'rank 2 exited 1', NULL);
INSERT INTO run_phases (run_id, phase, seconds) VALUES (2, 'shape', 0.25);
INSERT INTO run_stats (run_id, field, n, median, p95)
  VALUES (1, 'iter', 9, 0.5, 0.6), (2, 'iter', 36, 0.1234, 0.2);" 2>&1 ||
		fail status_with_runs "cannot fill $db with sqlite3"
	out=$("$G" status --db "$db" 2>&1); rc=$?
	sw2=$(grep -E '^ +2  quickstart ' <<<"$out")
	r2=$(grep -E '^ +2 +2 +20' <<<"$out")
	r3=$(grep -E '^ +3 +2 +20' <<<"$out")
	# newest sweep first; counts ok 1, failed 1; the ok run's median, the failed one's error
	if [ $rc -eq 0 ] && [ "$(grep -nE '^ +[12]  (quickstart|older) ' <<<"$out" | head -n 1 | cut -d: -f2 |
	     awk '{print $1}')" = 2 ] &&
	   [ "$(awk '{print $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF}' <<<"$sw2")" = "1 1 0 0 0" ] &&
	   grep -q 'running' <<<"$sw2" &&
	   grep -qE ' ok +resnet50 +topk +- +1gbit +4x32 +123\.40 +3\.00$' <<<"$r2" &&
	   grep -qF 'overhead per point 3.00 s of 3.00 s (mean of 1 run): shape 0.25' <<<"$out" &&
	   grep -qE ' failed +resnet50 +topk +- +1gbit +4x32 +- +-$' <<<"$r3" &&
	   grep -qE '^  run 3: rank 2 exited 1$' <<<"$out" && ! awk 'length > 100' <<<"$out" | grep -q .; then pass status_with_runs
	else fail status_with_runs "rc $rc: $(tr '\n' '|' <<<"$out")"; fi

	out=$("$G" status --db "$db" --sweeps 1 --runs 0 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q quickstart <<<"$out" && ! grep -q older <<<"$out" &&
	   ! grep -q 'latest runs' <<<"$out"; then pass status_limits
	else fail status_limits "rc $rc: $(tr '\n' '|' <<<"$out")"; fi
fi

expect_err status_missing_db 3 "no results database at '$work/nope.db': run a sweep first" \
	"$G" status --db "$work/nope.db"
[ -e "$work/nope.db" ] && fail status_missing_db_created "status created $work/nope.db"
printf 'this is a text file, not a database; it is long enough to hold a header\n' >"$work/text.db"
expect_err status_not_a_db 3 "'$work/text.db' is not a SQLite database" "$G" status --db "$work/text.db"
expect_err status_bad_count 2 "invalid --runs '-3': give a count from 0 to 100000" \
	"$G" status --db "$db" --runs -3
expect_err status_bad_option 2 "unknown option '--bd' for gcbench status; did you mean '--db'?" "$G" status --bd "$db"

# --- gcbench run without root (experiments/inventory-local.yaml, docs/spec.md) --------
if [ "$(id -u)" -ne 0 ]; then
	skip run_nonroot_message "needs root to drop to user nobody"
elif ! command -v setpriv >/dev/null 2>&1; then
	skip run_nonroot_message "'setpriv' is not installed"
elif ! Gabs=$(realpath "$G") || ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$Gabs"; then
	skip run_nonroot_message "user nobody cannot reach $G"
else
	mkdir -p "$work/nr" && chmod 777 "$work/nr" && chmod 755 "$work"
	cp experiments/quickstart.yaml experiments/inventory-local.yaml "$work/nr/" &&
		chmod 644 "$work/nr/"*.yaml
	out=$(cd "$work/nr" && setpriv --reuid=nobody --regid=nogroup --clear-groups "$Gabs" run \
		quickstart.yaml --inventory inventory-local.yaml --db nr.db 2>&1); rc=$?
	want="the local emulated cluster needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): run 'sudo gcbench run ...', or give an inventory of real hosts with --inventory"
	if [ $rc -eq 3 ] && grep -qF "$want" <<<"$out" && ! ls "$work/nr" | grep -q '^nr\.db'
	then pass run_nonroot_message
	else fail run_nonroot_message "rc $rc, files: $(ls "$work/nr" | tr '\n' ' '), output: $out"; fi
fi
exit 0
