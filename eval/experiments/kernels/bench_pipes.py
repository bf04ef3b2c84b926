"""Issue rate of the integer instructions the triplet kernel is made of (H100 microbenchmark).

Each thread runs 8 independent chains of one operation (or two operations,
half the chains each) in an unrolled loop; every SM runs one wave of blocks,
and its cycles come from ``clock64()`` (first start to last end of the blocks
on that SM, from ``%smid``). The table gives warp instructions of the loop
body per SM cycle (4 schedulers: at most 4.0) for 2, 4 and 8 warps per
scheduler. An operation that runs on a pipe of 16 lanes per scheduler peaks
at 2.0; two operations on different pipes can together reach 4.0.

``--sass`` compiles the kernels locally instead (nvcc, cuobjdump; no GPU) and
prints the opcodes of each loop body, to check that every operation is the
instruction its name says.

Usage::

    python eval/experiments/kernels/bench_pipes.py --out eval/experiments/kernels/results/pipes-<gpu>-<date>.md
    python eval/experiments/kernels/bench_pipes.py --sass --cuobjdump /tmp/cuobjdump
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

CHAINS, UNROLL = 8, 16

# name -> one step of chain X; Y and Z are the next two chains (so that no
# step can be folded into the next), b a run-time value
OPS = {
    "viaddmax_s16x2": "X = __viaddmax_s16x2(X, b, Y);",
    "viaddmax_s32": "X = __viaddmax_s32((int)X, (int)b, (int)Y);",
    "vimax3_s16x2": "X = __vimax3_s16x2(X, Y, Z);",
    "vimax3_s32": "X = __vimax3_s32((int)X, (int)Y, (int)Z);",
    "vimax_s16x2": "X = __vmaxs2(X, Y);",
    "imax_s32": "X = max((int)X, (int)Y);",
    "vadd2": "X = __vadd2(X, Y);",
    "iadd": "X = X + Y;",
    "imad": "X = X * b + Y;",
    "prmt": "X = __byte_perm(X, Y, 0x5410);",
}
# two operations, half the chains each
MIXES = [
    ("viaddmax_s16x2", "vadd2"),
    ("viaddmax_s16x2", "imad"),
    ("viaddmax_s32", "imad"),
    ("viaddmax_s32", "iadd"),
    ("vimax3_s16x2", "vadd2"),
    ("vimax3_s16x2", "viaddmax_s16x2"),
    ("viaddmax_s16x2", "prmt"),
    ("vimax_s16x2", "vadd2"),
    ("vimax3_s32", "imad"),
    ("viaddmax_s16x2", "vimax_s16x2"),
]


def kernel_source(name: str, ops: tuple) -> str:
    body = []
    for k in range(CHAINS):
        op = OPS[ops[k * len(ops) // CHAINS]]
        body.append(op.replace("X", f"x{k}").replace("Y", f"x{(k + 1) % CHAINS}")
                    .replace("Z", f"x{(k + 2) % CHAINS}"))
    decl = " ".join(f"unsigned x{k} = seed * {2 * k + 3}u + threadIdx.x;" for k in range(CHAINS))
    xor = " ^ ".join(f"x{k}" for k in range(CHAINS))
    return f"""
extern "C" __global__ void {name}(unsigned* out, long long* clk, unsigned seed, unsigned b, unsigned c, int iters) {{
    {decl}
    __syncthreads();
    long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {{
#pragma unroll
        for (int u = 0; u < {UNROLL}; ++u) {{
            {" ".join(body)}
        }}
    }}
    __syncthreads();
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = {xor};
    if (threadIdx.x == 0) {{
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        clk[3 * blockIdx.x] = t0; clk[3 * blockIdx.x + 1] = t1; clk[3 * blockIdx.x + 2] = sm;
    }}
}}
"""


def cases():
    for name in OPS:
        yield name, (name,)
    for a, b in MIXES:
        yield f"{a}+{b}", (a, b)


def kname(label: str) -> str:
    return "k_" + re.sub(r"\W", "_", label)


def run(args) -> None:
    import cupy as cp
    import numpy as np

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    sms = props["multiProcessorCount"]
    threads = 256
    lines = [f"<!-- {gpu}, {sms} SMs, {datetime.date.today()}; command: python eval/experiments/kernels/bench_pipes.py "
             f"{' '.join(sys.argv[1:])} -->",
             "# Warp instructions per SM cycle of one operation's chains (8 per thread)", "",
             "| operation | 2 warps / scheduler | 4 | 8 |", "|---|---:|---:|---:|"]
    print("\n".join(lines))
    for label, ops in cases():
        mod = cp.RawModule(code=kernel_source(kname(label), ops), options=("-std=c++17",))
        fn = mod.get_function(kname(label))
        row = []
        for blocks_per_sm in (1, 2, 4):
            grid = sms * blocks_per_sm
            out = cp.zeros(grid * threads, dtype=cp.uint32)
            clk = cp.zeros(3 * grid, dtype=cp.int64)
            argv = (out, clk, np.uint32(12345), np.uint32(3), np.uint32(7), np.int32(args.iters))
            fn((grid,), (threads,), argv)  # warm-up
            fn((grid,), (threads,), argv)
            cp.cuda.runtime.deviceSynchronize()
            c = clk.get().reshape(-1, 3)
            per_sm = collections.defaultdict(list)
            for t0, t1, sm in c:
                per_sm[int(sm)].append((int(t0), int(t1)))
            rates = []
            for spans in per_sm.values():
                cycles = max(t1 for _, t1 in spans) - min(t0 for t0, _ in spans)
                instr = len(spans) * (threads // 32) * args.iters * UNROLL * CHAINS
                rates.append(instr / cycles)
            row.append(float(np.median(rates)))
        line = f"| {label} | " + " | ".join(f"{r:.2f}" for r in row) + " |"
        lines.append(line)
        print(line, flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


def sass(args) -> None:
    pat = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
    for label, ops in cases():
        with tempfile.TemporaryDirectory() as tmp:
            cu, cubin = Path(tmp) / "k.cu", Path(tmp) / "k.cubin"
            cu.write_text(kernel_source(kname(label), ops))
            subprocess.run([args.nvcc, "-arch=sm_90", "-cubin", "-std=c++17", "-o", str(cubin), str(cu)],
                           check=True)
            text = subprocess.run([args.cuobjdump, "-sass", str(cubin)], capture_output=True, text=True,
                                  check=True).stdout
        opc = collections.Counter(re.sub(r"^@!?P\w+\s+", "", t).split()[0] for t in pat.findall(text))
        top = ", ".join(f"{k} {v}" for k, v in opc.most_common(4))
        print(f"{label:36s} {top}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=4000)
    ap.add_argument("--out")
    ap.add_argument("--sass", action="store_true", help="print each loop's opcodes (local compile, no GPU)")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    args = ap.parse_args(argv)
    sass(args) if args.sass else run(args)


if __name__ == "__main__":
    main()
