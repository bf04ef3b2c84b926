"""Cells per second of the banded 3-way and pairwise kernels, linear against natural
affine gaps, on one CPU thread (w = 32, DNA 1 / -1, gaps -3 or -3 / -1).

    python eval/experiments/2026-11-28-cpu-affine-tree/rates.py
"""

import time

import numpy as np

from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import band_pair_scores, band_triplet_scores

W = 32
rng = np.random.default_rng(0)
print("| L | gaps | 3-way cells/s | pairwise cells/s |")
print("|---:|---|---:|---:|")
for L in (150, 400):
    base = rng.choice(list("ACGT"), L)
    seqs = []
    for _ in range(12):
        s = base.copy()
        hit = rng.random(L) < 0.2
        s[hit] = rng.choice(list("ACGT"), hit.sum())
        seqs.append("".join(s))
    ss = as_sequence_set(seqs)
    trip = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]] * 2)
    pairs = np.array([[i, j] for i in range(12) for j in range(i + 1, 12)])
    models = (("linear -3", Scoring.dna()), ("affine -3 / -1", Scoring.dna(gap_open=-3, gap_extend=-1)))
    for _, sc in models:   # compile
        band_triplet_scores(ss, trip[:1], band=W, scoring=sc, threads=1)
        band_pair_scores(ss, pairs[:1], band=W, scoring=sc, threads=1)
    for _ in range(2):
        for name, sc in models:
            t = time.perf_counter()
            band_triplet_scores(ss, trip, band=W, scoring=sc, threads=1)
            t3 = time.perf_counter() - t
            t = time.perf_counter()
            for _ in range(5):
                band_pair_scores(ss, pairs, band=W, scoring=sc, threads=1)
            t2 = time.perf_counter() - t
            print(f"| {L} | {name} | {len(trip) * (L + 1) * (2 * W + 1) ** 2 / t3:.2e} | "
                  f"{5 * len(pairs) * (L + 1) * (2 * W + 1) / t2:.2e} |")
