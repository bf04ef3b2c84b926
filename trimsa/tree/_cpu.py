"""numba kernels of the guide-tree module.

* :func:`nj_joins` and :func:`upgma_joins`: neighbour joining and UPGMA on a
  dense distance matrix, returning the list of joins;
* :func:`kmer_bitsets`, :func:`kmer_shared`, :func:`shared_distance`,
  :func:`kmer_distance` and :func:`distance_rows`: the k-mer distance;
* :func:`kmer_neighbours`, :func:`sparse_upgma`, :func:`cluster_sums`,
  :func:`mirror_upper` and :func:`upgma_sized_joins`: UPGMA in bounded memory
  (:mod:`trimsa.tree.bounded`).
"""

from __future__ import annotations

import heapq

import numpy as np
from numba import prange, types
from numba.typed import Dict, List

from .._numba import jit, pjit

_DICT_TYPE = types.DictType(types.int64, types.int64)


#: Relative slack of the lower bounds of NJ's pruned scan (:func:`nj_joins`): a bound
#: is compared as ``bound - NJ_SLACK * scale`` so that rounding in another order of the
#: same sums never prunes a pair that could be the least.
NJ_SLACK = 1e-9


#: float32's largest value and its least normal one.
_F32_MAX = 3.4028234663852886e38
_F32_TINY = 1.1754943508222875e-38


@jit
def _f32_below(v):
    """A float32 value at most ``v`` (and within 2^-20 of it relatively, for ``v`` in
    float32's normal range)."""
    if v >= _F32_MAX:
        return np.float32(_F32_MAX)
    if v < -_F32_MAX:
        return np.float32(-np.inf)
    if abs(v) < _F32_TINY:   # subnormal: 0, or the least normal value below
        return np.float32(0.0) if v >= 0 else np.float32(-_F32_TINY)
    f = np.float32(v)
    if np.float64(f) > v:   # rounded up: step down by more than float32's rounding
        f = np.float32(v - abs(v) * 2.0 ** -20)
    return f


@jit
def _nj_sort_row(vals, ids, row_val, row_id):
    """``vals`` (distances to the nodes ``ids``) in ascending order into ``row_val``, as
    float32 values no larger than the float64 ones (:func:`_f32_below`), and their node
    ids into ``row_id``; returns how many."""
    order = np.argsort(vals, kind="mergesort")
    for k in range(order.size):
        row_val[k] = _f32_below(vals[order[k]])
        row_id[k] = ids[order[k]]
    return order.size


@jit
def _nj_scan_row(D, r, m, s, node_row, sv, si, start, length, slot_of, rmax, ub,
                 out_val, out_p, out_q):
    """The least Q of the pairs listed in the sorted row ``node_row`` of slot ``s``
    (first in (lower slot, higher slot) order among ties), its entries read until their
    lower bound passes ``ub``; leading entries of nodes gone are skipped for good."""
    k = start[node_row]
    end = length[node_row]
    while k < end and slot_of[si[node_row, k]] < 0:
        k += 1
    start[node_row] = k
    best = np.inf
    bp = -1
    bq = -1
    me = np.int64(s)
    rs = r[me]
    w = m - 2.0
    while k < end:
        low = np.float64(sv[node_row, k])   # at most the distance
        bound = w * low - rs - rmax
        if bound - NJ_SLACK * (abs(w * low) + abs(rs) + abs(rmax)) > ub:
            break
        t = slot_of[si[node_row, k]]
        k += 1
        if t < 0:
            continue
        p = me if me < t else t
        q = t if me < t else me
        val = w * D[p, q] - r[p] - r[q]
        if val < best or (val == best and (p < bp or (p == bp and q < bq))):
            best = val
            bp = p
            bq = q
    out_val[me] = best
    out_p[me] = bp
    out_q[me] = bq


@pjit
def nj_joins(D):
    """Neighbour-joining on the symmetric matrix ``D`` (overwritten): each step joins
    the first pair of least ``Q = (m - 2) D[p, q] - r[p] - r[q]`` in the order of the
    active slots (``p < q``, row by row), ``r`` the rows' sums.

    The active nodes are kept in the first ``m`` rows and columns of ``D``: a join puts
    the new node in the first node's slot and moves the last slot into the second's.
    The search is pruned with RapidNJ's bound: every pair of nodes is listed once, in a
    row of the younger one (of the first ``n`` nodes: the one of lower index) sorted by
    distance; a row is read on all threads until ``(m - 2) d - r_s - max r`` passes an
    upper bound of the least Q (the least Q of each row's first pair), as no later pair
    of the row can beat it. Distances between nodes never change once made, so a row
    stays sorted; entries of joined nodes are skipped. Q is computed as a full scan
    computes it (the lower slot's row sum first), and ties go to the first pair of the
    full scan: the joins and lengths are those of the plain scan, bit for bit. Memory:
    ``D`` and the sorted rows (4-byte distances rounded down and 4-byte node ids).

    Returns ``(joins, lengths)``: ``joins[s] = (x, y)`` node ids joined at step
    ``s`` into node ``n + s`` with branch lengths ``lengths[s]``; the last row
    joins the remaining three nodes ``(x, y, z)`` at the unrooted centre
    (``joins[-1, 2]`` and ``lengths[-1, 2]`` are used only there).
    """
    n = D.shape[0]
    joins = np.full((n - 2, 3), -1, dtype=np.int64)
    lengths = np.zeros((n - 2, 3), dtype=np.float64)
    node = np.arange(n)
    r = np.zeros(n)
    for x in range(n):
        s = 0.0
        for y in range(n):
            if y != x:
                s += D[x, y]
        r[x] = s
    slot_of = np.full(2 * n, -1, dtype=np.int64)
    slot_of[:n] = np.arange(n)
    sv = np.empty((n, n), dtype=np.float32)
    si = np.empty((n, n), dtype=np.int32)
    start = np.zeros(n, dtype=np.int64)
    length = np.zeros(n, dtype=np.int64)
    row_of = np.arange(n)         # storage row of each slot
    for i in prange(n):
        cnt = n - 1 - i
        vals = np.empty(cnt)
        ids = np.empty(cnt, dtype=np.int64)
        for k in range(cnt):
            j = i + 1 + k
            vals[k] = min(D[i, j], D[j, i])
            ids[k] = j
        length[i] = _nj_sort_row(vals, ids, sv[i], si[i])
    m = n
    step = 0
    out_val = np.empty(n)
    out_p = np.zeros(n, dtype=np.int64)
    out_q = np.zeros(n, dtype=np.int64)
    dy = np.empty(n)
    while m > 3:
        rmax = -np.inf
        for s in range(m):
            rmax = max(rmax, r[s])
        # an upper bound of the least Q: each row's first pair
        ub = np.inf
        for s in range(m):
            h = row_of[s]
            k = start[h]
            while k < length[h] and slot_of[si[h, k]] < 0:
                k += 1
            start[h] = k
            if k < length[h]:
                t = slot_of[si[h, k]]
                p = min(s, t)
                q = max(s, t)
                ub = min(ub, (m - 2.0) * D[p, q] - r[p] - r[q])
        for s in prange(m):
            _nj_scan_row(D, r, m, s, row_of[s], sv, si, start, length, slot_of, rmax, ub,
                         out_val, out_p, out_q)
        best = np.inf
        bi = -1
        bj = -1
        for s in range(m):
            v = out_val[s]
            p = out_p[s]
            q = out_q[s]
            if p < 0:
                continue
            if v < best or (v == best and (p < bi or (p == bi and q < bj))):
                best = v
                bi = p
                bj = q
        dxy = D[bi, bj]
        lx = 0.5 * dxy + (r[bi] - r[bj]) / (2.0 * (m - 2))
        ly = dxy - lx
        joins[step, 0] = node[bi]
        joins[step, 1] = node[bj]
        lengths[step, 0] = lx
        lengths[step, 1] = ly
        slot_of[node[bi]] = -1
        slot_of[node[bj]] = -1
        for p in range(m):
            dy[p] = D[bj, p]
        last = m - 1
        if bj != last:
            for p in range(m):
                D[bj, p] = D[last, p]
            for p in range(m):
                D[p, bj] = D[p, last]
            dy[bj] = dy[last]
            r[bj] = r[last]
            node[bj] = node[last]
            row_of[bj] = row_of[last]
            slot_of[node[bj]] = bj
        m -= 1
        rnew = 0.0
        for p in range(m):
            if p == bi:
                continue
            dz = 0.5 * (D[bi, p] + dy[p] - dxy)
            r[p] += dz - D[bi, p] - dy[p]
            D[bi, p] = dz
            D[p, bi] = dz
            rnew += dz
        r[bi] = rnew
        node[bi] = n + step
        slot_of[n + step] = bi
        # the new node's row (in the joined first node's storage): every other node
        h = row_of[bi]
        vals = np.empty(m - 1)
        ids = np.empty(m - 1, dtype=np.int64)
        c = 0
        for p in range(m):
            if p != bi:
                vals[c] = D[bi, p]
                ids[c] = node[p]
                c += 1
        length[h] = _nj_sort_row(vals, ids, sv[h], si[h])
        start[h] = 0
        step += 1
    joins[step, 0] = node[0]
    joins[step, 1] = node[1]
    joins[step, 2] = node[2]
    lengths[step, 0] = 0.5 * (D[0, 1] + D[0, 2] - D[1, 2])
    lengths[step, 1] = 0.5 * (D[0, 1] + D[1, 2] - D[0, 2])
    lengths[step, 2] = 0.5 * (D[0, 2] + D[1, 2] - D[0, 1])
    return joins, lengths


def upgma_joins(D):
    """UPGMA (average linkage) on the symmetric matrix ``D`` (modified in place):
    :func:`upgma_sized_joins` with every cluster a single sequence."""
    return upgma_sized_joins(D, np.ones(D.shape[0], dtype=np.int64))


def upgma_sized_joins(D, size):
    """UPGMA (average linkage) on the symmetric matrix ``D`` (modified in place) between
    clusters of ``size`` sequences (``D``: their mean distances; ``size`` is modified).

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
    mx, my, md = _nn_chain(D, size)
    # the merges sorted by distance (stable), in NumPy: numba's mergesort costs more to
    # compile on a first run than the sort takes
    order = np.argsort(md, kind="stable")
    return _label_joins(order, mx, my, md)


@jit
def _nn_chain(D, size):
    """The merges of :func:`upgma_sized_joins` in the order the chain makes them:
    ``(mx, my, md)``, the two slots joined (``mx < my``) and their distance."""
    n = D.shape[0]
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
    return mx, my, md


@jit
def _label_joins(order, mx, my, md):
    """Slots to node ids: each merge's clusters are found through the merges before it
    (``order``: the merges by distance)."""
    n = mx.size + 1
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
def kmer_bitsets(codes, offsets, k, base, rows, bits, counts):
    """Which k-mers (hashed to ``64 * bits.shape[1]`` slots) the sequences ``rows`` hold:
    set in their rows of ``bits`` (``uint64``, zeroed), and ``counts[s]`` = distinct slots
    set."""
    nbits = bits.shape[1] * 64
    for s in rows:
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


@jit
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@jit
def kmer_shared(bits, rows, cols, idx, out):
    """``out[i, j]`` for ``i`` in ``idx``: the bits (distinct k-mers) that sequences
    ``rows[i]`` and ``cols[j]`` share (:class:`trimsa.tree.distances.KmerSets`;
    ``kernels/kmer_shared.cu`` on a GPU)."""
    words = bits.shape[1]
    for i in idx:
        s = rows[i]
        for j in range(cols.size):
            t = cols[j]
            shared = np.uint64(0)
            for w in range(words):
                shared += _popcount(bits[s, w] & bits[t, w])
            out[i, j] = shared


@jit
def shared_distance(shared, cs, ct):
    """``1 - shared / min(cs, ct)``: the k-mer distance of two sequences holding ``cs`` and
    ``ct`` distinct k-mers, ``shared`` of them in common (1 when one holds none)."""
    m = min(cs, ct)
    return 1.0 - shared / m if m > 0 else 1.0


@jit
def kmer_distance(bits, counts, s, t):
    """The k-mer distance of sequences ``s`` and ``t`` (:func:`shared_distance`)."""
    shared = np.uint64(0)
    for w in range(bits.shape[1]):
        shared += _popcount(bits[s, w] & bits[t, w])
    return shared_distance(shared, counts[s], counts[t])


@jit
def distance_rows(shared, r0, idx, counts, D):
    """From a block of shared counts (rows ``r0, r0 + 1, ...``; columns ``r0 + 1 .. n - 1``),
    the k-mer distances of pairs ``(s, t > s)`` for the block's rows ``r0 + idx``, written
    to ``D[s, t]`` and ``D[t, s]`` of the ``(n, n)`` matrix ``D``."""
    n = D.shape[0]
    for i in idx:
        s = r0 + i
        for t in range(s + 1, n):
            d = shared_distance(shared[i, t - r0 - 1], counts[s], counts[t])
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


# -- UPGMA in bounded memory (trimsa.tree.bounded) ------------------------------------

@jit
def kmer_neighbours(shared, r0, idx, counts, nb, nbd, radius):
    """From a block of shared counts (rows ``r0, r0 + 1, ...``, columns every sequence), for
    each sequence ``s = r0 + i`` of ``idx``: its ``K = nb.shape[1]`` nearest sequences by
    k-mer distance (the least distances, ties by index) in ``nb[s]``, their distances in
    ``nbd[s]``, and the largest of them in ``radius[s]``: every sequence not listed is at
    least that far from ``s``."""
    n = shared.shape[1]
    K = nb.shape[1]
    buf = np.empty(n)
    for i in idx:
        s = r0 + i
        cs = counts[s]
        for t in range(n):
            buf[t] = shared_distance(shared[i, t], cs, counts[t]) if t != s else np.inf
        thr = np.partition(buf, K - 1)[K - 1]
        c = 0
        for t in range(n):
            if buf[t] < thr:
                nb[s, c] = t
                nbd[s, c] = buf[t]
                c += 1
        for t in range(n):
            if c == K:
                break
            if buf[t] == thr:
                nb[s, c] = t
                nbd[s, c] = thr
                c += 1
        radius[s] = thr


@jit
def _bound(e, ea, eb, es, ecnt, eta, etb, size, rsum):
    """The least mean distance the clusters of entry ``e`` can have: the known distances,
    and for every pair not known the larger radius of its two sequences (summed on the
    side that gives more)."""
    a = ea[e]
    b = eb[e]
    pairs = float(size[a]) * float(size[b])
    if ecnt[e] >= pairs:
        return es[e] / pairs
    miss = max(size[b] * rsum[a] - eta[e], size[a] * rsum[b] - etb[e], 0.0)
    return (es[e] + miss) / pairs


@jit
def _second_radius(rheap, alive):
    """The second least mean radius of the live clusters (inf with fewer than two)."""
    while len(rheap) > 0 and not alive[rheap[0][1]]:
        heapq.heappop(rheap)
    if len(rheap) < 2:
        return np.inf
    top = heapq.heappop(rheap)
    while len(rheap) > 0 and not alive[rheap[0][1]]:
        heapq.heappop(rheap)
    q = rheap[0][0] if len(rheap) > 0 else np.inf
    heapq.heappush(rheap, top)
    return q


@jit
def sparse_upgma(bits, counts, nb, nbd, radius, stop):
    """UPGMA joins from the nearest-neighbour lists while more than ``stop`` clusters are
    left, each provably the join dense UPGMA makes (up to ties).

    The mean distance of two clusters joined by some listed pairs is bounded below by
    their known distances plus, for every other pair, the larger radius of its two
    sequences; clusters with no listed pair are at least the larger of their mean radii
    apart. The least bound is taken from a heap; when it is not yet exact the clusters'
    every distance is computed from the k-mer sets and it goes back; when it is exact and
    no pair without a listed distance can be nearer (the second least mean radius), the
    two clusters are joined, as UPGMA joins them.

    Returns ``(steps, joins, heights, evaluated)``: the first ``steps`` rows of ``joins``
    (node ids; node ``n + s`` is made by join ``s``) at ``heights`` (half the distance),
    in the order of UPGMA; ``evaluated`` counts the sequence pairs whose distances were
    computed to make bounds exact. Fewer joins than ``n - stop`` means the bound of the
    pairs without a listed distance was reached first.
    """
    n = nb.shape[0]
    K = nb.shape[1]
    total = 2 * n - 1
    alive = np.zeros(total, dtype=np.bool_)
    alive[:n] = True
    size = np.zeros(total, dtype=np.int64)
    size[:n] = 1
    rsum = np.zeros(total)
    rsum[:n] = radius
    head = np.full(total, -1, dtype=np.int64)
    tail = np.full(total, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    for s in range(n):
        head[s] = s
        tail[s] = s
    nbr = List.empty_list(_DICT_TYPE)
    for v in range(total):
        nbr.append(Dict.empty(key_type=types.int64, value_type=types.int64))
    ea = [0]
    eb = [0]
    es = [0.0]
    ecnt = [0.0]
    eta = [0.0]
    etb = [0.0]
    elb = [0.0]
    ea.pop()
    eb.pop()
    es.pop()
    ecnt.pop()
    eta.pop()
    etb.pop()
    elb.pop()
    for s in range(n):
        for k in range(K):
            t = nb[s, k]
            x = min(s, t)
            y = max(s, t)
            if y in nbr[x]:
                continue
            e = len(ea)
            ea.append(x)
            eb.append(y)
            es.append(nbd[s, k])
            ecnt.append(1.0)
            eta.append(radius[x])
            etb.append(radius[y])
            elb.append(0.0)
            nbr[x][y] = e
            nbr[y][x] = e
    heap = [(0.0, 0)]
    heap.pop()
    for e in range(len(ea)):
        lb = _bound(e, ea, eb, es, ecnt, eta, etb, size, rsum)
        elb[e] = lb
        heap.append((lb, e))
    heapq.heapify(heap)
    rheap = [(radius[s], s) for s in range(n)]
    heapq.heapify(rheap)
    joins = np.zeros((n - 1, 2), dtype=np.int64)
    heights = np.zeros(n - 1)
    evaluated = 0.0
    live = n
    step = 0
    while live > stop and len(heap) > 0:
        lb, e = heap[0]
        a = ea[e]
        b = eb[e]
        if not (alive[a] and alive[b]) or elb[e] != lb:
            heapq.heappop(heap)
            continue
        if lb > _second_radius(rheap, alive):
            break
        heapq.heappop(heap)
        pairs = float(size[a]) * float(size[b])
        if ecnt[e] < pairs:
            tot = 0.0
            i = head[a]
            while i >= 0:
                j = head[b]
                while j >= 0:
                    tot += kmer_distance(bits, counts, i, j)
                    j = nxt[j]
                i = nxt[i]
            evaluated += pairs
            es[e] = tot
            ecnt[e] = pairs
            eta[e] = size[b] * rsum[a]
            etb[e] = size[a] * rsum[b]
            lb = _bound(e, ea, eb, es, ecnt, eta, etb, size, rsum)
            elb[e] = lb
            heapq.heappush(heap, (lb, e))
            continue
        c = n + step
        joins[step, 0] = min(a, b)
        joins[step, 1] = max(a, b)
        heights[step] = 0.5 * lb
        alive[a] = False
        alive[b] = False
        alive[c] = True
        size[c] = size[a] + size[b]
        rsum[c] = rsum[a] + rsum[b]
        head[c] = head[a]
        nxt[tail[a]] = head[b]
        tail[c] = tail[b]
        new = nbr[c]
        for src, other in ((a, b), (b, a)):
            for x, e1 in nbr[src].items():
                if x == other:
                    continue
                t_x = eta[e1] if ea[e1] == x else etb[e1]
                t_src = etb[e1] if ea[e1] == x else eta[e1]
                if x in new:
                    e2 = new[x]
                    es[e2] += es[e1]
                    ecnt[e2] += ecnt[e1]
                    eta[e2] += t_x
                    etb[e2] += t_src
                else:
                    e2 = len(ea)
                    ea.append(x)
                    eb.append(c)
                    es.append(es[e1])
                    ecnt.append(ecnt[e1])
                    eta.append(t_x)
                    etb.append(t_src)
                    elb.append(0.0)
                    new[x] = e2
        for x, e2 in new.items():
            near = nbr[x]
            if a in near:
                del near[a]
            if b in near:
                del near[b]
            near[c] = e2
            lb2 = _bound(e2, ea, eb, es, ecnt, eta, etb, size, rsum)
            elb[e2] = lb2
            heapq.heappush(heap, (lb2, e2))
        nbr[a] = Dict.empty(key_type=types.int64, value_type=types.int64)
        nbr[b] = Dict.empty(key_type=types.int64, value_type=types.int64)
        heapq.heappush(rheap, (rsum[c] / size[c], c))
        live -= 1
        step += 1
    return step, joins, heights, evaluated


@jit
def cluster_sums(shared, p0, p1, c0, counts, order, start, slot_at, slots, M):
    """Sums of the k-mer distances between clusters, from a block of shared counts (rows the
    sequences ``order[p0:p1]``, columns ``order[c0:]``): for each cluster slot ``a`` of
    ``slots``, the block's sequences of cluster ``a`` (``order[start[a]:start[a + 1]]``)
    against every sequence of a later cluster, added to ``M[a, b]`` (``b > a``;
    ``slot_at[q]`` is the slot of ``order[q]``). Blocks taken in order of ``p0`` add each
    cell's distances in the same order whatever their size; :func:`mirror_upper` then
    copies ``M[a, b]`` to ``M[b, a]``."""
    n = order.size
    for a in slots:
        for p in range(max(start[a], p0), min(start[a + 1], p1)):
            s = order[p]
            cs = counts[s]
            for q in range(start[a + 1], n):
                M[a, slot_at[q]] += shared_distance(shared[p - p0, q - c0], cs, counts[order[q]])


@jit
def mirror_upper(M):
    """``M[b, a] = M[a, b]`` for every ``b > a``."""
    m = M.shape[0]
    for a in range(m):
        for b in range(a + 1, m):
            M[b, a] = M[a, b]
