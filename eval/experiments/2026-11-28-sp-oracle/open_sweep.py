"""The gap open of the exact affine 3-way aligner's DNA default on all four tune groups.

    python eval/experiments/2026-11-28-sp-oracle/open_sweep.py --jobs 2 --tsv open.tsv

`oracle.py` found that the real/tune triplets alone prefer a gap open of -14 to the
default -8 (match 3, transition -2, transversion -3, extend -2). This runs match 3 /
-2 / -3 / extend -2 with gap open -8, -10, -12, -14, -16 on the four tune groups
through `../2026-11-28-tstv-substitution/tstv.py`'s job (same TSV layout, same
criterion: the mean over the groups of (SPFN + SPFP) / 2), fixed before the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-28-tstv-substitution"))

import tstv  # noqa: E402

tstv.SETTINGS = [(3, -2, -3, go, -2) for go in (-8, -10, -12, -14, -16)]

if __name__ == "__main__":
    tstv.main()
