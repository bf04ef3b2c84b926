"""Peak memory of the triplet source (``tracemalloc``, in ``n x n`` float64 arrays) on the
3,000-sequence tune set with a 5 s budget (a partial prior), for ``TRIPLET_ARRAYS``.

    python eval/experiments/2026-11-29-partial-prior/memory.py DIR/msa-scale-N3000-h0.5/input.fa.gz
"""

import sys
import tracemalloc

from trimsa.io import read_sequences
from trimsa.tree import distances

seqs = read_sequences(sys.argv[1])
n = len(seqs)
unit = 8.0 * n * n
tracemalloc.start()
for name in ("pairwise_prior", "score_distances", "sample_triplets", "ls_triplets"):
    f = getattr(distances, name)

    def wrapped(*a, _f=f, _name=name, **k):
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = _f(*a, **k)
        cur, peak = tracemalloc.get_traced_memory()
        print(f"{_name}: peak +{(peak - base) / unit:.1f}, kept +{(cur - base) / unit:.1f}",
              flush=True)
        return out

    setattr(distances, name, wrapped)
tracemalloc.reset_peak()
distances.triplet_distances(seqs, threads=2, time_budget=5)
print(f"n = {n}: peak {tracemalloc.get_traced_memory()[1] / unit:.1f} n x n float64 arrays "
      f"(TRIPLET_ARRAYS = {distances.TRIPLET_ARRAYS})")
