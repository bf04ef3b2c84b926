"""Settings of ``run`` that might close the gap to MUSCLE5 on the real RNA families, on the
tune splits only (real/tune, and sim2/tune msa N <= 256 so that nothing is bought there).

    python eval/experiments/2026-11-24-real-families/sweep.py [--variants a,b]
        [--data DIR] [--max-n N] [--out log.tsv]

Uses the runner of ``../2026-11-24-sparse-library/sparse.py``.
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
    "term0": {"terminal": 0.0},
    "term0.25": {"terminal": 0.25},
    "term1": {"terminal": 1.0},
    "nj": {"method": "nj"},
    "o2e2": {"gap_open": -2, "gap_extend": -2},
    "mis2": {"mismatch": -2},
    "allwit": {"max_witnesses": None},
    # run 2: end gaps dearer; transitions (A<->G, C<->T) scored apart from transversions
    # (``transition``: their score; the other mismatches keep ``mismatch``)
    "term1.5": {"terminal": 1.5},
    "term2": {"terminal": 2.0},
    "ts0": {"transition": 0},
    "mis2-ts1": {"mismatch": -2, "transition": -1},
    "m2-ts0-mis2": {"match": 2, "mismatch": -2, "transition": 0, "gap_open": -6,
                    "gap_extend": -2},
    "m2-ts1-mis2": {"match": 2, "mismatch": -2, "transition": -1, "gap_open": -6,
                    "gap_extend": -2},
    # run 3: the merges' own scores scaled by (substitutions, gaps) against the library's
    # support, which stays as it is; (0, 0) is ProbCons' maximum expected accuracy
    "mea": {"walk_scale": (0.0, 0.0)},
    "mea-gap0.25": {"walk_scale": (0.0, 0.25)},
    "nosub": {"walk_scale": (0.0, 1.0)},
    "sub0.5": {"walk_scale": (0.5, 1.0)},
}


def scaled_walk(alpha, beta):
    """A patch of ``engine.Walk.__init__`` that scales the merges' substitution scores by
    ``alpha`` and their gap scores by ``beta`` (the library was built with the plain ones)."""
    from trimsa.progressive import engine

    plain = engine.Walk.__init__

    def init(self, tree, seq_codes, weights, scoring, *a, **kw):
        t = scoring.table.copy()
        k = t.shape[0] - 1
        t[:k, :k] *= alpha
        t[:k, k] *= beta
        t[k, :k] *= beta
        sc = engine.ProfileScoring(t, scoring.gap_open * beta, scoring.gap_extend * beta,
                                   scoring.term)
        plain(self, tree, seq_codes, weights, sc, *a, **kw)

    return plain, init


def with_transitions(transition):
    """A patch of ``Aligner.scoring`` that gives transitions their own score (DNA)."""
    from trimsa.progressive import api
    from trimsa.scoring import Scoring

    plain = api.Aligner.scoring

    def scoring(self, seqs):
        sc = plain(self, seqs)
        table = sc.table.copy()
        for x, y in ((0, 2), (2, 0), (1, 3), (3, 1)):   # "ACGT...": A-G, C-T
            table[x, y] = transition
        return Scoring(sc.alphabet, table, sc.gap_open, sc.gap_extend,
                       sc.description + f", transition={transition}")

    return plain, scoring


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    from trimsa.progressive import api, engine

    rows = []
    for v in names:
        opts = dict(VARIANTS[v])
        ts = opts.pop("transition", None)
        scale = opts.pop("walk_scale", None)
        plain = api.Aligner.scoring
        plain_walk = engine.Walk.__init__
        if ts is not None:
            api.Aligner.scoring = with_transitions(ts)[1]
        if scale is not None:
            engine.Walk.__init__ = scaled_walk(*scale)[1]
        try:
            rows += run_sets({v: opts}, data=args.data, max_n=args.max_n, threads=args.threads)
        finally:
            api.Aligner.scoring = plain
            engine.Walk.__init__ = plain_walk
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
