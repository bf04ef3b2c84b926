"""Bound-pruned exact affine 3-way scores and alignments (global mode).

The optimum of a triplet is found in a *band* of its cube that every alignment
scoring at least a known lower bound must stay in; the band comes from the three
pairwise alignments' forward and backward sweeps (Carrillo and Lipman's bound, with
natural affine gaps). The scores are those of the full cube, bit for bit, and the
alignments too where the full path traces its cube whole; beyond its divide-and-conquer
limit the band's traceback can return another optimum of equal score. docs/engine.md ("Bound-pruned cubes") has the
argument; the kernels are :mod:`trimsa.triplet._pruned` (CPU) and
:mod:`trimsa.triplet._gpu_pruned` (GPU).

:func:`applies` says where the pruned path runs: global mode with affine gaps, under
``pruning="auto"`` (every caller's default). Semiglobal and local modes keep the full
cube (their projections are not global pairwise alignments, so these bounds do not
hold for them), as do linear gaps (their own kernels).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError

Pruning = Literal["auto", "off"]
#: What ``pruning`` accepts: ``auto`` prunes wherever the bound holds (global mode,
#: affine gaps), ``off`` sweeps every cube in full.
PRUNINGS = ("auto", "off")
#: The first pass guesses ``delta = GUESS deficit^2 / (L m)``, with ``deficit`` how far
#: the three pairwise optima fall short of ``m`` per residue (``m`` the usual score of
#: a residue against itself) and ``L`` the triplet's mean length: more divergent
#: triplets are further from consistent pairwise alignments (chosen on the tune splits:
#: eval/experiments/2026-12-02-pruned-cubes).
GUESS = 0.005
#: On the CPU a band with more than this share of its cube's cells is swept as the
#: full cube instead (a band's cell costs more than a cube's).
DENSE_SHARE = 0.3
#: Most cells of a band traced back from pointer words (8 bytes each); a triplet whose
#: band holds more is aligned by the full cube's path (divide and conquer).
TRACE_CELLS = 1 << 24
#: Share of the available memory the pairs' losses (2 bytes per cell) may take.
LOSS_SHARE = 0.25


def check_pruning(pruning: str) -> str:
    if pruning not in PRUNINGS:
        raise OptionError(f"unknown pruning {pruning!r}; choose one of: {', '.join(PRUNINGS)}")
    return pruning


def applies(mode: int, scoring, pruning: str = "auto") -> bool:
    """Whether triplets of ``mode`` under ``scoring`` take the pruned path."""
    return check_pruning(pruning) == "auto" and mode == 0 and not scoring.linear


@dataclass
class Work:
    """What a run of the engine swept: triplets, the cells of their cubes, the cells
    swept (bands, and cubes of the triplets swept in full), the cells of the pairwise
    sweeps the bounds took, and the triplets swept in full. Thread-safe :meth:`add`."""

    triplets: int = 0
    cube_cells: int = 0
    swept_cells: int = 0
    pair_cells: int = 0
    full: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, *, triplets=0, cube_cells=0, swept_cells=0, pair_cells=0, full=0) -> None:
        with self._lock:
            self.triplets += int(triplets)
            self.cube_cells += int(cube_cells)
            self.swept_cells += int(swept_cells)
            self.pair_cells += int(pair_cells)
            self.full += int(full)

    def summary(self) -> str:
        """One line: ``"T triplets: S of C cube cells swept (x%), F in full cubes"``."""
        share = self.swept_cells / self.cube_cells if self.cube_cells else 0.0
        text = (f"{self.triplets} triplets: {self.swept_cells:.3g} of {self.cube_cells:.3g} "
                f"cube cells swept ({100 * share:.2g}%)")
        if self.pair_cells:
            text += f", {self.pair_cells:.3g} pairwise cells for the bounds"
        if self.full:
            text += f", {self.full} in full cubes"
        return text


def layered(lengths, trip) -> np.ndarray:
    """``trip`` with each row's longest sequence first (the layers), ties in the given
    order: bands along the longest sequence hold the fewest cells per layer."""
    trip = np.asarray(trip, dtype=np.int64).reshape(-1, 3)
    o = np.argsort(-lengths[trip], axis=1, kind="stable")
    return np.ascontiguousarray(np.take_along_axis(trip, o, axis=1))


def pair_plan(n: int, trip) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct pairs of ``trip`` (rows: layers, rows, columns): ``(pairs, slots,
    rev)``, ``pairs`` ``(P, 2)`` with the lower index first, ``slots[t]`` the pairs
    ``(a, b)``, ``(a, c)``, ``(b, c)`` of triplet ``t`` and ``rev[t]`` where a pair
    is stored the other way round."""
    trip = np.asarray(trip, dtype=np.int64)
    pr = np.stack([trip[:, [0, 1]], trip[:, [0, 2]], trip[:, [1, 2]]], axis=1)
    keys = pr.min(axis=2) * n + pr.max(axis=2)
    uniq, inv = np.unique(keys.ravel(), return_inverse=True)
    pairs = np.stack([uniq // n, uniq % n], axis=1)
    return (pairs, np.ascontiguousarray(inv.reshape(-1, 3), dtype=np.int64),
            np.ascontiguousarray(pr[:, :, 0] > pr[:, :, 1]))


def loss_cells(lengths, pairs) -> np.ndarray:
    """Cells of each pair's square (``(|u| + 1) (|v| + 1)``)."""
    return (lengths[pairs[:, 0]].astype(np.int64) + 1) * (lengths[pairs[:, 1]] + 1)


def losses(seqs, pairs, sc) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(D, offsets, optima)`` of ``pairs`` on the CPU (:func:`_pruned.pair_loss`)."""
    from . import _pruned

    off = np.zeros(len(pairs) + 1, dtype=np.int64)
    off[1:] = np.cumsum(loss_cells(seqs.lengths, pairs))
    D = np.empty(int(off[-1]), dtype=np.int16)
    opt = np.empty(len(pairs), dtype=np.int64)
    if len(pairs):
        _pruned.pair_loss_batch(seqs.codes, seqs.offsets, np.ascontiguousarray(pairs), off,
                                sc.table, np.int32(sc.gap_open), np.int32(sc.gap_extend), D, opt)
    return D, off, opt


def self_score(sc) -> float:
    """The usual score of a residue against itself: the median of the table's positive
    diagonal (1 if none is positive)."""
    diag = np.diag(np.asarray(sc.table))
    diag = diag[diag > 0]
    return float(np.median(diag)) if diag.size else 1.0


def guesses(lengths, trip, total, sc) -> np.ndarray:
    """The first pass's ``delta`` of each triplet (:data:`GUESS`), from the sum of its
    pairwise optima ``total``; a function of the triplet alone, so that the passes (and
    so which triplets a traceback leaves to the full cube) never depend on the batch."""
    L = lengths[np.asarray(trip)].astype(np.float64)
    m = self_score(sc)
    deficit = np.maximum(m * L.sum(axis=1) - total, 0.0)
    return np.ceil(GUESS * deficit ** 2 / (np.maximum(L.mean(axis=1), 1.0) * m)).astype(np.int64)


def chunks(lengths, trip, budget: float):
    """Slices of ``trip`` whose distinct pairs' losses (2 bytes a cell) fit ``budget``
    bytes; one triplet at least."""
    T = trip.shape[0]
    lo = 0
    while lo < T:
        per = 2 * 3 * float(np.mean(np.prod(lengths[trip[lo:lo + 64]].astype(np.float64) + 1,
                                            axis=1) ** (2 / 3)))
        step = max(1, int(budget // per))
        while True:
            hi = min(T, lo + step)
            pairs = pair_plan(len(lengths), trip[lo:hi])[0]
            if step == 1 or 2 * loss_cells(lengths, pairs).sum() <= budget:
                break
            step //= 2
        yield slice(lo, hi)
        lo = hi


def loss_budget() -> float:
    from ._checks import available_memory

    avail = available_memory()
    return float(LOSS_SHARE * avail) if avail else float(1 << 30)


def cube_cells(lengths, trip) -> np.ndarray:
    return np.prod(lengths[np.asarray(trip)].astype(np.int64) + 1, axis=1)


def score_cpu(seqs, trip, sc, out, nthreads: int, work: Work | None = None) -> np.ndarray:
    """Exact global affine scores of ``trip`` into ``out`` on ``nthreads`` CPU threads."""
    from . import _pruned

    if trip.shape[0] == 0:
        return out
    sw = layered(seqs.lengths, trip)
    for sl in chunks(seqs.lengths, sw, loss_budget()):
        part = sw[sl]
        pairs, slots, rev = pair_plan(len(seqs), part)
        D, off, opt = losses(seqs, pairs, sc)
        total = opt[slots].sum(axis=1)
        delta = guesses(seqs.lengths, part, total, sc)
        cells = np.empty(part.shape[0], dtype=np.int64)
        _pruned.pruned_scores(seqs.codes, seqs.offsets, part, slots, rev, D, off, opt, sc.table,
                              np.int32(sc.gap_open), np.int32(sc.gap_extend), delta, DENSE_SHARE,
                              out[sl], cells, max(1, min(part.shape[0], 8 * nthreads)))
        if work is not None:
            cube = cube_cells(seqs.lengths, part)
            work.add(triplets=part.shape[0], cube_cells=cube.sum(), swept_cells=cells.sum(),
                     pair_cells=int(off[-1]), full=int((cells >= cube).sum()))
    return out


def align_cpu(seqs, trip, sc, nthreads: int, work: Work | None = None):
    """Optimal global affine alignments of ``trip`` (rows in the given order) in bands:
    ``(scores, moves, counts)``, ``moves[t]`` a ``uint8`` array, ``counts[t] = -2`` for a
    triplet whose band would exceed :data:`TRACE_CELLS` (left to the full cube)."""
    from . import _pruned
    from ._checks import check_memory

    T = trip.shape[0]
    scores = np.zeros(T, dtype=np.int64)
    counts = np.full(T, -2, dtype=np.int64)
    moves = [np.zeros(0, np.uint8)] * T
    trip = np.ascontiguousarray(trip, dtype=np.int64)
    _numba.set_threads(nthreads)
    if T:   # pointer words: at most TRACE_CELLS, and no more than a cube, per thread
        at_once = max(1, min(T, nthreads))
        check_memory(8.0 * at_once * min(TRACE_CELLS, int(cube_cells(seqs.lengths, trip).max())),
                     f"{seqs.source}: band tracebacks ({at_once} at once)")
    for sl in chunks(seqs.lengths, trip, loss_budget()):
        part = trip[sl]
        pairs, slots, rev = pair_plan(len(seqs), part)
        D, off, opt = losses(seqs, pairs, sc)
        total = opt[slots].sum(axis=1)
        delta = guesses(seqs.lengths, part, total, sc)
        n = part.shape[0]
        span = seqs.lengths[part].astype(np.int64).sum(axis=1)
        move_off = np.zeros(n + 1, dtype=np.int64)
        move_off[1:] = np.cumsum(span)
        mv = np.zeros(int(move_off[-1]), dtype=np.uint8)
        sc_part = np.zeros(n, dtype=np.int64)
        cnt = np.empty(n, dtype=np.int64)
        cells = np.zeros(n, dtype=np.int64)
        _pruned.pruned_alignments(seqs.codes, seqs.offsets, part, slots, rev, D, off, opt,
                                  sc.table, np.int32(sc.gap_open), np.int32(sc.gap_extend), delta,
                                  TRACE_CELLS, sc_part, mv, move_off, cnt, cells,
                                  max(1, min(n, 4 * nthreads)))
        idx = np.arange(sl.start, sl.stop)
        scores[idx] = sc_part
        counts[idx] = cnt
        for q, t in enumerate(idx.tolist()):
            if cnt[q] >= 0:
                moves[t] = mv[move_off[q]:move_off[q] + cnt[q]].copy()
        if work is not None:
            cube = cube_cells(seqs.lengths, part)
            banded = cnt >= 0
            work.add(triplets=n, cube_cells=cube.sum(),
                     swept_cells=cells[banded].sum() + cube[~banded].sum(),
                     pair_cells=int(off[-1]), full=int((~banded).sum()))
    return scores, moves, counts
