"""Refinement by random bipartitions after the merges, kept when the library's expected
accuracy rises (tune only).

    python eval/experiments/2026-11-27-random-refine/refine.py --variants default,better32
        [--groups real,sim2] [--threads 2] [--out run.tsv]

MUSCLE5 (5.1.0, ``refineflat.cpp``) refines its progressive alignment 100 times: the
sequences are split in two at random, the two projected sub-alignments are realigned to
each other, and the result is kept whatever it scores. The 2026-11-24 experiment
(``../2026-11-24-refinement``) split along the guide tree's edges, kept every result and
measured worse. Here ``Aligner._walk`` is patched: after the merges, ``R`` rounds split
the sequences at random (each side with probability 1/2, seed 0), realign the two sides'
profiles with the merges' scores and the consistency library (``engine.align_profiles``
with ``Library.scores``), and

- ``betterR``: keep the realignment when the expected number of correctly aligned
  residue pairs across the split rises (the sum over the library's pairs (s, t) with s
  and t on different sides of the posterior of every residue pair the alignment puts in
  one column; only those pairs change);
- ``alwaysR``: keep every realignment (MUSCLE5's rule);
- ``mea-betterR``, ``mea-alwaysR``: the same, but the realignment scores the library's
  support alone, gaps free (no substitution or gap scores: MUSCLE5's and ProbCons'
  realignment).

Runs every family of ``real/tune`` and every msa set of ``sim2/tune`` with N <= 256 (the
runner of ``../2026-11-24-sparse-library``).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import report, run_sets  # noqa: E402

from trimsa.progressive import api, engine  # noqa: E402

STATS = {"rounds": 0, "kept": 0, "seconds": 0.0}


@njit(cache=True)
def cross_expected(pos, offsets, nbr_ptr, nbr, nbr_map, maps, probs, in_a):
    """Sum over the library's pairs (s, t), s < t, on different sides, of the posterior of
    each residue pair of s and t in one column under ``pos``."""
    n = offsets.size - 1
    total = 0.0
    for s in range(n):
        for k in range(nbr_ptr[s], nbr_ptr[s + 1]):
            t = nbr[k]
            if t <= s or in_a[s] == in_a[t]:
                continue
            o = nbr_map[k]
            pt = pos[offsets[t]:offsets[t + 1]]
            for x in range(offsets[s + 1] - offsets[s]):
                c = pos[offsets[s] + x]
                y = np.searchsorted(pt, c)
                if y < pt.size and pt[y] == c:
                    for q in range(maps.shape[1]):
                        if maps[o + x, q] == y:
                            total += probs[o + x, q]
    return total


def profile(pos, sel, members, weights, seq, codes, n, k):
    cols, local = np.unique(pos[sel], return_inverse=True)
    w = weights[members]
    share = np.zeros(n)
    share[members] = w / w.sum()
    F = np.zeros((cols.size, k + 1), np.float32)
    np.add.at(F, (local, codes[sel]), share[seq[sel]].astype(np.float32))
    F[:, k] = np.maximum(1.0 - F[:, :k].sum(axis=1), 0.0)
    return F, local


def refine(rows, codes, sc, btree, library, rounds, keep_always, threads, seed=0, mea=False):
    n = len(rows)
    lengths = np.array([c.size for c in codes])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    pos = np.concatenate([np.flatnonzero(np.frombuffer(r.encode(), np.uint8) != ord("-"))
                          for r in rows]).astype(np.int64)
    seq = np.repeat(np.arange(n), lengths)
    flat = np.concatenate(codes).astype(np.int64)
    weights = engine.tree_weights(btree)
    k = sc.table.shape[0] - 1
    rng = np.random.default_rng(seed)
    if mea:
        # the library's support alone, gaps free (MUSCLE5's and ProbCons' realignment)
        sc = engine.ProfileScoring(np.zeros_like(sc.table), 0.0, 0.0, sc.term)
    t = time.perf_counter()
    for _ in range(rounds):
        in_a = rng.integers(0, 2, n).astype(np.bool_)
        if in_a.all() or not in_a.any():
            continue
        mem_a, mem_b = np.flatnonzero(in_a), np.flatnonzero(~in_a)
        sel_a = in_a[seq]
        sel_b = ~sel_a
        FA, la = profile(pos, sel_a, mem_a, weights, seq, flat, n, k)
        FB, lb = profile(pos, sel_b, mem_b, weights, seq, flat, n, k)
        library.pos[sel_a] = la
        library.pos[sel_b] = lb
        extra = library.scores(FA.shape[0], FB.shape[0], mem_a, mem_b, weights, threads)
        if not mea:
            extra *= np.float32(library.weight)
        _path, _score, ma, mb = engine.align_profiles(FA, FB, sc, extra)
        new = np.empty_like(pos)
        new[sel_a] = ma[la]
        new[sel_b] = mb[lb]
        STATS["rounds"] += 1
        if not keep_always:
            args = (offsets, library.nbr_ptr, library.nbr, library.nbr_map, library.maps,
                    library.probs, in_a)
            if cross_expected(new, *args) <= cross_expected(pos, *args):
                continue
        STATS["kept"] += 1
        # drop columns left empty
        _u, pos = np.unique(new, return_inverse=True)
        pos = pos.astype(np.int64)
    STATS["seconds"] += time.perf_counter() - t
    width = int(pos.max()) + 1 if pos.size else 0
    return engine.assemble([pos[offsets[s]:offsets[s + 1]] for s in range(n)], width,
                           [r.replace("-", "") for r in rows])


def patch(rounds: int, keep_always: bool, mea: bool = False):
    walk = api.Aligner._walk

    def _walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages):
        rows = walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages)
        if library is None or len(rows) < 3 or rounds == 0:
            return rows
        return refine(rows, codes, sc, btree, library, rounds, keep_always, max(1, threads),
                      mea=mea)

    api.Aligner._walk = _walk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variant", help="default, betterR or alwaysR")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    m = re.fullmatch(r"(mea-)?(better|always)(\d+)", args.variant)
    if m:
        patch(int(m.group(3)), m.group(2) == "always", bool(m.group(1)))
    elif args.variant != "default":
        raise SystemExit(f"unknown variant {args.variant}")
    rows = run_sets({args.variant: {}}, data=args.data, max_n=args.max_n, threads=args.threads)
    report(rows, [args.variant], args.out)
    print(f"refinement: {STATS}")


if __name__ == "__main__":
    main()
