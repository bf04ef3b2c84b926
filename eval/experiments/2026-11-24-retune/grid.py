"""Gap-open and library-weight grid for ``trimsa run`` on the tune splits (N <= 256).

    python eval/experiments/2026-11-24-retune/grid.py [--max-n 256] [--out grid.tsv]

The defaults (gap open -3, extend -1, weight 6) were chosen on the old ``sim/`` msa sets;
this asks whether ``sim2/tune`` and ``real/tune`` agree. Uses the runner of
``2026-11-24-sparse-library/sparse.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import ROOT, report, run_sets  # noqa: E402

GRID = {
    "go3-w6": {},
    "go4-w6": {"gap_open": -4, "gap_extend": -1},
    "go6-w6": {"gap_open": -6, "gap_extend": -1},
    "go3-w12": {"consistency": 12.0},
    "go4-w12": {"gap_open": -4, "gap_extend": -1, "consistency": 12.0},
    "go2-w6": {"gap_open": -2, "gap_extend": -1},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default=",".join(GRID))
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    rows = run_sets({v: GRID[v] for v in names}, data=args.data, max_n=args.max_n,
                    threads=args.threads)
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
