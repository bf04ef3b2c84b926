"""``run`` at 10^4 sequences with the library of the guide tree beyond today's budgets.

    python eval/experiments/2026-11-24-scale-library/scale.py INPUT TRUE --per-merge P
        [--bytes B] [--cells C] [--consistency W]

One variant per process (the peak RSS is the process's): ``Aligner(library="tree",
pairs_per_merge=P, max_library_cells=C)`` with ``api.LIBRARY_BYTES`` set to ``B``; prints
the stage lines, the scores against TRUE (``trimsa.evaluate.compare``) and the peak RSS.
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
    ap.add_argument("--bytes", type=float, default=2 ** 30)
    ap.add_argument("--cells", type=float, default=1.2e10)
    ap.add_argument("--consistency", type=float, default=48.0)
    ap.add_argument("--library", default="tree", choices=("auto", "all", "tree"))
    args = ap.parse_args()
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner, api

    api.LIBRARY_BYTES = int(args.bytes)
    t = time.perf_counter()
    opts = {} if args.library == "all" else {"pairs_per_merge": args.per_merge}
    res = Aligner(library=args.library, max_library_cells=args.cells,
                  consistency=args.consistency, **opts).align(args.input)
    sec = time.perf_counter() - t
    for s in res.stages:
        print(s.line(), flush=True)
    with tempfile.TemporaryDirectory() as d:
        res.write(f"{d}/a.fa")
        c = compare(args.true, f"{d}/a.fa")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(f"{Path(args.input).parent.name} library {args.library} per-merge {args.per_merge} bytes {args.bytes:.3g} cells {args.cells:.3g}: "
          f"SPFN {c.spfn:.4f} SPFP {c.spfp:.4f} TC {c.tc:.4f} {sec:.1f} s peak RSS {rss:.1f} GiB",
          flush=True)


if __name__ == "__main__":
    main()
