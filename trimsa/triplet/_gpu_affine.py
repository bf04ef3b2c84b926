"""CuPy launcher of the affine score kernel (``trimsa/kernels/triplet_affine.cu``).

:func:`score_triplets` fills the same scores as ``_affine.score_batch``, bit
for bit, in 32-bit arithmetic. One warp scores one triplet at a time; each
warp owns two face buffers in global memory (:func:`warp_bytes`), so the
number of warps launched is bounded by the memory share of the batch.
"""

from __future__ import annotations

import numpy as np

from ..errors import OptionError

KERNEL = "triplet_affine.cu"
#: Rows of the (j, k) plane per lane (the kernel's TJ).
TJ = 4
WARPS_PER_BLOCK = 4
#: Words per (i, k) of the row buffer and per (i, row) of the column buffer.
FACE_WORDS = 6
#: fraction of the device's free memory one batch may take for its face buffers
MEM_FRACTION = 0.6
#: Largest alphabet the kernel's shared table holds.
MAX_CODES = 32

_FUNCTIONS: dict = {}


def _function():
    import cupy

    from .. import kernels

    dev = cupy.cuda.Device().id
    key = (dev, TJ)
    if key not in _FUNCTIONS:
        name = f"affine_score<{TJ}>"
        mod = kernels.module(KERNEL, (name,), device=dev)
        fn = mod.get_function(name)
        regs = max(1, int(fn.num_regs))
        threads = 32 * WARPS_PER_BLOCK
        per_sm = max(1, min(65536 // (regs * threads), 2048 // threads))
        sms = cupy.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"]
        _FUNCTIONS[key] = (fn, per_sm * sms)
    return _FUNCTIONS[key]


def order(lengths, trip):
    """Triplets renamed for the kernel: A the middle length, B the shortest, C the longest.

    The score does not depend on the order; C runs along the lanes (fewest idle
    lanes), A along the layers.
    """
    lens = lengths[trip]
    o = np.argsort(lens, axis=1, kind="stable")[:, [1, 0, 2]]
    return np.take_along_axis(trip, o, axis=1), np.take_along_axis(lens, o, axis=1)


def jface_words(la: int, lc: int) -> int:
    """Words of one warp's row buffer: per chunk of 32 columns, per wavefront step, per lane."""
    return (lc // 32 + 1) * (la + 32) * FACE_WORDS * 32


def warp_bytes(la: int, lc: int) -> int:
    """Face buffer bytes of one warp for layers ``la`` and columns ``lc``."""
    return 4 * (jface_words(la, lc) + FACE_WORDS * (la + 1) * (TJ + 1))


def score_triplets(seqs, trip, mode: int, scoring, *, out, mem_fraction: float = MEM_FRACTION):
    """Scores of ``trip`` (``int32 (T, 3)``) on the current device and stream into ``out``."""
    import cupy

    T = trip.shape[0]
    if T == 0:
        return out
    K = scoring.table.shape[0]
    if K > MAX_CODES:
        raise OptionError(f"the affine GPU kernel holds alphabets of up to {MAX_CODES} codes, "
                          f"got {K}")
    fn, resident_blocks = _function()
    tri, lens = order(seqs.lengths, np.asarray(trip))
    cells = np.prod(lens.astype(np.int64) + 1, axis=1)
    perm = np.argsort(-cells, kind="stable")   # largest first: the last warps end together
    tri = np.ascontiguousarray(tri[perm], dtype=np.int32)
    la = int(lens[:, 0].max())
    lc = int(lens[:, 2].max())
    per_warp = warp_bytes(la, lc)
    pool = cupy.get_default_memory_pool()
    free = int(cupy.cuda.runtime.memGetInfo()[0] + pool.free_bytes())
    budget_warps = int(free * mem_fraction) // per_warp
    if budget_warps < 1:
        raise MemoryError(f"the affine GPU kernel needs {per_warp} bytes of face buffers for "
                          f"lengths {la} x {lc}, more than {mem_fraction:.0%} of the free "
                          f"{free} bytes")
    warps = min(resident_blocks * WARPS_PER_BLOCK, budget_warps, T)
    blocks = max(1, warps // WARPS_PER_BLOCK) if warps >= WARPS_PER_BLOCK else 1
    nwarps = blocks * WARPS_PER_BLOCK
    jwords = jface_words(la, lc)
    kwords = (la + 1) * (TJ + 1) * FACE_WORDS
    d_codes = cupy.asarray(seqs.codes)
    d_off = cupy.asarray(seqs.offsets.astype(np.int64))
    d_trip = cupy.asarray(tri)
    d_sub = cupy.asarray(np.ascontiguousarray(scoring.table, dtype=np.int32))
    d_j = cupy.empty(nwarps * jwords, dtype=np.int32)
    d_k = cupy.empty(nwarps * kwords, dtype=np.int32)
    d_out = cupy.empty(T, dtype=np.int64)
    d_next = cupy.zeros(1, dtype=np.int32)
    fn((blocks,), (32 * WARPS_PER_BLOCK,),
       (d_codes, d_off, d_trip, np.int32(T), d_sub, np.int32(K), np.int32(scoring.gap_open),
        np.int32(scoring.gap_extend), np.int32(mode), d_j, np.int64(jwords), d_k,
        np.int64(kwords), d_out, d_next))
    res = cupy.asnumpy(d_out)
    out[perm] = res
    return out
