"""A GRACE-style compressor as a DDP communication hook (docs/hooks.md, "GRACE").

GRACE (sands-lab/grace, grace_dl/dist) defines a compressor as a class with

    compress(tensor, name) -> (tensors, ctx)     a list of tensors to send, and what
                                                 decompress needs
    decompress(tensors, ctx) -> tensor           the tensor of the input's shape
    aggregate(tensors) -> tensor                 (optional) sum of decompressed tensors
    average, tensors_size_are_same               attributes (defaults True, True)

a memory (error feedback) with compensate(tensor, name) and update(tensor, name,
compressor, tensors, ctx), and a communicator that sends the compressed tensors by
all-reduce (summed, then decompressed once) or all-gather (each rank's decompressed,
then aggregated). This module is that communicator around DDP's buckets, so a GRACE
compressor file runs as a hook without edits:

    make_hook(compressor, memory="none", per="tensor", comm="allreduce", **params)

compressor: the class (called with **params) or an instance; memory: "none" or
"residual" (GRACE's ResidualMemory: residual * beta + gamma * tensor, params beta and
gamma, default 1.0), or an object with compensate/update; per: "tensor" (each
parameter's gradient on its own, as GRACE's Horovod and torch.distributed front ends
do) or "bucket" (DDP's flat bucket as one tensor); comm: "allreduce" or "allgather".
The defaults are GRACE's: no memory, all-reduce, per tensor. Collectives go through
torch.distributed's functions (timed by gcbench_records); the hook returns a completed
future, so its decompression counts as decode.
"""
import torch
import torch.distributed as dist

PERS = ("tensor", "bucket")
COMMS = ("allreduce", "allgather")


class NoneMemory:
    """GRACE's NoneMemory: no error feedback."""

    def compensate(self, tensor, name):
        return tensor

    def update(self, tensor, name, compressor, tensors, ctx):
        pass


class ResidualMemory:
    """GRACE's ResidualMemory: what decompression lost is added back next time."""

    def __init__(self, beta=1.0, gamma=1.0):
        self.beta, self.gamma, self.residuals = beta, gamma, {}

    def compensate(self, tensor, name):
        r = self.residuals.get(name)
        if r is not None and r.shape == tensor.shape:   # DDP rebuilds its buckets once
            return self.beta * r + self.gamma * tensor
        return tensor

    def update(self, tensor, name, compressor, tensors, ctx):
        self.residuals[name] = tensor - compressor.decompress(tensors, ctx)


class GraceState:
    def __init__(self, compressor, memory, per, comm):
        self.compressor, self.memory, self.per, self.comm = compressor, memory, per, comm


def make_hook(compressor, memory="none", per="tensor", comm="allreduce", **params):
    """(state, hook) for register_comm_hook; see the module's text."""
    if per not in PERS:
        raise ValueError("per=%r: use %s" % (per, " or ".join(PERS)))
    if comm not in COMMS:
        raise ValueError("comm=%r: use %s" % (comm, " or ".join(COMMS)))
    mem_params = {k: params.pop(k) for k in ("beta", "gamma") if k in params}
    comp = compressor(**params) if isinstance(compressor, type) else compressor
    if memory == "none":
        mem = NoneMemory()
    elif memory == "residual":
        mem = ResidualMemory(**mem_params)
    elif hasattr(memory, "compensate") and hasattr(memory, "update"):
        mem = memory
    else:
        raise ValueError("memory=%r: use none, residual or an object with compensate and "
                         "update" % (memory,))
    return GraceState(comp, mem, per, comm), grace_hook


def _pieces(bucket, per):
    """(name, view of the bucket's buffer) per tensor, or the whole buffer."""
    buf = bucket.buffer()
    if per == "bucket":
        return [("bucket%d" % bucket.index(), buf)]
    out, off = [], 0
    for j, p in enumerate(bucket.parameters()):
        n = p.numel()
        out.append(("bucket%d.%d" % (bucket.index(), j), buf[off:off + n].view(p.shape)))
        off += n
    return out


def _exchange(state, tensor, name):
    """GRACE's send_step and receive for one tensor: its average over the ranks."""
    c, world = state.compressor, dist.get_world_size()
    t = state.memory.compensate(tensor, name)
    tensors, ctx = c.compress(t, name)
    state.memory.update(t, name, c, tensors, ctx)
    average = getattr(c, "average", True)
    if state.comm == "allreduce":
        for x in tensors:
            dist.all_reduce(x)
        out = c.decompress(tensors, ctx)
    else:
        same = getattr(c, "tensors_size_are_same", True)
        gathered = []
        for x in tensors:
            if same:
                parts = [torch.empty_like(x) for _ in range(world)]
                dist.all_gather(parts, x)
            else:   # sizes first, then padded payloads cut back to each rank's size
                n = torch.tensor([x.numel()], dtype=torch.int64, device=x.device)
                sizes = [torch.empty_like(n) for _ in range(world)]
                dist.all_gather(sizes, n)
                m = int(max(int(s) for s in sizes))
                pad = torch.zeros(m, dtype=x.dtype, device=x.device)
                pad[:x.numel()] = x.reshape(-1)
                parts = [torch.empty_like(pad) for _ in range(world)]
                dist.all_gather(parts, pad)
                parts = [p[:int(s)] for p, s in zip(parts, sizes)]
            gathered.append(parts)
        decoded = [c.decompress([g[r] for g in gathered], ctx) for r in range(world)]
        out = c.aggregate(decoded) if hasattr(c, "aggregate") else sum(decoded)
    return out / world if average else out


def grace_hook(state, bucket):
    """DDP comm hook: every piece of the bucket through the compressor, averaged."""
    for name, view in _pieces(bucket, state.per):
        view.copy_(_exchange(state, view.clone(), name).reshape(view.shape))
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut
