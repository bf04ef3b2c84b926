"""MUSCLE5's guide-tree linkage for `run`'s merges (tune only).

    python eval/experiments/2026-11-27-biased-linkage/biased.py VARIANT [--out run.tsv]

MUSCLE5 (5.1.0, ``mpcflat.cpp`` ``CalcGuideTree``, ``upgma5.cpp``) clusters its distances
(1 - expected accuracy) with a "biased" linkage: the distance of a new cluster to another
is 0.1 times the mean of its two children's distances plus 0.9 times the smaller one,
close to single linkage. ``run``'s guide tree is UPGMA (size-weighted average linkage)
of the Jukes-Cantor-corrected distances of the library's pairwise alignments.
``VARIANT``:

- ``default``: the package;
- ``biased``: the same distances, MUSCLE5's linkage (patching ``api.METHODS["upgma"]``);
- ``single``: the same distances, single linkage (the limit of ``biased``).

The patch replaces UPGMA wherever ``run`` builds a tree, so the sets beyond the library of
all pairs (their guide tree from k-mer distances) get the new linkage too.

Runs every family of ``real/tune`` and every msa set of ``sim2/tune`` with N <= 256 (the
runner of ``../2026-11-24-sparse-library``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import report, run_sets  # noqa: E402

from trimsa.progressive import api  # noqa: E402
from trimsa.tree import GuideTree  # noqa: E402
from trimsa.tree.cluster import check_matrix  # noqa: E402


def linkage_joins(D, share_avg: float):
    """Agglomerative clustering: the closest two clusters (lowest slot pair on ties) join;
    the new cluster's distance to another is ``share_avg`` times the mean of its children's
    distances plus ``1 - share_avg`` times the smaller. Returns ``(joins, heights)`` as
    :func:`trimsa.tree._cpu.upgma_joins`."""
    n = D.shape[0]
    M = np.array(D, float)
    np.fill_diagonal(M, np.inf)
    node = np.arange(n)
    joins = np.zeros((n - 1, 2), np.int64)
    heights = np.zeros(n - 1)
    for s in range(n - 1):
        k = int(np.argmin(M))
        i, j = divmod(k, n)
        i, j = min(i, j), max(i, j)
        d = M[i, j]
        joins[s] = sorted((node[i], node[j]))
        heights[s] = 0.5 * d
        new = np.minimum(M[i], M[j])
        if share_avg > 0:   # (inf stays inf; 0 * inf would not)
            new = share_avg * 0.5 * (M[i] + M[j]) + (1 - share_avg) * new
        M[i, :] = new
        M[:, i] = new
        M[i, i] = np.inf
        M[j, :] = np.inf
        M[:, j] = np.inf
        node[i] = n + s
    order = np.argsort(heights, kind="stable")
    assert np.all(order == np.arange(n - 1))  # reducible linkage: heights never decrease
    return joins, heights


def tree_with(share_avg: float):
    def build(D, names):
        names = tuple(names)
        D = check_matrix(D, names)
        joins, heights = linkage_joins(D, share_avg)
        return GuideTree.from_heights(names, joins, heights, method="upgma")
    return build


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variant", choices=("default", "biased", "single"))
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.variant != "default":
        api.METHODS["upgma"] = tree_with(0.1 if args.variant == "biased" else 0.0)
    rows = run_sets({args.variant: {}}, data=args.data, max_n=256, threads=args.threads)
    report(rows, [args.variant], args.out)


if __name__ == "__main__":
    main()
