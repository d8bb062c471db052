#!/usr/bin/env bash
# tests/integration/test_run_command.sh: workload: command on its own 2-node local
# cluster: a small Python program shipped with files: (no torch) runs under gcbench's
# mpirun at two caps with three method labels; it checks its environment (RANK, ...,
# MASTER_ADDR:MASTER_PORT reachable on the data subnet), moves its method's payload
# between the ranks over TCP and writes a record file per rank. The runs are ok, their
# iteration rows are in, the speedup view pairs each label with the baseline, an edited
# file makes a new sweep, regress compares two tagged sweeps, a failing rank fails its
# point with its own message, gcbench's Python module (gcbench_records) is importable
# without being listed and a folder of files: arrives as a package (import helpers.calc), the caps are restored and nothing is left on the nodes.
# Time: about 30-40 s.
. "$(dirname "$0")/../lib.sh"
cases="sweep_ok iteration_rows env_mapped module_and_package speedup_pairs files_hashed regress_works failure_reported caps_restored"
need_sweep $cases && need_cmd python3 $cases || exit 0

name=command$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-command.XXXXXX)
export GCBENCH_HOME=$work/home
# where each rank writes what it saw (the nodes have their own /tmp)
side=$(mktemp -d /var/tmp/gcbench-command-side.XXXXXX)
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$work" "$side"; }
trap cleanup EXIT

# The program: each rank sends its method's payload (params kb=) to rank 0 and waits for
# a one-byte reply, per iteration; encode/decode are short sleeps for the compressing
# labels. It writes formats/records.h's layout itself: magic, header, 128-byte records,
# trailer.
mkdir -p "$work/helpers/__pycache__"
echo "VALUE = 7" >"$work/helpers/calc.py"
: >"$work/helpers/__init__.py"
echo junk >"$work/helpers/__pycache__/gcbench-marker.pyc"
cat >"$work/fake_train.py" <<'PY'
import json, os, socket, struct, sys, time
import gcbench_records, helpers.calc   # gcbench's module travels by itself; a package kept
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
env = {k: os.environ.get(k, "") for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
       "MASTER_PORT", "GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "GCBENCH_RECORDS", "GCBENCH_FILES")}
rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
def die(msg):
    sys.stderr.write("fake_train: error: %s\n" % msg); sys.exit(2)
if a["--out"] != env["GCBENCH_RECORDS"]: die("--out %s is not GCBENCH_RECORDS %s" % (a["--out"], env["GCBENCH_RECORDS"]))
if not os.path.exists("fake_train.py") or os.path.realpath(".") != os.path.realpath(env["GCBENCH_FILES"]): die("not run in the files' folder")
if not env["GLOO_SOCKET_IFNAME"] or env["GLOO_SOCKET_IFNAME"] != env["NCCL_SOCKET_IFNAME"]: die("no interface")
params = dict(kv.split("=") for kv in a["--params"].split(",") if kv)
if params.get("crash") == str(rank): die("asked to fail on rank %d" % rank)
size = int(params.get("kb", "2000")) * 1000
iters, warm = int(a["--iters"]), int(a["--warmup"])
with open(os.path.join(a["--side"], "%s-r%d" % (env["MASTER_PORT"], rank)), "w") as f:
    f.write(" ".join([a["--method"], env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"], env["MASTER_ADDR"], env["MASTER_PORT"], env["GLOO_SOCKET_IFNAME"], os.getcwd(), a["--model"], a["--batch"], gcbench_records.__file__, helpers.calc.__file__, str(helpers.calc.VALUE)]) + "\n")
addr = (env["MASTER_ADDR"], int(env["MASTER_PORT"]))
peers = []
if rank == 0:
    srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(addr); srv.listen(world); srv.settimeout(30)
    peers = [srv.accept()[0] for _ in range(world - 1)]
else:
    for _ in range(300):
        try:
            s = socket.create_connection(addr, timeout=30); peers = [s]; break
        except OSError:
            time.sleep(0.1)
    else:
        die("cannot reach rank 0 at %s:%d" % addr)
payload = b"x" * size
recs = []
for it in range(warm + iters):
    t0 = time.perf_counter()
    enc = 0.002 if params else 0.0
    time.sleep(enc)
    t1 = time.perf_counter()
    if rank == 0:
        for p in peers:
            got = 0
            while got < size:
                b = p.recv(1 << 20)
                if not b: die("peer closed")
                got += len(b)
            p.sendall(b"k")
    else:
        peers[0].sendall(payload)
        if peers[0].recv(1) != b"k": die("no reply")
    t2 = time.perf_counter()
    time.sleep(enc / 2)
    t3 = time.perf_counter()
    recs.append(struct.pack("<4I10d2Qdff", rank, it, int(it < warm), 0, 0.0, 0.0, t1 - t0,
                            t3 - t2, t2 - t1, t3 - t1, 0.0, t3 - t0, 0.0, 0.0,
                            size if rank else 0, 0 if rank else size, 0.0, 0.0, 0.0))
hdr = json.dumps({"producer": "test_run_command", "method": a["--method"], "params": a["--params"],
                  "workload": "command", "model": a["--model"], "world": world, "rank": rank,
                  "backend": "tcp", "batch": int(a["--batch"])}).encode()
tmp = a["--out"] + ".tmp"
with open(tmp, "wb") as f:
    f.write(b"GCBREC1\n" + struct.pack("<I", len(hdr)) + hdr + b"".join(recs) +
            struct.pack("<QQ", 0xFFFFFFFFFFFFFFFF, len(recs)))
os.rename(tmp, a["--out"])
PY

cluster_up 2 $cases || exit 0
cat >"$work/spec.yaml" <<YAML
name: command-test
workload: command
command: [python3, fake_train.py, --method, "{method}", --params, "{params}", --out, "{records}",
          --iters, "{iterations}", --warmup, "{warmup}", --model, "{model}", --batch, "{batch}",
          --side, $side]
files: [fake_train.py, helpers]
models: [fake]
methods:
  - full
  - half: {kb: 1000}
  - tenth: {kb: 200}
baseline: full
bandwidth: [100mbit, 200mbit]
world_size: 2
batch: 8
iterations: 5
warmup: 1
timeout: 120
YAML
db=$work/c.db
q() { sqlite3 "$db" "$1"; }

if "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --tag a >"$work/out" 2>&1; then
	n=$(q "SELECT count(*) FROM runs WHERE status='ok' AND workload='command' AND model='fake'")
	[ "$n" = 6 ] && pass sweep_ok || fail sweep_ok "$n ok runs, expected 6: $(tail -5 "$work/out")"
else
	fail sweep_ok "gcbench run failed: $(tail -8 "$work/out" | tr '\n' ' ') $(q "SELECT error FROM runs LIMIT 1")"
fi

# 6 runs x 2 ranks x (5 + 1) iterations, with the program's own encode and bytes
n=$(q "SELECT count(*) FROM iterations")
z=$(q "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method <> 'full' AND (i.t_encode <= 0 OR i.t_comm <= 0 OR i.t_decode <= 0)")
[ "$n" = 72 ] && [ "$z" = 0 ] && pass iteration_rows || fail iteration_rows "$n rows (expected 72), $z compressing rows without encode/comm/decode"

# each rank saw RANK 0/1 of WORLD_SIZE 2, LOCAL_RANK 0 (one rank per host), rank 0's
# data address, one port per run, an interface, and ran in the build's files/ folder
seen=$(cat "$side"/* 2>/dev/null)
bad=$(awk -v addr_re='^10\\.|^192\\.168\\.|^172\\.' '
	{ if ($2 !~ /^[01]$/ || $3 != 2 || $4 != 0 || $5 !~ addr_re || $7 == "" ||
	      $8 !~ /\/\.cache\/gcbench\/[0-9a-f]+\/files$/ || $9 != "fake" || $10 != 8) print "bad line: " $0
	  port[$6]++ ; r[$6 " " $2]++ }
	END { for (p in port) { np++; if (port[p] != 2) print "port " p " seen " port[p] " times" } if (np != 6) print np " ports, expected 6" }' <<<"$seen")
addr0=$(awk '$2 == 0 { print $5 }' <<<"$seen" | sort -u)
[ -n "$seen" ] && [ -z "$bad" ] && [ "$(wc -w <<<"$addr0")" = 1 ] && pass env_mapped ||
	fail env_mapped "${bad:-rank 0 addresses: $addr0} :: $(head -3 <<<"$seen" | tr '\n' ' ')"

# gcbench_records from the build's python/ (not listed in files:), the package from
# files/helpers/ (its __pycache__ left behind)
bad=$(awk '$11 !~ /\/\.cache\/gcbench\/[0-9a-f]+\/python\/gcbench_records\.py$/ ||
	$12 !~ /\/\.cache\/gcbench\/[0-9a-f]+\/files\/helpers\/calc\.py$/ || $13 != 7' <<<"$seen")
pyc=$(for i in 1 2; do ssh -F "$GCBENCH_HOME/clusters/$name/ssh_config" "n$i" \
	'ls -d "$HOME"/.cache/gcbench/*/files/helpers/__pycache__/gcbench-marker.pyc' 2>/dev/null; done)
[ -n "$seen" ] && [ -z "$bad" ] && [ -z "$pyc" ] && pass module_and_package ||
	fail module_and_package "${bad:-a __pycache__ file was shipped: $pyc} :: $(head -2 <<<"$seen" | tr '\n' ' ')"

# every label paired with the baseline at both caps; the tenth payload is faster at the
# lower cap (comm-bound: 200 kB against 2 MB per iteration)
pairs=$(q "SELECT count(*) FROM speedup WHERE baseline = 'full' AND method IN ('half', 'tenth')")
fast=$(q "SELECT count(*) FROM speedup WHERE method = 'tenth' AND bw_cap_bps = 100000000 AND speedup > 2")
[ "$pairs" = 4 ] && [ "$fast" = 1 ] && pass speedup_pairs ||
	fail speedup_pairs "$pairs pairs (expected 4), tenth fast: $fast: $(q 'SELECT method, bw_cap_bps, speedup FROM speedup' | tr '\n' ' ')"

# the file is part of the spec hash: with the sweep marked failed, the same spec would
# continue it, an edited file makes a new sweep
q "UPDATE sweeps SET status = 'failed'"
dry1=$("$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --tag a --dry-run 2>&1)
echo "# edited" >>"$work/fake_train.py"
dry2=$("$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --tag a --dry-run 2>&1)
grep -q "resume: continuing sweep 1" <<<"$dry1" && grep -q "resume: new sweep: no earlier sweep of this spec" <<<"$dry2" &&
	pass files_hashed || fail files_hashed "unchanged: $(head -1 <<<"$dry1"); edited: $(head -1 <<<"$dry2")"

# the same spec again under another tag: regress compares the two sweeps' command runs
"$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --tag b >"$work/out3" 2>&1
rc=0
"$BIN/gcbench" regress --db "$db" --baseline tag=a --candidate tag=b --metric speedup >"$work/reg" 2>&1 || rc=$?
n=$(q "SELECT count(*) FROM runs WHERE status = 'ok'")
if [ "$n" = 12 ] && [ "$rc" -le 1 ] && grep -q "tenth" "$work/reg" && grep -q "half" "$work/reg"; then pass regress_works
else fail regress_works "$n ok runs (expected 12), regress exit $rc: $(head -12 "$work/reg" | tr '\n' ' ')"; fi

# a rank that fails: that point fails with the program's own line, the others run
sed -e 's/^name: command-test/name: command-crash/' -e 's/^bandwidth: .*/bandwidth: 100mbit/' \
	-e 's/^  - tenth: {kb: 200}/  - crash: {crash: 1}/' "$work/spec.yaml" >"$work/crash.yaml"
"$BIN/gcbench" run "$work/crash.yaml" --inventory "$inv" --db "$work/crash.db" >"$work/out4" 2>&1
st=$(sqlite3 "$work/crash.db" "SELECT method || ':' || status FROM runs ORDER BY id" | tr '\n' ' ')
err=$(sqlite3 "$work/crash.db" "SELECT error || ' ' || stderr_tail FROM runs WHERE method = 'crash'")
[ "$st" = "full:ok half:ok crash:failed " ] && grep -q "fake_train: error: asked to fail on rank 1" <<<"$err" &&
	pass failure_reported || fail failure_reported "statuses: $st; error: $(head -c 300 <<<"$err")"

left=""
for i in 1 2; do
	if tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -Eq 'tbf|htb'; then left="$left n$i"; fi
done
recs=$(for i in 1 2; do ssh -F "$GCBENCH_HOME/clusters/$name/ssh_config" "n$i" ls /tmp 2>/dev/null; done |
	grep gcbench-records)
procs=$(pgrep -f "fake_train.py --method" || true)
[ -z "$left" ] && [ -z "$recs" ] && [ -z "$procs" ] && pass caps_restored ||
	fail caps_restored "still capped:$left; record dirs left: $recs; programs left: $procs"
