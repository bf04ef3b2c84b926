"""Transition / transversion substitution scores for the affine exact 3-way aligner,
on the tune groups only.

    python eval/experiments/2026-11-28-tstv-substitution/tstv.py --jobs 2 --tsv OUT

The question: the trained pair HMM of `run`'s library gives transitions (A-G, C-T) odds
of 0.58-0.61 and transversions 0.36-0.37 (`../2026-11-25-trained-hmm`), while the
exact 3-way engine's DNA scores give every mismatch the same score. Do integer scores
that tell the two apart align triplets better? The settings and the criterion (mean over
the four tune groups of (SPFN + SPFP) / 2, as in `../2026-11-24-affine-substitution`)
are fixed below, before any run. Each (setting, group) pair is one job (one process,
one thread); every finished job appends one TSV row (match, transition, transversion,
gap_open, gap_extend, group, n, spfn, spfp, tc, seconds). The real triplets are drawn
into `.cache/affine-triplets` by `../2026-11-24-affine-triplets/draw.py --splits tune`.

``--report M:TS:TV:O:E`` runs one setting on the validate groups (report only).
``--product`` runs the package's own default scoring of alignments (``scoring=None``)
instead of the settings, on the tune groups (with ``--report default``: on validate).
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

#: (match, transition, transversion, gap_open, gap_extend); the first is the default.
SETTINGS = [
    (3, -2, -2, -8, -2),
    (3, -1, -2, -8, -2),
    (3, -1, -3, -8, -2),
    (3, -2, -3, -8, -2),
    (6, -3, -6, -16, -4),
]
GROUPS = ("sim2/tune/trip-geo", "sim2/tune/trip-pow", "sim/trip-indel", "real/tune")
VALIDATE = ("sim2/validate/trip-pow", "real/validate")


def scoring(match, ts, tv, go, ge):
    """DNA scores with IUPAC codes: ``match`` for equal bases, ``ts`` for a transition,
    ``tv`` for a transversion, 0 where ambiguity codes overlap (as ``Scoring.dna``)."""
    import numpy as np

    from trimsa import alphabet
    from trimsa.scoring import Scoring

    sets = alphabet.DNA.base_sets()
    purines = frozenset("AG")
    k = len(sets)
    table = np.zeros((k, k), dtype=np.int32)
    for x in range(k):
        for y in range(k):
            if len(sets[x]) == 1 and sets[x] == sets[y]:
                table[x, y] = match
            elif not (sets[x] & sets[y]):
                same = (len(sets[x]) == 1 and len(sets[y]) == 1
                        and (sets[x] | sets[y]) <= purines or not (sets[x] | sets[y]) & purines)
                table[x, y] = ts if same else tv
    return Scoring(alphabet.DNA, table, go, ge, f"match={match}, ts={ts}, tv={tv}")


def job(setting, group, data, cache):
    from score import evaluate_groups, group_cases

    from trimsa.io import as_sequence_set
    from trimsa.triplet.api import align_triplets

    sc = None if setting == ("default",) else scoring(*setting)

    def align(records):
        seqs = as_sequence_set([(n, s) for n, s in records], "dna")
        (aln,) = align_triplets(seqs, [[0, 1, 2]], scoring=sc, threads=1)
        return list(aln.rows)

    t0 = time.time()
    cases = group_cases(group, Path(data), Path(cache))
    res = evaluate_groups({group: cases}, aligner=align, peers=())
    m = res[group].mean("trimsa")
    return (*setting, group, m["n"], m["spfn"], m["spfp"], m["tc"], time.time() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--cache", default=str(HERE.parents[2] / ".cache" / "affine-triplets"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tsv", type=Path, required=True)
    ap.add_argument("--report", default=None, metavar="M:TS:TV:O:E")
    ap.add_argument("--product", action="store_true")
    args = ap.parse_args(argv)
    settings = [("default",)] if args.product else SETTINGS
    if args.report:
        chosen = (("default",) if args.report == "default"
                  else tuple(int(x) for x in args.report.split(":")))
        todo = [(chosen, g) for g in VALIDATE]
    else:
        todo = [(s, g) for g in GROUPS for s in settings]
    with ProcessPoolExecutor(args.jobs) as pool, open(args.tsv, "a") as fh:
        futs = [pool.submit(job, s, g, args.data, args.cache) for s, g in todo]
        for f in as_completed(futs):
            row = f.result()
            fh.write("\t".join(f"{x:.5f}" if isinstance(x, float) else str(x) for x in row)
                     + "\n")
            fh.flush()
            print(*row, flush=True)


if __name__ == "__main__":
    main()
