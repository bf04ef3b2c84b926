"""The sampled triplet tree's prior: banded scores of all pairs against a partial prior
(the pairs the budget allows, the others from k-mer distances), and the k-mer tree.

    python eval/experiments/2026-11-29-partial-prior/prior.py DIR SET[,SET...] BUDGET VARIANT[,...]

VARIANT: ``partial`` (the prior within half the budget, PRIOR_SHARE 0.5, as first
built), ``partial-no-offsets`` (the same without the per-sequence offsets of the fill:
PRIOR_DAMP 1e12 makes them 0), ``share80`` (the prior's share of the budget 0.8 and the
triplets' least share 0.2, the default since), ``share80-rand10`` and ``share80-rand50``
(the same with PRIOR_RANDOM 0.1 or 0.5 instead of 0.25), ``full`` (PRIOR_SHARE set to infinity:
every pair scored, as before), ``kmer`` (NJ and UPGMA on 6-mer distances). One TSV row per
set and variant, NJ and UPGMA.
"""

import sys
import time
from pathlib import Path

import dendropy

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tree_accuracy import input_path, nrf  # noqa: E402

from trimsa.io import read_sequences  # noqa: E402
from trimsa.tree import build_guide_tree, distances, neighbor_joining, upgma  # noqa: E402

data, sets, budget, variants = Path(sys.argv[1]), sys.argv[2].split(","), float(sys.argv[3]), \
    sys.argv[4].split(",")
print("set\tN\tvariant\tbudget\tnj\tupgma\twall_s\tprior_s\ttriplets\tprior_pairs\tpairs")
for name in sets:
    d = data / name
    seqs = read_sequences(input_path(d))
    true = dendropy.Tree.get(path=str(d / "tree.nwk"), schema="newick",
                             preserve_underscores=True)
    n = len(seqs)
    for v in variants:
        share80 = v.startswith("share80")
        distances.PRIOR_SHARE = float("inf") if v == "full" else 0.8 if share80 else 0.5
        distances.TRIPLET_SHARE = 0.2 if share80 else 0.5
        distances.PRIOR_RANDOM = {"share80-rand10": 0.1, "share80-rand50": 0.5}.get(v, 0.25)
        distances.PRIOR_DAMP = 1e12 if v == "partial-no-offsets" else 0.1
        t = time.perf_counter()
        if v == "kmer":
            D = distances.kmer_distances(seqs, threads=2)
            wall = time.perf_counter() - t
            nj = neighbor_joining(D.matrix, seqs.names).newick()
            up = upgma(D.matrix, seqs.names).newick()
            extra = "\t\t\t"
        else:
            g = build_guide_tree(seqs, threads=2, time_budget=budget, method="nj")
            wall = time.perf_counter() - t
            nj = g.newick()
            up = upgma(g.distances.matrix, seqs.names).newick()
            i = g.distances.info
            extra = f"{g.distances.timings.get('prior', 0):.1f}\t{i['n_triplets']}\t{i['prior_pairs']}"
        print(f"{name}\t{n}\t{v}\t{budget:g}\t{nrf(true, nj):.4f}\t{nrf(true, up):.4f}\t{wall:.1f}\t"
              f"{extra}\t{n * (n - 1) // 2}", flush=True)
