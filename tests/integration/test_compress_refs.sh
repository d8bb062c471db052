#!/usr/bin/env bash
# Held-out references for the six original methods (syncsgd, fp16, signsgd and its
# scaled + error-feedback form, topk, mstopk, powersgd), as test_compress_cli.sh has
# for the seven newer ones. Each reference is written in python3 (standard library
# only, so nothing is skipped where numpy is missing) from the method's published
# definition and the order of float operations that kernels/compress.h and
# docs/kernels.md fix, not from the C. Each case feeds 2 or 3 workers' gradients
# (ties, zeros, -0.0, values where the order of additions shows) through
# `gcbench compress --steps N` (GC_REF_BACKEND=cuda: --backend cuda) and compares the result and every worker's residual
# bit for bit; PowerSGD is compared within a tolerance derived below, since the order
# of the sums in its float32 products (P = M Q) is not fixed by the docs. Needs no
# root.
. "$(dirname "$0")/../lib.sh"

GC=$BIN/gcbench
cases="syncsgd_reference fp16_reference signsgd_vote_reference signsgd_scaled_ef_reference
	topk_ef_reference mstopk_ef_reference powersgd_reference"
# shellcheck disable=SC2086
need_cmd python3 $cases || exit 0
if [ ! -x "$GC" ]; then
	for n in $cases; do fail "$n" "$GC is not built"; done
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-refs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# gcref.py: float32 arithmetic, the formats and the driver every case uses.
# check(name, method, steps, shape, W, result, residuals, tol) writes W[w] as worker
# w's .npy, runs gcbench compress, and compares result.npy and residual_<w>.npy with
# the reference: bit for bit (tol None; -0.0 differs from +0.0) or within tol.
cat >"$tmp/gcref.py" <<'EOF'
import math, os, struct, subprocess, sys

def f32(x):
    """x rounded to float32 (round to nearest even; overflow gives inf)."""
    try:
        return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)

def positive(x):
    """The sign rule: positive iff the IEEE sign bit is clear (+0.0 yes, -0.0 no)."""
    return math.copysign(1.0, x) > 0

def fadd(a, b):
    return f32(a + b)       # exact in double, then one rounding: float32's a + b

def fdiv(a, b):
    return f32(a / b)       # a double quotient of floats rounds once more exactly

HALF_MAX = (2 - 2 ** -10) * 2.0 ** 15
def half(x):
    """IEEE 754 binary16: 11 significant bits, round to nearest even, subnormal step
    2^-24, past the largest finite value (65504) after rounding: inf."""
    if x == 0 or math.isinf(x):
        return x
    m, e = math.frexp(x)                       # |x| in [2^(e-1), 2^e)
    scale = 2.0 ** max(e - 11, -24)
    r = round(x / scale) * scale               # round() takes halves to even
    return math.copysign(math.inf if abs(r) > HALF_MAX else r, x)

M64, GAMMA = (1 << 64) - 1, 0x9e3779b97f4a7c15
def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)

def key(seed, tensor, step):
    """kernels/rng.h's key: three outputs of sequential splitmix64 with the tensor and
    the step mixed in."""
    def nxt(s):
        s = (s + GAMMA) & M64
        return s, mix(s)
    _, a = nxt(seed)
    a ^= (tensor * 0xd1342543de82ef95) & M64
    _, b = nxt(a)
    b ^= (step * 0xa0761d6478bd642f) & M64
    return nxt(b)[1]

def normals(k, n):
    """kernels/rng.h's N(0,1) values 0..n-1 under key k: Box-Muller on the pair of
    values (2 (j/2), 2 (j/2) + 1), uniforms ((v >> 11) + 1) 2^-53 and (v >> 11) 2^-53,
    the cosine for even j, the sine for odd j, in double, rounded to float."""
    out = []
    for j in range(n):
        p = j // 2
        u1 = ((mix((k + (2 * p + 1) * GAMMA) & M64) >> 11) + 1) * 2.0 ** -53
        u2 = (mix((k + (2 * p + 2) * GAMMA) & M64) >> 11) * 2.0 ** -53
        r = math.sqrt(-2.0 * math.log(u1))
        t = 2 * math.pi * u2
        out.append(f32(r * (math.sin(t) if j % 2 else math.cos(t))))
    return out

def write_npy(path, shape, vals):
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (repr(tuple(shape)),)
    pad = 64 - (10 + len(hdr) + 1) % 64
    hdr = (hdr + ' ' * pad + '\n').encode()
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr)
        f.write(struct.pack('<%df' % len(vals), *vals))

def read_npy(path):
    b = open(path, 'rb').read()
    hl = struct.unpack('<H', b[8:10])[0]
    d = b[10 + hl:]
    return list(struct.unpack('<%df' % (len(d) // 4), d))

def same(a, b, tol):
    if tol is None:
        return struct.pack('<f', a) == struct.pack('<f', b)
    return abs(a - b) <= tol

def check(name, method, steps, shape, W, result, residuals, tol=None):
    gc, tmp = os.environ['GC'], os.path.join(os.environ['REFTMP'], name)
    os.makedirs(tmp, exist_ok=True)
    args = [gc, 'compress', '--method', method, '--steps', str(steps),
            '--backend', os.environ.get('GC_REF_BACKEND') or 'cpu',
            '--out-dir', os.path.join(tmp, 'out')]
    for w, g in enumerate(W):
        write_npy(os.path.join(tmp, 'in%d.npy' % w), shape, g)
        args += ['--in', os.path.join(tmp, 'in%d.npy' % w)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit('gcbench compress failed (exit %d): %s' % (run.returncode, run.stderr))
    bad = []
    outs = [('result', result)] + [('residual_%d' % w, r) for w, r in enumerate(residuals)]
    for what, want in outs:
        got = read_npy(os.path.join(tmp, 'out', what + '.npy'))
        if len(got) != len(want) or not all(same(g, x, tol) for g, x in zip(got, want)):
            bad.append('%s: got %s want %s' % (what, got, want))
    if bad:
        sys.exit('; '.join(bad))
EOF
export GC REFTMP=$tmp PYTHONPATH=$tmp${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1

# refcase NAME: run the python reference on stdin; PASS when it exits 0
refcase() {
	local name=$1 out
	if out=$(python3 - 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}

# syncsgd: the float32 average. The all-reduce adds the workers in order 0..p-1 and
# the decode divides by p. 1e8 + 1 - 1e8 is 0 in float32 in that order (1 in others),
# -0.0 + -0.0 + -0.0 stays -0.0, and / 3 rounds.
refcase syncsgd_reference <<'EOF'
from gcref import *
W = [[1e8, -0.0, 1, 0.1, -7, 3.4e38, 2.5, 1e-45],
     [1, -0.0, 2, 0.2, 7, 3.4e38, -2.5, 1e-45],
     [-1e8, -0.0, 4, 0.3, -0.0, -3.4e38, 0.0, 1e-45]]
W = [[f32(x) for x in g] for g in W]
res = []
for i in range(len(W[0])):
    acc = W[0][i]
    for g in W[1:]:
        acc = fadd(acc, g[i])
    res.append(fdiv(acc, len(W)))
check('syncsgd', 'syncsgd', 1, [2, 4], W, res, [[0.0] * 8] * 3)
EOF

# fp16 (IEEE binary16, round to nearest even): each worker sends half(g / p), the
# all-reduce sums the halves in worker order, each addition in float then rounded to
# half, and the result is that half as a float. Inputs: halfway cases (1 + 2^-11,
# 1 + 3 2^-11 after / 3), values that overflow half (70000 / 1 ... the sum), half
# subnormals, a sum that float itself rounds (32768 + 2^-24), -0.0.
refcase fp16_reference <<'EOF'
from gcref import *
W = [[3 * (1 + 2 ** -11), 3 * (1 + 3 * 2 ** -11), 65504, 3 * 2 ** -25, -0.0, 98304, 0.3, -12345.678, 3e-8, 48.726558685302734],
     [3 * (1 + 2 ** -11), -3.0, 65504, 3 * 2 ** -24, -0.0, 3 * 2 ** -24, 0.2, 0.001, -3e-8, 0.0],
     [48.726558685302734, 3 * 2 ** -11, 65504, 3 * 2 ** -26, -0.0, 0.0, 0.1, 12345.5, 1e-9, -0.0]]
W = [[f32(x) for x in g] for g in W]
p = len(W)
res = []
for i in range(len(W[0])):
    acc = half(fdiv(W[0][i], p))
    for g in W[1:]:
        acc = half(fadd(acc, half(fdiv(g[i], p))))
    res.append(acc)
check('fp16', 'fp16', 1, [10], W, res, [[0.0] * 10] * 3)
EOF

# signsgd (Bernstein et al., ICML 2018, signSGD with majority vote): each worker
# sends sign(g), the server returns sign(sum of the signs), 0 on a tie (an even world,
# here 2 workers, and a second run with 3); -0.0 counts as negative, +0.0 as positive
# (the sign bit). No error feedback: the residuals are zero.
refcase signsgd_vote_reference <<'EOF'
from gcref import *
def vote(W):
    res = []
    for i in range(len(W[0])):
        v = sum(1 if positive(g[i]) else -1 for g in W)
        res.append(1.0 if v > 0 else -1.0 if v < 0 else 0.0)
    return res
W2 = [[1, -1, 0.0, -0.0, 0.0, -0.0, 5, -2e-45, 3, -3, 1e-30],
      [1, -1, 0.0, -0.0, -0.0, 0.0, -5, 2e-45, -0.5, 0.5, 1e-30]]
W3 = [g + [2.0] for g in W2] + [[-1, 1, -0.0, 0.0, 0.0, -0.0, 5, -1, -1, 1, -7, 0.0]]
W2 = [[f32(x) for x in g] for g in W2]
W3 = [[f32(x) for x in g] for g in W3]
check('vote2', 'signsgd', 1, [11], W2, vote(W2), [[0.0] * 11] * 2)
check('vote3', 'signsgd', 2, [3, 4], W3, vote(W3), [[0.0] * 12] * 3)
EOF

# signsgd scaled with error feedback (Karimireddy et al., ICML 2019, EF-SignSGD):
# c = g + e; worker w's scale s_w = mean |c| (the sum in double, / n, rounded to
# float; these sums are exact, so their order cannot matter); it sends s_w and
# sign(c); the result is (0 + (+-s_0) + (+-s_1) + ...) / p in float, workers in order;
# e' = c - s_w sign(c). Three steps with the same gradients, so the error feedback
# changes c; all of every worker's residual is compared. Then scaled without error
# feedback (c = g every step, residuals zero).
refcase signsgd_scaled_ef_reference <<'EOF'
from gcref import *
W = [[0.5, -4, 1, 3, -0.25, 2, -0.0, -1.5, 0.0, 0.125],
     [1, -2, 3, -4, 0.5, 0.75, 8, -0.125, -0.0, 0.0],
     [-1, 2, -3, 4, -0.5, -0.75, -8, 0.125, 0.0, 2.5]]
W = [[f32(x) for x in g] for g in W]
p, n, steps = len(W), len(W[0]), 3
for ef in (1, 0):
    E = [[0.0] * n for _ in W]
    for step in range(steps):
        C = [[fadd(x, e) for x, e in zip(g, E[w])] if ef else g for w, g in enumerate(W)]
        S = [f32(sum(abs(x) for x in c) / n) for c in C]
        res = []
        for i in range(n):
            acc = 0.0
            for w in range(p):
                acc = fadd(acc, S[w] if positive(C[w][i]) else -S[w])
            res.append(fdiv(acc, p))
        E = [[f32(x - (S[w] if positive(x) else -S[w])) if ef else 0.0 for x in c]
             for w, c in enumerate(C)]
    check('scaled_ef%d' % ef, 'signsgd:scaled=1,ef=%d' % ef, steps, [10], W, res, E)
EOF

# topk with error feedback (Stich et al., NeurIPS 2018, "Sparsified SGD with memory"):
# c = g + e; each worker sends the k = ceil(ratio n) entries of largest |c| (ties to
# the lower index), keeps e' = c with them zeroed; the result is the sum of the
# workers' sparse vectors, added into zeros in worker order in float, / p. Three
# steps; ties of equal magnitude and of zeros (0.0 and -0.0 tie at |c| = 0).
refcase topk_ef_reference <<'EOF'
from gcref import *
W = [[2, -2, 0.5, -0.0, 3, -3, 0.0, 1, 1, -0.75, 0.0, -0.0],
     [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1e-3, 0.0, -0.0, 0.0, 0.0, 0.0],
     [1e8, 1, -1, -1e8, 0.5, 4, -4, 0.25, -0.25, 2, 2, 1e-5]]
W = [[f32(x) for x in g] for g in W]
p, n, steps = len(W), len(W[0]), 3
k = max(1, math.ceil(0.25 * n))
E = [[0.0] * n for _ in W]
for step in range(steps):
    res = [0.0] * n
    for w, g in enumerate(W):
        c = [fadd(x, e) for x, e in zip(g, E[w])]
        top = sorted(range(n), key=lambda i: (-abs(c[i]), i))[:k]
        for i in sorted(top):
            res[i] = fadd(res[i], c[i])
        E[w] = [0.0 if i in top else c[i] for i in range(n)]
    res = [fdiv(x, p) for x in res]
check('topk', 'topk:ratio=0.25,ef=1', steps, [n], W, res, E)
EOF

# mstopk with error feedback: the study's (Agarwal et al., MLSys 2022) multi-sample
# top-k, gcbench's variant as docs/kernels.md defines it: lo = mean |c| (its sum is
# exact here), hi = max |c|, lo = 0 if fewer than k reach lo; `rounds` times mid = (lo
# + hi) / 2 in float, lo = mid if at least k have |c| >= mid, else hi = mid; send
# every |c| >= hi (the first k by index if more) filled up to k, in index order, from
# lo <= |c| < hi. Decode and error feedback as topk. Two rounds (the fill by index
# differs from topk) and twenty, three steps each.
refcase mstopk_ef_reference <<'EOF'
from gcref import *
W = [[2, -2, 0.5, -0.0, 3, -3, 0.0, 1, 1, -0.75, 0.0, -0.0, 1.5, -1.25, 0.125, 2.75],
     [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1e-3, 0.0, -0.0, 0.0, 0.0, 0.0, 1, 1, 1, 1],
     [64, 1, -1, -64, 0.5, 4, -4, 0.25, -0.25, 2, 2, 0.0625, 8, -8, 16, 0.0]]
W = [[f32(x) for x in g] for g in W]
p, n, steps = len(W), len(W[0]), 3
k = max(1, math.ceil(0.25 * n))
def select(c, rounds):
    a = [abs(x) for x in c]
    reach = lambda t: sum(1 for x in a if x >= t)
    lo, hi = f32(sum(a) / n), max(a)
    if reach(lo) < k:
        lo = 0.0
    for _ in range(rounds):
        mid = f32(fadd(lo, hi) * 0.5)
        if reach(mid) >= k:
            lo = mid
        else:
            hi = mid
    top = [i for i in range(n) if a[i] >= hi][:k]
    top += [i for i in range(n) if lo <= a[i] < hi][:k - len(top)]
    return set(top)
for rounds in (1, 2, 20):
    E = [[0.0] * n for _ in W]
    for step in range(steps):
        res = [0.0] * n
        for w, g in enumerate(W):
            c = [fadd(x, e) for x, e in zip(g, E[w])]
            top = select(c, rounds)
            for i in sorted(top):
                res[i] = fadd(res[i], c[i])
            E[w] = [0.0 if i in top else c[i] for i in range(n)]
        res = [fdiv(x, p) for x in res]
    check('mstopk%d' % rounds, 'mstopk:ratio=0.25,ef=1,rounds=%d' % rounds, steps, [4, 4], W, res, E)
EOF

# powersgd (Vogels et al., NeurIPS 2019, Algorithm 1, rank r, error feedback, warm
# start): per worker M = g + e, P = M Q, P averaged over the workers and
# orthonormalized (Gram-Schmidt, each projection done twice), Q = M^T P averaged, the
# result P Q^T, e' = M - P Q^T; Q starts from kernels/rng.h's normals under key (seed,
# tensor 0, step 0), Q (cols x r) row-major, and is kept across steps. Three steps,
# three 5 x 4 full-rank gradients, rank 2; then the same numbers as 1-D tensors.
# Tolerance: the reference computes in double, gcbench in float32 with its own order
# of each product's sum (undocumented: 16-lane vectors), so bits cannot be expected.
# Each float32 dot product of length m <= 5 errs by at most m u sum |a_i b_i| with u =
# 2^-24 (under 3e-7 relative); Gram-Schmidt multiplies a relative error by at most
# about 1 / s, s the sine between P's two columns (checked >= 0.1 below); a step's
# products and orthonormalization add at most 3 such errors, the error feedback carries
# them into the next step, three steps: about 3 x 3 x 10 x 3e-7 = 3e-5 of the largest
# |M|. TOL is 1e-4 of it (3x that bound). So that the case can fail, the same
# reference without the warm start (Q redrawn from (seed, 0, step) every step) and
# without error feedback must each differ from the result by more than 100 TOL.
refcase powersgd_reference <<'EOF'
from gcref import *
R, C, r, seed, steps = 5, 4, 2, 42, 3
W = [[1, -2, 0.5, 3, -0.0, 4, 1, -1, 2, 0.25, -3, 1.5, 0.0, -0.5, 2, 1, 3, 1, -2, 0.75],
     [0.5, 1, -1, 2, 3, -0.0, 1, 0.5, -2, 1, 1, -1, 4, 0.25, -0.5, 2, 1, -3, 0.5, 1],
     [-1, 0.0, 2, 1, 1, 2, -3, 0.5, 0.75, -1, 2, 1, -0.0, 3, 1, -2, 0.5, 1, 1, -1]]
W = [[f32(x) for x in g] for g in W]
p = len(W)
def mat(v):
    return [v[i * C:(i + 1) * C] for i in range(R)]
def orthonormalize(P):
    """Modified Gram-Schmidt on the columns of P (R x r), each projection twice;
    returns the columns and the smallest sine |q_j after projection| / |p_j|."""
    cols, sine = [], 1.0
    for j in range(r):
        v = [P[i][j] for i in range(R)]
        n0 = math.sqrt(sum(x * x for x in v))
        for _ in range(2):
            for q in cols:
                d = sum(a * b for a, b in zip(v, q))
                v = [a - d * b for a, b in zip(v, q)]
        nv = math.sqrt(sum(x * x for x in v))
        sine = min(sine, nv / n0 if n0 else 0.0)
        cols.append([x / nv for x in v] if nv >= 1e-8 else [0.0] * R)
    return [[cols[j][i] for j in range(r)] for i in range(R)], sine
def powersgd(warm, ef):
    Ms = [mat(g) for g in W]
    E = [[[0.0] * C for _ in range(R)] for _ in W]
    z = normals(key(seed, 0, 0), C * r)
    Q = [z[c * r:(c + 1) * r] for c in range(C)]
    sine = 1.0
    for step in range(steps):
        if not warm:
            z = normals(key(seed, 0, step), C * r)
            Q = [z[c * r:(c + 1) * r] for c in range(C)]
        Mw = [[[M[i][c] + e[i][c] for c in range(C)] for i in range(R)] for M, e in zip(Ms, E)]
        P = [[sum(sum(M[i][c] * Q[c][j] for c in range(C)) for M in Mw) / p for j in range(r)]
             for i in range(R)]
        P, s = orthonormalize(P)
        sine = min(sine, s)
        Q = [[sum(sum(M[i][c] * P[i][j] for i in range(R)) for M in Mw) / p for j in range(r)]
             for c in range(C)]
        res = [[sum(P[i][j] * Q[c][j] for j in range(r)) for c in range(C)] for i in range(R)]
        E = [[[(M[i][c] - res[i][c]) if ef else 0.0 for c in range(C)] for i in range(R)]
             for M in Mw]
    flat = lambda m: [x for row in m for x in row]
    return flat(res), [flat(e) for e in E], sine
want, wres, sine = powersgd(True, True)
if sine < 0.1:
    sys.exit('the inputs make P nearly rank-deficient (sine %.3g): the tolerance does not hold' % sine)
tol = 1e-4 * max(abs(x) for g in W for x in g)
for name, (alt, _, _) in (('no warm start', powersgd(False, True)), ('no error feedback', powersgd(True, False))):
    gap = max(abs(a - b) for a, b in zip(want, alt))
    if gap <= 100 * tol:
        sys.exit('the reference %s is within %g of the reference: the case cannot tell them apart' % (name, gap))
check('powersgd', 'powersgd:rank=%d,min_compression=1,seed=%d' % (r, seed), steps, [R, C], W, want, wres, tol)
# a 1-D tensor is not a matrix: sent as it is, the float32 average (bit for bit)
avg = []
for i in range(R * C):
    acc = W[0][i]
    for g in W[1:]:
        acc = fadd(acc, g[i])
    avg.append(fdiv(acc, p))
check('powersgd1d', 'powersgd:rank=%d,min_compression=1' % r, steps, [R * C], W, avg, [[0.0] * (R * C)] * p)
EOF

# --steps takes a whole number from 1 to 1000; anything else is refused (exit 2),
# naming it
why=
for bad in 0 1001 -1 1.5 x ''; do
	out=$("$GC" compress --method syncsgd --steps "$bad" --in "$REFTMP/syncsgd/in0.npy" 2>&1)
	rc=$?
	if [ "$rc" -ne 2 ] || ! printf '%s' "$out" | grep -q -- "invalid --steps '$bad': give a whole number from 1 to 1000"; then
		why="--steps '$bad': exit $rc, $out"
		break
	fi
done
if [ -z "$why" ]; then pass steps_invalid; else fail steps_invalid "$why"; fi
