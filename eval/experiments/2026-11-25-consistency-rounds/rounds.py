"""A second round of the consistency transformation before the merges (ProbCons and
MUSCLE5 iterate it; the merges' witnesses are one round), on the tune splits only.

    python rounds.py [--variants default,round2] [--data DIR] [--max-n 256] [--groups real]
                     [--out rows.tsv]

``round2`` replaces each library pair's posteriors P_st by
(2 P_st + sum over the other sequences u of P_su P_ut) / n before the merges, keeping the
library's 4 most probable partners per residue (those above 0.01); the merges then add
their witnesses as before. Uses the runner of ``../2026-11-24-sparse-library/sparse.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import ROOT, report, run_sets  # noqa: E402

CUTOFF = 0.01


@njit(cache=False)
def _entry(nbr_ptr, nbr, s, t):
    lo, hi = nbr_ptr[s], nbr_ptr[s + 1]
    k = lo + np.searchsorted(nbr[lo:hi], t)
    if k < hi and nbr[k] == t:
        return k
    return -1


@njit(cache=False)
def transform(offsets, nbr_ptr, nbr, nbr_map, maps, probs, new_maps, new_probs, n):
    kk = maps.shape[1]
    lmax = 0
    for s in range(n):
        lmax = max(lmax, offsets[s + 1] - offsets[s])
    acc = np.zeros(lmax)
    touched = np.empty(lmax * (kk * kk * n + kk) + 1, np.int64)
    for s in range(n):
        ls = offsets[s + 1] - offsets[s]
        for k in range(nbr_ptr[s], nbr_ptr[s + 1]):
            t = nbr[k]
            o_st = nbr_map[k]
            for x in range(ls):
                nt = 0
                for q in range(kk):
                    y = maps[o_st + x, q]
                    if y < 0:
                        break
                    if acc[y] == 0.0:
                        touched[nt] = y
                        nt += 1
                    acc[y] += 2.0 * probs[o_st + x, q]
                for k2 in range(nbr_ptr[s], nbr_ptr[s + 1]):
                    u = nbr[k2]
                    if u == t:
                        continue
                    e = _entry(nbr_ptr, nbr, u, t)
                    if e < 0:
                        continue
                    o_su = nbr_map[k2]
                    o_ut = nbr_map[e]
                    for q in range(kk):
                        z = maps[o_su + x, q]
                        if z < 0:
                            break
                        p1 = probs[o_su + x, q]
                        for q2 in range(kk):
                            y = maps[o_ut + z, q2]
                            if y < 0:
                                break
                            if acc[y] == 0.0:
                                touched[nt] = y
                                nt += 1
                            acc[y] += p1 * probs[o_ut + z, q2]
                # the kk largest above the cutoff, most probable first
                for q in range(kk):
                    best = -1
                    bv = CUTOFF * n
                    for i in range(nt):
                        y = touched[i]
                        if acc[y] > bv:
                            bv = acc[y]
                            best = y
                    if best < 0:
                        new_maps[o_st + x, q] = -1
                        new_probs[o_st + x, q] = 0.0
                    else:
                        new_maps[o_st + x, q] = best
                        new_probs[o_st + x, q] = bv / n
                        acc[best] = -acc[best]   # taken
                for i in range(nt):
                    acc[touched[i]] = 0.0


def round2_library():
    from trimsa.progressive import api

    plain = api.Aligner._library

    def _library(self, *a, **kw):
        lib = plain(self, *a, **kw)
        if lib is None or lib.n_posterior == 0:
            return lib
        new_maps = np.full_like(lib.maps, -1)
        new_probs = np.zeros_like(lib.probs)
        transform(lib.offsets, lib.nbr_ptr, lib.nbr, lib.nbr_map, lib.maps, lib.probs,
                  new_maps, new_probs, lib.n)
        lib.maps, lib.probs = new_maps, new_probs
        return lib

    return plain, _library


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default="default,round2")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    from trimsa.progressive import api

    rows = []
    for v in names:
        plain = api.Aligner._library
        if v == "round2":
            api.Aligner._library = round2_library()[1]
        try:
            rows += run_sets({v: {}}, data=args.data, max_n=args.max_n, threads=args.threads)
        finally:
            api.Aligner._library = plain
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
