"""Gap scores of the affine exact 3-way aligner, chosen on the tune groups only.

    python eval/experiments/2026-11-24-affine-triplets/sweep.py --settings 3:1 6:1 ... --tsv OUT

Each setting is ``O:E`` for gap_open -O, gap_extend -E (match 1, mismatch -1, global mode);
``0:G`` is linear. For every tune group it prints mean SPFN / SPFP and writes
one TSV row per (setting, group). Validate groups are refused here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2]))

from score import evaluate_groups, expand_groups, group_cases, is_validate  # noqa: E402


def trimsa_aligner(gap_open: int, gap_extend: int, match: int = 1, mismatch: int = -1,
                   mode: str = "global"):
    """An aligner (records -> rows) of trimsa's exact 3-way engine under one scoring."""
    from trimsa.io import as_sequence_set
    from trimsa.scoring import Scoring
    from trimsa.triplet.api import align_triplets

    if gap_open == 0:
        scoring = Scoring.dna(match=match, mismatch=mismatch, gap=gap_extend)
    else:
        scoring = Scoring.dna(match=match, mismatch=mismatch, gap_open=gap_open,
                              gap_extend=gap_extend)

    def align(records):
        seqs = as_sequence_set([(n, s) for n, s in records], scoring.alphabet)
        (aln,) = align_triplets(seqs, [[0, 1, 2]], mode=mode, scoring=scoring, threads=1)
        return list(aln.rows)

    return align


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", nargs="+", required=True)
    ap.add_argument("--groups", nargs="+", default=["tune"])
    ap.add_argument("--tsv", type=Path, required=True)
    args = ap.parse_args(argv)
    names = expand_groups(args.groups)
    bad = [g for g in names if is_validate(g)]
    if bad:
        ap.error(f"the sweep runs on tune groups only, not {bad}")
    groups = {g: c for g in names if (c := group_cases(g))}
    with open(args.tsv, "a") as fh:
        for text in args.settings:
            go, ge = (-abs(int(x)) for x in text.split(":"))
            t0 = time.time()
            res = evaluate_groups(groups, aligner=trimsa_aligner(go, ge), peers=())
            for g, r in res.items():
                m = r.mean("trimsa")
                fh.write(f"{go}\t{ge}\t{g}\t{m['n']}\t{m['spfn']:.5f}\t{m['spfp']:.5f}\t{m['tc']:.5f}\n")
                fh.flush()
                print(f"{go},{ge} {g}: {m['spfn']:.4f} / {m['spfp']:.4f}", flush=True)
            print(f"{go},{ge}: {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
