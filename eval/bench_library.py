"""Benchmark of the consistency library on the CPU and on the GPU, inside ``trimsa run``.

    python eval/bench_library.py FASTA [FASTA ...] [--sizes 32,64,128,256] [--out FILE]

For each input and each size ``n``, the first ``n`` sequences are aligned by the Python
API (as ``trimsa run`` does) with ``device="cpu"`` (all cores) and ``device="gpu"``;
the table gives the library stage's seconds on each (the pairwise alignments and their
posteriors, all pairs) and its rate in DP cells of the pairwise alignments per second
(GCUPS; the posteriors' band and the host's work included), the whole run's seconds, and
whether the two alignments are identical (they must be: the GPU library is the CPU's, bit
for bit). Both devices are warmed up first (CUDA context, kernel compilation, numba's
functions) so that the table shows steady-state times; a first run on a fresh machine
compiles (README, "Quick start").
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def stage_seconds(result, name: str) -> float:
    return sum(s.seconds for s in result.stages if s.name == name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path)
    ap.add_argument("--sizes", default="32,64,128,256",
                    help="numbers of leading sequences to align (default 32,64,128,256)")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here (Markdown)")
    args = ap.parse_args(argv)

    from trimsa.io import read_records
    from trimsa.progressive import Aligner
    from trimsa.triplet import _gpu

    gpu = _gpu.require()
    warm = [(r[0], r[2]) for r in read_records(args.inputs[0])[:8]]
    for device in ("gpu", "cpu"):   # warm-up: CUDA context, kernels and numba's functions
        Aligner(device=device).align(warm)
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = []
    head = ("| input | n | mean length | pairs | cells | library CPU s | library GPU s | "
            "CPU GCUPS | GPU GCUPS | CPU/GPU | run CPU s | run GPU s | identical |")
    print(head)
    print("|" + "---|" * 13)
    for path in args.inputs:
        records = read_records(path)
        for n in sizes:
            if n > len(records):
                continue
            seqs = [(r[0], r[2]) for r in records[:n]]
            got = {}
            for device in ("cpu", "gpu"):
                t = time.perf_counter()
                res = Aligner(device=device).align(seqs)
                got[device] = (res, time.perf_counter() - t)
            (rc, tc), (rg, tg) = got["cpu"], got["gpu"]
            lib = [s for s in rg.stages if s.name == "library"][0]
            lc, lg = stage_seconds(rc, "library"), stage_seconds(rg, "library")
            mean = sum(len(r[1]) for r in seqs) / n
            row = (f"| {path.name} | {n} | {mean:.0f} | {lib.items} | {lib.cells:.3g} | "
                   f"{lc:.3f} | {lg:.3f} | {lib.cells / max(lc, 1e-9) / 1e9:.2f} | "
                   f"{lib.cells / max(lg, 1e-9) / 1e9:.2f} | {lc / max(lg, 1e-9):.1f} | "
                   f"{tc:.2f} | {tg:.2f} | "
                   f"{'yes' if rc.rows == rg.rows else 'NO'} |")
            print(row, flush=True)
            rows.append(row)
    if args.out:
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        text = [f"# The consistency library, CPU and GPU ({stamp})", "",
                f"Machine: {platform.node()}, {os.cpu_count()} CPU cores, GPU {gpu}. "
                f"Command: `python eval/bench_library.py {' '.join(sys.argv[1:])}`.", "",
                head, "|" + "---|" * 13, *rows, ""]
        args.out.write_text("\n".join(text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
