#!/usr/bin/env python3
"""One rank of PyTorch DDP exchanging a model's gradients through a communication hook,
timed per phase into a gcbench record file: the PyTorch stack of a `workload: command`
spec, beside gcbench-worker on the same parameter shapes, links and caps.

The module has exactly the model's parameter tensors (the list `gcbench-worker
--print-model MODEL` prints, or a csv:PATH file in that format) and a forward that
costs almost nothing: x * sum_p 0.5 <p, p> for a scalar x that differs per rank, so
every parameter gets a dense gradient x * p, different on every rank, and the exchange
dominates. DDP (gloo; first bucket 1 MiB, later ones --bucket-cap-mb) exchanges the
gradients with the hook of METHOD, named as gcbench names its methods:

  syncsgd   DDP's all-reduce (default_hooks.allreduce_hook, which is what DDP does
            without a hook, but through torch.distributed so comm is timed)
  fp16      default_hooks.fp16_compress_hook
  powersgd  powerSGD_hook: rank=R (4), ef=0|1 (1: error feedback), warm_start=0|1 (1),
            min_compression=X (2: PyTorch's min_compression_rate), seed=N (42),
            start=I (2: start_powerSGD_iter; 2 <= I <= --warmup, so that every timed
            iteration compresses)
  topk      examples/topk_hook.py (from the working directory, this file's folder or
            ../examples): ratio=F (0.01), ef=0|1 (1)

An SGD step follows (lr 0.001, tiny so the replicas' parameters stay finite). Every
rank writes its records with gcbench_records (forward, backward, encode, comm, decode,
exposed communication, optimizer, bytes; docs/records.md); at the end the ranks compare
their parameters' checksums, and a rank whose replica differs exits 1.

Ranks come from the environment (gcbench's wrapper for `workload: command`, torchrun,
or by hand): RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME;
GCBENCH_RECORDS is the default --out, GCBENCH_DEADLINE_S gloo's timeout (default 1800),
OMP_NUM_THREADS the default --threads (else 1).
"""
EPILOG = """\
In a spec (docs/spec.md, `workload: command`; {bin} is the folder of the provisioned
gcbench-worker):
  command: [python3, ddp_bench.py, --hook, "{method}", --params, "{params}",
            --model, "{model}", --worker, "{bin}/gcbench-worker", --out, "{records}",
            --iters, "{iterations}", --warmup, "{warmup}", --batch, "{batch}"]
  files: [ddp_bench.py, gcbench_records.py, topk_hook.py]

By hand, 2 ranks on loopback:
  for r in 0 1; do RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 \\
    GLOO_SOCKET_IFNAME=lo python3 tools/ddp_bench.py --hook powersgd --params rank=4 \\
    --model resnet50 --worker build/bin/gcbench-worker --out r$r.gcr & done; wait
  build/bin/gcbench-worker --dump r0.gcr

Exit status: 0 done, 1 failed (a collective, or replicas that differ at the end),
2 bad arguments or model, 3 torch missing.
"""
import argparse
import datetime
import faulthandler
import os
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# gcbench_records and topk_hook: beside this file (a spec's files: folder), in the
# working directory, or in the source tree
for _d in (os.path.join(HERE, "..", "examples"), os.path.join(HERE, "..", "python"),
           os.getcwd(), HERE):
    if _d not in sys.path:
        sys.path.insert(0, _d)

METHODS = {
    "syncsgd": {},
    "fp16": {},
    "powersgd": {"rank": 4, "ef": 1, "warm_start": 1, "min_compression": 2.0, "seed": 42,
                 "start": 2},
    "topk": {"ratio": 0.01, "ef": 1},
}


_KEEP = []      # objects that hold gloo process groups, never freed (see the end)


class BadArgs(Exception):
    """A mistake in the command line or the model: exit 2."""


# ---- the model's parameter list --------------------------------------------------

def parse_csv(text, label):
    """Rows (name, shape) of a gcbench parameter list (formats/arch.h: '#' comments, a
    header index,name,shape,numel[,flops_fwd], one row per tensor)."""
    rows = []
    for ln, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("index,"):
            continue
        parts = line.split(",")
        # never quote the line: the file may be anything (csv:/etc/shadow)
        if len(parts) not in (4, 5):
            raise BadArgs("%s:%d: expected index,name,shape,numel[,flops_fwd], found %d "
                          "fields" % (label, ln, len(parts)))
        try:
            shape = tuple(int(d) for d in parts[2].split("x"))
            if not shape or min(shape) < 1:
                raise ValueError
        except ValueError:
            raise BadArgs("%s:%d:%d: field 3 (shape) is not positive integers joined "
                          "by 'x'" % (label, ln, len(parts[0]) + len(parts[1]) + 3)) from None
        rows.append((parts[1], shape))
    if not rows:
        raise BadArgs("%s: no tensors; expected a header index,name,shape,numel and one "
                      "row per tensor" % label)
    return rows


def find_worker(given):
    if given:
        return given
    for w in (shutil.which("gcbench-worker"),
              os.path.join(HERE, "..", "build", "bin", "gcbench-worker")):
        if w and os.access(w, os.X_OK):
            return w
    return None


def load_rows(spec, worker=None):
    """'csv:PATH' (read here), 'csv:@bin/...' or a model name gcbench-worker knows
    (resnet50, bert-base, ...: `WORKER --print-model NAME`)."""
    if spec.startswith("csv:") and not spec.startswith("csv:@bin/"):
        try:
            with open(spec[4:]) as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as ex:
            raise BadArgs("cannot read model file '%s': %s" % (spec[4:],
                          getattr(ex, "strerror", None) or "not text")) from None
        return parse_csv(text, spec[4:])
    w = find_worker(worker)
    if not w:
        raise BadArgs("model '%s' needs gcbench-worker for its shapes: give --worker "
                      "PATH (in a spec: {bin}/gcbench-worker) or --model csv:PATH" % spec)
    try:
        p = subprocess.run([w, "--print-model", spec], capture_output=True, text=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired) as ex:
        raise BadArgs("cannot run '%s --print-model': %s" % (w, ex)) from None
    if p.returncode != 0:
        raise BadArgs("%s" % (p.stderr.strip().splitlines() or ["'%s --print-model %s' "
                      "exited %d" % (w, spec, p.returncode)])[-1])
    return parse_csv(p.stdout, "%s --print-model %s" % (w, spec))


# ---- arguments ---------------------------------------------------------------------

def parse_params(method, text):
    """'k=v,...' checked against the method's keys; the values with defaults filled."""
    want = METHODS[method]
    got, given = {}, {}
    for kv in filter(None, text.split(",")):
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise BadArgs("parameter '%s' is not key=value (e.g. rank=4)" % kv)
        if k not in want:
            raise BadArgs("method %s takes no parameter '%s'%s" % (
                method, k, "; it takes " + ", ".join(sorted(want)) if want else ""))
        try:
            x = float(v) if isinstance(want[k], float) else int(v)
        except ValueError:
            raise BadArgs("parameter %s=%s of %s is not %s" % (
                k, v, method, "a number" if isinstance(want[k], float) else "an integer")) from None
        got[k], given[k] = x, v
    p = dict(want, **got)
    bad = []
    if method == "powersgd":
        bad += ["rank must be 1..32"] if not 1 <= p["rank"] <= 32 else []
        bad += ["ef and warm_start must be 0 or 1"] if {p["ef"], p["warm_start"]} - {0, 1} else []
        bad += ["min_compression must be >= 1"] if p["min_compression"] < 1 else []
        bad += ["seed must be >= 0"] if p["seed"] < 0 else []
    if method == "topk":
        bad += ["ratio must be in (0, 1]"] if not 0 < p["ratio"] <= 1 else []
        bad += ["ef must be 0 or 1"] if p["ef"] not in (0, 1) else []
    if bad:
        raise BadArgs("method %s: %s" % (method, "; ".join(bad)))
    return p, ",".join("%s=%s" % kv for kv in sorted(given.items()))


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="ddp_bench.py", description=__doc__,
                                 epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hook", required=True, metavar="METHOD",
                    help="syncsgd, fp16, powersgd or topk (also METHOD:k=v,...)")
    ap.add_argument("--params", default="", metavar="K=V,...",
                    help="the method's parameters (see above); default none")
    ap.add_argument("--model", required=True, metavar="NAME|csv:PATH",
                    help="a model gcbench-worker knows (resnet50, bert-base, ...) or a "
                         "parameter list file")
    ap.add_argument("--worker", metavar="PATH",
                    help="gcbench-worker, for a model's shapes by name (default: on PATH, "
                         "else ../build/bin)")
    ap.add_argument("--out", default=os.environ.get("GCBENCH_RECORDS"), metavar="RECORDS",
                    help="this rank's record file (default $GCBENCH_RECORDS)")
    ap.add_argument("--iters", type=int, default=20, metavar="N",
                    help="timed iterations (default 20)")
    ap.add_argument("--warmup", type=int, default=5, metavar="W",
                    help="untimed iterations first (default 5)")
    ap.add_argument("--batch", type=int, default=32, metavar="B",
                    help="per-rank batch, a label in the header (default 32)")
    ap.add_argument("--bucket-cap-mb", type=float, default=25, metavar="X",
                    help="DDP's bucket_cap_mb: later buckets (default 25)")
    ap.add_argument("--threads", type=int, metavar="N",
                    default=int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or 1,
                    help="torch.set_num_threads (default $OMP_NUM_THREADS, else 1)")
    ap.add_argument("--lr", type=float, default=1e-3, help="SGD learning rate (default 0.001)")
    a = ap.parse_args(argv)
    try:
        method, _, inline = a.hook.partition(":")
        if method not in METHODS:
            raise BadArgs("unknown method '%s': use %s" % (method, ", ".join(METHODS)))
        text = ",".join(filter(None, (inline, a.params)))
        a.method = method
        a.param_values, a.params = parse_params(method, text)
        if not a.out:
            raise BadArgs("no record file: give --out FILE or set GCBENCH_RECORDS")
        if a.iters < 1 or a.warmup < 0 or a.batch < 1 or a.threads < 1 or not a.bucket_cap_mb > 0:
            raise BadArgs("need --iters >= 1, --warmup >= 0, --batch >= 1, --threads >= 1 "
                          "and --bucket-cap-mb > 0")
        s = a.param_values.get("start")
        if method == "powersgd" and not 2 <= s <= a.warmup:
            raise BadArgs("powersgd start=%d must be in [2, --warmup %d], so that every timed "
                          "iteration compresses (PyTorch needs start >= 2 with error "
                          "feedback or warm start); raise --warmup" % (s, a.warmup))
    except BadArgs as ex:
        ap.error(str(ex))
    return a


# ---- the run -----------------------------------------------------------------------

def build_module(torch, rows):
    class Shapes(torch.nn.Module):
        """The model's parameter tensors; forward x * sum_p 0.5 <p, p>."""

        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(1)     # the same on every replica
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


def make_hook(a):
    """(state, hook) for register_comm_hook."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    p = a.param_values
    if a.method == "syncsgd":
        return None, default_hooks.allreduce_hook
    if a.method == "fp16":
        return None, default_hooks.fp16_compress_hook
    if a.method == "powersgd":
        from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as ps
        state = ps.PowerSGDState(process_group=None, matrix_approximation_rank=p["rank"],
                                 start_powerSGD_iter=p["start"],
                                 min_compression_rate=p["min_compression"],
                                 use_error_feedback=bool(p["ef"]),
                                 warm_start=bool(p["warm_start"]), random_seed=p["seed"])
        return state, ps.powerSGD_hook
    try:
        from topk_hook import TopKState, topk_hook
    except ImportError as ex:
        raise BadArgs("method topk needs topk_hook.py (examples/) in the working "
                      "directory or beside ddp_bench.py: %s" % ex) from None
    return TopKState(ratio=p["ratio"], error_feedback=bool(p["ef"])), topk_hook


def run(torch, a, rows):
    """Returns 0, or 1 when the replicas differ."""
    import torch.distributed as dist
    import gcbench_records as gr
    deadline = float(os.environ.get("GCBENCH_DEADLINE_S", "0") or 0) or 1800
    # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (GLOO_SOCKET_IFNAME for gloo)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=deadline))
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_module(torch, rows)
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=a.bucket_cap_mb)
    state, hook = make_hook(a)
    numel = sum(int(torch.Size(s).numel()) for _, s in rows)
    rec = gr.Recorder(a.out, method=a.method, params=a.params, workload="command",
                      model=a.model, world=world, rank=rank, backend="gloo", batch=a.batch,
                      program="tools/ddp_bench.py", tensors=len(rows), numel=numel,
                      bucket_cap_mb=a.bucket_cap_mb, threads=a.threads)
    calls = [0]

    def counted(st, bucket):
        calls[0] += 1
        return hook(st, bucket)
    counted.__name__ = getattr(hook, "__name__", "hook")
    ddp.register_comm_hook(state, rec.wrap_hook(counted))
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr)
    x = torch.tensor(1.0 + rank / world)        # each rank its own gradients
    for i in range(a.warmup + a.iters):
        calls[0] = 0
        with rec.iteration(warmup=i < a.warmup) as it:
            with it.phase("forward"):
                loss = ddp(x)
            with it.phase("backward"):
                loss.backward()
            with it.phase("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=False)
            it.loss = loss.detach()
    # the replicas must hold the same parameters: compare every rank's checksum
    mine = gr.param_checksum(model)
    sums = [torch.zeros(2, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(sums, torch.tensor([int(mine[:8], 16), int(mine[8:], 16)]))
    same = all(bool(torch.equal(s, sums[0])) for s in sums)
    rec.close(checksum_param=mine, final_loss=float(loss), buckets=calls[0],
              replicas_equal=same)
    dist.destroy_process_group()
    # nothing that holds a process group may be freed before os._exit (see the end)
    _KEEP.extend((ddp, rec, state, model))
    if not same:
        sys.stderr.write("ddp_bench: rank %d: parameters differ across ranks after the run "
                         "(hook %s)\n" % (rank, a.method))
        return 1
    if rank == 0:
        print("records %s" % a.out, flush=True)
    return 0


def main(argv):
    a = parse_args(argv)
    try:
        import torch
        import torch.distributed  # noqa: F401
    except ImportError as ex:
        sys.stderr.write("ddp_bench: error: cannot import torch (%s): apt-get install "
                         "python3-torch\n" % ex)
        return 3
    try:
        rows = load_rows(a.model, a.worker)
        if a.method == "topk":
            make_hook(a)
    except BadArgs as ex:
        sys.stderr.write("ddp_bench: error: %s\n" % ex)
        return 2
    torch.set_num_threads(a.threads)
    # a rank ended from outside (gcbench's timeout, `timeout`) says where every thread
    # was: a hang names its collective
    if hasattr(faulthandler, "register"):
        faulthandler.register(signal.SIGTERM, all_threads=True, chain=True)
    try:
        return run(torch, a, rows)
    except BadArgs as ex:
        sys.stderr.write("ddp_bench: error: %s\n" % ex)
        return 2
    except Exception as ex:  # noqa: BLE001 - gloo/DDP errors, reported with the rank
        sys.stderr.write("ddp_bench: rank %s: %s: %s\n" % (os.environ.get("RANK", "?"),
                                                          type(ex).__name__, ex))
        return 1


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # End without freeing DDP or the recorder and without the interpreter's teardown:
    # on torch 1.13 that can deadlock. A gloo process group freed with the GIL held
    # (DDP's reducer holds the world group, the recorder the buckets' groups) joins its
    # worker threads, while one of them waits for the GIL to free the last tensor of a
    # finished collective (seen: 2-3 of 4 ranks hung after writing their records).
    # The records are written and renamed into place by now.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
