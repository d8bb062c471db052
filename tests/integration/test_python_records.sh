#!/usr/bin/env bash
# tests/integration/test_python_records.sh: python/gcbench_records.py. Without torch:
# its RecordWriter's file is read by gcbench and a header without a required key is
# refused. With torch (python3-torch, CPU, gloo): a 2-rank DDP run on loopback per hook
# (allreduce_hook, fp16_compress_hook, powerSGD_hook rank 2) writes records that
# `gcbench ingest` stores in one sweep: every timed iteration of the compressing hooks
# has nonzero encode, comm and decode, PowerSGD's nested rounds are all seen, the
# speedup view pairs each hook with the allreduce baseline, the replicas end equal,
# and the header says how the times were taken.
. "$(dirname "$0")/../lib.sh"
GC=$BIN/gcbench
names_w="writer_file writer_refuses recorder_phases"
names_t="ddp_runs ingest phases_nonzero nested_rounds speedup_pairs replicas_equal timing_note"
need_cmd sqlite3 $names_w $names_t || exit 0
[ -x "$GC" ] || { for n in $names_w $names_t; do skip "$n" "$GC not built"; done; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-pyrec.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db=$tmp/p.db
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}

out=$(python3 - "$tmp/w.rec" <<'EOF' 2>&1
import sys, gcbench_records as gr
w = gr.RecordWriter(sys.argv[1], dict(producer="t 1", method="m", params="", workload="w",
                    model="x", world=1, rank=0, backend="gloo", batch=2))
for i in range(3):
    w.add(warmup=int(i == 0), t_iter=0.5, t_comm=0.25, bytes_sent=7, flags=gr.eval_flags(10),
          val_loss=1.0, val_acc=0.5, t_eval=0.1)
w.close()
EOF
)
out2=$("$GC" ingest "$tmp/w.rec" --sweep w --baseline m --db "$tmp/w.db" 2>&1)
v=$(sqlite3 "$tmp/w.db" "SELECT count(*), sum(t_comm), sum(bytes_sent) FROM iterations; SELECT count(*), sum(val_n) FROM evals" 2>&1 | tr '\n' ' ')
if [ -z "$out" ] && [ "$v" = "3|0.75|21 3|30 " ]; then pass writer_file
else fail writer_file "python: $out; ingest: $out2; rows: $v"; fi

out=$(python3 -c 'import gcbench_records as gr; gr.RecordWriter("/nonexistent/x", {"method": "m"})' 2>&1)
if echo "$out" | grep -q "ValueError: record header lacks producer, params"; then pass writer_refuses
else fail writer_refuses "$out"; fi

# the Recorder's phases and an evaluation, without torch (sleeps of known length)
out=$(python3 - "$tmp/r.rec" <<'EOF' 2>&1
import sys, time, gcbench_records as gr
rec = gr.Recorder(sys.argv[1], method="m", params="", workload="w", model="x", world=1,
                  rank=0, backend="none", batch=1)
for i in range(3):
    with rec.iteration(warmup=i == 0) as it:
        with it.phase("forward"):
            time.sleep(0.02)
        with it.phase("backward"):
            time.sleep(0.04)
        with it.phase("optimizer"):
            time.sleep(0.01)
        it.loss = 2.0 - i
    it.evaluate(50, 0.7, 0.8, 0.003)
rec.close(final_loss=0.0)
EOF
)
"$GC" ingest "$tmp/r.rec" --sweep r --baseline m --db "$tmp/r.db" >/dev/null 2>&1
v=$(sqlite3 "$tmp/r.db" "SELECT sum(t_forward BETWEEN 0.02 AND 0.2), sum(t_backward BETWEEN 0.04 AND 0.4), sum(t_optimizer BETWEEN 0.01 AND 0.1), sum(t_iter >= t_forward + t_backward + t_optimizer), sum(loss), sum(t_comm + t_encode + t_decode) FROM iterations; SELECT count(*), sum(val_n), min(val_acc) > 0.79 FROM evals; SELECT json_extract(header, '\$.timing') LIKE 'perf_counter%' FROM run_headers" 2>&1 | tr '\n' ' ')
if [ -z "$out" ] && [ "$v" = "3|3|3|3|3.0|0.0 3|150|1 1 " ]; then pass recorder_phases
else fail recorder_phases "python: $out; rows: $v"; fi

PY=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	for n in $names_t; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done
	exit 0
fi

port=$((29500 + RANDOM % 2000))
ok=1 err=""
for h in allreduce fp16 powersgd; do
	if ! o=$(timeout 180 "$PY" tests/tools/ddp_records_run.py "$h" "$tmp/$h" --port $port --iters 6 --warmup 3 2>&1) ||
	   [ ! -s "$tmp/$h/rank0.gcr" ] || [ ! -s "$tmp/$h/rank1.gcr" ]; then ok=0; err="$err $h: $(echo "$o" | tail -n 5)"; fi
	port=$((port + 1))
done
if [ $ok = 1 ]; then pass ddp_runs; else fail ddp_runs "$err"; fi

ok=1 err=""
for h in allreduce fp16 powersgd; do
	o=$("$GC" ingest "$tmp/$h"/rank*.gcr --sweep pytorch-hooks --baseline allreduce --db "$db" 2>&1) || { ok=0; err="$err $h: $o"; }
done
n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok' AND producer LIKE 'gcbench_records %'" 2>&1)
if [ $ok = 1 ] && [ "$n" = 3 ]; then pass ingest; else fail ingest "runs $n:$err"; fi

v=$(sqlite3 "$db" "SELECT r.method || ':' || count(*) || ':' || sum(i.t_encode > 0 AND i.t_comm > 0 AND i.t_decode > 0 AND i.bytes_sent > 0) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE i.warmup = 0 AND r.method <> 'allreduce' GROUP BY r.method ORDER BY r.method" | tr '\n' ' ')
if [ "$v" = "fp16:12:12 powersgd:12:12 " ]; then pass phases_nonzero
else fail phases_nonzero "method:rows:rows with encode, comm, decode > 0: $v"; fi

# fp16: one all-reduce per bucket (one bucket); PowerSGD: the uncompressed tensors, P, then Q
v=$(sqlite3 "$db" "SELECT r.method || ':' || min(json_extract(h.header, '\$.collectives_last_iteration')) FROM run_headers h JOIN runs r ON r.id = h.run_id GROUP BY r.method ORDER BY r.method" | tr '\n' ' ')
b=$(sqlite3 "$db" "SELECT r.method || ':' || max(bytes_sent) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE i.warmup = 0 GROUP BY r.method ORDER BY r.method" | tr '\n' ' ')
if [ "$v" = "allreduce:1 fp16:1 powersgd:3 " ] && [ "$b" = "allreduce:11048 fp16:5524 powersgd:1656 " ]; then pass nested_rounds
else fail nested_rounds "collectives per iteration: $v; bytes: $b"; fi

v=$(sqlite3 "$db" "SELECT method || ':' || (speedup > 0) FROM speedup WHERE baseline = 'allreduce' AND method <> 'allreduce' ORDER BY method" | tr '\n' ' ')
if [ "$v" = "fp16:1 powersgd:1 " ]; then pass speedup_pairs; else fail speedup_pairs "speedup rows: $v"; fi

v=$(sqlite3 "$db" "SELECT count(*) FROM (SELECT run_id FROM run_headers GROUP BY run_id HAVING count(DISTINCT json_extract(header, '\$.checksum_param')) = 1 AND count(*) = 2)")
if [ "$v" = 3 ]; then pass replicas_equal; else fail replicas_equal "$v of 3 runs have equal parameter checksums on both ranks"; fi

v=$(sqlite3 "$db" "SELECT count(*) FROM run_headers WHERE json_extract(header, '\$.timing') LIKE '%GIL%' AND json_extract(header, '\$.versions.torch') <> ''")
if [ "$v" = 6 ]; then pass timing_note; else fail timing_note "$v of 6 headers say how they timed"; fi
