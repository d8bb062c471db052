"""python/gcbench_grace.py on 2 gloo ranks (loopback), without DDP: fake buckets of 3
tensors through the adapter for every per x comm x memory, with compressors written
here in GRACE's shape (compress/decompress, average, tensors_size_are_same; not GRACE's
code). Exact compressors must give the exact average; top-k through all-gather with a
residual memory must give the same values on both ranks and keep what it did not send.
Prints one line per case and 'ok' at the end; exits 1 on a mismatch."""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gcbench_grace as gg  # noqa: E402


class IdentityCompressor:
    """GRACE's NoneCompressor, as a compressor of one's own writes it."""
    def __init__(self):
        self.average, self.tensors_size_are_same = True, True

    def compress(self, tensor, name):
        return [tensor], None

    def decompress(self, tensors, ctx):
        return tensors[0]


class FP16Compressor:
    def __init__(self):
        self.average, self.tensors_size_are_same = True, True

    def compress(self, tensor, name):
        return [tensor.to(torch.float16)], tensor.dtype

    def decompress(self, tensors, ctx):
        return tensors[0].to(ctx)


class TopKCompressor:
    def __init__(self, compress_ratio=0.3):
        self.average, self.tensors_size_are_same = True, True
        self.ratio = compress_ratio

    def compress(self, tensor, name):
        flat = tensor.flatten()
        k = max(1, int(flat.numel() * self.ratio))
        _, idx = flat.abs().topk(k)
        return [flat[idx], idx], (flat.numel(), tensor.size())

    def decompress(self, tensors, ctx):
        vals, idx = tensors
        numel, shape = ctx
        out = torch.zeros(numel, dtype=vals.dtype)
        out.scatter_(0, idx, vals)
        return out.view(shape)


class Bucket:
    def __init__(self, grads, index=0):
        self._ps = [torch.nn.Parameter(torch.empty(g.shape)) for g in grads]
        self._buf = torch.cat([g.flatten() for g in grads])
        self._i = index

    def buffer(self):
        return self._buf

    def index(self):
        return self._i

    def parameters(self):
        return self._ps


def grads(rank):
    g = torch.Generator().manual_seed(100 + rank)
    return [torch.randn(4, 3, generator=g), torch.randn(5, generator=g), torch.randn(2, 2, 2, generator=g)]


def run(rank, world, port, out):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    want = sum(torch.cat([x.flatten() for x in grads(r)]) for r in range(world)) / world
    lines, bad = [], 0
    for comp, exact in ((IdentityCompressor, 1e-6), (FP16Compressor, 1e-2)):
        for per in gg.PERS:
            for comm in gg.COMMS:
                state, hook = gg.make_hook(comp, memory="none", per=per, comm=comm)
                got = hook(state, Bucket(grads(rank))).value()
                err = float((got - want).abs().max())
                ok = err <= exact
                bad += not ok
                lines.append("%s per=%s comm=%s err=%.2g %s" % (comp.__name__, per, comm, err,
                                                               "ok" if ok else "BAD"))
    # top-k, all-gather, residual memory: both ranks decode the same; what was not
    # sent stays in the residual (sent + residual = input)
    for per in gg.PERS:
        state, hook = gg.make_hook(TopKCompressor, memory="residual", per=per, comm="allgather",
                                   compress_ratio=0.3)
        b = Bucket(grads(rank))
        mine = b.buffer().clone()
        got = hook(state, b).value().clone()
        both = [torch.empty_like(got) for _ in range(world)]
        dist.all_gather(both, got)
        same = bool(torch.equal(both[0], both[1]))
        res = torch.cat([state.memory.residuals[n].flatten() for n, _ in gg._pieces(Bucket(grads(rank)), per)])
        sent = mine - res
        kept = float(((sent != 0).sum() + (res != 0).sum() - mine.numel()))
        ok = same and kept <= 0 and 0 < int((sent != 0).sum()) < mine.numel()
        bad += not ok
        lines.append("TopKCompressor per=%s comm=allgather memory=residual same=%s %s" % (
            per, same, "ok" if ok else "BAD"))
    # refusals
    for kw in ({"per": "layer"}, {"comm": "broadcast"}, {"memory": "lots"}):
        try:
            gg.make_hook(IdentityCompressor, **kw)
            bad += 1
            lines.append("accepted %s BAD" % kw)
        except ValueError as ex:
            lines.append("refused %s: %s ok" % (kw, ex))
    if rank == 0:
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n" + ("ok\n" if not bad else "FAILED\n"))
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1]
    mp.spawn(run, args=(2, 29000 + os.getpid() % 1000, out), nprocs=2, join=True)
    text = open(out).read()
    print(text, end="")
    sys.exit(0 if text.endswith("ok\n") else 1)
