"""The triplet library (``Aligner(triplet_votes=...)``) against the pairwise library, tune only.

    python eval/experiments/2026-11-27-triplet-votes/sweep.py --variants default,tv0.5
        [--data ../shared/data] [--groups real,sim] [--max-n 256] [--threads 2] [--out run.tsv]

Runs ``Aligner`` variants (:data:`VARIANTS`) on every family of ``real/tune`` and every msa
set of ``sim2/tune`` with at most ``--max-n`` sequences and prints SPFN/SPFP/TC, seconds and
the triplet stage per set, then the group means. A variant whose triplet stage does not fit
its budget on a set is recorded as skipped there (the means then name how many sets they
hold). Refuses the validate split.
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
    "default": {},
    "tv0.1": {"triplet_votes": 0.1},
    "tv0.25": {"triplet_votes": 0.25},
    "tv0.5": {"triplet_votes": 0.5},
    "tv1": {"triplet_votes": 1.0},
    "tv0.1-t4": {"triplet_votes": 0.1, "triplet_thirds": 4},
    "tv0.1-w8": {"triplet_votes": 0.1, "triplet_width": 8},
    "tv0.25-t4": {"triplet_votes": 0.25, "triplet_thirds": 4},
    "tv0.5-t4": {"triplet_votes": 0.5, "triplet_thirds": 4},
    "tv0.25-w8": {"triplet_votes": 0.25, "triplet_width": 8},
    "tv0.25-w32": {"triplet_votes": 0.25, "triplet_width": 32},
}


def main():
    from bench_run import data_sets
    from trimsa.errors import OptionError
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--groups", default="real,sim")
    ap.add_argument("--min-n", type=int, default=4)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default="default,tv0.5")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    names = args.variants.split(",")
    groups = args.groups.split(",")
    rows = []
    for folder, inp, ref, seqs in data_sets("tune", args.max_n, Path(args.data)):
        group = "real" if folder.name.startswith("rfam") else "sim"
        if group not in groups or folder.name.startswith("trip-") or len(seqs) < args.min_n:
            continue
        for v in names:
            t = time.perf_counter()
            try:
                res = Aligner(threads=args.threads, **VARIANTS[v]).align(seqs)
            except OptionError as err:
                print(f"{folder.name:40s} {v:12s} skipped: {err}", flush=True)
                rows.append((group, folder.name, len(seqs), v, "", "", "", "", 0, 0.0))
                continue
            sec = time.perf_counter() - t
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(str(ref), f"{d}/a.fa")
            tri = [s for s in res.stages if s.name == "triplets"]
            n_tri, t_tri = (tri[0].items, tri[0].seconds) if tri else (0, 0.0)
            rows.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, sec, n_tri,
                         t_tri))
            print(f"{folder.name:40s} {v:12s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"{sec:7.1f} s ({n_tri} triplets, {t_tri:.1f} s)", flush=True)
    print()
    for g in groups:
        sets = {r[1] for r in rows if r[0] == g}
        # the sets every variant completed
        done = [s for s in sorted(sets)
                if all(any(r[1] == s and r[3] == v and r[4] != "" for r in rows) for v in names)]
        for v in names:
            sel = [r for r in rows if r[0] == g and r[3] == v and r[1] in done]
            if sel:
                m = np.mean([[r[4], r[5], r[6], r[7]] for r in sel], axis=0)
                print(f"{g:6s} {v:12s} n={len(sel):2d}/{len(sets)} {m[0]:.4f}/{m[1]:.4f} "
                      f"tc {m[2]:.3f} {m[3]:7.1f} s")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("group\tset\tN\tvariant\tspfn\tspfp\ttc\tseconds\ttriplets\t"
                     "triplet_seconds\n")
            for r in rows:
                fh.write("\t".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
