"""The library's pair HMM with parameters trained on the tune splits' true alignments
(``train.py`` -> ``params.json``), with one or two gap lengths (tune splits only).

    python hmm2.py VARIANT [--data DIR] [--max-n 256] [--out rows.tsv]

Each variant runs in its own process: numba's cache is off and ``_cpu._pair_slots`` /
``_cpu.posterior_slots`` are replaced before any kernel compiles, so that the library's
CPU kernels call the replacements. The replacement ``posterior_slots`` is a five-state
pair HMM (match; short and long gaps in either sequence; ProbCons' layout): the three-state
model of the package is its case ``delta2 = 0``. A pair's parameters are those of its
identity bin (the identity of its global affine alignment, as in ``train.py``).

Variants:

``default``      the package as it is (per-pair fitted three-state HMM)
``trained2``     trained match odds and two gap lengths, per identity bin
``trained1``     trained match odds and one gap length, per identity bin
``fitodds2``     the package's fitted match odds, trained two gap lengths per bin
``flat2``        one set of parameters for every pair: the bins' averaged by aligned columns
``pooled2``      one set of parameters for every pair, estimated from all pairs together
                 (``params.json``'s ``pooled``; two gap lengths)
``package``      the package from b5ad925 on (which has the pooled model built in, and
                 whose kernels the patches above no longer fit), its trained constants
                 replaced by the ``pooled`` model of ``--params``

Compact codes 0..3 are A, C, G, T for every tune set (each holds all four bases); pairs
with an ambiguity code get odds 1 (that of a gap).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ["TRIMSA_NUMBA_CACHE"] = "0"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

import numpy as np  # noqa: E402

VARIANTS = ("default", "trained2", "trained1", "fitodds2", "flat2", "flat2-ea", "default-ea",
            "pooled2", "package")


def ea_distances(library):
    """``1 - expected accuracy`` per pair of the library: its posteriors summed over the
    shorter sequence's residues, divided by that length (the smaller of the two
    directions)."""
    n = library.n
    D = np.zeros((n, n))
    for s in range(n):
        for k in range(library.nbr_ptr[s], library.nbr_ptr[s + 1]):
            t = library.nbr[k]
            o = library.nbr_map[k]
            ls = library.offsets[s + 1] - library.offsets[s]
            lt = library.offsets[t + 1] - library.offsets[t]
            pr = library.probs[o:o + ls]
            D[s, t] = pr[library.maps[o:o + ls] >= 0].sum() / max(min(ls, lt), 1)
    D = 1.0 - np.minimum(D, D.T)
    np.fill_diagonal(D, 0.0)
    return D


def ea_tree():
    """Guide-tree distances :func:`ea_distances` instead of the corrected identity of the
    pair's alignment."""
    from trimsa.progressive import api

    def _pairwise_tree(self, seqs, library):
        tree = orig(self, seqs, library)
        out = api.METHODS[self.method](ea_distances(library), seqs.names)
        out.distances = tree.distances
        out.timings = tree.timings
        return out

    orig = api.Aligner._pairwise_tree
    api.Aligner._pairwise_tree = _pairwise_tree


PARAMS = HERE / "params.json"


def load(variant, path=None):
    path = PARAMS if path is None else path
    P = json.loads(Path(path).read_text())
    bins = P["bins"]
    edges = np.array(P["edges"], np.float64)
    nb = len(bins)
    odds = np.ones((nb, 4, 4))
    gaps = np.zeros((nb, 4))
    for k, b in enumerate(bins):
        odds[k] = np.array(b["odds"])
        if variant == "trained1":
            gaps[k] = (b["one"]["delta"], b["one"]["eps"], 0.0, 0.5)
        else:
            d = b["two"]["delta"]
            e = b["two"]["eps"]
            gaps[k] = (d[0], e[0], d[1], e[1])
    if variant == "pooled2":
        b = P["pooled"]
        odds[:] = np.array(b["odds"])
        gaps[:] = (b["two"]["delta"][0], b["two"]["eps"][0], b["two"]["delta"][1],
                   b["two"]["eps"][1])
    if variant == "flat2":
        w = np.array([b["aligned"] for b in bins])
        w = w / w.sum()
        odds[:] = (odds * w[:, None, None]).sum(axis=0)
        gaps[:] = (gaps * w[:, None]).sum(axis=0)
    return edges, odds, gaps


def patch(variant):
    from trimsa._numba import jit
    from trimsa.progressive import _cpu

    if variant == "default":
        return
    edges, ODDS, GAPS = load(variant)
    use_fit = variant == "fitodds2"
    _path_map = _cpu._path_map
    match_odds = _cpu.match_odds
    path_band = _cpu.path_band
    _keep = _cpu._keep

    @jit
    def _pair_slots(a, b, path, npath, table, posterior, band, lo, hi):
        mp, idn = _path_map(a, b, path, npath)
        if not posterior:
            return mp, idn, np.zeros((0, 0)), 0.0, 0.0, 0
        k = 0
        while k + 1 < GAPS.shape[0] and idn >= edges[k + 1]:
            k += 1
        if use_fit:
            odds = match_odds(table, idn)
        else:
            n = table.shape[0]
            odds = np.ones((n, n))
            m = min(n, 4)
            odds[:m, :m] = ODDS[k, :m, :m]
        cells = path_band(path, npath, b.size, band, lo, hi)
        return mp, idn, odds, float(k), 0.0, cells

    @jit
    def posterior_slots(a, b, odds, delta, eps, floor, lo, hi, fM, col_ab, p_ab, col_ba,
                        p_ba):
        g = GAPS[int(delta)]
        d1 = g[0]
        e1 = g[1]
        d2 = g[2]
        e2 = g[3]
        la = a.size
        lb = b.size
        mm = 1.0 - 2.0 * d1 - 2.0 * d2
        g1 = 1.0 - e1
        g2 = 1.0 - e2
        start = np.empty(la + 2, np.int64)
        start[0] = 0
        for i in range(la + 1):
            start[i + 1] = start[i] + hi[i] - lo[i] + 1
        scale = np.ones(la + 1, np.float64)
        fMp = np.zeros(lb + 2)
        fXp = np.zeros(lb + 2)
        fYp = np.zeros(lb + 2)
        fUp = np.zeros(lb + 2)
        fVp = np.zeros(lb + 2)
        fMc = np.zeros(lb + 2)
        fXc = np.zeros(lb + 2)
        fYc = np.zeros(lb + 2)
        fUc = np.zeros(lb + 2)
        fVc = np.zeros(lb + 2)
        fMp[0] = 1.0
        fM[0] = 1.0
        for j in range(1, hi[0] + 1):
            fYp[j] = d1 * fMp[j - 1] + e1 * fYp[j - 1]
            fVp[j] = d2 * fMp[j - 1] + e2 * fVp[j - 1]
            fM[j] = 0.0
        for i in range(1, la + 1):
            oi = odds[a[i - 1]]
            l = lo[i]
            h = hi[i]
            top = 0.0
            m_left = 0.0
            y_left = 0.0
            v_left = 0.0
            for j in range(l, h + 1):
                if j == 0:
                    m = 0.0
                    y = 0.0
                    v = 0.0
                else:
                    m = oi[b[j - 1]] * (mm * fMp[j - 1] + g1 * (fXp[j - 1] + fYp[j - 1])
                                        + g2 * (fUp[j - 1] + fVp[j - 1]))
                    y = d1 * m_left + e1 * y_left
                    v = d2 * m_left + e2 * v_left
                x = d1 * fMp[j] + e1 * fXp[j]
                u = d2 * fMp[j] + e2 * fUp[j]
                fMc[j] = m
                fXc[j] = x
                fYc[j] = y
                fUc[j] = u
                fVc[j] = v
                m_left = m
                y_left = y
                v_left = v
                top = max(top, m, x, y, u, v)
            if not (top > 0.0 and top < np.inf):
                return False
            r = 1.0 / top
            scale[i] = top
            o = start[i] - l
            for j in range(l, h + 1):
                fMc[j] *= r
                fXc[j] *= r
                fYc[j] *= r
                fUc[j] *= r
                fVc[j] *= r
                fM[o + j] = fMc[j]
            if l > 0:
                fMc[l - 1] = 0.0
                fXc[l - 1] = 0.0
                fYc[l - 1] = 0.0
                fUc[l - 1] = 0.0
                fVc[l - 1] = 0.0
            fMp, fMc = fMc, fMp
            fXp, fXc = fXc, fXp
            fYp, fYc = fYc, fYp
            fUp, fUc = fUc, fUp
            fVp, fVc = fVc, fVp
        z = fMp[lb] + fXp[lb] + fYp[lb] + fUp[lb] + fVp[lb]
        if not (z > 0.0 and z < np.inf):
            return False
        kk = col_ab.shape[1]
        ca = np.full((la, kk), -1, np.int32)
        pa = np.zeros((la, kk), np.float32)
        cb = np.full((lb, kk), -1, np.int32)
        pb = np.zeros((lb, kk), np.float32)
        bMn = np.zeros(lb + 2)
        bXn = np.zeros(lb + 2)
        bUn = np.zeros(lb + 2)
        bMc = np.zeros(lb + 2)
        bXc = np.zeros(lb + 2)
        bYc = np.zeros(lb + 2)
        bUc = np.zeros(lb + 2)
        bVc = np.zeros(lb + 2)
        rz = 1.0 / z
        for i in range(la, 0, -1):
            s = 1.0 / scale[i + 1] if i < la else 0.0
            l = lo[i]
            h = hi[i]
            bMc[h + 1] = 0.0
            bXc[h + 1] = 0.0
            bYc[h + 1] = 0.0
            bUc[h + 1] = 0.0
            bVc[h + 1] = 0.0
            for j in range(h, l - 1, -1):
                if i == la and j == lb:
                    bMc[j] = 1.0
                    bXc[j] = 1.0
                    bYc[j] = 1.0
                    bUc[j] = 1.0
                    bVc[j] = 1.0
                    continue
                mnext = 0.0
                if i < la and j < lb:
                    mnext = odds[a[i], b[j]] * bMn[j + 1] * s
                xnext = bXn[j] * s if i < la else 0.0
                unext = bUn[j] * s if i < la else 0.0
                ynext = bYc[j + 1] if j < lb else 0.0
                vnext = bVc[j + 1] if j < lb else 0.0
                bMc[j] = mm * mnext + d1 * (xnext + ynext) + d2 * (unext + vnext)
                bXc[j] = g1 * mnext + e1 * xnext
                bYc[j] = g1 * mnext + e1 * ynext
                bUc[j] = g2 * mnext + e2 * unext
                bVc[j] = g2 * mnext + e2 * vnext
            o = start[i] - l
            for j in range(max(l, 1), h + 1):
                p = fM[o + j] * bMc[j] * rz
                if p >= floor:
                    if not p < np.inf:
                        return False
                    _keep(ca[i - 1], pa[i - 1], j - 1, p)
                    _keep(cb[j - 1], pb[j - 1], i - 1, p)
            bMn, bMc = bMc, bMn
            bXn, bXc = bXc, bXn
            bUn, bUc = bUc, bUn
        col_ab[:, :] = ca
        p_ab[:, :] = pa
        col_ba[:, :] = cb
        p_ba[:, :] = pb
        return True

    _cpu._pair_slots = _pair_slots
    _cpu.posterior_slots = posterior_slots


def main():
    from sparse import ROOT, report, run_sets

    ap = argparse.ArgumentParser()
    ap.add_argument("variant", choices=VARIANTS)
    ap.add_argument("--data", default=str(ROOT / ".data" / "tune"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--triplets", action="store_true",
                    help="the trip-* sets of sim2/tune instead (post.py's runner)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--params", default=None, help="another train.py output")
    args = ap.parse_args()
    if args.params:
        global PARAMS
        PARAMS = Path(args.params)
    if args.variant == "package":
        from trimsa.progressive import pair_hmm

        pooled = json.loads(PARAMS.read_text())["pooled"]
        pair_hmm.DNA_ODDS = np.array(pooled["odds"])
        pair_hmm.DNA_BACKGROUND = np.array(pooled["q"])
        two = pooled["two"]
        pair_hmm.DNA_GAPS = np.array([two["delta"][0], two["eps"][0], two["delta"][1],
                                      two["eps"][1]])
        args.variant = "default"
    if args.variant.endswith("-ea"):
        ea_tree()
    patch(args.variant.removesuffix("-ea"))
    if args.triplets:
        sys.path.insert(0, str(HERE.parent / "2026-11-24-posterior-library"))
        import post

        post.VARIANTS[args.variant] = {"device": "cpu"}
        rows = post.triplet_sets([args.variant], data=args.data, threads=args.threads)
    else:
        rows = run_sets({args.variant: {"device": "cpu"}}, data=args.data, min_n=args.min_n,
                        max_n=args.max_n, threads=args.threads)
    report(rows, [args.variant], args.out)


if __name__ == "__main__":
    main()
