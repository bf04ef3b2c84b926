"""NJ's joins with the active nodes compacted into the first rows of the matrix (the
working tree) against the kernel of a base commit read through a slot array, alternated
in one process on the same random matrices; checks that both give the same joins.

    python eval/experiments/2026-11-29-nj-compact/ab.py [--base 1ea4258] [--sizes 2000,4000]
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


def old_kernel(base: str):
    src = subprocess.run(["git", "show", f"{base}:trimsa/tree/_cpu.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
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
    args = ap.parse_args()
    threads = _numba.set_threads(args.threads)
    old = old_kernel(args.base)
    small = np.random.default_rng(1).random((50, 50))
    small = small + small.T
    for k in (old, new):   # compile
        k.nj_joins(small.copy())
    print(f"threads {threads}")
    print("| n | base s | compact s | ratio | same joins |")
    print("|---:|---:|---:|---:|---|")
    for n in (int(x) for x in args.sizes.split(",")):
        rng = np.random.default_rng(n)
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
