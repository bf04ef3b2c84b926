"""Bounded-memory UPGMA (trimsa.tree.bounded) against dense UPGMA on k-mer distances.

python compare.py INPUT TRUE_TREE BUDGET_BYTES [--dense] [--threads T]

Prints the bounded tree's time, how it was built, its peak RSS so far, and the
normalised Robinson-Foulds distance (unrooted) to the true tree; with --dense also the
dense tree's time, its nRF to the true tree and the nRF between the two trees.
"""
import argparse
import resource
import time

import dendropy
from dendropy.calculate import treecompare

from trimsa.io import read_sequences
from trimsa.tree import build_guide_tree

p = argparse.ArgumentParser()
p.add_argument("input")
p.add_argument("true_tree")
p.add_argument("budget", type=float)
p.add_argument("--dense", action="store_true")
p.add_argument("--threads", type=int, default=0)
a = p.parse_args()
seqs = read_sequences(a.input)
n = len(seqs)
tns = dendropy.TaxonNamespace()


def unrooted(newick):
    t = dendropy.Tree.get(data=newick, schema="newick", taxon_namespace=tns,
                          rooting="force-unrooted", preserve_underscores=True)
    t.encode_bipartitions()
    return t


def nrf(x, y):
    return treecompare.symmetric_difference(x, y) / (2 * (n - 3))


true = dendropy.Tree.get(path=a.true_tree, schema="newick", taxon_namespace=tns,
                         rooting="force-unrooted", preserve_underscores=True)
true.encode_bipartitions()
t = time.perf_counter()
bt = build_guide_tree(seqs, distances="kmer", method="upgma", matrix_bytes=a.budget,
                      threads=a.threads)
tb = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
b = unrooted(bt.newick())
print(f"{a.input}: n = {n}, budget {a.budget:.3g} bytes")
print(f"  bounded: {tb:.1f} s, peak RSS {peak:.2f} GB, {bt.distances.describe()}, "
      f"evaluated {bt.distances.info.get('evaluated', 0):.0f} pairs; nRF to true {nrf(b, true):.4f}",
      flush=True)
if a.dense:
    t = time.perf_counter()
    dt = build_guide_tree(seqs, distances="kmer", method="upgma", threads=a.threads)
    td = time.perf_counter() - t
    d = unrooted(dt.newick())
    print(f"  dense:   {td:.1f} s; nRF to true {nrf(d, true):.4f}; nRF bounded-dense "
          f"{nrf(b, d):.4f}; same Newick {dt.newick() == bt.newick()}")
