"""The same comparison on `real/tune` (no new run): trimsa's default alignments as
recorded by ``../2026-11-29-structure-library/real_ali.tsv`` (variant ``default``, base
1ea4258; the defaults' alignments of the real families have not changed since) against
MUSCLE5's in each family's ``peers/scores.tsv``.

    python eval/experiments/2026-11-27-real-significance/paired_tune.py [DATA/real/tune]
"""
import csv
import sys
from pathlib import Path

from paired import compare

HERE = Path(__file__).resolve().parent
data = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/real/tune")
rows = csv.DictReader(open(HERE.parent / "2026-11-29-structure-library" / "real_ali.tsv"),
                      delimiter="\t")
t = {r["set"]: (float(r["spfn"]), float(r["spfp"])) for r in rows if r["variant"] == "default"}
m = {}
for s in t:
    for p in csv.DictReader(open(data / s / "peers" / "scores.tsv"), delimiter="\t"):
        if p["tool"] == "muscle" and p["spfn"]:
            m[s] = (float(p["spfn"]), float(p["spfp"]))
compare(t, m)
