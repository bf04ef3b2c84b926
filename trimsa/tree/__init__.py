"""Guide trees: distances from a source, NJ or UPGMA, one :class:`GuideTree` type.

* :mod:`trimsa.tree.api`: :func:`build_guide_tree`, the one entry;
* :mod:`trimsa.tree.distances`: the sources of distances (``kmer``,
  ``pair-score``, ``triplet``) behind one interface, :data:`SOURCES`;
* :mod:`trimsa.tree.cluster`: neighbour joining and UPGMA (numba kernels in
  :mod:`trimsa.tree._cpu`);
* :mod:`trimsa.tree.bounded`: UPGMA on k-mer distances without the n x n
  matrix (the same tree, for more sequences than the matrix budget holds);
* :mod:`trimsa.tree.guide`: :class:`GuideTree`, Newick and dendropy.

docs/tree.md has the derivations and measurements.
"""

from .api import build_guide_tree
from .cluster import METHODS, neighbor_joining, upgma
from .distances import (
    SOURCES,
    Distances,
    kmer_distances,
    ls_all_triplets,
    ls_triplets,
    pair_score_distances,
    pairwise_from_triplets,
    random_rate,
    sample_triplets,
    score_distances,
    self_scores,
    triplet_distances,
)
from .guide import GuideTree

__all__ = [
    "METHODS",
    "SOURCES",
    "Distances",
    "GuideTree",
    "build_guide_tree",
    "kmer_distances",
    "ls_all_triplets",
    "ls_triplets",
    "neighbor_joining",
    "pair_score_distances",
    "pairwise_from_triplets",
    "random_rate",
    "sample_triplets",
    "score_distances",
    "self_scores",
    "triplet_distances",
    "upgma",
]
