"""A 10,000-sequence timing input for `trimsa tree` (not for accuracy): the 3,000
sequences of sim2/tune msa-scale-N3000-h0.5, then three copies of them with 5 % of the
residues replaced at random, cut at 10,000. python n10k.py IN.fa.gz OUT.fa; then
/usr/bin/time -v trimsa tree OUT.fa -o n10k.nwk -v -q --threads 2 (n10k.log)."""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/eval/", 1)[0])
from trimsa.io import read_sequences  # noqa: E402

s = read_sequences(sys.argv[1])
rng = np.random.default_rng(3)
letters = np.array(list("ACGT"))
k = 0
with open(sys.argv[2], "w") as out:
    for rep in range(4):
        for seq in s.sequences:
            if k >= 10000:
                break
            a = np.array(list(seq))
            if rep:
                flip = rng.random(a.size) < 0.05
                a[flip] = rng.choice(letters, flip.sum())
            out.write(f">s{k}\n{''.join(a)}\n")
            k += 1
