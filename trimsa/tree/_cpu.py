"""numba kernels of the guide-tree module.

* :func:`nj_joins` and :func:`upgma_joins`: neighbour joining and UPGMA on a
  dense distance matrix, returning the list of joins;
* :func:`kmer_bitsets` and :func:`kmer_bitset_rows`: the k-mer distance.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit


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
    """UPGMA (average linkage) on the symmetric matrix ``D`` (modified in place).

    Returns ``(joins, heights)``: ``joins[s] = (x, y)`` with ``x < y``, the node
    ids joined into node ``n + s`` at height ``heights[s]`` (half their
    distance), in order of increasing height.

    The nearest-neighbour chain (Murtagh 1983; Muellner 2011), O(n^2) time: a
    chain of nearest neighbours grows from the active cluster of lowest index
    until its last two clusters are each other's nearest; they merge, the
    merged cluster taking the higher of their two slots, and the distances to
    it are the size-weighted means. A cluster's nearest neighbour is the first
    at the least distance in slot order, except that the cluster before it on
    the chain is kept when it is at the least distance. The merges are then
    sorted by distance (stable) and labelled. These are the rules of
    ``scipy.cluster.hierarchy.linkage(method="average")``, so ties are broken
    as there and the trees equal scipy's (checked by the tests).
    """
    n = D.shape[0]
    size = np.ones(n, dtype=np.int64)
    chain = np.empty(n, dtype=np.int64)
    mx = np.empty(n - 1, dtype=np.int64)
    my = np.empty(n - 1, dtype=np.int64)
    md = np.empty(n - 1, dtype=np.float64)
    clen = 0
    for step in range(n - 1):
        if clen == 0:
            for i in range(n):
                if size[i] > 0:
                    chain[0] = i
                    break
            clen = 1
        x = 0
        y = 0
        best = np.inf
        while True:
            x = chain[clen - 1]
            if clen > 1:
                y = chain[clen - 2]
                best = D[x, y]
            else:
                y = -1
                best = np.inf
            for i in range(n):
                if size[i] == 0 or i == x:
                    continue
                if D[x, i] < best:
                    best = D[x, i]
                    y = i
            if clen > 1 and y == chain[clen - 2]:
                break
            chain[clen] = y
            clen += 1
        clen -= 2
        if x > y:
            x, y = y, x
        nx = size[x]
        ny = size[y]
        mx[step] = x
        my[step] = y
        md[step] = best
        size[x] = 0
        size[y] = nx + ny
        for i in range(n):
            if size[i] == 0 or i == y:
                continue
            d = (nx * D[x, i] + ny * D[y, i]) / (nx + ny)
            D[i, y] = d
            D[y, i] = d
    order = np.argsort(md, kind="mergesort")
    # slots to node ids: each merge's clusters are found through the merges before it
    parent = np.arange(2 * n - 1)
    joins = np.zeros((n - 1, 2), dtype=np.int64)
    heights = np.zeros(n - 1, dtype=np.float64)
    for r in range(n - 1):
        s = order[r]
        a = mx[s]
        while parent[a] != a:
            a = parent[a]
        b = my[s]
        while parent[b] != b:
            b = parent[b]
        joins[r, 0] = min(a, b)
        joins[r, 1] = max(a, b)
        heights[r] = 0.5 * md[s]
        parent[a] = n + r
        parent[b] = n + r
    return joins, heights


@jit
def kmer_bitsets(codes, offsets, k, base, nbits):
    """Which k-mers (hashed to ``nbits`` slots) each sequence holds, as ``uint64`` words.

    Returns ``(bits (n, nbits // 64), counts)``, ``counts`` = distinct slots set.
    """
    n = offsets.size - 1
    words = nbits // 64
    bits = np.zeros((n, words), np.uint64)
    counts = np.zeros(n, np.int64)
    for s in range(n):
        start = offsets[s]
        stop = offsets[s + 1]
        for p in range(start, stop - k + 1):
            v = 0
            for q in range(k):
                v = v * base + codes[p + q]
            h = v % nbits
            w = h >> 6
            b = np.uint64(1) << np.uint64(h & 63)
            if (bits[s, w] & b) == 0:
                bits[s, w] |= b
                counts[s] += 1
    return bits, counts


@jit
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@jit
def kmer_bitset_rows(bits, counts, rows, D):
    """``1 - shared distinct k-mers / min(distinct k-mers)`` for pairs ``(s, t > s)`` of
    ``rows``, written to ``D[s, t]`` and ``D[t, s]`` of the ``(n, n)`` matrix ``D``."""
    n, words = bits.shape
    for s in rows:
        a = bits[s]
        for t in range(s + 1, n):
            b = bits[t]
            shared = 0
            for w in range(words):
                shared += _popcount(a[w] & b[w])
            m = min(counts[s], counts[t])
            d = 1.0 - shared / m if m > 0 else 1.0
            D[s, t] = d
            D[t, s] = d


@jit
def symmetrize(D):
    """``D`` made symmetric in place: ``(D[i, j] + D[j, i]) / 2`` on both sides (the same
    operation as ``(D + D.T) / 2``, without its two temporary matrices)."""
    n = D.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            v = (D[i, j] + D[j, i]) / 2.0
            D[i, j] = v
            D[j, i] = v
