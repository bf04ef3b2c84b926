"""Library.scores time over one run's merges, per-cluster sums on and off, alternated.
Usage: python timing.py INPUT.fa THREADS ROUNDS"""
import sys
import time

from trimsa.io import read_sequences
from trimsa.progressive import consistency
from trimsa.progressive.api import Aligner

path, threads, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
orig_scores = consistency.Library.scores
orig_sep = consistency.Library.separable
spent = [0.0]


def timed(self, *a):
    t = time.perf_counter()
    C = orig_scores(self, *a)
    spent[0] += time.perf_counter() - t
    return C


consistency.Library.scores = timed
seqs = read_sequences(path)
rows = {}
for r in range(rounds):
    for mode in ("current", "per-cluster"):
        consistency.Library.separable = orig_sep if mode == "per-cluster" else (lambda self: False)
        spent[0] = 0.0
        t = time.perf_counter()
        res = Aligner(threads=threads).align(seqs)
        merges = [s.seconds for s in res.stages if s.name == "merges"][0]
        rows.setdefault(mode, []).append((spent[0], merges))
        print(f"round {r} {mode:12s} scores {spent[0]:.3f} s  merges stage {merges:.3f} s", flush=True)
