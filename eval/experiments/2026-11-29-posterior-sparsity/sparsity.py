"""How many posterior partners each residue keeps, and the least probability kept, in the
consistency library (tune only).

    python eval/experiments/2026-11-29-posterior-sparsity/sparsity.py VARIANT... [--only real]

VARIANT is ``default`` or ``SLOTS:FLOOR[:BAND]`` (e.g. ``8:0.001``): the library's
``POSTERIOR_SLOTS``, ``POSTERIOR_FLOOR`` and ``POSTERIOR_BAND`` for that run (the package:
4, 0.01, 64). Runs the real/tune families and the sim2/tune msa sets of up to --max-n
sequences through ``run``'s defaults otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))
sys.path.insert(0, str(HERE.parents[1]))

from sparse import report  # noqa: E402

from trimsa.progressive import consistency  # noqa: E402

PACKAGE = (consistency.POSTERIOR_SLOTS, consistency.POSTERIOR_FLOOR,
           consistency.POSTERIOR_BAND)


def apply(variant: str):
    slots, floor, band = PACKAGE
    if variant != "default":
        parts = variant.split(":")
        slots, floor = int(parts[0]), float(parts[1])
        if len(parts) > 2:
            band = int(parts[2])
    consistency.POSTERIOR_SLOTS = slots
    consistency.POSTERIOR_FLOOR = floor
    consistency.POSTERIOR_BAND = band


def main():
    from bench_run import data_sets
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    for folder, _inp, ref, seqs in data_sets("tune", args.max_n, Path(args.data)):
        if folder.name.startswith("trip-"):
            continue
        group = "real" if folder.name.startswith("rfam") else "sim2 N<=256"
        if args.only and not group.startswith(args.only):
            continue
        for v in args.variants:
            apply(v)
            t = time.perf_counter()
            res = Aligner(threads=args.threads).align(seqs)
            sec = time.perf_counter() - t
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(ref, f"{d}/a.fa")
            rows.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, sec, 0))
            print(f"{folder.name:40s} {v:14s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"{sec:6.1f} s", flush=True)
    report(rows, args.variants, args.out)


if __name__ == "__main__":
    main()
