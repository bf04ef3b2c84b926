"""CuPy launcher of the library's pairwise stage (``trimsa/kernels/pair_library.cu``).

:func:`pair_maps` fills the library's arrays exactly as :func:`trimsa.progressive._cpu.pair_maps`
does, bit for bit: the GPU aligns each pair (``pair_viterbi``, one thread per pair),
takes its identity and the band of the posteriors from the path (``pair_band``) and
computes the banded posteriors (``pair_posteriors``). The host has a part between the
kernels only where the pair HMM is fitted to each alignment or the library votes with the
alignments (:func:`~trimsa.progressive._cpu.gpu_pair_inputs`, on all threads). The pairs
go in batches whose working memory fits a share of the device's free memory; longest
first, so that the pairs of a warp have similar lengths.
"""

from __future__ import annotations

import threading

import numpy as np

from .._numba import in_threads
from . import _cpu

KERNEL = "pair_library.cu"
#: NVRTC options: no fused multiply-adds, as in the CPU kernels (bit-identical results)
OPTIONS = ("--fmad=false",)
BLOCK = 128
#: Share of the device's free memory (CuPy's pool included) one batch may take.
MEM_FRACTION = 0.5
#: Most host memory of one batch's results (partners and probabilities) before they go
#: into the library: bounds the stage's memory beyond the library itself.
HOST_BATCH_BYTES = 2 ** 30


#: Working rows of ``float64`` per pair of the posteriors (five states, two rows each).
ROWS = 10


def _functions():
    import cupy

    from .. import kernels

    mod = kernels.module(KERNEL, (), OPTIONS, device=cupy.cuda.Device().id)
    return (mod.get_function("pair_viterbi"), mod.get_function("pair_band"),
            mod.get_function("pair_posteriors"))


def pair_bytes(la, lb, band: int, slots: int, posterior: bool):
    """Device memory of one pair of ``la`` by ``lb`` residues (numbers or arrays) in a
    batch whose pairs are at most that long: the traceback table or the band of forward
    values (never held at once), the working rows, the path and the output slots."""
    la = np.asarray(la, np.int64)
    lb = np.asarray(lb, np.int64)
    work = (la + 1) * (lb + 1)
    if posterior:
        work = np.maximum(work, 4 * _cpu.band_cells(la, lb, band))
    return (work + 12 * (lb + 1) + 8 * ROWS * (lb + 2) + 8 * (la + 2)
            + (la + lb) * (1 + 8 * slots) + 160)


def host_bytes(la, lb, slots: int):
    """Host memory of one pair's results in a batch (path, partners and probabilities)."""
    return (np.asarray(la, np.int64) + lb) * (1 + 8 * slots)


def batches(la, lb, band: int, slots: int, posterior: bool, budget: float,
            host_budget: float = HOST_BATCH_BYTES):
    """Cut pairs (in the given order) into runs whose :func:`pair_bytes` at the run's
    longest lengths, times its pairs, fit ``budget`` and whose :func:`host_bytes` add up
    to at most ``host_budget`` (at least one pair a run); yields ``(start, stop)``. A pair
    that does not fit ``budget`` alone is a :class:`MemoryError`."""
    n = la.size
    s = 0
    while s < n:
        need = pair_bytes(np.maximum.accumulate(la[s:]), np.maximum.accumulate(lb[s:]), band,
                          slots, posterior) * np.arange(1, n - s + 1)
        over = (need > budget) | (np.cumsum(host_bytes(la[s:], lb[s:], slots)) > host_budget)
        over[0] = need[0] > budget
        k = int(np.argmax(over)) if over.any() else n - s
        if k == 0:
            raise MemoryError(
                f"one pairwise alignment of {int(la[s])} x {int(lb[s])} residues needs "
                f"{int(need[0]):.3g} bytes of GPU memory, beyond the {budget:.3g} bytes "
                f"available to it; use device 'cpu'")
        yield s, s + k
        s += k


def pair_maps(flat, offsets, pairs, table, gap_open, gap_extend, term, off_st, off_ts, maps,
              probs, ident, trust, has_post, posterior, hmm_odds, hmm_gaps, floor, band, threads,
              progress=None, gpus=None):
    """:func:`trimsa.progressive._cpu.pair_maps` of every pair on the GPUs ``gpus``
    (device numbers; None: every visible one). With several, the pairs (longest first)
    are dealt out in turn, so that each GPU gets a like mix of lengths, and each GPU's
    thread prepares its batches on its share of the ``threads``; every pair is computed
    as on one GPU, so the library does not depend on the GPUs."""
    import cupy

    devs = devices(gpus)
    P = len(pairs)
    if P == 0:
        return
    lengths = np.diff(offsets)
    la_all = lengths[pairs[:, 0]]
    lb_all = lengths[pairs[:, 1]]
    order = np.lexsort((lb_all, la_all))[::-1].astype(np.int64)
    lock = threading.Lock()
    done = [0]

    def step(n):
        with lock:
            done[0] += n
            if progress is not None:
                progress(done[0], P)

    args = (flat, offsets, pairs, table, gap_open, gap_extend, term, off_st, off_ts, maps,
            probs, ident, trust, has_post, posterior, hmm_odds, hmm_gaps, floor, band)
    if len(devs) == 1:
        with cupy.cuda.Device(devs[0]):
            _pair_maps_on(order, *args, threads, step)
        return
    share = max(1, threads // len(devs))
    failed = []

    def run(g):
        try:
            with cupy.cuda.Device(devs[g]):
                _pair_maps_on(np.ascontiguousarray(order[g::len(devs)]), *args, share, step)
        except BaseException as exc:   # re-raised in the caller's thread
            failed.append(exc)

    workers = [threading.Thread(target=run, args=(g,)) for g in range(len(devs))]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    if failed:
        raise failed[0]


def devices(gpus=None) -> list:
    """The GPUs the library uses: ``gpus`` checked against the visible ones, or all."""
    import cupy

    from ..triplet.devices import select_devices

    return select_devices(gpus, cupy.cuda.runtime.getDeviceCount())


def _pair_maps_on(order, flat, offsets, pairs, table, gap_open, gap_extend, term, off_st,
                  off_ts, maps, probs, ident, trust, has_post, posterior, hmm_odds, hmm_gaps, floor,
                  band, threads, step):
    """The pairs ``order`` (longest first) of :func:`pair_maps` on the current GPU, in
    batches; ``step(n)`` after each batch of ``n`` pairs."""
    import cupy

    viterbi, band_of, post = _functions()
    lengths = np.diff(offsets)
    la_all = lengths[pairs[:, 0]]
    lb_all = lengths[pairs[:, 1]]
    slots = maps.shape[1]
    k = table.shape[0]
    d_codes = cupy.asarray(flat.astype(np.uint8))
    d_table = cupy.asarray(np.ascontiguousarray(table, np.float32))
    go = np.float32(gap_open)
    ge = np.float32(gap_extend)
    go_end = go * np.float32(term)
    pool = cupy.get_default_memory_pool()
    budget = MEM_FRACTION * (cupy.cuda.runtime.memGetInfo()[0] + pool.free_bytes())
    for s, e in batches(la_all[order], lb_all[order], band, slots, posterior, budget,
                        HOST_BATCH_BYTES):
        sel = np.ascontiguousarray(order[s:e])
        T = sel.size
        la = la_all[sel].astype(np.int32)
        lb = lb_all[sel].astype(np.int32)
        A, B = int(la.max()), int(lb.max())
        path_off = np.zeros(T + 1, np.int64)
        path_off[1:] = np.cumsum(la.astype(np.int64) + lb)
        d_aoff = cupy.asarray(offsets[pairs[sel, 0]].astype(np.int64))
        d_boff = cupy.asarray(offsets[pairs[sel, 1]].astype(np.int64))
        d_la, d_lb = cupy.asarray(la), cupy.asarray(lb)
        d_poff = cupy.asarray(path_off)
        d_path = cupy.empty(int(path_off[-1]), cupy.int8)
        d_npath = cupy.empty(T, cupy.int32)
        grid = ((T + BLOCK - 1) // BLOCK,)
        W = B + 1
        d_rows = cupy.empty(3 * W * T, cupy.float32)
        d_tb = cupy.empty((A + 1) * W * T, cupy.uint8)
        viterbi(grid, (BLOCK,), (d_codes, d_aoff, d_la, d_boff, d_lb, np.int32(T), np.int32(W),
                                 d_table, np.int32(k), go, ge, go_end, d_rows, d_tb, d_poff,
                                 d_path, d_npath))
        del d_rows, d_tb
        band_off = np.zeros(T + 1, np.int64)
        band_off[1:] = np.cumsum(la.astype(np.int64) + 1)
        d_band_off = cupy.asarray(band_off)
        d_lo = cupy.empty(int(band_off[-1]), cupy.int32)
        d_hi = cupy.empty(int(band_off[-1]), cupy.int32)
        d_cells = cupy.empty(T, cupy.int64)
        d_ident = cupy.empty(T, cupy.float64)
        band_of(grid, (BLOCK,), (d_codes, d_aoff, d_la, d_boff, d_lb, np.int32(T), d_poff,
                                 d_path, d_npath, np.int32(band), d_band_off, d_lo, d_hi,
                                 d_cells, d_ident))
        paths = d_path.get()
        npath = d_npath.get()
        ident[sel] = d_ident.get()
        trust[sel] = ident[sel]
        if posterior and hmm_odds.shape[0] > 0:
            odds = np.ascontiguousarray(np.broadcast_to(hmm_odds, (T, k, k)), np.float64)
            gaps = np.ascontiguousarray(np.broadcast_to(hmm_gaps[:4], (T, 4)), np.float64)
        else:
            # the pair HMM fitted to each alignment, or the alignment's own votes
            odds = np.zeros((T if posterior else 0, k, k), np.float64)
            gaps = np.zeros((T, 4), np.float64)
            in_threads(lambda idx: _cpu.gpu_pair_inputs(
                flat, offsets, pairs, sel, idx, table, paths, path_off, npath, posterior,
                odds, gaps, off_st, off_ts, maps, probs), np.arange(T), threads)
        if posterior:
            W2 = B + 2
            fstride = np.int64(int(d_cells.max()))
            d_fM = cupy.empty(int(fstride) * T, cupy.float32)
            d_rows = cupy.empty(ROWS * W2 * T, cupy.float64)
            d_scale = cupy.empty((A + 2) * T, cupy.float64)
            d_cols = cupy.empty((int(path_off[-1]), slots), cupy.int32)
            d_probs = cupy.empty((int(path_off[-1]), slots), cupy.float32)
            d_ok = cupy.empty(T, cupy.uint8)
            post(grid, (BLOCK,), (d_codes, d_aoff, d_la, d_boff, d_lb, np.int32(T), np.int32(W2),
                                  cupy.asarray(odds), np.int32(k), cupy.asarray(gaps),
                                  np.float64(floor), d_band_off, d_lo, d_hi, fstride, d_fM, d_rows,
                                  d_scale,
                                  np.int32(slots), d_poff, d_cols, d_probs, d_ok))
            del d_fM, d_rows, d_scale
            ok = d_ok.get()
            out_cols = d_cols.get()
            out_probs = d_probs.get()
            del d_cols, d_probs
            done = np.flatnonzero(ok)
            in_threads(lambda idx: _cpu.gpu_pair_outputs(
                sel, idx, path_off, out_cols, out_probs, off_st, trust, has_post, maps, probs),
                done, threads)
            if done.size < T:   # posteriors not finite: the pair votes with its alignment
                in_threads(lambda idx: _cpu.gpu_pair_inputs(
                    flat, offsets, pairs, sel, idx, table, paths, path_off, npath, False,
                    odds, gaps, off_st, off_ts, maps, probs), np.flatnonzero(ok == 0), threads)
        step(T)
