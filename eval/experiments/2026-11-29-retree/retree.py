"""A second guide tree from the first alignment (MAFFT's FFT-NS-2 idea; tune only).

    python eval/experiments/2026-11-29-retree/retree.py [--max-n 256] [--threads 2] [--out F]

For every family of ``real/tune`` and every msa set of ``sim2/tune`` with N <= max-n:
``Aligner()`` (the default), then the same aligner along a second tree: UPGMA (or NJ) of
Jukes-Cantor distances between the rows of the first alignment (shares of differing
residues over the columns where both rows have one, ``corrected_distance``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_run import data_sets  # noqa: E402

from trimsa.evaluate import compare  # noqa: E402
from trimsa.progressive import Aligner  # noqa: E402
from trimsa.progressive.api import corrected_distance  # noqa: E402
from trimsa.tree import neighbor_joining, upgma  # noqa: E402


def msa_distances(rows, states=4):
    """Corrected p-distances between the rows of an alignment (upper case letters)."""
    A = np.array([np.frombuffer(r.upper().encode(), dtype=np.uint8) for r in rows])
    gap = (A == ord("-")) | (A == ord("."))
    n = len(rows)
    D = np.zeros((n, n))
    for i in range(n):
        both = ~gap[i] & ~gap[i + 1:]
        diff = (A[i] != A[i + 1:]) & both
        cnt = both.sum(1)
        p = np.where(cnt > 0, diff.sum(1) / np.maximum(cnt, 1), 0.75)
        D[i, i + 1:] = D[i + 1:, i] = corrected_distance(p, states)
    return D


def score(res, ref):
    with tempfile.TemporaryDirectory() as d:
        res.write(f"{d}/a.fa")
        return compare(ref, f"{d}/a.fa")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = open(args.out, "w") if args.out else sys.stdout
    out.write("group\tset\tN\tvariant\tspfn\tspfp\ttc\tseconds\n")
    for folder, _inp, ref, seqs in data_sets("tune", args.max_n, Path(args.data)):
        if folder.name.startswith("trip-"):
            continue
        group = "real" if folder.name.startswith("rfam") else "sim2"
        t = time.perf_counter()
        first = Aligner(threads=args.threads).align(seqs)
        t1 = time.perf_counter() - t
        c = score(first, ref)
        out.write(f"{group}\t{folder.name}\t{len(seqs)}\tdefault\t{c.spfn:.4f}\t{c.spfp:.4f}\t"
                  f"{c.tc:.4f}\t{t1:.2f}\n")
        names = [r.id for r in first.alignment]
        D = msa_distances([str(r.seq) for r in first.alignment])
        for label, method in (("retree-upgma", upgma), ("retree-nj", neighbor_joining)):
            tree = method(D, names)
            with tempfile.TemporaryDirectory() as d:
                path = Path(d) / "t.nwk"
                path.write_text(tree.newick() + "\n")
                t = time.perf_counter()
                res = Aligner(threads=args.threads, guide_tree=str(path)).align(seqs)
                t2 = time.perf_counter() - t
            c = score(res, ref)
            out.write(f"{group}\t{folder.name}\t{len(seqs)}\t{label}\t{c.spfn:.4f}\t"
                      f"{c.spfp:.4f}\t{c.tc:.4f}\t{t1 + t2:.2f}\n")
        out.flush()


if __name__ == "__main__":
    main()
