"""Normalised RF to the true trees of `run`'s UPGMA guide tree and of MUSCLE5's biased
linkage on the same distances (sim2/tune msa sets, N <= 256; tune only).

    python eval/experiments/2026-11-27-biased-linkage/rf.py > rf.log

Each set is aligned once by ``Aligner()`` (2 threads) with ``api.METHODS["upgma"]``
wrapped to keep the distance matrix it is given; both trees are then built from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import dendropy
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from biased import tree_with  # noqa: E402
from bench_run import DATA, data_sets  # noqa: E402
from tree_accuracy import nrf  # noqa: E402

from trimsa.progressive import Aligner, api  # noqa: E402

kept = {}
upgma = api.METHODS["upgma"]


def keep(D, names):
    kept["D"] = np.array(D, float)
    return upgma(D, names)


api.METHODS["upgma"] = keep
rows = []
for folder, _inp, _ref, seqs in data_sets("tune", 256, DATA):
    if not folder.name.startswith("msa-") or not (folder / "tree.nwk").is_file():
        continue
    kept.clear()
    Aligner(threads=2).align(seqs)
    if "D" not in kept:
        print(f"{folder.name}: no pairwise distances (k-mer tree)", flush=True)
        continue
    tns = dendropy.TaxonNamespace()
    true = dendropy.Tree.get(path=str(folder / "tree.nwk"), schema="newick",
                             taxon_namespace=tns, preserve_underscores=True)
    a = nrf(true, upgma(kept["D"].copy(), seqs.names).newick())
    b = nrf(true, tree_with(0.1)(kept["D"].copy(), seqs.names).newick())
    rows.append((a, b))
    print(f"{folder.name:28s} N={len(seqs):4d} nRF upgma {a:.3f} biased {b:.3f}", flush=True)
m = np.mean(rows, axis=0)
print(f"\nmean over {len(rows)} sets: upgma {m[0]:.3f}, biased {m[1]:.3f}")
