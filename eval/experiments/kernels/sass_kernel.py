"""Static instruction profile of the triplet kernel's main loop (no GPU needed).

Compiles instantiations of ``trimsa/kernels/triplet_score.cu`` with ``nvcc
-cubin`` for one architecture, disassembles them with ``cuobjdump -sass`` and
prints, per instantiation: registers, spills, the size of the main loop (the
longest backward branch) and its basic blocks, largest first, with their most
frequent opcodes. The block that holds the tile's DP (most ``VIADDMNMX``
instructions) is marked; its size per lane-cell is the cost of the cell
update itself, and the rest of a typical step (halo shuffles, the A-residue
lookups, layer shift moves, face recurrences, ...) is the overhead to cut.

This is a static view: which blocks a step actually executes depends on the
thread's place in the group and on the item (region setup, score readout,
face writes run rarely). Use it to compare versions of the kernel, and ncu
on a GPU for where the time goes.

Needs ``nvcc`` and ``cuobjdump`` on the PATH or given with ``--nvcc`` /
``--cuobjdump``. Without a CUDA toolkit, ``pip download --no-deps
nvidia-cuda-cuobjdump`` gives a wheel whose ``nvidia/cu13/bin/cuobjdump``
works (unzip it).

Usage::

    python eval/experiments/kernels/sass_kernel.py --cuobjdump /tmp/cuobjdump
    python eval/experiments/kernels/sass_kernel.py --config 8,8,4,4 --arith S16x2 --modes 0,1,2
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from trimsa.kernels import source  # noqa: E402

SIGNATURE = ("(const unsigned char*, const long long*, const int*, const int*, int, const int*, "
             "int, int, int, int*, unsigned int*, long long, int, int, const int4*, int, "
             "unsigned int*, int*, int*)")
_INS = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def compile_sass(arith: str, config: str, mode: int, nvcc: str, cuobjdump: str, arch: str,
                 stage: bool = False, profile: bool = False):
    """``(ptxas info text, SASS text)`` of ``triplet_score<arith, config, mode, stage, profile>``."""
    inst = (f"template __global__ void triplet_score<{arith}, {config}, {mode}, "
            f"{'true' if stage else 'false'}, {'true' if profile else 'false'}>{SIGNATURE};\n")
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / "k.cu"
        cu.write_text(source("triplet_score.cu") + "\n" + inst)
        cubin = Path(tmp) / "k.cubin"
        info = subprocess.run([nvcc, f"-arch={arch}", "-cubin", "-std=c++17", "--resource-usage",
                               "-o", str(cubin), str(cu)], capture_output=True, text=True, check=True)
        sass = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True,
                              check=True).stdout
    return info.stderr + info.stdout, sass


def instructions(sass: str) -> list:
    return [(int(a, 16), t) for a, t in _INS.findall(sass)]


def opcode(text: str) -> str:
    text = re.sub(r"^@!?U?P\w+\s+", "", text)
    return text.split()[0].split(".")[0]


def main_loop(ins: list) -> tuple:
    """``(start, end)`` addresses of the longest backward branch."""
    best = (0, 0)
    for a, t in ins:
        if re.search(r"\bBRA\b", t):
            m = re.search(r"0x([0-9a-f]+)", t)
            if m and int(m.group(1), 16) < a and a - int(m.group(1), 16) > best[1] - best[0]:
                best = (int(m.group(1), 16), a)
    return best


def blocks(ins: list) -> list:
    """Basic blocks (split at branch targets and after branches / syncs)."""
    targets = set()
    for _a, t in ins:
        if re.search(r"\b(BRA|BSSY|BSYNC)\b", t):
            m = re.search(r"0x([0-9a-f]+)", t)
            if m:
                targets.add(int(m.group(1), 16))
    out, cur = [], []
    for a, t in ins:
        if a in targets and cur:
            out.append(cur)
            cur = []
        cur.append((a, t))
        if re.search(r"\b(BRA|BRX|EXIT|BSYNC|WARPSYNC)\b", t):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def report(arith, config, mode, info, sass, top: int) -> None:
    regs = re.search(r"Used (\d+) registers", info)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
    ins = instructions(sass)
    lo, hi = main_loop(ins)
    loop = [(a, t) for a, t in ins if lo <= a <= hi]
    bl = blocks(loop)
    tile = max(bl, key=lambda b: sum(opcode(t) == "VIADDMNMX" for _a, t in b))
    tj, tk = (int(x) for x in config.split(",")[:2])
    lanes = tj * tk
    print(f"\n## triplet_score<{arith}, {config}, {mode}>: {regs.group(1) if regs else '?'} registers, "
          f"spill stores/loads {spill.group(1) if spill else '?'}/{spill.group(2) if spill else '?'} "
          f"bytes; main loop {len(loop)} instructions in {len(bl)} blocks")
    print(f"tile block: {len(tile)} instructions = {len(tile) / lanes:.2f} per lane-cell "
          f"({'2 cells' if arith.startswith('S16x2') else '1 cell'} per lane)")
    print("\n| block | instructions | most frequent opcodes |\n|---|---|---|")
    for b in sorted(bl, key=len, reverse=True)[:top]:
        ops = collections.Counter(opcode(t) for _a, t in b)
        mark = " (tile)" if b is tile else ""
        print(f"| {b[0][0]:#07x}{mark} | {len(b)} | "
              + ", ".join(f"{k} {v}" for k, v in ops.most_common(6)) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arith", default="S16x2,I32", help="comma list of I32, S16x2, S16x2N")
    ap.add_argument("--config", default="8,8,4,8", help="TJ,TK,P,Q (default 8,8,4,8)")
    ap.add_argument("--modes", default="0,1")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--top", type=int, default=12, help="blocks listed per kernel")
    ap.add_argument("--stage", action="store_true",
                    help="the staged region setup (STG = true, as launched for short items)")
    ap.add_argument("--profile", action="store_true",
                    help="the A-residue profile in shared memory (PRF = true, small alphabets)")
    args = ap.parse_args(argv)
    for arith in args.arith.split(","):
        for mode in (int(m) for m in args.modes.split(",")):
            info, sass = compile_sass(arith, args.config, mode, args.nvcc, args.cuobjdump, args.arch,
                                      args.stage, args.profile)
            report(arith, args.config, mode, info, sass, args.top)


if __name__ == "__main__":
    main()
