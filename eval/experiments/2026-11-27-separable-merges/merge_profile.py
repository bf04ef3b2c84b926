"""Where the merges of one `trimsa run` spend their time: the library's support
(`Library.scores`) against the rest (profile DP, bookkeeping). Usage:
    python merge_profile.py INPUT.fa [threads]
"""
import sys
import time

import numpy as np

from trimsa.io import read_sequences
from trimsa.progressive import consistency, engine
from trimsa.progressive.api import Aligner

path = sys.argv[1]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
spent = {"scores": 0.0, "calls": 0, "pairs": 0}
orig = consistency.Library.scores


def timed(self, la, lb, mem_a, mem_b, w, threads=1):
    t = time.perf_counter()
    C = orig(self, la, lb, mem_a, mem_b, w, threads)
    spent["scores"] += time.perf_counter() - t
    spent["calls"] += 1
    spent["pairs"] += len(mem_a) * len(mem_b)
    return C


consistency.Library.scores = timed
seqs = read_sequences(path)
res = Aligner(threads=threads).align(seqs)
for st in res.stages:
    print(st)
print(f"Library.scores: {spent['scores']:.3f} s over {spent['calls']} merges, {spent['pairs']} pairs")
