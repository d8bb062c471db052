"""A Top-K DDP communication hook of the kind a researcher writes: each rank keeps the k
largest-magnitude gradient entries of a bucket (the rest go into an error-feedback
residual added to the next iteration's bucket), all-gathers values and indices, and
every rank sums the gathered sparse gradients into the same dense average.

    from topk_hook import TopKState, topk_hook
    ddp.register_comm_hook(TopKState(ratio=0.01), topk_hook)

or, in a `workload: ddp` spec (experiments/pytorch-hooks.yaml, docs/hooks.md):

    - topk: {hook: ../examples/topk_hook.py:make_hook, ratio: 0.01}

Collectives go through torch.distributed's functions (dist.all_gather), so a
gcbench_records.Recorder sees them (python/gcbench_records.py, Recorder.wrap_hook).
"""
import torch
import torch.distributed as dist


class TopKState:
    def __init__(self, ratio=0.01, error_feedback=True, process_group=None):
        if not 0 < ratio <= 1:
            raise ValueError("ratio must be in (0, 1]")
        self.ratio = ratio
        self.error_feedback = error_feedback
        self.process_group = process_group
        self.residuals = {}          # bucket index -> this rank's unsent remainder


def topk_hook(state, bucket):
    grad = bucket.buffer()
    n = grad.numel()
    world = dist.get_world_size(state.process_group)
    key = bucket.index()
    res = state.residuals.get(key)
    if state.error_feedback and res is not None and res.numel() == n:
        grad.add_(res)    # (DDP rebuilds its buckets after the first iteration)
    k = max(1, int(n * state.ratio))
    idx = grad.abs().topk(k, sorted=False).indices
    vals = grad[idx].contiguous()
    if state.error_feedback:
        rest = grad.clone()
        rest[idx] = 0
        state.residuals[key] = rest
    all_vals = [torch.empty_like(vals) for _ in range(world)]
    all_idx = [torch.empty_like(idx) for _ in range(world)]
    # values first, then indices: two rounds, the second issued when the first is done
    fut_vals = dist.all_gather(all_vals, vals, group=state.process_group,
                               async_op=True).get_future()

    def gather_idx(_):
        return dist.all_gather(all_idx, idx, group=state.process_group,
                               async_op=True).get_future().wait()

    def decode(_):
        dense = torch.zeros_like(grad)
        for v, i in zip(all_vals, all_idx):
            dense.index_add_(0, i, v)
        dense.div_(world)
        bucket.buffer().copy_(dense)
        return bucket.buffer()

    return fut_vals.then(gather_idx).then(decode)


def make_hook(ratio=0.01, ef=1):
    """(state, hook) for DistributedDataParallel.register_comm_hook: a spec's
    `hook: topk_hook.py:make_hook` with parameters ratio and ef (1: error feedback)."""
    return TopKState(ratio=float(ratio), error_feedback=bool(int(ef))), topk_hook
