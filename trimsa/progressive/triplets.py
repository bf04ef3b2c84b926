"""Library votes from exact 3-way alignments (the triplet library).

For each pair ``(s, t)`` of the library of all pairs, ``thirds`` third sequences
``u`` are chosen, those nearest to both (smallest ``D[s, u] + D[t, u]`` on the
library's corrected pairwise distances). Each triplet ``(s, t, u)`` is aligned
with the exact 3-way engine under the aligner's scores (natural affine gaps): the
best global alignment whose path stays within ``width`` columns of the pairwise
alignments of ``s`` with ``t`` and of ``s`` with ``u`` (a band, so that the cost is
about ``len(s) (2 width + 1)^2`` cells instead of the whole cube;
:func:`trimsa.triplet.align_triplets` with ``bands``). Where the third sequence
moves a gap of ``s`` against ``t``, its alignment says so.

The ``(s, t)`` columns of the triplets' alignments then vote on the pair's residue
maps: each residue's partners become ``(1 - share)`` of its pairwise probabilities
plus ``share`` times the share of the triplets (weighted by how close their third
sequence is to the pair, ``1 / (1 + D[s, u] + D[t, u])``) that put it in a column
with each partner. ``share = 1`` keeps the triplets' votes alone.
"""

from __future__ import annotations

import numpy as np

from .._numba import in_threads
from . import _cpu
from .consistency import POSTERIOR_FLOOR, Library

#: Third sequences per pair, half-width of the band around the pairwise paths, and
#: the share of each pair's votes that the triplets take, by default.
DEFAULT_THIRDS = 2
DEFAULT_WIDTH = 16
#: Most cells (of the bands) the triplet alignments of one alignment may take, per
#: device (about 100-400 s on 2 cores, 3-30 s on an H100: ``eval/results/bench_band_h100.md``);
#: with more, fewer third sequences per pair.
TRIPLET_CELLS = {"cpu": 1e10, "gpu": 1e11}


def pick_thirds(D: np.ndarray, pairs: np.ndarray, thirds: int) -> np.ndarray:
    """For each pair ``(s, t)``, the ``thirds`` other sequences with the smallest
    ``D[s, u] + D[t, u]`` (ties: the lower index), ``(P, thirds)``.

    >>> D = np.array([[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]], float)
    >>> pick_thirds(D, np.array([[0, 1], [2, 3]]), 1).tolist()
    [[2], [0]]
    """
    out = np.empty((len(pairs), thirds), np.int64)
    for lo in range(0, len(pairs), 4096):
        part = pairs[lo:lo + 4096]
        cost = D[part[:, 0]] + D[part[:, 1]]
        rows = np.arange(len(part))
        cost[rows, part[:, 0]] = np.inf
        cost[rows, part[:, 1]] = np.inf
        out[lo:lo + len(part)] = np.argsort(cost, axis=1, kind="stable")[:, :thirds]
    return out


def triplet_cells(lengths, pairs, thirds: int, width: int) -> float:
    """About how many band cells the triplets of ``pairs`` take (each layer of ``s``
    keeps ``(2 width + 1)^2`` cells, more where the pairwise paths have gaps)."""
    L = np.asarray(lengths, float)
    return float(thirds * ((L[pairs[:, 0]] + 1) * (2 * width + 1) ** 2).sum())


def add_triplet_votes(library: Library, seqs, codes, scoring, profile, D, *, thirds: int,
                      width: int, share: float, threads: int = 1, progress=None,
                      device: str = "cpu") -> dict:
    """Mix the votes of banded exact 3-way alignments into ``library`` (in place).

    ``seqs`` and ``scoring``: the sequences and the integer scores of the triplet
    engine; ``codes`` and ``profile`` (a :class:`~trimsa.progressive.engine.ProfileScoring`)
    those of the library's pairwise alignments, which anchor the bands; ``D`` the
    ``(n, n)`` distances the thirds are chosen by; ``device`` where the triplets are
    aligned (``"cpu"`` or ``"gpu"``, the same alignments). Returns what was done:
    ``triplets``, ``cells`` (of the bands) and ``thirds``.
    """
    from ..triplet.api import align_banded

    n = library.n
    rows = np.repeat(np.arange(n), np.diff(library.nbr_ptr))
    keep = rows < library.nbr
    pairs = np.ascontiguousarray(np.stack([rows[keep], library.nbr[keep]], axis=1))
    P = len(pairs)
    thirds = int(min(thirds, n - 2))
    if P == 0 or thirds < 1:
        return dict(triplets=0, cells=0.0, thirds=0)
    third = pick_thirds(D, pairs, thirds)
    # triplet (s, t, u): layers s, band from the paths s-t and s-u
    trip = np.stack([np.repeat(pairs[:, 0], thirds), np.repeat(pairs[:, 1], thirds),
                     third.ravel()], axis=1)
    anchors = np.unique(np.concatenate([trip[:, [0, 1]], trip[:, [0, 2]]]), axis=0)
    lengths = np.diff(library.offsets)
    band_off = np.zeros(len(anchors) + 1, np.int64)
    band_off[1:] = np.cumsum(lengths[anchors[:, 0]] + 1)
    lo = np.empty(int(band_off[-1]), np.int64)
    hi = np.empty(int(band_off[-1]), np.int64)
    flat = np.concatenate(codes).astype(np.int64)
    tab = np.ascontiguousarray(profile.table[:-1, :-1], np.float32)
    in_threads(lambda idx: _cpu.anchor_ranges(flat, library.offsets, anchors, idx, tab,
                                              np.float32(profile.gap_open),
                                              np.float32(profile.gap_extend),
                                              np.float32(profile.term), int(width),
                                              band_off, lo, hi),
               np.arange(len(anchors)), threads)
    where = {(int(s), int(x)): q for q, (s, x) in enumerate(anchors)}
    tmap_parts = []
    cells = 0.0
    for blk in range(0, len(trip), BLOCK_TRIPLETS):
        part = trip[blk:blk + BLOCK_TRIPLETS]
        bands = []
        for s, t, u in part.tolist():
            a, b = where[(s, t)], where[(s, u)]
            ra = slice(band_off[a], band_off[a + 1])
            rb = slice(band_off[b], band_off[b + 1])
            bands.append(np.stack([lo[ra], hi[ra], lo[rb], hi[rb]], axis=1))
        cells += float(sum(((x[:, 1] - x[:, 0] + 1) * (x[:, 3] - x[:, 2] + 1)).sum()
                           for x in bands))
        _, moves, move_off = align_banded(seqs, part, bands, scoring, threads, device)
        ls = lengths[part[:, 0]]
        map_off = np.zeros(len(part) + 1, np.int64)
        map_off[1:] = np.cumsum(ls)
        tm = np.empty(int(map_off[-1]), np.int64)
        _cpu.triplet_partners(moves, move_off, ls, map_off, tm)
        tmap_parts.append(tm)
        if progress is not None:
            progress(min(blk + BLOCK_TRIPLETS, len(trip)), len(trip))
    tmap = np.concatenate(tmap_parts)
    map_off = np.zeros(len(trip) + 1, np.int64)
    map_off[1:] = np.cumsum(lengths[trip[:, 0]])
    weights = 1.0 / (1.0 + D[trip[:, 0], trip[:, 2]] + D[trip[:, 1], trip[:, 2]])
    first = np.arange(P, dtype=np.int64) * thirds
    off_st, off_ts = _pair_rows(library, pairs)
    in_threads(lambda idx: _cpu.mix_triplet_votes(pairs, idx, library.offsets, first, thirds,
                                                  tmap, map_off, weights, float(share),
                                                  np.float32(POSTERIOR_FLOOR), off_st, off_ts,
                                                  library.maps, library.probs),
               np.arange(P), threads)
    return dict(triplets=int(len(trip)), cells=cells, thirds=thirds)


#: Triplets aligned between two calls of ``progress``.
BLOCK_TRIPLETS = 4096


def _pair_rows(library: Library, pairs: np.ndarray):
    """Where each pair's two maps start in the library's rows: ``(off_st, off_ts)``."""
    off_st = np.array([library.nbr_map[library._slot(int(s), int(t))] for s, t in pairs],
                      np.int64)
    off_ts = np.array([library.nbr_map[library._slot(int(t), int(s))] for s, t in pairs],
                      np.int64)
    return off_st, off_ts
