"""The library's posteriors averaged over two pair HMMs, the trained and the fitted one
(tune only).

    python eval/experiments/2026-11-27-hmm-mixture/mix.py families --variants default,mix [--threads 2] [--out run.tsv]
    python eval/experiments/2026-11-27-hmm-mixture/mix.py triplets --variants default,mix

``mix`` patches ``Aligner._library``: the library of all pairs is built twice, with the
trained and with the fitted pair HMM (the same pairs, so the same layout), and each
residue's partners become the mean of the two posteriors, the most probable
``POSTERIOR_SLOTS`` kept (at least ``POSTERIOR_FLOOR``). ``families``: every family of
``real/tune`` and every msa set of ``sim2/tune`` with N <= 256 (the runner of
``../2026-11-24-sparse-library``). ``triplets``: the tune triplet groups of
``../2026-11-27-three-sequences``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))
sys.path.insert(0, str(HERE.parent / "2026-11-27-three-sequences"))
sys.path.insert(0, str(HERE.parents[2]))

from trimsa.progressive import api, consistency  # noqa: E402
from trimsa.progressive.pair_hmm import pair_hmm  # noqa: E402


@njit(cache=True)
def mean_slots(m1, p1, m2, p2, floor, out_m, out_p):
    """Row by row, the mean of two partner lists (absent = 0), the best ``slots`` kept."""
    rows, slots = m1.shape
    cols = np.empty(2 * slots, np.int64)
    vals = np.empty(2 * slots, np.float64)
    for r in range(rows):
        n = 0
        for src in range(2):
            M = m1 if src == 0 else m2
            P = p1 if src == 0 else p2
            for q in range(slots):
                c = M[r, q]
                if c < 0:
                    continue
                hit = -1
                for x in range(n):
                    if cols[x] == c:
                        hit = x
                if hit < 0:
                    cols[n] = c
                    vals[n] = 0.0
                    hit = n
                    n += 1
                vals[hit] += 0.5 * P[r, q]
        for q in range(slots):
            out_m[r, q] = -1
            out_p[r, q] = 0.0
        for q in range(slots):
            best = -1
            for x in range(n):
                if vals[x] >= floor and (best < 0 or vals[x] > vals[best]
                                         or (vals[x] == vals[best] and cols[x] < cols[best])):
                    best = x
            if best < 0:
                break
            out_m[r, q] = cols[best]
            out_p[r, q] = vals[best]
            vals[best] = -1.0


def patch():
    original = api.Aligner._library

    def library(self, seqs, codes, sc, hmm, *args, **kwargs):
        lib = original(self, seqs, codes, sc, hmm, *args, **kwargs)
        used = np.unique(seqs.codes)
        other = pair_hmm("fitted", seqs.alphabet.name, used)
        lib2 = original(self, seqs, codes, sc, other, *args, **kwargs)
        assert np.array_equal(lib.nbr_map, lib2.nbr_map)
        m = np.empty_like(lib.maps)
        p = np.empty_like(lib.probs)
        mean_slots(lib.maps, lib.probs, lib2.maps, lib2.probs, consistency.POSTERIOR_FLOOR, m, p)
        lib.maps = m
        lib.probs = p
        return lib

    api.Aligner._library = library


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("families", "triplets"))
    ap.add_argument("--variants", default="default,mix")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    for name in names:
        if name == "mix":
            patch()   # after the default's runs: the patch stays for the rest
        if args.what == "families":
            from sparse import report, run_sets

            rows = run_sets({name: {}}, data=args.data, max_n=256, threads=args.threads)
            report(rows, [name], args.out and f"{args.out}.{name}.tsv")
        else:
            import three

            three.main(["triplets", "--variants", "{}"])


if __name__ == "__main__":
    main()
