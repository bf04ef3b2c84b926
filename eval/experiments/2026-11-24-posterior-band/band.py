"""Posteriors computed in a band around each pair's alignment path against the whole DP
table (tune splits only).

    python eval/experiments/2026-11-24-posterior-band/band.py [--variants a,b]
        [--max-n N] [--min-n N] [--out log.tsv]

Uses the runner of ``../2026-11-24-sparse-library/sparse.py``; each variant sets
``trimsa.progressive.consistency.POSTERIOR_BAND`` (columns either side of the path;
-1 = the whole table) for its runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import ROOT, report, run_sets  # noqa: E402

BANDS = {"full": -1, "band64": 64, "band32": 32, "band16": 16, "band8": 8}


def main():
    from trimsa.progressive import consistency

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default=",".join(BANDS))
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    rows = []
    saved = consistency.POSTERIOR_BAND
    for v in names:
        consistency.POSTERIOR_BAND = BANDS[v]
        try:
            rows += run_sets({v: {}}, data=args.data, min_n=args.min_n, max_n=args.max_n,
                             threads=args.threads)
        finally:
            consistency.POSTERIOR_BAND = saved
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
