#!/usr/bin/env bash
# Integration test of `gcbench compress`: outputs of a simulated exchange and the
# messages for bad input. Needs no root; writes .npy files with python3 (no numpy).
. "$(dirname "$0")/../lib.sh"

GC=$BIN/gcbench
need_cmd python3 help sync_average topk_ratio powersgd_shape bf16_reference randomk_reference terngrad_reference qsgd_reference efsign_ar_reference dgc_reference cgx_reference bad_dtype bad_shape \
	truncated not_npy no_input bad_method bad_param || exit 0
if [ ! -x "$GC" ]; then
	for n in help sync_average topk_ratio powersgd_shape bf16_reference randomk_reference terngrad_reference qsgd_reference efsign_ar_reference dgc_reference cgx_reference bad_dtype bad_shape truncated \
		 not_npy no_input bad_method bad_param; do fail "$n" "$GC is not built"; done
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-compress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# npy PATH DTYPE SHAPE VALUES...: write a .npy (DTYPE f4 or f8; SHAPE like 2,3).
npy() {
	python3 - "$@" <<'EOF'
import struct, sys
path, dt, shape = sys.argv[1], sys.argv[2], tuple(int(x) for x in sys.argv[3].split(',') if x)
vals = [float(v) for v in sys.argv[4:]]
hdr = "{'descr': '<%s', 'fortran_order': False, 'shape': %s, }" % (dt, repr(shape))
pad = 64 - (10 + len(hdr) + 1) % 64
hdr = (hdr + ' ' * pad + '\n').encode()
with open(path, 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr)
    f.write(struct.pack('<%d%s' % (len(vals), 'f' if dt == 'f4' else 'd'), *vals))
EOF
}

# readnpy PATH: print the float32 values, one per line
readnpy() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
hl = struct.unpack('<H', b[8:10])[0]
print(b[10:10 + hl].decode().strip(), file=sys.stderr)
d = b[10 + hl:]
for v in struct.unpack('<%df' % (len(d) // 4), d):
    print(repr(v))
EOF
}

# expect_err NAME PATTERN ARGS...: the command fails and stderr matches PATTERN
expect_err() {
	local name=$1 pat=$2 out rc; shift 2
	out=$("$GC" compress "$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" -ne 0 ] && printf '%s' "$out" | grep -q -- "$pat"; then pass "$name"
	else fail "$name" "exit $rc, stderr: $out (wanted /$pat/)"; fi
}

out=$("$GC" compress --help) && printf '%s' "$out" | grep -q 'example:' &&
	printf '%s' "$out" | grep -q -- '--out-dir' && pass help || fail help "$out"

npy "$tmp/a.npy" f4 2,3 1 2 3 4 5 6
npy "$tmp/b.npy" f4 2,3 3 2 1 0 -1 -2
if out=$("$GC" compress --method syncsgd --in "$tmp/a.npy" --in "$tmp/b.npy" --out-dir "$tmp/o1" 2>&1) &&
   [ "$(readnpy "$tmp/o1/result.npy" 2>/dev/null | tr '\n' ' ')" = "2.0 2.0 2.0 2.0 2.0 2.0 " ] &&
   readnpy "$tmp/o1/result.npy" 2>&1 >/dev/null | grep -q "'shape': (2, 3)" &&
   [ -f "$tmp/o1/residual_0.npy" ] && [ -f "$tmp/o1/residual_1.npy" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *24 per worker' &&
   printf '%s' "$out" | grep -q 'rel_error: *0 ' &&
   printf '%s' "$out" | grep -q 'identical: *yes'; then
	pass sync_average
else
	fail sync_average "$out"
fi

# topk keeps ceil(0.5 * 6) = 3 of 6: payload 24 bytes, ratio 1; EF residual + sent = input
npy "$tmp/c.npy" f4 6 0.5 -4 1 3 -0.25 2
if out=$("$GC" compress --method topk:ratio=0.5,ef=1 --in "$tmp/c.npy" --out-dir "$tmp/o2" 2>&1) &&
   printf '%s' "$out" | grep -q 'payload_bytes: *24 per worker' &&
   printf '%s' "$out" | grep -q 'ratio: *1.000' &&
   [ "$(readnpy "$tmp/o2/result.npy" 2>/dev/null | tr '\n' ' ')" = "0.0 -4.0 0.0 3.0 0.0 2.0 " ] &&
   [ "$(readnpy "$tmp/o2/residual_0.npy" 2>/dev/null | tr '\n' ' ')" = "0.5 0.0 1.0 0.0 -0.25 0.0 " ]; then
	pass topk_ratio
else
	fail topk_ratio "$out"
fi

# powersgd on a rank-1 4x3 matrix (3 workers): exact, same shape back
npy "$tmp/m.npy" f4 4,3 1 2 3 2 4 6 3 6 9 4 8 12
if out=$("$GC" compress --method powersgd:rank=1,min_compression=1 --in "$tmp/m.npy" \
	--in "$tmp/m.npy" --in "$tmp/m.npy" --out-dir "$tmp/o3" 2>&1) &&
   readnpy "$tmp/o3/result.npy" 2>&1 >/dev/null | grep -q "'shape': (4, 3)" &&
   printf '%s' "$out" | grep -q 'payload_bytes: *28 per worker' &&
   printf '%s' "$out" | grep -Eq 'rel_error: *[0-9.]+e-0[5-9]|rel_error: *0 '; then
	pass powersgd_shape
else
	fail powersgd_shape "$out"
fi

# bf16 against a held-out reference written from the format's definition (8 significant
# bits, round to nearest even, the float32 exponent range, overflow to inf), not from
# the C's bit tricks: two workers, payload bf16(g / 2) each (exact halving), their sum
# rounded to float32 then to bf16. Ties, carries into the exponent, subnormals, -0 and
# values that overflow are among the inputs.
bf16_vals="1.00390625 1.01171875 -3.0e38 3.3961776e38 1e-40 -0.0 0.1 -7.5 65504 2.3509887e-38"
bf16_vals2="1.0 1.0 -3.0e38 3.3961776e38 2e-40 -0.0 0.2 7.499 -1 2.3509887e-38"
npy "$tmp/f0.npy" f4 10 $bf16_vals
npy "$tmp/f1.npy" f4 10 $bf16_vals2
want=$(python3 - $bf16_vals -- $bf16_vals2 <<'EOF2'
import math, struct, sys
def f32(x):
    try:
        return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
BF16_MAX = (2 - 2 ** -7) * 2.0 ** 127
def bf16(x):
    if x == 0 or math.isinf(x):
        return x
    m, e = math.frexp(x)                      # x = m * 2^e, 0.5 <= |m| < 1
    scale = 2.0 ** max(e - 8, -133)           # 8 significant bits; subnormal step 2^-133
    r = round(x / scale) * scale              # Python rounds halves to even
    return math.copysign(math.inf, x) if abs(r) > BF16_MAX else r
i = sys.argv.index('--')
a = [f32(float(v)) for v in sys.argv[1:i]]
b = [f32(float(v)) for v in sys.argv[i + 1:]]
for x, y in zip(a, b):
    print(repr(bf16(f32(bf16(f32(x / 2)) + bf16(f32(y / 2))))))
EOF2
)
if out=$("$GC" compress --method bf16 --in "$tmp/f0.npy" --in "$tmp/f1.npy" --out-dir "$tmp/o4" 2>&1) &&
   got=$(readnpy "$tmp/o4/result.npy" 2>/dev/null) && [ -n "$want" ] && [ "$got" = "$want" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *20 per worker'; then
	pass bf16_reference
else
	fail bf16_reference "$out; got: $(echo $got); want: $(echo $want)"
fi

# randomk against a held-out reference written from the definition in
# kernels/compress.h and kernels/rng.h (splitmix64 in counter form, the key from
# (seed, 0, step), one index per stratum): k = ceil(0.3 * 10) = 3 of 10, two workers,
# result sum / 2 at the picked indices and 0 elsewhere; each residual is its input with
# the picked entries zeroed.
rk_a="0.5 -4 1 3 -0.25 2 7 -1.5 0.125 9"
rk_b="1 2 3 4 5 6 7 8 9 10"
npy "$tmp/r0.npy" f4 10 $rk_a
npy "$tmp/r1.npy" f4 10 $rk_b
want=$(python3 - 77 3 $rk_a -- $rk_b <<'EOF2'
import struct, sys
M, G = (1 << 64) - 1, 0x9e3779b97f4a7c15
def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
def nxt(s):                                   # sequential splitmix64: (state, output)
    s = (s + G) & M
    return s, mix(s)
def key(seed, tensor, step):
    s, a = nxt(seed)
    a ^= (tensor * 0xd1342543de82ef95) & M
    a, b = nxt(a)
    b ^= (step * 0xa0761d6478bd642f) & M
    return nxt(b)[1]
def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]
seed, k = int(sys.argv[1]), int(sys.argv[2])
i = sys.argv.index('--')
a = [f32(float(v)) for v in sys.argv[3:i]]
b = [f32(float(v)) for v in sys.argv[i + 1:]]
n, kk = len(a), key(seed, 0, 0)
s = kk
picks = []
for j in range(k):                            # value j is the (j+1)-th of the stream
    s, r = nxt(s)
    lo, hi = j * n // k, (j + 1) * n // k
    picks.append(lo + (((r >> 32) * (hi - lo)) >> 32))
out = [0.0] * n
for p in picks:
    out[p] = f32(f32(a[p] + b[p]) / 2)
print(' '.join(repr(x) for x in out))
print(' '.join(repr(0.0 if j in picks else x) for j, x in enumerate(a)))
EOF2
)
if out=$("$GC" compress --method randomk:ratio=0.3,seed=77 --in "$tmp/r0.npy" --in "$tmp/r1.npy" --out-dir "$tmp/o5" 2>&1) &&
   got="$(readnpy "$tmp/o5/result.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
$(readnpy "$tmp/o5/residual_0.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')" &&
   [ -n "$want" ] && [ "$got" = "$want" ] && [ "$(grep -o '[1-9]' <<<"${want%%$'\n'*}" | wc -l)" -ge 3 ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *12 per worker'; then
	pass randomk_reference
else
	fail randomk_reference "$out; got: $got; want: $want"
fi

# terngrad against a held-out reference from the paper's definition (Wen et al. 2017:
# scale s = max |g|, each element s sign(g) with probability |g| / s, else 0) with the
# draws of kernels/rng.h (uniform = top 24 bits of value w 2^32 + i under the key of
# (seed, tensor 0, step 0)); two workers, the float sum of their values / 2.
tg_a="0.5 -4 1 3 -0.25 2 -0.0 -1.5"
tg_b="1 -2 3 -4 0.5 0.75 8 -0.125"
npy "$tmp/t0.npy" f4 8 $tg_a
npy "$tmp/t1.npy" f4 8 $tg_b
want=$(python3 - 5 $tg_a -- $tg_b <<'EOF2'
import math, struct, sys
M, G = (1 << 64) - 1, 0x9e3779b97f4a7c15
def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
def nxt(s):
    s = (s + G) & M
    return s, mix(s)
def key(seed, tensor, step):
    s, a = nxt(seed)
    a ^= (tensor * 0xd1342543de82ef95) & M
    a, b = nxt(a)
    b ^= (step * 0xa0761d6478bd642f) & M
    return nxt(b)[1]
def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]
seed = int(sys.argv[1])
i = sys.argv.index('--')
gs = [[f32(float(v)) for v in sys.argv[2:i]], [f32(float(v)) for v in sys.argv[i + 1:]]]
k = key(seed, 0, 0)
vals = []
for w, g in enumerate(gs):
    s = max(abs(x) for x in g)
    row = []
    for j, x in enumerate(g):
        u = (mix((k + ((w << 32 | j) + 1) * G) & M) >> 40) / 2.0 ** 24
        keep = s > 0 and u < f32(abs(x) / s)
        row.append(math.copysign(s, x) if keep else 0.0)
    vals.append(row)
print(' '.join(repr(f32(f32(f32(0.0 + a) + b) / 2)) for a, b in zip(*vals)))
EOF2
)
if out=$("$GC" compress --method terngrad:seed=5 --in "$tmp/t0.npy" --in "$tmp/t1.npy" --out-dir "$tmp/o6" 2>&1) &&
   got=$(readnpy "$tmp/o6/result.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//') &&
   [ -n "$want" ] && [ "$got" = "$want" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *6 per worker'; then
	pass terngrad_reference
else
	fail terngrad_reference "$out; got: $got; want: $want"
fi

# qsgd against a held-out reference from the paper's definition (Alistarh et al. 2017:
# per bucket of d elements the norm r = ||v||_2; with s levels, l = floor(|v_i| s / r),
# level l + 1 with probability |v_i| s / r - l, else l; value r sign(v_i) level / s),
# with the draws of kernels/rng.h as above; two workers of 10 elements, d = 4 (norm
# buckets of 4, 4 and 2), s = 3 (4-bit codes), the float sum of their values / 2.
qs_a="0.5 -4 1 3 -0.25 2 -0.0 -1.5 0 0"
qs_b="1 -2 3 -4 0.5 0.75 8 -0.125 -0.3 2.5"
npy "$tmp/q0.npy" f4 10 $qs_a
npy "$tmp/q1.npy" f4 10 $qs_b
want=$(python3 - 5 3 4 $qs_a -- $qs_b <<'EOF2'
import math, struct, sys
M, G = (1 << 64) - 1, 0x9e3779b97f4a7c15
def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
def nxt(s):
    s = (s + G) & M
    return s, mix(s)
def key(seed, tensor, step):
    s, a = nxt(seed)
    a ^= (tensor * 0xd1342543de82ef95) & M
    a, b = nxt(a)
    b ^= (step * 0xa0761d6478bd642f) & M
    return nxt(b)[1]
def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]
seed, s, d = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
i = sys.argv.index('--')
gs = [[f32(float(v)) for v in sys.argv[4:i]], [f32(float(v)) for v in sys.argv[i + 1:]]]
k = key(seed, 0, 0)
vals = []
for w, g in enumerate(gs):
    row = []
    for j, x in enumerate(g):
        lo = j - j % d
        r = f32(math.sqrt(sum(y * y for y in g[lo:lo + d])))
        level = 0
        if r > 0:
            u = (mix((k + ((w << 32 | j) + 1) * G) & M) >> 40) / 2.0 ** 24
            t = f32(f32(abs(x) / r) * s)
            l = math.floor(t)
            level = l + (1 if u < f32(t - l) else 0)
        row.append(math.copysign(f32(f32(r * level) / s), x))
    vals.append(row)
print(' '.join(repr(f32(f32(f32(0.0 + a) + b) / 2)) for a, b in zip(*vals)))
EOF2
)
if out=$("$GC" compress --method qsgd:seed=5,levels=3,bucket_size=4 --in "$tmp/q0.npy" --in "$tmp/q1.npy" --out-dir "$tmp/o7" 2>&1) &&
   got=$(readnpy "$tmp/o7/result.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//') &&
   [ -n "$want" ] && [ "$got" = "$want" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *17 per worker'; then
	pass qsgd_reference
else
	fail qsgd_reference "$out; got: $got; want: $want"
fi

# efsign_ar against a held-out reference from its definition (docs/kernels.md: scaled
# sign with error feedback, Karimireddy et al. 2019, through an all-reduce): c = g
# (the residual starts at 0), per tensor m = mean |c|, worker w's term bf16(m / p) with
# the sign of c (bfloat16: round to nearest even), the terms summed in bf16 in worker
# order, the result their float value; residual c - sign(c) p float(bf16(m / p)).
want=$(python3 - $tg_a -- $tg_b <<'EOF2'
import struct, sys
def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]
def bf16(x):
    u = struct.unpack('<I', struct.pack('<f', f32(x)))[0]
    u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000
    return struct.unpack('<f', struct.pack('<I', u))[0]
i = sys.argv.index('--')
gs = [[f32(float(v)) for v in sys.argv[1:i]], [f32(float(v)) for v in sys.argv[i + 1:]]]
p = len(gs)
terms, res0 = [], None
for w, c in enumerate(gs):
    h = bf16(f32(f32(sum(abs(x) for x in c) / len(c)) / p))
    terms.append([-h if x < 0 else h for x in c])
    v = f32(p * h)
    r = [f32(x - (-v if x < 0 else v)) for x in c]
    res0 = res0 or r
out = [bf16(a + b) for a, b in zip(*terms)]
print(' '.join(repr(x) for x in out))
print(' '.join(repr(x) for x in res0))
EOF2
)
if out=$("$GC" compress --method efsign_ar --in "$tmp/t0.npy" --in "$tmp/t1.npy" --out-dir "$tmp/o8" 2>&1) &&
   got="$(readnpy "$tmp/o8/result.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
$(readnpy "$tmp/o8/residual_0.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')" &&
   [ -n "$want" ] && [ "$got" = "$want" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *16 per worker'; then
	pass efsign_ar_reference
else
	fail efsign_ar_reference "$out; got: $got; want: $want"
fi

# dgc against a held-out reference from the paper's definition (Lin et al., ICLR 2018,
# Algorithm 4 with local clipping and the warm-up; one step, so u and v start at 0):
# per worker g is clipped to norm clip / sqrt(p) (the factor rounded to float), u = m u
# + g, v = v + u, the k largest |v| sent (ties to the lower index), k = ceil(density n)
# with density 25% (the warm-up's first stage, above ratio 0.2); the float sum over
# workers / p; residual: v with the sent entries zeroed. Worker 0 is not clipped,
# worker 1 is.
want=$(python3 - 12 0.9 $qs_a -- $qs_b <<'EOF2'
import math, struct, sys
def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]
clip, m = float(sys.argv[1]), f32(float(sys.argv[2]))
i = sys.argv.index('--')
gs = [[f32(float(v)) for v in sys.argv[3:i]], [f32(float(v)) for v in sys.argv[i + 1:]]]
p, n = len(gs), len(gs[0])
k = max(1, math.ceil(max(0.2, 0.25) * n))
sent, res0 = [], None
for g in gs:
    nrm = math.sqrt(sum(x * x for x in g))
    thr = clip / math.sqrt(p)
    if nrm > thr:
        f = f32(thr / nrm)
        g = [f32(x * f) for x in g]
    u = [f32(f32(m * 0.0) + x) for x in g]
    v = [f32(0.0 + x) for x in u]
    top = sorted(range(n), key=lambda j: (-abs(v[j]), j))[:k]
    sent.append({j: v[j] for j in top})
    r = [0.0 if j in top else v[j] for j in range(n)]
    res0 = res0 or r
out = []
for j in range(n):
    acc = 0.0
    for s in sent:
        if j in s:
            acc = f32(acc + s[j])
    out.append(f32(acc / p))
print(' '.join(repr(x) for x in out))
print(' '.join(repr(x) for x in res0))
EOF2
)
if out=$("$GC" compress --method dgc:ratio=0.2,clip=12,warmup_steps=4 --in "$tmp/q0.npy" --in "$tmp/q1.npy" --out-dir "$tmp/o9" 2>&1) &&
   got="$(readnpy "$tmp/o9/result.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
$(readnpy "$tmp/o9/residual_0.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')" &&
   [ -n "$want" ] && [ "$got" = "$want" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *16 per worker'; then
	pass dgc_reference
else
	fail dgc_reference "$out; got: $got; want: $want"
fi

# cgx against a held-out reference from its definition (docs/kernels.md; torch_cgx's
# max-min quantization, reduced by scatter-reduce then all-gather): the bucket in p = 2
# chunks, each in quantization buckets of d = 3; per bucket unit = (max - min) / (2^b
# - 1), level = floor(t) + (u < t - floor(t)), t = (x - min) / unit, value min + level
# unit; u from kernels/rng.h with key (seed, 0, step 0) and counter w 2^32 + i; the
# owner of chunk j sums the workers' values in float and quantizes the sum again with
# key (seed, 1, 0), counter i; the result is that / p.
want=$(python3 - 5 2 3 $qs_a -- $qs_b <<'EOF2'
import math, struct, sys
M, G = (1 << 64) - 1, 0x9e3779b97f4a7c15
def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
def nxt(s):
    s = (s + G) & M
    return s, mix(s)
def key(seed, tensor, step):
    s, a = nxt(seed)
    a ^= (tensor * 0xd1342543de82ef95) & M
    a, b = nxt(a)
    b ^= (step * 0xa0761d6478bd642f) & M
    return nxt(b)[1]
def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]
def unif(k, c):
    return (mix((k + (c + 1) * G) & M) >> 40) / 2.0 ** 24
seed, bits, d = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
i = sys.argv.index('--')
gs = [[f32(float(v)) for v in sys.argv[4:i]], [f32(float(v)) for v in sys.argv[i + 1:]]]
p, n, L = len(gs), len(gs[0]), (1 << bits) - 1
def quant(x, base, k, hi):
    out = []
    for a in range(0, len(x), d):
        b = x[a:a + d]
        mn, mx = min(b), max(b)
        unit = f32(f32(mx - mn) / L)
        for j, v in enumerate(b):
            lv = 0
            if unit > 0:
                t = f32(f32(v - mn) / unit)
                if t >= L:
                    lv = L
                elif t > 0:
                    fl = math.floor(t)
                    lv = min(L, fl + (1 if unif(k, hi + base + a + j) < f32(t - fl) else 0))
            out.append(f32(mn + f32(lv * unit)))
    return out
res = []
for j in range(p):
    a, z = n * j // p, n * (j + 1) // p
    qs = [quant(g[a:z], a, key(seed, 0, 0), w << 32) for w, g in enumerate(gs)]
    acc = [0.0] * (z - a)
    for q in qs:
        acc = [f32(x + y) for x, y in zip(acc, q)]
    res += [f32(v / p) for v in quant(acc, a, key(seed, 1, 0), 0)]
print(' '.join(repr(x) for x in res))
EOF2
)
if out=$("$GC" compress --method cgx:seed=5,bits=2,bucket_size=3 --in "$tmp/q0.npy" --in "$tmp/q1.npy" --out-dir "$tmp/o10" 2>&1) &&
   got=$(readnpy "$tmp/o10/result.npy" 2>/dev/null | tr '\n' ' ' | sed 's/ $//') &&
   [ -n "$want" ] && [ "$got" = "$want" ] &&
   printf '%s' "$out" | grep -q 'payload_bytes: *54 per worker'; then
	pass cgx_reference
else
	fail cgx_reference "$out; got: $got; want: $want"
fi

npy "$tmp/d.npy" f8 2,3 1 2 3 4 5 6
expect_err bad_dtype "d.npy" --method syncsgd --in "$tmp/a.npy" --in "$tmp/d.npy"
npy "$tmp/e.npy" f4 3,2 1 2 3 4 5 6
expect_err bad_shape "e.npy.*a.npy" --method fp16 --in "$tmp/a.npy" --in "$tmp/e.npy"
head -c 100 "$tmp/a.npy" >"$tmp/t.npy"
expect_err truncated "t.npy" --method syncsgd --in "$tmp/t.npy"
echo "hello" >"$tmp/x.npy"
expect_err not_npy "x.npy" --method syncsgd --in "$tmp/x.npy"
expect_err no_input "no --in files" --method syncsgd
expect_err bad_method "unknown method 'nosuchmethod'" --method nosuchmethod --in "$tmp/a.npy"
expect_err bad_param "parameter 'ratio'.*(0, 1]" --method topk:ratio=7 --in "$tmp/a.npy"
expect_err bad_param_old "parameter 'ratio'.*(0, 1]" --method topk --param ratio=7 --in "$tmp/a.npy"
expect_err method_colon "ends in ':'" --method topk: --in "$tmp/a.npy"

# the old --param still works, and says on stderr what to write instead
if out=$("$GC" compress --method topk --param ratio=0.5 --in "$tmp/c.npy" 2>&1 >/dev/null) &&
   printf '%s' "$out" | grep -q -- "--param is deprecated: write --method topk:.*ratio=0.5"; then
	pass param_deprecated
else
	fail param_deprecated "$out"
fi

# --json: one valid object with the same figures
if out=$("$GC" compress --method=topk:ratio=0.5 --json --in "$tmp/c.npy") &&
   printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["payload_bytes"]==24 and d["method"]=="topk" and d["identical"] is True, d'; then
	pass json
else
	fail json "$out"
fi
