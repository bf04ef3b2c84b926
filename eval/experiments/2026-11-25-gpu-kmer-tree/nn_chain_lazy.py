# Experiment (2026-11-25, base 4dd5c7d): the nearest-neighbour chain writing only the new cluster's row; python nn_chain_lazy.py M
import time, numpy as np, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))
from trimsa.tree import _cpu
from numba import njit

@njit(nogil=True, cache=True)
def upgma_sized_joins_lazy(D, size):
    n = D.shape[0]
    chain = np.empty(n, dtype=np.int64)
    mx = np.empty(n - 1, dtype=np.int64)
    my = np.empty(n - 1, dtype=np.int64)
    md = np.empty(n - 1, dtype=np.float64)
    created = np.zeros(n, dtype=np.int64)
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
            cx = created[x]
            if clen > 1:
                y = chain[clen - 2]
                best = D[y, x] if created[y] > cx else D[x, y]
            else:
                y = -1
                best = np.inf
            for i in range(n):
                if size[i] == 0 or i == x:
                    continue
                v = D[i, x] if created[i] > cx else D[x, i]
                if v < best:
                    best = v
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
        cx = created[x]
        cy = created[y]
        for i in range(n):
            if size[i] == 0 or i == y:
                continue
            ci = created[i]
            dx = D[i, x] if ci > cx else D[x, i]
            dy = D[i, y] if ci > cy else D[y, i]
            D[y, i] = (nx * dx + ny * dy) / (nx + ny)
        created[y] = step + 1
    return mx, my, md

m = int(sys.argv[1])
rng = np.random.default_rng(0)
A = rng.random((m, m)); D0 = (A + A.T) / 2; np.fill_diagonal(D0, 0)
s0 = rng.integers(1, 10, m).astype(np.int64)
_cpu.upgma_sized_joins(D0[:50, :50].copy(), s0[:50].copy()); upgma_sized_joins_lazy(D0[:50, :50].copy(), s0[:50].copy())
t = time.time(); j1, h1 = _cpu.upgma_sized_joins(D0.copy(), s0.copy()); t1 = time.time() - t
t = time.time(); mx, my, md = upgma_sized_joins_lazy(D0.copy(), s0.copy()); t2 = time.time() - t
print(f"m={m}: current {t1:.2f} s, lazy {t2:.2f} s")
h2 = 0.5 * np.sort(md, kind="mergesort")
print("heights identical", np.array_equal(np.sort(h1), np.sort(h2)))
