"""NJ's joins of the working tree against the kernel of a base commit, alternated in one
process on the same matrices; checks that both give the same joins and lengths.

    python eval/experiments/2026-11-29-nj-compact/ab.py [--base 1ea4258] [--sizes 2000,4000]
        [--matrix euclid | --matrix tiled --fasta SET.fa]

``euclid``: distances of random points in 8 dimensions. ``tiled``: the k-mer distances
of the sequences of ``--fasta``, drawn with repeats to each size, plus uniform noise
(0-0.05) made symmetric: a tree-like matrix of any size.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from trimsa import _numba
from trimsa.tree import _cpu as new

ROOT = Path(__file__).resolve().parents[3]


def old_kernel(base: str, base_file: str | None = None):
    if base_file is not None:   # the base's trimsa/tree/_cpu.py, saved (a checkout without it)
        src = Path(base_file).read_text()
    else:
        src = subprocess.run(["git", "show", f"{base}:trimsa/tree/_cpu.py"], cwd=ROOT,
                             check=True, capture_output=True, text=True).stdout
    src = src.replace("from .._numba import", "from trimsa._numba import")
    path = Path(tempfile.mkdtemp()) / "old_tree_cpu.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("old_tree_cpu", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="1ea4258")
    ap.add_argument("--sizes", default="2000,4000")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--matrix", choices=("euclid", "tiled"), default="euclid")
    ap.add_argument("--fasta", default=None)
    ap.add_argument("--base-file", default=None,
                    help="the base commit's trimsa/tree/_cpu.py, where git cannot show it")
    args = ap.parse_args()
    if args.matrix == "tiled":
        from trimsa.io import read_sequences
        from trimsa.tree.distances import kmer_distances

        K = kmer_distances(read_sequences(args.fasta), threads=args.threads).matrix
    threads = _numba.set_threads(args.threads)
    old = old_kernel(args.base, args.base_file)
    small = np.random.default_rng(1).random((50, 50))
    small = small + small.T
    for k in (old, new):   # compile
        k.nj_joins(small.copy())
    print(f"threads {threads}, base {args.base}, matrix {args.matrix} {args.fasta or ''}")
    print("| n | base s | working tree s | ratio | same joins |")
    print("|---:|---:|---:|---:|---|")
    for n in (int(x) for x in args.sizes.split(",")):
        rng = np.random.default_rng(n)
        if args.matrix == "tiled":
            idx = rng.integers(0, K.shape[0], n)
            D = K[np.ix_(idx, idx)] + rng.random((n, n)) * 0.05
            D = (D + D.T) / 2
            np.fill_diagonal(D, 0.0)
        else:
            X = rng.random((n, 8))
            D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
        times = {"old": [], "new": []}
        out = {}
        for _ in range(args.rounds):
            for name, k in (("old", old), ("new", new)):
                A = D.copy()
                t = time.perf_counter()
                out[name] = k.nj_joins(A)
                times[name].append(time.perf_counter() - t)
        same = (np.array_equal(out["old"][0], out["new"][0])
                and np.array_equal(out["old"][1], out["new"][1]))
        a, b = min(times["old"]), min(times["new"])
        print(f"| {n} | {a:.2f} | {b:.2f} | {a / b:.2f} | {same} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
