"""Library votes from pair-HMM posteriors against votes from the pairwise alignments
(tune splits only).

    python eval/experiments/2026-11-24-posterior-library/post.py [--max-n N]
        [--variants a,b] [--out log.tsv]

Uses the runner of ``../2026-11-24-sparse-library/sparse.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))

from sparse import ROOT, report, run_sets  # noqa: E402

#: Runs 1 and 2 (``run1.log``, ``run2.log``) were made with a prototype whose switch was
#: ``Aligner(posterior=True)`` and whose posterior votes were weighted by identity unless
#: the variant ends in ``-noid``; the labels below are those of the package now, in which
#: posterior votes have weight 1 (the ``-noid`` rows) and ``library_votes="alignment"`` is
#: the former library.
VARIANTS = {
    "viterbi": {"library_votes": "alignment", "consistency": 6.0},
    "post-w6": {"consistency": 6.0},
    "post-w12": {"consistency": 12.0},
    "post-w24": {"consistency": 24.0},
    "post-w48": {"consistency": 48.0},
    "post-w96": {"consistency": 96.0},
    "post-w12-k2": {"consistency": 12.0},
    "post-w12-k8": {"consistency": 12.0},
    "post-w24-k2": {"consistency": 24.0},
    "post-w24-k8": {"consistency": 24.0},
    # three sequences: the exact 3-way engine (run's default when run 3 was made) or
    # progressive merges (the default since)
    "exact": {"exact_triplet": True},
    "prog-viterbi": {"exact_triplet": False, "library_votes": "alignment", "consistency": 6.0},
    "prog-post-w24": {"exact_triplet": False, "consistency": 24.0},
    "prog-post-w48": {"exact_triplet": False, "consistency": 48.0},
}

#: Module settings changed for a variant (restored after it): slots kept per residue.
PATCHES = {
    "post-w12-k2": {"POSTERIOR_SLOTS": 2},
    "post-w12-k8": {"POSTERIOR_SLOTS": 8, "POSTERIOR_FLOOR": 0.005},
    "post-w24-k2": {"POSTERIOR_SLOTS": 2},
    "post-w24-k8": {"POSTERIOR_SLOTS": 8, "POSTERIOR_FLOOR": 0.005},
}


def patched_run(names, **kw):
    from trimsa.progressive import consistency

    rows = []
    for v in names:
        saved = {k: getattr(consistency, k) for k in PATCHES.get(v, {})}
        for k, val in PATCHES.get(v, {}).items():
            setattr(consistency, k, val)
        try:
            rows += run_sets({v: VARIANTS[v]}, **kw)
        finally:
            for k, val in saved.items():
                setattr(consistency, k, val)
    return rows


def triplet_sets(names, *, data, threads=0, split="tune"):
    """The ``trip-*`` sets of ``sim2/split`` under each variant; rows as ``run_sets``'s."""
    import tempfile
    import time

    from bench_run import data_sets
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    rows = []
    for folder, _inp, ref, seqs in data_sets(split, 3, Path(data)):
        if not folder.name.startswith("trip-"):
            continue
        for v in names:
            t = time.perf_counter()
            res = Aligner(threads=threads, **VARIANTS[v]).align(seqs)
            sec = time.perf_counter() - t
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(ref, f"{d}/a.fa")
            rows.append(("sim2 triplets", folder.name, 3, v, c.spfn, c.spfp, c.tc, sec, 0))
            print(f"{folder.name:40s} {v:14s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"{sec:6.1f} s", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--variants", default="viterbi,post-w6")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--triplets", action="store_true", help="the trip-* sets instead")
    args = ap.parse_args()
    names = args.variants.split(",")
    if args.triplets:
        report(triplet_sets(names, data=args.data, threads=args.threads), names, args.out)
        return
    rows = patched_run(names, data=args.data, min_n=args.min_n, max_n=args.max_n,
                       threads=args.threads)
    report(rows, names, args.out)


if __name__ == "__main__":
    main()
