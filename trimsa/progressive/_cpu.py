"""numba kernels of the progressive aligner (CPU).

All kernels are ``nogil`` and serial: callers spread work over threads
(:func:`trimsa.progressive.engine.in_threads`), which keeps start-up fast (a
cached ``parallel=True`` kernel takes about a second to load).
"""

from __future__ import annotations

import numpy as np
from .._numba import jit

NEG = np.float32(-1e30)

#: Path codes written by :func:`profile_dp`: a column of both profiles, a
#: column of A against gaps, a column of B against gaps.
BOTH, A_ONLY, B_ONLY = 0, 1, 2


@jit
def profile_dp(S, ra, rb, oa, ob, go, ge):
    """Best affine-gap alignment of two profiles; returns the path and its score.

    Parameters
    ----------
    S
        ``float32 (LA, LB)``: score of aligning column ``i`` of A with column
        ``j`` of B.
    ra, rb
        ``float32``: the residue (non-gap) weight fraction of each column.
    oa, ob
        ``float32`` of length ``LA + 1`` / ``LB + 1``: weight of opening a gap
        in A / B at each boundary between columns (``oa[i]`` lies before A's
        column ``i``; ``oa[LA]`` after the last one). The caller folds the
        terminal-gap factor into the first and last entries.
    go, ge
        Gap open and extension penalties (positive; subtracted). A gap in B
        opposite A's column ``i`` costs ``ge * ra[i]`` per column, and
        ``go * ra[i] * ob[j]`` where the run opens at B's boundary ``j``;
        symmetric for gaps in A.

    Returns
    -------
    path : int8 array of ``BOTH`` / ``A_ONLY`` / ``B_ONLY``, first column first.
    score : float (the optimum).
    """
    la, lb = S.shape
    # rolling rows of the three states
    Mp = np.full(lb + 1, NEG, np.float32)
    Xp = np.full(lb + 1, NEG, np.float32)
    Yp = np.full(lb + 1, NEG, np.float32)
    Mc = np.full(lb + 1, NEG, np.float32)
    Xc = np.full(lb + 1, NEG, np.float32)
    Yc = np.full(lb + 1, NEG, np.float32)
    tb = np.zeros((la + 1, lb + 1), np.uint8)
    Mp[0] = 0.0
    # row 0: only Y (gaps in A opposite B's first j columns)
    for j in range(1, lb + 1):
        ext = ge * rb[j - 1]
        opn = go * rb[j - 1] * oa[0]
        a = Mp[j - 1] - opn
        c = Yp[j - 1]
        if c >= a:
            Yp[j] = c - ext
            tb[0, j] = 2 << 4
        else:
            Yp[j] = a - ext
            tb[0, j] = 0
    for i in range(1, la + 1):
        rai = ra[i - 1]
        ext_x = ge * rai
        Mc[0] = NEG
        Yc[0] = NEG
        # column 0: only X
        opn = go * rai * ob[0]
        a = Mp[0] - opn
        c = Xp[0]
        if c >= a:
            Xc[0] = c - ext_x
            tb[i, 0] = 1 << 2
        else:
            Xc[0] = a - ext_x
            tb[i, 0] = 0
        Srow = S[i - 1]
        for j in range(1, lb + 1):
            code = 0
            # M: from the diagonal
            m = Mp[j - 1]
            src = 0
            x = Xp[j - 1]
            if x > m:
                m = x
                src = 1
            y = Yp[j - 1]
            if y > m:
                m = y
                src = 2
            Mc[j] = m + Srow[j - 1]
            code |= src
            # X: A's column i against gaps (from the row above)
            opn = go * rai * ob[j]
            best = Xp[j]
            src = 1
            a = Mp[j] - opn
            if a > best:
                best = a
                src = 0
            a = Yp[j] - opn
            if a > best:
                best = a
                src = 2
            Xc[j] = best - ext_x
            code |= src << 2
            # Y: B's column j against gaps (from the left)
            rbj = rb[j - 1]
            opn = go * rbj * oa[i]
            best = Yc[j - 1]
            src = 2
            a = Mc[j - 1] - opn
            if a > best:
                best = a
                src = 0
            a = Xc[j - 1] - opn
            if a > best:
                best = a
                src = 1
            Yc[j] = best - ge * rbj
            code |= src << 4
            tb[i, j] = code
        for j in range(lb + 1):
            Mp[j] = Mc[j]
            Xp[j] = Xc[j]
            Yp[j] = Yc[j]
    # final state
    state = 0
    score = Mp[lb]
    if Xp[lb] > score:
        score = Xp[lb]
        state = 1
    if Yp[lb] > score:
        score = Yp[lb]
        state = 2
    path = np.empty(la + lb, np.int8)
    n = 0
    i = la
    j = lb
    while i > 0 or j > 0:
        code = tb[i, j]
        if state == 0:
            nxt = code & 3
            path[n] = BOTH
            i -= 1
            j -= 1
        elif state == 1:
            nxt = (code >> 2) & 3
            path[n] = A_ONLY
            i -= 1
        else:
            nxt = (code >> 4) & 3
            path[n] = B_ONLY
            j -= 1
        n += 1
        state = nxt
    out = path[:n][::-1].copy()
    return out, score


@jit
def path_maps(path, la, lb):
    """Column positions of A's and B's columns in the merged profile."""
    ma = np.empty(la, np.int64)
    mb = np.empty(lb, np.int64)
    i = 0
    j = 0
    for c in range(path.size):
        p = path[c]
        if p == 0:
            ma[i] = c
            mb[j] = c
            i += 1
            j += 1
        elif p == 1:
            ma[i] = c
            i += 1
        else:
            mb[j] = c
            j += 1
    return ma, mb


@jit
def _sorted_kmers(codes, start, stop, k, base):
    n = stop - start - k + 1
    if n <= 0:
        return np.zeros(0, np.int64)
    out = np.empty(n, np.int64)
    for p in range(n):
        v = 0
        for q in range(k):
            v = v * base + codes[start + p + q]
        out[p] = v
    out.sort()
    return out


@jit
def all_sorted_kmers(codes, offsets, k, base):
    """Every sequence's k-mers, sorted, concatenated; and their offsets."""
    n = offsets.size - 1
    koff = np.zeros(n + 1, np.int64)
    for s in range(n):
        koff[s + 1] = koff[s] + max(offsets[s + 1] - offsets[s] - k + 1, 0)
    out = np.empty(koff[n], np.int64)
    for s in range(n):
        out[koff[s]:koff[s + 1]] = _sorted_kmers(codes, offsets[s], offsets[s + 1], k, base)
    return out, koff


@jit
def kmer_distance_rows(kms, koff, rows, out):
    """``1 - shared k-mers / min(k-mer count)`` for the pairs ``(s, t > s)`` of ``rows``.

    ``out`` is the condensed distance vector (scipy order).
    """
    n = koff.size - 1
    for s in rows:
        a = kms[koff[s]:koff[s + 1]]
        for t in range(s + 1, n):
            b = kms[koff[t]:koff[t + 1]]
            i = 0
            j = 0
            shared = 0
            while i < a.size and j < b.size:
                if a[i] == b[j]:
                    shared += 1
                    i += 1
                    j += 1
                elif a[i] < b[j]:
                    i += 1
                else:
                    j += 1
            m = min(a.size, b.size)
            d = 1.0 - shared / m if m > 0 else 1.0
            out[n * s - s * (s + 1) // 2 + (t - s - 1)] = d


@jit
def aligned_distance_rows(m, gap, rows, out):
    """Jukes-Cantor-corrected p-distances from an alignment, pairs ``(s, t > s)`` of ``rows``.

    ``m`` is ``uint8 (n, L)`` with ``gap`` for gaps; only columns where both
    rows have a residue count. A pair with no such column gets distance 1.
    """
    n, L = m.shape
    for s in rows:
        a = m[s]
        for t in range(s + 1, n):
            b = m[t]
            same = 0
            both = 0
            for c in range(L):
                x = a[c]
                y = b[c]
                if x != gap and y != gap:
                    both += 1
                    if x == y:
                        same += 1
            if both == 0:
                d = 1.0
            else:
                p = 1.0 - same / both
                q = 1.0 - 4.0 * p / 3.0
                d = -0.75 * np.log(q) if q > 0.05 else -0.75 * np.log(0.05)
            out[n * s - s * (s + 1) // 2 + (t - s - 1)] = d


@jit
def score_path(S, ra, rb, oa, ob, go, ge, path):
    """The score :func:`profile_dp` gives one given path (same model)."""
    la, lb = S.shape
    i = 0
    j = 0
    prev = -1
    total = 0.0
    for c in range(path.size):
        op = path[c]
        if op == 0:
            total += S[i, j]
            i += 1
            j += 1
        elif op == 1:
            if prev != 1:
                total -= go * ra[i] * ob[j]
            total -= ge * ra[i]
            i += 1
        else:
            if prev != 2:
                total -= go * rb[j] * oa[i]
            total -= ge * rb[j]
            j += 1
        prev = op
    return total


@jit
def split_profile(m, rows, w, k, gap):
    """Profile of the rows ``rows`` of alignment ``m`` (all-gap columns dropped).

    Returns ``(F, both, cols)``: ``F`` is ``float32 (L', k + 1)`` (residue
    fractions, gap fraction last), ``both`` the fraction with a residue here and
    in the previous kept column, ``cols`` the kept columns of ``m``.
    """
    n, L = m.shape
    keep = np.zeros(L, np.bool_)
    for r in rows:
        for c in range(L):
            if m[r, c] != gap:
                keep[c] = True
    cols = np.flatnonzero(keep)
    nc = cols.size
    F = np.zeros((nc, k + 1), np.float32)
    both = np.zeros(nc, np.float32)
    wt = 0.0
    for r in rows:
        wt += w[r]
    for r in rows:
        wr = w[r] / wt
        prev_res = True
        for q in range(nc):
            x = m[r, cols[q]]
            if x == gap:
                F[q, k] += wr
                prev_res = False
            else:
                F[q, x] += wr
                if prev_res:
                    both[q] += wr
                prev_res = True
    return F, both, cols


@jit
def _pair_map(a, b, table, go, ge, term):
    """Global affine alignment of two code arrays; ``map[x]`` = aligned residue of b or -1."""
    la = a.size
    lb = b.size
    S = np.empty((la, lb), np.float32)
    for i in range(la):
        for j in range(lb):
            S[i, j] = table[a[i], b[j]]
    ra = np.ones(la, np.float32)
    rb = np.ones(lb, np.float32)
    oa = np.ones(la + 1, np.float32)
    ob = np.ones(lb + 1, np.float32)
    oa[0] = term
    oa[la] = term
    ob[0] = term
    ob[lb] = term
    path, _score = profile_dp(S, ra, rb, oa, ob, go, ge)
    mp = np.full(la, -1, np.int32)
    i = 0
    j = 0
    same = 0
    aligned = 0
    for c in range(path.size):
        p = path[c]
        if p == 0:
            mp[i] = j
            aligned += 1
            if a[i] == b[j]:
                same += 1
            i += 1
            j += 1
        elif p == 1:
            i += 1
        else:
            j += 1
    ident = same / aligned if aligned > 0 else 0.0
    return mp, ident


@jit
def pair_maps(codes, offsets, pairs, table, go, ge, term, map_off, maps, ident):
    """All pairwise alignments of ``pairs`` (s < t): fills ``maps`` both ways.

    ``map_off[s, t]`` is where ``map_st`` (length ``len(s)``) starts in
    ``maps``; ``ident[s, t]`` receives the alignment's identity.
    """
    for p in range(pairs.shape[0]):
        s = pairs[p, 0]
        t = pairs[p, 1]
        a = codes[offsets[s]:offsets[s + 1]]
        b = codes[offsets[t]:offsets[t + 1]]
        mp, idn = _pair_map(a, b, table, go, ge, term)
        o = map_off[s, t]
        r = map_off[t, s]
        lb = b.size
        for y in range(lb):
            maps[r + y] = -1
        for x in range(a.size):
            maps[o + x] = mp[x]
            if mp[x] >= 0:
                maps[r + mp[x]] = x
        ident[s, t] = idn
        ident[t, s] = idn


@jit
def consistency_scores(la, lb, mem_a, mem_b, pos, offsets, map_off, maps, ident, w,
                       extend):
    """Weighted support of the pairwise library for each pair of profile columns.

    ``pos`` holds every sequence's current column per residue (indexed like the
    codes). A pair of residues ``x`` of ``s`` (in A) and ``y`` of ``t`` (in B)
    is supported by the direct alignment of ``s`` and ``t`` (weight: its
    identity) and, when ``extend``, through every third sequence ``u`` that
    aligns ``x`` to ``z`` and ``z`` to ``y`` (weight: the smaller identity).
    Support is averaged over the witnesses and weighted by the sequence
    weights normalised within A and B.
    """
    C = np.zeros((la, lb), np.float32)
    n = offsets.size - 1
    wa = 0.0
    for s in mem_a:
        wa += w[s]
    wb = 0.0
    for t in mem_b:
        wb += w[t]
    nw = 1.0 + (n - 2 if extend else 0)
    for s in mem_a:
        ls = offsets[s + 1] - offsets[s]
        ps = offsets[s]
        for t in mem_b:
            wst = np.float32(w[s] * w[t] / (wa * wb) / nw)
            pt = offsets[t]
            o = map_off[s, t]
            d = np.float32(ident[s, t]) * wst
            for x in range(ls):
                y = maps[o + x]
                if y >= 0:
                    C[pos[ps + x], pos[pt + y]] += d
            if extend:
                for u in range(n):
                    if u == s or u == t:
                        continue
                    e = min(ident[s, u], ident[u, t]) * wst
                    o1 = map_off[s, u]
                    o2 = map_off[u, t]
                    for x in range(ls):
                        z = maps[o1 + x]
                        if z >= 0:
                            y = maps[o2 + z]
                            if y >= 0:
                                C[pos[ps + x], pos[pt + y]] += e
    return C


@jit
def update_positions(pos, offsets, members, m):
    """Move the members' residue columns through the merge map ``m``."""
    for s in members:
        for q in range(offsets[s], offsets[s + 1]):
            pos[q] = m[pos[q]]
