"""A guide tree in bounded memory from anchor sequences (issue 30; tune and simulated sets).

    python eval/experiments/2026-11-25-anchor-tree/anchor.py INPUT TRUE_TREE --anchors M [M ...]

Every sequence joins the anchor (one of M sequences drawn at random, seed 0) nearest to it
by trimsa's k-mer distance; each anchor's group gets UPGMA on its dense k-mer distances, and
UPGMA on the anchors' dense k-mer distances joins the groups, each group's tree standing
where its anchor was. Memory: M^2 + the largest group's square (no n x n matrix); work:
n x M distances for the assignment. Prints the normalised RF distance to the true tree next
to that of run's dense k-mer UPGMA tree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(ROOT / "eval" / "experiments" / "2026-11-25-embedded-tree"))

import numpy as np  # noqa: E402

from trimsa._numba import jit  # noqa: E402


@jit
def nearest_anchor(bits, counts, anchors, rows, best):
    """``best[i]`` = the index (into ``anchors``) of the anchor nearest to sequence ``i``
    (the first at the least distance)."""
    words = bits.shape[1]
    for i in rows:
        bd = np.inf
        bj = 0
        for j in range(anchors.size):
            t = anchors[j]
            shared = 0
            for w in range(words):
                x = bits[i, w] & bits[t, w]
                x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
                x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
                x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
                shared += (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
            m = min(counts[i], counts[t])
            d = 1.0 - shared / m if m > 0 else 1.0
            if d < bd:
                bd = d
                bj = j
        best[i] = bj


def dense_upgma(bits, counts, idx):
    from trimsa.tree import _cpu as tree_cpu

    m = idx.size
    out = np.zeros(m * (m - 1) // 2)
    tree_cpu.kmer_bitset_rows(np.ascontiguousarray(bits[idx]), np.ascontiguousarray(counts[idx]),
                              np.arange(m, dtype=np.int64), out)
    D = np.zeros((m, m))
    iu, ju = np.triu_indices(m, 1)
    D[iu, ju] = out
    D[ju, iu] = out
    return tree_cpu.upgma_joins(D)


def anchor_tree(seqs, n_anchors: int, threads: int = 0, seed: int = 0):
    from embed import kmer_bits

    from trimsa import _numba
    from trimsa.tree import GuideTree

    n = len(seqs)
    nthreads = _numba.set_threads(threads)
    bits, counts = kmer_bits(seqs)
    rng = np.random.default_rng(seed)
    anchors = np.sort(rng.choice(n, min(n, n_anchors), replace=False)).astype(np.int64)
    best = np.zeros(n, np.int64)
    _numba.in_threads(lambda rows: nearest_anchor(bits, counts, anchors, rows, best),
                      np.arange(n, dtype=np.int64), nthreads)
    best[anchors] = np.arange(anchors.size)
    joins, heights = [], []
    next_id = [n]
    roots, hs = [], []
    for g in range(anchors.size):
        idx = np.flatnonzero(best == g)
        if idx.size == 1:
            roots.append(int(idx[0]))
            hs.append(0.0)
            continue
        lj, lh = dense_upgma(bits, counts, idx)
        ids = [int(x) for x in idx]
        for (x, y), h in zip(lj, lh):
            joins.append((ids[x], ids[y]))
            heights.append(h)
            ids.append(next_id[0])
            next_id[0] += 1
        roots.append(ids[-1])
        hs.append(float(lh[-1]))
    if anchors.size > 1:
        gj, gh = dense_upgma(bits, counts, anchors)
        for (x, y), h in zip(gj, gh):
            hh = max(h, hs[x], hs[y])
            joins.append((roots[x], roots[y]))
            heights.append(hh)
            roots.append(next_id[0])
            hs.append(hh)
            next_id[0] += 1
    # node n + k is the k-th join, made after its children (what from_heights reads)
    return GuideTree.from_heights(seqs.names, np.array(joins), np.array(heights),
                                  method="anchor upgma")


def main():
    import dendropy
    from tree_accuracy import nrf

    from trimsa.io import read_sequences
    from trimsa.tree import build_guide_tree

    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("true_tree")
    ap.add_argument("--anchors", type=int, nargs="+", default=[1000])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--no-dense", action="store_true")
    args = ap.parse_args()
    seqs = read_sequences(args.input)
    true = dendropy.Tree.get(path=args.true_tree, schema="newick", preserve_underscores=True)
    name = Path(args.input).parent.name
    if not args.no_dense:
        t = time.perf_counter()
        dense = build_guide_tree(seqs, distances="kmer", method="upgma", threads=args.threads)
        print(f"{name} n={len(seqs)}: dense k-mer UPGMA nRF {nrf(true, dense.newick()):.4f} "
              f"({time.perf_counter() - t:.1f} s)", flush=True)
    for m in args.anchors:
        t = time.perf_counter()
        tree = anchor_tree(seqs, m, args.threads)
        print(f"{name} n={len(seqs)}: anchors {m}: nRF {nrf(true, tree.newick()):.4f} "
              f"({time.perf_counter() - t:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
