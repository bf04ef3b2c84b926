"""Tables of the logs: each set x variant, and means over the sets beyond the budget of
all pairs (where ``library="auto"`` draws the tree's pairs).

    python eval/experiments/2026-11-24-sparse-library/summary.py
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))


def main():
    from bench_run import data_sets
    from trimsa.progressive import Aligner

    data = ROOT / ".." / "shared" / "data"
    beyond = {f.name for f, _i, _r, s in data_sets("tune", None, data)
              if not f.name.startswith("trip-") and len(s) >= 4
              and not Aligner().library_affordable(s)}
    got = defaultdict(dict)
    for name in ("large.tsv", "large128.tsv", "beyond.tsv", "small.tsv"):
        path = HERE / name
        if not path.is_file():
            continue
        for r in csv.DictReader(open(path), delimiter="\t"):
            # "default" changed meaning with the commit; keep the first run of each label
            got[r["set"]].setdefault(f"{r['variant']}", r)
    variants = ["none", "tree8-allwit", "tree16-32wit", "tree16-allwit", "tree32-allwit",
                "tree64-allwit", "tree128-allwit"]
    print("sets beyond the budget of all pairs (tune):", ", ".join(sorted(beyond)))
    print(f"{'set':28s} " + " ".join(f"{v:>15s}" for v in variants))
    sums = defaultdict(list)
    for s in sorted(beyond):
        cells = []
        for v in variants:
            r = got[s].get(v)
            cells.append(f"{float(r['spfn']):.3f}/{float(r['spfp']):.3f}" if r else "-")
            if r:
                sums[v].append((float(r["spfn"]), float(r["spfp"])))
        print(f"{s:28s} " + " ".join(f"{c:>15s}" for c in cells))
    print(f"{'mean (sets run)':28s} " + " ".join(
        f"{sum(a for a, _ in sums[v]) / len(sums[v]):.3f}/{sum(b for _, b in sums[v]) / len(sums[v]):.3f}"
        f"[{len(sums[v])}]".rjust(15) if sums[v] else "-".rjust(15) for v in variants))


if __name__ == "__main__":
    main()
