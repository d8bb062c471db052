#!/usr/bin/env python3
"""gcbench's DDP runner: one rank of PyTorch DDP exchanging a model's gradients through
a communication hook, timed per phase into a gcbench record file. A spec's
`workload: ddp` runs it on every rank (docs/hooks.md); it also runs by hand or as a
stack of a `workload: command` spec, beside gcbench-worker on the same shapes and caps.

The module has exactly the model's parameter tensors (the list `gcbench-worker
--print-model MODEL` prints, a csv:PATH file in that format, or tv:NAME, a torchvision
model's parameters where torchvision is installed) and a forward that costs almost
nothing: x * sum_p 0.5 <p, p> for a scalar x that differs per rank, so every parameter
gets a dense gradient x * p, different on every rank, and the exchange dominates. DDP
(first bucket 1 MiB, later ones --bucket-cap-mb) exchanges the gradients with the hook
of METHOD, named as gcbench names its methods:

  syncsgd   DDP's all-reduce (default_hooks.allreduce_hook, which is what DDP does
            without a hook, but through torch.distributed so comm is timed)
  fp16      default_hooks.fp16_compress_hook
  bf16      default_hooks.bf16_compress_hook (where the torch has it)
  powersgd  powerSGD_hook: rank=R (4), ef=0|1 (1: error feedback), warm_start=0|1 (1),
            min_compression=X (2: PyTorch's min_compression_rate), seed=N (42),
            start=I (2: start_powerSGD_iter; 2 <= I <= --warmup, so that every timed
            iteration compresses)
  batched_powersgd  batched_powerSGD_hook: the same parameters (the whole bucket as
            one square-ish matrix)
  topk      examples/topk_hook.py (from the working directory, this file's folder or
            ../examples): ratio=F (0.01), ef=0|1 (1)
  LABEL     a GRACE compressor: --params grace=FILE.py:CLASS,k=v,... through
            python/gcbench_grace.py (memory=none|residual, per=tensor|bucket,
            comm=allreduce|allgather; GRACE's defaults none, tensor, allreduce; the
            other parameters go to CLASS)
  LABEL     your own hook: --params hook=FILE.py:FUNC,k=v,... where FUNC(**{k: v})
            returns (state, hook) as DistributedDataParallel.register_comm_hook takes
            them; values that read as integers or numbers are passed as such. FILE is
            found under the working directory (a spec's files/ folder on the hosts)
            where gcbench put it: its path below the spec's folder, or, for a path
            through .. or absolute, its folder's name then its own

An SGD step follows (lr 0.001, tiny so the replicas' parameters stay finite). Every
rank writes its records with gcbench_records (forward, backward, encode, comm, decode,
exposed communication, optimizer, bytes; docs/records.md); at the end the ranks compare
their parameters' checksums, and a rank whose replica differs exits 1. A hook that
raises ends the rank with exit status 4 and a line naming the hook's file and line.

--backend mpi (the default) runs gloo on the CPU; --backend nccl runs NCCL on the GPU
cuda:LOCAL_RANK, timed with CUDA events (no synchronize inside a timed iteration).
--plan prints what this rank would do (process group, device, timing, hook) as JSON
and exits, without torch.distributed: the NCCL route checked where there is no GPU.

Ranks come from the environment (gcbench's wrapper, torchrun, or by hand): RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME;
GCBENCH_RECORDS is the default --out, GCBENCH_DEADLINE_S the process group's timeout
(default 1800), OMP_NUM_THREADS the default --threads (else 1).
"""
EPILOG = """\
In a spec: workload: ddp (docs/hooks.md) runs this file from the build; or, as a
command ({bin} is the folder of the provisioned build):
  command: [python3, "{bin}/python/gcbench_ddp.py", --hook, "{method}", --params,
            "{params}", --model, "{model}", --worker, "{bin}/gcbench-worker",
            --out, "{records}", --iters, "{iterations}", --warmup, "{warmup}"]

By hand, 2 ranks on loopback:
  for r in 0 1; do RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 \\
    GLOO_SOCKET_IFNAME=lo python3 python/gcbench_ddp.py --hook powersgd --params rank=4 \\
    --model resnet50 --worker build/bin/gcbench-worker --out r$r.gcr & done; wait
  build/bin/gcbench-worker --dump r0.gcr

Exit status: 0 done, 1 failed (a collective, or replicas that differ at the end),
2 bad arguments, model or hook, 3 torch missing, 4 the hook raised.
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

_PSGD = {"rank": 4, "ef": 1, "warm_start": 1, "min_compression": 2.0, "seed": 42, "start": 2}
METHODS = {
    "syncsgd": {},
    "fp16": {},
    "bf16": {},
    "powersgd": _PSGD,
    "batched_powersgd": _PSGD,
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
    if method.endswith("powersgd"):
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


def _value(v):
    """a parameter's text as the hook's keyword argument: int, float or str"""
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def landed(path):
    """Where gcbench put a hook file under the files/ folder (orchestrator/spec/
    spec_files.c): its path below the spec's folder; for one outside it (absolute or
    through ..), its folder's name then its own, or its own name alone."""
    parts = [x for x in path.split("/") if x not in ("", ".")]
    folder, name = parts[:-1], parts[-1:]
    if path.startswith("/") or ".." in folder:
        folder = [x for x in folder if x != ".."][-1:]
    return "/".join(folder + name)


def parse_user_hook(label, text):
    """--params hook=FILE.py:FUNC,k=v,... (or grace=FILE.py:CLASS): (file, func, kwargs,
    canonical params, 1 for grace)"""
    hook, kw, given, grace = None, {}, {}, 0
    for kv in filter(None, text.split(",")):
        k, sep, v = kv.partition("=")
        if not sep or not k or not v:
            raise BadArgs("parameter '%s' is not key=value (e.g. bits=8)" % kv)
        if k in given:
            raise BadArgs("parameter '%s' is given twice" % k)
        given[k] = v
        if k in ("hook", "grace"):
            if hook is not None:
                raise BadArgs("give hook= or grace=, not both")
            hook, grace = v, int(k == "grace")
        else:
            kw[k] = _value(v)
    if hook is None:
        raise BadArgs("unknown method '%s': use %s, or your own hook with --params "
                      "hook=FILE.py:FUNC (in a spec: - %s: {hook: my_hook.py:make_hook})"
                      % (label, ", ".join(METHODS), label))
    f, sep, func = hook.rpartition(":")
    if not sep or not f.endswith(".py") or not func.isidentifier():
        raise BadArgs("%s '%s' is not FILE.py:%s (e.g. %s)" % (
            "grace" if grace else "hook", hook, "CLASS" if grace else "FUNCTION",
            "my_compressor.py:TopKCompressor" if grace else "int8_hook.py:make_hook"))
    return f, func, kw, ",".join("%s=%s" % kv for kv in sorted(given.items())), grace


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="gcbench_ddp.py", description=__doc__,
                                 epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hook", required=True, metavar="METHOD",
                    help="syncsgd, fp16, bf16, powersgd, batched_powersgd, topk (also "
                         "METHOD:k=v,...), or a label with --params hook=FILE.py:FUNC")
    ap.add_argument("--params", default="", metavar="K=V,...",
                    help="the method's parameters (see above); default none")
    ap.add_argument("--model", required=True, metavar="NAME|csv:PATH|tv:NAME",
                    help="a model gcbench-worker knows (resnet50, bert-base, ...), a "
                         "parameter list file, or a torchvision model")
    ap.add_argument("--worker", metavar="PATH",
                    help="gcbench-worker, for a model's shapes by name (default: on PATH, "
                         "else ../build/bin)")
    ap.add_argument("--backend", default="mpi", choices=("mpi", "gloo", "nccl"),
                    help="mpi or gloo: gloo on the CPU (default); nccl: NCCL on the GPU "
                         "cuda:LOCAL_RANK")
    ap.add_argument("--plan", action="store_true",
                    help="print this rank's plan as JSON and exit (no torch.distributed)")
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
        text = ",".join(filter(None, (inline, a.params)))
        a.method = method
        a.user = None
        # topk is this runner's own (examples/topk_hook.py); a spec's label topk with
        # hook= or grace= is the user's hook, as the spec validation reads it
        users = any(kv.partition("=")[0] in ("hook", "grace") for kv in text.split(","))
        if method in METHODS and not (method == "topk" and users):
            a.param_values, a.params = parse_params(method, text)
        else:
            f, func, kw, a.params, grace = parse_user_hook(method, text)
            a.user = {"file": f, "func": func, "kwargs": kw, "landed": landed(f),
                      "grace": grace}
            a.param_values = {}
        if not a.out and not a.plan:
            raise BadArgs("no record file: give --out FILE or set GCBENCH_RECORDS")
        if a.iters < 1 or a.warmup < 0 or a.batch < 1 or a.threads < 1 or not a.bucket_cap_mb > 0:
            raise BadArgs("need --iters >= 1, --warmup >= 0, --batch >= 1, --threads >= 1 "
                          "and --bucket-cap-mb > 0")
        s = a.param_values.get("start")
        if method.endswith("powersgd") and not 2 <= s <= a.warmup:
            raise BadArgs("%s start=%d must be in [2, --warmup %d], so that every timed "
                          "iteration compresses (PyTorch needs start >= 2 with error "
                          "feedback or warm start); raise --warmup" % (method, s, a.warmup))
    except BadArgs as ex:
        ap.error(str(ex))
    return a


def plan(a):
    """What this rank does: process group, device, timing, hook (no torch needed)."""
    nccl = a.backend == "nccl"
    local = os.environ.get("LOCAL_RANK", "")
    if nccl and not local.isdigit():
        raise BadArgs("--backend nccl needs LOCAL_RANK (the GPU of this rank): gcbench's "
                      "wrapper and torchrun set it")
    return {"rank": os.environ.get("RANK", ""), "world": os.environ.get("WORLD_SIZE", ""),
            "process_group": "nccl" if nccl else "gloo",
            "device": "cuda:%d" % int(local) if nccl else "cpu",
            "timing": "cuda-events" if nccl else "cpu",
            "socket_ifname": os.environ.get("NCCL_SOCKET_IFNAME" if nccl else
                                            "GLOO_SOCKET_IFNAME", ""),
            "method": a.method, "params": a.params,
            "hook": "%s:%s" % (a.user["landed"], a.user["func"]) if a.user else a.method,
            "model": a.model, "iters": a.iters, "warmup": a.warmup}


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


def tv_rows(name):
    """A torchvision model's parameter shapes, in registration order."""
    try:
        import torchvision.models as tvm
    except ImportError:
        raise BadArgs("model 'tv:%s' needs torchvision (apt-get install python3-torchvision)"
                      % name) from None
    ctor = getattr(tvm, name, None)
    if not name.isidentifier() or not callable(ctor):
        raise BadArgs("torchvision has no model '%s'" % name)
    return [(n, tuple(p.shape)) for n, p in ctor().named_parameters()]


class HookRaised(Exception):
    """The user's hook raised: where, and what."""


def load_user_hook(a):
    """Import the user's hook module from the working directory (as a package module
    when its folders are names: `from . import codec` works) and call FUNC(**kwargs)."""
    import importlib
    path = a.user["landed"]
    if not os.path.isfile(path):
        raise BadArgs("hook file '%s' is not in %s (gcbench ships it with the build: is "
                      "it in the spec's methods?)" % (path, os.getcwd()))
    parts = path[:-3].split("/")
    folder = os.path.abspath(os.path.dirname(path) or ".")
    for d in (os.getcwd(), folder):
        if d not in sys.path:
            sys.path.insert(0, d)
    name = ".".join(parts) if all(x.isidentifier() for x in parts) else parts[-1]
    try:
        mod = importlib.import_module(name)
    except Exception as ex:   # noqa: BLE001 - the user's module: say where
        raise HookRaised(where(ex, "importing %s" % path)) from None
    fn = getattr(mod, a.user["func"], None)
    if not callable(fn):
        raise BadArgs("hook file '%s' has no %s '%s'" % (
            path, "class" if a.user["grace"] else "function", a.user["func"]))
    if a.user["grace"]:   # a GRACE compressor: gcbench's adapter makes the hook
        import functools
        import gcbench_grace
        fn = functools.partial(gcbench_grace.make_hook, fn)
    try:
        got = fn(**a.user["kwargs"])
    except Exception as ex:   # noqa: BLE001
        raise HookRaised(where(ex, "%s(%s)" % (a.user["func"], ", ".join(
            "%s=%r" % kv for kv in sorted(a.user["kwargs"].items()))))) from None
    if not (isinstance(got, tuple) and len(got) == 2 and callable(got[1])):
        raise BadArgs("%s:%s must return (state, hook), the two arguments of "
                      "register_comm_hook; it returned %s" % (path, a.user["func"],
                                                              type(got).__name__))
    return got


def where(ex, what):
    """'FILE:LINE (in FUNC): ExcType: message' for the innermost frame outside torch and
    this runner (the user's code), else the innermost frame."""
    import traceback
    frames = traceback.extract_tb(ex.__traceback__)
    mine = os.path.abspath(__file__)
    user = [f for f in frames if os.path.abspath(f.filename) != mine and
            "/torch/" not in f.filename and "/gcbench_records" not in f.filename]
    f = (user or frames or [None])[-1]
    at = "%s:%d (in %s)" % (os.path.relpath(f.filename), f.lineno, f.name) if f else "?"
    return "%s: %s: %s: %s" % (what, at, type(ex).__name__, ex)


def make_hook(a, torch):
    """(state, hook) for register_comm_hook."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    p = a.param_values
    if a.user:
        return load_user_hook(a)
    if a.method == "syncsgd":
        return None, default_hooks.allreduce_hook
    if a.method == "fp16":
        return None, default_hooks.fp16_compress_hook
    if a.method == "bf16":
        if not hasattr(default_hooks, "bf16_compress_hook"):
            raise BadArgs("this torch (%s) has no bf16_compress_hook" % torch.__version__)
        return None, default_hooks.bf16_compress_hook
    if a.method.endswith("powersgd"):
        from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as ps
        state = ps.PowerSGDState(process_group=None, matrix_approximation_rank=p["rank"],
                                 start_powerSGD_iter=p["start"],
                                 min_compression_rate=p["min_compression"],
                                 use_error_feedback=bool(p["ef"]),
                                 warm_start=bool(p["warm_start"]), random_seed=p["seed"])
        return state, ps.powerSGD_hook if a.method == "powersgd" else ps.batched_powerSGD_hook
    try:
        from topk_hook import TopKState, topk_hook
    except ImportError as ex:
        raise BadArgs("method topk needs topk_hook.py (examples/) in the working "
                      "directory or beside gcbench_ddp.py: %s" % ex) from None
    return TopKState(ratio=p["ratio"], error_feedback=bool(p["ef"])), topk_hook


def run(torch, a, rows):
    """Returns 0, or 1 when the replicas differ."""
    import torch.distributed as dist
    import gcbench_records as gr
    pl = plan(a)
    deadline = float(os.environ.get("GCBENCH_DEADLINE_S", "0") or 0) or 1800
    device = None
    if pl["device"] != "cpu":
        if not torch.cuda.is_available():
            raise BadArgs("--backend nccl needs a GPU, and this torch sees none (torch %s, "
                          "CUDA %s)" % (torch.__version__, torch.version.cuda))
        device = torch.device(pl["device"])
        torch.cuda.set_device(device)
    state, hook = make_hook(a, torch)
    # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (GLOO_/NCCL_SOCKET_IFNAME)
    dist.init_process_group(pl["process_group"], timeout=datetime.timedelta(seconds=deadline))
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_module(torch, rows)
    if device is not None:
        model = model.to(device)
    ddp = torch.nn.parallel.DistributedDataParallel(
        model, bucket_cap_mb=a.bucket_cap_mb,
        device_ids=[device.index] if device is not None else None)
    numel = sum(int(torch.Size(s).numel()) for _, s in rows)
    extra = {"hook_file": a.user["file"], "hook_function": a.user["func"]} if a.user else {}
    extra["python_executable"] = sys.executable
    rec = gr.Recorder(a.out, device=device, method=a.method, params=a.params,
                      workload="command", model=a.model, world=world, rank=rank,
                      backend=pl["process_group"], batch=a.batch,
                      program="python/gcbench_ddp.py", tensors=len(rows), numel=numel,
                      bucket_cap_mb=a.bucket_cap_mb, threads=a.threads, **extra)
    calls = [0]
    user_hook = a.user is not None

    def counted(st, bucket):
        calls[0] += 1
        if not user_hook:
            return hook(st, bucket)
        try:
            return hook(st, bucket)
        except Exception as ex:   # noqa: BLE001 - the user's code: say where, then end
            h = HookRaised(where(ex, "hook %s:%s" % (a.user["file"], a.user["func"])))
            _RAISED.append(h)      # DDP turns it into a RuntimeError of its own
            raise h from None
    counted.__name__ = getattr(hook, "__name__", "hook")
    ddp.register_comm_hook(state, rec.wrap_hook(counted))
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr)
    x = torch.tensor(1.0 + rank / world, device=device)   # each rank its own gradients
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
    sums = [torch.zeros(2, dtype=torch.int64, device=device) for _ in range(world)]
    dist.all_gather(sums, torch.tensor([int(mine[:8], 16), int(mine[8:], 16)], device=device))
    same = all(bool(torch.equal(s, sums[0])) for s in sums)
    rec.close(checksum_param=mine, final_loss=float(loss), buckets=calls[0],
              replicas_equal=same)
    dist.destroy_process_group()
    # nothing that holds a process group may be freed before os._exit (see the end)
    _KEEP.extend((ddp, rec, state, model))
    if not same:
        sys.stderr.write("gcbench_ddp: rank %d: parameters differ across ranks after the "
                         "run (hook %s)\n" % (rank, a.method))
        return 1
    if rank == 0:
        print("records %s" % a.out, flush=True)
    return 0


_RAISED = []    # the user's hook's exceptions, as raised


def hook_error(ex):
    """The HookRaised behind ex (DDP turns it into a RuntimeError), or None."""
    if _RAISED:
        return _RAISED[0]
    seen = 0
    while ex is not None and seen < 8:
        if isinstance(ex, HookRaised):
            return ex
        ex = ex.__cause__ or ex.__context__
        seen += 1
    return None


def main(argv):
    a = parse_args(argv)
    rank = os.environ.get("RANK", "?")
    try:
        if a.plan:
            import json
            print(json.dumps(plan(a), sort_keys=True))
            return 0
    except BadArgs as ex:
        sys.stderr.write("gcbench_ddp: error: %s\n" % ex)
        return 2
    try:
        import torch
        import torch.distributed  # noqa: F401
    except ImportError as ex:
        sys.stderr.write("gcbench_ddp: error: cannot import torch (%s): apt-get install "
                         "python3-torch\n" % ex)
        return 3
    try:
        rows = tv_rows(a.model[3:]) if a.model.startswith("tv:") else load_rows(a.model, a.worker)
        if a.method == "topk":
            make_hook(a, torch)
    except BadArgs as ex:
        sys.stderr.write("gcbench_ddp: error: %s\n" % ex)
        return 2
    torch.set_num_threads(a.threads)
    # a rank ended from outside (gcbench's timeout, `timeout`) says where every thread
    # was: a hang names its collective
    if hasattr(faulthandler, "register"):
        faulthandler.register(signal.SIGTERM, all_threads=True, chain=True)
    try:
        return run(torch, a, rows)
    except BadArgs as ex:
        sys.stderr.write("gcbench_ddp: error: %s\n" % ex)
        return 2
    except Exception as ex:  # noqa: BLE001 - gloo/DDP errors, reported with the rank
        h = hook_error(ex)
        if h is not None:
            sys.stderr.write("gcbench_ddp: rank %s: error: your %s\n" % (rank, h))
            return 4
        sys.stderr.write("gcbench_ddp: rank %s: %s: %s\n" % (rank, type(ex).__name__, ex))
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
