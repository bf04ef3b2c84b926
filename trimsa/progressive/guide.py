"""Guide trees for the progressive aligner.

:func:`default_guide_tree` is the one place that builds a guide tree when the
user gives none. Until ``trimsa.tree`` (triplet-based trees) is merged it uses
k-mer distances and UPGMA (scipy) or neighbour joining (dendropy).
"""

from __future__ import annotations

import numpy as np

from .engine import GuideTree


def kmer_k(alphabet_name: str) -> int:
    return 6 if alphabet_name == "dna" else 3


def default_guide_tree(seqs, *, method: str = "upgma", threads: int = 0) -> GuideTree:
    """A guide tree from k-mer distances (UPGMA via scipy, NJ via dendropy).

    The distance of two sequences is ``1 - shared / min`` over their sets of
    distinct k-mers (bit sets over the residue codes present; hashed to
    65,536 slots when there are more k-mers than that).
    """
    from . import _cpu
    from .engine import condensed

    n = len(seqs)
    k = kmer_k(seqs.alphabet.name)
    used, compact = np.unique(seqs.codes, return_inverse=True)
    base = max(int(used.size), 1)
    nbits = int(min(base ** k, 1 << 16))
    nbits = max(64, -(-nbits // 64) * 64)
    bits, counts = _cpu.kmer_bitsets(compact.astype(np.int64).ravel(), seqs.offsets, k, base,
                                     nbits)
    d = condensed(_cpu.kmer_bitset_rows, n, max(threads, 1), bits, counts)
    return tree_from_distances(d, n, method, seqs.names)


def tree_from_distances(d, n: int, method: str, names) -> GuideTree:
    """UPGMA (scipy ``average`` linkage) or NJ (dendropy) on condensed distances."""
    if n == 2:
        return GuideTree(2, [(0, 1)], np.array([d[0] / 2, d[0] / 2, 0.0]), 2)
    if method == "upgma":
        from scipy.cluster.hierarchy import linkage

        Z = linkage(np.asarray(d, float), method="average")
        return GuideTree.from_linkage(Z, n)
    if method == "nj":
        import dendropy
        from scipy.spatial.distance import squareform

        full = squareform(np.asarray(d, float))
        labels = [f"t{i}" for i in range(n)]
        lines = [",".join([""] + labels)]
        for i in range(n):
            lines.append(",".join([labels[i]] + [f"{x:.8g}" for x in full[i]]))
        import io

        pdm = dendropy.PhylogeneticDistanceMatrix.from_csv(
            io.StringIO("\n".join(lines) + "\n"), delimiter=",")
        tree = pdm.nj_tree()
        for leaf in tree.leaf_node_iter():
            leaf.taxon.label = names[int(leaf.taxon.label[1:])]
        return GuideTree.from_dendropy(tree, names)
    raise ValueError(method)
