"""The tree's library at fewer posterior slots per residue: accuracy per byte of maps.

    python eval/experiments/2026-11-25-library-slots/slots.py INPUT TRUE --per-merge P --slots S

One variant per process: ``consistency.POSTERIOR_SLOTS`` set to ``S``, ``Aligner(library="tree",
pairs_per_merge=P)`` with the tree library's budgets lifted (the variants are chosen by the
memory their maps take, printed); prints the stage lines, the scores against TRUE, the time
and the peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("true")
    ap.add_argument("--per-merge", type=int, default=128)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner, api, consistency

    consistency.POSTERIOR_SLOTS = args.slots
    api.TREE_LIBRARY_BYTES = 1e12
    t = time.perf_counter()
    res = Aligner(library="tree", pairs_per_merge=args.per_merge, max_library_cells=1e13,
                  threads=args.threads).align(args.input)
    sec = time.perf_counter() - t
    for s in res.stages:
        print(s.line(), flush=True)
    with tempfile.TemporaryDirectory() as d:
        res.write(f"{d}/a.fa")
        c = compare(args.true, f"{d}/a.fa")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(f"{Path(args.input).parent.name} per-merge {args.per_merge} slots {args.slots}: "
          f"SPFN {c.spfn:.4f} SPFP {c.spfp:.4f} TC {c.tc:.4f} {sec:.1f} s peak RSS {rss:.2f} GiB",
          flush=True)


if __name__ == "__main__":
    main()
