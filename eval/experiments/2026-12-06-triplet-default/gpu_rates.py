"""Effective rate (cube cells per second) of sampled triplet designs on the GPU, tune sets:
python3 eval/experiments/2026-12-06-triplet-default/gpu_rates.py .data/tune/*"""
import sys, time
from trimsa.io import read_sequences
from trimsa.tree.distances import triplet_distances

warm = read_sequences(sys.argv[1] + "/input.fa")
triplet_distances(warm, triplets="sampled", time_budget=0.5, device="gpu")
for d in sys.argv[1:]:
    seqs = read_sequences(d + "/input.fa")
    for budget in (0.5, 2.0):
        r = triplet_distances(seqs, triplets="sampled", time_budget=budget, device="gpu")
        t = r.timings["triplets"]
        print(f"{d.split('/')[-1]:24s} budget {budget:4.1f} triplets {r.info['n_triplets']:6d} "
              f"cells {r.info['cells']:.3g} s {t:.2f} rate {r.info['cells'] / t:.3g} "
              f"prior {r.timings['prior']:.2f} share {r.info['swept_share'] or 0:.4f}", flush=True)
