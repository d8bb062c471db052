#!/usr/bin/env python3
"""One rank of a PyTorch DDP gradient-exchange benchmark: the study's own stack, for
comparison with gcbench-worker on the same nodes, shapes and caps.

The module has exactly the parameter tensors of a model (a gcbench parameter list:
data/models/*.csv, tools/export_model.py output, or a built-in name) and a backward that
costs almost nothing: forward is x * sum_p 0.5 * <p, p> for a scalar x, so every parameter
gets a dense, random-looking gradient (x * p) from two cheap passes over it and the
exchange dominates. DDP (gloo, bucket_cap_mb 25 by default, 1 MiB first bucket) exchanges
the gradients with the chosen communication hook; an SGD step follows, as in
gcbench-worker. Rank 0 prints one line `ddp_bench {json}` with the per-iteration times
(wall clock of forward + backward + step, after --warmup iterations) and their median.

Hooks: allreduce (DDP's default), fp16 (default_hooks.fp16_compress_hook), powersgd
(powerSGD_hook with PowerSGDState(matrix_approximation_rank=R, use_error_feedback=True,
warm_start=True, start_powerSGD_iter=S); S must not exceed --warmup so every timed
iteration compresses).

Example (4 ranks, one per namespace node of `gcbench cluster up 4 --name pt`):
  ip netns exec gcb-pt-n1 python3 tools/ddp_bench.py --rank 0 --world 4 \\
      --master 10.213.7.11 --model csv:resnet50.csv --hook powersgd --iters 10
  (and ranks 1-3 in gcb-pt-n2..n4, same --master)
Write a built-in model's parameter list (bert-base; resnet50 etc. need torchvision):
  python3 tools/ddp_bench.py --model bert-base --write-csv bert-base.csv

Exit status: 0 done, 1 failed, 2 bad arguments, 3 torch missing, 4 deadline passed.
"""
import argparse
import datetime
import json
import os
import signal
import socket
import statistics
import sys
import time


def bert_base_rows():
    """BERT-base uncased (encoder + pooler, vocab 30522, no head): 199 tensors."""
    h, ff = 768, 3072
    rows = [("embeddings.word_embeddings.weight", (30522, h)),
            ("embeddings.position_embeddings.weight", (512, h)),
            ("embeddings.token_type_embeddings.weight", (2, h)),
            ("embeddings.LayerNorm.weight", (h,)), ("embeddings.LayerNorm.bias", (h,))]
    for i in range(12):
        p = "encoder.layer.%d." % i
        for q in ("query", "key", "value"):
            rows += [(p + "attention.self.%s.weight" % q, (h, h)), (p + "attention.self.%s.bias" % q, (h,))]
        rows += [(p + "attention.output.dense.weight", (h, h)), (p + "attention.output.dense.bias", (h,)),
                 (p + "attention.output.LayerNorm.weight", (h,)), (p + "attention.output.LayerNorm.bias", (h,)),
                 (p + "intermediate.dense.weight", (ff, h)), (p + "intermediate.dense.bias", (ff,)),
                 (p + "output.dense.weight", (h, ff)), (p + "output.dense.bias", (h,)),
                 (p + "output.LayerNorm.weight", (h,)), (p + "output.LayerNorm.bias", (h,))]
    rows += [("pooler.dense.weight", (h, h)), ("pooler.dense.bias", (h,))]
    return rows


def load_rows(spec):
    """'csv:PATH' (the gcbench parameter-list format), 'bert-base', or a torchvision name."""
    if spec.startswith("csv:"):
        rows = []
        with open(spec[4:]) as f:
            for ln, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#") or line.startswith("index,"):
                    continue
                parts = line.split(",")
                # never quote the line: the file may be anything (csv:/etc/shadow)
                if len(parts) < 4:
                    raise ValueError("%s:%d: expected index,name,shape,numel, found %d "
                                     "fields" % (spec[4:], ln, len(parts)))
                try:
                    shape = tuple(int(d) for d in parts[2].split("x"))
                except ValueError:
                    raise ValueError("%s:%d:%d: field 3 (shape) is not positive integers "
                                     "joined by 'x'" % (spec[4:], ln,
                                                        len(parts[0]) + len(parts[1]) + 3)) from None
                rows.append((parts[1], shape))
        if not rows:
            raise ValueError("%s: no tensors" % spec[4:])
        return rows
    if spec == "bert-base":
        return bert_base_rows()
    import torchvision  # resnet50, resnet101, vgg16, ...
    builder = getattr(torchvision.models, spec, None)
    if not callable(builder):
        raise ValueError("unknown model '%s': use csv:PATH, bert-base or a torchvision model name" % spec)
    return [(n, tuple(p.shape)) for n, p in builder(weights=None).named_parameters()]


def write_csv(rows, name, path):
    total = 0
    with open(path, "w") as f:
        numels = []
        for _, s in rows:
            k = 1
            for d in s:
                k *= d
            numels.append(k)
        total = sum(numels)
        f.write("# %s: %d tensors, %d parameters, forward (registration) order; written by tools/ddp_bench.py\n"
                % (name, len(rows), total))
        f.write("index,name,shape,numel\n")
        for i, ((n, s), k) in enumerate(zip(rows, numels)):
            f.write("%d,%s,%s,%d\n" % (i, n, "x".join(str(d) for d in s), k))
    return total


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ddp_bench.py", description=__doc__[:__doc__.index("Example")].strip(),
                                epilog=__doc__[__doc__.index("Example"):],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="resnet50", help="csv:PATH, bert-base, or a torchvision name (default resnet50)")
    p.add_argument("--write-csv", metavar="FILE", help="only write the model's parameter list to FILE and exit")
    p.add_argument("--rank", type=int, help="this process's rank, 0..world-1")
    p.add_argument("--world", type=int, default=4, help="number of ranks (default 4)")
    p.add_argument("--master", help="address of rank 0 (its data interface)")
    p.add_argument("--port", type=int, default=29500, help="rendezvous TCP port on the master (default 29500)")
    p.add_argument("--hook", choices=["allreduce", "fp16", "powersgd"], default="allreduce")
    p.add_argument("--powersgd-rank", type=int, default=4, help="matrix_approximation_rank (default 4)")
    p.add_argument("--start-powersgd-iter", type=int, default=2, help="start_powerSGD_iter (default 2, >= 2)")
    p.add_argument("--no-serialize-buckets", dest="serialize_buckets", action="store_false",
                   help="powersgd: let buckets overlap (races on gloo: see the code); serialized by default")
    p.add_argument("--iters", type=int, default=10, help="timed iterations (default 10)")
    p.add_argument("--warmup", type=int, default=3, help="untimed iterations first (default 3)")
    p.add_argument("--bucket-mb", type=float, default=25, help="DDP bucket_cap_mb (default 25)")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    p.add_argument("--iface", default=os.environ.get("GLOO_SOCKET_IFNAME", "eth0"),
                   help="GLOO_SOCKET_IFNAME (default eth0)")
    p.add_argument("--lr", type=float, default=1e-3, help="SGD learning rate (default 0.001)")
    p.add_argument("--deadline", type=float, default=900, help="seconds before the rank gives up (default 900)")
    a = p.parse_args(argv)
    if a.write_csv:
        return a
    if a.rank is None or a.master is None:
        p.error("--rank and --master are required (or --write-csv)")
    if not 0 <= a.rank < a.world or a.iters < 1 or a.warmup < 0:
        p.error("need 0 <= --rank < --world, --iters >= 1, --warmup >= 0")
    if a.hook == "powersgd" and (a.start_powersgd_iter < 2 or a.start_powersgd_iter > a.warmup):
        p.error("--start-powersgd-iter must be in [2, --warmup] so the timed iterations compress "
                "(PyTorch requires >= 2 with error feedback or warm start)")
    return a


def build_module(torch, rows):
    class Shapes(torch.nn.Module):
        """Parameters of the model's shapes; forward x * sum 0.5 <p, p>."""

        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(1)
            self.ps = torch.nn.ParameterList(
                [torch.nn.Parameter(torch.randn(s, generator=g) * 0.01) for _, s in rows])

        def forward(self, x):
            acc = None
            for prm in self.ps:
                v = prm.reshape(-1)
                t = torch.dot(v, v)
                acc = t if acc is None else acc + t
            return acc * (0.5 * x)

    return Shapes()


def register_hook(torch, ddp, a):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
    if a.hook == "fp16":
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif a.hook == "powersgd":
        state = psgd.PowerSGDState(process_group=None, matrix_approximation_rank=a.powersgd_rank,
                                   start_powerSGD_iter=a.start_powersgd_iter, use_error_feedback=True,
                                   warm_start=True, random_seed=0)
        if not a.serialize_buckets:
            ddp.register_comm_hook(state, psgd.powerSGD_hook)
            return
        # gloo matches collectives by the order they are issued; powerSGD_hook issues a
        # bucket's Q all-reduce from a future callback, which can race with the next
        # bucket's P all-reduce and differ between ranks (gloo::EnforceNotMet
        # "op.preamble.length <= op.nbytes"). Start a bucket only after the previous
        # bucket's exchange finished: deterministic order, no overlap between buckets.
        prev = [None]

        def serial_powersgd(st, bucket):
            if prev[0] is not None:
                prev[0].wait()
            prev[0] = psgd.powerSGD_hook(st, bucket)
            return prev[0]
        ddp.register_comm_hook(state, serial_powersgd)


def run(torch, a, rows):
    import torch.distributed as dist
    os.environ["GLOO_SOCKET_IFNAME"] = a.iface
    dist.init_process_group("gloo", init_method="tcp://%s:%d" % (a.master, a.port), rank=a.rank,
                            world_size=a.world, timeout=datetime.timedelta(seconds=a.deadline))
    model = build_module(torch, rows)
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=a.bucket_mb)
    register_hook(torch, ddp, a)
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr)
    x = torch.ones(())
    times = []
    for it in range(a.warmup + a.iters):
        t0 = time.perf_counter()
        loss = ddp(x)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        t = time.perf_counter() - t0
        if it >= a.warmup:
            times.append(t)
    # a final check that the exchange kept the replicas identical
    with torch.no_grad():
        s = torch.tensor([float(sum(prm.double().sum() for prm in model.parameters()))])
    gathered = [torch.zeros(1) for _ in range(a.world)]
    dist.all_gather(gathered, s)
    same = max(float(g) for g in gathered) - min(float(g) for g in gathered) <= 1e-6 * max(1.0, abs(float(s)))
    dist.destroy_process_group()
    return times, same


def main(argv):
    a = parse_args(argv)
    try:
        import torch
    except ImportError as ex:
        sys.stderr.write("ddp_bench: cannot import torch (%s): apt-get install python3-torch\n" % ex)
        return 3
    try:
        rows = load_rows(a.model)
    except (OSError, ValueError, ImportError) as ex:
        sys.stderr.write("ddp_bench: cannot load model '%s': %s\n" % (a.model, ex))
        return 2
    if a.write_csv:
        total = write_csv(rows, a.model.replace("csv:", ""), a.write_csv)
        sys.stderr.write("wrote %s: %d tensors, %d parameters\n" % (a.write_csv, len(rows), total))
        return 0

    def expired(signum, frame):
        sys.stderr.write("ddp_bench: rank %d on %s: deadline of %.0f s passed (hook %s); giving up\n"
                         % (a.rank, socket.gethostname(), a.deadline, a.hook))
        sys.stderr.flush()
        os._exit(4)
    signal.signal(signal.SIGALRM, expired)
    signal.alarm(int(a.deadline) + 1)
    torch.set_num_threads(a.threads)
    try:
        times, same = run(torch, a, rows)
    except Exception as ex:  # noqa: BLE001 - report gloo/DDP errors with the rank
        sys.stderr.write("ddp_bench: rank %d on %s: %s: %s\n" % (a.rank, socket.gethostname(), type(ex).__name__, ex))
        return 1
    if a.rank == 0:
        numel = sum(int(torch.Size(s).numel()) for _, s in rows)
        print("ddp_bench " + json.dumps({
            "hook": a.hook, "world": a.world, "model": a.model, "tensors": len(rows), "numel": numel,
            "bucket_cap_mb": a.bucket_mb, "powersgd_rank": a.powersgd_rank if a.hook == "powersgd" else None,
            "serialized_buckets": a.hook == "powersgd" and a.serialize_buckets,
            "iters": a.iters, "warmup": a.warmup, "threads": a.threads, "torch": torch.__version__,
            "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times),
            "iter_s": [round(t, 6) for t in times], "replicas_equal": same}), flush=True)
    if not same:
        sys.stderr.write("ddp_bench: rank %d: parameters differ across ranks after the run\n" % a.rank)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
