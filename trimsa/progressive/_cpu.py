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
def _trace(Mp, Xp, Yp, tb, la, lb, out):
    """The best end state of an affine alignment's last row (``Mp``, ``Xp``, ``Yp``) and
    the traceback from it through ``tb`` (flat, ``lb + 1`` codes a row; per state the
    predecessor state in bits 0-1, 2-3, 4-5); writes the path into ``out``, first column
    first, and returns its length and the score."""
    w = lb + 1
    state = 0
    score = Mp[lb]
    if Xp[lb] > score:
        score = Xp[lb]
        state = 1
    if Yp[lb] > score:
        score = Yp[lb]
        state = 2
    n = 0
    i = la
    j = lb
    while i > 0 or j > 0:
        code = tb[i * w + j]
        if state == 0:
            nxt = code & 3
            out[n] = BOTH
            i -= 1
            j -= 1
        elif state == 1:
            nxt = (code >> 2) & 3
            out[n] = A_ONLY
            i -= 1
        else:
            nxt = (code >> 4) & 3
            out[n] = B_ONLY
            j -= 1
        n += 1
        state = nxt
    for c in range(n // 2):
        out[c], out[n - 1 - c] = out[n - 1 - c], out[c]
    return n, score


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
    return _trace(Mp, Xp, Yp, tb.ravel(), la, lb, out)


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
def seq_viterbi(a, b, table, gap_open, gap_extend, term, tb, out):
    """Best global affine alignment of two code arrays: :func:`profile_dp` specialised to
    single sequences (one-hot profiles, residue weights 1, end-gap factor ``term`` at both
    ends), with the same recurrence, ties and path. ``tb``: ``uint8`` workspace of at
    least ``(len(a) + 1) * (len(b) + 1)`` entries; ``out`` receives the path. Returns its
    length and the score."""
    la = a.size
    lb = b.size
    w = lb + 1
    Mp = np.full(w, NEG, np.float32)
    Xp = np.full(w, NEG, np.float32)
    Yp = np.full(w, NEG, np.float32)
    Mc = np.full(w, NEG, np.float32)
    Xc = np.full(w, NEG, np.float32)
    Yc = np.full(w, NEG, np.float32)
    go = np.float32(gap_open)
    ge = np.float32(gap_extend)
    go_end = go * np.float32(term)
    Mp[0] = 0.0
    tb[0] = 0
    for j in range(1, lb + 1):
        c = Yp[j - 1]
        o = Mp[j - 1] + go_end
        if c >= o:
            Yp[j] = c + ge
            tb[j] = 2 << 4
        else:
            Yp[j] = o + ge
            tb[j] = 0
    for i in range(1, la + 1):
        row = i * w
        go_y = go_end if i == la else go
        c = Xp[0]
        o = Mp[0] + go_end
        if c >= o:
            Xc[0] = c + ge
            tb[row] = 1 << 2
        else:
            Xc[0] = o + ge
            tb[row] = 0
        Mc[0] = NEG
        Yc[0] = NEG
        srow = table[a[i - 1]]
        m_left = NEG
        x_left = Xc[0]
        y_left = NEG
        for j in range(1, lb + 1):
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
            m_new = m + srow[b[j - 1]]
            go_x = go_end if j == lb else go
            best = Xp[j]
            src = 1
            o = Mp[j] + go_x
            if o > best:
                best = o
                src = 0
            o = Yp[j] + go_x
            if o > best:
                best = o
                src = 2
            x_new = best + ge
            code |= src << 2
            best = y_left
            src = 2
            o = m_left + go_y
            if o > best:
                best = o
                src = 0
            o = x_left + go_y
            if o > best:
                best = o
                src = 1
            y_new = best + ge
            code |= src << 4
            tb[row + j] = code
            Mc[j] = m_new
            Xc[j] = x_new
            Yc[j] = y_new
            m_left = m_new
            x_left = x_new
            y_left = y_new
        Mp, Mc = Mc, Mp
        Xp, Xc = Xc, Xp
        Yp, Yc = Yc, Yp
    return _trace(Mp, Xp, Yp, tb, la, lb, out)


@jit
def _path_map(a, b, path, npath):
    """The residue map of a pairwise path (``map[x]`` = the residue of ``b`` aligned with
    residue ``x`` of ``a``, or -1) and the alignment's identity."""
    mp = np.full(a.size, -1, np.int32)
    same = 0
    aligned = 0
    i = 0
    j = 0
    for c in range(npath):
        p = path[c]
        if p == BOTH:
            mp[i] = j
            aligned += 1
            if a[i] == b[j]:
                same += 1
            i += 1
            j += 1
        elif p == A_ONLY:
            i += 1
        else:
            j += 1
    ident = same / aligned if aligned > 0 else 0.0
    return mp, ident


@jit
def match_odds(table, ident):
    """Odds ``p(a, b) / (q_a q_b)`` of the pair HMM's match state over ``k`` codes (uniform
    ``q``): ``p`` proportional to ``exp(lam * table)``, with ``lam`` chosen by bisection so
    that the share of identical pairs under ``p`` is ``ident`` (kept within
    ``[1/k + 0.02, 0.98]``)."""
    k = table.shape[0]
    target = min(max(ident, 1.0 / k + 0.02), 0.98)
    span = 0.0
    for a in range(k):
        for b in range(k):
            span = max(span, abs(table[a, b]))
    span = max(span, 1e-6)
    lo = 0.0
    hi = 50.0 / span
    odds = np.empty((k, k), np.float64)
    for _ in range(60):
        lam = 0.5 * (lo + hi)
        tot = 0.0
        diag = 0.0
        for a in range(k):
            for b in range(k):
                v = np.exp(lam * (table[a, b] - span))
                tot += v
                if a == b:
                    diag += v
        if diag / tot < target:
            lo = lam
        else:
            hi = lam
    lam = 0.5 * (lo + hi)
    tot = 0.0
    for a in range(k):
        for b in range(k):
            odds[a, b] = np.exp(lam * (table[a, b] - span))
            tot += odds[a, b]
    for a in range(k):
        for b in range(k):
            odds[a, b] *= k * k / tot
    return odds


@jit
def _gap_runs(residue_aligned):
    """Gap positions and gap runs along one sequence (``False``: the residue faces a gap)."""
    cols = 0
    runs = 0
    prev_gap = False
    for x in range(residue_aligned.size):
        if residue_aligned[x]:
            prev_gap = False
        else:
            cols += 1
            if not prev_gap:
                runs += 1
            prev_gap = True
    return cols, runs


@jit
def gap_params(mp, lb):
    """Gap open and extension probabilities of the pair HMM from a pairwise alignment's
    residue map (``mp[x]``: the residue of the second sequence, or -1), with
    pseudocounts: ``delta`` = gap runs per aligned pair and direction, ``eps`` = 1 - runs
    per gap position; clamped to ``[0.001, 0.2]`` and ``[0.3, 0.97]``."""
    hit = np.zeros(lb, np.bool_)
    for x in range(mp.size):
        if mp[x] >= 0:
            hit[mp[x]] = True
    cols_a, runs_a = _gap_runs(mp >= 0)
    cols_b, runs_b = _gap_runs(hit)
    aligned = mp.size - cols_a
    runs = runs_a + runs_b
    delta = (runs + 1.0) / (2.0 * aligned + 20.0)
    eps = 1.0 - (runs + 1.0) / (cols_a + cols_b + 2.0)
    return min(max(delta, 0.001), 0.2), min(max(eps, 0.3), 0.97)


@jit
def _keep(cols, probs, c, p):
    """Insert ``(c, p)`` among the kept slots (sorted by ``p``, descending) if it ranks."""
    k = cols.size
    if p <= probs[k - 1]:
        return
    q = k - 1
    while q > 0 and probs[q - 1] < p:
        probs[q] = probs[q - 1]
        cols[q] = cols[q - 1]
        q -= 1
    probs[q] = p
    cols[q] = c


@jit
def path_band(path, npath, lb, width, lo, hi):
    """The band of a pairwise path: row ``i`` (``0..len(a)``) of the DP spans columns
    ``lo[i]..hi[i]``, the path's own columns in that row widened by ``width`` on each
    side (clipped to ``0..lb``; ``width < 0``: every column). Both bounds grow with
    ``i``. Returns the band's cells."""
    la = lo.size - 1
    if width < 0:
        lo[:] = 0
        hi[:] = lb
        return (la + 1) * (lb + 1)
    i = 0
    j = 0
    lo[0] = 0
    hi[0] = 0
    for c in range(npath):
        p = path[c]
        if p != B_ONLY:
            i += 1
            if p == BOTH:
                j += 1
            lo[i] = j
        else:
            j += 1
        hi[i] = j
    cells = 0
    for r in range(la + 1):
        lo[r] = max(lo[r] - width, 0)
        hi[r] = min(hi[r] + width, lb)
        cells += hi[r] - lo[r] + 1
    return cells


@jit
def posterior_slots(a, b, odds, gaps, floor, lo, hi, fM, col_ab, p_ab, col_ba, p_ba):
    """Match posteriors of residues of ``a`` and ``b`` under a global pair HMM with five
    states: match, and a short and a long gap in either sequence (gap residues have odds
    1; the start behaves as a match). ``gaps`` = ``(d1, e1, d2, e2)``: a match opens a
    short gap in one sequence with probability ``d1``, which extends with ``e1``, and a
    long one with ``d2`` / ``e2``; ``d2 = 0`` is the three-state HMM. ``odds[x, y]`` is
    the match emission over the background of the two residues. Computed in the band
    ``lo[i]..hi[i]`` of each row ``i`` (:func:`path_band`; the band holds a path from
    ``(0, 0)`` to the end) by forward-backward in probabilities scaled per row. ``fM``:
    ``float32`` workspace of at least the band's cells.

    For each residue ``x`` of ``a`` the most probable partners ``y`` of ``b`` with
    posterior >= ``floor`` go into ``col_ab[x]`` / ``p_ab[x]`` (``(len(a), K)``, most
    probable first, unused slots -1 / 0), and the same for each residue of ``b`` into
    ``col_ba`` / ``p_ba``. Returns False (and leaves the slots as they were) when the
    scaled probabilities are not finite.
    """
    la = a.size
    lb = b.size
    d1 = gaps[0]
    e1 = gaps[1]
    d2 = gaps[2]
    e2 = gaps[3]
    mm = 1.0 - 2.0 * d1 - 2.0 * d2
    g1 = 1.0 - e1
    g2 = 1.0 - e2
    start = np.empty(la + 2, np.int64)  # row i of the band: fM[start[i] + j - lo[i]]
    start[0] = 0
    for i in range(la + 1):
        start[i + 1] = start[i] + hi[i] - lo[i] + 1
    scale = np.ones(la + 1, np.float64)
    # rolling rows over every column. A row is kept as computed; its reader multiplies
    # each value by the row's factor rp (1 / its largest value; row 0 is not scaled) and
    # reads columns outside the row's band as 0, unscaled. X / Y: short gaps (a residue
    # of a / of b against a gap), U / V: long ones
    fMp = np.zeros(lb + 2, np.float64)
    fXp = np.zeros(lb + 2, np.float64)
    fYp = np.zeros(lb + 2, np.float64)
    fUp = np.zeros(lb + 2, np.float64)
    fVp = np.zeros(lb + 2, np.float64)
    fMc = np.zeros(lb + 2, np.float64)
    fXc = np.zeros(lb + 2, np.float64)
    fYc = np.zeros(lb + 2, np.float64)
    fUc = np.zeros(lb + 2, np.float64)
    fVc = np.zeros(lb + 2, np.float64)
    fMp[0] = 1.0
    fM[0] = 1.0
    for j in range(1, hi[0] + 1):
        fYp[j] = d1 * fMp[j - 1] + e1 * fYp[j - 1]
        fVp[j] = d2 * fMp[j - 1] + e2 * fVp[j - 1]
        fM[j] = 0.0
    rp = 1.0
    for i in range(1, la + 1):
        oi = odds[a[i - 1]]
        l = lo[i]
        h = hi[i]
        lp = lo[i - 1]
        hp = hi[i - 1]
        top = 0.0
        m_left = 0.0
        y_left = 0.0
        v_left = 0.0
        # the previous row at column j - 1, scaled, carried from one column to the next
        pm = 0.0
        px = 0.0
        py = 0.0
        pu = 0.0
        pv = 0.0
        if lp <= l - 1 <= hp:
            pm = fMp[l - 1] * rp
            px = fXp[l - 1] * rp
            py = fYp[l - 1] * rp
            pu = fUp[l - 1] * rp
            pv = fVp[l - 1] * rp
        for j in range(l, h + 1):
            cm = 0.0
            cx = 0.0
            cy = 0.0
            cu = 0.0
            cv = 0.0
            if lp <= j <= hp:
                cm = fMp[j] * rp
                cx = fXp[j] * rp
                cy = fYp[j] * rp
                cu = fUp[j] * rp
                cv = fVp[j] * rp
            if j == 0:
                m = 0.0
                y = 0.0
                v = 0.0
            else:
                m = oi[b[j - 1]] * (mm * pm + g1 * (px + py) + g2 * (pu + pv))
                y = d1 * m_left + e1 * y_left
                v = d2 * m_left + e2 * v_left
            x = d1 * cm + e1 * cx
            u = d2 * cm + e2 * cu
            fMc[j] = m
            fXc[j] = x
            fYc[j] = y
            fUc[j] = u
            fVc[j] = v
            m_left = m
            y_left = y
            v_left = v
            if m > top:
                top = m
            if x > top:
                top = x
            if y > top:
                top = y
            if u > top:
                top = u
            if v > top:
                top = v
            pm = cm
            px = cx
            py = cy
            pu = cu
            pv = cv
        if not (top > 0.0 and top < np.inf):
            return False
        rp = 1.0 / top
        scale[i] = top
        o = start[i] - l
        for j in range(l, h + 1):
            fM[o + j] = fMc[j] * rp
        fMp, fMc = fMc, fMp
        fXp, fXc = fXc, fXp
        fYp, fYc = fYc, fYp
        fUp, fUc = fUc, fUp
        fVp, fVc = fVc, fVp
    z = fMp[lb] * rp + fXp[lb] * rp + fYp[lb] * rp + fUp[lb] * rp + fVp[lb] * rp
    if not (z > 0.0 and z < np.inf):
        return False
    kk = col_ab.shape[1]
    ca = np.full((la, kk), -1, np.int32)
    pa = np.zeros((la, kk), np.float32)
    cb = np.full((lb, kk), -1, np.int32)
    pb = np.zeros((lb, kk), np.float32)
    # backward, rolling rows: next = row i + 1 (scaled by 1 / scale[i + 1]), cur = row i;
    # the columns below a row's band were never written (the rows after had higher
    # bounds), and Y and V of a row are read only within it (column j + 1): registers
    bMn = np.zeros(lb + 2, np.float64)
    bXn = np.zeros(lb + 2, np.float64)
    bUn = np.zeros(lb + 2, np.float64)
    bMc = np.zeros(lb + 2, np.float64)
    bXc = np.zeros(lb + 2, np.float64)
    bUc = np.zeros(lb + 2, np.float64)
    rz = 1.0 / z
    for i in range(la, 0, -1):
        s = 1.0 / scale[i + 1] if i < la else 0.0
        l = lo[i]
        h = hi[i]
        bMc[h + 1] = 0.0
        bXc[h + 1] = 0.0
        bUc[h + 1] = 0.0
        yr = 0.0   # row i at column j + 1
        vr = 0.0
        for j in range(h, l - 1, -1):
            if i == la and j == lb:
                bMc[j] = 1.0
                bXc[j] = 1.0
                bUc[j] = 1.0
                yr = 1.0
                vr = 1.0
                continue
            mnext = 0.0
            if i < la and j < lb:
                mnext = odds[a[i], b[j]] * bMn[j + 1] * s
            xnext = bXn[j] * s if i < la else 0.0
            unext = bUn[j] * s if i < la else 0.0
            ynext = yr if j < lb else 0.0
            vnext = vr if j < lb else 0.0
            bMc[j] = mm * mnext + d1 * xnext + d1 * ynext + d2 * unext + d2 * vnext
            bXc[j] = g1 * mnext + e1 * xnext
            bUc[j] = g2 * mnext + e2 * unext
            yr = g1 * mnext + e1 * ynext
            vr = g2 * mnext + e2 * vnext
        o = start[i] - l
        for j in range(max(l, 1), h + 1):
            p = fM[o + j] * bMc[j] * rz
            if p >= floor:
                if not p < np.inf:
                    return False
                _keep(ca[i - 1], pa[i - 1], j - 1, p)
                _keep(cb[j - 1], pb[j - 1], i - 1, p)
        bMn, bMc = bMc, bMn
        bXn, bXc = bXc, bXn
        bUn, bUc = bUc, bUn
    # element loops, not slice assignments: those pull numba's shape-mismatch error
    # formatting into the compilation (about a second per signature on a first run)
    for r in range(la):
        for q in range(kk):
            col_ab[r, q] = ca[r, q]
            p_ab[r, q] = pa[r, q]
    for r in range(lb):
        for q in range(kk):
            col_ba[r, q] = cb[r, q]
            p_ba[r, q] = pb[r, q]
    return True


@jit
def _pair_slots(a, b, path, npath, fit_table, posterior, band, lo, hi, hmm_odds, hmm_gaps):
    """What a pair of the library needs once its path is known: the residue map and the
    identity (:func:`_path_map`), and for ``posterior`` the pair HMM and the band around
    the path (:func:`path_band`, written into ``lo``/``hi``). The HMM is the given one
    (``hmm_odds`` over the codes, ``hmm_gaps`` as :func:`posterior_slots`' ``gaps``) or,
    where ``fit_table`` is a substitution table and not None, the three-state one fitted
    to the alignment (:func:`match_odds`, :func:`gap_params`). With None numba compiles
    no fitting. Returns ``(map, identity, odds, gaps, band cells)``."""
    mp, idn = _path_map(a, b, path, npath)
    gaps = np.zeros(4, np.float64)
    if not posterior:
        return mp, idn, np.zeros((0, 0)), gaps, 0
    if fit_table is not None:
        odds = match_odds(fit_table, idn)
        gaps[0], gaps[1] = gap_params(mp, b.size)
    else:
        odds = hmm_odds.copy()
        for q in range(4):
            gaps[q] = hmm_gaps[q]
    cells = path_band(path, npath, b.size, band, lo, hi)
    return mp, idn, odds, gaps, cells


@jit
def _alignment_slots(mp, lb, maps, probs, o, r):
    """A pair's votes from its alignment: slot 0 of each residue's rows (``o`` the first
    of ``a``'s, ``r`` of ``b``'s) holds its partner with probability 1, or -1 / 0."""
    for y in range(lb):
        maps[r + y, 0] = -1
        probs[r + y, 0] = 0.0
    for x in range(mp.size):
        maps[o + x, 0] = mp[x]
        probs[o + x, 0] = 1.0 if mp[x] >= 0 else 0.0
        if mp[x] >= 0:
            maps[r + mp[x], 0] = x
            probs[r + mp[x], 0] = 1.0


@jit
def _workspace(offsets, pairs, idx):
    """The most DP cells ``(len(s) + 1) (len(t) + 1)`` and the longest ``len(s) +
    len(t)`` of the pairs ``pairs[idx]`` (the work space of their alignments)."""
    most = 1
    longest = 1
    for p in idx:
        la = offsets[pairs[p, 0] + 1] - offsets[pairs[p, 0]]
        lb = offsets[pairs[p, 1] + 1] - offsets[pairs[p, 1]]
        most = max(most, (la + 1) * (lb + 1))
        longest = max(longest, la + lb)
    return most, longest


@jit
def pair_maps(codes, offsets, pairs, idx, table, gap_open, gap_extend, term, off_st, off_ts,
              maps, probs, ident, trust, has_post, posterior, hmm_odds, hmm_gaps, fit_table,
              floor, band):
    """The pairwise alignments of ``pairs[idx]`` (rows ``s, t``): fills ``maps`` both ways.

    Pair ``p``'s rows from ``s`` to ``t`` (``len(s)`` rows of ``maps`` and ``probs``,
    ``(total, K)``) start at ``off_st[p]``, the rows back at ``off_ts[p]``. Each row
    holds the residues of the other sequence that the residue is aligned with and how
    probably: without ``posterior`` the one of the global affine alignment (probability
    1); with it the ``K`` most probable under the pair HMM ``hmm_odds`` / ``hmm_gaps``,
    or one fitted to that alignment with ``fit_table`` where that is not None
    (:func:`_pair_slots`),
    computed in the band of ``band`` columns either side of the alignment's path
    (:func:`path_band`, :func:`posterior_slots`; those below ``floor`` are left out).
    ``ident[p]`` receives the alignment's identity and ``trust[p]`` the weight of the
    pair's votes: 1 for posteriors, which carry their own confidence (``has_post[p]`` =
    1), else the identity (also where the posteriors are not finite).
    """
    most_cells, longest = _workspace(offsets, pairs, idx)
    most_band = 1
    for p in idx:
        la = offsets[pairs[p, 0] + 1] - offsets[pairs[p, 0]]
        lb = offsets[pairs[p, 1] + 1] - offsets[pairs[p, 1]]
        most_band = max(most_band, band_cells_jit(la, lb, band))
    tb = np.empty(most_cells, np.uint8)
    fM = np.empty(most_band, np.float32)
    path = np.empty(longest, np.int8)
    lo_all = np.empty(longest + 1, np.int64)
    hi_all = np.empty(longest + 1, np.int64)
    for p in idx:
        s = pairs[p, 0]
        t = pairs[p, 1]
        a = codes[offsets[s]:offsets[s + 1]]
        b = codes[offsets[t]:offsets[t + 1]]
        npath, _score = seq_viterbi(a, b, table, gap_open, gap_extend, term, tb, path)
        o = off_st[p]
        r = off_ts[p]
        la = a.size
        lb = b.size
        lo = lo_all[:la + 1]
        hi = hi_all[:la + 1]
        mp, idn, odds, gaps, _cells = _pair_slots(a, b, path, npath, fit_table, posterior,
                                                  band, lo, hi, hmm_odds, hmm_gaps)
        ident[p] = idn
        trust[p] = idn
        if posterior and posterior_slots(a, b, odds, gaps, floor, lo, hi, fM,
                                         maps[o:o + la], probs[o:o + la], maps[r:r + lb],
                                         probs[r:r + lb]):
            trust[p] = 1.0
            has_post[p] = 1
            continue
        _alignment_slots(mp, lb, maps, probs, o, r)


def band_cells(la, lb, band):
    """The most cells of the band of ``band`` columns either side of a path through the
    ``(la + 1) x (lb + 1)`` table (:func:`path_band`; numbers, or arrays of them). Plain
    NumPy, for the host; the kernels call :data:`band_cells_jit`."""
    full = (la + 1) * (lb + 1)
    if band < 0:
        return full
    return np.minimum((la + 1) * (2 * band + 1) + lb + 1, full)


#: :func:`band_cells` compiled, for the kernels (the host's calls on arrays stay in NumPy,
#: which spares a first run compiling it for arrays before its GPU library can start)
band_cells_jit = jit(band_cells)


@jit
def gpu_pair_inputs(codes, offsets, pairs, sel, idx, table, paths, path_off, npath,
                    posterior, odds, gaps, off_st, off_ts, maps, probs):
    """The host's part between the GPU's alignments and its posteriors, for the pairs
    ``sel[idx]`` of a batch (``idx``: their places in the batch; the batch's paths
    ``paths[path_off[q]:path_off[q] + npath[q]]``), where the pair HMM is not given: with
    ``posterior`` the three-state HMM fitted to each alignment, as :func:`_pair_slots`
    fits it (``odds[q]``, ``gaps[q]``), else the alignment's own slots. The GPU takes the
    identities and the bands from the paths itself (``pair_band``)."""
    for q in idx:
        p = sel[q]
        a = codes[offsets[pairs[p, 0]]:offsets[pairs[p, 0] + 1]]
        b = codes[offsets[pairs[p, 1]]:offsets[pairs[p, 1] + 1]]
        mp, idn = _path_map(a, b, paths[path_off[q]:], npath[q])
        if posterior:
            od = match_odds(table, idn)
            # element loops, not slice assignments (see posterior_slots)
            for x in range(od.shape[0]):
                for y in range(od.shape[1]):
                    odds[q, x, y] = od[x, y]
            gaps[q, 0], gaps[q, 1] = gap_params(mp, b.size)
        else:
            _alignment_slots(mp, b.size, maps, probs, off_st[p], off_ts[p])


@jit
def gpu_pair_outputs(sel, idx, out_off, out_cols, out_probs, off_st, trust, has_post, maps,
                     probs):
    """The GPU's posteriors of the pairs ``sel[idx]`` of a batch into the library: rows
    ``out_off[q]..out_off[q + 1]`` of ``out_cols``/``out_probs`` (the pair's ``len(s) +
    len(t)`` rows) to its rows from ``off_st``. (The pairs whose posteriors were not
    finite vote with their alignments instead: :func:`gpu_pair_inputs`.)"""
    for q in idx:
        p = sel[q]
        for r in range(out_off[q + 1] - out_off[q]):   # element loops (see posterior_slots)
            for k in range(maps.shape[1]):
                maps[off_st[p] + r, k] = out_cols[out_off[q] + r, k]
                probs[off_st[p] + r, k] = out_probs[out_off[q] + r, k]
        trust[p] = 1.0
        has_post[p] = 1


@jit
def _in(sorted_ids, v):
    """Index of ``v`` in ``sorted_ids``, or -1."""
    k = np.searchsorted(sorted_ids, v)
    if k < sorted_ids.size and sorted_ids[k] == v:
        return k
    return -1


@jit
def entry_counts(idx, mem_a, mem_b, nbr_ptr, nbr, is_witness, counts):
    """``counts[i]``: the number of entries :func:`support_entries` gives ``mem_a[i]``,
    for each ``i`` of ``idx``."""
    for i in idx:
        s = mem_a[i]
        m = 0
        for k in range(nbr_ptr[s], nbr_ptr[s + 1]):
            u = nbr[k]
            if _in(mem_b, u) >= 0:
                m += 1
            if is_witness[u]:
                for k2 in range(nbr_ptr[u], nbr_ptr[u + 1]):
                    if _in(mem_b, nbr[k2]) >= 0:
                        m += 1
        counts[i] = m


@jit
def fill_entries(idx, mem_a, mem_b, nbr_ptr, nbr, nbr_map, nbr_trust, w, is_witness, ptr,
                 e_o1, e_o2, e_t, e_w, z_part):
    """The entries of :func:`support_entries` of each ``mem_a[i]`` (``i`` of ``idx``) at
    ``ptr[i]:ptr[i + 1]`` of ``e_*``, and its share of the normaliser in ``z_part[i]``."""
    count = np.zeros(mem_b.size, np.float64)
    for i in idx:
        a, b = ptr[i], ptr[i + 1]
        _ne, z_part[i] = support_entries(mem_a[i], mem_b, nbr_ptr, nbr, nbr_map, nbr_trust, w,
                                         is_witness, count, 0.0, e_o1[a:b], e_o2[a:b],
                                         e_t[a:b], e_w[a:b])


@jit
def support_entries(s, mem_b, nbr_ptr, nbr, nbr_map, nbr_trust, w, is_witness, count, z_norm,
                    e_o1, e_o2, e_t, e_w):
    """The library's votes for the pairs of residues of ``s`` (in A) and of the sequences
    of B (``mem_b`` sorted), as entries in the order they are added: for each alignment of
    ``s`` with a ``u``, the direct vote if ``u`` is in B (``e_o2`` -1), then, if ``u`` is a
    witness, the path through ``u`` to each ``t`` of B that ``u`` is aligned with.
    ``e_o1``/``e_o2`` are where the maps of ``s`` -> ``u`` and ``u`` -> ``t`` start, ``e_t``
    the target sequence, ``e_w`` the vote's weight (``float32``): the pair's trust (the
    smaller along a path) times ``w[s] * w[t]`` over the alignments and paths joining
    ``s`` and ``t``. Adds ``w[s] * w[t]`` to ``z_norm`` for every ``t`` of B that has any
    (``count``: zeros of ``len(mem_b)``, left zero). Returns the number of entries and
    ``z_norm``."""
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
    ne = 0
    for k in range(nbr_ptr[s], nbr_ptr[s + 1]):
        u = nbr[k]
        o1 = nbr_map[k]
        j = _in(mem_b, u)
        if j >= 0:
            e_o1[ne] = o1
            e_o2[ne] = -1
            e_t[ne] = u
            e_w[ne] = np.float32(nbr_trust[k] * w[s] * w[u] / count[j])
            ne += 1
        if not is_witness[u]:
            continue
        for k2 in range(nbr_ptr[u], nbr_ptr[u + 1]):
            t = nbr[k2]
            j = _in(mem_b, t)
            if j < 0:
                continue
            e_o1[ne] = o1
            e_o2[ne] = nbr_map[k2]
            e_t[ne] = t
            e_w[ne] = np.float32(min(nbr_trust[k], nbr_trust[k2]) * w[s] * w[t] / count[j])
            ne += 1
    count[:] = 0.0
    return ne, z_norm


@jit
def row_spans(mem_a, pos, offsets, c0, c1):
    """For each sequence of ``mem_a``, the residues ``x0[i] <= x < x1[i]`` it has in the
    columns ``c0 <= c < c1`` (a sequence's columns grow along it)."""
    x0 = np.empty(mem_a.size, np.int64)
    x1 = np.empty(mem_a.size, np.int64)
    for i in range(mem_a.size):
        s = mem_a[i]
        row = pos[offsets[s]:offsets[s + 1]]
        x0[i] = np.searchsorted(row, c0)
        x1[i] = np.searchsorted(row, c1)
    return x0, x1


@jit
def consistency_scores(mem_a, pos, offsets, maps, probs, ptr, e_o1, e_o2, e_t, e_w, C, c0, c1):
    """Weighted support of the pairwise library for each pair of profile columns.

    ``pos`` holds every sequence's current column per residue (indexed like the
    codes). The votes of ``mem_a[i]`` are the entries ``ptr[i]:ptr[i + 1]`` of
    ``e_*`` (:func:`fill_entries`): a pair of residues ``x`` of ``s`` (in A) and
    ``y`` of ``t`` (in B) gets a vote from the alignment of ``s`` and ``t`` when the
    library holds it (its weight times the probability that it aligns ``x`` to
    ``y``) and one through every witness ``u`` whose alignments with ``s`` and ``t``
    it holds (the smaller weight times the probabilities of ``x~z`` and ``z~y``,
    summed over ``z``; maps and probabilities per residue as in :func:`pair_maps`).
    Each pair's votes are averaged over its alignments and paths and weighted by
    ``w[s] * w[t]`` (:func:`support_entries`). Added into rows ``c0 <= i < c1`` of
    ``C`` (``float32 (LA, LB)``, zeroed by the caller; the rows of A's columns
    ``c0..c1 - 1``, so that calls for disjoint rows can run at once), before the
    normalisation by the weights of the pairs that have any votes (the caller's).
    Each cell receives its votes in the same order whatever the rows: sequence ``s``
    of A, then its entries, then the partners of the entry.
    """
    kk = maps.shape[1]
    span0, span1 = row_spans(mem_a, pos, offsets, c0, c1)
    for i in range(mem_a.size):
        s = mem_a[i]
        ps = offsets[s]
        x0, x1 = span0[i], span1[i]
        for e in range(ptr[i], ptr[i + 1]):
            o1 = e_o1[e]
            o2 = e_o2[e]
            pt = offsets[e_t[e]]
            d = e_w[e]
            if o2 < 0:
                for x in range(x0, x1):
                    cx = pos[ps + x]
                    for q in range(kk):
                        y = maps[o1 + x, q]
                        if y < 0:
                            break
                        C[cx, pos[pt + y]] += d * probs[o1 + x, q]
                continue
            for x in range(x0, x1):
                cx = pos[ps + x]
                for q in range(kk):
                    z = maps[o1 + x, q]
                    if z < 0:
                        break
                    ez = d * probs[o1 + x, q]
                    for q2 in range(kk):
                        y = maps[o2 + z, q2]
                        if y < 0:
                            break
                        C[cx, pos[pt + y]] += ez * probs[o2 + z, q2]


@jit
def _map_start(s, t, nbr_ptr, nbr, nbr_map):
    """Where the map from ``s`` to ``t`` starts in ``maps`` / ``probs`` (the library holds it)."""
    lo = nbr_ptr[s]
    return nbr_map[lo + np.searchsorted(nbr[lo:nbr_ptr[s + 1]], t)]


@jit
def _by_z(raw_z, raw_k, raw_v, n, nz, stamp, slot):
    """Entries ``(z, key, value)`` (the first ``n``) summed per ``(z, key)``, grouped by
    ``z`` (``0 <= z < nz``): returns ``ptr`` (``nz + 1``), ``keys``, ``values``; within a
    ``z``, keys in the order they first occur and each sum in the entries' order.
    ``stamp`` / ``slot``: scratch over the keys, ``stamp`` all -1 (left so)."""
    ptr = np.zeros(nz + 1, np.int64)
    for e in range(n):
        ptr[raw_z[e] + 1] += 1
    for z in range(nz):
        ptr[z + 1] += ptr[z]
    fill = ptr[:nz].copy()
    keys = np.empty(n, np.int64)
    vals = np.empty(n, np.float64)
    for e in range(n):
        z = raw_z[e]
        keys[fill[z]] = raw_k[e]
        vals[fill[z]] = raw_v[e]
        fill[z] += 1
    m = 0
    for z in range(nz):
        e0 = ptr[z]
        e1 = ptr[z + 1]
        ptr[z] = m
        for e in range(e0, e1):
            key = keys[e]
            if stamp[key] < 0:
                stamp[key] = 0
                slot[key] = m
                keys[m] = key
                vals[m] = vals[e]
                m += 1
            else:
                vals[slot[key]] += vals[e]
        for e in range(ptr[z], m):
            stamp[keys[e]] = -1
    ptr[nz] = m
    return ptr, keys[:m], vals[:m]


@jit
def witness_side(mem_b, cls_b, u, pos, offsets, nbr_ptr, nbr, nbr_map, maps, probs, w, stamp,
                 slot, raw_z, raw_k, raw_v):
    """B's half of the votes through witness ``u`` (:func:`separable_scores`): for each
    residue ``z`` of ``u``, the sum over the sequences ``t`` of B (``t != u``) of
    ``w[t]`` times the probability that the alignment of ``u`` and ``t`` pairs ``z``
    with a residue in column ``cy`` of B, per key ``2 cy + cls_b[t]`` (:func:`_by_z`).
    ``stamp`` / ``slot``: ``int64`` scratch of ``2 LB`` entries, ``stamp`` all -1;
    ``raw_*``: scratch of ``len(u) |B| slots`` entries."""
    kk = maps.shape[1]
    lu = offsets[u + 1] - offsets[u]
    n = 0
    for ti in range(mem_b.size):
        t = mem_b[ti]
        if t == u:
            continue
        o = _map_start(u, t, nbr_ptr, nbr, nbr_map)
        pt = offsets[t]
        c = cls_b[ti]
        for z in range(lu):
            for q in range(kk):
                y = maps[o + z, q]
                if y < 0:
                    break
                raw_z[n] = z
                raw_k[n] = 2 * pos[pt + y] + c
                raw_v[n] = w[t] * probs[o + z, q]
                n += 1
    return _by_z(raw_z, raw_k, raw_v, n, lu, stamp, slot)


@jit
def separable_scores(mem_a, cls_a, mem_b, cls_b, pos, offsets, nbr_ptr, nbr, nbr_map, maps,
                     probs, w, witnesses, zoff, side_ptr, side_keys, side_vals, factor, C, c0, c1):
    """Rows ``c0 <= i < c1`` of the votes of :func:`consistency_scores` (before its
    normalisation) where the library holds every pair and votes with one trust ``tau``:
    then the weight of a pair ``(s, t)`` is ``tau w[s] w[t] / count``, with ``count = 1 +
    |W| - [s in W] - [t in W]`` (its alignment and every witness but ``s`` and ``t``), a
    product of a factor of ``s``, one of ``t`` and ``factor[cls_a, cls_b]`` (``tau /
    count``; ``cls``: 1 for a witness). So the votes through a witness ``u`` add, to each
    pair of columns ``(cx, cy)``, ``sum_z VA[cx, z] VB[z, cy]``: ``VA`` sums ``w[s]`` times
    the probability of ``x ~ z`` over the residues ``x`` of A's sequences in column ``cx``
    (per class), ``VB`` is :func:`witness_side`, of every witness, concatenated (the
    entries of ``z`` of witness ``witnesses[i]`` are ``side_keys`` / ``side_vals``
    ``[side_ptr[zoff[i] + z]:side_ptr[zoff[i] + z + 1]]``). That is |A| + |B| passes over a
    witness's maps, where :func:`consistency_scores` makes |A| |B|. The same sum in
    exact arithmetic; rounded in another order (``float64`` halves, each product added
    to ``C`` in ``float32``). Each cell gets its votes in the same order whatever the
    rows: direct votes (``s``, then ``t``, then the partners), then witness by witness,
    ``z`` by ``z``."""
    kk = maps.shape[1]
    rows = c1 - c0
    span0, span1 = row_spans(mem_a, pos, offsets, c0, c1)
    # direct votes
    for si in range(mem_a.size):
        s = mem_a[si]
        ps = offsets[s]
        x0, x1 = span0[si], span1[si]
        for ti in range(mem_b.size):
            t = mem_b[ti]
            o = _map_start(s, t, nbr_ptr, nbr, nbr_map)
            pt = offsets[t]
            d = np.float32(factor[cls_a[si], cls_b[ti]] * w[s] * w[t])
            for x in range(x0, x1):
                cx = pos[ps + x]
                for q in range(kk):
                    y = maps[o + x, q]
                    if y < 0:
                        break
                    C[cx, pos[pt + y]] += d * probs[o + x, q]
    # witness paths: A's half, bucketed by z, then its products with B's half
    most = (span1 - span0).sum() * kk
    raw_z = np.empty(most, np.int64)
    raw_k = np.empty(most, np.int64)
    raw_v = np.empty(most, np.float64)
    stamp = np.full(2 * rows, -1, np.int64)
    slot = np.empty(2 * rows, np.int64)
    for wi in range(witnesses.size):
        u = witnesses[wi]
        lu = offsets[u + 1] - offsets[u]
        n = 0
        for si in range(mem_a.size):
            s = mem_a[si]
            if s == u:
                continue
            o = _map_start(s, u, nbr_ptr, nbr, nbr_map)
            ps = offsets[s]
            for x in range(span0[si], span1[si]):
                key = 2 * (pos[ps + x] - c0) + cls_a[si]
                for q in range(kk):
                    z = maps[o + x, q]
                    if z < 0:
                        break
                    raw_z[n] = z
                    raw_k[n] = key
                    raw_v[n] = w[s] * probs[o + x, q]
                    n += 1
        if n == 0:
            continue
        aptr, akeys, avals = _by_z(raw_z, raw_k, raw_v, n, lu, stamp, slot)
        base = zoff[wi]
        for z in range(lu):
            j0 = side_ptr[base + z]
            j1 = side_ptr[base + z + 1]
            if j0 == j1:
                continue
            for e in range(aptr[z], aptr[z + 1]):
                ka = akeys[e]
                cx = c0 + (ka >> 1)
                f0 = factor[ka & 1, 0] * avals[e]
                f1 = factor[ka & 1, 1] * avals[e]
                for j in range(j0, j1):
                    kb = side_keys[j]
                    C[cx, kb >> 1] += np.float32((f1 if kb & 1 else f0) * side_vals[j])
    return 0


@jit
def update_positions(pos, offsets, members, m):
    """Move the members' residue columns through the merge map ``m``."""
    for s in members:
        for q in range(offsets[s], offsets[s + 1]):
            pos[q] = m[pos[q]]


# -- votes of exact 3-way alignments (trimsa.progressive.triplets) ---------------------

@jit
def anchor_ranges(codes, offsets, anchors, idx, table, gap_open, gap_extend, term, width,
                  band_off, lo, hi):
    """Bands around pairwise paths: for ``anchors[a] = (s, x)``, the global affine
    alignment of ``s`` with ``x`` (:func:`seq_viterbi`) and the columns of ``x`` within
    ``width`` of its path in each row ``0..len(s)`` (:func:`path_band`), written to
    ``lo``/``hi[band_off[a]:band_off[a + 1]]``."""
    most, longest = _workspace(offsets, anchors, idx)
    tb = np.empty(most, np.uint8)
    path = np.empty(longest, np.int8)
    for a in idx:
        s = anchors[a, 0]
        x = anchors[a, 1]
        sa = codes[offsets[s]:offsets[s + 1]]
        xa = codes[offsets[x]:offsets[x + 1]]
        npath, _score = seq_viterbi(sa, xa, table, gap_open, gap_extend, term, tb, path)
        path_band(path, npath, xa.size, width, lo[band_off[a]:band_off[a + 1]],
                  hi[band_off[a]:band_off[a + 1]])


@jit
def triplet_partners(moves, move_off, ls, map_off, out):
    """For each 3-way alignment ``q`` (moves of rows ``s, t, u``), the residue of ``t``
    in the column of each residue of ``s``, or -1: ``out[map_off[q] + x]``."""
    for q in range(move_off.size - 1):
        i = 0
        j = 0
        base = map_off[q]
        for x in range(ls[q]):
            out[base + x] = -1
        for c in range(move_off[q], move_off[q + 1]):
            m = moves[c]
            if m & 1 and m & 2:
                out[base + i] = j
            i += m & 1
            j += (m >> 1) & 1


@jit
def _mixed_row(cols, probs, votes, weights, share, floor, out_cols, out_probs):
    """One residue's partners after mixing: ``(1 - share)`` of its kept probabilities
    ``probs`` (of partners ``cols``, -1 unused) plus ``share`` times the weighted share
    of the 3-way alignments ``votes`` (the partner in each, -1 a gap) that pair it with
    each partner; the most probable kept (at least ``floor``), most probable first."""
    K = cols.size
    m = votes.size
    cand = np.full(K + m, -1, np.int64)
    val = np.zeros(K + m, np.float64)
    nc = 0
    total = 0.0
    for v in range(m):
        total += weights[v]
    for q in range(K):
        if cols[q] >= 0:
            cand[nc] = cols[q]
            val[nc] = (1.0 - share) * probs[q]
            nc += 1
    for v in range(m):
        y = votes[v]
        if y < 0 or total <= 0.0:
            continue
        at = -1
        for q in range(nc):
            if cand[q] == y:
                at = q
                break
        if at < 0:
            at = nc
            cand[nc] = y
            nc += 1
        val[at] += share * weights[v] / total
    kept = np.full(K, -1, np.int32)
    kp = np.zeros(K, np.float32)
    for q in range(nc):
        p = np.float32(val[q])
        if p >= floor:
            _keep(kept, kp, np.int32(cand[q]), p)
    for q in range(K):
        out_cols[q] = kept[q] if kp[q] > 0 else -1
        out_probs[q] = kp[q] if kp[q] > 0 else 0.0


@jit
def mix_triplet_votes(pairs, idx, offsets, first, thirds, tmap, map_off, weights, share,
                      floor, off_st, off_ts, maps, probs):
    """Mix the 3-way alignments' votes into the library's rows of pairs ``idx``.

    Pair ``p`` (``s, t``) has ``thirds`` 3-way alignments, the ``v``-th one's map from
    ``s`` to ``t`` at ``tmap[map_off[first[p] + v]:]`` (:func:`triplet_partners`) with
    weight ``weights[first[p] + v]``. Each residue's slots (both directions) become
    :func:`_mixed_row` of its slots and of those votes.
    """
    K = maps.shape[1]
    for p in idx:
        s = pairs[p, 0]
        t = pairs[p, 1]
        ls = offsets[s + 1] - offsets[s]
        lt = offsets[t + 1] - offsets[t]
        w = weights[first[p]:first[p] + thirds]
        fwd = np.full((ls, thirds), -1, np.int64)
        back = np.full((lt, thirds), -1, np.int64)
        for v in range(thirds):
            base = map_off[first[p] + v]
            for x in range(ls):
                y = tmap[base + x]
                fwd[x, v] = y
                if y >= 0:
                    back[y, v] = x
        cols = np.empty(K, np.int32)
        pr = np.empty(K, np.float32)
        for x in range(ls):
            r = off_st[p] + x
            for q in range(K):
                cols[q] = maps[r, q]
                pr[q] = probs[r, q]
            _mixed_row(cols, pr, fwd[x], w, share, floor, maps[r], probs[r])
        for y in range(lt):
            r = off_ts[p] + y
            for q in range(K):
                cols[q] = maps[r, q]
                pr[q] = probs[r, q]
            _mixed_row(cols, pr, back[y], w, share, floor, maps[r], probs[r])


# -- three sequences: the exact alignment of most library support -----------------------

@jit
def _support_step(Fp, Fc, dlo, dhi, i, Cab, Cac, Cbc, P, Bab, Bac, Bbc, mbc, low):
    """Layer ``i`` of the support DP of three sequences into ``Fc`` from layer ``i - 1``
    in ``Fp``; with a pointer cube ``P`` (not empty) each cell's move goes to ``P[i]``.

    A column scores the support of each pair of its residues (``Cab[x, y]``, ...);
    gaps score nothing. Moves are bit sets (bit 0: the first sequence advances, bit 1
    the second, bit 2 the third); ties keep the lowest move.

    Pruning (Carrillo and Lipman): ``Bab[i, j]`` bounds the support of the pair a-b
    in any alignment through the lattice point ``(i, j)`` (the best pairwise
    alignment through it), and likewise ``Bac``, ``Bbc``; a cell whose three bounds
    sum below ``low`` (the support of a known alignment) lies on no optimal path and
    is set to minus infinity. Each row ``(i, j)`` is computed only from the first to
    the last cell that passes (none where even the row maxima ``mbc[j]`` of ``Bbc``
    and of ``Bac[i]`` cannot reach ``low``). ``Fc`` holds minus infinity outside each
    row's range ``dlo[j]..dhi[j]`` of cells written by its last use, so only that
    range is reset: the work follows the cells kept, not the cube. Pointers are
    written for computed cells only: a traceback from the far corner visits no other.
    """
    lb = Cab.shape[1]
    lc = Cac.shape[1]
    point = P.shape[0] > 0
    ninf = -np.inf
    mac = -np.inf
    for k in range(lc + 1):
        mac = max(mac, Bac[i, k])
    for j in range(lb + 1):
        need = low - Bab[i, j]
        first = lc + 1
        last = -1
        if mac + mbc[j] >= need:
            for k in range(lc + 1):
                if Bac[i, k] + Bbc[j, k] >= need:
                    first = min(first, k)
                    last = k
        for k in range(dlo[j], min(dhi[j] + 1, first)):
            Fc[j, k] = ninf
        for k in range(max(dlo[j], last + 1), dhi[j] + 1):
            Fc[j, k] = ninf
        dlo[j] = first
        dhi[j] = last
        for k in range(first, last + 1):
            if i == 0 and j == 0 and k == 0:
                Fc[0, 0] = 0.0
                continue
            if Bac[i, k] + Bbc[j, k] < need:
                Fc[j, k] = ninf
                continue
            # candidates in move order 1..7; a strict > keeps the lowest move on ties
            best = ninf
            bm = 0
            if i > 0:
                ab = Cab[i - 1, j - 1] if j > 0 else 0.0
                ac = Cac[i - 1, k - 1] if k > 0 else 0.0
                v = Fp[j, k]                                    # 1: a
                if v > best:
                    best = v
                    bm = 1
            if j > 0:
                v = Fc[j - 1, k]                                # 2: b
                if v > best:
                    best = v
                    bm = 2
                if i > 0:
                    v = Fp[j - 1, k] + ab                       # 3: a b
                    if v > best:
                        best = v
                        bm = 3
            if k > 0:
                v = Fc[j, k - 1]                                # 4: c
                if v > best:
                    best = v
                    bm = 4
                if i > 0:
                    v = Fp[j, k - 1] + ac                       # 5: a c
                    if v > best:
                        best = v
                        bm = 5
                if j > 0:
                    bc = Cbc[j - 1, k - 1]
                    v = Fc[j - 1, k - 1] + bc                   # 6: b c
                    if v > best:
                        best = v
                        bm = 6
                    if i > 0:
                        v = Fp[j - 1, k - 1] + ab + ac + bc     # 7: a b c
                        if v > best:
                            best = v
                            bm = 7
            Fc[j, k] = best
            if point:
                P[i, j, k] = bm


@jit
def _support_sweep(Cab, Cac, Cbc, P, Bab, Bac, Bbc, low):
    """Every layer of the support DP (pointers into ``P`` when it is not empty); the
    last layer (minus infinity where pruned)."""
    la, lb = Cab.shape
    lc = Cac.shape[1]
    Fp = np.full((lb + 1, lc + 1), -np.inf)
    Fc = np.full((lb + 1, lc + 1), -np.inf)
    # per buffer and row, the cells that may hold a value (all minus infinity outside)
    dp = np.empty((2, lb + 1), np.int64)
    dp[0, :] = 0
    dp[1, :] = -1
    dc = dp.copy()
    mbc = np.empty(lb + 1, np.float64)
    for j in range(lb + 1):
        mbc[j] = Bbc[j].max()
    for i in range(la + 1):
        _support_step(Fp, Fc, dc[0], dc[1], i, Cab, Cac, Cbc, P, Bab, Bac, Bbc, mbc, low)
        Fp, Fc = Fc, Fp
        dp, dc = dc, dp
    return Fp


@jit
def support_last(Cab, Cac, Cbc, Bab, Bac, Bbc, low):
    """The last layer ``F[j, k]`` of the support DP: the most support of an alignment of
    the whole first sequence with the prefixes ``j`` and ``k`` of the others (minus
    infinity where pruned; see :func:`_support_step`)."""
    return _support_sweep(Cab, Cac, Cbc, np.empty((0, 0, 0), np.uint8), Bab, Bac, Bbc, low)


@jit
def support_moves(Cab, Cac, Cbc, Bab, Bac, Bbc, low):
    """``(moves, support)`` of an alignment of three sequences with the most support,
    traced back through a full cube of pointers (pruned as in :func:`_support_step`)."""
    la, lb = Cab.shape
    lc = Cac.shape[1]
    P = np.empty((la + 1, lb + 1, lc + 1), np.uint8)
    F = _support_sweep(Cab, Cac, Cbc, P, Bab, Bac, Bbc, low)
    if not F[lb, lc] > -np.inf:
        raise AssertionError("internal error: the support bound pruned the far corner")
    moves = np.empty(la + lb + lc, np.uint8)
    n = 0
    i, j, k = la, lb, lc
    while i > 0 or j > 0 or k > 0:
        m = P[i, j, k]
        moves[n] = m
        n += 1
        i -= m & 1
        j -= (m >> 1) & 1
        k -= (m >> 2) & 1
    return moves[:n][::-1].copy(), F[lb, lc]


@jit
def _support_prefixes(C):
    """``F[i, j]``: the most support (sum of ``C`` over aligned pairs, gaps free) of an
    alignment of the prefixes ``i`` and ``j`` of two sequences."""
    la, lb = C.shape
    F = np.empty((la + 1, lb + 1), np.float64)
    for i in range(la + 1):
        for j in range(lb + 1):
            v = 0.0 if i == 0 and j == 0 else -np.inf
            if i > 0:
                v = max(v, F[i - 1, j])
            if j > 0:
                v = max(v, F[i, j - 1])
            if i > 0 and j > 0:
                v = max(v, F[i - 1, j - 1] + C[i - 1, j - 1])
            F[i, j] = v
    return F


@jit
def pair_support_bound(C):
    """``B[i, j]``: the most support of an alignment of two sequences through the
    lattice point ``(i, j)``: the best prefix alignment to it plus the best suffix
    alignment from it (:func:`_support_prefixes` of ``C`` and of ``C`` reversed)."""
    R = _support_prefixes(np.ascontiguousarray(C[::-1, ::-1]))
    return _support_prefixes(C) + R[::-1, ::-1]


@jit
def support_guess(Cab, Cac, Cbc):
    """The support of one alignment of three sequences (a lower bound of the most):
    a and b aligned by the most support of ``Cab``, then c to that pair by the most
    support of ``Cac`` and ``Cbc`` over its columns."""
    la, lb = Cab.shape
    lc = Cac.shape[1]
    F = _support_prefixes(Cab)
    # the columns of an optimal a-b alignment, last first (residue index or -1)
    xa = np.empty(la + lb, np.int64)
    xb = np.empty(la + lb, np.int64)
    n = 0
    i, j = la, lb
    while i > 0 or j > 0:
        if i > 0 and j > 0 and F[i, j] == F[i - 1, j - 1] + Cab[i - 1, j - 1]:
            xa[n], xb[n] = i - 1, j - 1
            i, j = i - 1, j - 1
        elif i > 0 and F[i, j] == F[i - 1, j]:
            xa[n], xb[n] = i - 1, -1
            i -= 1
        else:
            xa[n], xb[n] = -1, j - 1
            j -= 1
        n += 1
    W = np.zeros((n, lc), np.float64)
    for q in range(n):
        x = xa[n - 1 - q]
        y = xb[n - 1 - q]
        for k in range(lc):
            if x >= 0:
                W[q, k] += Cac[x, k]
            if y >= 0:
                W[q, k] += Cbc[y, k]
    return F[la, lb] + _support_prefixes(W)[n, lc]
