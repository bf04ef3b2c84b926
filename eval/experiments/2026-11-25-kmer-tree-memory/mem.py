"""Peak memory and time of the k-mer UPGMA guide tree of the simulated n10k set, and an md5 of
its Newick (to compare the trees of two commits).

    python eval/experiments/2026-11-25-kmer-tree-memory/mem.py   # from the repository root
"""
import resource, time
import numpy as np
from trimsa.io import read_sequences
from trimsa.tree import build_guide_tree
seqs = read_sequences(".data/n10k/input.fa.gz")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
tree = build_guide_tree(seqs, distances="kmer", method="upgma")
print(f"{time.perf_counter()-t:.1f} s, peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/2**20:.2f} GB (before the tree {base/2**20:.2f} GB)", __import__("hashlib").md5(tree.newick().encode()).hexdigest())
