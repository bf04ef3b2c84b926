"""Where the bounded-memory k-mer tree spends its time, phase by phase.

    python profile.py INPUT DEVICE [N]

The phases of trimsa.tree.bounded.upgma_joins run one by one (first K = 64, the default
dense budget of 2 GiB), and the passes over all pairs once more without their host work
(the blocks alone: on a GPU, the kernel and the copy back).
"""

import sys
import time

import numpy as np

from trimsa.io import read_sequences
from trimsa.tree import _cpu, bounded
from trimsa.tree.api import MATRIX_BYTES
from trimsa.tree.distances import KmerSets


def main():
    seqs = read_sequences(sys.argv[1])
    device = sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else len(seqs)
    recs = list(zip(seqs.names[:n], seqs.sequences[:n]))
    KmerSets.of(recs[:64], device=device).distance_matrix()   # warm-up
    T = time.perf_counter
    t = T()
    ks = KmerSets.of(recs, device=device)
    print(f"k-mer sets ({ks.where}): {T() - t:.1f} s")
    every = np.arange(n, dtype=np.int64)
    t = T()
    for _ in ks.blocks(every, every):
        pass
    print(f"blocks of all pairs alone: {T() - t:.1f} s")
    t = T()
    nb, nbd, radius = bounded.neighbours(ks, bounded.NEIGHBOURS)
    print(f"neighbours pass: {T() - t:.1f} s")
    m = int(np.sqrt(MATRIX_BYTES / 8.0))
    t = T()
    steps, joins, _, ev = _cpu.sparse_upgma(ks.bits, ks.counts, nb, nbd, radius, m)
    print(f"sparse_upgma: {T() - t:.1f} s ({steps} joins, {ev:.0f} pairs evaluated)")
    owner = bounded.clusters_of(n, joins[:steps])
    sizes = np.bincount(np.unique(owner, return_inverse=True)[1])
    print(f"clusters: {sizes.size}, largest {sizes.max()}")
    orig = _cpu.upgma_sized_joins

    def timed(M, size):
        t1 = T()
        out = orig(M, size)
        print(f"  of which upgma_sized_joins: {T() - t1:.1f} s")
        return out

    _cpu.upgma_sized_joins = timed
    t = T()
    bounded.dense_rest(ks, owner)
    print(f"dense_rest: {T() - t:.1f} s")


if __name__ == "__main__":
    main()
