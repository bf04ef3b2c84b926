"""The merges with every sequence weighted 1 instead of ClustalW's tree weights (tune only).

    python eval/experiments/2026-11-27-uniform-weights/uniform.py VARIANT [--out run.tsv]

ProbCons and MUSCLE5 score a merge by the sum of the (consistency-transformed) posteriors
of all residue pairs across it, every sequence alike; the merges weight each sequence's
profile share and library support by its tree weight (``engine.tree_weights``).
``uniform`` patches ``engine.tree_weights`` to return ones (the profiles and the
library's support alike); ``default`` is the package. Runs every family of ``real/tune``
and every msa set of ``sim2/tune`` with N <= 256 (the runner of
``../2026-11-24-sparse-library``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import report, run_sets  # noqa: E402

from trimsa.progressive import engine  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variant", choices=("default", "uniform"))
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.variant == "uniform":
        engine.tree_weights = lambda tree: np.ones(tree.n)
    rows = run_sets({args.variant: {}}, data=args.data, max_n=256, threads=args.threads)
    report(rows, [args.variant], args.out)


if __name__ == "__main__":
    main()
