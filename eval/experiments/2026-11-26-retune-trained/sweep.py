"""Aligner settings again, now that the library's pair HMM is the trained one (tune only).

    python eval/experiments/2026-11-26-retune-trained/sweep.py --variants a,b [--data .data/tune]
        [--max-n 256] [--threads 2] [--out run.tsv]

The consistency weight, the end-gap factor and the witnesses were chosen with the fitted
three-state HMM; this runs ``Aligner`` variants (:data:`VARIANTS`) on every family of
``real/tune`` and every msa set of ``sim2/tune`` (uses the runner of
``../2026-11-24-sparse-library/sparse.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import ROOT, report, run_sets  # noqa: E402

VARIANTS = {
    "default": {},
    "w24": {"consistency": 24.0},
    "w32": {"consistency": 32.0},
    "w64": {"consistency": 64.0},
    "w96": {"consistency": 96.0},
    "w192": {"consistency": 192.0},
    "w384": {"consistency": 384.0},
    "kmer": {"tree_distances": "kmer"},
    "term1": {"terminal": 1.0},
    "term2": {"terminal": 2.0},
    "allwit": {"max_witnesses": None},
    "wit8": {"max_witnesses": 8},
    "nj": {"method": "nj"},
    # guide-tree distances 1 - expected accuracy from the library's posteriors
    # (``../2026-11-25-trained-hmm/hmm2.py``'s ``ea_tree`` patch)
    "ea": {},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".data" / "tune"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default="default")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    if "ea" in names:
        if len(names) > 1:
            raise SystemExit("variant ea patches the package: run it alone")
        sys.path.insert(0, str(HERE.parent / "2026-11-25-trained-hmm"))
        from hmm2 import ea_tree

        ea_tree()
    rows = run_sets({v: VARIANTS[v] for v in names}, data=args.data, min_n=args.min_n,
                    max_n=args.max_n, threads=args.threads)
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
