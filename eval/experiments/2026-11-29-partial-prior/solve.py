"""The sparse least squares of a large sampled design: lsqr over every pair (as before
663f473) against ``ls_triplets`` (the supported pairs alone); 3,000 sequences, the
681,508-triplet design of a random prior distance (the size the H200 scored at 240 s).

    python eval/experiments/2026-11-29-partial-prior/solve.py
"""

import time

import numpy as np
from scipy.sparse.linalg import lsqr

from trimsa.tree import distances as D

n = 3000
rng = np.random.default_rng(0)
Dp = rng.random((n, n))
Dp = (Dp + Dp.T) / 2
trip, _ = D.sample_triplets(Dp, 2, 681508, seed=0)
S = rng.normal(size=len(trip)) * 10
prior = rng.normal(size=(n, n))
prior = prior + prior.T
iu, ju, _ = D._pair_ids(n)
A = D._design(n, trip)
base = prior[iu, ju]
t = time.perf_counter()
delta = lsqr(A, S - A @ base, damp=0.1, atol=1e-10, btol=1e-10, iter_lim=10000)[0]
t_all = time.perf_counter() - t
t = time.perf_counter()
est = D.ls_triplets(n, trip, S, prior=prior, damp=0.1)
t_used = time.perf_counter() - t
print(f"{len(trip)} triplets, {np.unique(A.indices).size} of {iu.size} pairs supported")
print(f"lsqr over every pair {t_all:.1f} s; over the supported pairs {t_used:.1f} s; "
      f"largest difference {np.abs(est[iu, ju] - base - delta).max():.2e}")
