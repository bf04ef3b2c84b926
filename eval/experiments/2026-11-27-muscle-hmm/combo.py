"""`run` with several of MUSCLE5's choices at once (tune only; a diagnostic).

    python eval/experiments/2026-11-27-muscle-hmm/combo.py hmm+link+mea+unif+allwit

Parts (any subset, joined by +): ``hmm`` MUSCLE5's emissions and gaps (``muscle_hmm``),
``link`` MUSCLE5's guide-tree linkage (``../2026-11-27-biased-linkage``), ``mea`` merges
scored by the library's support alone, ``unif`` every sequence weighted 1, ``allwit``
every sequence a witness. Run from the repository root.
"""
import sys
import numpy as np
sys.path.insert(0, "eval/experiments/2026-11-24-sparse-library")
sys.path.insert(0, "eval/experiments/2026-11-27-muscle-hmm")
sys.path.insert(0, "eval/experiments/2026-11-27-biased-linkage")
from sparse import run_sets, report
import muscle_hmm
from biased import tree_with
from trimsa.progressive import api, engine
which = sys.argv[1]
if "hmm" in which:
    muscle_hmm.patch("muscle")
if "link" in which:
    api.METHODS["upgma"] = tree_with(0.1)
if "mea" in which:
    orig = api.Aligner._walk
    def _walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages):
        if library is not None:
            sc = engine.ProfileScoring(np.zeros_like(sc.table), 0.0, 0.0, sc.term)
        return orig(self, seqs, codes, sc, btree, threads, progress, library, design, stages)
    api.Aligner._walk = _walk
if "unif" in which:
    engine.tree_weights = lambda tree: np.ones(tree.n)
opts = {"max_witnesses": None} if "allwit" in which else {}
rows = run_sets({which: opts}, data="../shared/data", max_n=256, threads=2)
report(rows, [which], sys.argv[2] if len(sys.argv) > 2 else None)
