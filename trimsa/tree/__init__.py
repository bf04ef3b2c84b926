"""Guide trees from triplet scores (see :mod:`trimsa.tree.api` and docs/tree.md)."""

from .api import (
    DEFAULT_BAND,
    RATES,
    GuideTree,
    band_pair_scores,
    band_triplet_scores,
    build_guide_tree,
    ls_all_triplets,
    ls_triplets,
    neighbor_joining,
    pairwise_from_triplets,
    random_rate,
    sample_triplets,
    score_distances,
    self_scores,
    to_newick,
    upgma,
)

__all__ = [
    "DEFAULT_BAND",
    "RATES",
    "GuideTree",
    "band_pair_scores",
    "band_triplet_scores",
    "build_guide_tree",
    "ls_all_triplets",
    "ls_triplets",
    "neighbor_joining",
    "pairwise_from_triplets",
    "random_rate",
    "sample_triplets",
    "score_distances",
    "self_scores",
    "to_newick",
    "upgma",
]
