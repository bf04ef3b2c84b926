"""A pairwise library for consistency-aware profile merges.

Every pair of sequences is aligned once (global, affine gaps, the aligner's
own scores). While the guide tree is walked, a merge of clusters A and B adds
to the score of pairing column ``i`` of A with column ``j`` of B the weighted
support the library gives it: directly (``s`` and ``t`` aligned ``x`` to
``y``) and through every third sequence ``u`` among the witnesses (``x~z``
in the ``s,u`` alignment and ``z~y`` in the ``u,t`` one) - T-Coffee's
library extension, which is where each triplet ``(s, u, t)`` votes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._numba import in_threads
from . import _cpu


@dataclass
class Library:
    offsets: np.ndarray  # sequence offsets (n + 1)
    map_off: np.ndarray  # (n, n) start of map_st in maps
    maps: np.ndarray  # int32
    ident: np.ndarray  # (n, n) float64
    pos: np.ndarray  # int64: every residue's current column in its cluster
    weight: float  # lambda: factor on the support added to the profile scores
    witnesses: np.ndarray  # third sequences that vote (int64)
    is_witness: np.ndarray  # int64 0/1 per sequence

    def scores(self, la, lb, mem_a, mem_b, w):
        C = np.zeros((la, lb), np.float32)
        _cpu.consistency_scores(mem_a, mem_b, self.pos, self.offsets, self.map_off, self.maps,
                                self.ident, w, self.witnesses, self.is_witness, C)
        return C

    def moved(self, members, m):
        _cpu.update_positions(self.pos, self.offsets, members, m)

    def set_witnesses(self, witnesses) -> None:
        """The third sequences whose alignments vote from now on."""
        self.witnesses = np.asarray(witnesses, np.int64)
        self.is_witness = np.zeros(self.offsets.size - 1, np.int64)
        self.is_witness[self.witnesses] = 1


def library_bytes(lengths) -> float:
    """Memory of the library's residue maps (``int32``, both directions of every pair)."""
    L = np.asarray(lengths, float)
    return 4.0 * L.sum() * (L.size - 1)


def library_cells(lengths) -> float:
    """DP cells of all pairwise alignments (to decide whether a library is affordable)."""
    L = np.asarray(lengths, float)
    return float((L.sum() ** 2 - (L ** 2).sum()) / 2)


def pick_witnesses(n: int, order=None, most: int | None = None) -> np.ndarray:
    """Up to ``most`` third sequences, evenly spaced along ``order`` (e.g. the guide tree's leaves)."""
    order = np.arange(n) if order is None else np.asarray(order, np.int64)
    if most is None or most >= n:
        return np.sort(order)
    if most <= 0:
        return np.zeros(0, np.int64)
    idx = np.unique(np.linspace(0, n - 1, most).round().astype(np.int64))
    return np.sort(order[idx])


#: Pairs aligned between two calls of ``build_library``'s ``progress``.
PROGRESS_PAIRS = 4096


def build_library(codes, table, gap_open, gap_extend, term, *, weight=1.0, witnesses=None,
                  threads: int = 1, progress=None) -> Library:
    """Align all pairs of ``codes`` (compact code arrays) and index the result.

    ``table`` is the substitution table over the compact codes; ``gap_open``
    and ``gap_extend`` the gap scores (<= 0) and ``term`` the end-gap factor
    of the profile aligner.

    ``witnesses``: the third sequences whose alignments vote (default: all;
    an empty array keeps only the direct pairwise support; see
    :meth:`Library.set_witnesses`). ``progress(done, total)`` is called
    after every :data:`PROGRESS_PAIRS` pairs.
    """
    n = len(codes)
    lengths = np.array([c.size for c in codes], np.int64)
    offsets = np.zeros(n + 1, np.int64)
    offsets[1:] = np.cumsum(lengths)
    flat = np.concatenate(codes).astype(np.int64) if n else np.zeros(0, np.int64)
    map_off = np.zeros((n, n), np.int64)
    cur = 0
    for s in range(n):
        for t in range(n):
            if s != t:
                map_off[s, t] = cur
                cur += lengths[s]
    maps = np.full(cur, -1, np.int32)
    ident = np.zeros((n, n), np.float64)
    iu = np.triu_indices(n, 1)
    pairs = np.ascontiguousarray(np.stack(iu, axis=1).astype(np.int64))
    tab = np.ascontiguousarray(table, np.float32)
    g, e, tm = np.float32(gap_open), np.float32(gap_extend), np.float32(term)
    # interleaved rows of pairs keep the threads' work even
    for lo in range(0, len(pairs), PROGRESS_PAIRS):
        block = np.arange(lo, min(lo + PROGRESS_PAIRS, len(pairs)))
        in_threads(lambda idx: _cpu.pair_maps(flat, offsets, pairs[idx], tab, g, e, tm, map_off,
                                              maps, ident),
                   block, threads)
        if progress is not None:
            progress(int(block[-1]) + 1, len(pairs))
    pos = np.concatenate([np.arange(x) for x in lengths]).astype(np.int64)
    library = Library(offsets, map_off, maps, ident, pos, float(weight), np.zeros(0, np.int64),
                      np.zeros(n, np.int64))
    library.set_witnesses(pick_witnesses(n) if witnesses is None else witnesses)
    return library
