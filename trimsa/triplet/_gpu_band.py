"""CuPy launcher of the banded pairwise scores (``trimsa/kernels/band_pair.cu``).

:func:`band_pair_scores` gives :func:`trimsa.triplet._band.band_pair_batch`'s scores bit
for bit (the same int32 recurrence), one thread per pair. The pairs go longest first, so
that the threads of a warp have similar lengths, in batches whose working rows fit a
share of the device's free memory.
"""

from __future__ import annotations

import numpy as np

KERNEL = "band_pair.cu"
BLOCK = 128
#: Share of the device's free memory (CuPy's pool included) one batch's rows may take.
MEM_FRACTION = 0.25
#: Most pairs in one batch.
MAX_BATCH = 1 << 20


def _function():
    import cupy

    from .. import kernels

    return kernels.module(KERNEL, (), (), device=cupy.cuda.Device().id).get_function(
        "band_pair_score")


def band_pair_scores(codes, offsets, pairs, table, gap_open: int, gap_extend: int,
                     band: int) -> np.ndarray:
    """Banded global scores (``int64``) of ``pairs`` (rows of two sequence indices) on the
    current GPU; the arguments are those of :func:`trimsa.triplet._band.band_pair_batch`."""
    import cupy

    from ._gpu import _free_bytes

    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    P = pairs.shape[0]
    out = np.zeros(P, dtype=np.int64)
    if P == 0:
        return out
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    longer = np.maximum(lengths[pairs[:, 0]], lengths[pairs[:, 1]])
    order = np.argsort(-longer, kind="stable")
    w = int(band)
    row_bytes = 6 * (2 * w + 3) * 4
    batch = int(max(1, min(MAX_BATCH, MEM_FRACTION * _free_bytes() // row_bytes)))
    fn = _function()
    d_codes = cupy.asarray(np.ascontiguousarray(codes[:offsets[-1]], dtype=np.uint8))
    d_offsets = cupy.asarray(offsets)
    table = np.ascontiguousarray(table, dtype=np.int32)
    d_sub = cupy.asarray(table)
    d_rows = cupy.empty(batch * row_bytes // 4, dtype=np.int32)
    for lo in range(0, P, batch):
        idx = order[lo:lo + batch]
        T = idx.size
        d_pairs = cupy.asarray(pairs[idx])
        d_out = cupy.empty(T, dtype=np.int64)
        fn(((T + BLOCK - 1) // BLOCK,), (BLOCK,),
           (d_codes, d_offsets, d_pairs, d_sub, np.int32(table.shape[1]), np.int32(gap_open),
            np.int32(gap_extend), np.int32(w), np.int64(T), d_rows, d_out))
        out[idx] = d_out.get()
    return out
