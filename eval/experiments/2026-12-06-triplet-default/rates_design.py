import sys, glob
from trimsa.tree.distances import triplet_distances
from trimsa.io import read_sequences
sets = ["sim2/tune/msa-pow-N48-h0.3","sim2/tune/msa-pow-N48-h1.2","sim2/tune/msa-pow-N128-h1.2","sim2/tune/msa-geo-N96-h1.0","sim2/tune/msa-geo-N32-h1.0"] + sorted(glob.glob("../shared/data/real/tune/*"))[:4]
for s in sets:
    p = s if s.startswith("..") else "../shared/data/"+s
    seqs=read_sequences(p+"/input.fa")
    d=triplet_distances(seqs, triplets="sampled", time_budget=4.0, threads=1)
    t=d.timings["triplets"]; i=d.info
    print(f"{p.split('/')[-1]:28s} n={len(seqs)} trip={i['n_triplets']} cells={i['cells']:.3g} swept={i['swept_share']:.4f} t={t:.2f}s eff/thread={i['cells']/t:.3g}", flush=True)
