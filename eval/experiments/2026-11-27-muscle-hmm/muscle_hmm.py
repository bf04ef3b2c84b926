"""The library's pair HMM with MUSCLE5's nucleotide parameters (tune only).

    python eval/experiments/2026-11-27-muscle-hmm/muscle_hmm.py VARIANT [--data ../shared/data]
        [--max-n 256] [--threads 2] [--real-only] [--out run.tsv]

MUSCLE5 5.1.0 (Debian's source package, ``src/defaulthmmparams.cpp``,
``GetDefaultHMMParams_Nucleo``) gives its nucleotide pair HMM as: match emissions 0.12 for
equal bases and 0.044 for unequal ones (no transition/transversion difference; they sum
to 1.008 and are normalised here), transitions M->M 0.96, M->IS 0.012, M->IL 0.008 (per
direction), IS->IS 0.35, IL->IL 0.90, and a start distribution START->M 0.6, ->IS 0.02,
->IL 0.18. The package's trained HMM has the same five states. ``VARIANT`` patches the
module constants of :mod:`trimsa.progressive.pair_hmm` (read at each call):

- ``default``: the package as it is (at the base commit 36178c0 of the runs below: the
  gap probabilities estimated from the tune splits' true alignments, which ``estimated``
  sets again once the package has MUSCLE5's);
- ``estimated``: the trained emissions and the estimated gaps (0.015019, 0.493975,
  0.014020, 0.883883);
- ``muscle``: MUSCLE5's emissions and gaps (the start stays "as a match");
- ``muscle-odds``: MUSCLE5's emissions, the trained gaps;
- ``muscle-gaps``: the trained emissions, MUSCLE5's gaps;
- ``real-odds``: the emissions trained on the ``real/tune`` pairs alone
  (``../2026-11-25-trained-hmm/params-real.json``, ``pooled``), the package's gaps;
- ``fitted``: ``Aligner(pair_hmm="fitted")`` (three states fitted to each pair);
- ``gaps=d1,e1,d2,e2``: the trained emissions, these gaps (short open, short extend, long
  open, long extend).

``--what families`` (the default) runs every family of ``real/tune`` and every msa set of
``sim2/tune`` with N <= 256 (the runner of ``../2026-11-24-sparse-library``); ``--what
triplets`` / ``pairs`` the tune triplet groups and their pairs
(``../2026-11-27-three-sequences/three.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-sparse-library"))
sys.path.insert(0, str(HERE.parent / "2026-11-27-three-sequences"))

from sparse import report, run_sets  # noqa: E402

from trimsa.progressive import pair_hmm  # noqa: E402

MUSCLE_JOINT = np.where(np.eye(4, dtype=bool), 0.12, 0.044) / 1.008
MUSCLE_BACKGROUND = MUSCLE_JOINT.sum(axis=1)
MUSCLE_ODDS = MUSCLE_JOINT / np.outer(MUSCLE_BACKGROUND, MUSCLE_BACKGROUND)
MUSCLE_GAPS = np.array([0.012, 0.35, 0.008, 0.90])


def patch(variant: str):
    if variant in ("muscle", "muscle-odds"):
        pair_hmm.DNA_ODDS = MUSCLE_ODDS
        pair_hmm.DNA_BACKGROUND = MUSCLE_BACKGROUND
    if variant in ("muscle", "muscle-gaps"):
        pair_hmm.DNA_GAPS = MUSCLE_GAPS
    if variant == "real-odds":
        p = json.load(open(HERE.parent / "2026-11-25-trained-hmm" / "params-real.json"))
        pair_hmm.DNA_ODDS = np.array(p["pooled"]["odds"])
        pair_hmm.DNA_BACKGROUND = np.array(p["pooled"]["q"])
    elif variant == "estimated":
        pair_hmm.DNA_GAPS = np.array([0.015019, 0.493975, 0.014020, 0.883883])
    elif variant.startswith("gaps="):
        pair_hmm.DNA_GAPS = np.array([float(x) for x in variant[5:].split(",")])
    elif variant not in ("default", "muscle", "muscle-odds", "muscle-gaps", "fitted", "real-odds"):
        raise SystemExit(f"unknown variant {variant}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variant")
    ap.add_argument("--data", default=str(HERE.parents[2] / ".." / "shared" / "data"))
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("--what", choices=("families", "triplets", "pairs"), default="families")
    args = ap.parse_args()
    patch(args.variant)
    options = {"pair_hmm": "fitted"} if args.variant == "fitted" else {}
    if args.what != "families":
        import three

        three.main([args.what, "--variants", json.dumps(options)])
        return
    rows = run_sets({args.variant: options}, data=args.data, min_n=args.min_n,
                    max_n=args.max_n, threads=args.threads)
    report(rows, [args.variant], args.out)


if __name__ == "__main__":
    main()
