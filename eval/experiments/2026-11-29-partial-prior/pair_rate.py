"""Cells per second of the banded pairwise kernel (the sampled design's prior) on large
batches: w = 32, run's scoring (DNA 1 / -1, gaps -3 / -1) and linear -3, 1 and 2 threads.

    python eval/experiments/2026-11-29-partial-prior/pair_rate.py
"""

import time

import numpy as np

from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import band_pair_scores

W = 32
rng = np.random.default_rng(0)
print("| L | gaps | threads | pairs | s | cells/s per thread |")
print("|---:|---|---:|---:|---:|---:|")
for L in (300, 600):
    base = rng.choice(list("ACGT"), L)
    seqs = []
    for _ in range(200):
        s = base.copy()
        hit = rng.random(L) < 0.2
        s[hit] = rng.choice(list("ACGT"), hit.sum())
        seqs.append("".join(s[rng.random(L) > 0.03]))
    ss = as_sequence_set(seqs)
    iu, ju = np.triu_indices(200, 1)
    pairs = np.stack([iu, ju], 1)
    cells = float(((ss.lengths[iu] + ss.lengths[ju]) / 2 + 1).sum() * (2 * W + 1))
    for name, sc in (("linear -3", Scoring.dna()),
                     ("affine -3 / -1", Scoring.dna(gap_open=-3, gap_extend=-1))):
        band_pair_scores(ss, pairs[:2], band=W, scoring=sc, threads=1)   # compile
        for th in (1, 2):
            t = time.perf_counter()
            band_pair_scores(ss, pairs, band=W, scoring=sc, threads=th)
            dt = time.perf_counter() - t
            print(f"| {L} | {name} | {th} | {len(pairs)} | {dt:.2f} | {cells / dt / th:.2e} |",
                  flush=True)
