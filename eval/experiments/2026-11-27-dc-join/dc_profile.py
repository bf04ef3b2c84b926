"""Where the GPU divide and conquer spends its time: one batch of random DNA triplets of
length L (global, affine -3/-1) through ``trimsa.align_triplets(device="gpu")`` under
cProfile (warm: a first call compiles); prints the wall time, cells of the cube per
second and the top functions by cumulative and own time."""
import cProfile
import pstats
import sys
import time

import numpy as np

import trimsa
from trimsa.scoring import Scoring

L = int(sys.argv[1]) if len(sys.argv) > 1 else 300
T = int(sys.argv[2]) if len(sys.argv) > 2 else max(4, int(1e10 / L**3))
rng = np.random.default_rng(3)
seqs = ["".join(rng.choice(list("ACGT"), L)) for _ in range(3 * T)]
trip = np.arange(3 * T).reshape(T, 3)
sc = Scoring.dna(gap_open=-3, gap_extend=-1)
trimsa.align_triplets(seqs, trip[:2], scoring=sc, device="gpu")
t = time.perf_counter()
trimsa.align_triplets(seqs, trip, scoring=sc, device="gpu")
wall = time.perf_counter() - t
print(f"L {L}, {T} triplets: {wall:.2f} s, {T * (L + 1) ** 3 / wall:.3e} cube cells/s")
prof = cProfile.Profile()
prof.enable()
trimsa.align_triplets(seqs, trip, scoring=sc, device="gpu")
prof.disable()
st = pstats.Stats(prof)
st.sort_stats("cumulative").print_stats(18)
st.sort_stats("tottime").print_stats(12)
