"""How far can the sum-of-pairs objective go on the real tune triplets? (tune only)

    python eval/experiments/2026-11-28-sp-oracle/oracle.py --device gpu --tsv OUT

Aligns every drawn real/tune triplet (`.cache/affine-triplets/real/tune`, from
`../2026-11-24-affine-triplets/draw.py --splits tune`) exactly under each DNA scoring of a
grid (match 3; transition / transversion, gap open and extend below), on the given
device, and appends one TSV row per (setting, case): match, transition, transversion,
gap_open, gap_extend, case, spfn, spfp. `report.py` then compares the best single
setting, the per-triplet oracle (the best setting of each triplet, known only from the
truth) and MUSCLE5 run on the triplet.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-affine-triplets"))
sys.path.insert(0, str(HERE.parent / "2026-11-28-tstv-substitution"))
sys.path.insert(0, str(HERE.parents[2]))

#: (transition, transversion) x gap open x gap extend, with match 3.
SUBS = ((-1, -1), (-2, -2), (-2, -3), (-3, -3))
OPENS = (-2, -4, -8, -14)
EXTENDS = (-1, -2, -3)


def main(argv=None):
    from score import group_cases, read_records, score
    from tstv import scoring

    from trimsa.io import as_sequence_set
    from trimsa.triplet.api import align_triplets

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(HERE.parents[2] / ".cache" / "affine-triplets"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--tsv", type=Path, required=True)
    args = ap.parse_args(argv)
    cases = group_cases("real/tune", cache=Path(args.cache))
    records, names = [], []
    for ci, case in enumerate(cases):
        recs = read_records(case / "input.fa")
        names.append([n for n, _ in recs])
        records += [(f"c{ci}_{q}", s) for q, (_, s) in enumerate(recs)]
    seqs = as_sequence_set(records, "dna")
    trip = [[3 * ci, 3 * ci + 1, 3 * ci + 2] for ci in range(len(cases))]
    done = set()
    if args.tsv.exists():
        done = {tuple(int(x) for x in line.split("\t")[:5]) for line in args.tsv.read_text().splitlines()}
    with open(args.tsv, "a") as fh:
        for ts, tv in SUBS:
            for go in OPENS:
                for ge in EXTENDS:
                    setting = (3, ts, tv, go, ge)
                    if setting in done:
                        continue
                    t0 = time.time()
                    alns = align_triplets(seqs, trip, scoring=scoring(*setting), device=args.device)
                    for ci, (case, aln) in enumerate(zip(cases, alns)):
                        s = score(case / "true.fa", list(zip(names[ci], aln.rows)))
                        fh.write("\t".join(map(str, setting)) + f"\t{case.name}\t{s.spfn:.6f}\t"
                                 f"{s.spfp:.6f}\n")
                    fh.flush()
                    print(*setting, f"{time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
