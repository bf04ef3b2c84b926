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


def pad_score(gap: int) -> int:
    """Substitution score of the padding residue against anything: ``min(gap, 0)``."""
    return min(int(gap), 0)


def extended_tables(table: np.ndarray, gap: int) -> np.ndarray:
    """``int32 (2, K+1, K+1)``: the table with a padding code ``K``, then its transpose."""
    k = table.shape[0]
    ext = np.full((k + 1, k + 1), pad_score(gap), dtype=np.int32)
    ext[:k, :k] = table
    return np.ascontiguousarray(np.stack([ext, ext.T]))


def column_bound(table: np.ndarray, gap: int) -> int:
    """Largest magnitude ``M`` of any column score (and any value added to a cell).

    The kernel adds to a cell either ``2*gap``, one substitution plus
    ``2*gap``, or three substitutions; the padding residue is included.
    """
    ms = int(np.abs(extended_tables(table, gap)[0]).max())
    g2 = 2 * abs(int(gap))
    return max(3 * ms, ms + g2, g2, 1)


def neg_sentinel(m: int, bits: int) -> int:
    """Value of the cells outside the global grid: ``-2**(bits-1) + M``."""
    return -(1 << (bits - 1)) + m


def fits(nl, jpad, kpad, m: int, limit: int = INT16_MAX) -> np.ndarray:
    """Whether every value of a (padded) sweep fits a signed integer bounded by ``limit``.

    A cell ``(i, j, k)`` lies at the end of a path of at most ``i + j + k``
    columns, each of magnitude ``<= M``, so ``|H| <= B = (nl + jpad + kpad) * M``.
    Terms derived from the sentinel ``NEG = -limit - 1 + M`` stay within
    ``[-limit - 1, NEG + M]``; they must lose against every real term
    (``NEG + M < -B``) and real terms ``H + x`` must not wrap
    (``B + M <= limit``). Both hold when ``B + 2 M <= limit``.
    """
    nl = np.asarray(nl, dtype=np.int64)
    b = (nl + np.asarray(jpad, dtype=np.int64) + np.asarray(kpad, dtype=np.int64)) * m
    return b + 2 * m <= limit


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


def padded(rows, cols, shape: int):
    """Rows and columns of the plane after rounding up to whole regions of ``shape``."""
    tj, tk, p, q = CONFIGS[shape]
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
        :func:`column_bound` of the scoring.
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


def scratch_words(launch: Launch, lens: np.ndarray, mode: int) -> tuple[int, int, int]:
    """``(words per group, layers, row width)`` of the face buffers of a launch.

    Only planes larger than one region need them; otherwise all are 0.
    """
    tj, tk, p, q = CONFIGS[launch.shape]
    g = 1 if mode == 0 else 0
    it = launch.items[launch.items >= 0]
    rows = int(lens[it, 1].max())
    cols = int(lens[it, 2].max())
    if launch.shape != MULTI and rows <= p * tj and cols <= q * tk:
        return 0, 0, 0
    nl = int(lens[it, 0].max()) + g
    _, kpad = padded(rows, cols, launch.shape)
    kwidth = int(kpad) + 1
    return 2 * nl * (kwidth + p * tj + 1), nl, kwidth


def cells(lens: np.ndarray) -> int:
    """Cells of the exact DP over all triplets (the TCUPS numerator)."""
    lens = np.asarray(lens, dtype=np.int64)
    return int((lens[:, 0] * lens[:, 1] * lens[:, 2]).sum())
