"""Time ``trimsa.evaluate.compare`` on a large synthetic pair of alignments.

Usage: ``python eval/bench_evaluate.py [--seqs 1000] [--cols 15000] [--reps 3]``

Builds a random reference (residues with 30% gaps), derives an estimate by
moving each row's gaps around, writes both as FASTA in a temporary folder and
times ``compare`` on the paths (reading included) and on the in-memory rows.
Prints one table row per measurement. The current result is
``eval/results/bench_evaluate.md`` (this output, with the machine and the
command above it; listed in ``eval/results/README.md``).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from trimsa.evaluate import compare  # noqa: E402


def make_pair(n: int, cols: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGT", np.uint8)
    ref_rows, est_rows = [], []
    for i in range(n):
        row = letters[rng.integers(0, 4, cols)].copy()
        gaps = rng.random(cols) < 0.3
        row[gaps] = ord("-")
        residues = row[~gaps]
        # estimate: the same residues, gaps re-drawn at random positions
        est = np.full(cols, ord("-"), np.uint8)
        pos = np.sort(rng.choice(cols, residues.size, replace=False))
        est[pos] = residues
        ref_rows.append((f"s{i}", row.tobytes().decode()))
        est_rows.append((f"s{i}", est.tobytes().decode()))
    return ref_rows, est_rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seqs", type=int, default=1000)
    ap.add_argument("--cols", type=int, default=15000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    ref, est = make_pair(args.seqs, args.cols)
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}, numpy {np.__version__}")
    print(f"# {args.seqs} sequences x {args.cols} columns")
    print("| input | best of reps (s) | spfn | spfp |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, rows in (("ref.fa", ref), ("est.fa", est)):
            p = os.path.join(tmp, name)
            with open(p, "w") as fh:
                fh.writelines(f">{n}\n{r}\n" for n, r in rows)
            paths.append(p)
        for label, args_ in (("FASTA files", paths), ("(name, row) lists", (ref, est))):
            best = float("inf")
            for _ in range(args.reps):
                t0 = time.perf_counter()
                s = compare(*args_)
                best = min(best, time.perf_counter() - t0)
            print(f"| {label} | {best:.2f} | {s.spfn:.4f} | {s.spfp:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
