"""A timing input of N x C sequences derived from a FASTA of N: each sequence and C - 1
copies of it with random substitutions (3%) and short indels (Poisson 0.5 events of 1-3
residues). It has no true alignment and no true tree: for time and memory only.

python derive.py INPUT C OUTPUT.fa.gz [--seed S]
"""
import argparse
import gzip

import numpy as np

from trimsa.io import read_sequences

p = argparse.ArgumentParser()
p.add_argument("input")
p.add_argument("copies", type=int)
p.add_argument("output")
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
rng = np.random.default_rng(a.seed)
seqs = read_sequences(a.input)
letters = np.frombuffer(b"ACGT", np.uint8)
with gzip.open(a.output, "wt", compresslevel=1) as out:
    for name, s in zip(seqs.names, seqs.sequences):
        base = np.frombuffer(s.encode(), np.uint8)
        out.write(f">{name}\n{s}\n")
        for c in range(1, a.copies):
            x = base.copy()
            sub = rng.random(x.size) < 0.03
            x[sub] = letters[rng.integers(4, size=int(sub.sum()))]
            for _ in range(rng.poisson(0.5)):
                at = int(rng.integers(x.size))
                k = int(rng.integers(1, 4))
                if rng.random() < 0.5:
                    x = np.concatenate([x[:at], letters[rng.integers(4, size=k)], x[at:]])
                else:
                    x = np.concatenate([x[:at], x[at + k:]])
            out.write(f">{name}_c{c}\n{x.tobytes().decode()}\n")
