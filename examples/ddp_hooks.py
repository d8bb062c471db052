#!/usr/bin/env python3
"""PyTorch DDP with a communication hook, timed per phase into gcbench record files:
the program experiments/pytorch-hooks.yaml sweeps (workload: command, docs/spec.md).

Each rank trains a small MLP on synthetic data with one hook and writes its record file
with python/gcbench_records.py (forward, backward, encode, comm, decode, optimizer,
bytes; the final parameters' checksum in the header, equal on every replica).

    ddp_hooks.py --hook HOOK [--params k=v,...] --out FILE [--iters N] [--warmup N]
                 [--batch N] [--model mlp|mlp-small]

HOOK: allreduce (DDP's default all-reduce), fp16 (fp16_compress_hook), powersgd
(powerSGD_hook; params rank=R, start=I), topk (examples/topk_hook.py; params ratio=F).
Ranks come from the environment gcbench's wrapper sets (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, GLOO_SOCKET_IFNAME); CPU ranks on gloo.
Exit 3 when torch is missing.
"""
import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcbench_records as gr  # noqa: E402

try:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as ps
except ImportError as exc:
    print("ddp_hooks: error: torch is missing (%s); apt-get install python3-torch" % exc,
          file=sys.stderr)
    sys.exit(3)

from topk_hook import TopKState, topk_hook  # noqa: E402

# Small models, for a quick sweep: the MLP's gradients fit DDP's first bucket. Larger
# models with several buckets work too: gcbench_records gives each bucket its own gloo
# process group, so hooks that issue later rounds from callbacks (PowerSGD's Q, the
# Top-K example's indices) pair them up right on every rank.
MODELS = {"mlp": (256, [256, 256], 10), "mlp-small": (64, [128], 10)}


def parse_params(text):
    out = {}
    for kv in filter(None, text.split(",")):
        k, sep, v = kv.partition("=")
        if not sep:
            raise SystemExit("ddp_hooks: error: parameter '%s' is not key=value" % kv)
        out[k] = v
    return out


def make_hook(name, p):
    """(state, hook) for DDP's register_comm_hook; unknown parameters are refused."""
    allowed = {"allreduce": set(), "fp16": set(), "powersgd": {"rank", "start"},
               "topk": {"ratio"}}
    if name not in allowed:
        raise SystemExit("ddp_hooks: error: unknown hook '%s'; use %s"
                         % (name, ", ".join(sorted(allowed))))
    extra = set(p) - allowed[name]
    if extra:
        raise SystemExit("ddp_hooks: error: hook %s takes no parameter %s"
                         % (name, ", ".join(sorted(extra))))
    if name == "allreduce":
        return None, default_hooks.allreduce_hook
    if name == "fp16":
        return None, default_hooks.fp16_compress_hook
    if name == "powersgd":
        state = ps.PowerSGDState(process_group=None,
                                 matrix_approximation_rank=int(p.get("rank", 4)),
                                 start_powerSGD_iter=int(p.get("start", 2)),
                                 use_error_feedback=True, warm_start=True)
        return state, ps.powerSGD_hook
    return TopKState(ratio=float(p.get("ratio", 0.01))), topk_hook


def model_of(name):
    if name not in MODELS:
        raise SystemExit("ddp_hooks: error: unknown model '%s'; use %s"
                         % (name, ", ".join(sorted(MODELS))))
    d_in, hidden, d_out = MODELS[name]
    layers, prev = [], d_in
    for h in hidden:
        layers += [torch.nn.Linear(prev, h), torch.nn.ReLU()]
        prev = h
    layers.append(torch.nn.Linear(prev, d_out))
    return torch.nn.Sequential(*layers), d_in, d_out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hook", required=True)
    ap.add_argument("--params", default="")
    ap.add_argument("--out", default=os.environ.get("GCBENCH_RECORDS"))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--model", default="mlp")
    a = ap.parse_args()
    if not a.out:
        raise SystemExit("ddp_hooks: error: no --out and no GCBENCH_RECORDS")
    params = parse_params(a.params)
    threads = int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
    if threads > 0:
        torch.set_num_threads(threads)
    # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; gcbench's --deadline as gloo's
    # timeout, so a collective with a dead peer fails instead of hanging to the timeout
    deadline = float(os.environ.get("GCBENCH_DEADLINE_S", "0") or 0)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=deadline or 1800))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)                # the same initial parameters on every replica
    model, d_in, d_out = model_of(a.model)
    ddp = DDP(model)
    state, hook = make_hook(a.hook, params)
    rec = gr.Recorder(a.out, method=a.hook, params=a.params,
                      workload="command", model=a.model, world=world, rank=rank,
                      backend="gloo", batch=a.batch, program="examples/ddp_hooks.py")
    ddp.register_comm_hook(state, rec.wrap_hook(hook))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1 + rank)   # each rank its own data
    x = torch.randn(a.batch, d_in, generator=g)
    y = torch.randint(0, d_out, (a.batch,), generator=g)
    for i in range(a.warmup + a.iters):
        with rec.iteration(warmup=i < a.warmup) as it:
            with it.phase("forward"):
                loss = loss_fn(ddp(x), y)
            with it.phase("backward"):
                loss.backward()
            with it.phase("optimizer"):
                opt.step()
                opt.zero_grad()
            it.loss = loss.detach()
    rec.close(checksum_param=gr.param_checksum(model), final_loss=float(loss))
    dist.destroy_process_group()
    return ddp, rec      # kept alive by the caller: see below


if __name__ == "__main__":
    keep = main()
    # torch 1.13 can deadlock freeing DDP or a gloo process group with the GIL held
    # (docs/pytorch.md, Limits): end without freeing them, the records written
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
