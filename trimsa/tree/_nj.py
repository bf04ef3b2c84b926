"""numba kernels of the guide-tree module.

* :func:`band_triplet_batch`: global 3-way alignment scores restricted to a
  band around the main diagonal (not exact unless the band covers the cube);
* :func:`band_pair_batch`: the same for pairs (prior scores);
* :func:`nj_joins` and :func:`upgma_joins`: the two clustering algorithms on a
  dense distance matrix, returning the list of joins.

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

NEG = np.int32(-(1 << 29))


@jit
def _centre(i, la, lx):
    return (2 * i * lx + la) // (2 * la)


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
            s0 = trip[t, 0]
            s1 = trip[t, 1]
            s2 = trip[t, 2]
            l0 = offsets[s0 + 1] - offsets[s0]
            l1 = offsets[s1 + 1] - offsets[s1]
            l2 = offsets[s2 + 1] - offsets[s2]
            # a canonical order, longest first and ties by sequence index: the band
            # depends on which sequence is A, so the score must not depend on the order
            # the triplet is given in
            if l1 > l0 or (l1 == l0 and s1 < s0):
                s0, s1 = s1, s0
                l0, l1 = l1, l0
            if l2 > l0 or (l2 == l0 and s2 < s0):
                s0, s2 = s2, s0
                l0, l2 = l2, l0
            if l2 > l1 or (l2 == l1 and s2 < s1):
                s1, s2 = s2, s1
                l1, l2 = l2, l1
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            c = codes[offsets[s2]:offsets[s2 + 1]]
            out[t] = band_triplet(a, b, c, sub, gap, w, P, C)


@jit
def band_pair(a, b, sub, gap, w, P, C):
    """Banded global pairwise score of ``a`` (the longer) and ``b``."""
    la = a.shape[0]
    lb = b.shape[0]
    W = 2 * w + 1
    P[:] = NEG
    C[:] = NEG
    pj0 = -w
    for u in range(W):
        j = pj0 + u
        if j < 0 or j > lb:
            continue
        P[u + 1] = 0 if j == 0 else P[u] + gap
    for i in range(1, la + 1):
        j0 = _centre(i, la, lb) - w
        dj = j0 - pj0
        ai = a[i - 1]
        for u in range(W):
            j = j0 + u
            if j < 0 or j > lb:
                C[u + 1] = NEG
                continue
            bj = b[j - 1] if j > 0 else b[0]
            pu = u + 1 + dj
            best = P[pu] + gap
            best = max(best, P[pu - 1] + sub[ai, bj])
            best = max(best, C[u] + gap)
            if best < NEG:
                best = NEG
            C[u + 1] = best
        P, C = C, P
        pj0 = j0
    return np.int64(P[lb - pj0 + 1])


@pjit
def band_pair_batch(codes, offsets, pairs, sub, gap, w, out):
    """Banded global scores of the pairs ``pairs`` (rows of 2 indices) into ``out``."""
    T = pairs.shape[0]
    W2 = 2 * w + 3
    nchunks = min(T, 64)
    for ch in prange(nchunks):
        P = np.empty(W2, dtype=np.int32)
        C = np.empty(W2, dtype=np.int32)
        for t in range(ch, T, nchunks):
            s0 = pairs[t, 0]
            s1 = pairs[t, 1]
            l0 = offsets[s0 + 1] - offsets[s0]
            l1 = offsets[s1 + 1] - offsets[s1]
            if l1 > l0 or (l1 == l0 and s1 < s0):   # canonical order, as the triplets
                s0, s1 = s1, s0
            a = codes[offsets[s0]:offsets[s0 + 1]]
            b = codes[offsets[s1]:offsets[s1 + 1]]
            out[t] = band_pair(a, b, sub, gap, w, P, C)


@jit
def nj_joins(D):
    """Neighbour-joining on the symmetric matrix ``D`` (modified in place).

    Returns ``(joins, lengths)``: ``joins[s] = (x, y)`` node ids joined at step
    ``s`` into node ``n + s`` with branch lengths ``lengths[s]``; the last row
    joins the remaining three nodes ``(x, y, z)`` at the unrooted centre
    (``joins[-1, 2]`` and ``lengths[-1, 2]`` are used only there).
    """
    n = D.shape[0]
    joins = np.full((n - 2, 3), -1, dtype=np.int64)
    lengths = np.zeros((n - 2, 3), dtype=np.float64)
    node = np.arange(n)          # node id held by each slot
    act = np.arange(n)           # active slots (first m entries)
    r = np.zeros(n)
    for x in range(n):
        s = 0.0
        for y in range(n):
            if y != x:
                s += D[x, y]
        r[x] = s
    m = n
    step = 0
    while m > 3:
        best = np.inf
        bi = 0
        bj = 1
        for p in range(m):
            x = act[p]
            rx = r[x]
            for q in range(p + 1, m):
                y = act[q]
                val = (m - 2) * D[x, y] - rx - r[y]
                if val < best:
                    best = val
                    bi = p
                    bj = q
        x = act[bi]
        y = act[bj]
        dxy = D[x, y]
        lx = 0.5 * dxy + (r[x] - r[y]) / (2.0 * (m - 2))
        ly = dxy - lx
        joins[step, 0] = node[x]
        joins[step, 1] = node[y]
        lengths[step, 0] = lx
        lengths[step, 1] = ly
        # the new node takes slot x; slot y leaves
        act[bj] = act[m - 1]
        m -= 1
        rnew = 0.0
        for p in range(m):
            z = act[p]
            if z == x:
                continue
            dz = 0.5 * (D[x, z] + D[y, z] - dxy)
            r[z] += dz - D[x, z] - D[y, z]
            D[x, z] = dz
            D[z, x] = dz
            rnew += dz
        r[x] = rnew
        node[x] = n + step
        step += 1
    x = act[0]
    y = act[1]
    z = act[2]
    joins[step, 0] = node[x]
    joins[step, 1] = node[y]
    joins[step, 2] = node[z]
    lengths[step, 0] = 0.5 * (D[x, y] + D[x, z] - D[y, z])
    lengths[step, 1] = 0.5 * (D[x, y] + D[y, z] - D[x, z])
    lengths[step, 2] = 0.5 * (D[x, z] + D[y, z] - D[x, y])
    return joins, lengths


@jit
def upgma_joins(D):
    """UPGMA (average linkage) on ``D`` (modified in place).

    Returns ``(joins, heights)``: ``joins[s] = (x, y)`` node ids joined into
    node ``n + s`` at height ``heights[s]`` (half the distance of the pair).
    """
    n = D.shape[0]
    joins = np.zeros((n - 1, 2), dtype=np.int64)
    heights = np.zeros(n - 1, dtype=np.float64)
    node = np.arange(n)
    size = np.ones(n)
    act = np.arange(n)
    m = n
    for step in range(n - 1):
        best = np.inf
        bi = 0
        bj = 1
        for p in range(m):
            x = act[p]
            for q in range(p + 1, m):
                y = act[q]
                if D[x, y] < best:
                    best = D[x, y]
                    bi = p
                    bj = q
        x = act[bi]
        y = act[bj]
        joins[step, 0] = node[x]
        joins[step, 1] = node[y]
        heights[step] = 0.5 * D[x, y]
        act[bj] = act[m - 1]
        m -= 1
        nx = size[x]
        ny = size[y]
        for p in range(m):
            z = act[p]
            if z == x:
                continue
            dz = (nx * D[x, z] + ny * D[y, z]) / (nx + ny)
            D[x, z] = dz
            D[z, x] = dz
        size[x] = nx + ny
        node[x] = n + step
    return joins, heights
