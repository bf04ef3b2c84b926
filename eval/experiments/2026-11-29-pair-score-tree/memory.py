"""Peak memory of pair_score_distances in n x n float64 arrays (tracemalloc), all pairs
and a partial set of pairs, 1,500 random sequences of 60 residues (memory does not depend
on the lengths). python memory.py"""
import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from trimsa.tree.distances import pair_score_distances  # noqa: E402

n = 1500
rng = np.random.default_rng(1)
base = rng.choice(list("ACGT"), 60)
seqs = []
for i in range(n):
    s = base.copy()
    flip = rng.random(60) < 0.3
    s[flip] = rng.choice(list("ACGT"), flip.sum())
    seqs.append((f"s{i}", "".join(s)))
pair_score_distances(seqs[:20], threads=2)   # compile outside the measurement
for budget, what in ((1e4, "all pairs"), (0.5, "partial")):
    tracemalloc.start()
    d = pair_score_distances(seqs, threads=2, time_budget=budget)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{what}: {d.info['prior_pairs']} of {d.info['pairs']} pairs scored; peak "
          f"{peak / 2**20:.0f} MiB = {peak / (8.0 * n * n):.2f} n x n float64 arrays")
    del d
