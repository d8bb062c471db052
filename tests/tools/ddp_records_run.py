#!/usr/bin/env python3
"""A 2-rank (or WORLD-rank) PyTorch DDP run on gloo over loopback, a tiny MLP trained
with one communication hook, each rank's records written by python/gcbench_records.py.
For tests/integration/test_python_records.sh; also a minimal example of the module.

usage: ddp_records_run.py HOOK OUTDIR [--world N] [--iters N] [--warmup N] [--port P]
HOOK: allreduce (DDP's allreduce_hook), fp16 (fp16_compress_hook), powersgd
(powerSGD_hook, rank 2). Writes OUTDIR/rank<R>.gcr. Exit 3 when torch is missing.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gcbench_records as gr  # noqa: E402

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook as ps
except ImportError as exc:
    print("ddp_records_run: torch is missing (%s)" % exc, file=sys.stderr)
    sys.exit(3)


def hook_of(name):
    if name == "allreduce":
        return None, default_hooks.allreduce_hook, ""
    if name == "fp16":
        return None, default_hooks.fp16_compress_hook, ""
    state = ps.PowerSGDState(process_group=None, matrix_approximation_rank=2,
                             start_powerSGD_iter=2, use_error_feedback=True, warm_start=True)
    return state, ps.powerSGD_hook, "rank=2"


def rank_main(rank, a):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port), GLOO_SOCKET_IFNAME="lo")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=a.world)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    ddp = DDP(model)
    state, hook, params = hook_of(a.hook)
    batch = 16
    rec = gr.Recorder(os.path.join(a.out, "rank%d.gcr" % rank), method=a.hook, params=params,
                      workload="pytorch", model="mlp-32-64-10", world=a.world, rank=rank,
                      backend="gloo", batch=batch, bucket_cap_mb=25)
    ddp.register_comm_hook(state, rec.wrap_hook(hook))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(1 + rank)
    x = torch.randn(batch, 32, generator=g)
    y = torch.randint(0, 10, (batch,), generator=g)
    loss_fn = torch.nn.CrossEntropyLoss()
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("hook", choices=("allreduce", "fp16", "powersgd"))
    p.add_argument("out")
    p.add_argument("--world", type=int, default=2)
    p.add_argument("--iters", type=int, default=6)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--port", type=int, default=29511)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    mp.spawn(rank_main, args=(a,), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
