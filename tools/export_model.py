#!/usr/bin/env python3
"""Export a PyTorch model's parameter list (and optionally a measured backward profile)
for gcbench's replay workload.

gcbench-worker replays a model from its parameter tensors: `--workload replay:csv:FILE`
reads the list this tool writes (the format of data/models/*.csv: a '#' comment line,
the header `index,name,shape,numel`, then one row per parameter in registration order,
the order `model.named_parameters()` yields; shape as AxBxC). Backward order, how
data-parallel training buckets gradients, is the reverse.

With --profile it also measures, on this machine's CPU (or a GPU with --device cuda), when
each parameter's gradient becomes ready during backward (a hook on every parameter) and
writes the delta to the previous ready gradient, in the order backward produced them, as
`name,t_bwd_seconds` rows: the file `gcbench-worker --profile FILE` accepts. The median
over --repeat timed backward passes (after one warmup) is written.

Examples:
  python3 tools/export_model.py --torchvision resnet50 --out resnet50.csv
  python3 tools/export_model.py --torchvision resnet50 --out r50.csv \\
      --profile r50-profile.csv --batch 32 --input 3x224x224
  PYTHONPATH=. python3 tools/export_model.py --module mypkg.mymodel:build --out my.csv
  # then, under mpirun:
  gcbench-worker --workload replay:csv:r50.csv --profile r50-profile.csv --method powersgd ...

Exit status: 0 done, 1 export or profile failed, 2 bad arguments, 3 torch missing.
"""
import argparse
import importlib
import os
import statistics
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="export_model.py",
        description=__doc__[:__doc__.index("Examples:")].strip(),
        epilog=__doc__[__doc__.index("Examples:"):],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--torchvision", metavar="NAME",
                     help="a torchvision.models builder, e.g. resnet50, resnet101, vgg16 (built with weights=None)")
    src.add_argument("--module", metavar="PKG.MOD:CALLABLE",
                     help="import PKG.MOD and call CALLABLE() for an nn.Module (PYTHONPATH decides where PKG is found)")
    p.add_argument("--out", required=True, metavar="FILE", help="parameter list to write ('-' for stdout)")
    p.add_argument("--name", help="model name in the comment line (default: the torchvision name or CALLABLE)")
    p.add_argument("--trainable-only", action="store_true",
                   help="skip parameters with requires_grad=False (DDP does not exchange them)")
    g = p.add_argument_group("backward profile (optional)")
    g.add_argument("--profile", metavar="FILE", help="also measure per-tensor backward seconds into FILE")
    g.add_argument("--batch", type=int, default=32, help="batch size of the profiled pass (default 32)")
    g.add_argument("--input", default="3x224x224", metavar="AxBxC",
                   help="shape of one sample, without the batch dimension (default 3x224x224)")
    g.add_argument("--input-dtype", choices=["float", "long"], default="float",
                   help="'long' feeds token ids in [0, --vocab) (language models)")
    g.add_argument("--vocab", type=int, default=1000, help="token id range for --input-dtype long")
    g.add_argument("--repeat", type=int, default=3, help="timed backward passes; the median is written (default 3)")
    g.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                   help="where to profile (auto: cuda when available); on cuda every hook synchronizes")
    g.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    a = p.parse_args(argv)
    if a.batch < 1 or a.repeat < 1 or a.vocab < 1:
        p.error("--batch, --repeat and --vocab must be at least 1")
    try:
        a.input_shape = [int(x) for x in a.input.lower().split("x")]
        if not a.input_shape or min(a.input_shape) < 1:
            raise ValueError
    except ValueError:
        p.error("--input '%s' is not a shape like 3x224x224 (positive integers joined by 'x')" % a.input)
    return a


def import_torch():
    try:
        import torch  # noqa: F401
        return torch
    except ImportError as ex:
        sys.stderr.write("export_model: cannot import torch (%s); install it: apt-get install python3-torch "
                         "python3-torchvision (or pip install torch torchvision)\n" % ex)
        sys.exit(3)


def build_model(a, torch):
    """Return (module, name, source description)."""
    if a.torchvision:
        try:
            import torchvision
        except ImportError as ex:
            sys.stderr.write("export_model: cannot import torchvision (%s); apt-get install python3-torchvision\n" % ex)
            sys.exit(3)
        builder = getattr(torchvision.models, a.torchvision, None)
        if not callable(builder) or a.torchvision.startswith("_"):
            sys.stderr.write("export_model: torchvision %s has no model '%s'; try resnet50, resnet101, vgg16, "
                             "vit_b_16, ...\n" % (torchvision.__version__, a.torchvision))
            sys.exit(2)
        try:
            model = builder(weights=None)
        except TypeError:  # torchvision < 0.13
            model = builder(pretrained=False)
        ver = ".".join(torchvision.__version__.split("+")[0].split(".")[:2])
        return model, a.name or a.torchvision, "torchvision %s definition" % ver
    modname, _, fn = a.module.partition(":")
    if not modname or not fn:
        sys.stderr.write("export_model: --module '%s' must be PKG.MOD:CALLABLE, e.g. mypkg.mymodel:build\n" % a.module)
        sys.exit(2)
    sys.path.insert(0, os.getcwd())
    try:
        mod = importlib.import_module(modname)
    except Exception as ex:  # noqa: BLE001 - any import error is the user's to see
        sys.stderr.write("export_model: cannot import '%s': %s: %s (is it on PYTHONPATH?)\n"
                         % (modname, type(ex).__name__, ex))
        sys.exit(1)
    build = getattr(mod, fn, None)
    if not callable(build):
        sys.stderr.write("export_model: '%s' has no callable '%s'\n" % (modname, fn))
        sys.exit(2)
    model = build()
    if not isinstance(model, torch.nn.Module):
        sys.stderr.write("export_model: %s() returned %s, not a torch.nn.Module\n" % (a.module, type(model).__name__))
        sys.exit(1)
    return model, a.name or fn, "%s from %s" % (type(model).__name__, a.module)


def parameter_rows(model, trainable_only):
    rows = []
    for name, prm in model.named_parameters():
        if trainable_only and not prm.requires_grad:
            continue
        shape = "x".join(str(d) for d in prm.shape) if prm.dim() > 0 else "1"
        if prm.dim() > 4:
            sys.stderr.write("export_model: warning: '%s' has %d dimensions; gcbench-worker's replay takes 1 to 4\n"
                             % (name, prm.dim()))
        rows.append((name, shape, prm.numel()))
    return rows


def write_list(path, name, source, rows):
    total = sum(r[2] for r in rows)
    lines = ["# %s: %d tensors, %d parameters, forward (registration) order; %s" % (name, len(rows), total, source),
             "index,name,shape,numel"]
    for i, (n, s, k) in enumerate(rows):
        if "," in n or "\n" in n:
            raise ValueError("parameter name '%s' contains a comma or newline" % n)
        lines.append("%d,%s,%s,%d" % (i, n, s, k))
    text = "\n".join(lines) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)
    return total


def make_input(a, torch, device):
    shape = [a.batch] + a.input_shape
    if a.input_dtype == "long":
        return torch.randint(0, a.vocab, shape, device=device)
    return torch.randn(shape, device=device)


def scalar_loss(out, torch):
    """Reduce whatever the model returns (tensor, tuple, dict, HF ModelOutput) to a scalar."""
    if isinstance(out, torch.Tensor):
        return out.float().mean()
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        ts = [scalar_loss(o, torch) for o in out
              if isinstance(o, (torch.Tensor, list, tuple, dict)) and not (isinstance(o, torch.Tensor) and not o.is_floating_point())]
        if ts:
            return sum(ts)
    raise TypeError("cannot reduce the model's output (%s) to a loss" % type(out).__name__)


def one_pass(model, x, params, torch, sync):
    """One forward+backward; returns {name: ready time} and the backward start time."""
    ready = {}
    handles = []
    for n, prm in params:
        def hook(g, n=n):
            if sync:
                torch.cuda.synchronize()
            ready[n] = time.perf_counter()  # last contribution (tied weights)
            return None
        handles.append(prm.register_hook(hook))
    try:
        model.zero_grad(set_to_none=True)
        loss = scalar_loss(model(x), torch)
        if sync:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss.backward()
        if sync:
            torch.cuda.synchronize()
    finally:
        for h in handles:
            h.remove()
    return ready, t0


def deltas(ready, t0):
    """Ready times -> per-tensor seconds since the previous ready gradient, in ready order."""
    out, prev = {}, t0
    for n, t in sorted(ready.items(), key=lambda kv: kv[1]):
        out[n] = max(0.0, t - prev)
        prev = t
    return out


def profile(a, model, rows, torch):
    device = "cuda" if a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available()) else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        sys.stderr.write("export_model: --device cuda, but torch sees no CUDA device\n")
        sys.exit(2)
    model = model.to(device).train()
    names = {r[0] for r in rows}
    params = [(n, p) for n, p in model.named_parameters() if n in names and p.requires_grad]
    x = make_input(a, torch, device)
    runs, first = [], None
    for i in range(a.repeat + 1):  # the first pass warms up allocators and caches
        ready, t0 = one_pass(model, x, params, torch, device == "cuda")
        if i:
            runs.append(deltas(ready, t0))
            first = first or ready
    missing = [r[0] for r in rows if r[0] not in runs[0]]
    for n in missing[:5]:
        sys.stderr.write("export_model: warning: '%s' got no gradient in backward (unused or frozen): 0 s\n" % n)
    prof = {r[0]: statistics.median(run.get(r[0], 0.0) for run in runs) for r in rows}
    order = sorted(rows, key=lambda r: first.get(r[0], float("inf")))  # ready order
    lines = ["# backward profile of %d tensors: batch %d, input %s (%s), %s, median of %d passes, torch %s"
             % (len(rows), a.batch, a.input, a.input_dtype, device, a.repeat, torch.__version__),
             "# seconds since the previous gradient was ready, in the order backward produced them",
             "name,t_bwd_seconds"]
    lines += ["%s,%.9f" % (r[0], prof[r[0]]) for r in order]
    with open(a.profile, "w") as f:
        f.write("\n".join(lines) + "\n")
    return sum(prof.values()), device


def main(argv):
    a = parse_args(argv)
    torch = import_torch()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model, name, source = build_model(a, torch)
    rows = parameter_rows(model, a.trainable_only)
    if not rows:
        sys.stderr.write("export_model: the model has no parameters to export\n")
        return 1
    try:
        total = write_list(a.out, name, source, rows)
    except (OSError, ValueError) as ex:
        sys.stderr.write("export_model: cannot write '%s': %s\n" % (a.out, ex))
        return 1
    if a.out != "-":
        sys.stderr.write("wrote %s: %d tensors, %d parameters\n" % (a.out, len(rows), total))
    if a.profile:
        try:
            secs, device = profile(a, model, rows, torch)
        except Exception as ex:  # noqa: BLE001 - report the model's own error plainly
            sys.stderr.write("export_model: profiling '%s' with input %dx%s failed: %s: %s "
                             "(check --input and --input-dtype)\n" % (name, a.batch, a.input, type(ex).__name__, ex))
            return 1
        sys.stderr.write("wrote %s: backward %.4f s per pass on %s (batch %d)\n" % (a.profile, secs, device, a.batch))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
