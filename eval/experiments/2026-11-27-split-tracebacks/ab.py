"""Split tracebacks A/B: the affine GPU tracebacks' times in the code on PYTHONPATH,
with ``_gpu_affine.SPLIT`` set to ARGV[1].

    python ab.py MODE OUT.npz

Full-cube tracebacks (``align_triplets``, L = 64..160, batches below and above the
resident warps) and global / semiglobal tracebacks beyond the full cube (divide and
conquer, L = 200..600: the benchmark's batches and smaller ones). Prints one row per
case (seconds: the median of three runs after a warm-up) and writes every score and
alignment to OUT.npz, so that variants can be compared exactly.
"""
import sys
import time

import numpy as np

import trimsa
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import _gpu_affine

_gpu_affine.SPLIT = sys.argv[1]
out = sys.argv[2]
aff = Scoring.dna(gap_open=-3, gap_extend=-1)


def strings(rng, T, L):
    return as_sequence_set([(f"s{q}", "".join(rng.choice(list("ACGT"), L)))
                            for q in range(3 * T)], "dna")


saved = {}
print("| case | L | triplets | seconds | cells/s |")
print("|---|---:|---:|---:|---:|")
rng = np.random.default_rng(20261128)
cases = [(64, 4000, "global"), (128, 100, "global"), (128, 1000, "global"),
         (128, 9536, "global"), (160, 300, "global"), (160, 4882, "global"),
         (200, 1250, "global"), (300, 46, "global"), (300, 370, "global"),
         (400, 156, "global"), (600, 12, "global"), (600, 46, "global"),
         (300, 46, "semiglobal"), (400, 156, "local")]
for L, T, mode in cases:
    seqs = strings(rng, T, L)
    trip = np.arange(3 * T).reshape(T, 3)
    trimsa.align_triplets(seqs, trip[:2], scoring=aff, mode=mode, device="gpu")
    ts = []
    for _ in range(3):
        t0 = time.perf_counter()
        al = trimsa.align_triplets(seqs, trip, scoring=aff, mode=mode, device="gpu")
        ts.append(time.perf_counter() - t0)
    t = sorted(ts)[1]
    saved[f"align_{mode}_{L}_{T}"] = np.array([a.score for a in al])
    saved[f"rows_{mode}_{L}_{T}"] = np.concatenate([np.frombuffer("".join(a.rows).encode(),
                                                                  np.uint8) for a in al])
    print(f"| {mode} | {L} | {T} | {t:.4f} | {T * L ** 3 / t:.3e} |", flush=True)
np.savez(out, **saved)
