"""Refinement variants on two real/tune families, with how many rounds were kept.

    python eval/experiments/2026-11-27-random-refine/check.py > check.log
"""

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import refine as R  # noqa: E402

from trimsa.evaluate import compare  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.progressive import Aligner  # noqa: E402

DATA = HERE.parents[2] / ".." / "shared" / "data" / "real" / "tune"
VARIANTS = [("none", 0, False, False), ("better32", 32, False, False),
            ("always32", 32, True, False), ("mea-better32", 32, False, True),
            ("mea-always32", 32, True, True)]

original = R.api.Aligner._walk
for fam in ("rfam11-RF00548-N72", "rfam11-RF01296-N21"):
    seqs = read_sequences(str(DATA / fam / "input.fa"))
    for label, rounds, always, mea in VARIANTS:
        R.api.Aligner._walk = original
        R.STATS.update(rounds=0, kept=0, seconds=0.0)
        R.patch(rounds, always, mea)
        res = Aligner(threads=2).align(seqs)
        with tempfile.TemporaryDirectory() as d:
            res.write(f"{d}/a.fa")
            c = compare(str(DATA / fam / "true.fa"), f"{d}/a.fa")
        print(f"{fam:22s} {label:14s} {c.spfn:.4f}/{c.spfp:.4f} rounds {R.STATS['rounds']} "
              f"kept {R.STATS['kept']} {R.STATS['seconds']:.1f} s", flush=True)
