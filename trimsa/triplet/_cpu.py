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
def _layer(i, a, b, c, sub, g2, prof, Hp, Hc, start, local):
    """Fill layer ``i`` into ``Hc`` from layer ``i - 1`` in ``Hp`` (``Hp`` all NEG when i = 0)."""
    lb = b.shape[0]
    lc = c.shape[0]
    W = lc + 1
    if start != 0:
        if i == 0:
            Hc[:] = 0
            return
        Hc[0:W] = 0
    else:
        ai = a[i - 1] if i > 0 else 0
        pa = prof[ai]
        if i == 0:
            Hc[0] = 0
        else:
            Hc[0] = Hp[0] + g2
        for k in range(1, W):
            v = Hp[k - 1] + pa[k] + g2
            v = max(v, Hp[k] + g2)
            v = max(v, Hc[k - 1] + g2)
            Hc[k] = v
    ai = a[i - 1] if i > 0 else 0
    pa = prof[ai]
    for j in range(1, lb + 1):
        bj = b[j - 1]
        pb = prof[bj]
        sab = sub[ai, bj]
        diag_ab = sab + g2
        r0 = (j - 1) * W
        r1 = j * W
        if start != 0:
            Hc[r1] = 0
        else:
            v = Hp[r0] + diag_ab
            v = max(v, Hp[r1] + g2)
            v = max(v, Hc[r0] + g2)
            Hc[r1] = v
        # pass 1: the six predecessors outside row (i, j)
        for k in range(1, W):
            v = Hp[r0 + k - 1] + sab + pa[k] + pb[k]
            v = max(v, Hp[r0 + k] + diag_ab)
            v = max(v, Hp[r1 + k - 1] + pa[k] + g2)
            v = max(v, Hc[r0 + k - 1] + pb[k] + g2)
            v = max(v, Hp[r1 + k] + g2)
            v = max(v, Hc[r0 + k] + g2)
            if local:
                v = max(v, 0)
            Hc[r1 + k] = v
        # pass 2: H[i, j, k-1] + 2*gap, a running scan along k
        h = Hc[r1]
        for k in range(1, W):
            h = max(Hc[r1 + k], h + g2)
            Hc[r1 + k] = h


@jit
def _consider(best, v, i, j, k):
    if v > best[0]:
        best[0] = v
        best[1] = i
        best[2] = j
        best[3] = k


@jit
def _read_end(end, i, la, Hc, lb, lc, best):
    """Fold the cells of layer ``i`` that ``end`` reads into ``best`` (score, i, j, k)."""
    W = lc + 1
    if end == 0:
        if i == la:
            best[0] = Hc[lb * W + lc]
            best[1] = la
            best[2] = lb
            best[3] = lc
        return
    if end == 2 or i == la:
        for j in range(lb + 1):
            r = j * W
            m = Hc[r]
            for k in range(1, W):
                m = max(m, Hc[r + k])
            if m > best[0]:
                for k in range(W):
                    _consider(best, Hc[r + k], i, j, k)
        return
    # end == 1, inner layer: column k = lc of every row, and the whole row j = lb
    for j in range(lb):
        _consider(best, Hc[j * W + lc], i, j, lc)
    r = lb * W
    for k in range(W):
        _consider(best, Hc[r + k], i, lb, k)


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
    local = start == 2
    best[0] = np.iinfo(np.int64).min
    best[1] = 0
    best[2] = 0
    best[3] = 0
    Hp = planes[0, :n]
    Hc = planes[1, :n]
    Hp[:] = NEG
    cur = 1
    for i in range(la + 1):
        _layer(i, a, b, c, sub, g2, prof, Hp, Hc, start, local)
        _read_end(end, i, la, Hc, lb, lc, best)
        if i < la:
            Hp, Hc = Hc, Hp
            cur = 1 - cur
    return cur


@jit
def dp_cube(a, b, c, sub, gap, cube):
    """Fill the whole cube (global start) into ``cube`` of shape ``(la+1, (lb+1)*(lc+1))``."""
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    n = (lb + 1) * (lc + 1)
    g2 = np.int32(2 * gap)
    prof = _profile(c, sub)
    neg = np.full(n, NEG, dtype=np.int32)
    for i in range(la + 1):
        Hp = neg if i == 0 else cube[i - 1, :n]
        _layer(i, a, b, c, sub, g2, prof, Hp, cube[i, :n], 0, False)


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
def trace_cube(a, b, c, sub, gap, cube, moves):
    """Trace a global alignment back through a filled cube.

    Writes the moves in forward order into ``moves[:n]`` and returns ``n``.
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    W = lc + 1
    i = la
    j = lb
    k = lc
    n = 0
    buf = np.empty(la + lb + lc, dtype=np.uint8)
    while i > 0 or j > 0 or k > 0:
        h = cube[i, j * W + k]
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
        if not found:  # cannot happen for a correctly filled cube
            return -1
    for t in range(n):
        moves[t] = buf[n - 1 - t]
    return n


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
            l0 = offsets[trip[t, 0] + 1] - offsets[trip[t, 0]]
            l1 = offsets[trip[t, 1] + 1] - offsets[trip[t, 1]]
            l2 = offsets[trip[t, 2] + 1] - offsets[trip[t, 2]]
            lo = min(l0, min(l1, l2))
            hi = max(l0, max(l1, l2))
            mid = l0 + l1 + l2 - lo - hi
            nmax = max(nmax, (mid + 1) * (hi + 1))
        planes = np.empty((2, nmax), dtype=np.int32)
        best = np.empty(4, dtype=np.int64)
        for t in range(ch, T, nchunks):
            s0 = trip[t, 0]
            s1 = trip[t, 1]
            s2 = trip[t, 2]
            # order by length: shortest -> a, longest -> c
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
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            c = codes[offsets[s2]:offsets[s2 + 1]]
            dp_planes(a, b, c, sub, gap, start, end, planes, best)
            out[t] = best[0]


@jit
def _find_box(a, b, c, sub, gap, mode, planes, best, box):
    """Start and end cells of an optimal semiglobal/local alignment; returns its score.

    ``box`` receives ``(i0, j0, k0, i1, j1, k1)``. The end comes from a forward
    sweep; the start from a sweep of the reversed prefixes that ends there,
    started at that cell and read over the far faces (semiglobal) or anywhere
    (local).
    """
    dp_planes(a, b, c, sub, gap, mode, mode, planes, best)
    score = best[0]
    i1 = best[1]
    j1 = best[2]
    k1 = best[3]
    ra = a[:i1][::-1].copy()
    rb = b[:j1][::-1].copy()
    rc = c[:k1][::-1].copy()
    dp_planes(ra, rb, rc, sub, gap, 0, mode, planes, best)
    box[0] = i1 - best[1]
    box[1] = j1 - best[2]
    box[2] = k1 - best[3]
    box[3] = i1
    box[4] = j1
    box[5] = k1
    return score


@pjit
def align_batch_cube(codes, offsets, trip, sub, gap, mode, scores, boxes, moves, move_off, nchunks):
    """Tracebacks of many small triplets, each through a full cube.

    For triplet ``t`` the moves of the aligned core go to
    ``moves[move_off[t]:move_off[t+1]]`` (unused tail set to 0), the score to
    ``scores[t]`` and the core's box to ``boxes[t]`` (the whole cube for global).
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        best = np.empty(4, dtype=np.int64)
        box = np.empty(6, dtype=np.int64)
        for t in range(ch, T, nchunks):
            a = codes[offsets[trip[t, 0]]:offsets[trip[t, 0] + 1]]
            b = codes[offsets[trip[t, 1]]:offsets[trip[t, 1] + 1]]
            c = codes[offsets[trip[t, 2]]:offsets[trip[t, 2] + 1]]
            if mode == 0:
                box[0] = 0
                box[1] = 0
                box[2] = 0
                box[3] = a.shape[0]
                box[4] = b.shape[0]
                box[5] = c.shape[0]
            else:
                planes = np.empty((2, (b.shape[0] + 1) * (c.shape[0] + 1)), dtype=np.int32)
                _find_box(a, b, c, sub, gap, mode, planes, best, box)
            sa = a[box[0]:box[3]]
            sb = b[box[1]:box[4]]
            sc = c[box[2]:box[5]]
            cube = np.empty((sa.shape[0] + 1, (sb.shape[0] + 1) * (sc.shape[0] + 1)), dtype=np.int32)
            dp_cube(sa, sb, sc, sub, gap, cube)
            scores[t] = cube[sa.shape[0], cube.shape[1] - 1]
            for q in range(6):
                boxes[t, q] = box[q]
            mv = moves[move_off[t]:move_off[t + 1]]
            mv[:] = 0
            trace_cube(sa, sb, sc, sub, gap, cube, mv)


@jit
def find_box(a, b, c, sub, gap, mode):
    """:func:`_find_box` with its own buffers: ``(score, box)``."""
    planes = np.empty((2, (b.shape[0] + 1) * (c.shape[0] + 1)), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    box = np.empty(6, dtype=np.int64)
    score = _find_box(a, b, c, sub, gap, mode, planes, best, box)
    return score, box


@jit
def last_plane(a, b, c, sub, gap):
    """The plane ``H[la, :, :]`` of a global sweep, shape ``(lb+1, lc+1)``."""
    lb = b.shape[0]
    lc = c.shape[0]
    planes = np.empty((2, (lb + 1) * (lc + 1)), dtype=np.int32)
    best = np.empty(4, dtype=np.int64)
    cur = dp_planes(a, b, c, sub, gap, 0, 0, planes, best)
    return planes[cur].reshape((lb + 1, lc + 1)).copy()


@jit
def cube_moves(a, b, c, sub, gap):
    """Global alignment of a small box through a full cube: ``(score, moves)``."""
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    cube = np.empty((la + 1, (lb + 1) * (lc + 1)), dtype=np.int32)
    dp_cube(a, b, c, sub, gap, cube)
    moves = np.zeros(la + lb + lc, dtype=np.uint8)
    n = trace_cube(a, b, c, sub, gap, cube, moves)
    return cube[la, (lb + 1) * (lc + 1) - 1], moves[:n].copy()
