"""Match/mismatch scores (with gap scores) of the affine exact 3-way aligner, on tune groups only.

    python eval/experiments/2026-11-24-affine-substitution/subst.py --data D --cache C \
        --jobs 16 --tsv OUT

The settings are fixed below, before any run. Each (setting, group) pair is one job
(one process, one thread); every finished job appends one TSV row (match, mismatch,
gap_open, gap_extend, mode, group, n, spfn, spfp, tc, seconds). The criterion, fixed in
advance as in ../2026-11-24-affine-triplets: mean over the four tune groups of
(SPFN + SPFP) / 2.

``--report M:X:O:E:MODE`` runs that one setting, chosen on tune, on the validate groups
(report time only; nothing is chosen from it).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent / "2026-11-24-affine-triplets"
sys.path.insert(0, str(HARNESS))
sys.path.insert(0, str(HERE.parents[2]))

#: (match, mismatch, gap_open, gap_extend, mode)
SETTINGS = [
    (1, -1, -3, -1, "global"),     # the gap sweep's choice (baseline)
    (2, -1, -4, -2, "global"),
    (2, -1, -5, -2, "global"),
    (2, -1, -6, -2, "global"),
    (2, -1, -6, -1, "global"),
    (3, -2, -6, -2, "global"),
    (3, -2, -8, -2, "global"),
    (3, -1, -8, -3, "global"),
    (5, -4, -10, -4, "global"),
    (1, -1, -3, -1, "semiglobal"),
]
GROUPS = ("sim2/tune/trip-geo", "sim2/tune/trip-pow", "sim/trip-indel", "real/tune")
VALIDATE = ("sim2/validate/trip-pow", "real/validate")


def job(setting, group, data, cache):
    from score import evaluate_groups, group_cases
    from sweep import trimsa_aligner

    match, mismatch, go, ge, mode = setting
    t0 = time.time()
    cases = group_cases(group, Path(data), Path(cache))
    res = evaluate_groups({group: cases},
                          aligner=trimsa_aligner(go, ge, match=match, mismatch=mismatch,
                                                 mode=mode), peers=())
    m = res[group].mean("trimsa")
    return (*setting, group, m["n"], m["spfn"], m["spfp"], m["tc"], time.time() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tsv", type=Path, required=True)
    ap.add_argument("--report", default=None, metavar="M:X:O:E:MODE")
    args = ap.parse_args(argv)
    if args.report:
        *nums, mode = args.report.split(":")
        todo = [(tuple(int(x) for x in nums) + (mode,), g) for g in VALIDATE]
    else:
        todo = [(s, g) for g in GROUPS for s in SETTINGS]
    with ProcessPoolExecutor(args.jobs) as pool, open(args.tsv, "a") as fh:
        futs = [pool.submit(job, s, g, args.data, args.cache) for s, g in todo]
        for f in as_completed(futs):
            row = f.result()
            fh.write("\t".join(f"{x:.5f}" if isinstance(x, float) else str(x) for x in row)
                     + "\n")
            fh.flush()
            print(*row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
