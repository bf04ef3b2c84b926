"""The library's pair HMM with flatter or sharper match emissions (tune only).

    python eval/experiments/2026-11-27-hmm-temperature/temperature.py BETA [--out run.tsv]

The trained joint match distribution ``p(a, b) = odds(a, b) q(a) q(b)`` of
:mod:`trimsa.progressive.pair_hmm` is raised to the power ``BETA`` and normalised; its
marginals become the background and ``odds = p / (q q^T)`` again. ``BETA < 1`` flattens the
emissions (the library's posteriors less sure of any one partner), ``> 1`` sharpens them;
1 is the package. Gaps stay MUSCLE5's. Runs every family of ``real/tune`` and every msa
set of ``sim2/tune`` with N <= 256 (the runner of ``../2026-11-24-sparse-library``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import report, run_sets  # noqa: E402

from trimsa.progressive import pair_hmm  # noqa: E402


def patch(beta: float):
    p = pair_hmm.DNA_ODDS * np.outer(pair_hmm.DNA_BACKGROUND, pair_hmm.DNA_BACKGROUND)
    p = p ** beta
    p /= p.sum()
    q = p.sum(axis=1)
    pair_hmm.DNA_BACKGROUND = q
    pair_hmm.DNA_ODDS = p / np.outer(q, q)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("beta", type=float)
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    patch(args.beta)
    label = f"beta={args.beta:g}"
    rows = run_sets({label: {}}, data=args.data, max_n=args.max_n, threads=args.threads)
    report(rows, [label], args.out)


if __name__ == "__main__":
    main()
