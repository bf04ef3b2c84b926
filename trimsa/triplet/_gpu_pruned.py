"""The bound-pruned exact affine 3-way path (:mod:`trimsa.triplet.pruned`) on the GPU.

The pairs' losses come from the ``pair_loss`` kernel and the bands from ``bound_band``
(``trimsa/kernels/triplet_bound.cu``), bit for bit those of ``_pruned.pair_loss`` and
``_pruned.bound_band``; the bands are swept by the affine score kernel's banded
instantiation (scores) or traced by :func:`_gpu_affine.align_banded` (alignments). A
band with more than :data:`DENSE_SHARE` of its cube's cells is swept as the full cube by
:func:`_gpu_affine.score_triplets`. Scores and alignments are the full cube's.
"""

from __future__ import annotations

import numpy as np

from . import _gpu_affine
from . import pruned
from .pruned import Work

KERNEL = "triplet_bound.cu"
#: A band holding more than this share of its cube's cells is swept as the full cube
#: (a band's cell costs the GPU more than a cube's: tiles it only partly fills, and the
#: wavefront's ramp on each tile's layers).
DENSE_SHARE = 0.2
#: A call with fewer triplets than this sweeps full cubes: a warp takes one triplet's
#: band, so a few triplets leave the GPU idle, where the full cubes' kernel cuts each
#: triplet into strips of rows for many warps (measured on the tune sets:
#: eval/experiments/2026-12-02-pruned-cubes).
MIN_TRIPLETS = 1024
#: Threads per block of both bound kernels (a warp per pair or triplet).
THREADS = 128
#: Share of the free device memory one launch of ``pair_loss`` takes for the forward
#: states (12 bytes a cell).
SCRATCH_SHARE = 0.25
#: The loss kernels' most negative limit: below three floors every cell is in.
_LIM_FLOOR = -(1 << 20)
NEG = -(1 << 29)

_FUNCTIONS: dict = {}


def _functions():
    """``(pair_loss, bound_band, resident warps of pair_loss)`` on the current device."""
    import cupy

    from .. import kernels

    dev = cupy.cuda.Device().id
    if dev not in _FUNCTIONS:
        mod = kernels.module(KERNEL, (), device=dev)
        fn = mod.get_function("pair_loss")
        regs = max(1, int(fn.num_regs))
        per_sm = max(1, min(65536 // (regs * THREADS), 2048 // THREADS))
        sms = cupy.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"]
        _FUNCTIONS[dev] = (fn, mod.get_function("bound_band"), per_sm * sms * THREADS // 32)
    return _FUNCTIONS[dev]


def losses(seqs, pairs, sc, d_codes, d_off, mem_fraction: float):
    """``(D, offsets, optima)`` of ``pairs`` as :func:`pruned.losses`, with ``D`` on the
    device (``int16``) and the rest on the host."""
    import cupy

    fn, _, resident = _functions()
    K = _gpu_affine._check_alphabet(sc)
    cells = pruned.loss_cells(seqs.lengths, pairs)
    off = np.zeros(len(pairs) + 1, dtype=np.int64)
    off[1:] = np.cumsum(cells)
    d_D = cupy.empty(max(1, int(off[-1])), dtype=np.int16)
    opt = np.empty(len(pairs), dtype=np.int64)
    if not len(pairs):
        return d_D, off, opt
    d_sub = cupy.asarray(np.ascontiguousarray(sc.table, dtype=np.int32))
    d_doff = cupy.asarray(off)
    budget = _gpu_affine._free_bytes() * min(SCRATCH_SHARE, mem_fraction)
    d_pairs = cupy.asarray(np.ascontiguousarray(pairs, dtype=np.int32))
    d_opt = cupy.empty(len(pairs), dtype=np.int64)
    lo = 0
    P = len(pairs)
    while lo < P:
        # pairs while their forward states fit the share, at most one per resident warp
        hi = lo + 1
        used = 12 * int(cells[lo])
        while hi < P and hi - lo < resident and used + 12 * int(cells[hi]) <= budget:
            used += 12 * int(cells[hi])
            hi += 1
        if 12 * int(cells[lo]) > budget:
            raise MemoryError(f"pairwise bounds of lengths {tuple(int(x) for x in seqs.lengths[pairs[lo]])} "
                              f"need {12 * int(cells[lo])} bytes of device memory, more than "
                              f"{int(budget)}")
        foff = np.zeros(hi - lo + 1, dtype=np.int64)
        foff[1:] = np.cumsum(cells[lo:hi])
        d_f = cupy.empty(3 * int(foff[-1]), dtype=np.int32)
        nmax = int(seqs.lengths[pairs[lo:hi, 0]].max())
        gwords = 4 * (nmax + 1)
        n = hi - lo
        blocks = -(-n // (THREADS // 32))
        d_g = cupy.empty(blocks * (THREADS // 32) * gwords, dtype=np.int32)
        fn((blocks,), (THREADS,),
           (d_codes, d_off, d_pairs[lo:hi], np.int32(n), d_doff[lo:hi + 1], cupy.asarray(foff),
            d_sub, np.int32(K), np.int32(sc.gap_open), np.int32(sc.gap_extend), d_f, d_g,
            np.int64(gwords), d_D, d_opt[lo:hi]))
        del d_f, d_g
        lo = hi
    opt[:] = cupy.asnumpy(d_opt)
    return d_D, off, opt


def bands(seqs, trip, slots, rev, d_D, off, lim, paths: bool):
    """The bands of ``trip`` (rows: layers, rows, columns) as ``_pruned.bound_band``
    gives them with ``delta = -lim``: ``(rows on the device, first row per triplet
    (T + 1), cells per triplet, -1 for an empty layer)``."""
    import cupy

    _, fn, _ = _functions()
    T = trip.shape[0]
    la = seqs.lengths[trip[:, 0]].astype(np.int64)
    band_off = np.zeros(T + 1, dtype=np.int64)
    band_off[1:] = np.cumsum(la + 1)
    d_rows = cupy.empty((max(1, int(band_off[-1])), 4), dtype=np.int32)
    d_cells = cupy.empty(max(1, T), dtype=np.int64)
    if T:
        d_off = cupy.asarray(seqs.offsets.astype(np.int64))
        lim32 = np.maximum(np.asarray(lim, dtype=np.int64), _LIM_FLOOR).astype(np.int32)
        blocks = -(-T // (THREADS // 32))
        fn((blocks,), (THREADS,),
           (d_off, cupy.asarray(np.ascontiguousarray(trip, dtype=np.int32)), np.int32(T), d_D,
            cupy.asarray(off), cupy.asarray(np.ascontiguousarray(slots, dtype=np.int32)),
            cupy.asarray(np.ascontiguousarray(rev, dtype=np.uint8)), cupy.asarray(lim32),
            cupy.asarray(np.full(T, 1 if paths else 0, dtype=np.uint8)),
            cupy.asarray(band_off[:-1]), d_rows, d_cells))
    return d_rows, band_off, cupy.asnumpy(d_cells)[:T]


def _banded_scores(seqs, trip, d_rows, band_off, cells, sc, mem_fraction, d_codes, d_off):
    """Best scores within the bands of ``trip`` (rows and offsets as :func:`bands`
    returns them), largest band first."""
    import cupy

    o = np.argsort(-cells, kind="stable")
    lens = seqs.lengths[trip[o]].astype(np.int64)
    res = _gpu_affine._sweep(d_codes, d_off, np.ascontiguousarray(trip[o], dtype=np.int32), lens,
                             0, sc, mem_fraction, band=(d_rows, cupy.asarray(band_off[o])))
    out = np.empty(len(o), dtype=np.int64)
    out[o] = res
    return out


def score_triplets(seqs, trip, scoring, *, out, precision: str = "auto",
                   mem_fraction: float = _gpu_affine.MEM_FRACTION, work: Work | None = None):
    """Exact global affine scores of ``trip`` (``(T, 3)``) on the current device into
    ``out``, as :func:`pruned.score_cpu`: a first band from the guess, a second from the
    first band's best when that falls short of its threshold, the full cube for a band
    with more than :data:`DENSE_SHARE` of it, and full cubes for every triplet of a call
    with fewer than :data:`MIN_TRIPLETS`."""
    import cupy

    T = trip.shape[0]
    if T == 0:
        return out
    _gpu_affine._check_alphabet(scoring)
    if T < MIN_TRIPLETS:
        _gpu_affine.score_triplets(seqs, trip, 0, scoring, out=out, precision=precision,
                                   mem_fraction=mem_fraction)
        if work is not None:
            cube = pruned.cube_cells(seqs.lengths, trip)
            work.add(triplets=T, cube_cells=cube.sum(), swept_cells=cube.sum(), full=T)
        return out
    d_codes = cupy.asarray(seqs.codes)
    d_off = cupy.asarray(seqs.offsets.astype(np.int64))
    sw = pruned.layered(seqs.lengths, trip)
    budget = pruned.LOSS_SHARE * _gpu_affine._free_bytes()
    for sl in pruned.chunks(seqs.lengths, sw, budget):
        part = sw[sl]
        n = part.shape[0]
        pairs, slots, rev = pruned.pair_plan(len(seqs), part)
        d_D, off, opt = losses(seqs, pairs, scoring, d_codes, d_off, mem_fraction)
        total = opt[slots].sum(axis=1)
        delta = pruned.guesses(seqs.lengths, part, total, scoring)
        cube = pruned.cube_cells(seqs.lengths, part)
        res = np.empty(n, dtype=np.int64)
        swept = np.zeros(n, dtype=np.int64)
        dense = np.zeros(n, dtype=bool)
        todo = np.arange(n)
        lim = -delta
        thr = total - delta
        for first in (True, False):
            d_rows, band_off, cells = bands(seqs, part[todo], slots[todo], rev[todo], d_D, off,
                                            lim[todo], first)
            wide = (cells < 0) | (cells > DENSE_SHARE * cube[todo])
            dense[todo[wide]] = True
            ok = np.flatnonzero(~wide)
            if ok.size:
                rows, sub = _take(d_rows, band_off, ok, cupy)
                got = _banded_scores(seqs, part[todo[ok]], rows, sub, cells[ok], scoring,
                                     mem_fraction, d_codes, d_off)
                res[todo[ok]] = got
                swept[todo[ok]] += cells[ok]
                # a first band proves its best only when it reaches its threshold
                short = got < thr[todo[ok]] if first else np.zeros(ok.size, dtype=bool)
                lim[todo[ok[short]]] = -(total[todo[ok[short]]] - got[short])
                todo = todo[ok[short]]
            else:
                todo = todo[:0]
            del d_rows
            if not todo.size:
                break
        full = np.flatnonzero(dense)
        if full.size:
            got = np.empty(full.size, dtype=np.int64)
            _gpu_affine.score_triplets(seqs, part[full], 0, scoring, out=got, precision=precision,
                                       mem_fraction=mem_fraction)
            res[full] = got
            swept[full] += cube[full]
        out[sl] = res
        if work is not None:
            work.add(triplets=n, cube_cells=cube.sum(), swept_cells=swept.sum(),
                     pair_cells=int(off[-1]), full=full.size)
        del d_D
        cupy.get_default_memory_pool().free_all_blocks()
    return out


def _take(rows, band_off, idx, xp):
    """The bands of triplets ``idx`` of those stacked in ``rows`` (``band_off`` their
    first rows): ``(rows, first rows (len(idx) + 1))``; ``xp`` the array module of
    ``rows``."""
    idx = np.asarray(idx)
    if idx.size == band_off.size - 1:
        return rows[:int(band_off[-1])], band_off
    sizes = band_off[idx + 1] - band_off[idx]
    sub = np.zeros(idx.size + 1, dtype=np.int64)
    sub[1:] = np.cumsum(sizes)
    at = np.repeat(band_off[idx] - sub[:-1], sizes) + np.arange(int(sub[-1]))
    return rows[xp.asarray(at)], sub


def align_triplets(seqs, trip, sc, nthreads: int, work: Work | None = None):
    """Optimal global affine alignments of ``trip`` (rows in the given order) in bands on
    the current device, as :func:`pruned.align_cpu`: ``(scores, moves, counts)``, with
    ``counts[t] = -2`` for a triplet whose band would hold more than
    :data:`pruned.TRACE_CELLS` cells or whose scores could pass the GPU traceback's bound
    (left to the caller's full-cube path)."""
    import cupy

    T = trip.shape[0]
    scores = np.zeros(T, dtype=np.int64)
    counts = np.full(T, -2, dtype=np.int64)
    moves = [np.zeros(0, np.uint8)] * T
    if T == 0:
        return scores, moves, counts
    _gpu_affine._check_alphabet(sc)
    trip = np.ascontiguousarray(trip, dtype=np.int64)
    d_codes = cupy.asarray(seqs.codes)
    d_off = cupy.asarray(seqs.offsets.astype(np.int64))
    frac = _gpu_affine.MEM_FRACTION
    budget = pruned.LOSS_SHARE * _gpu_affine._free_bytes()
    ok_all = _gpu_affine.traceable(seqs.lengths[trip].astype(np.int64), sc)
    for sl in pruned.chunks(seqs.lengths, trip, budget):
        part = trip[sl]
        n = part.shape[0]
        pairs, slots, rev = pruned.pair_plan(len(seqs), part)
        d_D, off, opt = losses(seqs, pairs, sc, d_codes, d_off, frac)
        total = opt[slots].sum(axis=1)
        delta = pruned.guesses(seqs.lengths, part, total, sc)
        cube = pruned.cube_cells(seqs.lengths, part)
        swept = np.zeros(n, dtype=np.int64)
        lim = -delta
        thr = total - delta
        todo = np.flatnonzero(ok_all[sl])
        for first in (True, False):
            if not todo.size:
                break
            d_rows, band_off, cells = bands(seqs, part[todo], slots[todo], rev[todo], d_D, off,
                                            lim[todo], first)
            # a band too large to trace is left to the full cube (counts -2)
            fit = np.flatnonzero((cells >= 0) & (cells <= pruned.TRACE_CELLS))
            if not fit.size:
                break
            sel, sub = _take(cupy.asnumpy(d_rows), band_off, fit, np)
            del d_rows
            got, mv, move_off = _gpu_affine.align_banded(seqs, part[todo[fit]], sel, sub, sc,
                                                         mem_fraction=frac)
            idx = todo[fit]
            swept[idx] += cells[fit]
            for q, t in enumerate(idx.tolist()):
                scores[sl.start + t] = got[q]
                counts[sl.start + t] = move_off[q + 1] - move_off[q]
                moves[sl.start + t] = mv[move_off[q]:move_off[q + 1]].copy()
            short = got < thr[idx] if first else np.zeros(idx.size, dtype=bool)
            # the first band's best falls short of its threshold: a second, exact band
            lim[idx[short]] = -(total[idx[short]] - got[short])
            counts[sl.start + idx[short]] = -2
            todo = idx[short]
        if work is not None:
            banded = counts[sl] >= 0
            work.add(triplets=n, cube_cells=cube.sum(),
                     swept_cells=swept[banded].sum() + cube[~banded].sum(),
                     pair_cells=int(off[-1]), full=int((~banded).sum()))
        del d_D
        cupy.get_default_memory_pool().free_all_blocks()
    return scores, moves, counts
