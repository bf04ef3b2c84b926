"""numba kernels of the exact 3-way dynamic programme with natural affine gaps.

The recurrence and why it is exact are in docs/engine.md ("Affine gaps").
In short: a cell ``(i, j, k)`` holds 13 states, one per possible *kind of the
last non-null column of each pair* (:data:`KINDS`), and hands each of its
successors one value, the best of its states with that successor's gap-open
penalties already paid (an *export*, 13 of them per cell, :data:`EXPORT`).

A sweep keeps two layers of exports, ``(lb + 2, lc + 2, 13)`` each: cell
``(j, k)`` lives at ``[j + 1, k + 1]`` and the border row/column is NEG, so
that missing predecessors need no test.

Initialisation (``start``) and where the score is read (``end``) follow the
linear kernels (:mod:`trimsa.triplet._cpu`): 0 global, 1 semiglobal (faces
``i = 0``, ``j = 0``, ``k = 0`` hold a fresh start of score 0), 2 local (as
semiglobal, and a fresh start of score 0 is possible in every cell).
The tracebacks add three things to a global sweep: the state the origin
starts in (``init``), faces that a path may not touch after its first cell
(``forbid``, bit 0 for ``i = 0``, bit 1 ``j = 0``, bit 2 ``k = 0``), and
far faces that end every path (``block``: reversed sweeps that look for where
a semiglobal or local alignment starts).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from .._numba import jit, pjit
from ._cpu import by_length

NEG = np.int32(-(1 << 29))
#: Number of states (and of exports) per cell.
NS = 13

# Kind of a pair's last non-null column: 0 both rows have a residue, 1 the
# first row of the pair has a residue and the second a gap, 2 the reverse.
# Pairs in the order (a, b), (a, c), (b, c). State s has kinds KINDS[s] and
# was entered by a column of move MOVE[s] (bit 0: a has a residue, bit 1 b,
# bit 2 c); states 4-6, 7-9 and 10-12 are single-residue columns, which leave
# the kind of the other two rows' pair as it was.
KINDS = np.array([
    (0, 0, 0),                        # 0  a b c
    (0, 1, 1),                        # 1  a b -
    (1, 0, 2),                        # 2  a - c
    (2, 2, 0),                        # 3  - b c
    (1, 1, 0), (1, 1, 1), (1, 1, 2),  # 4-6   a - -, (b, c) was 0 / 1 / 2
    (2, 0, 1), (2, 1, 1), (2, 2, 1),  # 7-9   - b -, (a, c) was 0 / 1 / 2
    (0, 2, 2), (1, 2, 2), (2, 2, 2),  # 10-12 - - c, (a, b) was 0 / 1 / 2
], dtype=np.int8)
MOVE = np.array([7, 3, 5, 6, 1, 1, 1, 2, 2, 2, 4, 4, 4], dtype=np.uint8)
#: State s is entered from its predecessor's export EXPORT[s]: 0 is T (the
#: best state), 1-3 the two-residue moves (b c, a c, a b), 4-12 the
#: single-residue moves, one per kind the untouched pair keeps.
EXPORT = np.arange(NS, dtype=np.int8)
EXPORT[1], EXPORT[3] = 3, 1
#: The fresh start: every pair's next gap opens (the kinds of state 0).
FRESH = 0


def transitions():
    """``(nxt, opens)``, each ``(13, 8)``: the state after move ``m`` from state ``s``
    and the number of gaps that move opens (-1 / 0 for moves that do not exist).

    Written from the definition (kinds per pair), not from the export formulas
    of :func:`_cell`; the tests check one against the other.
    """
    lookup = {tuple(int(x) for x in KINDS[s]): s for s in range(NS)}
    nxt = np.full((NS, 8), -1, dtype=np.int8)
    opens = np.zeros((NS, 8), dtype=np.int8)
    pairs = ((0, 1), (0, 2), (1, 2))
    for s in range(NS):
        for m in range(1, 8):
            kinds = []
            n_open = 0
            for p, (r1, r2) in enumerate(pairs):
                h1, h2 = (m >> r1) & 1, (m >> r2) & 1
                if h1 and h2:
                    kinds.append(0)
                elif h1 or h2:
                    kind = 1 if h1 else 2
                    n_open += int(KINDS[s, p]) != kind
                    kinds.append(kind)
                else:
                    kinds.append(int(KINDS[s, p]))
            nxt[s, m] = lookup[tuple(kinds)]
            opens[s, m] = n_open
    return nxt, opens


#: Bit of a pointer word set when the cell's state 0 holds exactly 0 (where a
#: local alignment may start).
ZERO_BIT = 52


@jit
def pointer_word(S, o, K, XK):
    """The traceback pointers of a cell with states ``S``: 4 bits per export ``x``
    (at bit ``4 x``), the lowest-numbered state that attains the export, and
    :data:`ZERO_BIT`.

    The exports are run on keys ``16 S[q] + 15 - q`` (``K``, ``int64``) with
    the gap open scaled by 16: the largest key holds the best value and,
    among equal values, the lowest state. ``XK`` receives the keys' exports.
    """
    for q in range(NS):
        K[q] = np.int64(S[q]) * 16 + 15 - q
    _exports(K, np.int64(o) * 16, XK)
    w = np.uint64(0)
    for x in range(NS):
        w |= np.uint64(15 - (XK[x] & 15)) << np.uint64(4 * x)
    if S[FRESH] == 0:
        w |= np.uint64(1) << np.uint64(ZERO_BIT)
    return w


@functools.lru_cache(maxsize=64)
def bonus_table(gap_open: int) -> np.ndarray:
    """``(13, 13)``: ``-gap_open`` times the pairs whose gap run a forward state
    ``s`` and a reversed state ``r`` share (the run crosses the cell where a
    forward and a reversed sweep meet, and both sweeps paid its opening).
    Read-only, one per gap opening (the divide and conquer asks for it per cube)."""
    same = (KINDS[:, None, :] == KINDS[None, :, :]) & (KINDS[:, None, :] != 0)
    table = (-int(gap_open) * same.sum(axis=2)).astype(np.int32)
    table.setflags(write=False)
    return table


@jit
def _cell(Ep, pj, pk, Ec, cj, ck, sab, sac, sbc, e2, o, S):
    """The 13 states of a cell into ``S``.

    ``Ep``/``Ec`` are the previous/current layer's exports (padded); the cell
    sits at ``[pj, pk]`` of ``Ep``'s indexing and ``[cj, ck]`` of ``Ec``'s
    (the same place in full planes, different ones in a band's windows);
    ``sab``, ``sac``, ``sbc`` the substitution scores of the cell's residues;
    ``e2`` = 2 gap_extend (every column gaps exactly two pairs, or none).
    """
    S[0] = Ep[pj - 1, pk - 1, 0] + sab + sac + sbc
    S[1] = Ep[pj - 1, pk, 3] + sab + e2
    S[2] = Ep[pj, pk - 1, 2] + sac + e2
    S[3] = Ec[cj - 1, ck - 1, 1] + sbc + e2
    for q in range(3):
        S[4 + q] = Ep[pj, pk, 4 + q] + e2
        S[7 + q] = Ec[cj - 1, ck, 7 + q] + e2
        S[10 + q] = Ec[cj, ck - 1, 10 + q] + e2


@jit
def _exports(S, o, X):
    """The 13 exports ``X`` of a cell with states ``S`` (``o`` = gap_open <= 0).

    ``X[0]`` is the best state (the 3-residue move pays no opening); ``X[1]``,
    ``X[2]``, ``X[3]`` feed the moves ``- b c``, ``a - c``, ``a b -``; ``X[4:7]``
    the move ``a - -`` into its states 4-6, ``X[7:10]`` and ``X[10:13]`` the
    same for ``b`` and ``c``. Each is the best over the states it can follow,
    less ``o`` for every gap the move opens from that state.
    """
    o2 = 2 * o
    A = max(S[4], max(S[5], S[6]))
    B = max(S[7], max(S[8], S[9]))
    C = max(S[10], max(S[11], S[12]))
    T = max(max(max(S[0], S[1]), max(S[2], S[3])), max(A, max(B, C)))
    X[0] = T
    X[1] = max(max(T + o2, max(B, C) + o), max(S[3], max(S[9], S[12])))
    X[2] = max(max(T + o2, max(A, C) + o), max(S[2], max(S[6], S[11])))
    X[3] = max(max(T + o2, max(A, B) + o), max(S[1], max(S[5], S[8])))
    X[4] = max(S[4], max(S[0], S[3]) + o2)
    X[5] = max(S[5], max(max(S[1], S[8]) + o, B + o2))
    X[6] = max(S[6], max(max(S[2], S[11]) + o, C + o2))
    X[7] = max(S[7], max(S[0], S[2]) + o2)
    X[8] = max(S[8], max(max(S[1], S[5]) + o, A + o2))
    X[9] = max(S[9], max(max(S[3], S[12]) + o, C + o2))
    X[10] = max(S[10], max(S[0], S[1]) + o2)
    X[11] = max(S[11], max(max(S[2], S[6]) + o, A + o2))
    X[12] = max(S[12], max(max(S[3], S[9]) + o, B + o2))


@jit
def _layer(i, a, b, c, sub, o, e2, start, init, forbid, block, Ep, Ec, S, Sl, keep, Pl, point):
    """Exports of layer ``i`` into ``Ec`` (padded) from layer ``i - 1`` in ``Ep``.

    With ``keep`` the states of every cell also go to ``Sl[j, k, :]``; with
    ``point`` its pointer word (:func:`pointer_word`) to ``Pl[j, k]``.
    """
    K = np.empty(NS if point else 0, dtype=np.int64)
    XK = np.empty(NS if point else 0, dtype=np.int64)
    for j in range(b.shape[0] + 1):
        _row(i, j, a, b, c, sub, o, e2, start, init, forbid, block, Ep, Ec, S, Sl, keep, Pl,
             point, K, XK)


@jit
def _row(i, j, a, b, c, sub, o, e2, start, init, forbid, block, Ep, Ec, S, Sl, keep, Pl, point,
         K, XK):
    """Row ``j`` of layer ``i`` (as :func:`_layer`): it reads rows ``j`` and ``j - 1``
    of ``Ep`` and row ``j - 1`` of ``Ec``, and writes row ``j`` of ``Ec``."""
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    ai = a[i - 1] if i > 0 else 0
    bj = b[j - 1] if j > 0 else 0
    sab = sub[ai, bj]
    for k in range(lc + 1):
        ck = c[k - 1] if k > 0 else 0
        face = i == 0 or j == 0 or k == 0
        if start != 0 and face:
            S[:] = NEG
            S[FRESH] = 0
        elif start == 0 and i == 0 and j == 0 and k == 0:
            S[:] = NEG
            S[init] = 0
        elif start == 0 and ((forbid & 1 and i == 0) or (forbid & 2 and j == 0)
                             or (forbid & 4 and k == 0)):
            S[:] = NEG
        else:
            _cell(Ep, j + 1, k + 1, Ec, j + 1, k + 1, sab, sub[ai, ck], sub[bj, ck], e2, o, S)
            if start == 2:
                S[FRESH] = max(S[FRESH], 0)
        X = Ec[j + 1, k + 1]
        if point:
            # the keys' exports give the exports too (X = XK >> 4)
            Pl[j, k] = pointer_word(S, o, K, XK)
            for x in range(NS):
                X[x] = XK[x] >> 4
        else:
            _exports(S, o, X)
        if block and (i == la or j == lb or k == lc):
            X[1:] = NEG
        if keep:
            Sl[j, k, :] = S


@jit
def _read(end, i, la, Ec, best):
    """Fold the cells of layer ``i`` that rule ``end`` reads into ``best`` (score, i, j, k).

    Ties keep the first cell in (i, j, k) order.
    """
    lb = Ec.shape[0] - 2
    lc = Ec.shape[1] - 2
    if end == 0 and i != la:
        return
    for j in range(lb + 1):
        for k in range(lc + 1):
            if end == 0 and (j != lb or k != lc):
                continue
            if end == 1 and i != la and j != lb and k != lc:
                continue
            v = Ec[j + 1, k + 1, 0]
            if v > best[0]:
                best[0] = v
                best[1] = i
                best[2] = j
                best[3] = k


@jit
def _planes(lb, lc):
    p = np.empty((2, lb + 2, lc + 2, NS), dtype=np.int32)
    p[:, 0, :, :] = NEG
    p[:, :, 0, :] = NEG
    return p


@jit
def sweep(a, b, c, sub, o, e, start, end, init, forbid, block, planes, Sl, keep, best):
    """Sweep the cube in two layers of ``planes`` (from :func:`_planes`).

    ``best`` receives ``(score, i, j, k)`` of the cell rule ``end`` reads; with
    ``keep`` the states of the last layer are left in ``Sl`` (``(lb+1, lc+1, 13)``).
    """
    la = a.shape[0]
    e2 = np.int32(2 * e)
    S = np.empty(NS, dtype=np.int32)
    Pl = np.empty((1, 1), dtype=np.uint64)
    best[0] = np.iinfo(np.int64).min
    best[1] = 0
    best[2] = 0
    best[3] = 0
    Ep = planes[0]
    Ec = planes[1]
    Ep[:, :, :] = NEG
    for i in range(la + 1):
        _layer(i, a, b, c, sub, o, e2, start, init, forbid, block, Ep, Ec, S, Sl,
               keep and i == la, Pl, False)
        _read(end, i, la, Ec, best)
        Ep, Ec = Ec, Ep


@pjit
def score_batch(codes, offsets, trip, sub, o, e, mode, out, nchunks):
    """Scores of many triplets, in parallel over ``nchunks`` interleaved chunks.

    Each triplet is reordered so that its longest sequence runs along ``k``
    (the score does not depend on the order of the three).
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        lbm = 0
        lcm = 0
        for t in range(ch, T, nchunks):
            _, _, _, _, mid, hi = by_length(offsets, trip[t, 0], trip[t, 1], trip[t, 2])
            lbm = max(lbm, mid)
            lcm = max(lcm, hi)
        planes = _planes(lbm, lcm)
        Sl = np.empty((1, 1, NS), dtype=np.int32)
        best = np.empty(4, dtype=np.int64)
        for t in range(ch, T, nchunks):
            s0, s1, s2, _, l1, l2 = by_length(offsets, trip[t, 0], trip[t, 1], trip[t, 2])
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            c = codes[offsets[s2]:offsets[s2 + 1]]
            # the planes hold the largest triplet; reset the border of this one's shape
            p = planes[:, :l1 + 2, :l2 + 2, :]
            p[:, 0, :, :] = NEG
            p[:, :, 0, :] = NEG
            sweep(a, b, c, sub, o, e, mode, mode, 0, 0, False, p, Sl, False, best)
            out[t] = best[0]


# -- full cubes and tracebacks --------------------------------------------------

@jit
def fill_pointers(a, b, c, sub, o, e, start, init, forbid, P, best):
    """Pointer words of every cell into ``P`` (``(la+1, lb+1, lc+1)`` uint64).

    ``best`` receives ``(score, i, j, k)`` of the cell the mode reads (global:
    the far corner); returns the states of the far corner.
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    e2 = np.int32(2 * e)
    S = np.empty(NS, dtype=np.int32)
    Sl = np.empty((lb + 1, lc + 1, NS), dtype=np.int32)
    planes = _planes(lb, lc)
    Ep = planes[0]
    Ec = planes[1]
    Ep[:, :, :] = NEG
    best[0] = np.iinfo(np.int64).min
    best[1] = 0
    best[2] = 0
    best[3] = 0
    for i in range(la + 1):
        _layer(i, a, b, c, sub, o, e2, start, init, forbid, False, Ep, Ec, S, Sl, i == la,
               P[i], True)
        _read(start, i, la, Ec, best)
        Ep, Ec = Ec, Ep
    return Sl[lb, lc].copy()


@jit
def trace(start, init, P, poff, jlo, jhi, klo, khi, end_cell, end_state, moves, first):
    """Follow the pointer words ``P`` back from ``end_cell`` in state ``end_state``.

    ``P`` is flat: layer ``i`` holds the cells ``jlo[i]..jhi[i]`` x
    ``klo[i]..khi[i]`` row by row from ``P[poff[i]]`` on (a full cube, or a
    band: :func:`band_layout`). Stops at the origin (global), on a face
    (semiglobal, local) or in state 0 where it holds 0 (local). Moves go to
    ``moves[:n]`` in forward order, the start cell to ``first``; returns ``n``
    (-1 if the path leaves the cells or a global one does not start in
    ``init``). Ties were settled when the words were written: the predecessor
    state with the lowest number.
    """
    i = end_cell[0]
    j = end_cell[1]
    k = end_cell[2]
    s = np.int64(end_state)
    buf = np.empty(i + j + k + 1, dtype=np.uint8)
    n = 0
    w = P[poff[i] + (j - jlo[i]) * (khi[i] - klo[i] + 1) + k - klo[i]]
    while True:
        if start == 0 and i == 0 and j == 0 and k == 0:
            if s != init:
                return -1
            break
        if start != 0 and (i == 0 or j == 0 or k == 0):
            break
        if start == 2 and s == FRESH and (w >> np.uint64(ZERO_BIT)) & np.uint64(1):
            break
        m = np.int64(MOVE[s])
        i -= m & 1
        j -= (m >> 1) & 1
        k -= (m >> 2) & 1
        if i < 0 or j < jlo[i] or j > jhi[i] or k < klo[i] or k > khi[i] or n >= buf.shape[0]:
            return -1
        w = P[poff[i] + (j - jlo[i]) * (khi[i] - klo[i] + 1) + k - klo[i]]
        s = np.int64((w >> np.uint64(4 * EXPORT[s])) & np.uint64(15))
        buf[n] = m
        n += 1
    first[0] = i
    first[1] = j
    first[2] = k
    for t in range(n):
        moves[t] = buf[n - 1 - t]
    return n


@jit
def _full_band(la, lb, lc):
    """The band of a whole cube: every layer spans ``0..lb`` x ``0..lc``."""
    jlo = np.zeros(la + 1, dtype=np.int64)
    klo = np.zeros(la + 1, dtype=np.int64)
    jhi = np.full(la + 1, lb, dtype=np.int64)
    khi = np.full(la + 1, lc, dtype=np.int64)
    poff = np.arange(la + 2, dtype=np.int64) * ((lb + 1) * (lc + 1))
    return poff, jlo, jhi, klo, khi


@jit
def align_cube(a, b, c, sub, o, e, start, init, forbid, bonus):
    """One triplet through a full cube of pointer words: ``(score, box, moves, final state, n)``.

    Global with ``init``/``forbid``: the end state is the best of
    ``state + bonus[state]`` (``bonus`` from the reversed state after the box).
    Semiglobal/local: the cell the mode reads, its best state.
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    P = np.empty((la + 1, lb + 1, lc + 1), dtype=np.uint64)
    best = np.empty(4, dtype=np.int64)
    corner = fill_pointers(a, b, c, sub, o, e, start, init, forbid, P, best)
    es = 0
    ev = np.iinfo(np.int64).min
    if start == 0:
        for q in range(NS):
            v = np.int64(corner[q]) + bonus[q]
            if v > ev:
                ev = v
                es = q
    else:
        ev = best[0]
        es = np.int64(P[best[1], best[2], best[3]] & np.uint64(15))
    moves = np.zeros(la + lb + lc, dtype=np.uint8)
    first = np.zeros(3, dtype=np.int64)
    poff, jlo, jhi, klo, khi = _full_band(la, lb, lc)
    n = trace(start, init, P.reshape(-1), poff, jlo, jhi, klo, khi, best[1:], es, moves, first)
    box = np.empty(6, dtype=np.int64)
    box[0] = first[0]
    box[1] = first[1]
    box[2] = first[2]
    box[3] = best[1]
    box[4] = best[2]
    box[5] = best[3]
    return ev, box, moves[:max(n, 0)].copy(), es, n


# -- banded tracebacks ------------------------------------------------------------
#
# A band keeps, in layer i of a, the cells jlo[i]..jhi[i] x klo[i]..khi[i] (both
# bounds non-decreasing in i, the origin and the far corner inside, each layer's
# range starting at most one past the previous layer's end: then some path lies in
# the band). The sweep holds two layer windows, padded like the planes of a cube;
# a window's cell (j, k) of layer i sits at [j - jlo[i] + 1, k - klo[i] + 1], and
# the previous layer's cells are read at their own window's place. Cells outside a
# layer's band hold NEG, so the optimum is the best over the paths in the band.

@jit
def band_layout(jlo, jhi, klo, khi):
    """``(poff, rows, cols)`` of a band: where each layer's pointer words start in a
    flat array (``poff[la + 1]`` = the band's cells) and the window size its sweep
    needs (a layer's cells are also read at the previous layer's offsets)."""
    la = jlo.size - 1
    poff = np.empty(la + 2, dtype=np.int64)
    poff[0] = 0
    rows = 0
    cols = 0
    for i in range(la + 1):
        poff[i + 1] = poff[i] + (jhi[i] - jlo[i] + 1) * (khi[i] - klo[i] + 1)
        p = i - 1 if i > 0 else 0
        rows = max(rows, jhi[i] - jlo[p] + 2)
        cols = max(cols, khi[i] - klo[p] + 2)
    return poff, rows, cols


@jit
def fill_band(a, b, c, sub, o, e, jlo, jhi, klo, khi, poff, rows, cols, P, S, win):
    """Pointer words of a band's cells (global, fresh start) into ``P`` (flat, laid
    out by :func:`band_layout`); ``S`` receives the states of the far corner. ``win``
    (``(2, >= rows, >= cols, 13)`` int32) is the sweep's two layer windows. An empty
    ``P`` sweeps for the score alone (no pointer words)."""
    la = a.shape[0]
    point = P.shape[0] > 0
    e2 = np.int32(2 * e)
    win[:, :rows, :cols, :] = NEG
    K = np.empty(NS, dtype=np.int64)
    XK = np.empty(NS, dtype=np.int64)
    for i in range(la + 1):
        Ec = win[i % 2]
        Ep = win[1 - i % 2]
        if i >= 2:   # what layer i - 2 left in this window
            Ec[1:jhi[i - 2] - jlo[i - 2] + 2, 1:khi[i - 2] - klo[i - 2] + 2, :] = NEG
        p = i - 1 if i > 0 else 0
        ai = a[i - 1] if i > 0 else 0
        wk = khi[i] - klo[i] + 1
        for j in range(jlo[i], jhi[i] + 1):
            bj = b[j - 1] if j > 0 else 0
            sab = sub[ai, bj]
            cj = j - jlo[i] + 1
            pj = j - jlo[p] + 1
            base = poff[i] + (j - jlo[i]) * wk - klo[i]
            for k in range(klo[i], khi[i] + 1):
                ck = c[k - 1] if k > 0 else 0
                cc = k - klo[i] + 1
                if i == 0 and j == 0 and k == 0:
                    S[:] = NEG
                    S[FRESH] = 0
                else:
                    _cell(Ep, pj, k - klo[p] + 1, Ec, cj, cc, sab, sub[ai, ck], sub[bj, ck],
                          e2, o, S)
                X = Ec[cj, cc]
                if point:
                    P[base + k] = pointer_word(S, o, K, XK)
                    for x in range(NS):
                        X[x] = XK[x] >> 4
                else:
                    _exports(S, o, X)


@jit
def align_band(a, b, c, sub, o, e, jlo, jhi, klo, khi, moves, P, win):
    """The best global alignment among those whose path stays in the band:
    ``(score, n)``, its moves in ``moves[:n]`` (``n = -1``: no path in the band).
    Ties as :func:`align_cube`: the lowest-numbered best state at the far corner,
    then the predecessor states of the lowest numbers. ``P`` (at least the band's
    cells, uint64) and ``win`` (:func:`fill_band`) are work space, or empty arrays
    (then allocated here)."""
    la = a.shape[0]
    poff, rows, cols = band_layout(jlo, jhi, klo, khi)
    if P.shape[0] < poff[la + 1]:
        P = np.empty(poff[la + 1], dtype=np.uint64)
    if win.shape[1] < rows or win.shape[2] < cols:
        win = np.empty((2, rows, cols, NS), dtype=np.int32)
    S = np.empty(NS, dtype=np.int32)
    fill_band(a, b, c, sub, o, e, jlo, jhi, klo, khi, poff, rows, cols, P, S, win)
    es = 0
    for q in range(1, NS):
        if S[q] > S[es]:
            es = q
    if S[es] <= NEG // 2:
        return np.int64(S[es]), -1
    end = np.empty(3, dtype=np.int64)
    end[0] = la
    end[1] = b.shape[0]
    end[2] = c.shape[0]
    first = np.zeros(3, dtype=np.int64)
    n = trace(0, FRESH, P, poff, jlo, jhi, klo, khi, end, es, moves, first)
    return np.int64(S[es]), n


@pjit
def align_band_batch(codes, offsets, trip, bands, band_off, sub, o, e, scores, moves,
                     move_off, counts, nchunks):
    """:func:`align_band` of many triplets in parallel (``nchunks`` interleaved chunks).

    Triplet ``t`` (rows in the given order, ``trip[t, 0]`` the layers) has its band
    in ``bands[band_off[t]:band_off[t + 1]]`` (columns ``jlo, jhi, klo, khi``, one
    row per layer), its moves go to ``moves[move_off[t]:]`` and their number to
    ``counts[t]``.
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        # one work space per chunk, as large as its largest band needs
        most = 1
        rows = 1
        cols = 1
        for t in range(ch, T, nchunks):
            band = bands[band_off[t]:band_off[t + 1]]
            poff, r, c = band_layout(band[:, 0], band[:, 1], band[:, 2], band[:, 3])
            most = max(most, poff[poff.shape[0] - 1])
            rows = max(rows, r)
            cols = max(cols, c)
        P = np.empty(most, dtype=np.uint64)
        win = np.empty((2, rows, cols, NS), dtype=np.int32)
        for t in range(ch, T, nchunks):
            a = codes[offsets[trip[t, 0]]:offsets[trip[t, 0] + 1]]
            b = codes[offsets[trip[t, 1]]:offsets[trip[t, 1] + 1]]
            c = codes[offsets[trip[t, 2]]:offsets[trip[t, 2] + 1]]
            band = bands[band_off[t]:band_off[t + 1]]
            score, n = align_band(a, b, c, sub, o, e, band[:, 0], band[:, 1], band[:, 2],
                                  band[:, 3], moves[move_off[t]:move_off[t + 1]], P, win)
            scores[t] = score
            counts[t] = n


@pjit
def rescore_batch(codes, offsets, trip, boxes, moves, move_off, sub, o, e, out):
    """Natural sum-of-pairs score of each core ``boxes[t]`` aligned by
    ``moves[move_off[t]:move_off[t + 1]]`` (the definition, as
    ``Scoring.sum_of_pairs``; the check every traceback passes)."""
    for t in prange(trip.shape[0]):
        pos = np.empty(3, dtype=np.int64)
        base = np.empty(3, dtype=np.int64)
        last = np.zeros(3, dtype=np.int64)   # kind of each pair's last non-null column
        for d in range(3):
            base[d] = offsets[trip[t, d]]
            pos[d] = boxes[t, d]
        total = np.int64(0)
        for q in range(move_off[t], move_off[t + 1]):
            m = moves[q]
            p = 0
            for r1 in range(3):
                for r2 in range(r1 + 1, 3):
                    h1 = (m >> r1) & 1
                    h2 = (m >> r2) & 1
                    if h1 and h2:
                        total += sub[codes[base[r1] + pos[r1]], codes[base[r2] + pos[r2]]]
                        last[p] = 0
                    elif h1 or h2:
                        kind = 1 if h1 else 2
                        total += e
                        if last[p] != kind:
                            total += o
                        last[p] = kind
                    p += 1
            for d in range(3):
                pos[d] += (m >> d) & 1
        out[t] = total


@jit
def last_states(a, b, c, sub, o, e, init, forbid):
    """States ``(lb+1, lc+1, 13)`` of the last layer of a global sweep."""
    lb = b.shape[0]
    lc = c.shape[0]
    planes = _planes(lb, lc)
    Sl = np.empty((lb + 1, lc + 1, NS), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    sweep(a, b, c, sub, o, e, 0, 0, init, forbid, False, planes, Sl, True, best)
    return Sl


@pjit
def sweep_wavefront(a, b, c, sub, o, e, start, end, init, forbid, block, keep, best):
    """:func:`sweep` on all threads: the same ``best`` (ties included) and, with ``keep``,
    the same states of the last layer, returned (else a ``(1, 1, 13)`` placeholder).

    Row ``(i, j)`` needs rows ``(i - 1, j)``, ``(i, j - 1)`` and ``(i - 1, j - 1)``, so
    the rows of one diagonal ``i + j = d`` are independent: they run in parallel, one
    diagonal after another. Layer ``i`` lives in plane ``i % 3``. While layer ``i``
    reads rows ``j`` and ``j - 1`` of layer ``i - 1``, layer ``i + 2``, which shares
    that plane, writes its row ``j - 2``; three planes are therefore enough. Each row
    keeps the first best cell that rule ``end`` reads in it; the rows are then folded
    in ``(i, j)`` order, which gives :func:`_read`'s first cell in ``(i, j, k)`` order.
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    planes = np.full((3, lb + 2, lc + 2, NS), NEG, dtype=np.int32)
    Sl = np.empty((lb + 1, lc + 1, NS) if keep else (1, 1, NS), dtype=np.int32)
    low = np.iinfo(np.int64).min
    row_best = np.full((la + 1, lb + 1), low, dtype=np.int64)
    row_k = np.zeros((la + 1, lb + 1), dtype=np.int64)
    e2 = np.int32(2 * e)
    Pl = np.empty((1, 1), dtype=np.uint64)
    K = np.empty(0, dtype=np.int64)
    for d in range(la + lb + 1):
        lo = max(0, d - lb)
        for q in prange(min(la, d) - lo + 1):
            i = lo + q
            j = d - i
            S = np.empty(NS, dtype=np.int32)
            Ec = planes[i % 3]
            _row(i, j, a, b, c, sub, o, e2, start, init, forbid, block, planes[(i + 2) % 3],
                 Ec, S, Sl, keep and i == la, Pl, False, K, K)
            if end == 0 and (i != la or j != lb):
                continue
            # the cells rule `end` reads in this row: all, or the last one (k = lc)
            k0 = 0 if end == 2 or (end == 1 and (i == la or j == lb)) else lc
            for k in range(k0, lc + 1):
                v = np.int64(Ec[j + 1, k + 1, 0])
                if v > row_best[i, j]:
                    row_best[i, j] = v
                    row_k[i, j] = k
    best[0] = low
    best[1] = 0
    best[2] = 0
    best[3] = 0
    for i in range(la + 1):
        for j in range(lb + 1):
            if row_best[i, j] > best[0]:
                best[0] = row_best[i, j]
                best[1] = i
                best[2] = j
                best[3] = row_k[i, j]
    return Sl


def last_states_wavefront(a, b, c, sub, o, e, init, forbid):
    """:func:`last_states` on all threads (:func:`sweep_wavefront`), the same states."""
    best = np.empty(4, dtype=np.int64)
    return sweep_wavefront(a, b, c, sub, o, e, 0, 0, init, forbid, False, True, best)


@jit
def best_join(F, R, bonus):
    """The best ``F[j, k, s] + R[lb - j, lc - k, r] + bonus[s, r]``: ``(value, j, k, s, r)``.

    Ties keep the first ``(j, k, s, r)`` in that order.
    """
    lb = F.shape[0] - 1
    lc = F.shape[1] - 1
    bv = np.iinfo(np.int64).min
    bj = 0
    bk = 0
    bs = 0
    br = 0
    for j in range(lb + 1):
        for k in range(lc + 1):
            f = F[j, k]
            r = R[lb - j, lc - k]
            for s in range(NS):
                if f[s] <= NEG // 2:
                    continue
                for q in range(NS):
                    v = np.int64(f[s]) + r[q] + bonus[s, q]
                    if v > bv:
                        bv = v
                        bj = j
                        bk = k
                        bs = s
                        br = q
    return bv, bj, bk, bs, br


def end_and_start(a, b, c, sub, o, e, mode, wavefront=False):
    """Score, end cell and start cell of a semiglobal/local alignment by two sweeps.

    The end comes from the forward sweep; the start from a sweep of the
    reversed prefixes from the end cell (a fresh start there, no floor) in
    which cells on the near faces of the forward cube end every path: exactly
    the paths the forward sweep allows. With ``wavefront`` both sweeps run on
    all threads (:func:`sweep_wavefront`; the same cells).
    """
    best = np.empty(4, dtype=np.int64)

    def best_cell(x, y, z, start, init, block):
        if wavefront:
            sweep_wavefront(x, y, z, sub, o, e, start, mode, init, 0, block, False, best)
        else:
            sweep(x, y, z, sub, o, e, start, mode, init, 0, block,
                  _planes(y.shape[0], z.shape[0]), np.empty((1, 1, NS), dtype=np.int32),
                  False, best)
        return best[0], best[1:].copy()

    score, end = best_cell(a, b, c, mode, 0, False)
    rev = [x[:end[d]][::-1].copy() for d, x in enumerate((a, b, c))]
    _, back = best_cell(*rev, 0, FRESH, True)
    return score, end, end - back


# -- alignments in quadratic memory (Python drivers of the kernels above) -------

#: Largest cube (cells) traced back in full (one 8-byte pointer word per cell, 32 MB).
CUBE_CELLS = 1 << 22

_PERMS = {}


def _frame(order):
    """``(fwd, back, moves)`` for sequences renamed ``new[r] = old[order[r]]``: the state
    maps, and the map of a move's bits (bit ``r`` of the renamed sequences) back to the
    old ones (``moves[m]``, ``m`` = 0..7)."""
    key = tuple(int(x) for x in order)
    if key not in _PERMS:
        lookup = {tuple(int(x) for x in KINDS[s]): s for s in range(NS)}
        pairs = ((0, 1), (0, 2), (1, 2))
        fwd = np.empty(NS, dtype=np.int64)
        for s in range(NS):
            kinds = []
            for r1, r2 in pairs:
                o1, o2 = key[r1], key[r2]
                kind = int(KINDS[s, pairs.index((min(o1, o2), max(o1, o2)))])
                if o1 > o2 and kind:
                    kind = 3 - kind
                kinds.append(kind)
            fwd[s] = lookup[tuple(kinds)]
        back = np.empty(NS, dtype=np.int64)
        back[fwd] = np.arange(NS)
        moves = np.zeros(8, dtype=np.uint8)
        for m in range(8):
            for r in range(3):
                moves[m] |= ((m >> r) & 1) << key[r]
        _PERMS[key] = (fwd, back, moves)
    return _PERMS[key]


def global_steps(a, b, c, o, e, s_in=FRESH, r_out=FRESH, forbid=0):
    """The divide and conquer of :func:`global_moves` as a generator of the work it needs.

    It yields ``("cube", (a, b, c, s_in, forbid, r_out))`` for a cube traced in full,
    to be answered with ``(value, moves, final state)`` (:func:`align_cube` with the
    bonus of ``r_out``), and ``("split", (fwd, rev))`` for a split, each sweep
    ``(x, y, z, init, forbid)``, to be answered with ``(value, j, k, s, r)``, the
    :func:`best_join` of their last layers' states (:func:`last_states`); it returns
    ``(moves, final state, optimum)``. The CPU (:func:`global_moves`) and the GPU
    (``_gpu_affine.align_global``, which joins the states where it computed them) answer
    the same requests, so they return the same alignments.
    """
    la, lb, lc = len(a), len(b), len(c)
    if (la + 1) * (lb + 1) * (lc + 1) <= CUBE_CELLS or max(la, lb, lc) <= 1:
        value, moves, es = yield "cube", (a, b, c, s_in, forbid, r_out)
        return moves, int(es), int(value)
    order = np.argsort([-la, -lb, -lc], kind="stable")
    fwd, back, to_old = _frame(order)
    x, y, z = ((a, b, c)[q] for q in order)
    fb = sum(1 << d for d in range(3) if forbid >> int(order[d]) & 1)
    mid = len(x) // 2
    value, j, k, s, r = yield "split", ((x[:mid], y, z, int(fwd[s_in]), fb),
                                        (x[mid:][::-1].copy(), y[::-1].copy(), z[::-1].copy(),
                                         int(fwd[r_out]), 0))
    left, x1, _ = yield from global_steps(x[:mid], y[:j], z[:k], o, e, int(fwd[s_in]), int(r),
                                          fb)
    fr = (2 if fb & 2 and j == 0 else 0) | (4 if fb & 4 and k == 0 else 0)
    right, x2, _ = yield from global_steps(x[mid:], y[j:], z[k:], o, e, x1, int(fwd[r_out]), fr)
    return to_old[np.concatenate([left, right])], int(back[x2]), int(value)


def cube_answer(corner, o, r_out) -> tuple:
    """``(value, final state)`` of a cube traced in full for a ``"cube"`` request: the
    state ``q`` with the best ``corner[q] + bonus`` for ``r_out`` (the lowest on ties)."""
    v = corner.astype(np.int64) + bonus_table(o)[:, r_out]
    es = int(np.argmax(v))
    return int(v[es]), es


def drive(gen, answer):
    """Run :func:`global_steps` generator ``gen``, answering each request with
    ``answer(kind, args)``; returns what ``gen`` returns."""
    try:
        request = next(gen)
        while True:
            request = gen.send(answer(*request))
    except StopIteration as stop:
        return stop.value


def global_moves(a, b, c, sub, o, e, s_in=FRESH, r_out=FRESH, forbid=0, wavefront=False):
    """``(moves, final state, optimum)`` of an optimal global alignment.

    ``s_in`` is the state before the first column, ``r_out`` the reversed
    state after the last (the kinds of the first non-null column of each pair
    that follows); ``forbid`` faces the path may not touch after its start.
    Small cubes are traced in full; larger ones split the longest sequence in
    the middle: the best ``F[s] + R[r] + bonus[s, r]`` over the middle layer
    (forward states of the prefix, reversed states of the suffix) is a cell
    of an optimal path, and the halves are solved the same way (quadratic
    memory; :func:`global_steps`). The optimum includes the bonus for runs
    continuing into ``r_out``. With ``wavefront`` the splits' sweeps run on all
    threads (:func:`last_states_wavefront`; not from several Python threads at once).
    """
    return drive(global_steps(a, b, c, o, e, s_in, r_out, forbid),
                 lambda kind, args: cpu_answer(kind, args, sub, o, e, wavefront))


def cpu_answer(kind, args, sub, o, e, wavefront=False):
    """A request of :func:`global_steps` answered on the CPU: a ``"cube"`` by
    :func:`align_cube` (``(value, moves, final state)``), a ``"split"`` by
    :func:`best_join` of :func:`last_states` of its two sweeps (with ``wavefront``,
    :func:`last_states_wavefront`: the same states on all threads)."""
    o32, e32 = np.int32(o), np.int32(e)
    if kind == "cube":
        a, b, c, s_in, forbid, r_out = args
        value, _, moves, es, n = align_cube(a, b, c, sub, o32, e32, 0, s_in, forbid,
                                            bonus_table(o)[:, r_out].astype(np.int64))
        if n < 0:
            raise AssertionError("internal error: affine traceback left the optimal path")
        return value, moves, es
    states = last_states_wavefront if wavefront else last_states
    F, R = (states(x, y, z, sub, o32, e32, init, fb) for x, y, z, init, fb in args)
    return tuple(int(v) for v in best_join(F, R, bonus_table(o)))


def align(a, b, c, sub, o, e, mode, wavefront=False):
    """``(score, box, moves)`` of an optimal alignment in ``mode`` (0, 1, 2), quadratic memory.

    Semiglobal and local: the core's end and start come from a forward and a
    reversed sweep (:func:`end_and_start`), and the core is aligned globally
    between them, with the faces of the cube it starts on forbidden. ``wavefront``:
    see :func:`global_moves`.
    """
    la, lb, lc = len(a), len(b), len(c)
    if mode == 0:
        moves, _, score = global_moves(a, b, c, sub, o, e, wavefront=wavefront)
        return score, (0, 0, 0, la, lb, lc), moves
    if (la + 1) * (lb + 1) * (lc + 1) <= CUBE_CELLS:
        score, box, moves, _, n = align_cube(a, b, c, sub, np.int32(o), np.int32(e), mode, FRESH,
                                             0, np.zeros(NS, np.int64))
        if n < 0:
            raise AssertionError("internal error: affine traceback left the optimal path")
        return int(score), tuple(int(v) for v in box), moves
    score, end, start = end_and_start(a, b, c, sub, np.int32(o), np.int32(e), mode, wavefront)
    seqs, forbid = core_of((a, b, c), start, end)
    moves, _, _ = global_moves(*seqs, sub, o, e, FRESH, FRESH, forbid, wavefront)
    return int(score), (*(int(v) for v in start), *(int(v) for v in end)), moves


def core_of(seqs3, start, end) -> tuple:
    """``(core, forbid)`` of a semiglobal or local alignment from ``start`` to ``end``:
    the three code arrays between them, and the faces of the cube the core's path may
    not touch after its start (those where it starts on a face of the whole cube)."""
    core = tuple(q[int(start[d]):int(end[d])] for d, q in enumerate(seqs3))
    return core, sum(1 << d for d in range(3) if int(start[d]) == 0)
