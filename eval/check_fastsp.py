"""Check ``trimsa.evaluate`` against the FastSP values stored beside the data.

Usage: ``python eval/check_fastsp.py [DATA_DIR]`` (default ``../shared/data/sim``
relative to the repository root).

For every data set ``DATA_DIR/*/`` and every ``ok`` row of its
``peers/scores.tsv`` (written by FastSP 1.7.1), scores ``peers/<tool>.fa[.gz]``
against ``true.fa[.gz]`` and compares SPFN, SPFP and TC (full precision in the
file), SP-score and Modeler (4 decimals in the file) and the estimate's column
count. Prints the largest absolute differences; exits 1 when one of the full
precision ones exceeds 1e-9. The current result is ``eval/results/check_fastsp.txt``
(this output, with the date and machine above it; listed in ``eval/results/README.md``).
"""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trimsa.evaluate import compare  # noqa: E402


def find(folder: Path, stem: str) -> Path | None:
    for suffix in (".fa", ".fa.gz"):
        p = folder / f"{stem}{suffix}"
        if p.exists():
            return p
    return None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    data = Path(argv[0]) if argv else ROOT.parent / "shared" / "data" / "sim"
    if not data.is_dir():
        print(f"check_fastsp: {data}: no such folder", file=sys.stderr)
        return 2
    worst = {k: 0.0 for k in ("spfn", "spfp", "tc", "sp", "modeler")}
    where = {}
    pairs = col_mismatch = 0
    t0 = time.perf_counter()
    for folder in sorted(p for p in data.iterdir() if (p / "peers" / "scores.tsv").exists()):
        true = find(folder, "true")
        with open(folder / "peers" / "scores.tsv") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row["status"] != "ok":
                    continue
                est = find(folder / "peers", row["tool"])
                s = compare(true, est)
                pairs += 1
                got = {"spfn": s.spfn, "spfp": s.spfp, "tc": s.tc,
                       "sp": s.sp_score, "modeler": s.modeler}
                for k, v in got.items():
                    d = abs(v - float(row[k]))
                    if d > worst[k]:
                        worst[k], where[k] = d, f"{folder.name}/{row['tool']}"
                if s.est_columns != int(row["est_cols"]):
                    col_mismatch += 1
                    print(f"{folder.name}/{row['tool']}: {s.est_columns} columns, "
                          f"scores.tsv says {row['est_cols']}")
    wall = time.perf_counter() - t0
    print(f"{pairs} (true, estimate) pairs under {data} scored in {wall:.1f} s")
    print("| value | max abs diff | where | precision in scores.tsv |")
    print("|---|---|---|---|")
    for k, v in worst.items():
        prec = "4 decimals" if k in ("sp", "modeler") else "full"
        print(f"| {k} | {v:.3g} | {where.get(k, '-')} | {prec} |")
    print(f"estimate column counts differing: {col_mismatch}")
    ok = pairs > 0 and max(worst["spfn"], worst["spfp"], worst["tc"]) <= 1e-9 and not col_mismatch
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
