"""numba kernels of the bound-pruned exact affine 3-way programme (global mode).

Why it is exact is in docs/engine.md ("Bound-pruned cubes"). In short:

* :func:`pair_loss` fills, for a pair ``(u, v)``, the *loss* of every cell of its
  pairwise square: ``D[x, y] = UB[x, y] - opt`` (``<= 0``), where ``UB`` is the best
  global affine alignment of ``u`` and ``v`` that passes through ``(x, y)`` (a forward
  and a backward sweep of three states, the backward one knowing which gap run it
  continues) and ``opt`` the best one of all. Losses are clipped at :data:`LOSS_FLOOR`
  (a clipped loss is above the true one, so the bound stays valid).
* A 3-way alignment scores the sum of its three projections, each at most its pair's
  ``UB`` through the cell the alignment passes, so every cell ``(i, j, k)`` of an
  alignment that scores at least ``T`` has ``D_ab[i, j] + D_ac[i, k] + D_bc[j, k] >=
  T - sum(opt) = -delta``. :func:`bound_band` keeps, in each layer ``i``, the bounding
  rectangle of those cells (made monotone, so that it is a band of
  :func:`trimsa.triplet._affine.fill_band`): every alignment that scores ``T`` or more
  lies in it.
* The band's optimum is exact when it reaches ``T``. :func:`pruned_scores` guesses
  ``delta`` first (the band then also holds the pairwise optimal paths, so that some
  3-way path lies in it); when the band's best falls short of its ``T``, that best is a
  lower bound on the optimum, and a second band from it is exact.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._numba import jit, pjit
from . import _affine

NEG = np.int32(-(1 << 29))
#: Losses below this are stored as this (int16; the bound stays an upper bound).
LOSS_FLOOR = -32767


@jit
def pair_loss(u, v, sub, go, ge, D, F):
    """Losses of the cells of ``u`` x ``v`` into ``D`` (flat ``(|u| + 1) (|v| + 1)``
    int16, row ``x`` of ``u`` at ``x (|v| + 1)``); returns the optimum.

    ``F`` is ``(3, >= (|u| + 1) (|v| + 1))`` int32 scratch for the forward states:
    0 the last column holds two residues (or nothing yet), 1 ``u``'s residue against
    a gap, 2 a gap against ``v``'s. The backward state ``G_s[x, y]`` is the best score
    of the suffixes ``u[x:]``, ``v[y:]`` after a column of kind ``s`` (a gap run of the
    same kind continues without a new opening), so ``max_s F_s + G_s`` is the best
    alignment through ``(x, y)``.
    """
    n = u.shape[0]
    m = v.shape[0]
    w = m + 1
    F0 = F[0]
    F1 = F[1]
    F2 = F[2]
    og = go + ge
    for x in range(n + 1):
        for y in range(m + 1):
            q = x * w + y
            if x == 0 and y == 0:
                F0[q] = 0
                F1[q] = NEG
                F2[q] = NEG
                continue
            f0 = NEG
            f1 = NEG
            f2 = NEG
            if x > 0 and y > 0:
                p = q - w - 1
                f0 = max(F0[p], max(F1[p], F2[p])) + sub[u[x - 1], v[y - 1]]
            if x > 0:
                p = q - w
                f1 = max(F1[p] + ge, max(F0[p], F2[p]) + og)
            if y > 0:
                p = q - 1
                f2 = max(F2[p] + ge, max(F0[p], F1[p]) + og)
            F0[q] = max(f0, NEG)
            F1[q] = max(f1, NEG)
            F2[q] = max(f2, NEG)
    last = n * w + m
    opt = max(F0[last], max(F1[last], F2[last]))
    # backward rows: G[r, s, y], r = x % 2
    G = np.empty((2, 3, w), dtype=np.int32)
    for x in range(n, -1, -1):
        r = x % 2
        Gc = G[r]
        Gn = G[1 - r]
        for y in range(m, -1, -1):
            if x == n and y == m:
                g0 = np.int32(0)
                g1 = np.int32(0)
                g2 = np.int32(0)
            else:
                mt = NEG
                if x < n and y < m:
                    mt = sub[u[x], v[y]] + Gn[0, y + 1]
                gx = NEG   # u's residue against a gap, continuing a run of kind 1 or not
                if x < n:
                    gx = Gn[1, y] + ge
                gy = NEG
                if y < m:
                    gy = Gc[2, y + 1] + ge
                g0 = max(mt, max(gx, gy) + go)
                g1 = max(mt, max(gx, gy + go))
                g2 = max(mt, max(gx + go, gy))
                g0 = max(g0, NEG)
                g1 = max(g1, NEG)
                g2 = max(g2, NEG)
            Gc[0, y] = g0
            Gc[1, y] = g1
            Gc[2, y] = g2
            q = x * w + y
            ub = max(F0[q] + g0, max(F1[q] + g1, F2[q] + g2))
            D[q] = max(ub - opt, LOSS_FLOOR)
    return np.int64(opt)


@pjit
def pair_loss_batch(codes, offsets, pairs, pair_off, sub, go, ge, D, opt):
    """:func:`pair_loss` of every pair ``pairs[p]`` (two sequence indices) into
    ``D[pair_off[p]:pair_off[p + 1]]``, its optimum into ``opt[p]``."""
    P = pairs.shape[0]
    nchunks = min(P, 64)
    for ch in prange(nchunks):
        most = 1
        for p in range(ch, P, nchunks):
            most = max(most, pair_off[p + 1] - pair_off[p])
        F = np.empty((3, most), dtype=np.int32)
        for p in range(ch, P, nchunks):
            s = pairs[p, 0]
            t = pairs[p, 1]
            u = codes[offsets[s]:offsets[s + 1]]
            v = codes[offsets[t]:offsets[t + 1]]
            opt[p] = pair_loss(u, v, sub, go, ge, D[pair_off[p]:pair_off[p + 1]], F)


@jit
def _loss(D, off, rev, wide, x, y):
    """Loss of cell ``(x, y)`` of a pair stored at ``D[off:]`` with rows of ``wide``
    cells; ``rev``: the pair is stored the other way round (``(y, x)``)."""
    if rev:
        return np.int32(D[off + y * wide + x])
    return np.int32(D[off + x * wide + y])


@jit
def bound_band(la, lb, lc, D, po, pr, pw, delta, paths, jlo, jhi, klo, khi):
    """The band of the cells whose loss bound reaches ``-delta``, into ``jlo..khi``
    (``la + 1`` each); returns its cells.

    Pair ``q`` (0: ``(a, b)``, 1: ``(a, c)``, 2: ``(b, c)``) has its losses at
    ``D[po[q]:]``, stored reversed when ``pr[q]``, rows of ``pw[q]`` cells. In layer
    ``i`` the rectangle bounds the cells ``(j, k)`` with ``D_ab[i, j] + D_ac[i, k] +
    D_bc[j, k] >= -delta``; with ``paths`` also the cells of zero loss of ``(a, b)``
    and of ``(a, c)`` (the pairwise optimal paths), which keeps the band a band
    whatever ``delta`` is. The rectangles' bounds are then made non-decreasing in
    ``i`` (the upper ones by running maxima, the lower ones by running minima from the
    far end), which only adds cells.
    """
    lim = -delta
    for i in range(la + 1):
        # candidates of each coordinate alone (the other two losses are <= 0)
        jl0 = lb + 1
        jh0 = -1
        jz0 = lb + 1
        jz1 = -1
        for j in range(lb + 1):
            d = _loss(D, po[0], pr[0], pw[0], i, j)
            if d >= lim:
                jl0 = min(jl0, j)
                jh0 = j
            if d == 0:
                jz0 = min(jz0, j)
                jz1 = j
        kl0 = lc + 1
        kh0 = -1
        kz0 = lc + 1
        kz1 = -1
        for k in range(lc + 1):
            d = _loss(D, po[1], pr[1], pw[1], i, k)
            if d >= lim:
                kl0 = min(kl0, k)
                kh0 = k
            if d == 0:
                kz0 = min(kz0, k)
                kz1 = k
        jl = lb + 1
        jh = -1
        kl = lc + 1
        kh = -1
        for j in range(jl0, jh0 + 1):
            dj = _loss(D, po[0], pr[0], pw[0], i, j)
            rem = lim - dj
            if rem > 0:
                continue
            for k in range(kl0, kh0 + 1):
                dk = _loss(D, po[1], pr[1], pw[1], i, k)
                if dk < rem:
                    continue
                if dk + _loss(D, po[2], pr[2], pw[2], j, k) >= rem:
                    jl = min(jl, j)
                    jh = max(jh, j)
                    kl = min(kl, k)
                    kh = max(kh, k)
        if paths:
            jl = min(jl, jz0)
            jh = max(jh, jz1)
            kl = min(kl, kz0)
            kh = max(kh, kz1)
        jlo[i] = jl
        jhi[i] = jh
        klo[i] = kl
        khi[i] = kh
    for i in range(1, la + 1):
        jhi[i] = max(jhi[i], jhi[i - 1])
        khi[i] = max(khi[i], khi[i - 1])
    for i in range(la - 1, -1, -1):
        jlo[i] = min(jlo[i], jlo[i + 1])
        klo[i] = min(klo[i], klo[i + 1])
    cells = np.int64(0)
    for i in range(la + 1):
        if jhi[i] < jlo[i] or khi[i] < klo[i]:
            return np.int64(-1)
        cells += (jhi[i] - jlo[i] + 1) * (khi[i] - klo[i] + 1)
    return cells


@jit
def band_score(a, b, c, sub, go, ge, jlo, jhi, klo, khi, S):
    """The best global score among the paths in the band (``fill_band`` without
    pointer words)."""
    poff, rows, cols = _affine.band_layout(jlo, jhi, klo, khi)
    win = np.empty((2, rows, cols, _affine.NS), dtype=np.int32)
    _affine.fill_band(a, b, c, sub, go, ge, jlo, jhi, klo, khi, poff, rows, cols,
                      np.empty(0, dtype=np.uint64), S, win)
    return np.int64(S.max())


@jit
def _dense_score(a, b, c, sub, go, ge):
    """The exact global score by the full cube (:func:`_affine.sweep`)."""
    planes = _affine._planes(b.shape[0], c.shape[0])
    best = np.empty(4, dtype=np.int64)
    _affine.sweep(a, b, c, sub, go, ge, 0, 0, 0, 0, False, planes,
                  np.empty((1, 1, _affine.NS), dtype=np.int32), False, best)
    return best[0]


@jit
def plan_band(la, lb, lc, D, po, pr, pw, total, delta, dense, jlo, jhi, klo, khi, lower):
    """The band of a pass: ``(cells, threshold)``. ``lower`` is the best lower bound
    known (``NEG`` for none): the band is then the exact one of that bound; otherwise the
    guess ``delta`` with the pairwise optimal paths. ``cells`` is -1 when the band holds
    more than ``dense`` of the cube (the full cube is then cheaper)."""
    cube = (la + 1) * (lb + 1) * (lc + 1)
    if lower > NEG:
        cells = bound_band(la, lb, lc, D, po, pr, pw, total - lower, False, jlo, jhi, klo, khi)
        thr = lower
    else:
        cells = bound_band(la, lb, lc, D, po, pr, pw, delta, True, jlo, jhi, klo, khi)
        thr = total - delta
    if cells < 0 or cells > dense * cube:
        return np.int64(-1), thr
    return cells, thr


@jit
def _refs(t, slots, rev, pair_off, pair_opt, la, lb, lc, po, pw):
    """Where triplet ``t``'s three pairs' losses start (``po``) and their row widths
    (``pw``); returns the sum of the pairs' optima."""
    total = np.int64(0)
    for q in range(3):
        p = slots[t, q]
        po[q] = pair_off[p]
        total += pair_opt[p]
    # rows of each pair's storage: the length of its second stored sequence + 1
    pw[0] = (la if rev[t, 0] else lb) + 1
    pw[1] = (la if rev[t, 1] else lc) + 1
    pw[2] = (lb if rev[t, 2] else lc) + 1
    return total


@pjit
def pruned_scores(codes, offsets, trip, slots, rev, D, pair_off, pair_opt, sub, go, ge,
                  delta, dense, out, cells_out, nchunks):
    """Exact global affine scores of the triplets ``trip`` (rows in the order swept:
    layers of the first) into ``out``; the cells swept into ``cells_out``.

    Triplet ``t``'s pairs ``(a, b)``, ``(a, c)``, ``(b, c)`` are the stored pairs
    ``slots[t]`` (losses at ``D[pair_off[p]:]``, optimum ``pair_opt[p]``), stored the
    other way round where ``rev[t]``. First pass: the band of the guess ``delta[t]``;
    when its best reaches its threshold it is the optimum, else a second band from
    that best is exact. A band with more than ``dense`` of the cube's cells gives way
    to the full cube.
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        po = np.empty(3, dtype=np.int64)
        pw = np.empty(3, dtype=np.int64)
        S = np.empty(_affine.NS, dtype=np.int32)
        for t in range(ch, T, nchunks):
            s = trip[t]
            a = codes[offsets[s[0]]:offsets[s[0] + 1]]
            b = codes[offsets[s[1]]:offsets[s[1] + 1]]
            c = codes[offsets[s[2]]:offsets[s[2] + 1]]
            la = a.shape[0]
            lb = b.shape[0]
            lc = c.shape[0]
            total = _refs(t, slots, rev, pair_off, pair_opt, la, lb, lc, po, pw)
            jlo = np.empty(la + 1, dtype=np.int64)
            jhi = np.empty(la + 1, dtype=np.int64)
            klo = np.empty(la + 1, dtype=np.int64)
            khi = np.empty(la + 1, dtype=np.int64)
            swept = np.int64(0)
            lower = np.int64(NEG)
            score = np.int64(NEG)
            for _ in range(2):
                cells, thr = plan_band(la, lb, lc, D, po, rev[t], pw, total, delta[t], dense,
                                       jlo, jhi, klo, khi, lower)
                if cells < 0:
                    score = _dense_score(a, b, c, sub, go, ge)
                    swept += (la + 1) * (lb + 1) * (lc + 1)
                    break
                score = band_score(a, b, c, sub, go, ge, jlo, jhi, klo, khi, S)
                swept += cells
                if score >= thr:
                    break
                lower = score
            out[t] = score
            cells_out[t] = swept


@pjit
def pruned_alignments(codes, offsets, trip, slots, rev, D, pair_off, pair_opt, sub, go, ge,
                      delta, most, scores, moves, move_off, counts, cells_out, nchunks):
    """Optimal global affine alignments of ``trip`` (rows in the given order: layers of
    the first) in bands, as :func:`pruned_scores` finds their scores: triplet ``t``'s
    moves go to ``moves[move_off[t]:]``, their number to ``counts[t]``, the score to
    ``scores[t]`` and the cells swept to ``cells_out[t]``.

    Every optimal path lies in the band of the pass that ends, so the traceback, run on
    the band's pointer words with the full cube's tie rules, gives the full cube's
    alignment (docs/engine.md). A triplet whose band would hold more than ``most`` cells
    gets ``counts[t] = -2`` and is left to the caller.
    """
    T = trip.shape[0]
    for ch in prange(nchunks):
        po = np.empty(3, dtype=np.int64)
        pw = np.empty(3, dtype=np.int64)
        P = np.empty(0, dtype=np.uint64)
        win = np.empty((2, 1, 1, _affine.NS), dtype=np.int32)
        for t in range(ch, T, nchunks):
            s = trip[t]
            a = codes[offsets[s[0]]:offsets[s[0] + 1]]
            b = codes[offsets[s[1]]:offsets[s[1] + 1]]
            c = codes[offsets[s[2]]:offsets[s[2] + 1]]
            la = a.shape[0]
            lb = b.shape[0]
            lc = c.shape[0]
            total = _refs(t, slots, rev, pair_off, pair_opt, la, lb, lc, po, pw)
            jlo = np.empty(la + 1, dtype=np.int64)
            jhi = np.empty(la + 1, dtype=np.int64)
            klo = np.empty(la + 1, dtype=np.int64)
            khi = np.empty(la + 1, dtype=np.int64)
            mv = moves[move_off[t]:move_off[t + 1]]
            swept = np.int64(0)
            lower = np.int64(NEG)
            counts[t] = -2
            for _ in range(2):
                cells, thr = plan_band(la, lb, lc, D, po, rev[t], pw, total, delta[t], 1.0,
                                       jlo, jhi, klo, khi, lower)
                if cells < 0 or cells > most:
                    counts[t] = -2
                    break
                poff, rows, cols = _affine.band_layout(jlo, jhi, klo, khi)
                if P.shape[0] < cells:
                    P = np.empty(cells, dtype=np.uint64)
                if win.shape[1] < rows or win.shape[2] < cols:
                    win = np.empty((2, max(rows, win.shape[1]), max(cols, win.shape[2]),
                                    _affine.NS), dtype=np.int32)
                score, n = _affine.align_band(a, b, c, sub, go, ge, jlo, jhi, klo, khi, mv, P,
                                              win)
                swept += cells
                scores[t] = score
                counts[t] = n
                if n >= 0 and score >= thr:
                    break
                lower = score
            cells_out[t] = swept


@pjit
def bands_batch(offsets, trip, slots, rev, D, pair_off, pair_opt, delta, lower, most, rows,
                row_off, cells_out, thr_out):
    """The bands of one pass of :func:`pruned_alignments` for every triplet, stacked in
    ``rows`` (``jlo, jhi, klo, khi`` per layer, triplet ``t`` from ``row_off[t]``), for
    the GPU's banded tracebacks: the guess ``delta[t]`` where ``lower[t]`` is ``NEG``,
    else the exact band of that lower bound. ``cells_out[t]`` is -1 for a band of more
    than ``most`` cells; ``thr_out[t]`` the score that proves the band's best exact."""
    for t in prange(trip.shape[0]):
        po = np.empty(3, dtype=np.int64)
        pw = np.empty(3, dtype=np.int64)
        la = offsets[trip[t, 0] + 1] - offsets[trip[t, 0]]
        lb = offsets[trip[t, 1] + 1] - offsets[trip[t, 1]]
        lc = offsets[trip[t, 2] + 1] - offsets[trip[t, 2]]
        total = _refs(t, slots, rev, pair_off, pair_opt, la, lb, lc, po, pw)
        jlo = np.empty(la + 1, dtype=np.int64)
        jhi = np.empty(la + 1, dtype=np.int64)
        klo = np.empty(la + 1, dtype=np.int64)
        khi = np.empty(la + 1, dtype=np.int64)
        cells, thr = plan_band(la, lb, lc, D, po, rev[t], pw, total, delta[t], 1.0, jlo, jhi,
                               klo, khi, lower[t])
        if cells > most:
            cells = np.int64(-1)
        cells_out[t] = cells
        thr_out[t] = thr
        r0 = row_off[t]
        for i in range(la + 1):
            rows[r0 + i, 0] = jlo[i]
            rows[r0 + i, 1] = jhi[i]
            rows[r0 + i, 2] = klo[i]
            rows[r0 + i, 3] = khi[i]
