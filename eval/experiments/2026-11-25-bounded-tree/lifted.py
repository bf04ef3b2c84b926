"""trimsa run -v on INPUT with the tree library's budgets lifted to 16 pairs per merge:
what a library at 10^5 sequences would cost (time, memory). No accuracy: the derived
10^5 input has no true alignment.

python lifted.py INPUT OUTPUT
"""
import resource
import sys
import time

from trimsa.io import read_sequences
from trimsa.progressive import Aligner, api

api.TREE_LIBRARY_BYTES = 24 * 2 ** 30
seqs = read_sequences(sys.argv[1])
t = time.perf_counter()
res = Aligner(pairs_per_merge=16, max_library_cells=2e11, threads=0).align(seqs)
for s in res.stages:
    print(s.line(), flush=True)
print(f"total {time.perf_counter() - t:.1f} s, {len(res)} columns, peak RSS "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20:.1f} GB")
res.write(sys.argv[2])
