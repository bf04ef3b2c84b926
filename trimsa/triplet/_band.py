"""numba kernels of the banded (not exact) scores of :mod:`trimsa.triplet.banded`.

* :func:`band_triplet_batch` (linear gaps) and :func:`band_triplet_affine_batch`
  (natural affine gaps): global 3-way alignment scores restricted to a band around
  the main diagonal (not exact unless the band covers the cube);
* :func:`band_pair_batch`: the same for pairs.

The band of half-width ``w`` keeps, in layer ``i`` of the longest sequence
``a``, the cells ``|j - cj(i)| <= w`` and ``|k - ck(i)| <= w`` where
``cj(i) = round(i |b| / |a|)`` and ``ck(i) = round(i |c| / |a|)``. The layers
are stored in ``(2w + 3) x (2w + 3)`` arrays whose border rows and columns stay
at ``NEG`` so that no bounds test is needed in the inner loop.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._numba import jit, pjit
from . import _affine

NEG = np.int32(-(1 << 29))


@jit
def _centre(i, la, lx):
    return (2 * i * lx + la) // (2 * la)


@jit
def _canonical(offsets, s0, s1, s2):
    """A triplet's sequences longest first, ties by sequence index: the band depends on
    which sequence is ``a``, so a score must not depend on the order it is given in."""
    l0 = offsets[s0 + 1] - offsets[s0]
    l1 = offsets[s1 + 1] - offsets[s1]
    l2 = offsets[s2 + 1] - offsets[s2]
    if l1 > l0 or (l1 == l0 and s1 < s0):
        s0, s1 = s1, s0
        l0, l1 = l1, l0
    if l2 > l0 or (l2 == l0 and s2 < s0):
        s0, s2 = s2, s0
        l0, l2 = l2, l0
    if l2 > l1 or (l2 == l1 and s2 < s1):
        s1, s2 = s2, s1
    return s0, s1, s2


@jit
def band_triplet(a, b, c, sub, gap, w, P, C):
    """Banded global 3-way score of ``a`` (the longest), ``b`` and ``c``.

    ``P`` and ``C`` are ``(2w + 3, 2w + 3)`` int32 scratch arrays. Within a row
    ``j`` of a layer, six predecessors are combined in one vectorisable pass
    and a scan adds the seventh (``H[i, j, k-1]``), as in the exact engine.
    """
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    W = 2 * w + 1
    g2 = np.int32(2 * gap)
    K = sub.shape[0]
    # prof[x, k + w] = sub[x, c[k - 1]] for 1 <= k <= lc, 0 elsewhere (k in -w..lc+w)
    prof = np.zeros((K, lc + 2 * w + 2), dtype=np.int32)
    for x in range(K):
        for k in range(1, lc + 1):
            prof[x, k + w] = sub[x, c[k - 1]]
    P[:, :] = NEG
    C[:, :] = NEG
    pj0 = -w
    pk0 = -w
    # layer 0: in-plane moves only
    for u in range(W):
        j = pj0 + u
        if j < 0 or j > lb:
            continue
        for v in range(W):
            k = pk0 + v
            if k < 0 or k > lc:
                continue
            if j == 0 and k == 0:
                P[u + 1, v + 1] = 0
                continue
            best = NEG
            if j > 0 and k > 0:
                best = max(best, P[u, v] + sub[b[j - 1], c[k - 1]] + g2)
            best = max(best, P[u, v + 1] + g2)
            best = max(best, P[u + 1, v] + g2)
            P[u + 1, v + 1] = best
    for i in range(1, la + 1):
        j0 = _centre(i, la, lb) - w
        k0 = _centre(i, la, lc) - w
        dj = j0 - pj0
        dk = k0 - pk0
        ai = a[i - 1]
        vlo = max(0, -k0)
        vhi = min(W, lc - k0 + 1)
        pa = prof[ai]
        for u in range(W):
            j = j0 + u
            Cu = C[u + 1]
            if j < 0 or j > lb:
                Cu[:] = NEG
                continue
            bj = b[j - 1] if j > 0 else b[0]
            sab = sub[ai, bj]
            pb = prof[bj]
            P0 = P[u + 1 + dj]
            P1 = P[u + dj]
            Cm = C[u]
            base = k0 + w
            for v in range(vlo, vhi):
                pv = v + 1 + dk
                sac = pa[base + v]
                sbc = pb[base + v]
                best = P0[pv] + g2                       # a only
                best = max(best, P1[pv] + sab + g2)      # a, b
                best = max(best, P0[pv - 1] + sac + g2)  # a, c
                best = max(best, P1[pv - 1] + sab + sac + sbc)
                best = max(best, Cm[v + 1] + g2)         # b only
                best = max(best, Cm[v] + sbc + g2)       # b, c
                Cu[v + 1] = best
            for v in range(vlo + 1, vhi):                # c only (scan)
                Cu[v + 1] = max(Cu[v + 1], Cu[v] + g2)
            for v in range(0, vlo):
                Cu[v + 1] = NEG
            for v in range(vhi, W):
                Cu[v + 1] = NEG
        P, C = C, P
        pj0 = j0
        pk0 = k0
    return np.int64(P[lb - pj0 + 1, lc - pk0 + 1])


@pjit
def band_triplet_batch(codes, offsets, trip, sub, gap, w, out):
    """Banded scores of the triplets ``trip`` (rows of 3 indices) into ``out``."""
    T = trip.shape[0]
    W2 = 2 * w + 3
    nchunks = min(T, 64)
    for ch in prange(nchunks):
        P = np.empty((W2, W2), dtype=np.int32)
        C = np.empty((W2, W2), dtype=np.int32)
        for t in range(ch, T, nchunks):
            s0, s1, s2 = _canonical(offsets, trip[t, 0], trip[t, 1], trip[t, 2])
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            c = codes[offsets[s2]:offsets[s2 + 1]]
            out[t] = band_triplet(a, b, c, sub, gap, w, P, C)


@jit
def band_triplet_affine(a, b, c, sub, go, ge, w, win):
    """Banded global 3-way score of ``a`` (the longest), ``b`` and ``c`` under natural
    affine gaps: the band of :func:`band_triplet`, swept by the exact engine's
    13-state cell (:func:`trimsa.triplet._affine.fill_band` without pointer words).
    ``win`` is a ``(2, >= 2w + 3, >= 2w + 3, 13)`` int32 scratch array."""
    la = a.shape[0]
    lb = b.shape[0]
    lc = c.shape[0]
    jlo = np.empty(la + 1, dtype=np.int64)
    jhi = np.empty(la + 1, dtype=np.int64)
    klo = np.empty(la + 1, dtype=np.int64)
    khi = np.empty(la + 1, dtype=np.int64)
    for i in range(la + 1):
        cj = _centre(i, la, lb)
        ck = _centre(i, la, lc)
        jlo[i] = max(0, cj - w)
        jhi[i] = min(lb, cj + w)
        klo[i] = max(0, ck - w)
        khi[i] = min(lc, ck + w)
    poff, rows, cols = _affine.band_layout(jlo, jhi, klo, khi)
    S = np.empty(_affine.NS, dtype=np.int32)
    _affine.fill_band(a, b, c, sub, go, ge, jlo, jhi, klo, khi, poff, rows, cols,
                      np.empty(0, dtype=np.uint64), S, win)
    return np.int64(S.max())


@pjit
def band_triplet_affine_batch(codes, offsets, trip, sub, go, ge, w, out):
    """:func:`band_triplet_affine` of the triplets ``trip`` into ``out`` (each in the
    canonical order of :func:`band_triplet_batch`)."""
    T = trip.shape[0]
    W2 = 2 * w + 3
    nchunks = min(T, 64)
    for ch in prange(nchunks):
        win = np.empty((2, W2, W2, _affine.NS), dtype=np.int32)
        for t in range(ch, T, nchunks):
            s0, s1, s2 = _canonical(offsets, trip[t, 0], trip[t, 1], trip[t, 2])
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            c = codes[offsets[s2]:offsets[s2 + 1]]
            out[t] = band_triplet_affine(a, b, c, sub, go, ge, w, win)


@jit
def band_pair(a, b, sub, go, ge, w, PM, PX, PY, CM, CX, CY):
    """Banded global pairwise score of ``a`` (the longer) and ``b`` under natural
    affine gaps: a run of ``L`` gaps scores ``go + ge L`` (linear gaps: ``go = 0``).

    Three states per cell, by the kind of the last column: ``M`` (two residues), ``X``
    (``a``'s residue against a gap) and ``Y`` (a gap against ``b``'s residue); the
    rows ``P*`` (previous) and ``C*`` (current) are ``2w + 3`` int32 scratch arrays.
    """
    la = a.shape[0]
    lb = b.shape[0]
    W = 2 * w + 1
    og = go + ge
    PM[:] = NEG
    PX[:] = NEG
    PY[:] = NEG
    CM[:] = NEG
    CX[:] = NEG
    CY[:] = NEG
    pj0 = -w
    for u in range(W):
        j = pj0 + u
        if j < 0 or j > lb:
            continue
        if j == 0:
            PM[u + 1] = 0
        else:
            PY[u + 1] = go + ge * j
    for i in range(1, la + 1):
        j0 = _centre(i, la, lb) - w
        dj = j0 - pj0
        ai = a[i - 1]
        for u in range(W):
            j = j0 + u
            if j < 0 or j > lb:
                CM[u + 1] = NEG
                CX[u + 1] = NEG
                CY[u + 1] = NEG
                continue
            pu = u + 1 + dj
            # a's residue against a gap: from the cell above
            x = max(PM[pu] + og, PX[pu] + ge, PY[pu] + og)
            CX[u + 1] = max(x, NEG)
            if j == 0:
                CM[u + 1] = NEG
                CY[u + 1] = NEG
                continue
            m = max(PM[pu - 1], PX[pu - 1], PY[pu - 1]) + sub[ai, b[j - 1]]
            CM[u + 1] = max(m, NEG)
            # a gap against b's residue: from the cell to the left
            y = max(CM[u] + og, CY[u] + ge, CX[u] + og)
            CY[u + 1] = max(y, NEG)
        PM, CM = CM, PM
        PX, CX = CX, PX
        PY, CY = CY, PY
        pj0 = j0
    e = lb - pj0 + 1
    return np.int64(max(PM[e], PX[e], PY[e]))


@pjit
def band_pair_batch(codes, offsets, pairs, sub, go, ge, w, out):
    """Banded global scores of the pairs ``pairs`` (rows of 2 indices) into ``out``."""
    T = pairs.shape[0]
    W2 = 2 * w + 3
    nchunks = min(T, 64)
    for ch in prange(nchunks):
        rows = np.empty((6, W2), dtype=np.int32)
        for t in range(ch, T, nchunks):
            s0 = pairs[t, 0]
            s1 = pairs[t, 1]
            l0 = offsets[s0 + 1] - offsets[s0]
            l1 = offsets[s1 + 1] - offsets[s1]
            if l1 > l0 or (l1 == l0 and s1 < s0):   # canonical order, as the triplets
                s0, s1 = s1, s0
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            out[t] = band_pair(a, b, sub, go, ge, w, rows[0], rows[1], rows[2], rows[3],
                               rows[4], rows[5])
