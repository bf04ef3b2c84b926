"""``trimsa run`` (progressive, defaults) on the tune triplet groups, against the exact engine.

    python eval/experiments/2026-11-24-run-triplets/run3.py [--groups tune]

The same harness, groups and criterion as ../2026-11-24-affine-substitution (mean over the
four tune groups of (SPFN + SPFP) / 2), so the progressive aligner of ``run`` on three
sequences can be set beside the exact affine 3-way aligner's tune rows in that folder's
tune.tsv. Tune only: this decides whether ``run`` aligns three sequences with the exact
engine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent / "2026-11-24-affine-triplets"
sys.path.insert(0, str(HARNESS))
sys.path.insert(0, str(HERE.parents[2]))

GROUPS = ("sim2/tune/trip-geo", "sim2/tune/trip-pow", "sim/trip-indel", "real/tune")


def progressive(records):
    from trimsa.progressive import align

    return align(records, threads=1).rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.parse_args(argv)
    from score import evaluate_groups, group_cases

    crit = []
    for g in GROUPS:
        res = evaluate_groups({g: group_cases(g)}, aligner=progressive, peers=())
        m = res[g].mean("trimsa")
        crit.append((m["spfn"] + m["spfp"]) / 2)
        print(f"{g}\tn={m['n']}\tSPFN {m['spfn']:.4f}\tSPFP {m['spfp']:.4f}\tTC {m['tc']:.4f}",
              flush=True)
    print(f"criterion (mean over groups of (SPFN+SPFP)/2): {sum(crit) / len(crit):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
