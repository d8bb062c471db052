#!/usr/bin/env python3
"""Time, in PyTorch eager, the compressors' code paths as the study ran them, per
DDP bucket of ResNet-50 and BERT-base (no training, no data set): the anchor next to
gcbench-bench-kernels' CUDA rows (tools/gpu-check.sh runs it; docs/cuda.md).

Per model, on its DDP buckets (backward order; first bucket 1 MiB, the others 25 MiB,
as DDP and kernels/plan.h) and on the whole model as one bucket (as bench-kernels):
  copy          dst.copy_(src): the copy floor (GB/s counts bytes read plus written)
  fp16          x.half(); decode: the sum of 4 payloads .float() / 4
  sign          x >= 0 packed 8 per byte (shifts and a sum); decode: unpack 4, vote
  topk          torch.topk(|x|, 1%) and x[idx]; decode: index_add_ of 4 payloads / 4
  mstopk        MSTop-K's threshold search: 20 bisection rounds on [mean|x|, max|x|],
                each a count of |x| >= mid read back to the host (.item()), then the
                selection; decode as topk
  powersgd-rR-gs / -qr  PowerSGD hook, rank R (4, 16): per matrix (ndim >= 2, rows x
                cols, compressed when (rows + cols) R 2 < rows cols) P = M Q, orthogonal P
                (gs: the hook's column-by-column Gram-Schmidt of torch <= 1.13 and of
                rank <= 2; qr: torch.linalg.qr, the hook's choice for rank > 2 since
                2.0), Q = M^T P; decode M' = P Q^T
Times: CUDA events on the current stream (--device cuda) or the host clock (cpu);
median of --reps after one warm-up. --quick: one small bucket of each model's shapes,
one rep, with self-checks of each codec's round trip (for a CPU test).

Exit status: 0 done, 1 a self-check failed, 2 bad arguments, 3 torch (or its CUDA) missing.
"""
import argparse
import statistics
import sys
import time

WORLD = 4
FIRST_BYTES = 1 << 20
BUCKET_BYTES = 25 << 20


def resnet(blocks):
    """torchvision resnet50/101 parameters in registration order (formats/arch.c)."""
    t = [("conv1.weight", (64, 3, 7, 7)), ("bn1.weight", (64,)), ("bn1.bias", (64,))]
    inplanes = 64
    for s, n in enumerate(blocks):
        planes = 64 << s
        for i in range(n):
            p = "layer%d.%d" % (s + 1, i)
            t += [(p + ".conv1.weight", (planes, inplanes, 1, 1)), (p + ".bn1.weight", (planes,)),
                  (p + ".bn1.bias", (planes,)), (p + ".conv2.weight", (planes, planes, 3, 3)),
                  (p + ".bn2.weight", (planes,)), (p + ".bn2.bias", (planes,)),
                  (p + ".conv3.weight", (4 * planes, planes, 1, 1)),
                  (p + ".bn3.weight", (4 * planes,)), (p + ".bn3.bias", (4 * planes,))]
            if i == 0:
                t += [(p + ".downsample.0.weight", (4 * planes, inplanes, 1, 1)),
                      (p + ".downsample.1.weight", (4 * planes,)),
                      (p + ".downsample.1.bias", (4 * planes,))]
            inplanes = 4 * planes
    return t + [("fc.weight", (1000, 2048)), ("fc.bias", (1000,))]


def bert():
    """BERT-base uncased parameters in registration order (formats/arch.c)."""
    t = [("emb.word", (30522, 768)), ("emb.pos", (512, 768)), ("emb.type", (2, 768)),
         ("emb.ln.w", (768,)), ("emb.ln.b", (768,))]
    for lyr in range(12):
        p = "layer%d." % lyr
        for name, o, i in (("q", 768, 768), ("k", 768, 768), ("v", 768, 768), ("ao", 768, 768)):
            t += [(p + name + ".w", (o, i)), (p + name + ".b", (o,))]
        t += [(p + "ln1.w", (768,)), (p + "ln1.b", (768,)), (p + "inter.w", (3072, 768)),
              (p + "inter.b", (3072,)), (p + "out.w", (768, 3072)), (p + "out.b", (768,)),
              (p + "ln2.w", (768,)), (p + "ln2.b", (768,))]
    return t + [("pooler.w", (768, 768)), ("pooler.b", (768,))]


MODELS = {"resnet50": lambda: resnet((3, 4, 6, 3)), "bert-base": bert}


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def ddp_buckets(shapes):
    """Shapes in backward order grouped as DDP: a bucket closes at >= its cap in fp32."""
    out, cur, size = [], [], 0
    cap = FIRST_BYTES
    for s in reversed(shapes):
        cur.append(s)
        size += 4 * numel(s)
        if size >= cap:
            out.append(cur)
            cur, size, cap = [], 0, BUCKET_BYTES
    if cur:
        out.append(cur)
    return out


def quick_bucket(shapes):
    """--quick: one small bucket of the model's own shapes (backward order, tensors of at
    most 600K elements, up to 4 MiB), matrices and vectors mixed."""
    out, size = [], 0
    for s in reversed(shapes):
        if numel(s) <= 600000 and size < 4 << 20:
            out.append(s)
            size += 4 * numel(s)
    return out


class Clock:
    """CUDA events on the current stream, or the host clock."""

    def __init__(self, torch, dev):
        self.t, self.cuda = torch, dev.type == "cuda"

    def span(self, fn):
        if self.cuda:
            a = self.t.cuda.Event(enable_timing=True)
            b = self.t.cuda.Event(enable_timing=True)
            a.record()
            r = fn()
            b.record()
            b.synchronize()
            return a.elapsed_time(b), r
        t0 = time.perf_counter()
        r = fn()
        return (time.perf_counter() - t0) * 1e3, r


def codecs(torch, ranks):
    """name -> (encode(bucket) -> payload, decode(bucket, payload) -> avg)."""

    def fp16_enc(b):
        return b.flat.half()

    def fp16_dec(b, p):
        return (p.float() * WORLD) / WORLD      # 4 identical payloads summed, averaged

    shifts = {}

    def sign_enc(b):
        n = b.flat.numel()
        bits = (b.flat >= 0).to(torch.uint8)
        pad = (-n) % 8
        if pad:
            bits = torch.cat([bits, bits.new_zeros(pad)])
        sh = shifts.setdefault(b.flat.device, torch.arange(8, device=b.flat.device, dtype=torch.uint8))
        return (bits.view(-1, 8) << sh).sum(1, dtype=torch.uint8)

    def sign_dec(b, p):
        sh = shifts[b.flat.device]
        n = b.flat.numel()
        votes = torch.zeros(n, device=b.flat.device)
        for _ in range(WORLD):
            bits = ((p.unsqueeze(1) >> sh) & 1).view(-1)[:n]
            votes += bits.float() * 2 - 1
        return torch.sign(votes)

    def topk_enc(b):
        _, idx = torch.topk(b.flat.abs(), b.k)
        return idx, b.flat[idx]

    def sparse_dec(b, p):
        idx, val = p
        avg = torch.zeros_like(b.flat)
        for _ in range(WORLD):
            avg.index_add_(0, idx, val)
        return avg / WORLD

    def mstopk_enc(b, rounds=20):
        a = b.flat.abs()
        k = b.k
        lo, hi = a.mean(), a.max()
        if int((a >= lo).sum().item()) < k:
            lo = torch.zeros_like(lo)
        for _ in range(rounds):
            mid = (lo + hi) * 0.5
            if int((a >= mid).sum().item()) >= k:
                lo = mid
            else:
                hi = mid
        top = torch.nonzero(a >= hi).view(-1)[:k]
        if top.numel() < k:
            rest = torch.nonzero((a >= lo) & (a < hi)).view(-1)[:k - top.numel()]
            top = torch.cat([top, rest])
        return top, b.flat[top]

    def gs(m):
        """the hook's Gram-Schmidt (torch <= 1.13): column by column, in place"""
        ncols = m.shape[1]
        for i in range(ncols):
            col = m[:, i:i + 1]
            col /= torch.norm(col)
            if i + 1 < ncols:
                rest = m[:, i + 1:]
                rest -= torch.sum(col * rest, dim=0) * col

    def qr(m):
        q, _ = torch.linalg.qr(m)
        m.copy_(q)

    def psgd(rank, orth):
        def enc(b):
            st = b.psgd.get(rank)
            if st is None:               # the hook's state: Q per matrix, warm start
                gen = torch.Generator(device="cpu").manual_seed(0)
                mats, qs, unc = [], [], []
                for v in b.views:
                    if v.dim() >= 2:
                        m = v.reshape(v.shape[0], -1)
                        r = min(rank, m.shape[0], m.shape[1])
                        if (m.shape[0] + m.shape[1]) * r * 2 < m.numel():
                            mats.append(m)
                            qs.append(torch.randn(m.shape[1], r, generator=gen).to(m.device))
                            continue
                    unc.append(v)
                ps = [m.new_empty(m.shape[0], q.shape[1]) for m, q in zip(mats, qs)]
                st = b.psgd[rank] = (mats, qs, ps, unc)
            mats, qs, ps, unc = st
            flat_unc = torch.cat([u.reshape(-1) for u in unc]) if unc else None
            for m, q, p in zip(mats, qs, ps):
                torch.matmul(m, q, out=p)
            for p in ps:                 # (the all-reduce of the Ps comes here)
                orth(p)
            for m, p, q in zip(mats, ps, qs):
                torch.matmul(m.t(), p, out=q)
            return flat_unc

        def dec(b, flat_unc):
            mats, qs, ps, unc = b.psgd[rank]
            outs = [torch.matmul(p, q.t()) for p, q in zip(ps, qs)]
            return outs, flat_unc
        return enc, dec

    c = {"fp16": (fp16_enc, fp16_dec), "sign": (sign_enc, sign_dec),
         "topk": (topk_enc, sparse_dec), "mstopk": (mstopk_enc, sparse_dec)}
    for r in ranks:
        for oname, fn in (("gs", gs), ("qr", qr)):
            c["powersgd-r%d-%s" % (r, oname)] = psgd(r, fn)
    return c


class Bucket:
    def __init__(self, torch, shapes, dev, gen):
        n = sum(numel(s) for s in shapes)
        self.flat = torch.randn(n, generator=gen).to(dev)
        self.views, off = [], 0
        for s in shapes:
            self.views.append(self.flat[off:off + numel(s)].view(*s))
            off += numel(s)
        self.k = max(1, -(-n // 100))
        self.psgd = {}


def self_check(torch, name, b, payload, avg):
    """The round trips a CPU test can assert; '' if fine, else why."""
    x = b.flat
    if name == "fp16":
        ok = torch.allclose(avg, x, rtol=1e-3, atol=1e-3)
        return "" if ok else "fp16 round trip off by more than 1e-3"
    if name == "sign":
        want = torch.where(x >= 0, 1.0, -1.0)
        return "" if torch.equal(avg, want) else "sign: unpacked bits differ from x >= 0"
    if name in ("topk", "mstopk"):
        idx, val = payload
        if idx.numel() != b.k or torch.unique(idx).numel() != b.k:
            return "%s: %d indices (%d distinct), want k = %d" % (name, idx.numel(), torch.unique(idx).numel(), b.k)
        kth = torch.topk(x.abs(), b.k).values[-1]
        if name == "topk" and bool((val.abs() < kth).any()):
            return "topk: a selected value below the k-th largest magnitude"
        if name == "mstopk" and float(val.abs().min()) < 0.5 * float(kth):
            return "mstopk: a selected value far below the k-th largest magnitude"
        if not torch.equal(avg[idx], val):
            return "%s: decode does not give the selected values back" % name
        return ""
    if name.startswith("powersgd"):
        outs, _ = avg
        for o in outs:
            if not bool(torch.isfinite(o).all()):
                return "%s: non-finite approximation" % name
        return ""
    return ""


def time_bucket(torch, clk, cs, b, reps, quick):
    """{method: (enc_ms, dec_ms)} medians; errors of self-checks in a list."""
    res, errs = {}, []
    dst = torch.empty_like(b.flat)
    t = []
    for r in range(reps + 1):
        ms, _ = clk.span(lambda: dst.copy_(b.flat))
        if r:
            t.append(ms)
    res["copy"] = (statistics.median(t), 0.0)
    for name, (enc, dec) in cs.items():
        te, td = [], []
        for r in range(reps + 1):
            ms_e, p = clk.span(lambda: enc(b))
            ms_d, avg = clk.span(lambda: dec(b, p))
            if r:
                te.append(ms_e)
                td.append(ms_d)
        if quick:
            why = self_check(torch, name, b, p, avg)
            if why:
                errs.append(why)
        res[name] = (statistics.median(te), statistics.median(td))
    return res, errs


def main(argv):
    ap = argparse.ArgumentParser(prog="torch_codecs.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions (median), 1..50")
    ap.add_argument("--model", action="append", choices=sorted(MODELS), help="default: both")
    ap.add_argument("--ranks", default="4,16", help="PowerSGD ranks, comma-separated")
    ap.add_argument("--quick", action="store_true", help="one small bucket, one rep, self-checks")
    a = ap.parse_args(argv)
    try:
        ranks = [int(r) for r in a.ranks.split(",")]
    except ValueError:
        ap.error("--ranks '%s' is not a list of whole numbers" % a.ranks)
    if not 1 <= a.reps <= 50 or any(r < 1 for r in ranks):
        ap.error("--reps takes 1..50 and --ranks positive numbers")
    try:
        import torch
    except ImportError as e:
        print("torch_codecs: cannot import torch (%s): install PyTorch" % e, file=sys.stderr)
        return 3
    dev = torch.device(a.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("torch_codecs: --device cuda but torch %s sees no CUDA device" % torch.__version__, file=sys.stderr)
        return 3
    reps = 1 if a.quick else a.reps
    clk = Clock(torch, dev)
    cs = codecs(torch, ranks)
    gen = torch.Generator(device="cpu").manual_seed(1)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print("# torch_codecs: torch %s on %s; world %d (decode sums %d copies of the payload); median of %d "
          "after a warm-up; %s" % (torch.__version__, name, WORLD, WORLD, reps,
                                  "CUDA events" if clk.cuda else "host clock"))
    print("# scope: ddp = the sum over the model's DDP buckets (first 1 MiB, then 25 MiB); one = the whole "
          "model as one bucket (as gcbench-bench-kernels)")
    print("# x = (enc + dec) / copy of the same scope; copy GB/s: bytes read plus written")
    print("%-9s %-5s %4s %10s %-18s %9s %9s %7s" % ("model", "scope", "nb", "numel", "method", "enc_ms", "dec_ms", "x_copy"))
    sys.stdout.flush()
    if dev.type == "cuda":                      # clocks up before the first figure
        w = torch.randn(1 << 24, device=dev)
        for _ in range(50):
            w.mul_(1.0001)
        torch.cuda.synchronize()
    bad = []
    for mname in a.model or ["resnet50", "bert-base"]:
        shapes = [s for _, s in MODELS[mname]()]
        buckets = ddp_buckets(shapes)
        scopes = [("quick", [quick_bucket(shapes)])] if a.quick else [("ddp", buckets)]
        if not a.quick:
            scopes.append(("one", [list(reversed(shapes))]))
        for scope, bl in scopes:
            tot, n = {}, 0
            for shp in bl:
                b = Bucket(torch, shp, dev, gen)
                n += b.flat.numel()
                r, errs = time_bucket(torch, clk, cs, b, reps, a.quick)
                bad += ["%s bucket of %d: %s" % (mname, b.flat.numel(), e) for e in errs]
                for k, (e, d) in r.items():
                    te, td = tot.get(k, (0.0, 0.0))
                    tot[k] = (te + e, td + d)
                del b
            cp = tot["copy"][0]
            for k, (e, d) in tot.items():
                x = (e + d) / cp if cp > 0 else float("nan")
                if k == "copy":
                    print("%-9s %-5s %4d %10d %-18s %9.3f %9s %7s  %.0f GB/s" % (
                        mname, scope, len(bl), n, k, e, "-", "-", 2 * 4 * n / 1e9 / (e / 1e3) if e > 0 else 0))
                else:
                    print("%-9s %-5s %4d %10d %-18s %9.3f %9.3f %7.2f" % (mname, scope, len(bl), n, k, e, d, x))
            sys.stdout.flush()
    for e in bad:
        print("FAIL %s" % e)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
