"""Time spent in the library support (Library.scores) and the profile DP
(engine.align_profiles) of the merges of one run, one thread:

    python eval/experiments/2026-11-24-gpu-merges/merge_profile.py INPUT.fa
"""
import time, sys
from trimsa.progressive import Aligner, engine, consistency
acc = {"scores": 0.0, "dp": 0.0}
s0 = consistency.Library.scores
def scores(self, *a, **k):
    t = time.perf_counter(); r = s0(self, *a, **k); acc["scores"] += time.perf_counter() - t; return r
consistency.Library.scores = scores
d0 = engine.align_profiles
def dp(*a, **k):
    t = time.perf_counter(); r = d0(*a, **k); acc["dp"] += time.perf_counter() - t; return r
engine.align_profiles = dp
res = Aligner(threads=1, device="cpu").align(sys.argv[1])
for s in res.stages: print(s.line())
print(acc)
