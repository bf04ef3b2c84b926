"""Split triplets A/B: the affine GPU kernels' rates in the code on PYTHONPATH, with
``_gpu_affine.SPLIT`` set to ARGV[1] where the code has it ("-": leave it).

    python ab.py MODE OUT.npz

Score-only (``score_triplets``) of equal-length random DNA triplets at L = 64..1024
(the benchmark's batch sizes and small batches), full-cube tracebacks (L = 128, 160),
and global / semiglobal tracebacks beyond the full cube (L = 300, 600). Prints one row
per case (seconds: one run after a warm-up) and
writes every score and move to OUT.npz, so that variants can be compared exactly.
"""
import sys
import time

import numpy as np

import trimsa
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import _gpu_affine

mode_arg, out = sys.argv[1], sys.argv[2]
if mode_arg != "-":
    _gpu_affine.SPLIT = mode_arg
aff = Scoring.dna(gap_open=-3, gap_extend=-1)


def strings(rng, T, L):
    return as_sequence_set([(f"s{q}", "".join(rng.choice(list("ACGT"), L)))
                            for q in range(3 * T)], "dna")


def timed(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]


saved = {}
print("| case | L | triplets | seconds | cells/s |")
print("|---|---:|---:|---:|---:|")
rng = np.random.default_rng(20261127)
for L, T in ((64, 76293), (128, 9536), (256, 5960), (256, 400), (512, 745), (512, 100),
             (1024, 93), (1024, 8)):
    seqs = strings(rng, T, L)
    trip = np.arange(3 * T).reshape(T, 3)
    res = {}

    def f():
        res["s"] = trimsa.score_triplets(seqs, trip, scoring=aff, device="gpu")

    t = timed(f, 1)
    saved[f"score_{L}_{T}"] = res["s"]
    print(f"| score-only global | {L} | {T} | {t:.4f} | {T * L ** 3 / t:.3e} |", flush=True)
for L, T, mode in ((128, 1000, "global"), (160, 300, "global"), (300, 46, "global"),
                   (600, 12, "global"), (300, 46, "semiglobal")):
    seqs = strings(rng, T, L)
    trip = np.arange(3 * T).reshape(T, 3)
    trimsa.align_triplets(seqs, trip[:2], scoring=aff, mode=mode, device="gpu")
    t0 = time.perf_counter()
    al = trimsa.align_triplets(seqs, trip, scoring=aff, mode=mode, device="gpu")
    t = time.perf_counter() - t0
    saved[f"align_{mode}_{L}_{T}"] = np.array([a.score for a in al])
    saved[f"rows_{mode}_{L}_{T}"] = np.concatenate([np.frombuffer("".join(a.rows).encode(),
                                                                  np.uint8) for a in al])
    print(f"| traceback {mode} | {L} | {T} | {t:.4f} | {T * L ** 3 / t:.3e} |", flush=True)
np.savez(out, **saved)
