"""numba kernels of the exact 3-way dynamic programme on the CPU.

The cube ``H[i, j, k]`` (``0 <= i <= la``, ``0 <= j <= lb``, ``0 <= k <= lc``)
is swept one layer ``i`` at a time; a layer is a ``(lb + 1) x (lc + 1)``
plane stored flat with row stride ``lc + 1``. Within a row ``j`` the six
predecessors that do not lie in the same row are combined in one vectorisable
pass, then a scan adds the seventh, ``H[i, j, k-1]`` (a residue of ``c``
against two gaps, always ``2 * gap``).

``start`` selects the initialisation and ``end`` where the score is read:

=============  ======================================  ==========================
start / end    initialisation                          score read
=============  ======================================  ==========================
0 / 0 global   ``H[0,0,0] = 0``; faces by recurrence   ``H[la, lb, lc]``
1 / 1 semi     ``H = 0`` on the faces i=0, j=0, k=0    max over i=la, j=lb, k=lc
2 / 2 local    as semi, and every cell ``>= 0``        max over all cells
=============  ======================================  ==========================

The tracebacks also use start 0 with end 1 or 2 on reversed sequences to find
where a semiglobal or local alignment begins.

Moves are encoded as 3-bit masks: bit 0 set when ``a`` gives a residue to the
column, bit 1 for ``b``, bit 2 for ``c`` (``7`` = all three).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._numba import jit, pjit

NEG = np.int32(-(1 << 29))

# Order in which a traceback prefers predecessors on ties: three residues,
# then pairs, then single residues.
_MOVES = np.array([7, 3, 5, 6, 1, 2, 4], dtype=np.uint8)


@jit
def _profile(c, sub):
    """``prof[x, k] = sub[x, c[k-1]]`` for ``k >= 1`` (``prof[x, 0] = 0``)."""
    K = sub.shape[0]
    lc = c.shape[0]
    prof = np.zeros((K, lc + 1), dtype=np.int32)
    for x in range(K):
        for k in range(lc):
            prof[x, k + 1] = sub[x, c[k]]
    return prof


@jit
def _row(Hp0, Hp1, Hc0, Hc1, pa, pb, sab, g2, ramp, local):
    """Cells ``k >= 1`` of row ``(i, j)`` into ``Hc1`` (``Hc1[0]`` already set).

    ``Hp0``/``Hp1`` are rows ``j-1``/``j`` of layer ``i-1``, ``Hc0`` row
    ``j-1`` of layer ``i``; ``pa[k] = sub[a_i, c_k]``, ``pb[k] = sub[b_j, c_k]``,
    ``sab = sub[a_i, b_j]``. The first loop takes the six predecessors outside
    the row (vectorised); the second adds ``H[i, j, k-1] + 2 gap`` as a running
    maximum of ``H[k] - k*2gap`` (``ramp[k] = -k*2gap``), whose only
    loop-carried operation is one max.
    """
    W = Hc1.shape[0]
    sg = np.int32(sab + g2)
    for k in range(1, W):
        pak = pa[k]
        pbk = pb[k]
        v = np.int32(Hp0[k - 1] + sab + pak + pbk)
        v = max(v, np.int32(Hp0[k] + sg))
        v = max(v, np.int32(Hp1[k - 1] + pak + g2))
        v = max(v, np.int32(Hc0[k - 1] + pbk + g2))
        v = max(v, np.int32(max(Hp1[k], Hc0[k]) + g2))
        if local:
            v = max(v, np.int32(0))
        Hc1[k] = np.int32(v + ramp[k])
    p = Hc1[0]
    for k in range(1, W):
        p = max(p, Hc1[k])
        Hc1[k] = np.int32(p - ramp[k])


@jit
def _layer(i, a, b, c, sub, g2, prof, ramp, Hp, Hc, start, local):
    """Fill layer ``i`` into ``Hc`` from layer ``i - 1`` in ``Hp`` (``Hp`` all NEG when i = 0).

    ``Hp`` and ``Hc`` are ``(lb + 1, lc + 1)`` planes.
    """
    lb = b.shape[0]
    W = c.shape[0] + 1
    ai = a[i - 1] if i > 0 else 0
    pa = prof[ai]
    if start != 0:
        if i == 0:
            Hc[:, :] = 0
            return
        Hc[0, :] = 0
    else:
        Hc[0, 0] = 0 if i == 0 else np.int32(Hp[0, 0] + g2)
        for k in range(1, W):
            v = np.int32(Hp[0, k - 1] + pa[k] + g2)
            v = max(v, np.int32(Hp[0, k] + g2))
            v = max(v, np.int32(Hc[0, k - 1] + g2))
            Hc[0, k] = v
    for j in range(1, lb + 1):
        bj = b[j - 1]
        sab = sub[ai, bj]
        if start != 0:
            Hc[j, 0] = 0
        else:
            v = np.int32(Hp[j - 1, 0] + sab + g2)
            v = max(v, np.int32(Hp[j, 0] + g2))
            v = max(v, np.int32(Hc[j - 1, 0] + g2))
            Hc[j, 0] = v
        if local:
            _row(Hp[j - 1], Hp[j], Hc[j - 1], Hc[j], pa, prof[bj], sab, g2, ramp, True)
        else:
            _row(Hp[j - 1], Hp[j], Hc[j - 1], Hc[j], pa, prof[bj], sab, g2, ramp, False)


@jit
def _consider(best, v, i, j, k):
    if v > best[0]:
        best[0] = v
        best[1] = i
        best[2] = j
        best[3] = k


@jit
def _read_end(end, i, la, Hc, best):
    """Fold the cells of layer ``i`` (a 2-D plane) that ``end`` reads into ``best`` (score, i, j, k)."""
    lb = Hc.shape[0] - 1
    lc = Hc.shape[1] - 1
    if end == 0:
        if i == la:
            best[0] = Hc[lb, lc]
            best[1] = la
            best[2] = lb
            best[3] = lc
        return
    if end == 2 or i == la:
        for j in range(lb + 1):
            row = Hc[j]
            m = row.max()
            if m > best[0]:
                for k in range(lc + 1):
                    _consider(best, row[k], i, j, k)
        return
    # end == 1, inner layer: column k = lc of every row, and the whole row j = lb
    for j in range(lb):
        _consider(best, Hc[j, lc], i, j, lc)
    for k in range(lc + 1):
        _consider(best, Hc[lb, k], i, lb, k)


@jit
def _ramp(lc, g2):
    r = np.empty(lc + 1, dtype=np.int32)
    for k in range(lc + 1):
        r[k] = -k * g2
    return r


@jit
def dp_planes(a, b, c, sub, gap, start, end, planes, best):
    """Sweep the whole cube keeping two layers; returns which plane holds layer ``la``.

    ``planes`` is ``int32 (2, >= (lb+1)*(lc+1))``; ``best`` receives
    ``(score, i, j, k)`` of the cell the ``end`` rule reads (first such cell in
    (i, j, k) order on ties).
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    n = (lb + 1) * (lc + 1)
    g2 = np.int32(2 * gap)
    prof = _profile(c, sub)
    ramp = _ramp(lc, g2)
    local = start == 2
    best[0] = np.iinfo(np.int64).min
    best[1] = 0
    best[2] = 0
    best[3] = 0
    Hp = planes[0, :n].reshape((lb + 1, lc + 1))
    Hc = planes[1, :n].reshape((lb + 1, lc + 1))
    Hp[:, :] = NEG
    cur = 1
    for i in range(la + 1):
        _layer(i, a, b, c, sub, g2, prof, ramp, Hp, Hc, start, local)
        _read_end(end, i, la, Hc, best)
        if i < la:
            Hp, Hc = Hc, Hp
            cur = 1 - cur
    return cur


@jit
def dp_cube(a, b, c, sub, gap, start, cube, best):
    """Fill the whole cube into ``cube`` (``(la+1, (lb+1)*(lc+1))``) with the
    initialisation ``start`` and read the end rule ``start`` into ``best``."""
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    n = (lb + 1) * (lc + 1)
    g2 = np.int32(2 * gap)
    prof = _profile(c, sub)
    ramp = _ramp(lc, g2)
    neg = np.full((lb + 1, lc + 1), NEG, dtype=np.int32)
    best[0] = np.iinfo(np.int64).min
    best[1] = 0
    best[2] = 0
    best[3] = 0
    for i in range(la + 1):
        Hc = cube[i, :n].reshape((lb + 1, lc + 1))
        Hp = neg if i == 0 else cube[i - 1, :n].reshape((lb + 1, lc + 1))
        _layer(i, a, b, c, sub, g2, prof, ramp, Hp, Hc, start, start == 2)
        _read_end(start, i, la, Hc, best)


@jit
def _col_score(m, x, y, z, sub, gap):
    """Sum-of-pairs score of one column given its move mask and residues."""
    s = 0
    if m & 1 and m & 2:
        s += sub[x, y]
    elif m & 1 or m & 2:
        s += gap
    if m & 1 and m & 4:
        s += sub[x, z]
    elif m & 1 or m & 4:
        s += gap
    if m & 2 and m & 4:
        s += sub[y, z]
    elif m & 2 or m & 4:
        s += gap
    return s


@jit
def trace_cube(a, b, c, sub, gap, cube, start, end_cell, moves, first):
    """Trace an optimal path back from ``end_cell`` through a filled cube.

    The path stops at the origin (global), at the first cell on a face
    ``i = 0``, ``j = 0`` or ``k = 0`` (semiglobal, local) or at a cell whose
    value is 0 (local). Writes the moves in forward order into ``moves[:n]``,
    the start cell into ``first`` and returns ``n`` (-1 if the cube is
    inconsistent, which cannot happen for a cube filled by :func:`dp_cube`).
    """
    lc = c.shape[0]
    W = lc + 1
    i = end_cell[0]
    j = end_cell[1]
    k = end_cell[2]
    n = 0
    buf = np.empty(a.shape[0] + b.shape[0] + lc, dtype=np.uint8)
    while i > 0 or j > 0 or k > 0:
        h = cube[i, j * W + k]
        if start != 0 and (i == 0 or j == 0 or k == 0):
            break
        if start == 2 and h == 0:
            break
        found = False
        for t in range(7):
            m = _MOVES[t]
            di = m & 1
            dj = (m >> 1) & 1
            dk = (m >> 2) & 1
            pi = i - di
            pj = j - dj
            pk = k - dk
            if pi < 0 or pj < 0 or pk < 0:
                continue
            x = a[pi] if di else 0
            y = b[pj] if dj else 0
            z = c[pk] if dk else 0
            if cube[pi, pj * W + pk] + _col_score(m, x, y, z, sub, gap) == h:
                buf[n] = m
                n += 1
                i = pi
                j = pj
                k = pk
                found = True
                break
        if not found:
            return -1
    first[0] = i
    first[1] = j
    first[2] = k
    for t in range(n):
        moves[t] = buf[n - 1 - t]
    return n


@jit
def by_length(offsets, s0, s1, s2):
    """The three sequence indices shortest first, and their lengths: ``(s0, s1, s2, l0, l1, l2)``.

    Ties keep the given order (three compare-and-swap steps).
    """
    l0 = offsets[s0 + 1] - offsets[s0]
    l1 = offsets[s1 + 1] - offsets[s1]
    l2 = offsets[s2 + 1] - offsets[s2]
    if l0 > l1:
        s0, s1 = s1, s0
        l0, l1 = l1, l0
    if l1 > l2:
        s1, s2 = s2, s1
        l1, l2 = l2, l1
    if l0 > l1:
        s0, s1 = s1, s0
        l0, l1 = l1, l0
    return s0, s1, s2, l0, l1, l2


@pjit
def score_batch(codes, offsets, trip, sub, gap, start, end, out, nchunks):
    """Scores of many triplets, in parallel over ``nchunks`` interleaved chunks.

    Each triplet is reordered so that its longest sequence runs along the
    vectorised axis (the score does not depend on the order of the three).
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        # buffers sized for the largest triplet of this chunk
        nmax = 1
        for t in range(ch, T, nchunks):
            _, _, _, _, mid, hi = by_length(offsets, trip[t, 0], trip[t, 1], trip[t, 2])
            nmax = max(nmax, (mid + 1) * (hi + 1))
        planes = np.empty((2, nmax), dtype=np.int32)
        best = np.empty(4, dtype=np.int64)
        for t in range(ch, T, nchunks):
            # shortest -> a, longest -> c
            s0, s1, s2, _, _, _ = by_length(offsets, trip[t, 0], trip[t, 1], trip[t, 2])
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            c = codes[offsets[s2]:offsets[s2 + 1]]
            dp_planes(a, b, c, sub, gap, start, end, planes, best)
            out[t] = best[0]


@jit
def _align_cube(a, b, c, sub, gap, mode, moves, box):
    """Full-cube alignment in any mode: fills ``moves`` and ``box``; returns (score, n)."""
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    cube = np.empty((la + 1, (lb + 1) * (lc + 1)), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    dp_cube(a, b, c, sub, gap, mode, cube, best)
    first = np.zeros(3, dtype=np.int64)
    n = trace_cube(a, b, c, sub, gap, cube, mode, best[1:], moves, first)
    box[0] = first[0]
    box[1] = first[1]
    box[2] = first[2]
    box[3] = best[1]
    box[4] = best[2]
    box[5] = best[3]
    return best[0], n


@pjit
def align_batch_cube(codes, offsets, trip, sub, gap, mode, scores, boxes, moves, move_off, nchunks):
    """Tracebacks of many small triplets, each through a full cube.

    For triplet ``t`` the moves of the aligned core go to
    ``moves[move_off[t]:move_off[t+1]]`` (unused tail set to 0), the score to
    ``scores[t]`` and the core's box ``(i0, j0, k0, i1, j1, k1)`` to ``boxes[t]``.
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        box = np.empty(6, dtype=np.int64)
        for t in range(ch, T, nchunks):
            a = codes[offsets[trip[t, 0]]:offsets[trip[t, 0] + 1]]
            b = codes[offsets[trip[t, 1]]:offsets[trip[t, 1] + 1]]
            c = codes[offsets[trip[t, 2]]:offsets[trip[t, 2] + 1]]
            mv = moves[move_off[t]:move_off[t + 1]]
            mv[:] = 0
            score, n = _align_cube(a, b, c, sub, gap, mode, mv, box)
            scores[t] = score
            for q in range(6):
                boxes[t, q] = box[q]


@jit
def align_cube(a, b, c, sub, gap, mode):
    """One triplet through a full cube: ``(score, box, moves)``."""
    moves = np.zeros(a.shape[0] + b.shape[0] + c.shape[0], dtype=np.uint8)
    box = np.empty(6, dtype=np.int64)
    score, n = _align_cube(a, b, c, sub, gap, mode, moves, box)
    return score, box, moves[:n].copy()


@jit
def origin_sweep(a, b, c, sub, gap, mode):
    """Semiglobal/local sweep that carries, for every cell, where its best path starts.

    Returns ``(score, end_cell, start_cell)`` of an optimal alignment, with the
    same end cell as the score kernels read. Scalar and about ten times slower
    than :func:`dp_planes`; used only for tracebacks too large for a full cube.
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    W = lc + 1
    n = (lb + 1) * W
    Hp = np.full(n, NEG, dtype=np.int32)
    Hc = np.empty(n, dtype=np.int32)
    Op = np.zeros(n, dtype=np.int64)
    Oc = np.zeros(n, dtype=np.int64)
    best = np.empty(4, dtype=np.int64)
    best[0] = np.iinfo(np.int64).min
    best_origin = np.int64(0)
    for i in range(la + 1):
        for j in range(lb + 1):
            for k in range(lc + 1):
                here = (np.int64(i) * (lb + 1) + j) * W + k
                if i == 0 or j == 0 or k == 0:
                    Hc[j * W + k] = 0
                    Oc[j * W + k] = here
                    continue
                v = np.int64(NEG)
                o = np.int64(0)
                for t in range(7):
                    m = _MOVES[t]
                    di = m & 1
                    dj = (m >> 1) & 1
                    dk = (m >> 2) & 1
                    x = a[i - 1] if di else 0
                    y = b[j - 1] if dj else 0
                    z = c[k - 1] if dk else 0
                    q = (j - dj) * W + (k - dk)
                    if di:
                        cand = Hp[q] + _col_score(m, x, y, z, sub, gap)
                        oc = Op[q]
                    else:
                        cand = Hc[q] + _col_score(m, x, y, z, sub, gap)
                        oc = Oc[q]
                    if cand > v:
                        v = cand
                        o = oc
                if mode == 2 and v <= 0:
                    v = 0
                    o = here
                Hc[j * W + k] = v
                Oc[j * W + k] = o
        # the end rule, in the same order as _read_end
        for j in range(lb + 1):
            for k in range(lc + 1):
                if mode == 2 or i == la or j == lb or k == lc:
                    if Hc[j * W + k] > best[0]:
                        best[0] = Hc[j * W + k]
                        best[1] = i
                        best[2] = j
                        best[3] = k
                        best_origin = Oc[j * W + k]
        Hp, Hc = Hc, Hp
        Op, Oc = Oc, Op
    start = np.empty(3, dtype=np.int64)
    start[2] = best_origin % W
    rest = best_origin // W
    start[1] = rest % (lb + 1)
    start[0] = rest // (lb + 1)
    return best[0], best[1:].copy(), start


@jit
def end_and_start(a, b, c, sub, gap, mode):
    """Score, end cell and start cell of a semiglobal/local alignment by two plane sweeps.

    The end comes from the forward sweep; the start from a sweep of the reversed
    prefixes that begins at the end cell (fixed start, no floor) and is read over
    the near faces (semiglobal) or everywhere (local). Exact only when no column
    that can lie on a face scores above 0 (``max(sub) + 2*gap <= 0`` and
    ``gap <= 0``): then a path never gains by running along a face. The caller
    checks; :func:`origin_sweep` covers the other cases.
    """
    lb = b.shape[0]
    lc = c.shape[0]
    planes = np.empty((2, (lb + 1) * (lc + 1)), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    dp_planes(a, b, c, sub, gap, mode, mode, planes, best)
    score = best[0]
    end = best[1:].copy()
    ra = a[:end[0]][::-1].copy()
    rb = b[:end[1]][::-1].copy()
    rc = c[:end[2]][::-1].copy()
    dp_planes(ra, rb, rc, sub, gap, 0, mode, planes, best)
    start = np.empty(3, dtype=np.int64)
    for d in range(3):
        start[d] = end[d] - best[1 + d]
    return score, end, start


@jit
def global_score(a, b, c, sub, gap):
    """Global score of a triplet (two planes of memory)."""
    planes = np.empty((2, (b.shape[0] + 1) * (c.shape[0] + 1)), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    dp_planes(a, b, c, sub, gap, 0, 0, planes, best)
    return best[0]


@jit
def last_plane(a, b, c, sub, gap):
    """The plane ``H[la, :, :]`` of a global sweep, shape ``(lb+1, lc+1)``."""
    lb = b.shape[0]
    lc = c.shape[0]
    planes = np.empty((2, (lb + 1) * (lc + 1)), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    cur = dp_planes(a, b, c, sub, gap, 0, 0, planes, best)
    return planes[cur, :(lb + 1) * (lc + 1)].reshape((lb + 1, lc + 1)).copy()


@jit
def alignment_rows(a, b, c, starts, ends, moves, gap):
    """The three rows (``(3, width)`` bytes) of an alignment of texts ``a, b, c`` whose
    core ``starts..ends`` is aligned by ``moves`` (bit ``q``: row ``q`` has a residue):
    the flanks before the core first, one sequence after the other with the others
    gapped, then the core, then the flanks after it the same way."""
    texts = (a, b, c)
    heads = 0
    tails = 0
    for q in range(3):
        heads += starts[q]
        tails += texts[q].size - ends[q]
    width = heads + moves.size + tails
    out = np.full((3, width), gap, dtype=np.uint8)
    col = 0
    for q in range(3):
        t = texts[q]
        for x in range(starts[q]):
            out[q, col] = t[x]
            col += 1
    pos = np.empty(3, dtype=np.int64)
    for q in range(3):
        pos[q] = starts[q]
    for m in moves:
        for q in range(3):
            if (m >> q) & 1:
                out[q, col] = texts[q][pos[q]]
                pos[q] += 1
        col += 1
    for q in range(3):
        t = texts[q]
        for x in range(ends[q], t.size):
            out[q, col] = t[x]
            col += 1
    return out
