"""The exact 3-way (triplet) alignment engine."""

from .api import (
    TripletAlignment,
    align_triplet,
    align_triplets,
    all_triplets,
    iter_all_triplets,
    resolve_device,
    score_triplets,
)

__all__ = [
    "TripletAlignment",
    "align_triplet",
    "align_triplets",
    "all_triplets",
    "iter_all_triplets",
    "resolve_device",
    "score_triplets",
]
