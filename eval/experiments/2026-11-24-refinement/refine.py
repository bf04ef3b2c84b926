"""Refinement after the merges (``Aligner(refine=R)``) against none (tune splits only).

    python eval/experiments/2026-11-24-refinement/refine.py [--variants a,b]
        [--max-n N] [--min-n N] [--out log.tsv]

Uses the runner of ``../2026-11-24-sparse-library/sparse.py``; needs ``refine.patch`` applied
(``Aligner(refine=...)`` is not in the package).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import ROOT, report, run_sets  # noqa: E402

VARIANTS = {"none": {"refine": 0.0}, "refine1": {"refine": 1.0}, "refine4": {"refine": 4.0},
            "refine16": {"refine": 16.0}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default="none,refine1,refine4")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    rows = run_sets({v: VARIANTS[v] for v in names}, data=args.data, min_n=args.min_n,
                    max_n=args.max_n, threads=args.threads)
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
