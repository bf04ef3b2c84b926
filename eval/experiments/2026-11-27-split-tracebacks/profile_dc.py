"""Where the time of the GPU divide and conquer goes at L = 200 (1,250 random DNA
triplets, global, -3/-1: the benchmark's row at 0.20 of the score-only rate): one
warm run of ``align_triplets(device="gpu")`` under cProfile, the top functions by
own time and by cumulative time.

    python profile_dc.py
"""
import cProfile
import pstats
import time

import numpy as np

import trimsa
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring

aff = Scoring.dna(gap_open=-3, gap_extend=-1)
rng = np.random.default_rng(20261127)
L, T = 200, 1250
seqs = as_sequence_set([(f"s{q}", "".join(rng.choice(list("ACGT"), L))) for q in range(3 * T)],
                       "dna")
trip = np.arange(3 * T).reshape(T, 3)
trimsa.align_triplets(seqs, trip[:50], scoring=aff, device="gpu")
t0 = time.perf_counter()
trimsa.align_triplets(seqs, trip, scoring=aff, device="gpu")
print(f"unprofiled: {time.perf_counter() - t0:.3f} s")
t0 = time.perf_counter()
trimsa.score_triplets(seqs, trip, scoring=aff, device="gpu")
print(f"score-only: {time.perf_counter() - t0:.3f} s")
prof = cProfile.Profile()
prof.enable()
trimsa.align_triplets(seqs, trip, scoring=aff, device="gpu")
prof.disable()
st = pstats.Stats(prof)
st.sort_stats("tottime").print_stats(22)
st.sort_stats("cumulative").print_stats(30)
