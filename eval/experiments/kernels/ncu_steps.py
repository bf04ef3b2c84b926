"""Executed warp instructions per step of the triplet kernel, by basic block, from Nsight Compute.

Input: the SASS source page of an ncu report exported as CSV
(``ncu --import R.ncu-rep --page source --csv --print-source sass > R.csv``; the
report needs ``--section SourceCounters``). A step is one execution of the tile
block (the block with the most ``VIADDMNMX``); each block's executed
instructions are divided by the steps, so the total is the instruction count
of an average step. Blocks are split as in ``sass_kernel.py`` (this folder).

Usage::

    python eval/experiments/kernels/ncu_steps.py g64-source.csv [--min 1.0]
"""

from __future__ import annotations

import argparse
import collections
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sass_kernel import blocks, opcode  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--min", type=float, default=1.0, help="leave out blocks below this many instructions per step")
    args = ap.parse_args(argv)
    rows = list(csv.reader(open(args.csv)))
    hdr, data = rows[1], rows[2:]
    ia, isrc, iex = hdr.index("Address"), hdr.index("Source"), hdr.index("Instructions Executed")
    ith = hdr.index("Thread Instructions Executed") if "Thread Instructions Executed" in hdr else None
    base = int(data[0][ia], 16)
    ins, ex, th = [], {}, {}
    for r in data:
        a = int(r[ia], 16) - base
        ins.append((a, r[isrc].strip()))
        ex[a] = int(r[iex] or 0)
        th[a] = int(r[ith] or 0) if ith is not None else 0
    bl = blocks(ins)
    tile = max(bl, key=lambda b: sum(opcode(t) == "VIADDMNMX" for _a, t in b) * (ex[b[0][0]] > 0))
    steps = ex[tile[0][0]]
    total = sum(ex.values())
    print(f"steps {steps / 1e6:.2f}M, executed {total / 1e6:.0f}M warp instructions, {total / steps:.0f} per step, "
          f"average active lanes {sum(th.values()) / total:.1f}")
    out = []
    for b in bl:
        x = sum(ex[a] for a, _ in b)
        if x:
            out.append((x / steps, b[0][0], len(b), ex[b[0][0]] / steps,
                        collections.Counter(opcode(t) for _a, t in b)))
    cum = 0.0
    for per, a, n, runs, ops in sorted(out, reverse=True):
        cum += per
        if per >= args.min:
            print(f"{a:06x} n={n:4d} runs/step={runs:5.2f} instr/step={per:6.1f} cum={cum:6.1f}  "
                  + ", ".join(f"{k} {v}" for k, v in ops.most_common(6)))


if __name__ == "__main__":
    main()
