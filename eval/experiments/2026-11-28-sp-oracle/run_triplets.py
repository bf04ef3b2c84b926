"""`trimsa run`'s aligner (``Aligner()``, the default: for three sequences the exact 3-way
alignment of most library support) on the same real/tune triplets (tune only).

    python eval/experiments/2026-11-28-sp-oracle/run_triplets.py --tsv OUT

Appends rows in `oracle.py`'s layout with the setting written as ``run 0 0 0 0``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-affine-triplets"))
sys.path.insert(0, str(HERE.parents[2]))


def main(argv=None):
    from score import group_cases, read_records, score

    from trimsa import Aligner

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(HERE.parents[2] / ".cache" / "affine-triplets"))
    ap.add_argument("--tsv", type=Path, required=True)
    args = ap.parse_args(argv)
    aligner = Aligner()
    with open(args.tsv, "a") as fh:
        for case in group_cases("real/tune", cache=Path(args.cache)):
            recs = read_records(case / "input.fa")
            res = aligner.align(recs)
            rows = list(zip((n for n, _ in recs), res.rows))
            s = score(case / "true.fa", rows)
            fh.write(f"0\t0\t0\t0\t0\t{case.name}\t{s.spfn:.6f}\t{s.spfp:.6f}\n")


if __name__ == "__main__":
    main()
