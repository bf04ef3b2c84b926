"""Triplet guide tree blended with the pairwise scores it is built around (tune only).

For each set: D_T, the triplet source's distances (``trimsa tree``'s default: the run's
affine scoring, CPU, banded kernels, ``--time-budget``), and D_P, the same score-deficit
distances from the banded pairwise scores of all pairs (the prior's kernel and band).
NJ of D = (1 - lam) D_P + lam D_T for each lam; nRF to the true tree.

    python blend.py --sets DIR,... --budget 30 --out blend.tsv
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import dendropy
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from tree_accuracy import input_path, nrf  # noqa: E402
from trimsa import _numba  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.tree import neighbor_joining, score_distances, self_scores  # noqa: E402
from trimsa.tree.distances import random_rate, triplet_distances  # noqa: E402
from trimsa.triplet import DEFAULT_BAND, band_pair_scores  # noqa: E402

LAMS = (0.0, 0.25, 0.5, 0.75, 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", required=True)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--exact-pairs", action="store_true",
                    help="pairwise scores with a band as wide as the longest sequence")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    _numba.set_threads(args.threads)
    with open(args.out, "w") as fo:
        fo.write("set\tn\tmode\ttriplets\tt_trip\tt_pair\t" + "\t".join(f"lam{x}" for x in LAMS) + "\n")
        for d in args.sets.split(","):
            d = Path(d)
            seqs = read_sequences(input_path(d))
            true = dendropy.Tree.get(path=str(d / "tree.nwk"), schema="newick",
                                     preserve_underscores=True)
            sc = Scoring.for_alphabet(seqs.alphabet, stage="progressive")
            t = time.perf_counter()
            dist = triplet_distances(seqs, scoring=sc, time_budget=args.budget, device="cpu",
                                     threads=args.threads)
            t_trip = time.perf_counter() - t
            n = len(seqs)
            band = int(seqs.lengths.max()) if args.exact_pairs else DEFAULT_BAND
            t = time.perf_counter()
            iu, ju = np.triu_indices(n, 1)
            ps = band_pair_scores(seqs, np.stack([iu, ju], 1), band=band, scoring=sc,
                                  threads=args.threads)
            rho2 = random_rate(seqs, triplet=False, band=band, scoring=sc, seed=0,
                               threads=args.threads)
            est = np.zeros((n, n))
            est[iu, ju] = est[ju, iu] = ps
            selfs = self_scores(seqs, sc)
            np.fill_diagonal(est, selfs)
            DP = score_distances(est, selfs, seqs.lengths, rho2)
            t_pair = time.perf_counter() - t
            DT = dist.matrix
            vals = []
            for lam in LAMS:
                tree = neighbor_joining((1 - lam) * DP + lam * DT, seqs.names)
                vals.append(nrf(true, tree.newick()))
            row = [d.name, str(n), "band" if not args.exact_pairs else "exact",
                   str(dist.info["n_triplets"]), f"{t_trip:.1f}", f"{t_pair:.1f}"] + \
                [f"{v:.4f}" for v in vals]
            print("\t".join(row), flush=True)
            fo.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main()
