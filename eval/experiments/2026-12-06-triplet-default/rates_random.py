import time, sys, glob, numpy as np
import trimsa
from trimsa.io import read_sequences
from trimsa.scoring import Scoring
from trimsa.triplet import pruned
from trimsa.triplet.banded import band_triplet_scores
sc=Scoring.dna(1,-1,gap_open=-3,gap_extend=-1)
sets = ["sim2/tune/msa-pow-N128-h0.3","sim2/tune/msa-pow-N128-h0.7","sim2/tune/msa-pow-N128-h1.2","sim2/tune/msa-geo-N96-h1.0","sim2/tune/msa-pow-N48-h1.2"] + sorted(glob.glob("../shared/data/real/tune/*"))[:6]
warm=True
for s in sets:
    p = s if s.startswith("..") else "../shared/data/"+s
    seqs = read_sequences(p+"/input.fa"); n=len(seqs)
    rng=np.random.default_rng(0)
    trip=np.sort(np.array([rng.choice(n,3,replace=False) for _ in range(120)]),axis=1)
    if warm:
        trimsa.score_triplets(seqs, trip[:4], scoring=sc, mode="global", device="cpu"); band_triplet_scores(seqs, trip[:4], band=32, scoring=sc); warm=False
    L=seqs.lengths.astype(float)+1
    cube=float(np.sum(L[trip].prod(axis=1)))
    w=pruned.Work()
    t=time.time(); trimsa.score_triplets(seqs, trip, scoring=sc, mode="global", device="cpu", work=w); te=time.time()-t
    t=time.time(); band_triplet_scores(seqs, trip, band=32, scoring=sc); tb=time.time()-t
    print(f"{s.split('/')[-1]:28s} n={n} L={L.mean():.0f} exact {te/120*1e3:.1f} ms/trip share {w.swept_cells/w.cube_cells:.3f} eff/thread {cube/te/2:.3g} | band32 {tb/120*1e3:.1f} ms", flush=True)
