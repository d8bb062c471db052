#!/usr/bin/env bash
# worker/bench_worker.sh: make bench-worker. 4 local ranks, ResNet-50 replay with
# negligible compute (--compute-scale 1e6): the median iteration time of each method
# (rank 0, post-warmup) against MPI's own MPI_Allreduce of the same 25,557,032 floats,
# measured in the same run by the same binary (--bench-allreduce). A ratio above 1 is
# what the exchange machinery (buckets, thread, compressor, libnbc) costs beyond one
# big all-reduce. Not a test: it never fails on time.
set -u
BUILD=${BUILD:-build}
W=$BUILD/bin/gcbench-worker
NP=${NP:-4} ITERS=${ITERS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$W" ] || { echo "bench-worker: $W is not built (needs libopenmpi-dev)"; exit 0; }
command -v mpirun >/dev/null || { echo "bench-worker: mpirun is missing"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
MPI=(mpirun --oversubscribe -np "$NP" --mca btl self,tcp --mca mpi_yield_when_idle 1
     --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4
     --mca coll_tuned_allgather_algorithm 4 --mca coll_libnbc_iallreduce_algorithm 1
     -x MALLOC_MMAP_THRESHOLD_=1073741824)
echo "bench-worker: $NP ranks on $(nproc) cores, loopback TCP, load $(cut -d' ' -f1-3 /proc/loadavg)"
ref=$("${MPI[@]}" "$W" --workload replay:resnet50 --bench-allreduce --iters "$ITERS" --warmup 1 2>&1 |
      sed -n 's/^bench_allreduce //p')
echo "reference: $ref"
ar=$(sed -n 's/.* allreduce_s \([0-9.]*\).*/\1/p' <<<"$ref")
[ -n "$ar" ] || { echo "bench-worker: the reference all-reduce failed"; exit 0; }
printf "%-34s %10s %10s %10s %10s %8s\n" method iter_s comm_s enc+dec_s exposed_s ratio
for m in syncsgd "syncsgd --mpi-coll blocking" fp16 signsgd "topk:ratio=0.01" \
	"mstopk:ratio=0.01" "powersgd:rank=4"; do
	rm -f "$tmp"/b-r*.gcr
	if ! "${MPI[@]}" "$W" --method $m --workload replay:resnet50 --compute-scale 1e6 \
		--iters "$ITERS" --warmup 1 --out "$tmp/b-r%r.gcr" >"$tmp/out" 2>&1; then
		printf "%-34s failed: %s\n" "$m" "$( (grep 'gcbench-worker: error' "$tmp/out" || tail -n 2 "$tmp/out") | head -n 1)"; continue; fi
	"$W" --dump "$tmp/b-r0.gcr" | awk -v m="$m" -v ar="$ar" 'NR > 3 && $3 == 0 {
		n++; it[n] = $11; cm[n] = $8; ed[n] = $6 + $7; ex[n] = $9 }
		function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
		END { i = med(it, n); printf "%-34s %10.4f %10.4f %10.4f %10.4f %8.2f\n", m, i,
			med(cm, n), med(ed, n), med(ex, n), i / ar }'
done
