"""The divide and conquer's full-cube threshold (``_affine.CUBE_CELLS``, shared by the
CPU and the GPU so that both give the same alignments): global tracebacks of random DNA
triplets (affine -3/-1) at L = 200..400 on the GPU and on the CPU's cores under each
threshold, cells of the cube per second, next to the GPU's score-only rate of the same
triplets; the GPU's alignments must equal the CPU's under the same threshold."""
import sys
import time

import numpy as np

import trimsa
from trimsa.scoring import Scoring
from trimsa.triplet import _affine

sc = Scoring.dna(gap_open=-3, gap_extend=-1)
rng = np.random.default_rng(7)
print("| CUBE_CELLS | L | triplets | GPU cells/s | score-only cells/s | ratio | CPU cells/s (triplets) | different |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
sets = {}
for L in (200, 300, 400):
    T = max(8, int(1e10 / L**3))
    sets[L] = (["".join(rng.choice(list("ACGT"), L)) for _ in range(3 * T)], np.arange(3 * T).reshape(T, 3))
for cube in [int(x) for x in sys.argv[1:]] or [1 << 22, 1 << 20, 1 << 18]:
    _affine.CUBE_CELLS = cube
    for L, (seqs, trip) in sets.items():
        T = trip.shape[0]
        cells = T * L**3
        trimsa.align_triplets(seqs, trip[:2], scoring=sc, device="gpu")
        t = time.perf_counter(); gpu = trimsa.align_triplets(seqs, trip, scoring=sc, device="gpu"); tg = time.perf_counter() - t
        trimsa.score_triplets(seqs, trip, scoring=sc, device="gpu")
        t = time.perf_counter(); trimsa.score_triplets(seqs, trip, scoring=sc, device="gpu"); ts = time.perf_counter() - t
        sub = trip[:max(4, T // 16)]
        trimsa.align_triplets(seqs, sub[:1], scoring=sc, device="cpu")
        t = time.perf_counter(); cpu = trimsa.align_triplets(seqs, sub, scoring=sc, device="cpu"); tc = time.perf_counter() - t
        wrong = sum((g.rows, g.score) != (c.rows, c.score) for g, c in zip(gpu, cpu))
        print(f"| 2^{cube.bit_length() - 1} | {L} | {T} | {cells / tg:.3e} | {cells / ts:.3e} | {ts / tg:.2f} | "
              f"{sub.shape[0] * L**3 / tc:.3e} ({sub.shape[0]}) | {wrong} |", flush=True)
