"""A guide tree without the n x n distance matrix, for 10^5 sequences (issue 30).

    python eval/experiments/2026-11-25-embedded-tree/embed.py INPUT TRUE_TREE [--cluster C]
        [--seeds S] [--align TRUE_ALN] [--threads T]

The dense k-mer distances of ``run`` take n^2 memory (80 GB at 10^5). Here, as in mBed
(Blackshields et al. 2010, Clustal Omega's guide trees): every sequence is embedded as its
k-mer distances (trimsa's) to S seed sequences (default (log2 n)^2, evenly spaced in length
order); the embedding is split by bisecting 2-means until the clusters hold at most C
sequences; each cluster gets UPGMA on its dense k-mer distances, and the splits join the
clusters' trees. Memory: n x S + C^2. The script prints the normalised Robinson-Foulds
distance to the true tree of this tree and of ``run``'s dense k-mer UPGMA tree, their
times, and with ``--align`` the alignment accuracy of ``run`` given each tree.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

import numpy as np  # noqa: E402

from trimsa._numba import jit  # noqa: E402


@jit
def seed_distances(bits, counts, seeds, rows, out):
    """``out[i, j]`` = 1 - shared / min distinct k-mers of sequences ``i`` and ``seeds[j]``."""
    from_words = bits.shape[1]
    for i in rows:
        for j in range(seeds.size):
            t = seeds[j]
            shared = 0
            for w in range(from_words):
                x = bits[i, w] & bits[t, w]
                # popcount
                x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
                x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
                x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
                shared += (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
            m = min(counts[i], counts[t])
            out[i, j] = 1.0 - shared / m if m > 0 else 1.0


def kmer_bits(seqs):
    from trimsa.tree import _cpu
    from trimsa.tree.distances import kmer_k

    k = kmer_k(seqs.alphabet.name)
    used, compact = np.unique(seqs.codes, return_inverse=True)
    base = max(int(used.size), 1)
    nbits = int(min(base ** k, 1 << 16))
    nbits = max(64, -(-nbits // 64) * 64)
    return _cpu.kmer_bitsets(compact.astype(np.int64).ravel(), seqs.offsets, k, base, nbits)


def bisect(X, idx, rng_seed=0, iters=12):
    """Split ``idx`` in two by 2-means on ``X`` (deterministic start: the point farthest
    from the centroid and the one farthest from it); a degenerate split falls back to the
    median of the first coordinate of largest spread."""
    P = X[idx]
    c = P.mean(axis=0)
    a = P[np.argmax(((P - c) ** 2).sum(1))]
    b = P[np.argmax(((P - a) ** 2).sum(1))]
    lab = np.zeros(idx.size, bool)
    for _ in range(iters):
        new = ((P - b) ** 2).sum(1) < ((P - a) ** 2).sum(1)
        if new.all() or not new.any():
            break
        lab = new
        a = P[~lab].mean(axis=0)
        b = P[lab].mean(axis=0)
    if lab.all() or not lab.any():
        d = int(np.argmax(P.std(axis=0)))
        lab = P[:, d] > np.median(P[:, d])
        if lab.all() or not lab.any():
            lab = np.arange(idx.size) >= idx.size // 2
    return idx[~lab], idx[lab]


def embedded_tree(seqs, cluster: int = 500, n_seeds: int | None = None, threads: int = 0,
                  mode: str = "kmeans", sample: int = 8):
    from trimsa import _numba
    from trimsa.tree import GuideTree
    from trimsa.tree import _cpu as tree_cpu

    n = len(seqs)
    nthreads = _numba.set_threads(threads)
    bits, counts = kmer_bits(seqs)
    lengths = np.diff(seqs.offsets)
    s = n_seeds or min(n, int(math.ceil(math.log2(max(n, 2)))) ** 2)
    order = np.argsort(lengths, kind="stable")
    seeds = np.unique(order[np.linspace(0, n - 1, s).round().astype(np.int64)])
    X = np.zeros((n, seeds.size), np.float64)
    _numba.in_threads(lambda rows: seed_distances(bits, counts, seeds, rows, X),
                      np.arange(n, dtype=np.int64), nthreads)
    joins, heights = [], []
    next_id = [n]

    def cluster_tree(idx):
        """UPGMA of the dense k-mer distances within ``idx``; returns (node, height)."""
        m = idx.size
        if m == 1:
            return int(idx[0]), 0.0
        D = np.zeros((m, m))
        sub_bits = np.ascontiguousarray(bits[idx])
        sub_counts = np.ascontiguousarray(counts[idx])
        out = np.zeros(m * (m - 1) // 2)
        tree_cpu.kmer_bitset_rows(sub_bits, sub_counts, np.arange(m, dtype=np.int64), out)
        iu, ju = np.triu_indices(m, 1)
        D[iu, ju] = out
        D[ju, iu] = out
        lj, lh = tree_cpu.upgma_joins(D)
        ids = list(int(x) for x in idx)
        for (x, y), h in zip(lj, lh):
            ids.append(next_id[0])
            joins.append((ids[x], ids[y]))
            heights.append(h)
            next_id[0] += 1
        return ids[-1], float(lh[-1])

    def build(idx):
        if idx.size <= cluster:
            return cluster_tree(idx)
        left, right = bisect(X, idx)
        a, ha = build(left)
        b, hb = build(right)
        # the split's height: half the mean seed-profile distance, at least the children's
        gap = 0.5 * float(np.abs(X[left].mean(0) - X[right].mean(0)).mean())
        h = max(ha, hb) + gap
        joins.append((min(a, b), max(a, b)))
        heights.append(h)
        next_id[0] += 1
        return next_id[0] - 1, h

    if mode == "bisect":
        build(np.arange(n, dtype=np.int64))
        return GuideTree.from_heights(seqs.names, np.array(joins), np.array(heights),
                                      method="embedded upgma"), seeds.size
    # flat k-means into about n / cluster groups, UPGMA within each, and UPGMA over the
    # groups on their mean k-mer distances between up to `sample` members of each
    k = max(1, int(math.ceil(n / cluster)))
    lab = kmeans(X, k)
    groups = [np.flatnonzero(lab == g) for g in range(k)]
    groups = [g for g in groups if g.size]
    roots = [cluster_tree(g) for g in groups]
    m = len(groups)
    if m == 1:
        return GuideTree.from_heights(seqs.names, np.array(joins), np.array(heights),
                                      method="embedded upgma"), seeds.size
    rng = np.random.default_rng(0)
    picks = [g if g.size <= sample else np.sort(rng.choice(g, sample, replace=False))
             for g in groups]
    G = np.zeros((m, m))
    for a in range(m):
        for b in range(a + 1, m):
            sub = np.concatenate([picks[a], picks[b]])
            out = np.zeros(sub.size * (sub.size - 1) // 2)
            tree_cpu.kmer_bitset_rows(np.ascontiguousarray(bits[sub]),
                                      np.ascontiguousarray(counts[sub]),
                                      np.arange(picks[a].size, dtype=np.int64), out)
            # rows of picks[a] against the columns of picks[b]
            na, nb = picks[a].size, picks[b].size
            vals = [out[sub.size * i - i * (i + 1) // 2 + (na + j - i - 1)]
                    for i in range(na) for j in range(nb)]
            G[a, b] = G[b, a] = float(np.mean(vals))
    gj, gh = tree_cpu.upgma_joins(G)
    ids = [r[0] for r in roots]
    hs = [r[1] for r in roots]
    for (x, y), h in zip(gj, gh):
        hh = max(h, hs[x], hs[y])
        joins.append((ids[x], ids[y]))
        heights.append(hh)
        ids.append(next_id[0])
        hs.append(hh)
        next_id[0] += 1
    return GuideTree.from_heights(seqs.names, np.array(joins), np.array(heights),
                                  method="embedded upgma"), seeds.size


def kmeans(X, k, iters=20):
    """Lloyd's k-means on the rows of ``X`` from a deterministic k-means++ start."""
    rng = np.random.default_rng(0)
    n = X.shape[0]
    centers = [X[int(rng.integers(n))]]
    d2 = ((X - centers[0]) ** 2).sum(1)
    for _ in range(1, k):
        c = X[int(rng.choice(n, p=d2 / d2.sum()))] if d2.sum() > 0 else X[int(rng.integers(n))]
        centers.append(c)
        d2 = np.minimum(d2, ((X - c) ** 2).sum(1))
    C = np.array(centers)
    lab = np.zeros(n, np.int64)
    for _ in range(iters):
        dist = (X ** 2).sum(1)[:, None] - 2 * X @ C.T + (C ** 2).sum(1)[None, :]
        new = np.argmin(dist, axis=1)
        if (new == lab).all() and _ > 0:
            break
        lab = new
        for g in range(k):
            sel = lab == g
            if sel.any():
                C[g] = X[sel].mean(0)
    return lab


def main():
    import dendropy
    from tree_accuracy import nrf

    from trimsa.io import read_sequences
    from trimsa.tree import build_guide_tree

    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("true_tree")
    ap.add_argument("--cluster", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--align", default=None, help="true alignment: also align with each tree")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--mode", choices=("kmeans", "bisect"), default="kmeans")
    args = ap.parse_args()
    seqs = read_sequences(args.input)
    true = dendropy.Tree.get(path=args.true_tree, schema="newick", preserve_underscores=True)
    t = time.perf_counter()
    dense = build_guide_tree(seqs, distances="kmer", method="upgma", threads=args.threads)
    t_dense = time.perf_counter() - t
    t = time.perf_counter()
    emb, s = embedded_tree(seqs, args.cluster, args.seeds, args.threads, args.mode)
    t_emb = time.perf_counter() - t
    print(f"{Path(args.input).parent.name} n={len(seqs)}: dense k-mer UPGMA nRF "
          f"{nrf(true, dense.newick()):.4f} ({t_dense:.1f} s); embedded {args.mode} (seeds {s}, clusters "
          f"<= {args.cluster}) nRF {nrf(true, emb.newick()):.4f} ({t_emb:.1f} s)", flush=True)
    if args.align:
        from trimsa.evaluate import compare
        from trimsa.progressive import Aligner

        for label, tree in (("dense", dense), ("embedded", emb)):
            with tempfile.TemporaryDirectory() as d:
                Path(f"{d}/t.nwk").write_text(tree.newick() + "\n")
                t = time.perf_counter()
                res = Aligner(guide_tree=f"{d}/t.nwk", threads=args.threads).align(seqs)
                sec = time.perf_counter() - t
                res.write(f"{d}/a.fa")
                c = compare(args.align, f"{d}/a.fa")
            print(f"  run with the {label} tree: SPFN {c.spfn:.4f} SPFP {c.spfp:.4f} "
                  f"TC {c.tc:.4f} ({sec:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
