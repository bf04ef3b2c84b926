"""Witness paths weighted by how well their triplet supports the pair (tune only).

    python eval/experiments/2026-11-27-witness-weights/witness.py --variants d0,d2 [--groups real,sim]
        [--max-n 256] [--threads 2] [--out run.tsv]

Needs ``witness.patch`` applied (module knobs ``consistency.WITNESS_DECAY`` and
``DIRECT_FACTOR``). In the library of all pairs, the vote of pair ``(s, t)`` through
witness ``u`` weighs ``exp(-decay * max(0, d(s,u) + d(u,t) - d(s,t)))`` (``d``: the
library's corrected distances), the pair's own vote ``direct``; each pair's votes are
then averaged with these weights (decay 0, direct 1: the default, vote for vote).
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

VARIANTS = {
    "d0": (0.0, 1.0), "d1": (1.0, 1.0), "d2": (2.0, 1.0), "d5": (5.0, 1.0), "d10": (10.0, 1.0),
    "dn1": (-1.0, 1.0), "dn2": (-2.0, 1.0), "dir0.5": (0.0, 0.5), "dir0": (0.0, 0.0),
    "dir2": (0.0, 2.0), "dir4": (0.0, 4.0), "d2-dir2": (2.0, 2.0), "d5-dir2": (5.0, 2.0),
}


def main():
    from bench_run import data_sets
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner, consistency

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--groups", default="real,sim")
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default="d0,d2")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    groups = args.groups.split(",")
    rows = []
    for folder, inp, ref, seqs in data_sets("tune", args.max_n, Path(args.data)):
        group = "real" if folder.name.startswith("rfam") else "sim"
        if group not in groups or folder.name.startswith("trip-"):
            continue
        for v in names:
            consistency.WITNESS_DECAY, consistency.DIRECT_FACTOR = VARIANTS[v]
            t = time.perf_counter()
            res = Aligner(threads=args.threads).align(seqs)
            sec = time.perf_counter() - t
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(str(ref), f"{d}/a.fa")
            rows.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, sec))
            print(f"{folder.name:40s} {v:10s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"{sec:6.1f} s", flush=True)
    print()
    for g in groups:
        for v in names:
            sel = [r for r in rows if r[0] == g and r[3] == v]
            if sel:
                m = np.mean([r[4:8] for r in sel], axis=0)
                print(f"{g:6s} {v:10s} n={len(sel):2d} {m[0]:.4f}/{m[1]:.4f} tc {m[2]:.3f} "
                      f"{m[3]:6.1f} s")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("group\tset\tN\tvariant\tspfn\tspfp\ttc\tseconds\n")
            for r in rows:
                fh.write("\t".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
