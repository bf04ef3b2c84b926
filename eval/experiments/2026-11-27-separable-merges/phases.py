import time, numpy as np
from trimsa.io import read_sequences
from trimsa.progressive import consistency, _cpu
from trimsa.progressive.api import Aligner
T = {}
def wrap(name, f):
    def g(*a):
        t = time.perf_counter(); r = f(*a); T[name] = T.get(name, 0) + time.perf_counter() - t; return r
    return g
_cpu.witness_side = wrap("side", _cpu.witness_side)
_cpu.separable_scores = wrap("parts", _cpu.separable_scores)
consistency.Library.scores = wrap("scores", consistency.Library.scores)
seqs = read_sequences(__import__("sys").argv[1])
Aligner(threads=1).align(seqs)
print(T)
