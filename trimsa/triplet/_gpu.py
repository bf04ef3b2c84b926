"""CuPy launcher for the CUDA triplet kernels (see trimsa/kernels/).

Until the kernels land, the GPU backend reports itself unavailable.
"""

from __future__ import annotations

from ..errors import BackendUnavailableError


def available():
    """Name of a usable GPU, or ``None`` (always ``None`` until the kernels land)."""
    return None


def require():
    raise BackendUnavailableError(
        "the GPU backend is not available in this version of trimsa; use --device cpu"
    )


def score_triplets(seqs, trip, mode, scoring, out=None):  # pragma: no cover - placeholder
    require()
