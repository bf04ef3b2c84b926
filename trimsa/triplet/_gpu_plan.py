"""Pure-Python planning for the GPU triplet kernels (no CuPy needed).

Everything that decides *how* a batch runs lives here so that it can be tested
without a GPU: the renaming of a triplet's sequences, the padding-residue
table, the 16-bit exactness bound, the choice of thread-group shape, the
pairing of triplets into 16-bit lanes and the sizing of launches.

Naming. The kernel sweeps sequence ``A`` one layer at a time over a plane of
``B`` (rows, ``j``) by ``C`` (columns, ``k``). The CPU engine orders a triplet
by length into ``a <= b <= c`` (with the same stable swaps as
``_cpu.score_batch``); here ``A = c`` (longest), ``B = a`` (shortest) and
``C = b``. The kernel reads ``sub[a][b]`` as ``sub[B][C]`` and the two other
pairs from the transposed table, so the result equals the CPU's even for an
asymmetric table.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit
from .plan import _greedy_owner

#: kernel configurations (TJ, TK, P, Q): a thread keeps a TJ x TK tile, a group of
#: P x Q threads (P * Q divides 32) covers a (P*TJ) x (Q*TK) region of the plane.
#: A plane that fits one region of some configuration takes the one with the least
#: padded area times the tile's relative cost (:data:`TILE_COST`); larger planes take
#: the last (MULTI), swept region by region.
CONFIGS = ((4, 4, 1, 1), (4, 4, 1, 2), (4, 4, 2, 2),
           (8, 8, 1, 1), (8, 8, 1, 2), (8, 8, 2, 2), (8, 8, 2, 4), (8, 8, 4, 4), (8, 8, 4, 8),
           (8, 8, 4, 8))
MULTI = len(CONFIGS) - 1
#: configuration of the column-parallel sweep of a few wide planes (one warp per
#: region column, so a waiting column never stalls another one in its warp)
SPLIT = (8, 8, 8, 4)
#: time per padded cell of a tile shape relative to 8 x 8 (measured on an H100,
#: docs/gpu.md: 4 x 4 tiles spend more instructions per cell on the per-step work)
TILE_COST = {(4, 4): 1.6, (8, 8): 1.0}
#: tall tiles (16 x 8) that 32-bit launches of these configurations take when the
#: alphabet is small enough for the A-residue profile, from which the kernel then reads
#: the B x C scores instead of keeping them in registers (docs/gpu.md, tall tiles). Each
#: covers a region at least as large as the configuration it replaces, so a plane
#: planned as one region stays one region. Use :func:`tall_config`, which takes a shape
#: index: the one-region and the MULTI shapes share the configuration (8, 8, 4, 8).
TALL = {(8, 8, 4, 4): (16, 8, 2, 4), (8, 8, 4, 8): (16, 8, 4, 8)}
#: one-region launches of these configurations take this tall configuration instead, whose
#: region is the same as theirs: their planes fit the 8 x 8 region (at most 32 rows), and
#: TALL's 64-row region doubled their padded area (32-bit 64 x 32 x 64 triplets: 0.96
#: TCUPS with (16, 8, 4, 8), against 1.92 for 64 x 64 x 64 on an H100;
#: eval/experiments/kernels/results/sloped-H100-2026-11-24-s14.md).
#: MULTI keeps TALL's larger region (fewer regions per plane).
TALL_ONE_REGION = {(8, 8, 4, 8): (16, 8, 2, 8)}
#: blocks of 128 threads per SM that the compiler is asked to fit (``__launch_bounds__``),
#: per ((TJ, TK, P, Q), bits); 1 (the default) lets a thread use up to 255 registers
MIN_BLOCKS: dict = {}
INT16_MAX = 32767
INT32_MAX = 2**31 - 1
PRECISIONS = ("auto", "int32", "int16")


def order(lengths: np.ndarray, trip: np.ndarray):
    """``(A, B, C)`` sequence indices and their lengths, each ``int32 (T,)``.

    Reproduces ``_cpu.score_batch``'s ordering ``a <= b <= c`` (ties keep the
    given order) and renames ``A = c, B = a, C = b``.
    """
    s = np.array(trip, dtype=np.int64, copy=True)
    ln = lengths[s]
    for x, y in ((0, 1), (1, 2), (0, 1)):
        sw = ln[:, x] > ln[:, y]
        s[sw, x], s[sw, y] = s[sw, y], s[sw, x].copy()
        ln[sw, x], ln[sw, y] = ln[sw, y], ln[sw, x].copy()
    idx = s[:, [2, 0, 1]].astype(np.int32)
    lens = ln[:, [2, 0, 1]].astype(np.int64)
    return idx, lens


def pad_score(gap: int, mode: int = 0) -> int:
    """Substitution score of the padding residue against anything.

    ``min(gap, 0)``, and twice that in semiglobal mode (``mode`` 1), where it
    makes a padding residue add exactly 0 to the kernel's shifted ``H'``
    (docs/gpu.md, the far faces).
    """
    return min(int(gap), 0) * (2 if mode == 1 else 1)


def extended_tables(table: np.ndarray, gap: int, mode: int = 0) -> np.ndarray:
    """``int32 (2, K+1, K+1)``: the table with a padding code ``K``, then its transpose.

    The padding scores :func:`pad_score` of ``mode``. The 16-bit bounds use
    ``mode`` 0's table in every mode: the semiglobal padding's columns in
    ``H'`` (``2*min(gap, 0) - 2*gap = 0`` per pair) are within them.
    """
    k = table.shape[0]
    ext = np.full((k + 1, k + 1), pad_score(gap, mode), dtype=np.int32)
    ext[:k, :k] = table
    return np.ascontiguousarray(np.stack([ext, ext.T]))


def imad_ok(tables: np.ndarray, gap: int, mode: int) -> bool:
    """Whether the 16-bit kernels of ``mode`` may add with 32-bit IMADs (the kernel's ``S16x2N``).

    ``tables`` are the kernel's tables (:func:`extended_tables` of ``mode``, both
    orientations). Global and semiglobal mode sweep ``H'`` and add the shifted
    scores ``x = sub - 2*gap``; one 32-bit addition of two packed 16-bit words is
    exact in both halves when the low half does not carry, which holds when
    every ``x`` is ``>= 0`` and the values it is added to do not change sign: the
    kernel adds them with IMADs only to real cells of ``H'`` (``>= 0``) and to
    terms derived from the global sentinel (``< 0`` after any addition, by
    :func:`fits`). Local mode adds ``sub`` itself, which is negative somewhere in
    any useful table: never.
    """
    if mode == 2:
        return False
    return bool((np.asarray(tables, dtype=np.int64) - 2 * int(gap)).min() >= 0)


def column_bound(table: np.ndarray, gap: int) -> int:
    """Largest magnitude ``M`` of any column score (and any value added to a cell).

    The kernel adds to a cell either ``2*gap``, one substitution plus
    ``2*gap``, or three substitutions; the padding residue is included.
    """
    ms = int(np.abs(extended_tables(table, gap)[0]).max())
    g2 = 2 * abs(int(gap))
    return max(3 * ms, ms + g2, g2, 1)


def stage_words(config) -> int:
    """Words of shared memory per thread for the staged region setup of ``(TJ, TK, P, Q)``.

    Groups of more than one thread keep each thread's tile residues and
    B x C scores (``TJ + TK + TJ*TK`` words) in a slot padded to 4 mod 8
    words (the kernel's ``SWP``); single-thread groups stage nothing. Tall
    tiles (``TJ > 8``, :data:`TALL`) read their B x C scores from the profile
    and stage only the residues.
    """
    tj, tk, p, q = config
    if p * q == 1:
        return 0
    sw = tj + tk + (0 if tj > 8 else tj * tk)
    return sw + (4 if sw % 8 == 0 else 0)


def profile_bytes(config, bits: int, kp: int, block: int = 128) -> int:
    """Dynamic shared memory of the kernel's A-residue profile (``PRF``) for one block.

    Per group of ``P x Q`` threads and region parity: one row of ``P*TJ + Q*TK``
    entries (2 bytes in 16 bits, per half of the pair; 4 bytes in 32 bits) for
    each of the ``kp`` letters. Groups of one thread keep no profile (0).
    """
    tj, tk, p, q = config
    if p * q == 1:
        return 0
    per_letter = (p * tj + q * tk) * (2 * 2 if bits == 16 else 4)
    if tj > 8 and bits == 32:
        per_letter += 16   # tall tiles: letters on distinct banks (the kernel's LW)
    return (block // (p * q)) * 2 * kp * per_letter


def compact_alphabet(codes: np.ndarray, table: np.ndarray):
    """``(codes, table)`` renumbered to the letters that occur in ``codes``.

    Scores are unchanged (the table is the same entries, re-indexed); the
    kernels then see ``K`` letters instead of the whole alphabet's (DNA with
    IUPAC codes has 15, most data use 4 or 5), which is what the A-residue
    profile's size depends on.
    """
    k = table.shape[0]
    used = np.flatnonzero(np.bincount(codes, minlength=k)[:k])
    if used.size in (0, k):
        return codes, table
    lut = np.zeros(k, dtype=np.uint8)
    lut[used] = np.arange(used.size, dtype=np.uint8)
    return lut[codes], np.ascontiguousarray(table[np.ix_(used, used)])


def global_bound(table: np.ndarray, gap: int) -> tuple[int, int]:
    """``(MI, MC)`` of global mode, whose kernel sweeps ``H' = H - 2*gap*(i+j+k)``.

    In ``H'`` a column that advances the index sum ``i + j + k`` by ``d``
    scores ``x = s - 2*gap*d`` (``s``: its score in ``H``): three residues
    ``x_ab + x_ac + x_bc`` (``d = 3``), two residues and a gap ``x_xy = sub - 2*gap``
    (``d = 2``), one residue and two gaps 0 (``d = 1``). So
    ``|H'(i,j,k)| <= (i+j+k) * MI`` with ``MI = max(ceil(max|x3| / 3), ceil(max|x2| / 2))``,
    and ``MC`` bounds every quantity the kernel adds to a cell value in one
    step: ``x3``, ``x2`` and the partial sums of two of them (``x_bc + x_ac``:
    the kernel adds ``x_bc``, then ``x_ac``, then ``x_ab``; any two entries that
    share a residue, both orientations, the padding residue included).
    """
    ext = extended_tables(table, gap).astype(np.int64) - 2 * int(gap)
    x2 = int(np.abs(ext).max())
    x3 = _triple_sums(ext)
    pair = _pair_sums(ext)
    mi = max(-(-x3 // 3), -(-x2 // 2), 1)
    return mi, max(x3, pair, x2, 1)


def _triple_sums(x: np.ndarray, shift: int = 0) -> int:
    """Largest ``|x[a, b] + x[a, c] + x[b, c] + shift|`` over the orientations in ``x``."""
    out = 0
    for t1 in x:
        for t2 in x:
            s12 = t1[:, :, None] + t2[:, None, :]          # x[a, b] + x[a, c]
            for t3 in x:
                out = max(out, int(np.abs(s12 + t3[None, :, :] + shift).max()))
    return out


def _pair_sums(x: np.ndarray, shift: int = 0) -> int:
    """Largest ``|t1[a, b] + t2[a, c] + shift|`` over both orientations ``t1, t2`` in ``x``.

    ``x`` holds a table and its transpose (:func:`extended_tables`), so this
    covers any two entries that share a residue.
    """
    out = 0
    for t1 in x:
        for t2 in x:
            out = max(out, int(np.abs(t1[:, :, None] + t2[:, None, :] + shift).max()))
    return out


def local_bound(table: np.ndarray, gap: int) -> tuple[int, int]:
    """``(MI, MC)`` of local mode, which sweeps ``H`` itself (``0 <= H``).

    ``MI`` is :func:`column_bound`'s ``M``. The kernel's tables hold ``x = sub``
    (no shift) and it keeps ``2*gap`` back until a cell's last operation: it
    adds ``x_bc``, then ``x_ac - 2*gap``, then ``x_ab`` to one cell, and ``x_ac``
    or ``x_bc`` alone to others. So ``MC`` also covers ``|x|``,
    ``|x_bc + x_ac - 2*gap|`` (two entries that share a residue) and
    ``|x_ab + x_ac + x_bc - 2*gap|``, both orientations, the padding residue
    included.
    """
    m = column_bound(table, gap)
    x = extended_tables(table, gap).astype(np.int64)
    w = -2 * int(gap)
    return m, max(m, int(np.abs(x).max()), _pair_sums(x, w), _triple_sums(x, w))


def bound(table: np.ndarray, gap: int, mode: int) -> tuple[int, int]:
    """``(MI, MC)`` for :func:`fits`: per index-sum step and per addition.

    Global sweeps the shifted ``H'`` of :func:`global_bound`. Local sweeps
    ``H`` itself (:func:`local_bound`). Semiglobal sweeps ``H'`` too,
    but its paths start anywhere on the zero faces, where ``H' = -2*gap*(i+j+k)``,
    and its folds read ``H`` (``|H| <= (i+j+k) * M``) through Horner sweeps
    whose partial values exceed ``|H'|`` by at most ``2 * 8 * |2*gap|`` (two
    sweeps of at most 8 cells): ``MI = max(MI', |2*gap|, M)`` and
    ``MC = max(MC', M, 16 * |2*gap|)``.
    """
    if mode == 0:
        return global_bound(table, gap)
    if mode == 2:
        return local_bound(table, gap)
    m = column_bound(table, gap)
    mi, mc = global_bound(table, gap)
    w = 2 * abs(int(gap))
    return max(mi, w, m), max(mc, m, 16 * w)


def _pair(m) -> tuple[int, int]:
    return (int(m), int(m)) if np.ndim(m) == 0 else (int(m[0]), int(m[1]))


def neg_sentinel(m, bits: int) -> int:
    """Value of the cells outside the global grid: ``-2**(bits-1) + MC``.

    ``m`` is ``MC`` or an ``(MI, MC)`` pair (:func:`bound`).
    """
    return -(1 << (bits - 1)) + _pair(m)[1]


def fits(nl, jpad, kpad, m, limit: int = INT16_MAX) -> np.ndarray:
    """Whether every value of a (padded) sweep fits a signed integer bounded by ``limit``.

    ``m`` is ``(MI, MC)`` (:func:`bound`), or one number for both. A cell
    ``(i, j, k)`` lies at the end of a path whose index sum grows to
    ``i + j + k``, so ``|H| <= B = (nl + jpad + kpad) * MI``; one step adds at
    most ``MC`` to a value. Terms derived from the sentinel
    ``NEG = -limit - 1 + MC`` stay within ``[-limit - 1, NEG + MC]``; they must
    lose against every real term (``NEG + MC < -B``) and real terms ``H + x``
    must not wrap (``B + MC <= limit``). Both hold when ``B + 2 MC <= limit``.
    (With one number ``M`` for both this is the rule of one column score
    ``<= M`` per column, which :func:`column_bound` gives.)
    """
    mi, mc = _pair(m)
    nl = np.asarray(nl, dtype=np.int64)
    b = (nl + np.asarray(jpad, dtype=np.int64) + np.asarray(kpad, dtype=np.int64)) * mi
    return b + 2 * mc <= limit


def choose_shape(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Index into :data:`CONFIGS` of the cheapest one-region configuration of a plane.

    Cost = padded area x :data:`TILE_COST`; ties go to the earlier (smaller)
    configuration. Planes larger than every region take :data:`MULTI`.
    """
    rows = np.maximum(np.asarray(rows, dtype=np.int64), 1)
    cols = np.maximum(np.asarray(cols, dtype=np.int64), 1)
    out = np.full(rows.shape, MULTI, dtype=np.int64)
    best = np.full(rows.shape, np.inf)
    for s in range(len(CONFIGS) - 1):
        tj, tk, p, q = CONFIGS[s]
        ok = (rows <= p * tj) & (cols <= q * tk)
        cost = (p * tj) * (q * tk) * TILE_COST.get((tj, tk), 1.0)
        take = ok & (cost < best)
        out[take] = s
        best[take] = cost
    return out


def tall_config(shape: int):
    """The tall configuration (16 x 8 tiles) that 32-bit launches of shape index ``shape``
    may take (:data:`TALL`, or :data:`TALL_ONE_REGION` for one-region shapes), or None."""
    config = CONFIGS[shape]
    if shape != MULTI and config in TALL_ONE_REGION:
        return TALL_ONE_REGION[config]
    return TALL.get(config)


def padded(rows, cols, shape: int, config=None):
    """Rows and columns of the plane after rounding up to whole regions of ``shape``
    (or of ``config``, a launch's configuration when it differs from its shape's)."""
    tj, tk, p, q = CONFIGS[shape] if config is None else config
    rh, ch = p * tj, q * tk
    rows = np.maximum(np.asarray(rows, dtype=np.int64), 1)
    cols = np.maximum(np.asarray(cols, dtype=np.int64), 1)
    return -(-rows // rh) * rh, -(-cols // ch) * ch


def pair_items(order_idx: np.ndarray, cost: np.ndarray, lanes: int) -> np.ndarray:
    """Items of ``lanes`` triplets each (``-1`` fills), most expensive first.

    Sorting by cost before pairing keeps the two triplets of a 16-bit lane
    close in size, so little of the pair's padded sweep is wasted.
    """
    idx = order_idx[np.argsort(-cost[order_idx], kind="stable")]
    n = -(-idx.size // lanes) * lanes
    items = np.full(n, -1, dtype=np.int64)
    items[:idx.size] = idx
    return items.reshape(-1, lanes)


class Launch:
    """One kernel launch: a group shape, a precision, and its items."""

    def __init__(self, shape: int, bits: int, items: np.ndarray):
        self.shape = shape
        self.bits = bits
        self.items = items          # (n, lanes) triplet rows of the batch, -1 = empty lane

    @property
    def lanes(self) -> int:
        return self.items.shape[1]

    def __repr__(self):
        return f"Launch(config={CONFIGS[self.shape]}, bits={self.bits}, items={self.items.shape[0]})"


def plan(lens: np.ndarray, mode: int, m: int, precision: str = "auto") -> tuple[list, np.ndarray]:
    """Split a batch into launches; returns ``(launches, trivial)``.

    Parameters
    ----------
    lens
        ``(T, 3)`` lengths of ``A, B, C`` (from :func:`order`).
    mode
        0 global, 1 semiglobal, 2 local.
    m
        :func:`bound` of the scoring and mode.
    precision
        ``"auto"`` or ``"int16"``: packed 16-bit wherever :func:`fits`
        proves it exact, 32-bit elsewhere; ``"int32"``: 32-bit only.

    ``trivial`` marks triplets whose score is 0 without any sweep
    (semiglobal/local with an empty sequence).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    g = 1 if mode == 0 else 0
    la, lb, lc = (lens[:, x].astype(np.int64) for x in range(3))
    trivial = (lb == 0) if mode != 0 else np.zeros(la.shape, dtype=bool)
    rows, cols = lb, lc          # the faces j = 0, k = 0 are halos, not rows
    nl = la + g                  # global also sweeps the layer i = 0
    shape = choose_shape(rows, cols)
    launches = []
    for s in range(len(CONFIGS)):
        sel = np.flatnonzero((shape == s) & ~trivial)
        if sel.size == 0:
            continue
        jp, kp = padded(rows[sel], cols[sel], s)
        cost = np.zeros(la.shape, dtype=np.int64)
        cost[sel] = np.maximum(nl[sel], 1) * jp * kp
        ok16 = fits(nl[sel], jp, kp, m) if precision != "int32" else np.zeros(sel.size, bool)
        narrow = sel[ok16]
        wide = sel[~ok16]
        if narrow.size:
            items = pair_items(narrow, cost, 2)
            # a pair sweeps the larger of its two planes: check the bound again
            full = items >= 0
            it = np.where(full, items, items[:, :1])
            pj, pk = padded(rows[it].max(1), cols[it].max(1), s)
            good = fits(nl[it].max(1), pj, pk, m)
            if not good.all():
                wide = np.concatenate([wide, items[~good][full[~good]]])
                items = items[good]
            if items.size:
                launches.append(Launch(s, 16, items))
        if wide.size:
            launches.append(Launch(s, 32, pair_items(wide, cost, 1)))
    return launches, trivial


def scratch_words(launch: Launch, lens: np.ndarray, mode: int, config=None) -> tuple[int, int, int]:
    """``(words per group, layers, row width)`` of the face buffers of a launch.

    Only planes larger than one region need them; otherwise all are 0.
    ``config``: the launch's configuration, when it is not its shape's (:data:`TALL`).
    """
    tj, tk, p, q = CONFIGS[launch.shape] if config is None else config
    g = 1 if mode == 0 else 0
    it = launch.items[launch.items >= 0]
    rows = int(lens[it, 1].max())
    cols = int(lens[it, 2].max())
    if launch.shape != MULTI and rows <= p * tj and cols <= q * tk:
        return 0, 0, 0
    nl = int(lens[it, 0].max()) + g
    _, kpad = padded(rows, cols, launch.shape, config)
    kwidth = int(kpad) + 1
    return 2 * nl * (kwidth + p * tj + 1), nl, kwidth


def cells(lens: np.ndarray) -> int:
    """Cells of the exact DP over all triplets (the TCUPS numerator)."""
    lens = np.asarray(lens, dtype=np.int64)
    return int((lens[:, 0] * lens[:, 1] * lens[:, 2]).sum())


# -- the same planning without the GIL --------------------------------------------------
#
# ``order`` and ``plan`` above are the reference. The launcher runs
# :func:`plan_batch` instead: the same decisions in numba functions that hold
# no GIL, so that the host threads of several GPUs plan their batches at the
# same time (tests/test_gpu.py checks both agree).

_CFG = np.array(CONFIGS, dtype=np.int64)
_TCOST = np.array([TILE_COST.get((c[0], c[1]), 1.0) for c in CONFIGS], dtype=np.float64)


@jit
def _classify(lengths, trip, g, mi, mc, allow16, cfg, tcost, idx, lens, shape, cost, ok16):
    """Per triplet: :func:`order`, :func:`choose_shape`, padded cost and the 16-bit bound."""
    multi = cfg.shape[0] - 1
    for t in range(trip.shape[0]):
        s0, s1, s2 = trip[t, 0], trip[t, 1], trip[t, 2]
        l0, l1, l2 = lengths[s0], lengths[s1], lengths[s2]
        if l0 > l1:
            s0, s1, l0, l1 = s1, s0, l1, l0
        if l1 > l2:
            s1, s2, l1, l2 = s2, s1, l2, l1
        if l0 > l1:
            s0, s1, l0, l1 = s1, s0, l1, l0
        idx[t, 0], idx[t, 1], idx[t, 2] = s2, s0, s1
        lens[t, 0], lens[t, 1], lens[t, 2] = l2, l0, l1
        rows = max(l0, 1)
        cols = max(l1, 1)
        sh = multi
        best = np.inf
        for c in range(multi):
            rh = cfg[c, 2] * cfg[c, 0]
            ch = cfg[c, 3] * cfg[c, 1]
            if rows <= rh and cols <= ch:
                v = rh * ch * tcost[c]
                if v < best:
                    best = v
                    sh = c
        rh = cfg[sh, 2] * cfg[sh, 0]
        ch = cfg[sh, 3] * cfg[sh, 1]
        jp = (rows + rh - 1) // rh * rh
        kp = (cols + ch - 1) // ch * ch
        nl = l2 + g
        shape[t] = sh
        cost[t] = max(nl, 1) * jp * kp
        ok16[t] = allow16 and (nl + jp + kp) * mi + 2 * mc <= INT16_MAX


@jit
def _buckets(shape, ok16, trivial, nshape):
    """Triplets grouped by (shape, 16-bit or not), ascending within a group."""
    start = np.zeros(2 * nshape + 1, dtype=np.int64)
    for t in range(shape.shape[0]):
        if not trivial[t]:
            start[2 * shape[t] + (0 if ok16[t] else 1) + 1] += 1
    for b in range(2 * nshape):
        start[b + 1] += start[b]
    perm = np.empty(start[-1], dtype=np.int64)
    fill = start[:-1].copy()
    for t in range(shape.shape[0]):
        if not trivial[t]:
            b = 2 * shape[t] + (0 if ok16[t] else 1)
            perm[fill[b]] = t
            fill[b] += 1
    return perm, start


@jit
def _by_cost(sel, cost):
    """``sel`` by decreasing cost, ties in the given order (as :func:`pair_items`).

    The sort key is ``(top - cost) * n + position``: unique, so an unstable
    sort of plain integers gives the stable order (and is several times
    faster than a merge sort); when that key could overflow, a merge sort.
    """
    n = sel.shape[0]
    if n == 0:
        return sel.copy()
    top = 0
    for x in range(n):
        top = max(top, cost[sel[x]])
    if top >= (1 << 62) // max(n, 1):
        key = np.empty(n, dtype=np.int64)
        for x in range(n):
            key[x] = -cost[sel[x]]
        return sel[np.argsort(key, kind="mergesort")]
    key = np.empty(n, dtype=np.int64)
    for x in range(n):
        key[x] = (top - cost[sel[x]]) * n + x
    key.sort()
    out = np.empty(n, dtype=sel.dtype)
    for x in range(n):
        out[x] = sel[key[x] % n]
    return out


@jit
def _pairs(srt, lens, g, mi, mc, rh, ch):
    """Pairs of consecutive ``srt``; ``(good pairs (n, 2), members of pairs over the bound)``."""
    n = (srt.shape[0] + 1) // 2
    items = np.full((n, 2), -1, dtype=np.int64)
    bad = np.empty(srt.shape[0], dtype=np.int64)
    ngood = 0
    nbad = 0
    for x in range(n):
        a = srt[2 * x]
        b = srt[2 * x + 1] if 2 * x + 1 < srt.shape[0] else a
        nl = max(lens[a, 0], lens[b, 0]) + g
        rows = max(max(lens[a, 1], lens[b, 1]), 1)
        cols = max(max(lens[a, 2], lens[b, 2]), 1)
        jp = (rows + rh - 1) // rh * rh
        kp = (cols + ch - 1) // ch * ch
        if (nl + jp + kp) * mi + 2 * mc <= INT16_MAX:
            items[ngood, 0] = a
            items[ngood, 1] = b if b != a else -1
            ngood += 1
        else:
            bad[nbad] = a
            nbad += 1
            if b != a:
                bad[nbad] = b
                nbad += 1
    return items[:ngood], bad[:nbad]


def plan_batch(lengths: np.ndarray, trip: np.ndarray, mode: int, m: int,
               precision: str = "auto"):
    """``(idx, lens, launches, trivial)``: :func:`order` then :func:`plan`, GIL-free.

    Gives the same arrays and launches (same items in the same order) as the
    two reference functions.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    trip = np.ascontiguousarray(trip, dtype=np.int64).reshape(-1, 3)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    T = trip.shape[0]
    g = 1 if mode == 0 else 0
    idx = np.empty((T, 3), dtype=np.int32)
    lens = np.empty((T, 3), dtype=np.int64)
    shape = np.empty(T, dtype=np.int64)
    cost = np.empty(T, dtype=np.int64)
    ok16 = np.empty(T, dtype=np.bool_)
    mi, mc = _pair(m)
    _classify(lengths, trip, g, mi, mc, precision != "int32", _CFG, _TCOST, idx, lens, shape, cost, ok16)
    trivial = (lens[:, 1] == 0) if mode != 0 else np.zeros(T, dtype=bool)
    perm, start = _buckets(shape, ok16, trivial, len(CONFIGS))
    launches = []
    for s in range(len(CONFIGS)):
        narrow = perm[start[2 * s]:start[2 * s + 1]]
        wide = perm[start[2 * s + 1]:start[2 * s + 2]]
        if narrow.size:
            tj, tk, p, q = CONFIGS[s]
            items, bad = _pairs(_by_cost(narrow, cost), lens, g, mi, mc, p * tj, q * tk)
            if bad.size:
                wide = np.concatenate([wide, bad])
            if items.size:
                launches.append(Launch(s, 16, items))
        if wide.size:
            launches.append(Launch(s, 32, _by_cost(wide, cost).reshape(-1, 1)))
    return idx, lens, launches, trivial


@jit
def slot_rows(items, idx):
    """``(slots (n * lanes, 3), dst (n * lanes,))`` of a launch's items (``-1`` = empty lane)."""
    n = items.shape[0] * items.shape[1]
    slots = np.full((n, 3), -1, dtype=np.int32)
    dst = np.full(n, -1, dtype=np.int32)
    for x in range(items.shape[0]):
        for h in range(items.shape[1]):
            t = items[x, h]
            if t >= 0:
                r = x * items.shape[1] + h
                slots[r, 0], slots[r, 1], slots[r, 2] = idx[t, 0], idx[t, 1], idx[t, 2]
                dst[r] = t
    return slots, dst


# -- the partial last wave of a launch ----------------------------------------------------

#: a tail is moved only if that should shorten the launch by at least this share
TAIL_GAIN = 0.02
#: time per cell of a column-parallel (split) sweep relative to streaming at full
#: occupancy: the split mode waits on flags and fences every 8 layers. Measured on an
#: H200 (eval/experiments/kernels/results/tail-H200-2026-11-22-*.md): 1.52 at L = 1024, 1.66 at L = 512,
#: 1.80 at L = 256; the rule needs a value no smaller than the truth
SPLIT_PENALTY = 1.9


def _handout_finish(cost, groups):
    """Finish time of each item when a launch hands its items out in order, each
    to the first free of ``groups`` thread groups (the kernel's atomic counter).

    That is the least-loaded greedy of the dynamic partition
    (:func:`trimsa.triplet.plan._greedy_owner`); an item finishes at its
    group's load once it is added.
    """
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    if cost.size == 0:
        return cost.copy()
    owner = _greedy_owner(cost, groups)
    by = np.argsort(owner, kind="stable")            # each group's items in hand-out order
    run = np.cumsum(cost[by])
    starts = np.flatnonzero(np.r_[True, np.diff(owner[by]) != 0])
    before = np.repeat(run[starts] - cost[by][starts], np.diff(np.r_[starts, cost.size]))
    finish = np.empty_like(cost)
    finish[by] = run - before
    return finish


def lane_rows(items: np.ndarray) -> np.ndarray:
    """A launch's ``(n, lanes)`` triplet rows with empty lanes (-1) given the item's first."""
    return np.where(items >= 0, items, items[:, :1])


def item_costs(launch: Launch, lens: np.ndarray, mode: int) -> np.ndarray:
    """Padded cells of each item of a launch (its dearer lane), ``float64 (n,)``."""
    g = 1 if mode == 0 else 0
    it = lane_rows(launch.items)
    jpad, kpad = padded(lens[it, 1], lens[it, 2], launch.shape)
    return ((lens[it, 0] + g) * jpad * kpad).max(axis=1).astype(np.float64)


def split_regions(items: np.ndarray, lens: np.ndarray, mode: int):
    """``(layers, region rows, region columns)`` of each item in the :data:`SPLIT` configuration."""
    tj, tk, p, q = SPLIT
    it = lane_rows(items)
    nl = lens[it, 0].max(1) + (1 if mode == 0 else 0)
    nj = -(-np.maximum(lens[it, 1].max(1), 1) // (p * tj))
    nk = -(-np.maximum(lens[it, 2].max(1), 1) // (q * tk))
    return nl, nj, nk


def tail_items(cost, splittable, groups: int, gain: float = TAIL_GAIN,
               penalty: float = SPLIT_PENALTY):
    """Items of a launch to sweep column-parallel after it, or ``None``.

    The kernel hands the items out in order to ``groups`` thread groups. When
    the dear items end in a partial wave (``n = w * groups + r`` near-equal
    items), ``r`` groups stay busy for a whole item while the others idle. The
    items that finish after the launch's mean load (total / groups) are that
    tail; the ones among them that can be swept column-parallel
    (``splittable``) are moved if the launch without them, plus their split
    sweep at ``penalty`` times the streaming cost per cell, is shorter than the
    launch by at least ``gain``. The tail need not be at the end of the
    launch: with short items after the dear ones, it sits in the middle.
    """
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    n = cost.shape[0]
    if n <= groups or groups < 1:
        return None
    mean = cost.sum() / groups
    if cost.max() <= gain * mean:
        # a list schedule ends within one item of the mean load: nothing to gain
        # (most launches of many items; this skips the simulation for them)
        return None
    finish = _handout_finish(cost, groups)
    span = finish.max()
    if span <= (1 + gain) * mean:
        return None
    tail = (finish > mean) & np.asarray(splittable, dtype=bool)
    if not tail.any():
        return None
    head = cost[~tail]
    head_span = _handout_finish(head, groups).max() if head.size else 0.0
    if head_span + penalty * cost[tail].sum() / groups > (1 - gain) * span:
        return None
    return tail
