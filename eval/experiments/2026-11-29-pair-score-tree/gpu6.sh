#!/bin/bash
# The banded pairwise kernel on the GPU: its tests, its rate on the 3,000-sequence tune
# set (all 4.5 million pairs, band 32, after a warm-up), trimsa tree on the GPU, the suite.
date -u
python3 -m pytest -q -p no:cacheprovider tests/test_tree.py -k "gpu or pair_score" 2>&1 | tail -3
date -u
python3 - <<'PY'
import time
import numpy as np
from trimsa.io import read_sequences
from trimsa.scoring import Scoring
from trimsa.triplet import band_pair_scores
seqs = read_sequences(".data/dev/tt/msa-scale-N3000-h0.5/input.fa.gz")
sc = Scoring.for_alphabet(seqs.alphabet, stage="progressive")
n = len(seqs)
iu, ju = np.triu_indices(n, 1)
pairs = np.stack([iu, ju], 1)
L = seqs.lengths
cells = int(np.sum(np.maximum(L[iu], L[ju]) + 1)) * 65
band_pair_scores(seqs, pairs[:1000], band=32, scoring=sc, device="gpu")
for rep in range(2):
    t = time.perf_counter()
    g = band_pair_scores(seqs, pairs, band=32, scoring=sc, device="gpu")
    dt = time.perf_counter() - t
    print(f"gpu all {len(pairs)} pairs: {dt:.2f} s, {cells / dt:.3g} cells/s", flush=True)
sub = pairs[::50]
t = time.perf_counter()
c = band_pair_scores(seqs, sub, band=32, scoring=sc, threads=16)
dt = time.perf_counter() - t
sc_cells = int(np.sum(np.maximum(L[sub[:, 0]], L[sub[:, 1]]) + 1)) * 65
print(f"cpu 16 threads {len(sub)} pairs: {dt:.2f} s, {sc_cells / dt:.3g} cells/s; equal to the gpu's: {np.array_equal(c, g[::50])}", flush=True)
PY
date -u
python3 -m trimsa tree .data/dev/tt/msa-scale-N3000-h0.5/input.fa.gz -o $OUT/n3000_gpu.nwk -v -q --device gpu 2>&1 | tail -2
date -u
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests 2>&1 | tail -4
date -u
