"""RNA secondary structure in the consistency library (tune only).

    python eval/experiments/2026-11-29-structure-library/structure.py VARIANT... [--out F]

Each VARIANT is ``default`` or ``KIND:ALPHA`` with KIND one of ``mfe`` (ViennaRNA's
minimum free energy structure of each sequence, alone) or ``bppT`` (McCaskill base-pair
probabilities of at least T, e.g. ``bpp0.1``). After the library of all pairs is built,
each pair's posterior matrix P (rebuilt from both directions' slots) becomes
``P + ALPHA * Bs P Bt^T``: residues i of s and j of t gain the support that their
partners in the structures of s and t (the 0/1 or probability matrices Bs, Bt) are
aligned (R-Coffee's structural extension of a library, with soft partners). Each
residue then keeps its POSTERIOR_SLOTS most probable partners again. Runs the real/tune
families and the sim2/tune msa sets with N <= --max-n through ``run``'s defaults.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import RNA

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))
sys.path.insert(0, str(HERE.parents[1]))

from sparse import report  # noqa: E402

from trimsa.progressive import consistency  # noqa: E402

CURRENT = {"seqs": None, "kind": None, "alpha": 0.0, "ali": None}


def consensus_pairs(rows):
    """Per sequence ``(L, L)`` 0/1 partners from RNAalifold's consensus structure of the
    aligned ``rows`` (a pair of columns where both residues are present)."""
    db, _ = RNA.alifold([r.upper().replace("T", "U") for r in rows])
    stack, cols = [], []
    for c, ch in enumerate(db):
        if ch == "(":
            stack.append(c)
        elif ch == ")":
            cols.append((stack.pop(), c))
    out = []
    for r in rows:
        res = (np.cumsum([ch != "-" for ch in r]) - 1)
        L = sum(ch != "-" for ch in r)
        B = np.zeros((L, L), np.float32)
        for a, b in cols:
            if r[a] != "-" and r[b] != "-":
                B[res[a], res[b]] = B[res[b], res[a]] = 1.0
        out.append(B)
    return out, db
_CACHE: dict = {}


def pair_matrix(seq: str, kind: str) -> np.ndarray:
    """``(L, L)`` base-pair weights of one sequence under ``kind``."""
    key = (seq, kind)
    if key in _CACHE:
        return _CACHE[key]
    rna = seq.upper().replace("T", "U")
    L = len(rna)
    B = np.zeros((L, L), np.float32)
    if kind == "mfe":
        db, _ = RNA.fold(rna)
        stack = []
        for i, ch in enumerate(db):
            if ch == "(":
                stack.append(i)
            elif ch == ")":
                j = stack.pop()
                B[i, j] = B[j, i] = 1.0
    elif kind.startswith("bpp"):
        thr = float(kind[3:])
        fc = RNA.fold_compound(rna)
        fc.pf()
        P = np.array(fc.bpp(), np.float32)[1:, 1:]
        P = P + P.T
        P[P < thr] = 0.0
        B = P
    elif kind == "ali":
        B = CURRENT["ali"][CURRENT["seqs"].index(seq)]
    else:
        raise ValueError(kind)
    _CACHE[key] = B
    return B


def extend(library, seqs, kind, alpha):
    slots = library.maps.shape[1]
    mats = [pair_matrix(s, kind) for s in seqs]
    off = library.offsets
    for s in range(library.n):
        lo, hi = library.nbr_ptr[s], library.nbr_ptr[s + 1]
        for k in range(lo, hi):
            t = int(library.nbr[k])
            if t <= s:
                continue
            kt = library._slot(t, s)
            Ls, Lt = off[s + 1] - off[s], off[t + 1] - off[t]
            o1, o2 = library.nbr_map[k], library.nbr_map[kt]
            A, PA = library.maps[o1:o1 + Ls], library.probs[o1:o1 + Ls]
            Bm, PB = library.maps[o2:o2 + Lt], library.probs[o2:o2 + Lt]
            P = np.zeros((Ls, Lt), np.float32)
            r, c = np.nonzero(A >= 0)
            P[r, A[r, c]] = np.maximum(P[r, A[r, c]], PA[r, c])
            r, c = np.nonzero(Bm >= 0)
            P[Bm[r, c], r] = np.maximum(P[Bm[r, c], r], PB[r, c])
            Q = P + alpha * (mats[s] @ P @ mats[t].T)
            for M, PM, X in ((A, PA, Q), (Bm, PB, Q.T)):
                top = np.argsort(-X, axis=1, kind="stable")[:, :slots]
                val = np.take_along_axis(X, top, axis=1)
                keep = val >= consistency.POSTERIOR_FLOOR
                M[:] = np.where(keep, top, -1)
                PM[:] = np.where(keep, val, 0.0)
    return library


_build = consistency.build_library


def patched(codes, *args, **kw):
    library = _build(codes, *args, **kw)
    seqs = CURRENT["seqs"]
    if CURRENT["kind"] is None:
        return library
    if len(seqs) != len(codes) or any(len(a) != b.size for a, b in zip(seqs, codes)):
        raise AssertionError("the library's sequences are not the set's")
    return extend(library, seqs, CURRENT["kind"], CURRENT["alpha"])


def run_tune_sets(variants, setup, *, data, max_n=256, only="", threads=2):
    """Every real/tune family and sim2/tune msa set of up to ``max_n`` sequences (``only``:
    the group whose name starts so) aligned by ``run``'s defaults under each variant,
    ``setup(variant, seqs)`` called first; rows ``(group, set, N, variant, spfn, spfp,
    tc, seconds, 0)`` (the runner of ``../2026-11-24-sparse-library``'s ``report``)."""
    import tempfile
    import time

    from bench_run import data_sets
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    rows = []
    for folder, _inp, ref, seqs in data_sets("tune", max_n, Path(data)):
        if folder.name.startswith("trip-"):
            continue
        group = "real" if folder.name.startswith("rfam") else "sim2 N<=256"
        if only and not group.startswith(only):
            continue
        for v in variants:
            setup(v, seqs)
            t = time.perf_counter()
            res = Aligner(threads=threads).align(seqs)
            sec = time.perf_counter() - t
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(ref, f"{d}/a.fa")
            rows.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, sec, 0))
            print(f"{folder.name:40s} {v:14s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"{sec:6.1f} s", flush=True)
    return rows


def main():
    from trimsa.progressive import Aligner

    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--only", default="", help="real or sim2: one group only")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    consistency.build_library = patched

    def setup(v, seqs):
        strings = list(seqs.sequences)
        if v == "default":
            CURRENT.update(seqs=strings, kind=None, alpha=0.0)
        elif v.startswith("ali:"):
            # a first alignment with the defaults, its consensus structure, then again
            CURRENT.update(seqs=strings, kind=None, alpha=0.0)
            first = Aligner(threads=args.threads).align(seqs)
            rows_ = {rec.id: str(rec.seq) for rec in first.alignment}
            mats, db = consensus_pairs([rows_[nm] for nm in seqs.names])
            for key in [k for k in _CACHE if k[1] == "ali"]:
                del _CACHE[key]
            CURRENT.update(seqs=strings, kind="ali", alpha=float(v[4:]), ali=mats)
            print(f"  consensus pairs {db.count('(')}", flush=True)
        else:
            kind, alpha = v.split(":")
            CURRENT.update(seqs=strings, kind=kind, alpha=float(alpha))

    rows = run_tune_sets(args.variants, setup, data=args.data, max_n=args.max_n,
                         only=args.only, threads=args.threads)
    report(rows, args.variants, args.out)


if __name__ == "__main__":
    main()
