"""A slow, obviously-correct pure-Python reference of the 3-way recurrence.

It fills the whole cube with ``-inf`` for unreachable cells and the seven
moves of the recurrence, written out one by one, so that it shares no code
with the numba or CUDA kernels.
"""

from __future__ import annotations

import itertools

NEG_INF = float("-inf")
MOVES = [m for m in itertools.product((0, 1), repeat=3) if any(m)]


def pair(x, y, sub, gap):
    if x is None and y is None:
        return 0
    if x is None or y is None:
        return gap
    return sub[x][y]


def column(x, y, z, sub, gap):
    return pair(x, y, sub, gap) + pair(x, z, sub, gap) + pair(y, z, sub, gap)


def cube(a, b, c, sub, gap, mode):
    """The full cube ``H`` as nested lists (mode: global, semiglobal, local)."""
    la, lb, lc = len(a), len(b), len(c)
    H = [[[NEG_INF] * (lc + 1) for _ in range(lb + 1)] for _ in range(la + 1)]
    for i in range(la + 1):
        for j in range(lb + 1):
            for k in range(lc + 1):
                if mode != "global" and (i == 0 or j == 0 or k == 0):
                    H[i][j][k] = 0
                    continue
                if (i, j, k) == (0, 0, 0):
                    H[i][j][k] = 0
                    continue
                best = NEG_INF
                for di, dj, dk in MOVES:
                    pi, pj, pk = i - di, j - dj, k - dk
                    if pi < 0 or pj < 0 or pk < 0:
                        continue
                    x = a[pi] if di else None
                    y = b[pj] if dj else None
                    z = c[pk] if dk else None
                    best = max(best, H[pi][pj][pk] + column(x, y, z, sub, gap))
                if mode == "local":
                    best = max(best, 0)
                H[i][j][k] = best
    return H


def score(a, b, c, sub, gap, mode="global"):
    """Optimal score of the triplet of code lists ``a``, ``b``, ``c``."""
    H = cube(a, b, c, sub, gap, mode)
    la, lb, lc = len(a), len(b), len(c)
    if mode == "global":
        return H[la][lb][lc]
    cells = itertools.product(range(la + 1), range(lb + 1), range(lc + 1))
    if mode == "semiglobal":
        return max(H[i][j][k] for i, j, k in cells if i == la or j == lb or k == lc)
    return max(H[i][j][k] for i, j, k in cells)


def alignment_score(rows, encode, sub, gap):
    """Sum-of-pairs score of three aligned rows (``-`` for gaps)."""
    total = 0
    for col in zip(*rows):
        codes = [None if ch == "-" else encode(ch) for ch in col]
        total += column(*codes, sub, gap)
    return total
