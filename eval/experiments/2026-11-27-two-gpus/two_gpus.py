"""On a machine with two GPUs: triplet scores (linear and affine) and the consistency
library of ``trimsa run`` on GPU 0 alone and on both, which must be equal, and their
times; then ``trimsa run`` of FASTA ARGV[1] with ``gpus=(0,)`` and ``gpus=(0, 1)``.

    python two_gpus.py INPUT.fa[.gz]
"""
import sys
import time

import numpy as np

import trimsa
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


rng = np.random.default_rng(20261127)
seqs = as_sequence_set([(f"s{q}", "".join(rng.choice(list("ACGT"), int(n))))
                        for q, n in enumerate(rng.integers(150, 400, 60))], "dna")
trip = rng.integers(0, len(seqs), (200_000, 3)).astype(np.int32)
print("| what | GPUs | seconds | equal to GPU 0 alone |")
print("|---|---|---:|---|")
for name, sc, T in (("linear -3 scores, 200,000 triplets", Scoring.dna(gap=-3), 200_000),
                    ("affine -3/-1 scores, 20,000 triplets", Scoring.dna(gap_open=-3, gap_extend=-1),
                     20_000)):
    part = trip[:T]
    trimsa.score_triplets(seqs, part[:100], scoring=sc, device="gpu", gpus=[0, 1])
    one, t1 = timed(lambda: trimsa.score_triplets(seqs, part, scoring=sc, device="gpu", gpus=[0]))
    two, t2 = timed(lambda: trimsa.score_triplets(seqs, part, scoring=sc, device="gpu",
                                                  gpus=[0, 1]))
    print(f"| {name} | 0 | {t1:.2f} | |")
    print(f"| {name} | 0,1 | {t2:.2f} | {np.array_equal(one, two)} |", flush=True)
for gpus in ((0,), (0, 1), (0,), (0, 1)):
    aln, t = timed(lambda: trimsa.Aligner(device="gpu", gpus=gpus).align(sys.argv[1]))
    lib = [s for s in aln.stages if s.name == "library"]
    if gpus == (0,):
        ref = aln.rows
    print(f"| `Aligner(device='gpu', gpus={gpus}).align` of {sys.argv[1].split('/')[-1]} "
          f"(library {lib[0].seconds:.2f} s on {lib[0].device}) | {','.join(map(str, gpus))} | "
          f"{t:.2f} | {aln.rows == ref} |", flush=True)
