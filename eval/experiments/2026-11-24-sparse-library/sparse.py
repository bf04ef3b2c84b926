"""Library of all pairs vs pairs drawn along the guide tree (tune splits only).

    python eval/experiments/2026-11-24-sparse-library/sparse.py [--min-n N] [--max-n N]
        [--variants a,b] [--data ../shared/data] [--out log.tsv]

Runs ``Aligner`` variants (:data:`VARIANTS`) on every ``msa-*`` set of ``sim2/tune`` and every
family of ``real/tune`` and prints SPFN/SPFP/TC and seconds per set and the group means.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

import numpy as np  # noqa: E402

VARIANTS = {
    # "default" is Aligner()'s default at the commit the run was made at (see README.md)
    "default": {},
    "none": {"consistency": 0.0},
    "tree4-32wit": {"library": "tree", "pairs_per_merge": 4, "max_witnesses": 32},
    "tree16-32wit": {"library": "tree", "pairs_per_merge": 16, "max_witnesses": 32},
    "tree16-nowit": {"library": "tree", "pairs_per_merge": 16, "max_witnesses": 0},
    "tree8-allwit": {"library": "tree", "pairs_per_merge": 8, "max_witnesses": None},
    "tree16-allwit": {"library": "tree", "pairs_per_merge": 16, "max_witnesses": None},
    "tree32-allwit": {"library": "tree", "pairs_per_merge": 32, "max_witnesses": None},
    "tree64-allwit": {"library": "tree", "pairs_per_merge": 64, "max_witnesses": None},
    "tree128-allwit": {"library": "tree", "pairs_per_merge": 128, "max_witnesses": None},
}


def run_sets(variants: dict, *, data, min_n=0, max_n=None, threads=0, split="tune"):
    """Align every msa/real set of ``split`` under each of ``variants`` (label -> Aligner
    options); rows ``(group, set, N, label, spfn, spfp, tc, seconds, library pairs)``."""
    import tempfile

    from bench_run import data_sets
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    rows = []
    for folder, _inp, ref, seqs in data_sets(split, max_n, Path(data)):
        if folder.name.startswith("trip-") or len(seqs) < min_n:
            continue
        group = "real" if folder.name.startswith("rfam") else (
            "sim2 N<=256" if len(seqs) <= 256 else "sim2 N>256")
        for v, opts in variants.items():
            t = time.perf_counter()
            res = Aligner(threads=threads, **opts).align(seqs)
            sec = time.perf_counter() - t
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(ref, f"{d}/a.fa")
            lib = [s for s in res.stages if s.name == "library"]
            npairs = lib[0].items if lib else 0
            rows.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, sec, npairs))
            print(f"{folder.name:40s} {v:14s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"{sec:6.1f} s {npairs} pairs", flush=True)
    return rows


def report(rows, names, out=None):
    """Group means per variant; the rows as TSV in ``out``."""
    print()
    for g in sorted({r[0] for r in rows}):
        for v in names:
            sel = [r for r in rows if r[0] == g and r[3] == v]
            if sel:
                m = np.mean([[r[4], r[5], r[6], r[7]] for r in sel], axis=0)
                print(f"{g:12s} {v:14s} n={len(sel):2d} {m[0]:.4f}/{m[1]:.4f} tc {m[2]:.3f} "
                      f"{m[3]:6.1f} s")
    if out:
        with open(out, "w") as fh:
            fh.write("group\tset\tN\tvariant\tspfn\tspfp\ttc\tseconds\tpairs\n")
            for r in rows:
                fh.write("\t".join(str(x) for x in r) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=None)
    ap.add_argument("--variants", default="default,none,tree16-allwit,tree128-allwit")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    rows = run_sets({v: VARIANTS[v] for v in names}, data=args.data, min_n=args.min_n,
                    max_n=args.max_n, threads=args.threads)
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
