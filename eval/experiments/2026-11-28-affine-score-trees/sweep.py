"""Guide trees from exact affine pairwise scores, as `trimsa run`'s guide tree (tune only).

    python eval/experiments/2026-11-28-affine-score-trees/sweep.py [--data ../shared/data]
        [--groups real,sim] [--max-n 128] [--variants default,ascore-upgma,ascore-nj]
        [--threads 2] [--out run.tsv]

For every family of ``real/tune`` and every msa set of ``sim2/tune`` with at most ``--max-n``
sequences: ``Aligner()`` with its own guide tree (``default``: UPGMA of the Jukes-Cantor
distances of the library's pairwise alignments), and with a guide tree given as a file,
built from the score deficits of the exact global pairwise scores under the run's affine
scoring (``band_pair_scores`` with a band as wide as the longest sequence, normalised by
``score_distances`` as the triplet source does): ``ascore-upgma`` and ``ascore-nj``. Prints
SPFN / SPFP / TC per set and the group means, and the guide tree's nRF to the true tree
where the set has one. Reads the tune split only.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

import numpy as np  # noqa: E402


def score_tree(seqs, method: str, threads: int):
    from trimsa.scoring import Scoring
    from trimsa.tree import neighbor_joining, score_distances, self_scores, upgma
    from trimsa.tree.distances import random_rate
    from trimsa.triplet import band_pair_scores

    sc = Scoring.for_alphabet(seqs.alphabet, stage="progressive")
    n = len(seqs)
    band = int(seqs.lengths.max())
    iu, ju = np.triu_indices(n, 1)
    ps = band_pair_scores(seqs, np.stack([iu, ju], 1), band=band, scoring=sc, threads=threads)
    est = np.zeros((n, n))
    est[iu, ju] = est[ju, iu] = ps
    selfs = self_scores(seqs, sc)
    np.fill_diagonal(est, selfs)
    rho = random_rate(seqs, triplet=False, band=band, scoring=sc, threads=threads)
    D = score_distances(est, selfs, seqs.lengths, rho)
    return (neighbor_joining if method == "nj" else upgma)(D, seqs.names)


def main():
    from bench_run import data_sets
    from tree_accuracy import nrf

    import dendropy
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--groups", default="real,sim")
    ap.add_argument("--max-n", type=int, default=128)
    ap.add_argument("--variants", default="default,ascore-upgma,ascore-nj")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    groups = args.groups.split(",")
    rows = []
    for folder, inp, ref, seqs in data_sets("tune", args.max_n, Path(args.data)):
        group = "real" if folder.name.startswith("rfam") else "sim"
        if group not in groups or folder.name.startswith("trip-") or len(seqs) < 4:
            continue
        true = None
        if (folder / "tree.nwk").exists():
            true = dendropy.Tree.get(path=str(folder / "tree.nwk"), schema="newick",
                                     preserve_underscores=True)
        for v in names:
            with tempfile.TemporaryDirectory() as d:
                t = time.perf_counter()
                kw = {}
                if v != "default":
                    tree = score_tree(seqs, v.split("-")[1], args.threads)
                    Path(f"{d}/g.nwk").write_text(tree.newick() + "\n")
                    kw["guide_tree"] = f"{d}/g.nwk"
                res = Aligner(threads=args.threads, **kw).align(seqs)
                sec = time.perf_counter() - t
                res.write(f"{d}/a.fa")
                c = compare(str(ref), f"{d}/a.fa")
                rf = nrf(true, res.newick()) if true is not None else float("nan")
            rows.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, rf, sec))
            print(f"{folder.name:40s} {v:14s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"nRF {rf:.3f} {sec:6.1f} s", flush=True)
    print()
    for g in groups:
        for v in names:
            sel = [r for r in rows if r[0] == g and r[3] == v]
            if sel:
                m = np.nanmean([[r[4], r[5], r[6], r[7], r[8]] for r in sel], axis=0)
                print(f"{g:6s} {v:14s} n={len(sel):2d} {m[0]:.4f}/{m[1]:.4f} tc {m[2]:.3f} "
                      f"nRF {m[3]:.3f} {m[4]:6.1f} s")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("group\tset\tN\tvariant\tspfn\tspfp\ttc\tnrf\tseconds\n")
            for r in rows:
                fh.write("\t".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
