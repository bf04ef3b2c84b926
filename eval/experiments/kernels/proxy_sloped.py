"""Sloped-plane sweep (003_*.txt) against the layered tiles: a measurement, not part of trimsa.

The kernels are in ``proxy_sloped.cu`` (this folder): ``sloped_kernel`` (planes I + J + K = t) and
``layered_kernel`` (the sweep of ``trimsa/kernels/triplet_score.cu`` in its simplest form).
Both are reduced the same way (the .cu header says how: one region per warp for the whole
launch, one item or 16-bit pair per warp, zero faces, at most 4 letters), so their TCUPS
compare the two decompositions, and they bound what a product kernel of either kind could
reach; ``--real`` times the product kernel itself on triplets of unequal lengths.

1. Check: every variant's final cells, for every lane of every warp, against a plain DP in
   Python (layer by layer, row by row) on random sequences and a random asymmetric 4-letter
   table, both halves in 16 bits. Any difference stops the run with status 1.
2. Time: one wave of blocks (128 threads, ``MINB`` per SM) sweeping ``--steps`` planes
   (layers); CUDA events, median of ``--repeats``. TCUPS = warps x steps x region cells (x 2
   in 16 bits) / seconds / 1e12; the first steps fill the region (sloped ``RJ + RK``, layered
   ``P + Q - 2``; their cells at I <= 0 are counted too: under 1% at the default steps).

``--sass`` compiles the variants locally (nvcc, cuobjdump; no GPU) and prints registers,
spills and the opcodes of the steady-state loop. Session 14's results:
``eval/experiments/kernels/results/sloped-H100-2026-11-24-s14.md``.

Usage::

    python eval/experiments/kernels/proxy_sloped.py --out eval/experiments/kernels/results/sloped-<gpu>-<date>.md
    python eval/experiments/kernels/proxy_sloped.py --real 64x64x64,4096x32x64 --ab-tall
    python eval/experiments/kernels/proxy_sloped.py --sass --cuobjdump /tmp/cuobjdump
"""

from __future__ import annotations

import argparse
import collections
import datetime
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
KERNEL = Path(__file__).resolve().parent / "proxy_sloped.cu"
DPX = ROOT / "trimsa" / "kernels" / "dpx.cuh"

DEBUG = False
# (label, kernel, arithmetic type, TJ, TK, Q, IMAD update, blocks of 128 threads per SM)
VARIANTS = [
    ("sloped int16 8x4", "sloped", "S16x2", 8, 4, 8, False, 2),
    ("sloped int16 8x4 imad", "sloped", "S16x2N", 8, 4, 8, True, 2),
    ("sloped int16 4x8 imad", "sloped", "S16x2N", 4, 8, 4, True, 2),
    ("sloped int16 4x4 imad", "sloped", "S16x2N", 4, 4, 8, True, 2),
    ("sloped int16 4x4 imad", "sloped", "S16x2N", 4, 4, 8, True, 3),
    ("sloped int16 4x4 imad", "sloped", "S16x2N", 4, 4, 8, True, 4),
    ("sloped int32 8x4", "sloped", "I32", 8, 4, 8, False, 2),
    ("sloped int32 8x4 imad", "sloped", "I32", 8, 4, 8, True, 2),
    ("sloped int32 4x4 imad", "sloped", "I32", 4, 4, 8, True, 3),
    ("sloped int32 4x4 imad", "sloped", "I32", 4, 4, 8, True, 4),
    ("layered int16 8x8", "layered", "S16x2", 8, 8, 8, False, 2),
    ("layered int16 8x8 imad", "layered", "S16x2N", 8, 8, 8, True, 2),
    ("layered int16 8x4 imad", "layered", "S16x2N", 8, 4, 8, True, 2),
    ("layered int32 8x8", "layered", "I32", 8, 8, 8, False, 2),
    ("layered int32 8x8 imad", "layered", "I32", 8, 8, 8, True, 2),
    ("layered int32 8x4 imad", "layered", "I32", 8, 4, 8, True, 2),
]


def expr(v) -> str:
    _, kind, ar, tj, tk, q, im, minb = v
    return f"{kind}_kernel<{ar}, {tj}, {tk}, {q}, {'true' if im else 'false'}, {minb}>"


def source() -> str:
    return DPX.read_text() + "\n" + KERNEL.read_text()


def region(v):
    _, _, _, tj, tk, q, _, _ = v
    return (32 // q) * tj, q * tk


def fill_steps(v) -> int:
    """Steps during which some cell is at I <= 0 (sloped: a multiple of 3, its loop body)."""
    if v[1] == "layered":
        return 32 // v[5] + v[5] - 2
    rj, rk = region(v)
    return 3 * -(-(rj + rk) // 3)


def round_steps(v, steps) -> int:
    """`steps` rounded up to what the kernel runs: sloped steps are whole loop bodies of 3."""
    if v[1] == "layered":
        return max(steps, fill_steps(v) + 1)
    return fill_steps(v) + 3 * max(1, -(-(steps - fill_steps(v)) // 3))


# ---- inputs and the plain reference ------------------------------------------------------

def make_inputs(rng, v, la):
    """Random items for variant v: sequences (codes 0..3), table, gap."""
    rj, rk = region(v)
    nh = 2 if v[2].startswith("S16") else 1
    sub = rng.integers(-2, 3, size=(4, 4))      # asymmetric on purpose
    gap = -3
    items = [(rng.integers(0, 4, la), rng.integers(0, 4, rj), rng.integers(0, 4, rk)) for _ in range(nh)]
    return sub, gap, items


def reference(sub, gap, a, b, c):
    """H[I, J, K] of the zero-faced 3-way DP (sum of pairs, linear gap), plain loops."""
    la, lb, lc = len(a), len(b), len(c)
    H = np.zeros((la + 1, lb + 1, lc + 1), dtype=np.int64)
    g = gap
    for i in range(1, la + 1):
        ai = a[i - 1]
        for j in range(1, lb + 1):
            bj = b[j - 1]
            sab = sub[ai][bj]
            for k in range(1, lc + 1):
                ck = c[k - 1]
                sac, sbc = sub[ai][ck], sub[bj][ck]
                H[i, j, k] = max(
                    H[i - 1, j - 1, k - 1] + sab + sac + sbc,
                    H[i - 1, j - 1, k] + sab + 2 * g,
                    H[i - 1, j, k - 1] + sac + 2 * g,
                    H[i, j - 1, k - 1] + sbc + 2 * g,
                    H[i - 1, j, k] + 2 * g,
                    H[i, j - 1, k] + 2 * g,
                    H[i, j, k - 1] + 2 * g)
    return H


def device_arrays(v, sub, gap, items, steps):
    """Kernel arguments (numpy) for variant v."""
    rj, rk = region(v)
    nh = len(items)
    g2 = 2 * gap
    x = np.asarray(sub) - g2                     # shifted scores, all in 4..8 here
    assert x.min() >= 0 and x.max() < 128

    def bytes_word(vals):
        return sum((int(val) & 0xFF) << (8 * n) for n, val in enumerate(vals))

    def prof(seq_index):
        w0 = np.array([bytes_word(x[:, items[0][seq_index][j]]) for j in range(len(items[0][seq_index]))],
                      dtype=np.uint32)
        w1 = (np.array([bytes_word(x[:, items[1][seq_index][j]]) for j in range(len(items[1][seq_index]))],
                       dtype=np.uint32) if nh == 2 else np.zeros_like(w0))
        return w0, w1

    rb0, rb1 = prof(1)
    rc0, rc1 = prof(2)
    xbc_h = [x[np.asarray(it[1])[:, None], np.asarray(it[2])[None, :]] for it in items]
    if nh == 2:
        xbc = ((xbc_h[0] & 0xFFFF) | ((xbc_h[1] & 0xFFFF) << 16)).astype(np.uint32).ravel()
    else:
        xbc = xbc_h[0].astype(np.int32).ravel()
    # selector of A[I] for I = i - bias; I <= 0: letter 0
    tj, tk, q = v[3], v[4], v[5]
    bias = 2 + (32 // q - 1) * tj + (q - 1) * tk + tj + tk + 2
    n = bias + steps + 8
    sels = np.zeros(n, dtype=np.uint32)
    for idx in range(n):
        big_i = idx - bias
        letters = [int(it[0][big_i - 1]) if 1 <= big_i <= len(it[0]) else 0 for it in items]
        if nh == 2:
            a0, a1 = letters
            sels[idx] = a0 | (a0 | 8) << 4 | (4 + a1) << 8 | ((4 + a1) | 8) << 12
        else:
            a0 = letters[0]
            sels[idx] = a0 | (a0 | 8) << 4 | (a0 | 8) << 8 | (a0 | 8) << 12
    if nh == 2:
        ng2 = np.uint32(((-g2) & 0xFFFF) * 0x10001)
        g2s = np.uint32((g2 & 0xFFFF) * 0x10001)
    else:
        ng2, g2s = np.int32(-g2), np.int32(g2)
    return rb0, rb1, rc0, rc1, xbc, sels, bias, ng2, g2s


def expected_planes(v, sub, gap, items, steps):
    """Per lane, what the kernel leaves in `out` (shifted values, per half).

    Sloped: its tile at planes `steps` and `steps - 1`. Layered: its tile at layer
    I = steps - p - q, twice."""
    rj, rk = region(v)
    tj, tk, q = v[3], v[4], v[5]
    g2 = 2 * gap
    la = len(items[0][0])
    refs = [reference(sub, gap, *it) for it in items]
    out = np.zeros((32, 2, tj, tk, len(items)), dtype=np.int64)
    for lane in range(32):
        p, qq = divmod(lane, q)
        for pl, t in enumerate((steps, steps - 1)):
            for r in range(tj):
                for c in range(tk):
                    J, K = p * tj + r + 1, qq * tk + c + 1
                    big_i = steps - p - qq if v[1] == "layered" else t - J - K
                    assert 1 <= big_i <= la
                    for h, H in enumerate(refs):
                        out[lane, pl, r, c, h] = H[big_i, J, K] - g2 * (big_i + J + K)
    return out


# ---- runs ---------------------------------------------------------------------------------

def launch(cp, fn, v, args_np, steps, fill, grid, out, out_sum):
    rb0, rb1, rc0, rc1, xbc, sels, bias, ng2, g2s = args_np
    fn((grid,), (128,), (rb0, rb1, rc0, rc1, xbc, sels, np.int32(bias), ng2, g2s, np.int32(fill),
                         np.int32(steps), np.int32(1), out, out_sum))


def check_variant(cp, mod, v, rng, log) -> int:
    steps = round_steps(v, fill_steps(v) + 36)
    rj, rk = region(v)
    la = steps
    sub, gap, items = make_inputs(rng, v, la)
    args_np = device_arrays(v, sub, gap, items, steps)
    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args_np]
    tj, tk = v[3], v[4]
    nh = len(items)
    grid = 2
    out = cp.zeros(grid * 128 * 2 * tj * tk, dtype=cp.int32 if nh == 1 else cp.uint32)
    out_sum = cp.zeros(grid * 128, dtype=cp.uint32)
    launch(cp, mod.get_function(expr(v)), v, dev, steps, fill_steps(v), grid, out, out_sum)
    got = out.get().reshape(grid * 4, 32, 2, tj, tk)
    if nh == 2:
        w = got.astype(np.uint32)
        got = np.stack([(w & 0xFFFF).astype(np.uint16).astype(np.int16),
                        (w >> 16).astype(np.uint16).astype(np.int16)], axis=-1).astype(np.int64)
    else:
        got = got.astype(np.int64)[..., None]
    want = expected_planes(v, sub, gap, items, steps)
    bad = int(sum(np.count_nonzero(got[w] != want) for w in range(grid * 4)))
    if bad and DEBUG:
        lane = 9
        log(f"lane {lane} plane `steps`, half 0: got\n{got[0, lane, 0, :, :, 0]}\nwant\n{want[lane, 0, :, :, 0]}")
        log(f"warps equal: {all(np.array_equal(got[0], got[w]) for w in range(grid * 4))}")
    log(f"check {v[0]} minb {v[7]}: region {rj}x{rk}, {steps} planes (la {la}), {nh} item(s) per lane word, "
        f"{got.size} values: {bad} wrong")
    return bad


def time_variant(cp, mod, v, rng, steps, repeats, sms):
    steps = round_steps(v, steps)
    sub, gap, items = make_inputs(rng, v, 8)
    args_np = device_arrays(v, sub, gap, items, steps)
    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args_np]
    tj, tk = v[3], v[4]
    nh = len(items)
    fn = mod.get_function(expr(v))
    grid = sms * v[7]
    out = cp.zeros(grid * 128 * 2 * tj * tk, dtype=cp.uint32)
    out_sum = cp.zeros(grid * 128, dtype=cp.uint32)
    times = []
    for rep in range(repeats + 1):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        launch(cp, fn, v, dev, steps, fill_steps(v), grid, out, out_sum)
        e1.record()
        e1.synchronize()
        if rep:
            times.append(cp.cuda.get_elapsed_time(e0, e1) / 1e3)
    sec = float(np.median(times))
    rj, rk = region(v)
    cells = grid * 4 * steps * rj * rk * nh
    return sec, cells / sec / 1e12, fn.num_regs, fn.local_size_bytes


def run(args) -> int:
    import cupy as cp

    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    props = cp.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    sms = props["multiProcessorCount"]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    log(f"<!-- {gpu}, {sms} SMs, {date}; command: python eval/experiments/kernels/proxy_sloped.py {' '.join(sys.argv[1:])} -->")
    log("# Sloped-plane sweep (proxy, eval/experiments/kernels/proxy_sloped.cu): check and TCUPS\n")
    variants = [v for v in VARIANTS if not args.only or any(s in f"{v[0]} {v[7]}" for s in args.only.split(","))]
    mod = cp.RawModule(code=source(), options=("-std=c++17",), name_expressions=[expr(v) for v in variants])
    rng = np.random.default_rng(args.seed)
    bad = sum(check_variant(cp, mod, v, rng, log) for v in variants)
    log(f"\nwrong values in all checks: {bad}\n")
    if bad:
        _write(args.out, lines)
        return 1
    log(f"| variant | warps / scheduler | region | regs | local bytes | ms | TCUPS |")
    log("|---|---:|---|---:|---:|---:|---:|")
    for v in variants:
        sec, tcups, regs, local = time_variant(cp, mod, v, rng, args.steps, args.repeats, sms)
        rj, rk = region(v)
        log(f"| {v[0]} | {v[7]} | {rj}x{rk} | {regs} | {local} | {sec * 1e3:.2f} | {tcups:.3f} |")
    _write(args.out, lines)
    return 0


def real_shapes(args) -> int:
    """TCUPS of the product kernel (global mode) on triplets of unequal lengths (la, lb, lc):
    long A with a one-region plane shows the kernel without its item and region switches."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "eval"))
    import cupy as cp
    from bench_kernels import unequal_lengths
    from trimsa.scoring import Scoring
    from trimsa.triplet import _gpu, _gpu_plan

    rng = np.random.default_rng(args.seed)
    shipped = dict(_gpu_plan.TALL_ONE_REGION)
    # --ab-tall: each 32-bit shape also with the planner before session 14 (no TALL_ONE_REGION)
    runs = [("int16", shipped), ("int32", shipped)] + ([("int32", {})] if args.ab_tall else [])
    print("| la x lb x lc | precision | planner | triplets | ms | TCUPS | config TJxTKxPxQ | regions per plane |")
    print("|---|---|---|---:|---:|---:|---|---:|")
    for shape in args.real.split(","):
        la, lb, lc = (int(x) for x in shape.split("x"))
        seqs, trip = unequal_lengths(rng, la, lb, lc, args.real_cells)
        n = trip.shape[0]
        for prec, one_region in runs:
            _gpu_plan.TALL_ONE_REGION = one_region
            batch = _gpu.Batch(seqs, trip, 0, Scoring.dna(), prec)
            _gpu_plan.TALL_ONE_REGION = shipped
            batch.run()
            cp.cuda.Device().synchronize()
            times = []
            for _ in range(3):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                batch.run()
                e1.record()
                e1.synchronize()
                times.append(cp.cuda.get_elapsed_time(e0, e1) / 1e3)
            sec = float(np.median(times))
            info = batch.info[0]
            tj, tk, pp, qq = info["shape"]
            regions = -(-min(lb, lc) // (pp * tj)) * -(-max(lb, lc) // (qq * tk))
            print(f"| {shape} | {prec} | {'session 13' if one_region != shipped else 'now'} | {n} | {sec * 1e3:.2f} | {n * la * lb * lc / sec / 1e12:.3f} "
                  f"| {'x'.join(map(str, info['shape']))} | {regions} |", flush=True)
    return 0


def _write(path, lines):
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("\n".join(lines) + "\n")


def sass(args) -> int:
    pat = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
    for v in VARIANTS:
        with tempfile.TemporaryDirectory() as tmp:
            cu, cubin = Path(tmp) / "k.cu", Path(tmp) / "k.cubin"
            cu.write_text(source() + f"\nvoid* trimsa_keep = (void*)&{expr(v)};\n")
            res = subprocess.run([args.nvcc, "-arch=sm_90", "-cubin", "-std=c++17", "--resource-usage",
                                  "-o", str(cubin), str(cu)], capture_output=True, text=True, check=True)
            usage = " ".join(re.findall(r"Used \d+ registers|\d+ bytes spill stores|\d+ bytes spill loads",
                                        res.stdout + res.stderr))
            text = subprocess.run([args.cuobjdump, "-sass", str(cubin)], capture_output=True, text=True,
                                  check=True).stdout
        ops = [(int(a, 16), re.sub(r"^@!?U?P\w+\s+", "", t).split()[0]) for a, t in pat.findall(text)]
        # the steady-state loop: the last backward branch's body
        body = _last_loop(ops, text)
        opc = collections.Counter(o.split(".")[0] for _, o in body)
        cells = v[3] * v[4] * (3 if v[1] == "sloped" else 1)   # the sloped loop body is 3 steps
        top = ", ".join(f"{k} {n}" for k, n in opc.most_common(9))
        print(f"{v[0]:24s} minb {v[7]}: {usage}; loop {len(body)} instr = {len(body) / cells:.2f} "
              f"per lane-cell ({top})")
    return 0


def _last_loop(ops, text):
    """Instructions of the last loop in the SASS (from a backward BRA's target to the BRA)."""
    best = None
    for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?BRA\s+0x([0-9a-f]+)", text):
        src, dst = int(m.group(1), 16), int(m.group(2), 16)
        if dst < src:
            best = (dst, src)
    if best is None:
        return ops
    return [(a, o) for a, o in ops if best[0] <= a <= best[1]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30000, help="planes swept per warp when timing")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--only", default="", help="comma list of substrings of 'label minb' to run")
    ap.add_argument("--out")
    ap.add_argument("--sass", action="store_true", help="registers, spills, loop opcodes (local nvcc, no GPU)")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--debug", action="store_true", help="print one lane's values when a check fails")
    ap.add_argument("--real", default="", help="instead: time the product kernel on shapes LAxLBxLC,...")
    ap.add_argument("--real-cells", type=float, default=1e11)
    ap.add_argument("--ab-tall", action="store_true", help="with --real: 32 bits also without TALL_ONE_REGION")
    args = ap.parse_args(argv)
    if args.real:
        return real_shapes(args)
    global DEBUG
    DEBUG = args.debug
    return sass(args) if args.sass else run(args)


if __name__ == "__main__":
    sys.exit(main())
