"""Banded (not exact) global scores of triplets and pairs, on the CPU (pairs also on
the GPU: :mod:`trimsa.triplet._gpu_band`, the same scores).

The band of half-width ``band`` keeps, in each layer of the longest sequence,
the cells within ``band`` of the diagonal of the cube (or square); the kernels
are in :mod:`trimsa.triplet._band`. A banded score is never higher than the
exact global one and equals it when the band covers the optimal path (always
when ``band`` is at least the length of the two shorter sequences). The guide
tree's triplet distances use them on the CPU, and the pairwise scores as a cheap
prior (:mod:`trimsa.tree.distances`). Both take linear and natural affine gaps (a run
of ``L`` gaps in a pair of rows scores ``gap_open + gap_extend L``); with affine gaps
the 3-way band is swept by the exact engine's 13-state cell, about five times as many
seconds per cell as with linear gaps.
"""

from __future__ import annotations

import numpy as np

from .. import _numba
from ..errors import OptionError
from ..io import as_sequence_set
from ._checks import scoring_for

#: Default half-width of the banded kernels.
DEFAULT_BAND = 32


def _run_band(kernel: str, seqs, index, width: int, band: int, scoring, threads: int,
              gpu: bool = False):
    from . import _band

    seqs = as_sequence_set(seqs)
    sc = scoring_for(seqs, scoring)
    if width == 3 and not sc.linear:
        kernel = "band_triplet_affine_batch"
    if int(band) < 1:
        raise OptionError(f"band must be >= 1, got {band}")
    idx = np.ascontiguousarray(index, dtype=np.int64).reshape(-1, width)
    if idx.size and (idx.min() < 0 or idx.max() >= len(seqs)):
        raise OptionError(f"sequence index outside 0..{len(seqs) - 1}")
    if gpu:   # pairs only: the same scores on the GPU
        from . import _gpu_band

        return _gpu_band.band_pair_scores(seqs.codes, seqs.offsets, idx, sc.table,
                                          int(sc.gap_open), int(sc.gap_extend), int(band))
    out = np.zeros(idx.shape[0], dtype=np.int64)
    if idx.shape[0]:
        _numba.set_threads(threads)
        gaps = ((np.int32(sc.gap),) if width == 3 and sc.linear
                else (np.int32(sc.gap_open), np.int32(sc.gap_extend)))
        getattr(_band, kernel)(seqs.codes, seqs.offsets, idx, sc.table, *gaps, int(band), out)
    return out


def band_triplet_scores(seqs, triplets, *, band: int = DEFAULT_BAND, scoring=None,
                        threads: int = 0) -> np.ndarray:
    """Global 3-way scores restricted to a band of half-width ``band`` (``int64``),
    linear or natural affine gaps.

    Not exact: the optimal alignment may leave the band, and then the banded
    score is lower than the exact one (never higher). With ``band`` at least
    the length of the two shorter sequences it equals the exact global score.
    """
    return _run_band("band_triplet_batch", seqs, triplets, 3, band, scoring, threads)


def band_pair_scores(seqs, pairs, *, band: int = DEFAULT_BAND, scoring=None,
                     threads: int = 0, device: str = "cpu") -> np.ndarray:
    """Global pairwise scores restricted to a band of half-width ``band`` (``int64``),
    linear or natural affine gaps (a run of ``L`` gaps scores ``gap_open + gap_extend L``).

    ``device``: ``"cpu"`` (numba, on ``threads``), ``"gpu"`` (CuPy, one thread per pair:
    the same scores, bit for bit) or ``"auto"`` (the GPU when one is visible)."""
    from .backends import resolve_device

    return _run_band("band_pair_batch", seqs, pairs, 2, band, scoring, threads,
                     gpu=resolve_device(device, announce=False) == "gpu")
