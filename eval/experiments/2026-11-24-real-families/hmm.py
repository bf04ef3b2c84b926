"""The pair HMM behind the library's posteriors, perturbed (tune splits only): do its
fitted parameters limit the accuracy on the real families?

    python eval/experiments/2026-11-24-real-families/hmm.py VARIANT [--data DIR] [--out F]

Each variant runs in its own process: it turns numba's cache off and replaces
``_cpu.gap_params`` / ``_cpu.match_odds`` before any kernel is compiled, so that the
library's kernels (CPU, or the host part of the GPU path) call the perturbed ones.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ["TRIMSA_NUMBA_CACHE"] = "0"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

#: name -> (factor on delta, factor on 1 - eps, shift of the identity the odds are fitted to)
VARIANTS = {
    "default": (1.0, 1.0, 0.0),
    "delta2": (2.0, 1.0, 0.0),
    "delta0.5": (0.5, 1.0, 0.0),
    "longgaps": (1.0, 0.5, 0.0),
    "shortgaps": (1.0, 2.0, 0.0),
    "flat": (1.0, 1.0, -0.05),
    "sharp": (1.0, 1.0, 0.05),
}


def patch(fd, fe, shift):
    from trimsa._numba import jit
    from trimsa.progressive import _cpu

    gap0 = _cpu.gap_params
    odds0 = _cpu.match_odds

    @jit
    def gap_params(mp, lb):
        d, e = gap0(mp, lb)
        return min(d * fd, 0.45), max(min(1.0 - (1.0 - e) * fe, 0.99), 0.05)

    @jit
    def match_odds(table, ident):
        return odds0(table, min(max(ident + shift, 0.0), 1.0))

    _cpu.gap_params = gap_params
    _cpu.match_odds = match_odds


def main():
    from sparse import ROOT, report, run_sets

    ap = argparse.ArgumentParser()
    ap.add_argument("variant", choices=sorted(VARIANTS))
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    patch(*VARIANTS[args.variant])
    rows = run_sets({args.variant: {}}, data=args.data, max_n=args.max_n)
    report(rows, [args.variant], args.out)


if __name__ == "__main__":
    main()
