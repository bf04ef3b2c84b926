"""`trimsa run` with transversions scored apart in its profile aligner, on the tune
splits only (sets of at most 256 sequences).

    python eval/experiments/2026-11-28-run-transversion/run_tv.py --out tune.tsv

Variants (fixed before the run): the default (match 1, mismatch -1: one score for every
mismatch) and ``Aligner(transversion=T)`` for T = -2 and -3. The rule, fixed before the
run: a variant replaces the default only if its mean (SPFN + SPFP) / 2 is lower on both
the simulated groups (msa N <= 256 and triplets together) and the real families.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "eval"))

import bench_run  # noqa: E402

VARIANTS = {"default": {}, "tv-2": {"transversion": -2}, "tv-3": {"transversion": -3}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    rows = []
    for folder, inp, ref, seqs in bench_run.data_sets("tune", 256):
        group = bench_run.group_of(folder, len(seqs))
        for name, opts in VARIANTS.items():
            (spfn, spfp, tc, wall), _ = bench_run.run_variant(inp, ref, opts, args.threads)
            rows.append(dict(set=folder.name, group=group, variant=name, spfn=spfn, spfp=spfp,
                             tc=tc, wall_s=wall))
            print(f"{folder.name:40s} {name:8s} {spfn:.4f}/{spfp:.4f} {wall:.1f} s", flush=True)
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    groups = {"simulated": ("sim2 msa N <= 256", "sim2 triplets"), "real": ("real families",)}
    for name in VARIANTS:
        cells = []
        for label, gs in groups.items():
            got = [r for r in rows if r["variant"] == name and r["group"] in gs]
            crit = sum((r["spfn"] + r["spfp"]) / 2 for r in got) / len(got)
            cells.append(f"{label} {crit:.4f} ({len(got)} sets)")
        print(name, "; ".join(cells))


if __name__ == "__main__":
    main()
