"""Where the GPU library stage of `trimsa run` spends its time (256 x 490).

    python eval/experiments/2026-11-27-library-profile/library_profile.py FASTA

Wraps the three kernels of trimsa/kernels/pair_library.cu (synchronised before and
after), the host work between them (`in_threads` of _gpu), the index of the library
(`consistency._index`) and the stage as a whole; prints seconds per part, warm run.
"""
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import cupy

from trimsa.io import read_records
from trimsa.progressive import Aligner, _gpu, consistency

T = defaultdict(float)


def timed(name, fn):
    def wrap(*a, **k):
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        out = fn(*a, **k)
        cupy.cuda.Device().synchronize()
        T[name] += time.perf_counter() - t
        return out
    return wrap


orig_functions = _gpu._functions
_gpu._functions = lambda: tuple(timed(n, f) for n, f in
                                zip(("k viterbi", "k band", "k posteriors"), orig_functions()))
_gpu.in_threads = timed("host in_threads", _gpu.in_threads)
consistency._index = timed("index", consistency._index)
_gpu._pair_maps_on = timed("pair_maps_on (all)", _gpu._pair_maps_on)

recs = [(r[0], r[2]) for r in read_records(sys.argv[1])]
Aligner(device="gpu").align(recs[:8])
for rep in range(2):
    T.clear()
    t = time.perf_counter()
    res = Aligner(device="gpu").align(recs)
    total = time.perf_counter() - t
    print(f"run {rep}: total {total:.3f} s; stages:",
          ", ".join(f"{s.name} {s.seconds:.3f}" for s in res.stages))
    for k, v in sorted(T.items()):
        print(f"  {k:24s} {v:.3f} s")
