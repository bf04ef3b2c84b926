"""numba kernels of the progressive aligner (CPU).

All kernels are ``nogil`` and serial: callers spread work over threads
(:func:`trimsa._numba.in_threads`), which keeps start-up fast (a cached
``parallel=True`` kernel takes about a second to load).
"""

from __future__ import annotations

import numpy as np
from .._numba import jit

NEG = np.float32(-1e30)

#: Path codes written by :func:`profile_dp`: a column of both profiles, a
#: column of A against gaps, a column of B against gaps.
BOTH, A_ONLY, B_ONLY = 0, 1, 2


@jit
def profile_dp(GA, FB, extra, ra, rb, oa, ob, gap_open, gap_extend, out):
    """Best affine-gap alignment of two profiles; returns the path and its score.

    Parameters
    ----------
    GA, FB, extra
        The score of aligning column ``i`` of A with column ``j`` of B is
        ``GA[i] . FB[j]`` (``GA`` = A's profile times the score table, both
        ``float32 (L, K)``), plus ``extra[i, j]`` when ``extra`` is not empty
        (``float32 (LA, LB)`` or ``(0, 0)``). Computing it on the fly keeps
        memory at the traceback's ``LA * LB`` bytes.
    ra, rb
        ``float32``: the residue (non-gap) weight fraction of each column.
    oa, ob
        ``float32`` of length ``LA + 1`` / ``LB + 1``: weight of opening a gap
        in A / B at each boundary between columns (``oa[i]`` lies before A's
        column ``i``; ``oa[LA]`` after the last one). The caller folds the
        terminal-gap factor into the first and last entries.
    gap_open, gap_extend
        Gap scores (<= 0; added). A gap in B opposite A's column ``i`` adds
        ``gap_extend * ra[i]`` per column, and ``gap_open * ra[i] * ob[j]``
        where the run opens at B's boundary ``j``; symmetric for gaps in A.

    out
        ``int8`` array of at least ``LA + LB`` entries: receives the path
        (``BOTH`` / ``A_ONLY`` / ``B_ONLY``, first column first).

    Returns
    -------
    length : int (of the path in ``out``).
    score : float (the optimum).

    Only scalars are returned: numba's conversion of a returned array to
    Python is not safe when several threads return arrays at once.
    """
    la = GA.shape[0]
    lb = FB.shape[0]
    kk = GA.shape[1]
    has_extra = extra.shape[0] > 0
    srow = np.empty(lb, np.float32)
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
        ext = gap_extend * rb[j - 1]
        opn = gap_open * rb[j - 1] * oa[0]
        a = Mp[j - 1] + opn
        c = Yp[j - 1]
        if c >= a:
            Yp[j] = c + ext
            tb[0, j] = 2 << 4
        else:
            Yp[j] = a + ext
            tb[0, j] = 0
    gb = np.empty(lb, np.float32)  # gap_open * rb (open weight before oa)
    eb = np.empty(lb, np.float32)  # gap_extend * rb
    for j in range(lb):
        gb[j] = gap_open * rb[j]
        eb[j] = gap_extend * rb[j]
    for i in range(1, la + 1):
        rai = ra[i - 1]
        ext_x = gap_extend * rai
        gx = gap_open * rai
        oai = oa[i]
        # column 0: only X
        opn = gx * ob[0]
        a = Mp[0] + opn
        c = Xp[0]
        if c >= a:
            Xc[0] = c + ext_x
            tb[i, 0] = 1 << 2
        else:
            Xc[0] = a + ext_x
            tb[i, 0] = 0
        Mc[0] = NEG
        Yc[0] = NEG
        g = GA[i - 1]
        for j in range(lb):
            acc = np.float32(0.0)
            f = FB[j]
            for q in range(kk):
                acc += g[q] * f[q]
            if has_extra:
                acc += extra[i - 1, j]
            srow[j] = acc
        tbi = tb[i]
        m_left = NEG  # Mc[j - 1]
        x_left = Xc[0]  # Xc[j - 1]
        y_left = NEG  # Yc[j - 1]
        for j in range(1, lb + 1):
            # M: from the diagonal
            m = Mp[j - 1]
            code = 0
            x = Xp[j - 1]
            if x > m:
                m = x
                code = 1
            y = Yp[j - 1]
            if y > m:
                m = y
                code = 2
            m_new = m + srow[j - 1]
            # X: A's column i against gaps (from the row above)
            opn = gx * ob[j]
            best = Xp[j]
            src = 1
            a = Mp[j] + opn
            if a > best:
                best = a
                src = 0
            a = Yp[j] + opn
            if a > best:
                best = a
                src = 2
            x_new = best + ext_x
            code |= src << 2
            # Y: B's column j against gaps (from the left)
            opn = gb[j - 1] * oai
            best = y_left
            src = 2
            a = m_left + opn
            if a > best:
                best = a
                src = 0
            a = x_left + opn
            if a > best:
                best = a
                src = 1
            y_new = best + eb[j - 1]
            code |= src << 4
            tbi[j] = code
            Mc[j] = m_new
            Xc[j] = x_new
            Yc[j] = y_new
            m_left = m_new
            x_left = x_new
            y_left = y_new
        Mp, Mc = Mc, Mp
        Xp, Xc = Xc, Xp
        Yp, Yc = Yc, Yp
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
    for c in range(n):
        out[c] = path[n - 1 - c]
    return n, score


@jit
def path_maps(path, ma, mb):
    """Fill ``ma``/``mb`` with the merged column of each of A's and B's columns."""
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


@jit
def _pair_map(a, b, table, gap_open, gap_extend, term):
    """Global affine alignment of two code arrays; ``map[x]`` = aligned residue of b or -1."""
    la = a.size
    lb = b.size
    k = table.shape[0]
    GA = np.empty((la, k), np.float32)
    for i in range(la):
        GA[i] = table[a[i]]
    FB = np.zeros((lb, k), np.float32)
    for j in range(lb):
        FB[j, b[j]] = 1.0
    ra = np.ones(la, np.float32)
    rb = np.ones(lb, np.float32)
    oa = np.ones(la + 1, np.float32)
    ob = np.ones(lb + 1, np.float32)
    oa[0] = term
    oa[la] = term
    ob[0] = term
    ob[lb] = term
    buf = np.empty(la + lb, np.int8)
    npath, _score = profile_dp(GA, FB, np.zeros((0, 0), np.float32), ra, rb, oa, ob, gap_open,
                               gap_extend, buf)
    path = buf[:npath]
    ma = np.empty(la, np.int64)
    mb = np.empty(lb, np.int64)
    path_maps(path, ma, mb)
    col_b = np.full(path.size, -1, np.int32)
    for j in range(lb):
        col_b[mb[j]] = j
    mp = np.full(la, -1, np.int32)
    same = 0
    aligned = 0
    for x in range(la):
        y = col_b[ma[x]]
        mp[x] = y
        if y >= 0:
            aligned += 1
            if a[x] == b[y]:
                same += 1
    ident = same / aligned if aligned > 0 else 0.0
    return mp, ident


@jit
def pair_maps(codes, offsets, pairs, idx, table, gap_open, gap_extend, term, off_st, off_ts,
              maps, ident):
    """The pairwise alignments of ``pairs[idx]`` (rows ``s, t``): fills ``maps`` both ways.

    Pair ``p``'s map from ``s`` to ``t`` (length ``len(s)``: the aligned residue
    of ``t`` or -1) starts at ``off_st[p]`` in ``maps``, the map back at
    ``off_ts[p]``; ``ident[p]`` receives the alignment's identity.
    """
    for p in idx:
        s = pairs[p, 0]
        t = pairs[p, 1]
        a = codes[offsets[s]:offsets[s + 1]]
        b = codes[offsets[t]:offsets[t + 1]]
        mp, idn = _pair_map(a, b, table, gap_open, gap_extend, term)
        o = off_st[p]
        r = off_ts[p]
        lb = b.size
        for y in range(lb):
            maps[r + y] = -1
        for x in range(a.size):
            maps[o + x] = mp[x]
            if mp[x] >= 0:
                maps[r + mp[x]] = x
        ident[p] = idn


@jit
def _in(sorted_ids, v):
    """Index of ``v`` in ``sorted_ids``, or -1."""
    k = np.searchsorted(sorted_ids, v)
    if k < sorted_ids.size and sorted_ids[k] == v:
        return k
    return -1


@jit
def consistency_scores(mem_a, mem_b, pos, offsets, nbr_ptr, nbr, nbr_map, nbr_ident, maps, w,
                       is_witness, C):
    """Weighted support of the pairwise library for each pair of profile columns.

    ``pos`` holds every sequence's current column per residue (indexed like the
    codes); the library's pairs are listed per sequence ``s`` in
    ``nbr[nbr_ptr[s]:nbr_ptr[s + 1]]`` (sorted), with where each map from ``s``
    starts in ``maps`` and the alignment's identity. A pair of residues ``x``
    of ``s`` (in A) and ``y`` of ``t`` (in B, ``mem_b`` sorted) gets a vote
    from the alignment of ``s`` and ``t`` when the library holds it (weight:
    its identity) and one through every witness ``u`` whose alignments with
    ``s`` and ``t`` it holds and that aligns ``x`` to ``z`` and ``z`` to ``y``
    (weight: the smaller identity). Each pair's votes are averaged over its
    alignments and paths, weighted by ``w[s] * w[t]``, and the sum is
    normalised by the weights of the pairs that have any. Added into ``C``
    (``float32 (LA, LB)``, zeroed by the caller).
    """
    count = np.zeros(mem_b.size, np.float64)
    z_norm = 0.0
    for s in mem_a:
        ls = offsets[s + 1] - offsets[s]
        ps = offsets[s]
        # how many alignments and paths join s to each t of B
        for k in range(nbr_ptr[s], nbr_ptr[s + 1]):
            u = nbr[k]
            j = _in(mem_b, u)
            if j >= 0:
                count[j] += 1.0
            if is_witness[u]:
                for k2 in range(nbr_ptr[u], nbr_ptr[u + 1]):
                    j = _in(mem_b, nbr[k2])
                    if j >= 0:
                        count[j] += 1.0
        for j in range(mem_b.size):
            if count[j] > 0:
                z_norm += w[s] * w[mem_b[j]]
        for k in range(nbr_ptr[s], nbr_ptr[s + 1]):
            u = nbr[k]
            o1 = nbr_map[k]
            j = _in(mem_b, u)
            if j >= 0:
                pt = offsets[u]
                d = np.float32(nbr_ident[k] * w[s] * w[u] / count[j])
                for x in range(ls):
                    y = maps[o1 + x]
                    if y >= 0:
                        C[pos[ps + x], pos[pt + y]] += d
            if not is_witness[u]:
                continue
            for k2 in range(nbr_ptr[u], nbr_ptr[u + 1]):
                t = nbr[k2]
                j = _in(mem_b, t)
                if j < 0:
                    continue
                pt = offsets[t]
                o2 = nbr_map[k2]
                e = np.float32(min(nbr_ident[k], nbr_ident[k2]) * w[s] * w[t] / count[j])
                for x in range(ls):
                    z = maps[o1 + x]
                    if z >= 0:
                        y = maps[o2 + z]
                        if y >= 0:
                            C[pos[ps + x], pos[pt + y]] += e
        count[:] = 0.0
    if z_norm > 0:
        f = np.float32(1.0 / z_norm)
        for i in range(C.shape[0]):
            for j in range(C.shape[1]):
                C[i, j] *= f


@jit
def update_positions(pos, offsets, members, m):
    """Move the members' residue columns through the merge map ``m``."""
    for s in members:
        for q in range(offsets[s], offsets[s + 1]):
            pos[q] = m[pos[q]]
