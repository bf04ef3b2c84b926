"""Which score-to-distance transform makes the best NJ/UPGMA trees?

Exact pairwise global scores (Biopython ``PairwiseAligner``, match 1,
mismatch -1, gap -2) of every pair of each data set, turned into distances
three ways, then NJ and UPGMA (trimsa.tree), normalised RF to the true tree:

* ``fd``: Feng-Doolittle ``-ln x`` with ``x = (s - e) / (m - e)`` (e: expected
  score of unrelated sequences, from shuffles; m: mean self-score);
* ``deficit``: ``1 - x``;
* ``jc``: Jukes-Cantor on a mismatch fraction read from the score deficit,
  ``q = (m - s) / (2 (Li + Lj) / 2)`` (DNA with +1/-1 only; no random baseline).

Usage: ``python eval/experiments/tree/tree_distances.py msa-N64-h0.2,msa-N64-h0.5,...``
"""

from __future__ import annotations

import sys
from pathlib import Path

import dendropy
import numpy as np
from Bio.Align import PairwiseAligner

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(ROOT))

from tree_accuracy import DATA, input_path, nrf  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.tree import (  # noqa: E402
    neighbor_joining,
    random_rate,
    score_distances,
    self_scores,
    upgma,
)


def main(names):
    al = PairwiseAligner(mode="global", match_score=1, mismatch_score=-1, gap_score=-2)
    print("dataset\tdistance\tnj_nRF\tupgma_nRF")
    for name in names:
        d = DATA / name
        seqs = read_sequences(input_path(d))
        n = len(seqs)
        sc = Scoring.for_alphabet(seqs.alphabet)
        true = dendropy.Tree.get(path=str(d / "tree.nwk"), schema="newick",
                                 preserve_underscores=True)
        iu, ju = np.triu_indices(n, 1)
        strs = [s.upper() for s in seqs.sequences]
        ps = np.array([al.score(strs[i], strs[j]) for i, j in zip(iu, ju)])
        est = np.zeros((n, n))
        est[iu, ju] = est[ju, iu] = ps
        selfs = self_scores(seqs, sc)
        np.fill_diagonal(est, selfs)
        rho = random_rate(seqs, triplet=False, band=32)
        L = seqs.lengths.astype(float)
        mm = (selfs[:, None] + selfs[None, :]) / 2
        q = (mm - est) / (L[:, None] + L[None, :])
        jc = -0.75 * np.log(np.clip(1 - 4 / 3 * q, 1e-3, 1))
        np.fill_diagonal(jc, 0)
        for kind in ("fd", "deficit", "jc"):
            D = jc if kind == "jc" else score_distances(est, selfs, seqs.lengths, rho, kind=kind)
            a = nrf(true, neighbor_joining(D, seqs.names).newick())
            b = nrf(true, upgma(D, seqs.names).newick())
            print(f"{name}\t{kind}\t{a:.3f}\t{b:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","))
