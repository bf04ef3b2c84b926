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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))
sys.path.insert(0, str(HERE.parent / "2026-11-29-structure-library"))
sys.path.insert(0, str(HERE.parents[1]))

from sparse import report  # noqa: E402
from structure import run_tune_sets  # noqa: E402  (the same runner; needs ViennaRNA)

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
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = run_tune_sets(args.variants, lambda v, seqs: apply(v), data=args.data,
                         max_n=args.max_n, only=args.only, threads=args.threads)
    report(rows, args.variants, args.out)


if __name__ == "__main__":
    main()
