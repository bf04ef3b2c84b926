"""Seconds of the CPU's pruned triplets against their swept and bound cells, per block of
sampled guide-tree designs (tune sets), to set SWEPT_RATE and BOUND_RATE. From the root:
python eval/experiments/2026-12-06-triplet-default/sweep_rates.py [THREADS]"""
import glob, sys, time
import numpy as np
from trimsa.io import read_sequences
from trimsa.tree import distances
from trimsa.triplet import pruned

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
rows = []
orig = pruned.score_cpu
def timed(seqs, block, sc, out, nthreads, work=None):
    t = time.perf_counter(); r = orig(seqs, block, sc, out, nthreads, work)
    b = pruned.loss_cells(seqs.lengths, pruned.pair_plan(len(seqs), block)[0]).sum()
    rows.append((time.perf_counter() - t, work.swept_cells, 2 * b, len(block)))
    return r
pruned.score_cpu = timed
sets = ["sim2/tune/msa-pow-N48-h0.3", "sim2/tune/msa-pow-N48-h1.2", "sim2/tune/msa-pow-N128-h0.7",
        "sim2/tune/msa-pow-N128-h1.2", "sim2/tune/msa-geo-N96-h1.0", "sim2/tune/msa-geo-N32-h0.4"]
sets = ["../shared/data/" + s for s in sets] + sorted(glob.glob("../shared/data/real/tune/*"))[:5]
seqs0 = read_sequences(sets[0] + "/input.fa")
distances.triplet_distances(seqs0, triplets="sampled", time_budget=0.5, threads=threads)  # warm
for s in sets:
    rows.clear()
    seqs = read_sequences(s + "/input.fa")
    distances.triplet_distances(seqs, triplets="sampled", time_budget=4.0, threads=threads)
    A = np.array(rows, dtype=float)
    print(f"{s.split('/')[-1]:28s} blocks {len(A)} s {A[:,0].sum():.2f} swept {A[:,1].sum():.3g} "
          f"bounds {A[:,2].sum():.3g} model {(A[:,1].sum()/distances.SWEPT_RATE + A[:,2].sum()/distances.BOUND_RATE)/threads:.2f}",
          flush=True)
    np.savetxt(sys.stdout, A[:3], fmt="%.4g") if False else None
    allrows = globals().setdefault("ALL", []); allrows.extend(rows)
A = np.array(ALL)
x, *_ = np.linalg.lstsq(A[:, 1:3] / threads, A[:, 0], rcond=None)
print("fit: seconds per swept cell per thread %.3g (rate %.3g), per bound cell %.3g (rate %.3g)"
      % (x[0], 1 / x[0], x[1], 1 / x[1]))
