"""How much of the merges' support (`Library.scores`) goes into listing each sequence's
votes (`_cpu.support_entries`, once per sequence of A and band of rows) rather than adding
them. Usage: python entries_cost.py INPUT.fa [threads]"""
import sys
import time

import numpy as np

from trimsa._numba import jit
from trimsa.io import read_sequences
from trimsa.progressive import _cpu, consistency
from trimsa.progressive.api import Aligner


@jit
def entries_only(mem_a, mem_b, nbr_ptr, nbr, nbr_map, nbr_trust, w, is_witness, parts):
    """support_entries for every s of A, ``parts`` times (as the bands of rows do)."""
    count = np.zeros(mem_b.size, np.float64)
    most = 1
    for s in mem_a:
        most = max(most, _cpu.entry_bound(s, nbr_ptr, nbr, is_witness))
    e_o1 = np.empty(most, np.int64)
    e_o2 = np.empty(most, np.int64)
    e_t = np.empty(most, np.int64)
    e_w = np.empty(most, np.float32)
    total = 0
    for _ in range(parts):
        z = 0.0
        for s in mem_a:
            ne, z = _cpu.support_entries(s, mem_b, nbr_ptr, nbr, nbr_map, nbr_trust, w,
                                         is_witness, count, z, e_o1, e_o2, e_t, e_w)
            total += ne
    return total


path = sys.argv[1]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
orig = consistency.Library.scores
spent = {"scores": 0.0, "entries": 0.0, "entries_once": 0.0, "n_entries": 0, "merges": 0}


def timed(self, la, lb, mem_a, mem_b, w, threads=1):
    t = time.perf_counter()
    C = orig(self, la, lb, mem_a, mem_b, w, threads)
    spent["scores"] += time.perf_counter() - t
    a = np.asarray(mem_a, np.int64)
    b = np.sort(np.asarray(mem_b, np.int64))
    parts = consistency.score_parts(a.size, b.size, la)
    t = time.perf_counter()
    spent["n_entries"] += entries_only(a, b, self.nbr_ptr, self.nbr, self.nbr_map,
                                       self.nbr_trust, w, self.is_witness, parts) // parts
    spent["entries"] += time.perf_counter() - t
    spent["merges"] += 1
    return C


consistency.Library.scores = timed
seqs = read_sequences(path)
res = Aligner(threads=threads).align(seqs)
for st in res.stages:
    print(st.name, st.method, st.device, f"{st.seconds:.2f} s")
print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in spent.items()})
