"""The CPU posteriors (`_cpu.posterior_slots`) on 300 random pairs (bands of 64, 3, 1, 0 and
every column), written to an npz: run once in a checkout of the code before and once in
this one, then compare the files bit for bit.

    python cpu_bitcheck.py OUT.npz SEED
"""
import sys, numpy as np
from trimsa.progressive import _cpu
rng = np.random.default_rng(int(sys.argv[2]))
out = {}
for c in range(300):
    k = 5
    la, lb = int(rng.integers(1, 120)), int(rng.integers(1, 120))
    a = rng.integers(0, k, la).astype(np.int64); b = rng.integers(0, k, lb).astype(np.int64)
    if rng.random() < 0.5:
        b = a.copy()[:lb] if lb <= la else np.concatenate([a, rng.integers(0, k, lb - la)])
        b = b.astype(np.int64); lb = b.size
        hit = rng.random(lb) < 0.3
        b[hit] = rng.integers(0, k, int(hit.sum()))
    odds = rng.uniform(0.1, 4.0, (k, k)); odds = (odds + odds.T) / 2
    gaps = np.array([rng.uniform(0.001, 0.1), rng.uniform(0.2, 0.7), rng.choice([0.0, rng.uniform(0.0, 0.1)]), rng.uniform(0.7, 0.97)])
    table = np.where(np.eye(k) > 0, 2.0, -1.0).astype(np.float32)
    tb = np.empty((la + 1) * (lb + 1), np.uint8); path = np.empty(la + lb, np.int8)
    n, _ = _cpu.seq_viterbi(a, b, table, -3.0, -1.0, 1.0, tb, path)
    width = int(rng.choice([64, 3, 1, 0, -1]))
    lo = np.empty(la + 1, np.int64); hi = np.empty(la + 1, np.int64)
    cells = _cpu.path_band(path, n, lb, width, lo, hi)
    fM = np.empty(cells, np.float32)
    K = int(rng.choice([1, 2, 4]))
    ca = np.full((la, K), -7, np.int32); pa = np.full((la, K), -7, np.float32)
    cb = np.full((lb, K), -7, np.int32); pb = np.full((lb, K), -7, np.float32)
    ok = _cpu.posterior_slots(a, b, odds, gaps, 0.01 if rng.random() < 0.8 else 0.0, lo, hi, fM, ca, pa, cb, pb)
    out[f"{c}_ok"] = np.array(ok); out[f"{c}_ca"] = ca; out[f"{c}_pa"] = pa; out[f"{c}_cb"] = cb; out[f"{c}_pb"] = pb
np.savez(sys.argv[1], **out)
