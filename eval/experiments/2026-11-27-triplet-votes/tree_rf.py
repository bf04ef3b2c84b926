"""Guide trees from the columns of banded exact 3-way alignments (issue 27, item 1b), tune only.

    python eval/experiments/2026-11-27-triplet-votes/tree_rf.py [--data DIR] [--max-n 128]
        [--thirds 2] [--width 16] [--device auto] [--out rf.tsv]

For every msa set of ``sim2/tune`` whose library aligns all pairs, UPGMA trees from:

* ``pairwise``: ``run``'s default, Jukes-Cantor distances of the library's pairwise
  alignments (the share of differing residues among the aligned pairs);
* ``triplet``: the same correction applied to each pair ``(s, t)``'s residue pairs in
  the exact affine 3-way alignments of ``(s, t, u)`` for its ``--thirds`` nearest third
  sequences (band of ``--width`` around the pairwise paths, as ``Aligner(triplet_votes=...)``),
  differing and aligned pairs summed over the thirds;
* ``mean``: the mean of the two matrices;

and their normalised Robinson-Foulds distance to the true tree (``tree.nwk``). Refuses the
validate split (it reads ``<data>/sim2/tune`` only).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from tree_accuracy import nrf  # noqa: E402


def triplet_distances(seqs, aligner, D, thirds, width, device, threads):
    """Jukes-Cantor distances of the pairs' columns in their banded 3-way alignments."""
    from trimsa.progressive import _cpu, engine
    from trimsa.progressive.api import corrected_distance
    from trimsa.progressive.consistency import all_pairs
    from trimsa.progressive.triplets import pick_thirds
    from trimsa.triplet.api import align_banded

    scoring = aligner.scoring(seqs)
    used, codes = aligner._compact(seqs)
    sc = engine.make_profile_scoring(scoring.table, used, scoring.gap_open, scoring.gap_extend,
                                     aligner.terminal)
    n = len(seqs)
    pairs = all_pairs(n)
    third = pick_thirds(D, pairs, thirds)
    trip = np.stack([np.repeat(pairs[:, 0], thirds), np.repeat(pairs[:, 1], thirds),
                     third.ravel()], axis=1)
    anchors = np.unique(np.concatenate([trip[:, [0, 1]], trip[:, [0, 2]]]), axis=0)
    lengths = seqs.lengths
    off = np.zeros(len(anchors) + 1, np.int64)
    off[1:] = np.cumsum(lengths[anchors[:, 0]] + 1)
    lo = np.empty(int(off[-1]), np.int64)
    hi = np.empty(int(off[-1]), np.int64)
    flat = np.concatenate(codes).astype(np.int64)
    offsets = np.zeros(n + 1, np.int64)
    offsets[1:] = np.cumsum(lengths)
    _cpu.anchor_ranges(flat, offsets, anchors, np.arange(len(anchors)),
                       np.ascontiguousarray(sc.table[:-1, :-1], np.float32),
                       np.float32(sc.gap_open), np.float32(sc.gap_extend), np.float32(sc.term),
                       int(width), off, lo, hi)
    where = {(int(s), int(x)): q for q, (s, x) in enumerate(anchors)}
    bands = []
    for s, t, u in trip.tolist():
        a, b = where[(s, t)], where[(s, u)]
        bands.append(np.stack([lo[off[a]:off[a + 1]], hi[off[a]:off[a + 1]],
                               lo[off[b]:off[b + 1]], hi[off[b]:off[b + 1]]], axis=1))
    _, moves, move_off = align_banded(seqs, trip, bands, scoring, threads, device)
    same = np.zeros((n, n))
    aligned = np.zeros((n, n))
    for q, (s, t, u) in enumerate(trip.tolist()):
        mv = moves[move_off[q]:move_off[q + 1]]
        both = (mv & 1).astype(bool) & ((mv >> 1) & 1).astype(bool)
        i = np.cumsum(mv & 1) - 1
        j = np.cumsum((mv >> 1) & 1) - 1
        a = seqs.code(s)[i[both]]
        b = seqs.code(t)[j[both]]
        aligned[s, t] += both.sum()
        same[s, t] += (a == b).sum()
    aligned = aligned + aligned.T
    same = same + same.T
    p = 1.0 - same / np.maximum(aligned, 1)
    out = corrected_distance(p, 20 if seqs.alphabet.name == "protein" else 4)
    np.fill_diagonal(out, 0.0)
    return out, len(trip)


def main():
    import dendropy

    from trimsa import _numba
    from trimsa.io import read_sequences
    from trimsa.progressive import Aligner, api
    from trimsa.progressive.consistency import build_library
    from trimsa.progressive import engine
    from trimsa.triplet.backends import resolve_device

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--max-n", type=int, default=128)
    ap.add_argument("--thirds", type=int, default=2)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    threads = _numba.set_threads(args.threads)
    device = resolve_device(args.device, announce=False)
    rows = []
    for folder in sorted((Path(args.data) / "sim2" / "tune").glob("msa-*")):
        seqs = read_sequences(str(folder / "input.fa"))
        if len(seqs) > args.max_n:
            continue
        aligner = Aligner(threads=threads)
        if aligner.library_design(seqs) != "all":
            continue
        scoring = aligner.scoring(seqs)
        used, codes = aligner._compact(seqs)
        sc = engine.make_profile_scoring(scoring.table, used, scoring.gap_open,
                                         scoring.gap_extend, aligner.terminal)
        lib = build_library(codes, sc.table[:-1, :-1], sc.gap_open, sc.gap_extend, sc.term,
                            posterior=True, threads=threads)
        Dp = api._library_distances(seqs, lib)
        t0 = time.perf_counter()
        Dt, T = triplet_distances(seqs, aligner, Dp, args.thirds, args.width, device, threads)
        sec = time.perf_counter() - t0
        true = dendropy.Tree.get(path=str(folder / "tree.nwk"), schema="newick",
                                 preserve_underscores=True)
        got = {}
        for name, D in (("pairwise", Dp), ("triplet", Dt), ("mean", (Dp + Dt) / 2)):
            got[name] = nrf(true, api.METHODS["upgma"](D, seqs.names).newick())
        rows.append((folder.name, len(seqs), got["pairwise"], got["triplet"], got["mean"], T,
                     sec))
        print(f"{folder.name:24s} N={len(seqs):4d} nRF pairwise {got['pairwise']:.3f} "
              f"triplet {got['triplet']:.3f} mean {got['mean']:.3f} ({T} triplets, "
              f"{sec:.1f} s on the {device})", flush=True)
    m = np.mean([r[2:5] for r in rows], axis=0)
    print(f"mean nRF ({len(rows)} sets): pairwise {m[0]:.3f} triplet {m[1]:.3f} mean {m[2]:.3f}")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("set\tN\tpairwise\ttriplet\tmean\ttriplets\tseconds\n")
            for r in rows:
                fh.write("\t".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
