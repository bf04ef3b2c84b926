"""The exact 3-way (triplet) alignment engine, and the banded scores beside it.

The API (:mod:`.api`, :mod:`.banded`) checks arguments and picks a backend;
the backends sit below it and never call back into it: :mod:`.backends` (this
machine: CPU kernels in :mod:`._cpu`, GPUs through :mod:`.devices` and
:mod:`._gpu`), :mod:`.distributed` (Dask workers, which score through
:mod:`.backends`), with the cost model, partitions and memory batches in
:mod:`.plan`.
"""

from ._checks import all_triplets, iter_all_triplets
from .api import (
    TripletAlignment,
    align_triplet,
    align_triplets,
    score_triplets,
)
from ._checks import scoring_for
from .backends import DEVICES, check_device, resolve_device
from .banded import DEFAULT_BAND, band_pair_scores, band_triplet_scores

__all__ = [
    "DEFAULT_BAND",
    "DEVICES",
    "TripletAlignment",
    "align_triplet",
    "align_triplets",
    "all_triplets",
    "band_pair_scores",
    "band_triplet_scores",
    "check_device",
    "iter_all_triplets",
    "resolve_device",
    "score_triplets",
    "scoring_for",
]
