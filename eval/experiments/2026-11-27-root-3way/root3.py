"""The last merge of `run` replaced by an exact 3-way alignment of three clusters by the
library's support (tune only).

    python eval/experiments/2026-11-27-root-3way/root3.py --variants default,root3 [--threads 2] [--out run]

``root3`` patches ``Aligner._walk``: after the merges, the guide tree's root has children
A and B; the one with more sequences, if it is not a leaf, is split into its children
B1 and B2. Each of the three clusters keeps its columns from the finished alignment
(all-gap columns dropped), and the three are aligned again by
``consistency.support_alignment`` over the library's support between each two clusters
(``Library.scores``, as a merge computes it), gaps free. Within a cluster nothing moves.
Runs every family of ``real/tune`` and every msa set of ``sim2/tune`` with N <= 256
(the runner of ``../2026-11-24-sparse-library``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))
sys.path.insert(0, str(HERE.parents[2]))

from trimsa.progressive import api, engine  # noqa: E402
from trimsa.progressive.consistency import support_alignment  # noqa: E402


def leaves(tree, v):
    if v < tree.n:
        return [v]
    a, b = tree.children[v - tree.n]
    return leaves(tree, a) + leaves(tree, b)


def patch():
    original = api.Aligner._walk

    def walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages):
        rows = original(self, seqs, codes, sc, btree, threads, progress, library, design, stages)
        n = len(seqs)
        if library is None or n < 4:
            return rows
        root = n + len(btree.children) - 1
        a, b = btree.children[root - n]
        if len(leaves(btree, a)) > len(leaves(btree, b)):
            a, b = b, a
        if b < n:
            return rows
        b1, b2 = btree.children[b - n]
        clusters = [np.array(sorted(leaves(btree, v)), np.int64) for v in (a, b1, b2)]
        # each cluster's own columns of the finished alignment
        width = len(rows[0])
        occ = np.array([[ch != "-" for ch in r] for r in rows], bool)
        cols = [np.flatnonzero(occ[m].any(axis=0)) for m in clusters]
        for m, cc in zip(clusters, cols):
            local = np.full(width, -1, np.int64)
            local[cc] = np.arange(cc.size)
            for s in m:
                library.pos[library.offsets[s]:library.offsets[s + 1]] = local[np.flatnonzero(occ[s])]
        w = engine.tree_weights(btree)
        C = {}
        for x, y in ((0, 1), (0, 2), (1, 2)):
            C[x, y] = library.scores(cols[x].size, cols[y].size, clusters[x], clusters[y], w,
                                     threads)
        moves, _ = support_alignment(C[0, 1], C[0, 2], C[1, 2])
        out = [[] for _ in range(n)]
        nxt = [0, 0, 0]
        for mv in moves.tolist():
            for d in range(3):
                for s in clusters[d]:
                    out[s].append(rows[s][cols[d][nxt[d]]] if mv >> d & 1 else "-")
                nxt[d] += mv >> d & 1
        return ["".join(r) for r in out]

    api.Aligner._walk = walk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="default,root3")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from sparse import report, run_sets

    for name in args.variants.split(","):
        if name == "root3":
            patch()   # after the default's runs: the patch stays for the rest
        rows = run_sets({name: {}}, data=args.data, max_n=args.max_n, threads=args.threads)
        report(rows, [name], args.out and f"{args.out}.{name}.tsv")


if __name__ == "__main__":
    main()
